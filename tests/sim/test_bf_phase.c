/*
 * test_bf_phase.c: the table of backfill pass phases a real run recorded
 * (sim/model/bf_phase.h): reading it (comments, errors with file:line), the phase
 * between entries (a drift across a second boundary unwrapped), and the
 * hand-over it decides in the scheduler: a job whose sub-second end comes
 * before its second's pass hands its nodes on in that second, one whose end
 * comes after it in the next.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <glib.h>

#include "tests/common/test_main.h"
#include "sim/model/bf_phase.h"
#include "sim/model/cluster.h"
#include "sim/model/runtime_model.h"
#include "sim/model/sched.h"
#include "sim/model/trace.h"

static char *write_tmp(const char *text)
{
	char *path = NULL;
	int fd = g_file_open_tmp("bf-phase-XXXXXX", &path, NULL);
	assert_true(fd >= 0);
	close(fd);
	assert_true(g_file_set_contents(path, text, -1, NULL));
	return path;
}

static sim_bf_phase_t *read_ok(const char *text)
{
	char *path = write_tmp(text), err[256];
	sim_bf_phase_t *p = NULL;
	if (bf_phase_read(path, &p, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	remove(path);
	g_free(path);
	return p;
}

/* The error for text, with the file name replaced by F. */
static char *read_err(const char *text)
{
	char *path = write_tmp(text), err[256];
	sim_bf_phase_t *p = NULL;
	assert_int_equal(bf_phase_read(path, &p, err, sizeof(err)), -1);
	assert_null(p);
	assert_true(!strncmp(err, path, strlen(path)));
	char *out = g_strdup_printf("F%s", err + strlen(path));
	remove(path);
	g_free(path);
	return out;
}

static void test_read_and_interpolate(void **state)
{
	(void)state;
	sim_bf_phase_t *p = read_ok("# second phase\n\n0 0.65\n100 0.95   # drifting\n200 0.15\n");
	assert_int_equal(p->n, 3);
	assert_float_equal(bf_phase_at(p, -50), 0.65, 1e-9); /* before: the first */
	assert_float_equal(bf_phase_at(p, 0), 0.65, 1e-9);
	assert_float_equal(bf_phase_at(p, 50), 0.80, 1e-9);
	assert_float_equal(bf_phase_at(p, 150), 0.05, 1e-9); /* 0.95 -> 1.15 across 1.0 */
	assert_float_equal(bf_phase_at(p, 200), 0.15, 1e-9);
	assert_float_equal(bf_phase_at(p, 900), 0.15, 1e-9); /* after: the last */
	bf_phase_free(p);
}

static void test_errors(void **state)
{
	(void)state;
	static const nodeox_test_case_t cases[] = {
		{ "0 0.5\n5 1.2\n", "F:2: phase must be a number in [0, 1)" },
		{ "0 0.5\n\n# c\n0 0.6\n", "F:4: seconds must be ascending" },
		{ "x 0.5\n", "F:1: expected SECOND PHASE (an integer trace second)" },
		{ "3\n", "F:1: expected SECOND PHASE (an integer trace second)" },
		{ "3 0.5 7\n", "F:1: phase must be a number in [0, 1)" },
		{ "3 -0.1\n", "F:1: phase must be a number in [0, 1)" },
		{ "# only a comment\n", "F:2: no entries" },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *e = read_err(cases[i].in);
		assert_string_equal(e, cases[i].want);
		g_free(e);
	}
	char err[256];
	sim_bf_phase_t *p = NULL;
	assert_int_equal(bf_phase_read("/nonexistent/bf-phase", &p, err, sizeof(err)), -1);
	assert_true(!strncmp(err, "/nonexistent/bf-phase: ", 23));
}

/* Job 1 (40 s, started in second 0) ends at 40 + phase(0) + 0.075 s; job 2
 * waits for its node. With passes at 0.30 all along, job 1 ends at 40.375,
 * after second 40's pass: job 2 starts at 41. With passes at 0.30 at 0 and
 * drifting to 0.50 by second 40, the end (40.375) comes before that pass:
 * job 2 starts at 40. */
static int64_t second_start(const char *table)
{
	char err[512];
	sim_cluster_t *c = NULL;
	if (cluster_read_strings("NodeName=a1 CPUs=16 RealMemory=64000 Features=a100 Gres=gpu:a100:4\n"
				 "PartitionName=p Nodes=ALL Default=YES MaxTime=UNLIMITED\n",
				 NULL, "s.conf", SIM_SLURM_2205, &c, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	char *tp = write_tmp("job_id,submit,gpus,nodes,run_time,time_limit\n"
			     "1,0,4,1,40,00:05:00\n"
			     "2,1,4,1,40,00:05:00\n");
	sim_trace_opts_t to = { 0 };
	sim_trace_t *t = NULL;
	if (trace_read(tp, &to, &t, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	remove(tp);
	g_free(tp);
	sim_bf_phase_t *ph = read_ok(table);
	sim_runtime_t m;
	assert_int_equal(runtime_model_init(&m, c, NULL, NULL, 0.05, err, sizeof(err)), 0);
	sim_sched_opts_t o = { .params = c->params, .runtime = &m, .label = "test" };
	o.params.bf_interval_s = 1;
	o.params.end_latency_s = 0.9;
	o.params.bf_phase = ph;
	sim_run_t *r = NULL;
	assert_int_equal(sched_run(c, t, &o, &r, err, sizeof(err)), 0);
	assert_int_equal(r->jobs[0].start, 0);
	assert_int_equal(r->jobs[0].end, 40);
	int64_t start = r->jobs[1].start;
	sched_run_free(r);
	runtime_model_free(&m);
	bf_phase_free(ph);
	trace_free(t);
	cluster_free(c);
	return start;
}

static void test_hand_over(void **state)
{
	(void)state;
	assert_int_equal(second_start("0 0.30\n"), 41);
	assert_int_equal(second_start("0 0.30\n40 0.50\n"), 40);
}

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_read_and_interpolate), cmocka_unit_test(test_errors),
		 cmocka_unit_test(test_hand_over))
