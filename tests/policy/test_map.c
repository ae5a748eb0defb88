/*
 * test_map.c: Broaden=when-faster's backfill map (policy/policy_map.c) on a
 * cluster of two a100 nodes (a1, a2) and two l40s nodes (l1, l2), 4 GPUs
 * each, l40s at Speed=0.7 (a limit scaled by 1/0.7): the blind spot of issue
 * 47 (a small a100 job broadened onto idle l40s GPUs that a reservation for
 * an 8-GPU job ahead holds), a case where broadening clearly wins, and a
 * hole long enough (or not) for the scaled limit; and running jobs' ends
 * expected from their users' run-time history (policy_history.c), where
 * that changes the decision; and a near tie with no slower type, kept with
 * history.
 *
 * Each scenario gives the same pending jobs both ways, as a list in priority
 * order (cl.map) and summed by type (cl.ahead, what the older estimate
 * reads). NODEOX_TEST_OLD_ESTIMATE=1 in the environment decides on the
 * older estimate instead: the three scenario tests then fail, which is how
 * they were shown to catch what it misses. NODEOX_TEST_NO_HISTORY=1 decides
 * with RunTimeHistory=no: the history and the tie scenarios then fail.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/common/test_main.h"
#include "policy/policy.h"

static const char *conf_text = "GpuType=a100 Speed=1.0\n"
			       "GpuType=l40s Speed=0.7\n"
			       "Group=g Types=a100,l40s\n"
			       "Broaden=when-faster\n";

#define A100 1u /* types masks: bit of conf type 0, 1 */
#define L40S 2u

static nodeox_node_t nodes[4];
static nodeox_decision_t d;

/* The four nodes, all GPUs held (idle: l1's idle GPUs). */
static void nodes_reset(uint32_t l1_idle)
{
	nodes[0] = (nodeox_node_t){ "a1", "a100", "gpu", "a100", 4, 0, true };
	nodes[1] = (nodeox_node_t){ "a2", "a100", "gpu", "a100", 4, 0, true };
	nodes[2] = (nodeox_node_t){ "l1", "l40s", "gpu", "l40s", 4, l1_idle, true };
	nodes[3] = (nodeox_node_t){ "l2", "l40s", "gpu", "l40s", 4, 0, true };
}

/* Decide a tagged job of `tres` (per node) with a limit of lim minutes,
 * running jobs run[0..nr) (sorted by end), pending jobs p[0..np) ahead. */
/* nodeox.conf, RunTimeHistory=no under NODEOX_TEST_NO_HISTORY=1 */
static nodeox_conf_t *conf_load(void)
{
	char text[512], err[NODEOX_ERR_MAX];
	nodeox_conf_t *c;

	snprintf(text, sizeof(text), "%s%s", conf_text, getenv("NODEOX_TEST_NO_HISTORY") ? "RunTimeHistory=no\n" : "");
	if (nodeox_conf_parse_string(text, "test.conf", &c, err, sizeof(err)))
		fail_msg("conf: %s", err);
	return c;
}

static void decide(nodeox_running_t *run, size_t nr, const nodeox_pending_t *p, size_t np, const char *tres,
		   uint32_t lim)
{
	static const char *const names[] = { "", "a100", "l40s", "" };
	nodeox_conf_t *c;
	nodeox_demand_t ahead[4];
	uint32_t scratch[NODEOX_ESTIMATE_SCRATCH(4)];
	nodeox_cluster_t cl = { .nodes = nodes, .nnodes = 4, .running = run, .nrunning = nr, .ahead = ahead,
				.scratch = scratch };
	nodeox_job_t job = { .comment = "nodeox:flex", .partition = "gpu", .tres_per_node = tres, .time_limit = lim };
	size_t i, k;

	c = conf_load();
	for (i = 0; i < np; i++) { /* the same jobs, summed by type */
		const char *type = names[p[i].types & 3];

		for (k = 0; k < cl.nahead && strcmp(ahead[k].type, type); k++)
			;
		if (k == cl.nahead)
			ahead[cl.nahead++] = (nodeox_demand_t){ .type = type };
		nodeox_demand_add(&ahead[k], p[i].gpus, 0, (uint32_t)i);
	}
	cl.map = !getenv("NODEOX_TEST_OLD_ESTIMATE");
	cl.pending = p;
	cl.npending = np;
	nodeox_policy_decide(c, &job, &cl, &d);
	nodeox_conf_free(c);
}

static void want(nodeox_action_t action, const char *why)
{
	if (d.action != action || (why && !strstr(d.reason, why)))
		fail_msg("want %s \"%s\", got %s \"%s\"", nodeox_action_name(action), why ? why : "",
			 nodeox_action_name(d.action), d.reason);
}

/*
 * The blind spot: an 8-GPU job ahead, broadened to a100|l40s, gets its
 * reservation on the two l40s nodes once l2 frees at 100 s; l1's 4 GPUs are
 * idle until then. A 1-GPU a100 job with a 2-minute limit: as asked it
 * backfills on a1's GPU freeing at 30 s (done by 150 s); broadened its limit
 * is 3 minutes, which does not fit before the l40s reservation, so there it
 * could start only after it. The older estimate broadened it (it saw l1
 * idle, not the reservation); the map keeps it.
 */
static void test_map_blind_spot(void **state)
{
	nodeox_running_t run[] = { { 0, 1, 30 }, { 3, 4, 100 }, { 0, 3, 600 }, { 1, 4, 600 } };
	const nodeox_pending_t ahead[] = { { A100 | L40S, 8, 3600, 11 } };

	(void)state;
	nodes_reset(4);
	decide(run, 4, ahead, 1, "gres:gpu:a100:1", 2);
	want(NODEOX_KEEP, "kept: a100 expected free in under a minute, finishing in about 3 min; "
			  "broadened to a100|l40s it would finish no sooner");
	assert_true(d.estimate.map);
	assert_int_equal(d.estimate.map_reserved, 1);
	assert_int_equal(d.estimate.kept_start, 30);
	assert_int_equal(d.estimate.kept_finish, 150);
	assert_int_equal(d.estimate.broad_limit, 180);
	/* broadened, its 3 minutes fit no l40s hole: it lands on a1 too */
	assert_int_equal(d.estimate.broad_start, 30);
	assert_int_equal(d.estimate.broad_slowest, 0);
	/* the running job whose GPU coming back decides it is named */
	assert_int_equal(d.estimate.nkept_by, 1);
	assert_int_equal(d.estimate.kept_by[0], 0);

	/* the same with a typed a100 job ahead as well, reserving the a100
	 * nodes from 600 s: the hole before it still takes the small job */
	{
		const nodeox_pending_t two[] = { { A100 | L40S, 8, 3600, 11 }, { A100, 8, 3600, 12 } };

		decide(run, 4, two, 2, "gres:gpu:a100:1", 2);
		want(NODEOX_KEEP, "kept:");
		assert_int_equal(d.estimate.map_reserved, 2);
		assert_int_equal(d.estimate.kept_start, 30);
	}
}

/*
 * Broadening clearly wins: the a100 nodes and l2 are held for 3 hours, l1 is
 * idle, and an 8-GPU l40s job ahead reserves both l40s nodes from then. The
 * 4-GPU a100 job's 60 minutes, scaled to 86 on l40s, fit l1's hole: it
 * starts now broadened, against 3 hours as asked. The older estimate paid
 * the l40s demand ahead out of l1's idle GPUs and kept it.
 */
static void test_map_broaden_wins(void **state)
{
	nodeox_running_t run[] = { { 0, 4, 10800 }, { 1, 4, 10800 }, { 3, 4, 10800 } };
	const nodeox_pending_t ahead[] = { { L40S, 8, 3600, 21 } };

	(void)state;
	nodes_reset(4);
	decide(run, 3, ahead, 1, "gres:gpu:a100:4", 60);
	want(NODEOX_REWRITE, "broadened: a100 expected free in about 180 min, l40s free now: finishing in "
			     "about 86 min against in about 240 min as asked (Broaden=when-faster)");
	assert_int_equal(d.estimate.broad_start, 0);
	assert_int_equal(d.estimate.broad_finish, 5143);
	assert_int_equal(d.estimate.kept_start, 10800);
	assert_int_equal(d.estimate.broad_slowest, 1);
}

/*
 * A hole long enough for the scaled limit, and one not: l2 frees at 30 min
 * and the 8-GPU l40s job ahead reserves both l40s nodes from then; the a100
 * nodes are held for 2 hours. A 20-minute a100 job is 29 minutes on l40s:
 * it fits the 30-minute hole on l1 and broadens. A 25-minute one is 36
 * minutes there: it could start on l40s only after the reservation (90
 * min), not sooner by the margin than 145 min as asked, and stays.
 */
static void test_map_hole_fits_scaled_limit(void **state)
{
	nodeox_running_t run[] = { { 3, 4, 1800 }, { 0, 4, 7200 }, { 1, 4, 7200 } };
	const nodeox_pending_t ahead[] = { { L40S, 8, 3600, 31 } };

	(void)state;
	nodes_reset(4);
	decide(run, 3, ahead, 1, "gres:gpu:a100:4", 20);
	want(NODEOX_REWRITE, "time limit 20 -> 29 min; broadened:");
	assert_int_equal(d.estimate.broad_start, 0);
	assert_int_equal(d.estimate.broad_limit, 29 * 60);

	decide(run, 3, ahead, 1, "gres:gpu:a100:4", 25);
	want(NODEOX_KEEP, "less than WhenFasterMargin=0.2 sooner");
	assert_int_equal(d.estimate.broad_limit, 36 * 60);
	assert_int_equal(d.estimate.broad_start, 1800 + 3600);
	assert_int_equal(d.estimate.broad_after, 0); /* after the reservation of ahead[0] */
	assert_int_equal(d.estimate.kept_start, 7200);
}

/*
 * Run-time history (issue 47's job 73 in bigahead): the a100 nodes are held
 * by jobs of user 1001 that started 60 s ago with 60-minute limits, and l1
 * is idle. The user's last two jobs ran 5 and 6 minutes. With limits as
 * the ends, a100 frees in 59 minutes and the 30-minute a100 job broadens
 * onto l1 (43 minutes there, scaled by 1/0.7); from the history, a100 frees
 * in about 4.5 minutes and the job is kept (finishing in about 35 minutes).
 * The feeder's part (the plugin's _running_ends, nodeox-sim's
 * sched_policy_state) is done here the same way: each running job's end
 * from nodeox_history_end, then sorted.
 */
static void test_map_history(void **state)
{
	nodeox_history_t *h = malloc(sizeof(*h));
	nodeox_conf_t *c = conf_load();
	const int64_t now = 10000, start = now - 60, limit_end = start + 3600;
	nodeox_running_t run[3];
	nodeox_end_from_t from;
	const nodeox_pending_t none[1] = { { 0 } };
	size_t i;

	(void)state;
	assert_non_null(h);
	nodeox_history_init(h);
	/* an earlier job of another user, and user 1001's two */
	assert_true(nodeox_history_record(h, 1002, 5, now - 900, 3000));
	assert_true(nodeox_history_record(h, 1001, 6, now - 600, 300));
	assert_true(nodeox_history_record(h, 1001, 7, now - 300, 360));
	for (i = 0; i < 3; i++) {
		/* a1, a2 (user 1001), l2 (user 1003, no history) */
		uint32_t uid = i < 2 ? 1001 : 1003;
		int64_t end = nodeox_history_end(c->run_time_history ? h : NULL, uid, start, limit_end, now, &from);

		run[i] = (nodeox_running_t){ i < 2 ? (uint32_t)i : 3, 4, end - now };
		assert_int_equal(from, i < 2 && c->run_time_history ? NODEOX_END_HISTORY : NODEOX_END_LIMIT);
	}
	nodeox_running_sort(run, 3, NULL);
	nodes_reset(4);
	decide(run, 3, none, 0, "gres:gpu:a100:4", 30);
	want(NODEOX_KEEP, "kept: a100 expected free in about 5 min, finishing there is sooner (in about 35 min; "
			  "broadened to a100|l40s: in about 43 min");
	assert_int_equal(d.estimate.kept_start, 270);
	assert_int_equal(d.estimate.broad_start, 0);
	nodeox_conf_free(c);
	free(h);
}

/* Past the map's bounds, or with only part of the jobs ahead, no estimate:
 * decided as when-blocked, saying so. */
/*
 * Ties with history (RunTimeHistory=yes): a 1-GPU l40s job (no eligible type
 * slower) with a 2-minute limit; an l40s GPU frees at 30 s. With a100
 * freeing at 10 s, broadened it would finish 20 s sooner, within backfill's
 * 60 s resolution: kept, a tie. With a100 free at once and l40s only at
 * 100 s, broadened is 100 s sooner: broadened. Under
 * NODEOX_TEST_NO_HISTORY=1 the near tie broadens (the rule without
 * history), and this test fails.
 */
static void test_map_tie_kept(void **state)
{
	nodeox_running_t near[] = { { 0, 1, 10 }, { 2, 1, 30 }, { 0, 3, 600 }, { 1, 4, 600 }, { 2, 3, 600 },
				    { 3, 4, 600 } };
	nodeox_running_t clear[] = { { 0, 1, 0 }, { 2, 1, 100 }, { 0, 3, 600 }, { 1, 4, 600 }, { 2, 3, 600 },
				     { 3, 4, 600 } };

	(void)state;
	nodes_reset(0);
	decide(near, 6, NULL, 0, "gres:gpu:l40s:1", 2);
	want(NODEOX_KEEP, "within backfill's 60 s resolution: a tie");
	assert_int_equal(d.estimate.kept_finish, 150);
	assert_int_equal(d.estimate.broad_finish, 130);
	assert_true(d.estimate.tie_kept);
	decide(clear, 6, NULL, 0, "gres:gpu:l40s:1", 2);
	assert_int_equal(d.action, NODEOX_REWRITE);
	assert_int_equal(d.estimate.kept_finish, 220);
	assert_int_equal(d.estimate.broad_finish, 120);
}

static void test_map_bounds(void **state)
{
	static nodeox_pending_t many[NODEOX_MAP_PENDING + 1];
	nodeox_running_t run[] = { { 0, 4, 7200 }, { 1, 4, 7200 }, { 3, 4, 7200 } };
	size_t i;

	(void)state;
	if (getenv("NODEOX_TEST_OLD_ESTIMATE"))
		skip();
	nodes_reset(4);
	for (i = 0; i < NODEOX_MAP_PENDING + 1; i++)
		many[i] = (nodeox_pending_t){ A100, 1, 60, (uint32_t)i + 1 };
	decide(run, 3, many, NODEOX_MAP_PENDING, "gres:gpu:a100:4", 20);
	assert_true(d.estimate.made);
	assert_int_equal(d.estimate.map_reserved, NODEOX_MAP_PENDING);
	decide(run, 3, many, NODEOX_MAP_PENDING + 1, "gres:gpu:a100:4", 20);
	want(NODEOX_REWRITE, NULL);
	assert_false(d.estimate.made);
	assert_true(d.estimate.map_cut);
	if (!strstr(d.reason, "more pending jobs ahead than the backfill map walks"))
		fail_msg("reason: %s", d.reason);
	/* when-blocked: a100 cannot serve it now, l40s can (l1 idle) */
	assert_string_equal(d.features, "a100|l40s");
}

/* The pending job's types: its gres type, else its constraint's type
 * features (a broadened job's OR), else any. */
static void test_pending_types(void **state)
{
	nodeox_conf_t *c;
	char err[NODEOX_ERR_MAX], big[NODEOX_STR_MAX + 16];
	uint32_t mask;

	(void)state;
	if (nodeox_conf_parse_string(conf_text, "test.conf", &c, err, sizeof(err)))
		fail_msg("conf: %s", err);
	assert_true(nodeox_pending_types(c, "a100", NULL, &mask));
	assert_int_equal(mask, A100);
	assert_true(nodeox_pending_types(c, "L40S", "a100", &mask));
	assert_int_equal(mask, L40S);
	assert_false(nodeox_pending_types(c, "h100", NULL, &mask));
	assert_true(nodeox_pending_types(c, "", "ib&(a100|l40s)", &mask));
	assert_int_equal(mask, A100 | L40S);
	assert_true(nodeox_pending_types(c, NULL, "l40s*2,ib", &mask));
	assert_int_equal(mask, L40S);
	assert_true(nodeox_pending_types(c, NULL, "a1000|xl40s", &mask));
	assert_int_equal(mask, 0);
	assert_true(nodeox_pending_types(c, NULL, NULL, &mask));
	assert_int_equal(mask, 0);
	/* a constraint longer than Slurm's is read only that far */
	memset(big, 'x', sizeof(big) - 6);
	memcpy(big + sizeof(big) - 6, "|a100", 6);
	assert_true(nodeox_pending_types(c, NULL, big, &mask));
	assert_int_equal(mask, 0);
	nodeox_conf_free(c);
}

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_map_blind_spot), cmocka_unit_test(test_map_broaden_wins),
		 cmocka_unit_test(test_map_hole_fits_scaled_limit), cmocka_unit_test(test_map_bounds), cmocka_unit_test(test_map_history),
		 cmocka_unit_test(test_map_tie_kept),
		 cmocka_unit_test(test_pending_types))
