/*
 * test_sched.c: scheduler decisions on small hand-checked scenarios: the
 * article's (4 a100 asked, 2 a100 and 4 l40s free: the untagged job waits,
 * the tagged one starts on l40s), backfill that must not delay the top job,
 * priority weights, rejections, the run-time model, and the policy calls:
 * every decision the simulator acts on equals nodeox_policy_decide's on the
 * same job and the full cluster state.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <glib.h>

#include "sim/model/cluster.h"
#include "sim/model/runtime_model.h"
#include "sim/model/sched.h"
#include "sim/model/trace.h"
#include "tests/sim/sim_test.h"

static char *tmpdir;

static char *data_path(const char *name)
{
	const char *top = getenv("top_srcdir");
	return g_build_filename(top ? top : ".", "tests", "sim", "data", name, NULL);
}

static sim_trace_t *trace_from(const char *text, const nodeox_conf_t *conf)
{
	char *p = g_build_filename(tmpdir, "trace.csv", NULL), err[512];
	assert_true(g_file_set_contents(p, text, -1, NULL));
	sim_trace_opts_t o = { .conf = conf };
	sim_trace_t *t = NULL;
	if (trace_read(p, &o, &t, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	remove(p);
	g_free(p);
	return t;
}

static sim_cluster_t *article_cluster(void)
{
	char *dir = data_path("article"), err[512];
	sim_cluster_t *c = NULL;
	if (cluster_read(dir, SIM_SLURM_2205, &c, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	g_free(dir);
	return c;
}

static nodeox_conf_t *article_conf(void)
{
	char *p = data_path("article/nodeox.conf"), err[512];
	nodeox_conf_t *conf = NULL;
	if (nodeox_conf_parse_file(p, &conf, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	g_free(p);
	return conf;
}

static sim_run_t *run_sched(const sim_cluster_t *c, const sim_trace_t *t, const nodeox_conf_t *policy,
			    const nodeox_conf_t *speeds, sim_sched_opts_t *extra)
{
	sim_runtime_t m;
	char err[256];
	assert_int_equal(runtime_model_init(&m, c, speeds, NULL, 0.05, err, sizeof(err)), 0);
	sim_sched_opts_t o = {
		.params = c->params, .policy = policy, .runtime = &m, .record_nodes = true, .label = "test"
	};
	if (extra) {
		o.params = extra->params;
		o.on_decide = extra->on_decide;
		o.decide_arg = extra->decide_arg;
	}
	sim_run_t *r = NULL;
	assert_int_equal(sched_run(c, t, &o, &r, err, sizeof(err)), 0);
	runtime_model_free(&m);
	return r;
}

/* A cluster from slurm.conf text. */
static sim_cluster_t *cluster_from(const char *conf)
{
	sim_cluster_t *c = cluster_from_text(conf, "s.conf");
	return c;
}

/* A cluster from slurm.conf text in three pieces. */
static sim_cluster_t *cluster_cat(const char *a, const char *b, const char *c3)
{
	char *text = g_strconcat(a, b, c3, NULL);
	sim_cluster_t *c = cluster_from(text);
	g_free(text);
	return c;
}

/* Index of the job with this id. */
static size_t job_at(const sim_trace_t *t, uint32_t id)
{
	for (size_t j = 0; j < t->njobs; j++)
		if (t->jobs[j].id == id)
			return j;
	fail_msg("no job %u", id);
	return 0;
}

/* Job `job`'s start in a run of t on c (options o, or c's when NULL); frees
 * c and t: the end of the tests that ask when one job starts. */
static int64_t start_of(sim_cluster_t *c, sim_trace_t *t, sim_sched_opts_t *o, uint32_t job)
{
	sim_run_t *r = run_sched(c, t, NULL, NULL, o);
	int64_t start = r->jobs[job_at(t, job)].start;
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
	return start;
}

/* a1: 2 of 4 a100 busy, a2 full, l1 full, l2 free: 2 a100 + 4 l40s free. */
#define ARTICLE_BUSY                                                      \
	"job_id,submit,gpus,nodes,gpu_type,run_time,time_limit,comment\n" \
	"1,0,2,1,a100,3600,01:00:00,\n"                                   \
	"2,0,4,1,a100,3600,01:00:00,\n"                                   \
	"3,0,4,1,l40s,3600,01:00:00,\n"

static void test_article(void **state)
{
	(void)state;
	sim_cluster_t *c = article_cluster();
	nodeox_conf_t *conf = article_conf();
	sim_trace_t *t = trace_from(ARTICLE_BUSY "4,10,4,1,a100,600,00:20:00,\n"
						 "5,10,4,1,a100,600,00:20:00,\"nodeox:flex\"\n",
				    conf);
	sim_run_t *base = run_sched(c, t, NULL, conf, NULL);
	sim_run_t *nox = run_sched(c, t, conf, conf, NULL);
	size_t j4 = job_at(t, 4), j5 = job_at(t, 5);
	/* the untagged job waits for a whole a100 node in both runs */
	assert_int_equal(base->jobs[j4].start, 3600);
	assert_int_equal(nox->jobs[j4].start, 3600);
	assert_false(nox->jobs[j4].broadened);
	/* the tagged one waits too without the plugin ... */
	assert_int_equal(base->jobs[j5].start, 3600);
	assert_string_equal(base->jobs[j5].types, "a100:4");
	/* ... and with it starts on the free l40s at the next backfill pass (the
	 * main pass stops at job 4, as Slurm's does), twice as long (speed 0.5) */
	assert_true(nox->jobs[j5].broadened);
	assert_int_equal(nox->jobs[j5].start, 30);
	assert_string_equal(nox->jobs[j5].types, "l40s:4");
	assert_string_equal(nox->jobs[j5].nodes, "l2");
	assert_int_equal(nox->jobs[j5].end - nox->jobs[j5].start, 1200);
	assert_int_equal(nox->jobs[j5].status, SIM_JOB_DONE); /* limit scaled 20 -> 40 min */
	sched_run_free(base);
	sched_run_free(nox);
	trace_free(t);
	/* alone in the queue, the tagged job starts the moment it is submitted */
	t = trace_from(ARTICLE_BUSY "5,10,4,1,a100,600,00:20:00,\"nodeox:flex\"\n", conf);
	nox = run_sched(c, t, conf, conf, NULL);
	assert_int_equal(nox->jobs[job_at(t, 5)].start, 10);
	sched_run_free(nox);
	trace_free(t);
	nodeox_conf_free(conf);
	cluster_free(c);
}

/* --prefer as slurmctld schedules it (sim/model/sched_prefer.c): with
 * PreferRequested=yes the tagged job carries --prefer=a100 beside its
 * a100|l40s constraint, and each pass tries it as if a100 were its
 * constraint first. Alone in the queue with 2 a100 free, the main pass's
 * prefer record does not fit, which fails the partition (the job's second
 * record is not tried there), so it starts on l40s only at the next backfill
 * pass (30 s), where the model that merely ordered the nodes started it at
 * once (10 s). With 4 a100 free, the prefer record starts it on them at once. */
static void test_prefer(void **state)
{
	(void)state;
	sim_cluster_t *c = article_cluster();
	char *src = data_path("article/nodeox.conf"), *text = NULL, err[512];
	assert_true(g_file_get_contents(src, &text, NULL, NULL));
	char *p = g_build_filename(tmpdir, "prefer.conf", NULL);
	char *all = g_strconcat(text, "PreferRequested=yes\n", NULL);
	assert_true(g_file_set_contents(p, all, -1, NULL));
	nodeox_conf_t *conf = NULL;
	if (nodeox_conf_parse_file(p, &conf, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	sim_trace_t *t = trace_from(ARTICLE_BUSY "5,10,4,1,a100,600,00:20:00,\"nodeox:flex\"\n", conf);
	sim_run_t *nox = run_sched(c, t, conf, conf, NULL);
	size_t j5 = job_at(t, 5);
	assert_true(nox->jobs[j5].broadened);
	assert_int_equal(nox->jobs[j5].start, 30);
	assert_string_equal(nox->jobs[j5].types, "l40s:4");
	assert_string_equal(nox->jobs[j5].nodes, "l2");
	sched_run_free(nox);
	/* 25.11.1 and 26.05: the failed prefer record leaves the partition
	 * open and the second record starts the job on l2 in the same main
	 * pass, at its submission; 25.11.0 still waits for backfill */
	static const struct {
		sim_slurm_version_t v;
		int micro;
		int64_t start;
	} rel[] = { { SIM_SLURM_2511, 0, 30 }, { SIM_SLURM_2511, 1, 10 }, { SIM_SLURM_2605, -1, 10 } };
	for (size_t i = 0; i < G_N_ELEMENTS(rel); i++) {
		cluster_version_set(c, rel[i].v, rel[i].micro);
		nox = run_sched(c, t, conf, conf, NULL);
		assert_int_equal(nox->jobs[j5].start, rel[i].start);
		assert_string_equal(nox->jobs[j5].nodes, "l2");
		sched_run_free(nox);
	}
	cluster_version_set(c, SIM_SLURM_2205, -1);
	trace_free(t);
	/* a1 wholly free: the prefer record fits in the main pass */
	t = trace_from("job_id,submit,gpus,nodes,gpu_type,run_time,time_limit,comment\n"
		       "2,0,4,1,a100,3600,01:00:00,\n"
		       "5,10,4,1,a100,600,00:20:00,\"nodeox:flex\"\n",
		       conf);
	nox = run_sched(c, t, conf, conf, NULL);
	j5 = job_at(t, 5);
	assert_int_equal(nox->jobs[j5].start, 10);
	assert_string_equal(nox->jobs[j5].types, "a100:4");
	assert_string_equal(nox->jobs[j5].nodes, "a2");
	sched_run_free(nox);
	trace_free(t);
	nodeox_conf_free(conf);
	remove(p);
	g_free(p);
	g_free(all);
	g_free(text);
	g_free(src);
	cluster_free(c);
}

/* Job `job`'s start and nodes in a baseline run of t on c as Slurm release
 * v.micro models it. */
static int64_t start_as(sim_cluster_t *c, const sim_trace_t *t, sim_slurm_version_t v, int micro,
			uint32_t job, char *nodes, size_t len)
{
	cluster_version_set(c, v, micro);
	sim_run_t *r = run_sched(c, t, NULL, NULL, NULL);
	const sim_result_t *jr = &r->jobs[job_at(t, job)];
	int64_t start = jr->start;
	if (nodes)
		snprintf(nodes, len, "%s", jr->nodes ? jr->nodes : "");
	sched_run_free(r);
	return start;
}

/* 25.05.1's will-run start (select/cons_tres _get_last_relevant_job): n1 is
 * free, n2 and n3 busy until 1020 and 1080 (one 30 s batch of the will-run
 * test). Job 4 (two nodes) takes n1 and n2: before, its reservation starts
 * with the batch's last end, 1080, and job 5 (17 minutes) fits on n1
 * before it; from 25.05.1 it starts at 1020, n3's job no longer delays it,
 * and job 5 must wait. 25.05.0 had the change reverted. */
static void test_slurm_wr_relevant(void **state)
{
	(void)state;
	sim_cluster_t *c = cluster_from("SchedulerParameters=bf_interval=30,bf_resolution=60\n"
					"NodeName=n[1-3] CPUs=16 RealMemory=64000 Gres=gpu:a100:4\n"
					"PartitionName=p Nodes=ALL Default=YES\n");
	sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,run_time,time_limit\n"
				    "1,0,4,1,10,00:01:00\n"
				    "2,0,4,1,1020,00:17:00\n"
				    "3,0,4,1,1080,00:18:00\n"
				    "4,20,8,2,600,00:10:00\n"
				    "5,21,4,1,1000,00:17:00\n",
				    NULL);
	assert_int_equal(start_as(c, t, SIM_SLURM_2411, -1, 5, NULL, 0), 30);
	assert_int_equal(start_as(c, t, SIM_SLURM_2505, 0, 5, NULL, 0), 30);
	assert_int_equal(start_as(c, t, SIM_SLURM_2505, 1, 5, NULL, 0), 1080);
	assert_int_equal(start_as(c, t, SIM_SLURM_2511, -1, 5, NULL, 0), 1080);
	assert_int_equal(start_as(c, t, SIM_SLURM_2505, 1, 4, NULL, 0), 1020);
	assert_int_equal(start_as(c, t, SIM_SLURM_2505, 0, 4, NULL, 0), 1030);
	trace_free(t);
	cluster_free(c);
}

/* The will-run window stops doubling past a year (25.05.6, 25.11.1, 26.05):
 * job 5 needs three nodes; n1 and n2 free by 60 s, n3 and n4 busy for 900
 * and 800 days. The window doubled without end reaches both and the job is
 * placed on n1-n3, from 900 days; capped at 30 s x 2^21 it takes n4's
 * release alone (n1, n2, n4, from 800 days), before which job 6 (850 days
 * on n1) may no longer run. Needs a bf_window beyond two years, which the
 * model reads (Slurm allows 30 days, within which the cap changes nothing). */
static void test_slurm_wr_year_cap(void **state)
{
	(void)state;
	sim_cluster_t *c =
		cluster_from("SchedulerParameters=bf_interval=30,bf_resolution=60,bf_window=1400000\n"
			     "NodeName=n[1-4] CPUs=16 RealMemory=64000 Gres=gpu:a100:4\n"
			     "PartitionName=p Nodes=ALL Default=YES\n");
	sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,run_time,time_limit\n"
				    "1,0,4,1,10,00:01:00\n"
				    "2,0,4,1,60,00:01:00\n"
				    "3,0,4,1,77760000,900-00:00:00\n"
				    "4,0,4,1,69120000,800-00:00:00\n"
				    "5,20,12,3,600,00:10:00\n"
				    "6,21,4,1,1000,850-00:00:00\n",
				    NULL);
	assert_int_equal(start_as(c, t, SIM_SLURM_2505, 5, 6, NULL, 0), 30);
	assert_int_equal(start_as(c, t, SIM_SLURM_2505, 6, 6, NULL, 0), 69120600);
	assert_int_equal(start_as(c, t, SIM_SLURM_2511, 0, 6, NULL, 0), 30);
	assert_int_equal(start_as(c, t, SIM_SLURM_2511, 1, 6, NULL, 0), 69120600);
	assert_int_equal(start_as(c, t, SIM_SLURM_2605, 0, 6, NULL, 0), 69120600);
	trace_free(t);
	cluster_free(c);
}

/* 26.05 places a one-node job first fit by node weight (_get_one_res): with
 * n1 free and n2 half used, job 3 takes n1, where 25.11's _eval_nodes takes
 * the fullest node, n2. */
static void test_slurm_one_node_first_fit(void **state)
{
	(void)state;
	sim_cluster_t *c = cluster_from("NodeName=n[1-3] CPUs=16 RealMemory=64000 Gres=gpu:a100:4\n"
					"PartitionName=p Nodes=ALL Default=YES\n");
	sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,cpus,run_time,time_limit\n"
				    "1,0,4,1,4,10,00:01:00\n"
				    "2,0,2,1,8,1000,00:20:00\n"
				    "3,20,2,1,2,100,00:05:00\n",
				    NULL);
	char nodes[64];
	assert_int_equal(start_as(c, t, SIM_SLURM_2511, -1, 3, nodes, sizeof(nodes)), 20);
	assert_string_equal(nodes, "n2");
	assert_int_equal(start_as(c, t, SIM_SLURM_2605, -1, 3, nodes, sizeof(nodes)), 20);
	assert_string_equal(nodes, "n1");
	cluster_free(c);
	/* by Weight first: n1 and n2 weigh more, so n3 is the first */
	c = cluster_from("NodeName=n1 CPUs=16 RealMemory=64000 Gres=gpu:a100:4 Weight=10\n"
			 "NodeName=n2 CPUs=16 RealMemory=64000 Gres=gpu:a100:4 Weight=5\n"
			 "NodeName=n3 CPUs=16 RealMemory=64000 Gres=gpu:a100:4\n"
			 "PartitionName=p Nodes=ALL Default=YES\n");
	assert_int_equal(start_as(c, t, SIM_SLURM_2605, -1, 3, nodes, sizeof(nodes)), 20);
	assert_string_equal(nodes, "n3");
	trace_free(t);
	cluster_free(c);
}

/* A reservation's end rounded up to bf_resolution (_set_slot_time;
 * SchedMD's 24.11.0, modelled from 25.05): on this trace (found by a
 * search over random ones) job 9 gets a place on n3 at 90 s with it and
 * waits until 210 s without. */
static void test_slurm_bf_end_roundup(void **state)
{
	(void)state;
	sim_cluster_t *c = cluster_from("SchedulerParameters=bf_interval=30,bf_resolution=60\n"
					"NodeName=n[1-3] CPUs=16 RealMemory=64000 Gres=gpu:a100:4\n"
					"PartitionName=p Nodes=ALL Default=YES\n");
	sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,run_time,time_limit\n"
				    "1,0,12,3,549,10\n2,0,4,1,84,3\n3,45,4,1,165,5\n4,50,8,2,70,5\n"
				    "5,51,2,1,76,3\n6,52,12,3,30,2\n7,72,1,1,51,1\n8,72,4,1,17,3\n"
				    "9,72,1,1,401,15\n10,77,12,3,58,5\n11,122,4,1,336,7\n12,167,1,1,106,15\n"
				    "13,212,8,2,354,7\n14,212,2,1,121,7\n15,217,4,1,36,3\n",
				    NULL);
	char nodes[64];
	assert_int_equal(start_as(c, t, SIM_SLURM_2505, -1, 9, nodes, sizeof(nodes)), 90);
	assert_string_equal(nodes, "n3");
	assert_int_equal(start_as(c, t, SIM_SLURM_2411, -1, 9, NULL, 0), 210);
	/* 25.05 with only this change taken away */
	cluster_version_set(c, SIM_SLURM_2505, -1);
	c->slurm_changes &= ~(1u << SIM_CHG_BF_END_ROUNDUP);
	sim_run_t *r = run_sched(c, t, NULL, NULL, NULL);
	assert_int_equal(r->jobs[job_at(t, 9)].start, 210);
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

static sim_cluster_t *one_type_cluster(void)
{
	const char *conf = "SchedulerParameters=bf_interval=30,bf_resolution=60\n"
			   "NodeName=n[1-2] CPUs=16 RealMemory=64000 Features=a100 Gres=gpu:a100:4\n"
			   "PartitionName=p Nodes=ALL Default=YES\n";
	sim_cluster_t *c = cluster_from_text(conf, "bf/slurm.conf");
	return c;
}

/*
 * n1 is full until 3000, n2 has 2 GPUs busy until 1000 and 2 free. The top
 * job C (4 GPUs on one node) can start on n2 at 1000. D (2 GPUs, 5000 s)
 * would take n2's free GPUs past 1000 and delay C: it must wait. E (2 GPUs,
 * 500 s) is done before 1000: it backfills at the first pass.
 */
static void test_backfill(void **state)
{
	(void)state;
	sim_cluster_t *c = one_type_cluster();
	sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,run_time,time_limit\n"
				    "1,0,4,1,3000,3000\n"
				    "2,0,2,1,1000,1000\n"
				    "3,10,4,1,2000,2000\n"
				    "4,10,2,1,5000,5000\n"
				    "5,10,2,1,400,500\n",
				    NULL);
	sim_run_t *r = run_sched(c, t, NULL, NULL, NULL);
	const sim_result_t *C = &r->jobs[job_at(t, 3)], *D = &r->jobs[job_at(t, 4)],
			   *E = &r->jobs[job_at(t, 5)];
	assert_int_equal(E->start, 30);
	assert_string_equal(E->nodes, "n2");
	assert_true(E->end <= 1000);
	assert_int_equal(C->start, 1000); /* not delayed by the backfilled job */
	assert_string_equal(C->nodes, "n2");
	assert_true(D->start >= C->start); /* D would have delayed C */
	assert_int_equal(D->start, 3000);
	assert_true(r->reservations > 0);
	sched_run_free(r);
	trace_free(t);
	/* Without C in the queue D has nothing to delay and backfills at once. */
	t = trace_from("job_id,submit,gpus,nodes,run_time,time_limit\n"
		       "1,0,4,1,3000,3000\n"
		       "2,0,2,1,1000,1000\n"
		       "4,10,2,1,5000,5000\n",
		       NULL);
	r = run_sched(c, t, NULL, NULL, NULL);
	assert_int_equal(r->jobs[job_at(t, 4)].start, 10);
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

/* A job ends at its time limit when its run time is longer (at slurmctld's
 * next 30-second check). */
static void test_time_limit(void **state)
{
	(void)state;
	sim_cluster_t *c = one_type_cluster();
	sim_trace_t *t = trace_from("submit,gpus,run_time,time_limit\n0,1,7200,01:00:00\n", NULL);
	sim_run_t *r = run_sched(c, t, NULL, NULL, NULL);
	assert_int_equal(r->jobs[0].end, 3600);
	assert_int_equal(r->jobs[0].status, SIM_JOB_TIMEOUT);
	sched_run_free(r);
	trace_free(t);
	/* slurmctld checks limits every 30 s: a job started at 7 with 1 minute
	 * is killed at 90, not 67; one that ends at 80 on its own is not killed */
	t = trace_from("submit,gpus,run_time,time_limit\n7,1,100,60\n7,1,73,60\n", NULL);
	r = run_sched(c, t, NULL, NULL, NULL);
	assert_int_equal(r->jobs[0].end, 90);
	assert_int_equal(r->jobs[0].status, SIM_JOB_TIMEOUT);
	assert_int_equal(r->jobs[1].end, 80);
	assert_int_equal(r->jobs[1].status, SIM_JOB_DONE);
	sched_run_free(r);
	/* the checks count from slurmctld's start: 19 s before trace second 0
	 * (checks at 11, 41, 71 ...), both are killed at 71, as a replay
	 * started 19 s after slurmctld saw (multifactor, job 2) */
	for (int64_t origin = -19; origin <= 41; origin += 60) {
		sim_sched_opts_t o = { .params = c->params };
		o.params.limit_origin_s = origin;
		r = run_sched(c, t, NULL, NULL, &o);
		assert_int_equal(r->jobs[0].end, 71);
		assert_int_equal(r->jobs[0].status, SIM_JOB_TIMEOUT);
		assert_int_equal(r->jobs[1].end, 71);
		sched_run_free(r);
	}
	trace_free(t);
	cluster_free(c);
}

/* A job without a time limit is planned with its run time on the slowest
 * type it may use, not the slowest of the whole cluster: a 1-GPU a100 job
 * (run 100) holds a1; a 2-GPU a100 job waits for it (reserved at 100), and a
 * 1-GPU a100 job with a 2-minute limit must not backfill at the pass at 30 s
 * (it would with a plan of 100 / 0.5 = 200 s from the l40s nodes the first
 * job cannot use). Limits are whole minutes, as Slurm keeps them. */
static void test_plan_without_limit(void **state)
{
	(void)state;
	sim_cluster_t *c =
		cluster_from("NodeName=a1 CPUs=32 RealMemory=256000 Features=a100 Gres=gpu:a100:2\n"
			     "NodeName=l1 CPUs=32 RealMemory=256000 Features=l40s Gres=gpu:l40s:2\n"
			     "PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED\n");
	nodeox_conf_t *conf = article_conf();
	sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,gpu_type,run_time,time_limit\n"
				    "1,0,1,1,a100,100,\n"
				    "2,1,2,1,a100,100,\n"
				    "3,2,1,1,a100,100,120\n",
				    NULL);
	sim_run_t *r = run_sched(c, t, NULL, conf, NULL);
	assert_int_equal(r->jobs[job_at(t, 2)].start, 100);
	assert_true(r->jobs[job_at(t, 3)].start >= 200);
	sched_run_free(r);
	trace_free(t);
	/* a limit of 61 s is 2 minutes to Slurm: the job is not killed at 61 s */
	t = trace_from("job_id,submit,gpus,nodes,gpu_type,run_time,time_limit\n"
		       "1,0,1,1,a100,100,61\n",
		       NULL);
	r = run_sched(c, t, NULL, conf, NULL);
	assert_int_equal(r->jobs[0].end, 100);
	assert_int_equal(r->jobs[0].status, SIM_JOB_DONE);
	sched_run_free(r);
	trace_free(t);
	nodeox_conf_free(conf);
	cluster_free(c);
}

/* A job that does not fit in the main pass takes its partition's nodes away
 * from every later job, whatever partition that one asked for (Slurm's
 * _schedule): job 4 in "short" (n2 only, free from 50) must not start at
 * its submission at 55 while job 3 ("gpu", both nodes) waits; backfill then
 * keeps it behind job 3's reservation. */
static void test_main_pass_partition_nodes(void **state)
{
	(void)state;
	sim_cluster_t *c = cluster_from("NodeName=n[1-2] CPUs=32 RealMemory=256000 Gres=gpu:4\n"
					"PartitionName=gpu Nodes=ALL Default=YES MaxTime=UNLIMITED\n"
					"PartitionName=short Nodes=n2 MaxTime=UNLIMITED\n");
	sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,partition,run_time,time_limit\n"
				    "1,0,4,1,gpu,100,120\n"
				    "2,0,4,1,gpu,50,120\n"
				    "3,10,8,2,gpu,100,120\n"
				    "4,55,1,1,short,30,60\n",
				    NULL);
	sim_run_t *r = run_sched(c, t, NULL, NULL, NULL);
	assert_int_equal(r->jobs[job_at(t, 3)].start, 100);
	assert_true(r->jobs[job_at(t, 4)].start >= 200);
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

/* PriorityTier orders the queue before priority: job 3 (partition "hi",
 * tier 2) starts before the older job 2 when node n1 frees at 100. */
static void test_priority_tier(void **state)
{
	(void)state;
	sim_cluster_t *c = cluster_from("NodeName=n1 CPUs=32 RealMemory=256000 Gres=gpu:4\n"
					"PartitionName=lo Nodes=ALL Default=YES MaxTime=UNLIMITED\n"
					"PartitionName=hi Nodes=ALL PriorityTier=2 MaxTime=UNLIMITED\n");
	sim_trace_t *t = trace_from("job_id,submit,gpus,partition,run_time,time_limit\n"
				    "1,0,4,lo,100,100\n2,1,4,lo,100,100\n3,2,4,hi,100,100\n",
				    NULL);
	sim_run_t *r = run_sched(c, t, NULL, NULL, NULL);
	assert_int_equal(r->jobs[job_at(t, 3)].start, 100);
	assert_int_equal(r->jobs[job_at(t, 2)].start, 200);
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

/* A job submitted in the second another ends is placed before that one's
 * GPUs come back (slurmctld sees the end a fraction of a second later): an
 * a100|l40s job submitted at 10 takes the idle l1, not a1 freed at 10. */
static void test_submit_before_end(void **state)
{
	(void)state;
	sim_cluster_t *c = cluster_from("NodeName=a1 CPUs=8 RealMemory=16000 Features=a100 Gres=gpu:a100:1\n"
					"NodeName=l1 CPUs=8 RealMemory=16000 Features=l40s Gres=gpu:l40s:1\n"
					"PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED\n");
	sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,gpu_type,constraint,run_time,time_limit\n"
				    "1,0,1,1,a100,,10,60\n2,10,1,1,,a100|l40s,10,60\n",
				    NULL);
	sim_run_t *r = run_sched(c, t, NULL, NULL, NULL);
	assert_int_equal(r->jobs[1].start, 10);
	assert_string_equal(r->jobs[1].nodes, "l1");
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

/* A limit above every requested partition's MaxTime: Slurm accepts the job
 * and leaves it pending for ever (PartitionTimeLimit). */
static void test_partition_time_limit(void **state)
{
	(void)state;
	sim_cluster_t *c = cluster_from("NodeName=n1 CPUs=32 RealMemory=256000 Gres=gpu:4\n"
					"PartitionName=p Nodes=ALL Default=YES MaxTime=2\n");
	sim_trace_t *t = trace_from("job_id,submit,gpus,run_time,time_limit\n"
				    "1,0,1,60,00:02:00\n2,0,1,60,00:02:01\n3,0,1,60,\n",
				    NULL);
	sim_run_t *r = run_sched(c, t, NULL, NULL, NULL);
	assert_int_equal(r->jobs[0].status, SIM_JOB_DONE);
	assert_int_equal(r->jobs[1].status, SIM_JOB_NEVER);
	assert_non_null(strstr(r->jobs[1].reason, "PartitionTimeLimit"));
	assert_int_equal(r->jobs[2].status, SIM_JOB_DONE); /* MaxTime as its limit */
	assert_int_equal(r->never, 1);
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

/* Both nodes busy until 100; X (1 GPU) submitted before Y (8 GPUs, both nodes:
 * -N 2). Y asked as --gpus=8 (no nodes, no cpus) is one task of one CPU on
 * at least one node, which is all slurmctld's job-size factor counts while
 * it pends (sbatch's min_cpus; priority_multifactor.c): the same size as X,
 * so X stays first. */
/* The job-size factor's CPUs of a --cpus-per-gpu job, by release: job 3
 * (8 GPUs, 2 CPUs per GPU) and job 2 (8 GPUs) wait for job 1; 22.05 counts
 * one CPU for both (equal priority: job 2, submitted first, goes first),
 * 24.11 counts 16 for job 3 (the larger job goes first). */
static void test_priority_cpus_per_gpu(void **state)
{
	(void)state;
	sim_cluster_t *c = one_type_cluster();
	sim_trace_t *t = trace_from("job_id,submit,gpus,cpus_per_gpu,run_time,time_limit\n"
				    "1,0,8,,100,100\n"
				    "2,1,8,,500,500\n"
				    "3,2,8,2,100,100\n",
				    NULL);
	sim_sched_opts_t o = { .params = c->params };
	o.params.weight_job_size = 1000;
	/* min_cpus raised by --cpus-per-gpu from 24.05 (gres_job_state_validate) */
	static const sim_slurm_version_t without[] = { SIM_SLURM_2205, SIM_SLURM_2311 };
	static const sim_slurm_version_t with[] = { SIM_SLURM_2405, SIM_SLURM_2411, SIM_SLURM_2605 };
	sim_run_t *r;
	for (size_t i = 0; i < G_N_ELEMENTS(without); i++) {
		cluster_version_set(c, without[i], -1);
		r = run_sched(c, t, NULL, NULL, &o);
		assert_int_equal(r->jobs[job_at(t, 2)].start, 100);
		assert_int_equal(r->jobs[job_at(t, 3)].start, 600);
		sched_run_free(r);
	}
	for (size_t i = 0; i < G_N_ELEMENTS(with); i++) {
		cluster_version_set(c, with[i], -1);
		r = run_sched(c, t, NULL, NULL, &o);
		assert_int_equal(r->jobs[job_at(t, 3)].start, 100);
		assert_int_equal(r->jobs[job_at(t, 2)].start, 200);
		sched_run_free(r);
	}
	trace_free(t);
	cluster_free(c);
}

static void test_priority(void **state)
{
	(void)state;
	sim_cluster_t *c = one_type_cluster();
	sim_trace_t *t = trace_from("job_id,submit,gpus,run_time,time_limit\n"
				    "1,0,8,100,100\n"
				    "2,1,1,500,500\n"
				    "3,2,8,100,100\n",
				    NULL);
	sim_sched_opts_t o = { .params = c->params };
	o.params.weight_job_size = 1000;
	sim_run_t *same = run_sched(c, t, NULL, NULL, &o);
	assert_int_equal(same->jobs[job_at(t, 2)].start, 100);
	assert_int_equal(same->jobs[job_at(t, 3)].start, 600);
	sched_run_free(same);
	trace_free(t);
	t = trace_from("job_id,submit,gpus,nodes,run_time,time_limit\n"
		       "1,0,8,2,100,100\n"
		       "2,1,1,,500,500\n"
		       "3,2,8,2,100,100\n",
		       NULL);
	o.params.weight_job_size = 0;
	sim_run_t *fifo = run_sched(c, t, NULL, NULL, &o); /* weights 0: FIFO */
	assert_int_equal(fifo->jobs[job_at(t, 2)].start, 100);
	assert_int_equal(fifo->jobs[job_at(t, 3)].start, 600);
	o.params.weight_job_size = 1000; /* size wins */
	sim_run_t *size = run_sched(c, t, NULL, NULL, &o);
	assert_int_equal(size->jobs[job_at(t, 3)].start, 100);
	assert_int_equal(size->jobs[job_at(t, 2)].start, 200);
	o.params.weight_age = 10000000; /* 1 s of age: 10000 */
	o.params.max_age_s = 1000;
	o.params.calc_period_s = 300; /* no recalculation before 100: no age yet */
	sim_run_t *age = run_sched(c, t, NULL, NULL, &o);
	assert_int_equal(age->jobs[job_at(t, 3)].start, 100);
	sched_run_free(age);
	o.params.calc_period_s = 60; /* recalculated at 60: older X wins */
	age = run_sched(c, t, NULL, NULL, &o);
	assert_int_equal(age->jobs[job_at(t, 2)].start, 100);
	sched_run_free(age);
	o.params.max_age_s = 30; /* both capped at the recalculation: size */
	age = run_sched(c, t, NULL, NULL, &o);
	assert_int_equal(age->jobs[job_at(t, 3)].start, 100);
	sched_run_free(fifo);
	sched_run_free(size);
	sched_run_free(age);
	trace_free(t);
	cluster_free(c);
}

/* Fair-share (sched_fair.c), decay passes every 60 s from 0: job 1 (account
 * p) runs 1-50, between two passes; job 2 (q) from about 50 for 60 s,
 * through the pass at 60 and ended by the one at 120. Jobs 3 (q, at 55) and 4 (p, at 56) wait for the
 * whole cluster until job 2 ends, ordered by the pass at 60. Without a fair-share weight: FIFO, 3
 * first. Without AccountingStorageEnforce=limits a job's end adds nothing
 * (22.05 calls priority_p_job_end only then): p has no usage, ranks first,
 * and 4 goes first. With it, p's 49 s outweigh q's 10 and 3 goes first. */
static void test_fair_share(void **state)
{
	(void)state;
	sim_cluster_t *c = one_type_cluster();
	char err[256];
	assert_int_equal(fs_accounts_parse("Account=p\nAccount=q\n", "accounts.conf", &c->accounts, err,
					   sizeof(err)),
			 0);
	sim_trace_t *t = trace_from("job_id,user,account,submit,gpus,run_time,time_limit\n"
				    "1,up,p,1,8,49,100\n"
				    "2,uq,q,2,8,60,200\n"
				    "3,uq,q,55,8,100,200\n"
				    "4,up,p,56,8,100,200\n",
				    NULL);
	sim_sched_opts_t o = { .params = c->params };
	o.params.calc_period_s = 60;
	o.params.decay_hl_s = 3600;
	sim_run_t *r = run_sched(c, t, NULL, NULL, &o);
	assert_true(r->jobs[job_at(t, 2)].start >= 50 && r->jobs[job_at(t, 2)].start < 60);
	assert_true(r->jobs[job_at(t, 3)].start < r->jobs[job_at(t, 4)].start);
	sched_run_free(r);
	o.params.weight_fs = 1000;
	r = run_sched(c, t, NULL, NULL, &o);
	assert_true(r->jobs[job_at(t, 4)].start < r->jobs[job_at(t, 3)].start);
	sched_run_free(r);
	o.params.enforce_limits = true;
	r = run_sched(c, t, NULL, NULL, &o);
	assert_true(r->jobs[job_at(t, 3)].start < r->jobs[job_at(t, 4)].start);
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

/* The decay thread recalculates every PriorityCalcPeriod (300 s here) from
 * slurmctld's start (limit_origin_s), not from trace second 0. X (1 GPU,
 * submitted at 1) and the larger Y (8 GPUs, at 2) wait for job 1 until
 * 100: Y wins on size unless a recalculation between Y's submission and
 * 100 has given both an age (then the older X wins and Y waits for it,
 * until 600). */
static void test_priority_recalc_origin(void **state)
{
	(void)state;
	static const struct {
		int64_t origin, y_start;
	} want[] = {
		{ 0, 100 },     /* at 0 and 300 */
		{ -250, 600 },  /* at 50 */
		{ -150, 100 },  /* at 150 */
		{ 50, 600 },    /* at 50 */
		{ 100, 600 },   /* at 100, before the pass that job 1's end starts */
		{ 101, 100 },   /* at 101 */
		{ -1150, 600 }, /* at 50, four periods on */
		{ 350, 600 },   /* at 50, a period before */
	};
	sim_cluster_t *c = one_type_cluster();
	sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,run_time,time_limit\n"
				    "1,0,8,2,100,100\n"
				    "2,1,1,,500,500\n"
				    "3,2,8,2,100,100\n",
				    NULL);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		sim_sched_opts_t o = { .params = c->params };
		o.params.weight_job_size = 1000;
		o.params.weight_age = 10000000; /* 1 s of age: 10000 */
		o.params.max_age_s = 1000;
		o.params.calc_period_s = 300;
		o.params.limit_origin_s = want[i].origin;
		sim_run_t *r = run_sched(c, t, NULL, NULL, &o);
		if (r->jobs[job_at(t, 3)].start != want[i].y_start)
			fail_msg("slurmctld started at %" G_GINT64_FORMAT ": Y started at %" G_GINT64_FORMAT
				 ", not %" G_GINT64_FORMAT,
				 want[i].origin, r->jobs[job_at(t, 3)].start, want[i].y_start);
		sched_run_free(r);
	}
	trace_free(t);
	cluster_free(c);
}

/* When the second of two 1-node jobs (one GPU, or two where column col is
 * given, 100 s each, both submitted at 0) starts, on n1 (4 GPUs, 4 CPUs,
 * 4000 MB) with slurm.conf lines pre and defs and partition options popt;
 * the first job has col=val. */
static int64_t second_start(const char *pre, const char *defs, const char *col, const char *val,
			    const char *popt)
{
	char *conf = g_strdup_printf("%s%sNodeName=n1 CPUs=4 RealMemory=4000 Gres=gpu:4\n"
				     "PartitionName=p Nodes=ALL Default=YES%s\n",
				     pre, defs, popt);
	char *text = g_strdup_printf("job_id,submit,gpus,nodes,%s,run_time,time_limit\n"
				     "1,0,%d,1,%s,100,100\n2,0,1,1,%s,100,100\n",
				     col, !strcmp(col, "cpus_per_gpu") ? 2 : 1, val,
				     !strcmp(col, "cpus") ? val : "");
	sim_cluster_t *c = cluster_from(conf);
	sim_trace_t *t = trace_from(text, NULL);
	g_free(conf);
	g_free(text);
	return start_of(c, t, NULL, 2);
}

/* What a trace leaves out is what sbatch would have asked (doc/traces.md,
 * "Defaults"; sim/model/sched_request.c): one node n1 of 4 GPUs, 4 CPUs and 4000 MB. */
static void test_defaults(void **state)
{
	(void)state;
	const char *node = "NodeName=n1 CPUs=4 RealMemory=4000 Gres=gpu:4\n";
	/* one CPU per task (-N 1: one task), not one per GPU: on 3 CPUs, two
	 * 2-GPU jobs run at once... */
	sim_cluster_t *c = cluster_cat("", "NodeName=n1 CPUs=3 RealMemory=4000 Gres=gpu:4\n",
				       "PartitionName=p Nodes=ALL Default=YES\n");
	sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,run_time,time_limit\n"
				    "1,0,2,1,100,100\n2,0,2,1,100,100\n"
				    "3,200,4,1,100,100\n4,200,1,1,100,100\n",
				    NULL);
	sim_run_t *r = run_sched(c, t, NULL, NULL, NULL);
	assert_int_equal(r->jobs[job_at(t, 2)].start, 0);
	/* ... and a 4-GPU job leaves 2 CPUs, but no GPU, to the next */
	assert_int_equal(r->jobs[job_at(t, 4)].start, 300);
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
	/* --cpus-per-gpu=2 (column cpus_per_gpu): 2 GPUs take all 4 CPUs, and
	 * the 1-GPU job waits with 2 GPUs free */
	assert_int_equal(second_start("", "", "cpus_per_gpu", "2", ""), 100);
	/* DefMemPerCPU=2000 where memory is counted: two 2-CPU jobs (-c 2, 4000
	 * MB each) on the 4000 MB node run one after the other; the partition's
	 * DefMemPerNode=1000 replaces the cluster's DefMemPerCPU */
	const char *mem = "SelectTypeParameters=CR_Core_Memory\n";
	assert_int_equal(second_start(mem, "DefMemPerCPU=2000\n", "cpus", "2", ""), 100);
	assert_int_equal(second_start(mem, "DefMemPerCPU=2000\n", "cpus", "2", " DefMemPerNode=1000"), 0);
	/* DefMemPerGPU=3000 where memory is counted: 1 GPU each, one at a time;
	 * without SelectTypeParameters naming memory (22.05's default) no
	 * memory is allocated */
	assert_int_equal(second_start(mem, "DefMemPerGPU=3000\n", "cpus", "1", ""), 100);
	assert_int_equal(second_start("", "DefMemPerGPU=3000\n", "cpus", "1", ""), 0);
	/* DefCpuPerGPU=2 (no -c, no --cpus-per-gpu): the 2-GPU job takes all 4
	 * CPUs, as with --cpus-per-gpu=2; the partition's DefCpuPerGPU=1
	 * replaces the cluster's */
	assert_int_equal(second_start("", "DefCpuPerGPU=2\n", "cpus_per_gpu", "", ""), 100);
	assert_int_equal(second_start("", "DefCpuPerGPU=2\n", "cpus_per_gpu", "", " DefCpuPerGPU=1"), 0);
	/* MaxMemPerCPU=500: --mem=2000M on one node raises the job's CPUs to 4,
	 * so the 1-CPU, 1000 MB job waits; at MaxMemPerCPU=2000 one CPU holds
	 * it and both run */
	assert_int_equal(second_start(mem, "DefMemPerCPU=1000\nMaxMemPerCPU=500\n", "mem", "2000M", ""), 100);
	assert_int_equal(second_start(mem, "DefMemPerCPU=1000\nMaxMemPerCPU=2000\n", "mem", "2000M", ""), 0);
	/* MaxMemPerNode: a larger --mem is refused at submission */
	c = cluster_cat("SelectTypeParameters=CR_Core_Memory\nMaxMemPerNode=2000\n", node,
			"PartitionName=p Nodes=ALL Default=YES\n");
	t = trace_from("job_id,submit,gpus,nodes,mem,run_time,time_limit\n"
		       "1,0,1,1,3000M,100,100\n2,0,1,1,2000M,100,100\n",
		       NULL);
	r = run_sched(c, t, NULL, NULL, NULL);
	assert_int_equal(r->jobs[job_at(t, 1)].status, SIM_JOB_REJECTED);
	assert_non_null(strstr(r->jobs[job_at(t, 1)].reason, "MaxMemPerNode"));
	assert_int_equal(r->jobs[job_at(t, 2)].status, SIM_JOB_DONE);
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

/* Slurm's job size factor counts nodes and CPUs, not GPUs: on one node busy
 * until 100, Y (2 GPUs, 12 CPUs) outranks the earlier X (3 GPUs, 2 CPUs),
 * and both cannot run together (5 GPUs on a 4-GPU node). */
static void test_priority_size_cpus(void **state)
{
	(void)state;
	sim_cluster_t *c = cluster_from("NodeName=n1 CPUs=16 RealMemory=64000 Gres=gpu:4\n"
					"NodeName=n2 CPUs=16 RealMemory=64000\n"
					"PartitionName=p Nodes=n1 Default=YES MaxTime=UNLIMITED\n");
	sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,cpus,run_time,time_limit\n"
				    "1,0,4,1,1,100,100\n"
				    "2,1,3,1,2,100,100\n"
				    "3,2,2,1,12,100,100\n",
				    NULL);
	sim_sched_opts_t o = { .params = c->params };
	o.params.weight_job_size = 1000;
	sim_run_t *r = run_sched(c, t, NULL, NULL, &o);
	assert_int_equal(r->jobs[job_at(t, 3)].start, 100);
	assert_int_equal(r->jobs[job_at(t, 2)].start, 200);
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

/* Slurm stores a priority as an integer, the weighted sum truncated and at
 * least 1 (priority_multifactor.c, _get_priority_internal): with
 * PriorityWeightJobSize=1 on 4 nodes of 8 CPUs, a 1-node job (1 CPU: 0.14)
 * and a later 4-node job (4 CPUs: 0.56) both get 1, so the earlier starts
 * first when job 1 ends, and the 4-node job waits for it; ordered by the
 * fractions, the 4-node job would go first. With the weight at 10 they get
 * 1 and 5: the 4-node job first. */
static void test_priority_integer(void **state)
{
	(void)state;
	sim_cluster_t *c = cluster_from("NodeName=n[1-4] CPUs=8 RealMemory=16000 Gres=gpu:4\n"
					"PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED\n");
	sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,cpus,run_time,time_limit\n"
				    "1,0,16,4,4,100,100\n"
				    "2,1,4,1,1,100,100\n"
				    "3,2,16,4,4,100,100\n",
				    NULL);
	sim_sched_opts_t o = { .params = c->params };
	o.params.weight_job_size = 1;
	sim_run_t *r = run_sched(c, t, NULL, NULL, &o);
	assert_int_equal(r->jobs[job_at(t, 2)].start, 100);
	assert_int_equal(r->jobs[job_at(t, 3)].start, 200);
	sched_run_free(r);
	o.params.weight_job_size = 10;
	r = run_sched(c, t, NULL, NULL, &o);
	assert_int_equal(r->jobs[job_at(t, 3)].start, 100);
	assert_int_equal(r->jobs[job_at(t, 2)].start, 200);
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

/* The job-size factor's shares are of every node and CPU slurm.conf
 * defines, drained ones included (22.05 controller.c sums cluster_cpus
 * over every node; node_record_count): with n3 and n4 drained, X (2 nodes,
 * 2 CPUs: (2/4 + 2/32) / 2 x 1000 = 281) goes before the later Y (1 node,
 * 8 CPUs: 250), and waits for job 1 on both usable nodes; Y follows at
 * 200. Counting the usable nodes' 16 CPUs only, Y (375) would pass X (312). */
static void test_priority_size_all_nodes(void **state)
{
	(void)state;
	sim_cluster_t *c = cluster_from("NodeName=n[1-2] CPUs=8 RealMemory=16000 Gres=gpu:4\n"
					"NodeName=n[3-4] CPUs=8 RealMemory=16000 Gres=gpu:4 State=DRAIN\n"
					"PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED\n");
	sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,cpus,run_time,time_limit\n"
				    "1,0,8,2,2,100,100\n"
				    "2,1,8,2,2,100,100\n"
				    "3,2,4,1,8,100,100\n",
				    NULL);
	sim_sched_opts_t o = { .params = c->params };
	o.params.weight_job_size = 1000;
	sim_run_t *r = run_sched(c, t, NULL, NULL, &o);
	assert_int_equal(r->jobs[job_at(t, 2)].start, 100);
	assert_int_equal(r->jobs[job_at(t, 3)].start, 200);
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

/* PriorityWeightPartition: a job's partition adds its PriorityJobFactor over
 * the highest one (norm_priority), or the factor itself with
 * PriorityFlags=NO_NORMAL_PART. Job 3 (partition hi, factor 3 of 3: +10)
 * goes before the earlier job 2 (lo, factor 1 of 3: 3.33, stored 3); with
 * factors 1 and 2 and NO_NORMAL_PART, 10 and 20 before truncation. Equal
 * factors: submission order. */
static void test_priority_partition(void **state)
{
	(void)state;
	static const struct {
		const char *flags, *f_lo, *f_hi;
		int64_t start2, start3;
	} want[] = {
		{ "", "1", "3", 200, 100 },
		{ "PriorityFlags=NO_NORMAL_PART\n", "1", "2", 200, 100 },
		{ "", "2", "2", 100, 200 },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char *conf =
			g_strdup_printf("PriorityType=priority/multifactor\nPriorityWeightPartition=10\n%s"
					"NodeName=n[1-2] CPUs=8 RealMemory=16000 Gres=gpu:4\n"
					"PartitionName=lo Nodes=ALL Default=YES PriorityJobFactor=%s\n"
					"PartitionName=hi Nodes=ALL PriorityJobFactor=%s\n",
					want[i].flags, want[i].f_lo, want[i].f_hi);
		sim_cluster_t *c = cluster_from(conf);
		g_free(conf);
		sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,partition,run_time,time_limit\n"
					    "1,0,8,2,lo,100,100\n"
					    "2,1,8,2,lo,100,100\n"
					    "3,2,8,2,hi,100,100\n",
					    NULL);
		sim_sched_opts_t o = { .params = c->params };
		sim_run_t *r = run_sched(c, t, NULL, NULL, &o);
		if (r->jobs[job_at(t, 2)].start != want[i].start2 ||
		    r->jobs[job_at(t, 3)].start != want[i].start3)
			fail_msg("case %zu: jobs 2 and 3 started at %" G_GINT64_FORMAT
				 " and %" G_GINT64_FORMAT,
				 i, r->jobs[job_at(t, 2)].start, r->jobs[job_at(t, 3)].start);
		sched_run_free(r);
		trace_free(t);
		cluster_free(c);
	}
}

/* select/cons_tres's runs of consecutive nodes (checked on the real cluster,
 * multifactor trace): with a2 full, a 2-node a100|l40s job takes the run
 * l1,l2, not a1 and l1 (the first two nodes that fit); a 1-node job takes
 * the tightest run (a1 alone, 6 free CPUs, against l1,l2 with 12), not the
 * node with the fewest free CPUs overall (l1, 4). */
static void test_place_runs(void **state)
{
	(void)state;
	sim_cluster_t *c =
		cluster_from("NodeName=a1 CPUs=8 RealMemory=16000 Features=a100 Gres=gpu:a100:4\n"
			     "NodeName=a2 CPUs=8 RealMemory=16000 Features=a100,nvl Gres=gpu:a100:4\n"
			     "NodeName=l[1-2] CPUs=8 RealMemory=16000 Features=l40s Gres=gpu:l40s:4\n"
			     "PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED\n");
	/* 1: a2 full; 2: 2 CPUs on a1; 3: 4 CPUs on l1; 4: the 2-node job;
	 * 5: a 1-node job once 4 has ended (a2 still full) */
	sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,cpus,gpu_type,constraint,run_time,time_limit\n"
				    "1,0,4,1,1,,nvl,1000,1000\n"
				    "2,1,1,1,2,a100,,1000,1000\n"
				    "3,2,1,1,4,l40s,,1000,1000\n"
				    "4,3,4,2,2,,a100|l40s,10,60\n"
				    "5,20,1,1,1,,a100|l40s,10,60\n",
				    NULL);
	sim_run_t *r = run_sched(c, t, NULL, NULL, NULL);
	assert_string_equal(r->jobs[job_at(t, 1)].nodes, "a2");
	assert_string_equal(r->jobs[job_at(t, 2)].nodes, "a1");
	assert_string_equal(r->jobs[job_at(t, 3)].nodes, "l1");
	assert_int_equal(r->jobs[job_at(t, 4)].start, 3);
	assert_string_equal(r->jobs[job_at(t, 4)].nodes, "l1,l2");
	assert_string_equal(r->jobs[job_at(t, 5)].nodes, "a1");
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

/* GPUs bound to sockets (Sockets=2: GPUs 0-1 on cores 0-3, 2-3 on 4-7), as
 * seen on the private cluster (scontrol -d show job): with l1 empty and l2
 * running one job of 2 GPUs and 4 CPUs on one socket, another such job goes
 * to l1, not to the fuller l2: cons_tres's first pass counts only the cores
 * of the socket the GPUs need (4 on each node: a tie, the first node wins).
 * Without sockets the flat best fit takes l2. */
static void test_place_sockets(void **state)
{
	(void)state;
	static const char *const conf[2] = {
		"NodeName=l[1-2] CPUs=8 RealMemory=16000 Features=l40s Gres=gpu:l40s:4\n"
		"PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED\n",
		"NodeName=l[1-2] CPUs=8 Sockets=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=16000 "
		"Features=l40s Gres=gpu:l40s:4\n"
		"PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED\n",
	};
	for (int sockets = 0; sockets < 2; sockets++) {
		sim_cluster_t *c = cluster_from(conf[sockets]);
		assert_int_equal(c->nodes[0].sockets, sockets ? 2 : 1);
		/* 1 fills l1 until 20; 2 and 3 on l2 (2 ends at 15); 4 at 30 */
		sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,cpus,gpu_type,run_time,time_limit\n"
					    "1,0,4,1,8,l40s,20,60\n"
					    "2,1,2,1,4,l40s,14,60\n"
					    "3,2,2,1,4,l40s,1000,2000\n"
					    "4,30,2,1,4,l40s,1000,2000\n",
					    NULL);
		sim_run_t *r = run_sched(c, t, NULL, NULL, NULL);
		assert_string_equal(r->jobs[job_at(t, 1)].nodes, "l1");
		assert_string_equal(r->jobs[job_at(t, 2)].nodes, "l2");
		assert_string_equal(r->jobs[job_at(t, 3)].nodes, "l2");
		assert_int_equal(r->jobs[job_at(t, 4)].start, 30);
		assert_string_equal(r->jobs[job_at(t, 4)].nodes, sockets ? "l1" : "l2");
		sched_run_free(r);
		trace_free(t);
		cluster_free(c);
	}
}

/* Slurm's will-run batches walk every running job: after X2 (l1, ends 360)
 * the next job in end order is Y on a1, which P (constraint l40s) cannot
 * use, so the batch does not stop and takes in Z (l2, ends 600) too; P's
 * start is the batch's last end, 600, not 360 (seen on the real cluster:
 * job 50 of the fifo trace planned at 367 s, not 296). So Q (8 minutes,
 * lower priority) may start beside it now; with a reservation at 360 it
 * could not. */
static void test_will_run_batches(void **state)
{
	(void)state;
	sim_cluster_t *c =
		cluster_from("NodeName=a1 CPUs=16 RealMemory=64000 Features=a100 Gres=gpu:a100:4\n"
			     "NodeName=l[1-2] CPUs=16 RealMemory=64000 Features=l40s Gres=gpu:l40s:4\n"
			     "PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED\n");
	sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,gpu_type,constraint,run_time,time_limit\n"
				    "1,0,2,1,l40s,,1000,00:04:00\n" /* X1 on l1, expected end 240 */
				    "2,0,1,1,l40s,,1000,00:06:00\n" /* X2 on l1, 360 */
				    "3,0,4,1,l40s,,1000,00:10:00\n" /* Z on l2, 600 */
				    "4,0,1,1,a100,,1000,00:06:00\n" /* Y on a1, 360 */
				    "5,5,4,1,,l40s,60,00:05:00\n"   /* P */
				    "6,10,1,1,,l40s,60,00:08:00\n",
				    NULL); /* Q */
	sim_sched_opts_t o = { .params = c->params };
	o.params.bf_interval_s = 1;
	sim_run_t *r = run_sched(c, t, NULL, NULL, &o);
	assert_string_equal(r->jobs[job_at(t, 2)].nodes, "l1");
	assert_string_equal(r->jobs[job_at(t, 3)].nodes, "l2");
	assert_true(r->jobs[job_at(t, 6)].start < 60);
	assert_string_equal(r->jobs[job_at(t, 6)].nodes, "l1");
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

/* The same batches on 70 nodes (above the 64 up to which the model was
 * exact before issue 24): 70 one-GPU nodes, all busy. Job 1 ends at
 * 10 s (a1 free); P (2 nodes) fits once job 2 ends at 240, but the batch
 * (240 rounded up to the next 30 s, plus 30 s) takes in job 3, ending at
 * 300, so P is reserved a1,a2 from 300. Q (4 minutes, submitted at 20 s)
 * ends by 260 and starts on a1 at once; had the walk's batch stopped at
 * job 2 (a reservation from 240), Q would wait. */
static void test_will_run_batches_large(void **state)
{
	(void)state;
	sim_cluster_t *c =
		cluster_from("NodeName=a[1-70] CPUs=16 RealMemory=64000 Features=a100 Gres=gpu:a100:1\n"
			     "PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED\n");
	GString *csv = g_string_new("job_id,submit,gpus,nodes,run_time,time_limit\n"
				    "1,0,1,1,10,00:10:00\n"     /* a1, ends at 10 */
				    "2,0,1,1,1000,00:04:00\n"   /* a2, expected end 240 */
				    "3,0,1,1,1000,00:05:00\n"); /* a3, 300 */
	for (int id = 4; id <= 70; id++)
		g_string_append_printf(csv, "%d,0,1,1,4000,01:00:00\n", id);
	g_string_append(csv, "71,5,2,2,60,00:10:00\n"    /* P */
			     "72,20,1,1,60,00:04:00\n"); /* Q */
	sim_trace_t *t = trace_from(csv->str, NULL);
	g_string_free(csv, TRUE);
	assert_int_equal(c->nnodes, 70);
	sim_sched_opts_t o = { .params = c->params };
	o.params.bf_interval_s = 1;
	sim_run_t *r = run_sched(c, t, NULL, NULL, &o);
	assert_string_equal(r->jobs[job_at(t, 1)].nodes, "a1");
	assert_string_equal(r->jobs[job_at(t, 2)].nodes, "a2");
	assert_string_equal(r->jobs[job_at(t, 3)].nodes, "a3");
	assert_true(r->jobs[job_at(t, 72)].start < 60);
	assert_string_equal(r->jobs[job_at(t, 72)].nodes, "a1");
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

/* A backfill pass remembers requests that its reservations stop, so the
 * queue's identical jobs are not placed one by one; a job with the same
 * request but an earlier end is still tried. P (4 GPUs) is reserved a1
 * from 300, when job 1 ends; A (1 GPU, 10 minutes) would run past 300 and
 * waits; B, the same request for 4 minutes, ends before 300 and starts at
 * once beside the reservation. */
static void test_blocked_shorter_limit(void **state)
{
	(void)state;
	sim_cluster_t *c = cluster_from("NodeName=a1 CPUs=16 RealMemory=64000 Features=a100 Gres=gpu:a100:4\n"
					"PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED\n");
	sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,run_time,time_limit\n"
				    "1,0,2,1,1000,00:05:00\n" /* until 300 */
				    "2,1,4,1,60,00:05:00\n"   /* P */
				    "3,2,1,1,60,00:10:00\n"   /* A */
				    "4,3,1,1,60,00:04:00\n",
				    NULL); /* B */
	sim_sched_opts_t o = { .params = c->params };
	o.params.bf_interval_s = 1;
	sim_run_t *r = run_sched(c, t, NULL, NULL, &o);
	assert_true(r->jobs[job_at(t, 4)].start < 60);
	assert_true(r->jobs[job_at(t, 3)].start >= 300);
	assert_true(r->jobs[job_at(t, 2)].start >= 300);
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

/* A backfill pass that starts a job is followed by another one interval
 * later, though no job was submitted or ended in between: _start_job sets
 * last_job_update, so _more_work() says yes (backfill.c, 22.05), and that
 * pass sees the started job running, which the reservations made before it
 * in its own pass did not. At 11, job 5 (two whole nodes) is reserved a3,a4
 * from 240, job 6 waits (the free GPUs are on reserved nodes) and job 7 (two
 * nodes, 1 minute) starts on a3,a4 before 240. At 12, job 5's will-run test
 * sees job 7 running and reserves a1,a2 from 300 instead, and job 6 starts.
 * Without that pass, job 6 waited for the next job to end. Seen on the real
 * cluster: multifactor trace with the plugin, job 41 started a second after
 * job 26's start had moved job 42's reservation. */
static void test_pass_after_start(void **state)
{
	(void)state;
	sim_cluster_t *c =
		cluster_from("NodeName=a[1-4] CPUs=8 RealMemory=16000 Features=a100 Gres=gpu:a100:4\n"
			     "PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED\n");
	sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,run_time,time_limit\n"
				    "1,2,4,2,108,00:02:00\n"
				    "2,2,1,1,23,00:02:00\n"
				    "3,5,2,1,74,00:05:00\n"
				    "4,6,2,2,187,00:04:00\n"
				    "5,8,8,2,15,00:02:00\n"
				    "6,8,2,1,178,00:04:00\n"
				    "7,11,2,2,186,00:01:00\n",
				    NULL);
	sim_sched_opts_t o = { .params = c->params };
	o.params.bf_interval_s = 1;
	sim_run_t *r = run_sched(c, t, NULL, NULL, &o);
	assert_int_equal(r->jobs[job_at(t, 7)].start, 11);
	assert_int_equal(r->jobs[job_at(t, 6)].start, 12);
	assert_true(r->jobs[job_at(t, 5)].start > 12);
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

/* Slurm's backfill map: a reservation holds its nodes whole, from its start
 * to its end, and a later job looks only at nodes no reservation holds
 * while it would run, else tries again after (TRY_LATER). A fills a1 until
 * 600; P1 (2 nodes) is reserved a1,a2 from 600 to 900; P2 (10 minutes)
 * cannot use a2 before 900, so it is reserved after P1, and Q (5 minutes)
 * starts on a2 now. Had P2 been reserved now on a2's GPUs P1 leaves (as
 * the simulator once did), Q would wait (seen on the real cluster:
 * multifactor trace, a tagged job started beside such a reservation). */
static void test_reserve_whole_nodes(void **state)
{
	(void)state;
	sim_cluster_t *c =
		cluster_from("NodeName=a[1-2] CPUs=16 RealMemory=64000 Features=a100 Gres=gpu:a100:4\n"
			     "PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED\n");
	sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,run_time,time_limit\n"
				    "1,0,4,1,1000,00:10:00\n"
				    "2,1,4,2,60,00:05:00\n"
				    "3,2,2,1,60,00:10:00\n"
				    "4,3,1,1,60,00:05:00\n",
				    NULL);
	sim_sched_opts_t o = { .params = c->params };
	o.params.bf_interval_s = 1;
	sim_run_t *r = run_sched(c, t, NULL, NULL, &o);
	assert_string_equal(r->jobs[job_at(t, 1)].nodes, "a1");
	assert_true(r->jobs[job_at(t, 4)].start < 60);
	assert_string_equal(r->jobs[job_at(t, 4)].nodes, "a2");
	assert_true(r->jobs[job_at(t, 2)].start >= 600);
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

/* A reservation on nodes of another type still counts for a job whose
 * will-run test looks at them. A typed GPU request without a constraint
 * may look at every node of its partition, so Slurm releases jobs on the
 * a100 nodes in its will-run batches too, unless an earlier reservation of
 * the pass holds those nodes while it would run. H (a100, 2 nodes) is
 * reserved a1,a2 from 300, when A ends; that takes them out of J's test
 * (l40s, 2 nodes), whose batch then ends at B's end (240), not A's (300),
 * so J is reserved l1,l2 from 240 and K (4 minutes on l2) may not start now.
 * Had H not been reserved before J (the candidate K shares no class with
 * H), J's reservation would start at 300 and K would start at once: seen on
 * the real cluster, multifactor trace, jobs 3, 31 and 32 at phase 58. */
static void test_reserve_other_type(void **state)
{
	(void)state;
	sim_cluster_t *c =
		cluster_from("NodeName=a[1-2] CPUs=16 RealMemory=64000 Features=a100 Gres=gpu:a100:4\n"
			     "NodeName=l[1-2] CPUs=16 RealMemory=64000 Features=l40s Gres=gpu:l40s:4\n"
			     "PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED\n");
	sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,gpu_type,run_time,time_limit\n"
				    "1,0,8,2,a100,1000,00:05:00\n" /* A on a1,a2 until 300 */
				    "2,0,4,1,l40s,1000,00:04:00\n" /* B on l1 until 240 */
				    "3,1,8,2,a100,60,00:05:00\n"   /* H */
				    "4,2,8,2,l40s,60,00:05:00\n"   /* J */
				    "5,3,4,1,l40s,60,00:04:00\n",
				    NULL); /* K */
	sim_sched_opts_t o = { .params = c->params };
	o.params.bf_interval_s = 1;
	sim_run_t *r = run_sched(c, t, NULL, NULL, &o);
	assert_string_equal(r->jobs[job_at(t, 2)].nodes, "l1");
	assert_true(r->jobs[job_at(t, 5)].start >= 240);
	assert_true(r->jobs[job_at(t, 4)].start < r->jobs[job_at(t, 5)].start);
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

/* The nodes of an ended job go to the next one end_latency_s later (on
 * average; whole seconds per job); the job's own end does not move. */
static void test_end_latency(void **state)
{
	(void)state;
	sim_cluster_t *c = one_type_cluster();
	sim_trace_t *t = trace_from("job_id,submit,gpus,run_time,time_limit\n"
				    "1,0,8,100,00:05:00\n2,1,8,100,00:05:00\n",
				    NULL);
	sim_sched_opts_t o = { .params = c->params };
	o.params.end_latency_s = 1;
	sim_run_t *r = run_sched(c, t, NULL, NULL, &o);
	assert_int_equal(r->jobs[job_at(t, 1)].end, 100);
	assert_int_equal(r->jobs[job_at(t, 2)].start, 101);
	sched_run_free(r);
	o.params.end_latency_s = 0;
	r = run_sched(c, t, NULL, NULL, &o);
	assert_int_equal(r->jobs[job_at(t, 2)].start, 100);
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

/* The policy's view of a job's end (sched.c, sched_soft_plan): slurmctld
 * frees a job's GPUs when it records its end, and Broaden=when-blocked reads
 * them idle from then, though the next job gets the node only at a later
 * pass. Job 1 holds a1's four a100s for 100 s and ends at 100.075 (its last
 * second plus end_overhead_s); with end_latency_s 1 its node goes on at
 * 101. The tagged job 2 asks for four a100s: submitted at 101 (before that
 * second's hand-on) it finds them idle and is kept as asked; at 100 (before
 * the end) it is broadened; at 100 with --submit-phase 0.5 (after the end)
 * it is kept again. Before the soft end, the submission at 101 was
 * broadened: the view followed the hand-on. */
static bool soft_end_broadened(int64_t submit, double phase)
{
	sim_cluster_t *c = cluster_from("NodeName=a1 CPUs=16 RealMemory=64000 Features=a100 Gres=gpu:a100:4\n"
					"NodeName=l1 CPUs=16 RealMemory=64000 Features=l40s Gres=gpu:l40s:4\n"
					"PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED\n");
	nodeox_conf_t *conf = NULL;
	char err[256], csv[512];
	assert_int_equal(nodeox_conf_parse_string("Broaden=when-blocked\n"
						  "GpuType=a100 Feature=a100 Memory=80G Speed=1.0\n"
						  "GpuType=l40s Feature=l40s Memory=48G Speed=1.0\n"
						  "Group=g Types=a100,l40s\n",
						  "soft.conf", &conf, err, sizeof(err)),
			 0);
	snprintf(csv, sizeof(csv),
		 "job_id,submit,gpus,nodes,gpu_type,run_time,time_limit,comment\n"
		 "1,0,4,1,a100,100,00:05:00,\n"
		 "2,%" G_GINT64_FORMAT ",4,1,a100,10,00:05:00,nodeox:flex\n",
		 submit);
	sim_trace_t *t = trace_from(csv, conf);
	sim_sched_opts_t o = { .params = c->params };
	o.params.end_latency_s = 1;
	o.params.submit_phase_s = phase;
	sim_run_t *r = run_sched(c, t, conf, conf, &o);
	assert_int_equal(r->jobs[job_at(t, 1)].end, 100);
	bool b = r->jobs[job_at(t, 2)].broadened;
	sched_run_free(r);
	trace_free(t);
	nodeox_conf_free(conf);
	cluster_free(c);
	return b;
}

static void test_soft_end(void **state)
{
	(void)state;
	assert_false(soft_end_broadened(101, 0));
	assert_true(soft_end_broadened(100, 0));
	assert_false(soft_end_broadened(100, 0.5));
}

/* The QOS factor (qos.c; 22.05: assoc_mgr.c _set_qos_norm_priority, the
 * QOS's priority over the highest of all; priority_multifactor.c
 * set_priority_factors, only for a QOS with a priority, the raw priority
 * with NO_NORMAL_QOS; summed after the partition factor). One node, full
 * until 100 s; at 1 s three jobs for all of it: 2 in "normal" (0), 3 in
 * "low" (10), 4 in "HIGH" (100, matched case-blind as assoc_mgr does), and
 * 5 in a QOS qos.conf lacks (no QOS: 0). With PriorityWeightQOS=1000 they
 * weigh 0, 100, 1000 and 0: 4, then 3, then 2 and 5 in submission order. */
static void test_qos_factor(void **state)
{
	(void)state;
	sim_qos_t q;
	char err[256];
	assert_int_equal(qos_parse("# qos\nQOS=low Priority=10\nQOS=high Priority=100\n", "qos.conf", &q, err,
				   sizeof(err)),
			 0);
	assert_int_equal(q.n, 3); /* normal first */
	assert_int_equal(q.max, 100);
	assert_true(qos_factor(&q, qos_find(&q, NULL), false) == 0);
	assert_true(qos_factor(&q, qos_find(&q, "low"), false) == 0.1);
	assert_true(qos_factor(&q, qos_find(&q, "High"), false) == 1.0);
	assert_true(qos_factor(&q, qos_find(&q, "low"), true) == 10);
	assert_int_equal(qos_find(&q, "nope"), -1);
	assert_true(qos_factor(&q, -1, false) == 0);
	qos_free(&q);
	assert_int_equal(qos_parse("QOS=a Prio=1\n", "qos.conf", &q, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "qos.conf:1: 'Prio=1': expected QOS=NAME [Priority=N]"));
	assert_int_equal(qos_parse("QOS=a\nQOS=A Priority=2\n", "qos.conf", &q, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "qos.conf:2: QOS A given twice"));

	sim_cluster_t *c = cluster_from("NodeName=n1 CPUs=16 RealMemory=64000 Gres=gpu:4\n"
					"PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED\n");
	assert_int_equal(qos_parse("QOS=low Priority=10\nQOS=high Priority=100\n", "qos.conf", &c->qos, err,
				   sizeof(err)),
			 0);
	sim_trace_t *t = trace_from("job_id,submit,gpus,run_time,time_limit,qos\n"
				    "1,0,4,100,00:05:00,\n2,1,4,10,00:05:00,\n3,1,4,10,00:05:00,low\n"
				    "4,1,4,10,00:05:00,HIGH\n5,1,4,10,00:05:00,nope\n",
				    NULL);
	for (int no_normal = 0; no_normal < 2; no_normal++) {
		sim_sched_opts_t o = { .params = c->params };
		o.params.weight_qos = 1000;
		o.params.no_normal_qos = no_normal;
		sim_run_t *r = run_sched(c, t, NULL, NULL, &o);
		int64_t s2 = r->jobs[job_at(t, 2)].start, s3 = r->jobs[job_at(t, 3)].start,
			s4 = r->jobs[job_at(t, 4)].start, s5 = r->jobs[job_at(t, 5)].start;
		assert_true(s4 >= 100 && s4 < s3 && s3 < s2 && s2 < s5);
		sched_run_free(r);
	}
	sim_sched_opts_t o = { .params = c->params }; /* without the weight: submission order */
	sim_run_t *r = run_sched(c, t, NULL, NULL, &o);
	assert_true(r->jobs[job_at(t, 2)].start < r->jobs[job_at(t, 3)].start);
	assert_true(r->jobs[job_at(t, 3)].start < r->jobs[job_at(t, 4)].start);
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

/* Node weights (select/cons_tres's consec_weight): the lowest Weight is
 * taken first even when a heavier node fits better or comes first. */
static void test_place_weight(void **state)
{
	(void)state;
	sim_cluster_t *c = cluster_from("NodeName=a1 CPUs=8 RealMemory=16000 Gres=gpu:4 Weight=10\n"
					"NodeName=a2 CPUs=8 RealMemory=16000 Gres=gpu:4 Weight=5\n"
					"NodeName=a3 CPUs=8 RealMemory=16000 Gres=gpu:4\n"
					"PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED\n");
	assert_int_equal(c->nodes[2].weight, 1);
	sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,run_time,time_limit\n"
				    "1,0,1,1,100,00:05:00\n"
				    "2,1,8,2,100,00:05:00\n",
				    NULL);
	sim_run_t *r = run_sched(c, t, NULL, NULL, NULL);
	assert_string_equal(r->jobs[job_at(t, 1)].nodes, "a3");
	/* 2 nodes: a3 (weight 1, 3 GPUs left, too few) is skipped by the fit,
	 * then a2 (5) before a1 (10); both start in the background loop's
	 * first pass for submissions, batch_sched_delay (3 s) after
	 * slurmctld's start at 0 */
	assert_int_equal(r->jobs[job_at(t, 2)].start, 3);
	assert_string_equal(r->jobs[job_at(t, 2)].nodes, "a2,a1");
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

static void test_rejections(void **state)
{
	(void)state;
	sim_cluster_t *c = one_type_cluster();
	sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,gpu_type,partition,constraint,run_time\n"
				    "1,0,1,,h100,,,60\n"
				    "2,0,16,,,,,60\n"
				    "3,0,1,,,nope,,60\n"
				    "4,0,1,,,,l40s,60\n"
				    "5,0,4,2,,,,60\n"
				    "6,0,1,,,,l40s,60\n",
				    NULL);
	sim_run_t *r = run_sched(c, t, NULL, NULL, NULL);
	assert_int_equal(r->rejected, 5);
	assert_int_equal(r->jobs[0].status, SIM_JOB_REJECTED);
	assert_non_null(strstr(r->jobs[0].reason, "h100"));
	assert_non_null(strstr(r->jobs[1].reason, "more resources"));
	assert_non_null(strstr(r->jobs[2].reason, "partition 'nope'"));
	assert_non_null(strstr(r->jobs[3].reason, "feature"));
	assert_string_equal(r->jobs[5].reason, r->jobs[3].reason); /* same request, cached */
	assert_int_equal(r->jobs[4].status, SIM_JOB_DONE);         /* 2 GPUs on each of 2 nodes */
	assert_string_equal(r->jobs[4].nodes, "n1,n2");
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

static void test_runtime_model(void **state)
{
	(void)state;
	sim_cluster_t *c = article_cluster();
	nodeox_conf_t *conf = article_conf();
	sim_runtime_t m;
	char err[256];
	assert_int_equal(runtime_model_init(&m, c, conf, NULL, 0.1, err, sizeof(err)), 0);
	int a = cluster_find_type(c, "a100"), l = cluster_find_type(c, "l40s");
	sim_job_t job = { .gpus = 4, .run_time = 1000 };
	uint32_t by[SIM_MAX_TYPES] = { 0 };
	by[a] = 4;
	assert_int_equal(runtime_model_duration(&m, &job, a, by), 1000);
	by[a] = 0;
	by[l] = 4;
	assert_int_equal(runtime_model_duration(&m, &job, a, by), 2000); /* 1.0 / 0.5 */
	assert_int_equal(runtime_model_duration(&m, &job, l, by), 1000);
	by[a] = 2;
	by[l] = 2;
	assert_int_equal(runtime_model_duration(&m, &job, a, by), 2000); /* n x slowest */
	job.rounds = true; /* 4 * 1.0 / (0.9 * (2 * 1.0 + 2 * 0.5)) */
	assert_int_equal(runtime_model_duration(&m, &job, a, by), 1482);
	assert_int_equal(runtime_model_duration(&m, &job, -1, by), 1000); /* untyped */
	runtime_model_free(&m);
	/* per-class speeds override nodeox.conf's */
	char *p = g_build_filename(tmpdir, "classes.csv", NULL);
	assert_true(g_file_set_contents(p, "class,gpu_type,speed\nnlp,l40s,0.25\n", -1, NULL));
	assert_int_equal(runtime_model_init(&m, c, conf, p, 0.1, err, sizeof(err)), 0);
	sim_job_t nlp = { .gpus = 4, .run_time = 1000, .class_name = "nlp" };
	uint32_t on_l[SIM_MAX_TYPES] = { 0 };
	on_l[l] = 4;
	assert_int_equal(runtime_model_duration(&m, &nlp, a, on_l), 4000);
	assert_int_equal(runtime_model_duration(&m, &job, a, on_l), 2000);
	runtime_model_free(&m);
	assert_true(g_file_set_contents(p, "cv,k80,2\n", -1, NULL));
	assert_int_equal(runtime_model_init(&m, c, conf, p, 0.1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "classes.csv:1: GPU type 'k80' is not in the cluster"));
	remove(p);
	g_free(p);
	nodeox_conf_free(conf);
	cluster_free(c);
}

typedef struct {
	const nodeox_conf_t *conf;
	int calls, rewrites, keeps;
} decide_check_t;

static void check_decision(void *arg, uint32_t job, const nodeox_job_t *pj, const nodeox_cluster_t *all,
			   const nodeox_decision_t *d)
{
	(void)job;
	decide_check_t *k = arg;
	nodeox_decision_t direct;
	nodeox_policy_decide(k->conf, pj, all, &direct);
	assert_int_equal(d->action, direct.action);
	assert_string_equal(d->reason, direct.reason);
	assert_int_equal(d->neligible, direct.neligible);
	assert_int_equal(d->features_set, direct.features_set);
	assert_string_equal(d->features, direct.features);
	assert_string_equal(d->tres_per_job, direct.tres_per_job);
	assert_string_equal(d->tres_per_node, direct.tres_per_node);
	assert_int_equal(d->time_limit_set, direct.time_limit_set);
	assert_int_equal(d->time_limit, direct.time_limit);
	k->calls++;
	k->rewrites += d->action == NODEOX_REWRITE;
	k->keeps += d->action == NODEOX_KEEP;
}

/* Many tagged jobs under Broaden=when-blocked: decisions depend on the
 * cluster's state at submission, which the simulator hands over compacted. */
/* Broaden=when-faster through the simulator's feed (sched_policy_state): a1's
 * a100 come back at 180 s (a 3-minute limit), a2's after an hour, l1 and l2
 * idle. A 30-minute a100 job at 5 s is kept (a100 at 180 s + 30 min against
 * 50 min on l40s) and starts on an a100 node; one at 10 s, with the first
 * pending ahead for a1's GPUs, is broadened and starts on l40s at the next
 * pass. */
static void test_when_faster(void **state)
{
	(void)state;
	sim_cluster_t *c = article_cluster();
	nodeox_conf_t *conf = NULL;
	char err[256];
	assert_int_equal(nodeox_conf_parse_string(
				 "Broaden=when-faster\n"
				 "GpuType=a100 Memory=80G Speed=1.0\nGpuType=l40s Memory=48G Speed=0.6\n"
				 "Group=ampere Types=a100,l40s\n",
				 "when-faster.conf", &conf, err, sizeof(err)),
			 0);
	sim_trace_t *t = trace_from("job_id,submit,gpus,nodes,gpu_type,run_time,time_limit,comment\n"
				    "1,0,4,1,a100,180,00:03:00,\n"
				    "2,0,4,1,a100,3600,01:00:00,\n"
				    "3,5,4,1,a100,600,00:30:00,nodeox:flex\n"
				    "4,10,4,1,a100,600,00:30:00,nodeox:flex\n",
				    conf);
	sim_run_t *r = run_sched(c, t, conf, conf, NULL);
	const sim_result_t *k = &r->jobs[job_at(t, 3)], *b = &r->jobs[job_at(t, 4)];
	assert_false(k->broadened);
	if (!k->reason || !strstr(k->reason, "kept: a100 expected free in about 3 min"))
		fail_msg("job 3: %s", k->reason ? k->reason : "(no reason)");
	assert_true(k->start >= 180);
	assert_int_equal(k->nodes[0], 'a');
	assert_true(b->broadened);
	if (!b->reason || !strstr(b->reason, "broadened: a100 expected free in about"))
		fail_msg("job 4: %s", b->reason ? b->reason : "(no reason)");
	assert_true(b->start >= 10 && b->start < 180); /* at the next pass, not after a1 */
	assert_int_equal(b->nodes[0], 'l');
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
	nodeox_conf_free(conf);
}

static void test_policy_identity(void **state)
{
	(void)state;
	sim_cluster_t *c = article_cluster();
	nodeox_conf_t *conf = NULL;
	char err[256];
	assert_int_equal(nodeox_conf_parse_string("Broaden=when-blocked\nScaleTimeLimit=yes\n"
						  "GpuType=a100 Feature=a100 Memory=80G Speed=1.0\n"
						  "GpuType=l40s Feature=l40s Memory=48G Speed=0.5\n"
						  "Group=ampere Types=a100,l40s\n",
						  "when-blocked.conf", &conf, err, sizeof(err)),
			 0);
	GString *csv = g_string_new("job_id,submit,gpus,nodes,gpu_type,run_time,time_limit,comment\n");
	uint32_t seed = 12345;
	for (int i = 1; i <= 300; i++) {
		seed = seed * 1103515245u + 12345u;
		uint32_t g = 1u << ((seed >> 16) % 3), ty = (seed >> 20) & 1, tag = (seed >> 22) % 3;
		g_string_append_printf(csv, "%d,%d,%u,%s,%s,%u,%u,%s\n", i, i * 20, g,
				       (seed >> 24) & 1 ? "1" : "", ty ? "l40s" : "a100",
				       300 + (seed >> 8) % 3000, 4000,
				       tag == 0   ? "nodeox:flex"
				       : tag == 1 ? "x nodeox:flex:uniform"
						  : "");
	}
	sim_trace_t *t = trace_from(csv->str, conf);
	g_string_free(csv, TRUE);
	decide_check_t k = { .conf = conf };
	sim_sched_opts_t o = { .params = c->params, .on_decide = check_decision, .decide_arg = &k };
	sim_run_t *r = run_sched(c, t, conf, conf, &o);
	size_t tagged = 0;
	for (size_t j = 0; j < t->njobs; j++)
		tagged += t->jobs[j].tagged;
	assert_int_equal(k.calls, (int)tagged);
	assert_true(k.rewrites > 0); /* some found their type busy ... */
	assert_true(k.keeps > 0);    /* ... and some could start as asked */
	sched_run_free(r);
	trace_free(t);
	nodeox_conf_free(conf);
	cluster_free(c);
}

static int setup(void **state)
{
	(void)state;
	tmpdir = g_dir_make_tmp("test_sched-XXXXXX", NULL);
	return tmpdir ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	remove(tmpdir);
	g_free(tmpdir);
	return 0;
}

/* The main pass's deep-queue limits (Slurm 22.05 and 24.11,
 * job_scheduler.c _schedule). Three one-GPU jobs submitted at 1 s on a
 * cluster with room for all: A1 and A2 in partition p1 (node a), B1 in p2
 * (node b). slurmctld started at 0, so its background loop's first pass
 * for them comes at 3 s (batch_sched_delay); the backfill pass comes at
 * 30 s, so whatever that main pass does not start waits until then. */
static int64_t main_limit_start(int which, uint32_t job)
{
	sim_cluster_t *c = cluster_from("NodeName=a CPUs=16 RealMemory=64000 Gres=gpu:4\n"
					"NodeName=b CPUs=16 RealMemory=64000 Gres=gpu:4\n"
					"PartitionName=p1 Nodes=a Default=YES MaxTime=UNLIMITED\n"
					"PartitionName=p2 Nodes=b MaxTime=UNLIMITED\n");
	sim_trace_t *t = trace_from("job_id,submit,partition,gpus,run_time,time_limit\n"
				    "1,1,p1,1,60,00:02:00\n" /* A1 */
				    "2,1,p1,1,60,00:02:00\n" /* A2 */
				    "3,1,p2,1,60,00:02:00\n",
				    NULL); /* B1 */
	sim_sched_opts_t o = { .params = c->params };
	if (which == 1)
		o.params.partition_job_depth = 1;
	else if (which == 2)
		o.params.default_queue_depth = 2;
	else if (which == 3)
		o.params.sched_max_job_start = 1;
	else if (which == 4) { /* depth 2, the whole queue every 10 s */
		o.params.default_queue_depth = 2;
		o.params.sched_interval_s = 10;
	} else if (which == 5) { /* the same, passes on 7, 17, ... s */
		o.params.default_queue_depth = 2;
		o.params.sched_interval_s = 10;
		o.params.limit_origin_s = 7;
	} else if (which == 6) { /* depth 2, the whole queue every 2 s */
		o.params.default_queue_depth = 2;
		o.params.sched_interval_s = 2;
	}
	return start_of(c, t, &o, job);
}

/* partition_job_depth=1: A2 is skipped (p1 has had its job) without
 * counting towards the depth, B1 still starts at once. */
static void test_partition_job_depth(void **state)
{
	(void)state;
	assert_int_equal(main_limit_start(0, 2), 3); /* no limit: all at 3 s */
	assert_int_equal(main_limit_start(0, 3), 3);
	assert_int_equal(main_limit_start(1, 2), 30);
	assert_int_equal(main_limit_start(1, 3), 3);
}

/* A job whose GPU nodes all lie in a failed partition, tested by
 * slurmctld on what is left: partitions gpu (l1) and short (l1, t1). L runs
 * on l1 until 100, T on t1 until 10; G (gpu, l40s), S1 (short, l40s) and S2
 * (short, t4) wait. At 10 T gives t1 back: the main pass fails G (gpu, so
 * l1 is taken away), then S1 has only t1 left, which is completing: short
 * fails too (ESLURM_NODES_BUSY), and S2 waits for the backfill pass at 30.
 * With T ending at 9 instead, t1 is no longer completing at the pass of 10
 * (S2's submission): short stays open and S2 starts then. */
static int64_t completing_start(int t_run)
{
	sim_cluster_t *c = cluster_from("SchedulerParameters=bf_interval=30\n"
					"NodeName=l1 CPUs=8 RealMemory=16000 Gres=gpu:l40s:1\n"
					"NodeName=t1 CPUs=8 RealMemory=16000 Gres=gpu:t4:1\n"
					"PartitionName=gpu Nodes=l1 Default=YES MaxTime=UNLIMITED\n"
					"PartitionName=short Nodes=l1,t1 MaxTime=UNLIMITED\n");
	char text[512];
	snprintf(text, sizeof(text),
		 "job_id,submit,gpus,gpu_type,partition,run_time,time_limit\n"
		 "1,0,1,l40s,gpu,100,00:02:00\n"  /* L */
		 "2,0,1,t4,short,%d,00:02:00\n"   /* T */
		 "3,1,1,l40s,gpu,10,00:02:00\n"   /* G */
		 "4,2,1,l40s,short,10,00:02:00\n" /* S1 */
		 "5,10,1,t4,short,10,00:02:00\n", /* S2 */
		 t_run);
	sim_trace_t *t = trace_from(text, NULL);
	return start_of(c, t, NULL, 5);
}

static void test_failed_partition_completing(void **state)
{
	(void)state;
	assert_int_equal(completing_start(10), 30);
	assert_int_equal(completing_start(9), 10);
}

/* default_queue_depth=2: A1 and A2 start, the pass stops before B1. */
static void test_default_queue_depth(void **state)
{
	(void)state;
	assert_int_equal(main_limit_start(2, 2), 3);
	assert_int_equal(main_limit_start(2, 3), 30);
}

/* sched_interval=10 with default_queue_depth=2: the pass over the whole
 * queue at 10 s (slurmctld's background loop, from its start: the time-limit
 * checks' origin) starts B1, which the pass for the submissions did not
 * reach; at 7 s when the loop's passes fall on 7, 17, ... s
 * (limit_origin_s = 7, after the submissions: only the phase of a
 * slurmctld up since long before, whose loop runs its pass for them at
 * once). With sched_interval=2 the first full pass is at 4, not 2: the
 * loop reads sched_interval in its first schedule(), the pass for the
 * submissions at 3, and waits Slurm's built-in 60 s until then (the
 * fidelity replays' logs: full passes on the seconds after it, two apart). */
static void test_sched_interval(void **state)
{
	(void)state;
	assert_int_equal(main_limit_start(4, 2), 3);
	assert_int_equal(main_limit_start(4, 3), 10);
	assert_int_equal(main_limit_start(5, 2), 1);
	assert_int_equal(main_limit_start(5, 3), 7);
	assert_int_equal(main_limit_start(6, 2), 3);
	assert_int_equal(main_limit_start(6, 3), 4);
}

/* A batch job's submission does not run the main pass (Slurm 22.05 and
 * 24.11: job_allocate only tests it, queue_job_scheduler counts it):
 * slurmctld's background loop runs one for it when batch_sched_delay has
 * passed since its last one. On an idle node, backfill every 30 s: A (10 s)
 * starts at once, B (11 s) waits for the pass at 13 s, C (20 s) starts at
 * once again; with batch_sched_delay=0, B starts at 11 s. */
static int64_t batch_start(int64_t delay, uint32_t job)
{
	sim_cluster_t *c = cluster_from("NodeName=a CPUs=16 RealMemory=64000 Gres=gpu:4\n"
					"PartitionName=p Nodes=a Default=YES MaxTime=UNLIMITED\n");
	sim_trace_t *t = trace_from("job_id,submit,gpus,run_time,time_limit\n"
				    "1,10,1,30,00:05:00\n"  /* A */
				    "2,11,1,30,00:05:00\n"  /* B */
				    "3,20,1,30,00:05:00\n", /* C */
				    NULL);
	sim_sched_opts_t o = { .params = c->params };
	o.params.limit_origin_s = -60;
	o.params.batch_sched_delay_s = delay;
	return start_of(c, t, &o, job);
}

static void test_batch_sched_delay(void **state)
{
	(void)state;
	assert_int_equal(batch_start(3, 1), 10);
	assert_int_equal(batch_start(3, 2), 13);
	assert_int_equal(batch_start(3, 3), 20);
	assert_int_equal(batch_start(0, 2), 11);
}

/* The full passes' grid before the trace's second 0: with the checks'
 * origin at -1 and the default 60 s interval the first full pass is at 59.
 * Job 2 waits for job 1's node; the run ends (it never did when the next
 * full pass came out as the second just passed, -1, and the event loop
 * stood still). */
static void test_sched_interval_origin(void **state)
{
	(void)state;
	sim_cluster_t *c = cluster_from("NodeName=a CPUs=16 RealMemory=64000 Gres=gpu:4\n"
					"PartitionName=p Nodes=a Default=YES MaxTime=UNLIMITED\n");
	sim_trace_t *t = trace_from("job_id,submit,gpus,run_time,time_limit\n"
				    "1,0,4,1,00:02:00\n"
				    "2,0,4,1,00:02:00\n",
				    NULL);
	for (int64_t org = -130; org <= 130; org += 7) {
		sim_sched_opts_t o = { .params = c->params };
		o.params.limit_origin_s = org;
		sim_run_t *r = run_sched(c, t, NULL, NULL, &o);
		assert_int_equal(r->jobs[0].start, 0);
		assert_true(r->jobs[1].start >= 1 && r->jobs[1].start <= 31);
		sched_run_free(r);
	}
	trace_free(t);
	cluster_free(c);
}

/* sched_max_job_start=1: the pass stops after starting A1. */
static void test_sched_max_job_start(void **state)
{
	(void)state;
	assert_int_equal(main_limit_start(3, 1), 3);
	assert_int_equal(main_limit_start(3, 2), 30);
	assert_int_equal(main_limit_start(3, 3), 30);
}

/* The backfill pass's limits (Slurm 22.05 and 24.11, backfill.c). One
 * 4-GPU node in partitions p1 and p2: R (2 GPUs, 1000 s) runs from 0; J (4
 * GPUs, u1, p1) waits for it from 1 s, and stops the main pass for both
 * partitions; S1 and S2 (1 GPU, 1 minute) could backfill beside J's
 * reservation at the pass at 30 s. Returns S1's and S2's starts. */
static void bf_limit_starts(int which, int limit, const char *s1, const char *s2, int64_t *st)
{
	sim_cluster_t *c = cluster_from("NodeName=n CPUs=16 RealMemory=64000 Gres=gpu:4\n"
					"PartitionName=p1 Nodes=n Default=YES MaxTime=UNLIMITED\n"
					"PartitionName=p2 Nodes=n MaxTime=UNLIMITED\n");
	char *csv = g_strdup_printf("job_id,submit,user,partition,gpus,run_time,time_limit\n"
				    "1,0,u0,p1,2,1000,00:20:00\n" /* R */
				    "2,1,u1,p1,4,60,00:02:00\n"   /* J */
				    "3,2,%s,1,60,00:01:00\n"      /* S1 */
				    "4,2,%s,1,60,00:01:00\n",
				    s1, s2); /* S2 */
	sim_trace_t *t = trace_from(csv, NULL);
	g_free(csv);
	sim_sched_opts_t o = { .params = c->params };
	if (which == 1)
		o.params.bf_max_job_test = limit;
	else if (which == 2)
		o.params.bf_max_job_user = limit;
	else if (which == 3)
		o.params.bf_max_job_part = limit;
	else if (which == 4)
		o.params.bf_max_job_user_part = limit;
	sim_run_t *r = run_sched(c, t, NULL, NULL, &o);
	assert_int_equal(r->jobs[job_at(t, 2)].start, 1000); /* J: when R ends */
	st[0] = r->jobs[job_at(t, 3)].start;
	st[1] = r->jobs[job_at(t, 4)].start;
	sched_run_free(r);
	trace_free(t);
	cluster_free(c);
}

/* bf_max_job_test=1: the pass tests J only; S1 and S2 wait for J. With
 * 3 (J, S1, S2) both backfill at 30 s. */
static void test_bf_max_job_test(void **state)
{
	(void)state;
	int64_t st[2];
	bf_limit_starts(1, 3, "u2,p1", "u3,p1", st);
	assert_int_equal(st[0], 30);
	assert_int_equal(st[1], 30);
	bf_limit_starts(1, 1, "u2,p1", "u3,p1", st);
	assert_true(st[0] >= 1000 && st[1] >= 1000);
}

/* A per-user or per-partition limit (which: as bf_limit_starts) of 1: J
 * counts against it, so S1 (s1) is skipped and S2 (s2) is not; without
 * the limit S1 backfills at 30 s. */
static void bf_limit_check(int which, const char *s1, const char *s2)
{
	int64_t st[2];
	bf_limit_starts(0, 0, s1, s2, st);
	assert_int_equal(st[0], 30);
	bf_limit_starts(which, 1, s1, s2, st);
	assert_true(st[0] >= 1000);
	assert_int_equal(st[1], 30);
}

/* bf_max_job_user=1: J counts for u1, so S1 (u1) is skipped, S2 (u2) not. */
static void test_bf_max_job_user(void **state)
{
	(void)state;
	bf_limit_check(2, "u1,p1", "u2,p1");
}

/* bf_max_job_part=1: J counts for p1, so S1 (p1) is skipped, S2 (p2) not. */
static void test_bf_max_job_part(void **state)
{
	(void)state;
	bf_limit_check(3, "u2,p1", "u3,p2");
}

/* bf_max_job_user_part=1: J counts for u1 in p1: S1 (u1, p1) is skipped,
 * S2 (u1, p2) not. */
static void test_bf_max_job_user_part(void **state)
{
	(void)state;
	bf_limit_check(4, "u1,p1", "u1,p2");
}

/* sched_run refuses inputs it cannot run, with an error naming the input
 * (before issue 24 it returned 0 whatever it was given): a parameter out of
 * range, and a trace out of submit order. */
static void test_run_errors(void **state)
{
	(void)state;
	sim_cluster_t *c = cluster_from("NodeName=n1 CPUs=16 RealMemory=64000 Gres=gpu:4\n"
					"PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED\n");
	sim_trace_t *t = trace_from("job_id,submit,gpus,run_time\n1,0,1,60\n2,10,1,60\n", NULL);
	sim_runtime_t m;
	char err[256] = "";
	assert_int_equal(runtime_model_init(&m, c, NULL, NULL, 0.05, err, sizeof(err)), 0);
	sim_sched_opts_t o = { .params = c->params, .runtime = &m };
	sim_run_t *r = (sim_run_t *)&o;
	o.params.bf_interval_s = 0;
	assert_int_equal(sched_run(c, t, &o, &r, err, sizeof(err)), -1);
	assert_null(r);
	assert_non_null(strstr(err, "bf_interval=0 s: out of range"));
	o.params = c->params;
	o.params.bf_window_min = (1ll << 40);
	assert_int_equal(sched_run(c, t, &o, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bf_window=1099511627776 minutes"));
	o.params = c->params;
	t->jobs[1].submit = -5; /* behind job 1 */
	assert_int_equal(sched_run(c, t, &o, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "job 2 is submitted before the job ahead of it"));
	t->jobs[1].submit = 10;
	assert_int_equal(sched_run(c, t, &o, &r, err, sizeof(err)), 0);
	assert_non_null(r);
	sched_run_free(r);
	runtime_model_free(&m);
	trace_free(t);
	cluster_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_article),
		cmocka_unit_test(test_backfill),
		cmocka_unit_test(test_time_limit),
		cmocka_unit_test(test_plan_without_limit),
		cmocka_unit_test(test_main_pass_partition_nodes),
		cmocka_unit_test(test_partition_time_limit),
		cmocka_unit_test(test_priority_tier),
		cmocka_unit_test(test_submit_before_end),
		cmocka_unit_test(test_priority),
		cmocka_unit_test(test_fair_share),
		cmocka_unit_test(test_priority_recalc_origin),
		cmocka_unit_test(test_priority_cpus_per_gpu),
		cmocka_unit_test(test_priority_size_cpus),
		cmocka_unit_test(test_priority_integer),
		cmocka_unit_test(test_priority_size_all_nodes),
		cmocka_unit_test(test_priority_partition),
		cmocka_unit_test(test_place_runs),
		cmocka_unit_test(test_place_sockets),
		cmocka_unit_test(test_will_run_batches),
		cmocka_unit_test(test_will_run_batches_large),
		cmocka_unit_test(test_blocked_shorter_limit),
		cmocka_unit_test(test_end_latency),
		cmocka_unit_test(test_soft_end),
		cmocka_unit_test(test_qos_factor),
		cmocka_unit_test(test_pass_after_start),
		cmocka_unit_test(test_reserve_whole_nodes),
		cmocka_unit_test(test_reserve_other_type),
		cmocka_unit_test(test_place_weight),
		cmocka_unit_test(test_rejections),
		cmocka_unit_test(test_runtime_model),
		cmocka_unit_test(test_policy_identity),
		cmocka_unit_test(test_run_errors),
		cmocka_unit_test(test_partition_job_depth),
		cmocka_unit_test(test_default_queue_depth),
		cmocka_unit_test(test_sched_interval),
		cmocka_unit_test(test_batch_sched_delay),
		cmocka_unit_test(test_failed_partition_completing),
		cmocka_unit_test(test_sched_interval_origin),
		cmocka_unit_test(test_sched_max_job_start),
		cmocka_unit_test(test_bf_max_job_test),
		cmocka_unit_test(test_bf_max_job_user),
		cmocka_unit_test(test_bf_max_job_part),
		cmocka_unit_test(test_bf_max_job_user_part),
		cmocka_unit_test(test_prefer),
		cmocka_unit_test(test_slurm_wr_relevant),
		cmocka_unit_test(test_slurm_wr_year_cap),
		cmocka_unit_test(test_slurm_one_node_first_fit),
		cmocka_unit_test(test_slurm_bf_end_roundup),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_when_faster),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
