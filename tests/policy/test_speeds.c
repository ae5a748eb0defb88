/*
 * test_speeds.c: cmocka tests of the speed table (policy/policy_speeds.c)
 * and of the decision that uses it (policy_decide.c through conf->speeds):
 * the format's header and entries, each error naming FILE:LINE, the file
 * checks (not regular, too large), the O(1) lookup and its key, the
 * workload name (tag's workload= or the job name), and a job decided with
 * its workload's, user's or account's entry for MinSpeed, ScaleTimeLimit
 * and Broaden=when-faster, with the reason saying which speed and whence;
 * a job without an entry is decided exactly as without a table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/common/test_main.h"
#include "policy/policy.h"

#define HEAD "nodeox-speeds v=1 made=2026-12-04T10:00:00Z from=test\n"

static nodeox_speeds_t *table(const char *text)
{
	char err[NODEOX_ERR_MAX];
	nodeox_speeds_t *t;

	if (nodeox_speeds_parse_string(text, "t.speeds", &t, err, sizeof(err)))
		fail_msg("table: %s", err);
	return t;
}

static void assert_bad(const char *text, const char *want)
{
	char err[NODEOX_ERR_MAX];
	nodeox_speeds_t *t = (nodeox_speeds_t *)1;

	if (nodeox_speeds_parse_string(text, "t.speeds", &t, err, sizeof(err)) != -1 || t)
		fail_msg("accepted: %s", text);
	if (!strstr(err, want))
		fail_msg("want \"%s\", got \"%s\"", want, err);
}

static void test_format(void **state)
{
	nodeox_speeds_t *t = table("# made by hand\n\n" HEAD "# scope name asked run speed jobs spread\n"
				   "workload bert-ft a100 l40s 0.41 37 0.06   # a comment\n"
				   "user alice A100 v100 0.6 1 0\n"
				   "account phys a100 l40s 1.5 12 0.1\n");
	const nodeox_speed_t *e;

	(void)state;
	assert_int_equal(nodeox_speeds_count(t), 3);
	assert_string_equal(nodeox_speeds_made(t), "2026-12-04T10:00:00Z");
	assert_string_equal(nodeox_speeds_from(t), "test");
	assert_string_equal(nodeox_speeds_path(t), "t.speeds");
	e = nodeox_speeds_find(t, NODEOX_SCOPE_WORKLOAD, "bert-ft", "a100", "l40s");
	assert_non_null(e);
	assert_true(e->speed == 0.41 && e->jobs == 37 && e->spread == 0.06 && e->line == 5);
	/* types compare case-insensitively, names exactly, and the scope counts */
	assert_non_null(nodeox_speeds_find(t, NODEOX_SCOPE_WORKLOAD, "bert-ft", "A100", "L40S"));
	assert_null(nodeox_speeds_find(t, NODEOX_SCOPE_WORKLOAD, "BERT-FT", "a100", "l40s"));
	assert_null(nodeox_speeds_find(t, NODEOX_SCOPE_USER, "bert-ft", "a100", "l40s"));
	assert_null(nodeox_speeds_find(t, NODEOX_SCOPE_WORKLOAD, "bert-ft", "l40s", "a100"));
	assert_non_null(nodeox_speeds_find(t, NODEOX_SCOPE_USER, "alice", "a100", "v100"));
	assert_null(nodeox_speeds_find(t, NODEOX_NSCOPES, "alice", "a100", "v100"));
	assert_null(nodeox_speeds_find(NULL, NODEOX_SCOPE_USER, "alice", "a100", "v100"));
	assert_null(nodeox_speeds_find(t, NODEOX_SCOPE_USER, NULL, "a100", "v100"));
	assert_string_equal(nodeox_scope_name(NODEOX_SCOPE_ACCOUNT), "account");
	nodeox_speeds_free(t);
	/* a header alone is an empty table */
	t = table(HEAD);
	assert_int_equal(nodeox_speeds_count(t), 0);
	assert_null(nodeox_speeds_find(t, NODEOX_SCOPE_USER, "alice", "a100", "v100"));
	nodeox_speeds_free(t);
}

static void test_errors(void **state)
{
	(void)state;
	assert_bad("", "t.speeds: no header");
	assert_bad("workload w a100 l40s 0.5 3 0\n", "t.speeds:1: expected the header");
	assert_bad("nodeox-speeds v=2 made=x from=y\n",
		   "t.speeds:1: header: v=2 is a version this nodeox does not read");
	assert_bad("nodeox-speeds made=x from=y\n", "expected v=1");
	assert_bad("nodeox-speeds v=1 from=y\n", "made= missing");
	assert_bad("nodeox-speeds v=1 made=x\n", "from= missing");
	assert_bad("nodeox-speeds v=1 made=x from=y color=red\n", "unknown word 'color=red'");
	assert_bad(HEAD "workload w a100 l40s 0.5 3\n", "t.speeds:2: expected 7 words");
	assert_bad(HEAD "team w a100 l40s 0.5 3 0\n", "t.speeds:2: unknown scope 'team'");
	assert_bad(HEAD "workload w;x a100 l40s 0.5 3 0\n", "bad workload 'w;x'");
	assert_bad(HEAD "user u a100 a100 0.5 3 0\n", "asked and run are the same type");
	assert_bad(HEAD "user u a100 l40s 0 3 0\n", "speed '0'");
	assert_bad(HEAD "user u a100 l40s -1 3 0\n", "speed '-1'");
	assert_bad(HEAD "user u a100 l40s nan 3 0\n", "speed 'nan'");
	assert_bad(HEAD "user u a100 l40s inf 3 0\n", "speed 'inf'");
	assert_bad(HEAD "user u a100 l40s 1001 3 0\n", "speed '1001'");
	assert_bad(HEAD "user u a100 l40s 0.5 0 0\n", "jobs '0'");
	assert_bad(HEAD "user u a100 l40s 0.5 2.5 0\n", "jobs '2.5'");
	assert_bad(HEAD "user u a100 l40s 0.5 3 -0.1\n", "spread '-0.1'");
	assert_bad(HEAD "user u a100 l40s 0.5 3 0\n\nuser u A100 L40S 0.7 4 0\n",
		   "t.speeds:4: user u A100->L40S given twice (first at line 2)");
	assert_bad(HEAD "user u a100 l40s 0.5 3 0\x01\n", "t.speeds:2: control byte 0x01");
}

static void test_file(void **state)
{
	char path[] = "/tmp/test_speeds_XXXXXX", err[NODEOX_ERR_MAX];
	nodeox_speeds_t *t = NULL;
	int fd = mkstemp(path);
	FILE *f;
	size_t i;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, HEAD "workload w a100 l40s 0.5 3 0\n");
	fclose(f);
	assert_int_equal(nodeox_speeds_parse_file(path, &t, err, sizeof(err)), 0);
	assert_non_null(nodeox_speeds_find(t, NODEOX_SCOPE_WORKLOAD, "w", "a100", "l40s"));
	nodeox_speeds_free(t);
	/* past NODEOX_SPEEDS_FILE_MAX: refused whole, by size */
	f = fopen(path, "w");
	fputs(HEAD, f);
	for (i = 0; i < NODEOX_SPEEDS_FILE_MAX / 64 + 1; i++)
		fprintf(f, "# %61s\n", ""); /* 64 bytes */
	fclose(f);
	assert_int_equal(nodeox_speeds_parse_file(path, &t, err, sizeof(err)), -1);
	assert_null(t);
	assert_non_null(strstr(err, "larger than 8 MiB"));
	unlink(path);
	assert_int_equal(nodeox_speeds_parse_file("/tmp", &t, err, sizeof(err)), -1);
	assert_string_equal(err, "/tmp: not a regular file");
	assert_int_equal(nodeox_speeds_parse_file("/nonexistent/x.speeds", &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/x.speeds: cannot open"));
}

/* Many entries: each found, none confused with another. */
static void test_many(void **state)
{
	size_t n = 20000, i, cap = n * 48 + 128;
	char *text = malloc(cap), name[32];
	nodeox_speeds_t *t;
	int len;

	(void)state;
	len = snprintf(text, cap, HEAD);
	for (i = 0; i < n; i++)
		len += snprintf(text + len, cap - (size_t)len, "user u%zu a100 l40s %zu.5 %zu 0\n", i,
				i % 900, i + 1);
	t = table(text);
	assert_int_equal(nodeox_speeds_count(t), n);
	for (i = 0; i < n; i++) {
		const nodeox_speed_t *e;

		snprintf(name, sizeof(name), "u%zu", i);
		e = nodeox_speeds_find(t, NODEOX_SCOPE_USER, name, "a100", "l40s");
		assert_non_null(e);
		assert_int_equal(e->jobs, i + 1);
		assert_null(nodeox_speeds_find(t, NODEOX_SCOPE_ACCOUNT, name, "a100", "l40s"));
	}
	nodeox_speeds_free(t);
	free(text);
}

static void test_workload_name(void **state)
{
	nodeox_tag_t tag;
	char err[NODEOX_ERR_MAX], w[NODEOX_NAME_MAX];

	(void)state;
	assert_int_equal(
		nodeox_tag_parse("nodeox:flex:workload=bert-ft:uniform", NULL, &tag, err, sizeof(err)), 1);
	assert_string_equal(tag.workload, "bert-ft");
	nodeox_speeds_workload(&tag, "jobname", w, sizeof(w));
	assert_string_equal(w, "bert-ft");
	assert_int_equal(nodeox_tag_parse("nodeox:flex", NULL, &tag, err, sizeof(err)), 1);
	nodeox_speeds_workload(&tag, "train.sh", w, sizeof(w));
	assert_string_equal(w, "train.sh");
	nodeox_speeds_workload(&tag, "my job", w, sizeof(w)); /* not a name: no workload */
	assert_string_equal(w, "");
	nodeox_speeds_workload(&tag, NULL, w, sizeof(w));
	assert_string_equal(w, "");
	assert_int_equal(nodeox_tag_parse("nodeox:flex:workload=", NULL, &tag, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bad workload name"));
	assert_int_equal(nodeox_tag_parse("nodeox:flex:workload=a%b", NULL, &tag, err, sizeof(err)), -1);
	assert_int_equal(nodeox_tag_parse("nodeox:flex:workload=a:workload=b", NULL, &tag, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "workload= given twice"));
	assert_int_equal(
		nodeox_tag_parse(
			"nodeox:flex:workload=x123456789x123456789x123456789x123456789x123456789x12345678"
			"9x1234",
			NULL, &tag, err, sizeof(err)),
		-1);
}

/* The writer's lines read back as written; what the reader refuses is
 * refused by the writer. */
static void test_writer(void **state)
{
	nodeox_speed_t e = { NODEOX_SCOPE_ACCOUNT, "phys", "a100", "l40s", 0.4123456789, 37, 0.05, 0 };
	char text[512], line[256];
	const nodeox_speed_t *r;
	nodeox_speeds_t *t;
	int n;

	(void)state;
	n = nodeox_speeds_format_header("2026-12-05T00:00:00Z", "sacct:2026-11", text, sizeof(text));
	assert_int_equal(n, (int)strlen(text));
	assert_string_equal(text, "nodeox-speeds v=1 made=2026-12-05T00:00:00Z from=sacct:2026-11\n");
	n = nodeox_speeds_format_entry(&e, line, sizeof(line));
	assert_int_equal(n, (int)strlen(line));
	assert_string_equal(line, "account phys a100 l40s 0.412346 37 0.05\n");
	strcat(text, line);
	t = table(text);
	r = nodeox_speeds_find(t, NODEOX_SCOPE_ACCOUNT, "phys", "a100", "l40s");
	assert_non_null(r);
	assert_true(r->speed == 0.412346 && r->jobs == 37 && r->spread == 0.05);
	nodeox_speeds_free(t);
	assert_int_equal(nodeox_speeds_format_header("", "x", text, sizeof(text)), -1);
	assert_int_equal(nodeox_speeds_format_header("a b", "x", text, sizeof(text)), -1);
	assert_int_equal(nodeox_speeds_format_header("a#b", "x", text, sizeof(text)), -1);
	assert_string_equal(text, "");
	assert_int_equal(nodeox_speeds_format_entry(&e, line, 10), -1); /* no room */
	snprintf(e.name, sizeof(e.name), "my job");
	assert_int_equal(nodeox_speeds_format_entry(&e, line, sizeof(line)), -1);
	snprintf(e.name, sizeof(e.name), "ok");
	snprintf(e.run, sizeof(e.run), "A100");
	assert_int_equal(nodeox_speeds_format_entry(&e, line, sizeof(line)), -1);
	snprintf(e.run, sizeof(e.run), "v100");
	e.jobs = 0;
	assert_int_equal(nodeox_speeds_format_entry(&e, line, sizeof(line)), -1);
	e.jobs = 1;
	e.speed = 0;
	assert_int_equal(nodeox_speeds_format_entry(&e, line, sizeof(line)), -1);
}

/* SpeedTable= of nodeox.conf: relative to the conf's directory. */
static void test_conf_key(void **state)
{
	char err[NODEOX_ERR_MAX];
	nodeox_conf_t *c;

	(void)state;
	assert_int_equal(nodeox_conf_parse_string("SpeedTable=speeds\n", "/etc/slurm/nodeox.conf", &c, err,
						  sizeof(err)),
			 0);
	assert_string_equal(c->speed_table, "/etc/slurm/speeds");
	assert_null(c->speeds);
	nodeox_conf_free(c);
	assert_int_equal(nodeox_conf_parse_string("SpeedTable=/var/lib/nodeox/speeds\n",
						  "/etc/slurm/nodeox.conf", &c, err, sizeof(err)),
			 0);
	assert_string_equal(c->speed_table, "/var/lib/nodeox/speeds");
	nodeox_conf_free(c);
	assert_int_equal(nodeox_conf_parse_string("SpeedTable=s\n", "nodeox.conf", &c, err, sizeof(err)), 0);
	assert_string_equal(c->speed_table, "s");
	nodeox_conf_free(c);
	assert_int_equal(nodeox_conf_parse_string("", "nodeox.conf", &c, err, sizeof(err)), 0);
	assert_string_equal(c->speed_table, "");
	nodeox_conf_free(c);
	assert_int_equal(
		nodeox_conf_parse_string("SpeedTable=a\nSpeedTable=b\n", "n.conf", &c, err, sizeof(err)), -1);
	assert_string_equal(err, "n.conf:2: SpeedTable= given twice (first at line 1)");
	assert_int_equal(nodeox_conf_parse_string("SpeedTable=a\x7f\n", "n.conf", &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "n.conf:1: SpeedTable=a?: not a printable path"));
}

static const char *base_conf = "GpuType=a100 Speed=1.0\n"
			       "GpuType=l40s Speed=0.5\n"
			       "GpuType=v100 Speed=0.8\n"
			       "Group=g Types=a100,l40s,v100\n";

static nodeox_decision_t d;

static void decide(const char *extra, const nodeox_speeds_t *t, const nodeox_job_t *job,
		   const nodeox_cluster_t *cl)
{
	char text[2048], err[NODEOX_ERR_MAX];
	nodeox_conf_t *c;

	snprintf(text, sizeof(text), "%s%s", base_conf, extra);
	if (nodeox_conf_parse_string(text, "test.conf", &c, err, sizeof(err)))
		fail_msg("conf: %s", err);
	c->speeds = t;
	nodeox_policy_decide(c, job, cl, &d);
	nodeox_conf_free(c);
}

static void assert_reason(const char *want)
{
	if (!strstr(d.reason, want))
		fail_msg("want \"%s\" in %s \"%s\"", want, nodeox_action_name(d.action), d.reason);
}

/* ScaleTimeLimit and MinSpeed with the job's entries, in the order
 * workload, user, account; Speed= for the rest. */
static void test_decide_scopes(void **state)
{
	nodeox_speeds_t *t = table(HEAD "workload bert-ft a100 l40s 0.25 37 0.05\n"
					"user alice a100 l40s 0.4 5 0.1\n"
					"account phys a100 l40s 0.8 9 0.1\n"
					"account phys a100 v100 0.9 2 0\n");
	nodeox_job_t job = { .comment = "nodeox:flex:workload=bert-ft",
			     .name = "other",
			     .user = "alice",
			     .account = "phys",
			     .tres_per_node = "gres:gpu:a100:1",
			     .time_limit = 100 };

	(void)state;
	decide("", t, &job, NULL);
	assert_int_equal(d.action, NODEOX_REWRITE);
	assert_int_equal(d.time_limit, 400); /* 100 / 0.25 */
	assert_reason("(l40s at 0.25 for workload bert-ft, from 37 jobs; v100 at 0.9 for account phys, "
		      "from 2 jobs)");
	assert_int_equal(d.speed_from[1], NODEOX_SCOPE_WORKLOAD);
	assert_int_equal(d.speed_from[2], NODEOX_SCOPE_ACCOUNT);
	assert_int_equal(d.speed_from[0], -1);
	/* the job name is the workload when the tag names none: none here, so the user's */
	job.comment = "nodeox:flex";
	decide("", t, &job, NULL);
	assert_int_equal(d.time_limit, 250);
	assert_reason("l40s at 0.4 for user alice, from 5 jobs");
	job.name = "bert-ft";
	decide("", t, &job, NULL);
	assert_int_equal(d.time_limit, 400);
	/* then the account's */
	job.name = NULL;
	job.user = "bob";
	decide("", t, &job, NULL);
	assert_int_equal(d.time_limit, 125);
	assert_reason("l40s at 0.8 for account phys, from 9 jobs");
	/* MinSpeed with the workload's speed: l40s at 0.25 is left out, v100 (0.9) stays */
	job.name = "bert-ft";
	decide("MinSpeed=0.3\n", t, &job, NULL);
	assert_int_equal(d.action, NODEOX_REWRITE);
	assert_string_equal(d.features, "a100|v100");
	assert_int_equal(d.time_limit, 112); /* 100 / 0.9, rounded up */
	decide("MinSpeed=0.95\n", t, &job, NULL);
	assert_int_equal(d.action, NODEOX_KEEP);
	assert_reason("(l40s at 0.25 for workload bert-ft, from 37 jobs: below MinSpeed; v100 at 0.9 for "
		      "account phys, from 2 jobs: below MinSpeed)");
	/* a table saying a type is faster than Speed= says lets it in past MinSpeed */
	nodeox_speeds_free(t);
	t = table(HEAD "workload w a100 l40s 0.9 4 0\n");
	job.name = "w";
	decide("MinSpeed=0.7\n", t, &job, NULL);
	assert_string_equal(d.features, "a100|l40s|v100");
	assert_int_equal(d.time_limit, 125); /* v100's Speed=, now the slowest */
	nodeox_speeds_free(t);
}

/* A job with no entry: decided exactly as without a table. */
static void test_decide_no_entry(void **state)
{
	nodeox_speeds_t *t = table(HEAD "workload bert-ft a100 l40s 0.25 37 0.05\n"
					"user alice v100 l40s 0.1 5 0.1\n");
	nodeox_job_t job = { .comment = "nodeox:flex:mem=1M",
			     .name = "other",
			     .user = "alice",
			     .account = "phys",
			     .tres_per_node = "gres:gpu:a100:1",
			     .time_limit = 100 };
	const char *extras[] = { "", "MinSpeed=0.6\n", "ScaleTimeLimit=no\n", "Broaden=when-blocked\n" };
	nodeox_decision_t without;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(extras) / sizeof(extras[0]); i++) {
		decide(extras[i], NULL, &job, NULL);
		without = d;
		decide(extras[i], t, &job, NULL);
		assert_memory_equal(&d, &without, sizeof(d));
	}
	/* an untagged job: nothing at all, table or not */
	job.comment = "plain";
	job.name = "bert-ft";
	decide("", t, &job, NULL);
	assert_int_equal(d.action, NODEOX_PASS);
	nodeox_speeds_free(t);
}

/* Broaden=when-faster estimates the broadened finish with the job's speed. */
static void test_decide_when_faster(void **state)
{
	static const nodeox_node_t nodes[] = {
		{ "a1", "a100", "gpu", "a100", 4, 0, true },
		{ "l1", "l40s", "gpu", "l40s", 4, 0, true },
	};
	nodeox_running_t run[2] = { { 1, 4, 60 }, { 0, 4, 7200 } };
	uint32_t scratch[NODEOX_ESTIMATE_SCRATCH(2)];
	nodeox_cluster_t cl = { nodes, 2, run, 2, NULL, 0, scratch, false, false, NULL, 0, false, NULL };
	nodeox_speeds_t *t = table(HEAD "workload slow a100 l40s 0.2 10 0.1\n");
	nodeox_job_t job = { .comment = "nodeox:flex:types=a100+l40s",
			     .name = "fast",
			     .partition = "gpu",
			     .tres_per_node = "gres:gpu:a100:4",
			     .time_limit = 60 };

	(void)state;
	/* Speed=: kept finishes at 120+60 min, broadened at 1+120: broadened */
	decide("Broaden=when-faster\n", t, &job, &cl);
	assert_int_equal(d.action, NODEOX_REWRITE);
	assert_int_equal(d.estimate.broad_finish, 60 + 7200);
	/* its workload runs l40s at 0.2: broadened finishes at 1+300 min, kept */
	job.name = "slow";
	decide("Broaden=when-faster\n", t, &job, &cl);
	assert_int_equal(d.action, NODEOX_KEEP);
	assert_int_equal(d.estimate.broad_finish, 60 + 18000);
	assert_reason("(l40s at 0.2 for workload slow, from 10 jobs)");
	nodeox_speeds_free(t);
}

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_format), cmocka_unit_test(test_errors),
		 cmocka_unit_test(test_file), cmocka_unit_test(test_many),
		 cmocka_unit_test(test_workload_name), cmocka_unit_test(test_conf_key),
		 cmocka_unit_test(test_writer), cmocka_unit_test(test_decide_scopes),
		 cmocka_unit_test(test_decide_no_entry), cmocka_unit_test(test_decide_when_faster))
