/*
 * test_trace.c: the CSV trace reader: columns by name in any order with
 * unknown ones ignored, quoting, ISO-8601 and Slurm time formats, the tag
 * read by the plugin's parser, and every error naming FILE:LINE and column
 * (or counted with skip_bad).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <glib.h>

#include "tests/common/test_main.h"
#include "sim/model/trace.h"

static char *tmpdir;

static char *data_path(const char *name)
{
	const char *top = getenv("top_srcdir");
	return g_build_filename(top ? top : ".", "tests", "sim", "data", name, NULL);
}

static char *write_tmp(const char *name, const char *text)
{
	char *p = g_build_filename(tmpdir, name, NULL);
	assert_true(g_file_set_contents(p, text, -1, NULL));
	return p;
}

static nodeox_conf_t *article_conf(void)
{
	char *p = data_path("article/nodeox.conf"), err[256];
	nodeox_conf_t *conf = NULL;
	assert_int_equal(nodeox_conf_parse_file(p, &conf, err, sizeof(err)), 0);
	g_free(p);
	return conf;
}

static void test_iso8601(void **state)
{
	(void)state;
	int64_t t;
	assert_int_equal(trace_parse_iso8601("1970-01-01T00:00:00", &t), 0);
	assert_int_equal(t, 0);
	assert_int_equal(trace_parse_iso8601("2024-05-01T10:00:00Z", &t), 0);
	assert_int_equal(t, 1714557600);
	assert_int_equal(trace_parse_iso8601("2024-05-01 12:00:00+02:00", &t), 0);
	assert_int_equal(t, 1714557600);
	assert_int_equal(trace_parse_iso8601("2024-05-01T09:30:00.250-0030", &t), 0);
	assert_int_equal(t, 1714557600);
	assert_int_equal(trace_parse_iso8601("2024-02-29T00:00:00", &t), 0); /* leap day */
	assert_int_equal(t, 1709164800);
	assert_int_equal(trace_parse_iso8601("2024-13-01T00:00:00", &t), -1);
	assert_int_equal(trace_parse_iso8601("2024-05-01", &t), -1);
	assert_int_equal(trace_parse_iso8601("2024-05-01T10:00", &t), -1);
	assert_int_equal(trace_parse_iso8601("2024-05-01T10:00:00Q", &t), -1);
}

static void test_durations(void **state)
{
	(void)state;
	int64_t t;
	assert_int_equal(trace_parse_duration("3600", &t), 0);
	assert_int_equal(t, 3600);
	assert_int_equal(trace_parse_duration("01:30:00", &t), 0);
	assert_int_equal(t, 5400);
	assert_int_equal(trace_parse_duration("90:00", &t), 0); /* MM:SS */
	assert_int_equal(t, 5400);
	assert_int_equal(trace_parse_duration("2-03:04:05", &t), 0);
	assert_int_equal(t, 2 * 86400 + 3 * 3600 + 4 * 60 + 5);
	assert_int_equal(trace_parse_duration("1-12", &t), 0); /* D-HH */
	assert_int_equal(t, 86400 + 12 * 3600);
	assert_int_equal(trace_parse_duration("1-00:30", &t), 0); /* D-HH:MM */
	assert_int_equal(t, 86400 + 1800);
	assert_int_equal(trace_parse_duration("UNLIMITED", &t), 0);
	assert_true(t == SIM_TIME_NONE);
	assert_int_equal(trace_parse_slurm_minutes("90", &t), 0); /* slurm.conf: minutes */
	assert_int_equal(t, 5400);
	assert_int_equal(trace_parse_duration("1:60:00", &t), -1);
	assert_int_equal(trace_parse_duration("1:2:3:4", &t), -1);
	assert_int_equal(trace_parse_duration("-5", &t), -1);
	assert_int_equal(trace_parse_duration("1h", &t), -1);
}

static void test_good_trace(void **state)
{
	(void)state;
	nodeox_conf_t *conf = article_conf();
	sim_trace_opts_t o = { .conf = conf };
	sim_trace_t *t = NULL;
	char err[512], *p = data_path("trace-good.csv");
	assert_int_equal(trace_read(p, &o, &t, err, sizeof(err)), 0);
	assert_int_equal(t->njobs, 3);
	assert_int_equal(t->epoch, 1714557600);
	/* sorted by submit, ties in file order: bob (line 3), carol (4), alice (2) */
	assert_string_equal(t->jobs[0].user, "bob");
	assert_int_equal(t->jobs[0].submit, 0);
	assert_int_equal(t->jobs[0].run_time, 5400);
	assert_int_equal(t->jobs[0].time_limit, 5400);
	assert_string_equal(t->jobs[0].comment, "say \"hi\"");
	assert_null(t->jobs[0].gpu_type);
	assert_int_equal(t->jobs[0].nodes, 0);
	assert_false(t->jobs[0].tagged);
	assert_string_equal(t->jobs[1].user, "carol");
	assert_int_equal(t->jobs[1].line, 4);
	assert_string_equal(t->jobs[1].gpu_type, "l40s");
	assert_string_equal(t->jobs[2].user, "alice");
	assert_int_equal(t->jobs[2].submit, 30);
	assert_int_equal(t->jobs[2].time_limit, 86400);
	assert_int_equal(t->jobs[2].gpus, 4);
	assert_string_equal(t->jobs[2].partition, "gpu");
	assert_true(t->jobs[2].tagged);
	assert_int_equal(t->jobs[2].id, 1); /* row number without job_id */
	trace_free(t);
	g_free(p);
	nodeox_conf_free(conf);
}

typedef struct {
	const char *text;
	const char *expect; /* after "PATH:" */
} bad_t;

static void test_bad_rows(void **state)
{
	(void)state;
	nodeox_conf_t *conf = article_conf();
	static const bad_t bad[] = {
		{ "submit,gpus\n0,1\n", "1: column run_time: missing from the header" },
		{ "submit,gpus,run_time,gpus\n", "1: column gpus: appears twice in the header" },
		{ "submit,gpus,run_time\n0,1,60\n0,x,60\n", "3: column gpus: 'x' is not a GPU count" },
		{ "submit,gpus,run_time\n0,-1,60\n", "2: column gpus: '-1' is not a GPU count" },
		{ "submit,gpus,run_time\nyesterday,1,60\n",
		  "2: column submit: 'yesterday' is neither seconds nor an ISO-8601 time" },
		{ "submit,gpus,run_time\n2024-05-01T25:00:00,1,60\n",
		  "2: column submit: '2024-05-01T25:00:00'" },
		{ "submit,gpus,run_time\n0,1,60\n2024-05-01T10:00:00,1,60\n",
		  "3: column submit: ISO-8601 time after rows in seconds" },
		{ "submit,gpus,run_time\n0,1,1:99:00\n", "2: column run_time: '1:99:00' is not a duration" },
		{ "submit,gpus,run_time,time_limit\n0,1,60,soon\n", "2: column time_limit: 'soon'" },
		{ "submit,gpus,run_time,nodes\n0,3,60,2\n",
		  "2: column nodes: 3 GPUs do not divide over 2 nodes" },
		{ "submit,gpus,run_time,flex\n0,1,60,yes\n", "2: column flex: 'yes' is not 0 or 1" },
		{ "submit,gpus,run_time,mem\n0,1,60,lots\n", "2: column mem: 'lots' is not a size" },
		{ "submit,gpus,run_time,comment\n0,1,60,nodeox:flex:bogus\n", "2: column comment: " },
		{ "submit,gpus,run_time,comment\n0,1,60,\"open\n", "2: unterminated quoted field" },
		{ "submit,gpus,run_time,gpu_type\n0,0,60,a100\n",
		  "2: column gpu_type: type 'a100' given for a job with 0 GPUs" },
		{ "submit,gpus,run_time,cpus_per_gpu\n0,1,60,0\n",
		  "2: column cpus_per_gpu: '0' is not a CPU count of at least 1" },
		{ "submit,gpus,run_time,mem_per_gpu\n0,1,60,much\n",
		  "2: column mem_per_gpu: 'much' is not a size of at least 1M" },
		{ "submit,gpus,run_time,mem,mem_per_gpu\n0,1,60,8G,4G\n",
		  "2: column mem_per_gpu: given with mem: sbatch takes one of --mem and --mem-per-gpu" },
		{ "submit,gpus,run_time,cpus_per_gpu\n0,0,60,2\n",
		  "2: column cpus_per_gpu: given for a job with 0 GPUs" },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		char name[32], err[512];
		snprintf(name, sizeof(name), "bad%zu.csv", i);
		char *p = write_tmp(name, bad[i].text);
		char *want = g_strdup_printf("%s:%s", p, bad[i].expect);
		sim_trace_opts_t o = { .conf = conf };
		sim_trace_t *t = (sim_trace_t *)&o;
		assert_int_equal(trace_read(p, &o, &t, err, sizeof(err)), -1);
		assert_null(t);
		if (strncmp(err, want, strlen(want)))
			fail_msg("case %zu: got '%s', want prefix '%s'", i, err, want);
		g_free(want);
		g_free(p);
	}
	char err[256];
	sim_trace_t *t;
	assert_int_equal(trace_read("/nonexistent/x.csv", NULL, &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/x.csv"));
	nodeox_conf_free(conf);
}

/* cpus_per_gpu and mem_per_gpu (sbatch --cpus-per-gpu, --mem-per-gpu), and
 * nodeox-sim's --cpus-per-gpu / --mem-per-gpu for rows that give neither
 * those nor cpus / mem. */
static void test_per_gpu(void **state)
{
	(void)state;
	char *p = write_tmp("pergpu.csv", "submit,gpus,run_time,cpus,cpus_per_gpu,mem,mem_per_gpu\n"
					  "0,2,60,,3,,40G\n0,2,60,4,,16G,\n0,2,60,,,,\n0,0,60,,,,\n");
	char err[256];
	sim_trace_opts_t o = { .cpus_per_gpu = 8, .mem_per_gpu_mb = 1024 };
	sim_trace_t *t = NULL;
	assert_int_equal(trace_read(p, &o, &t, err, sizeof(err)), 0);
	assert_int_equal(t->jobs[0].cpus_per_gpu, 3);
	assert_int_equal(t->jobs[0].mem_per_gpu_mb, 40 * 1024);
	assert_int_equal(t->jobs[1].cpus, 4);
	assert_int_equal(t->jobs[1].cpus_per_gpu, 0); /* cpus given: no option */
	assert_int_equal(t->jobs[1].mem_mb, 16 * 1024);
	assert_int_equal(t->jobs[1].mem_per_gpu_mb, 0);
	assert_int_equal(t->jobs[2].cpus_per_gpu, 8); /* neither: the options */
	assert_int_equal(t->jobs[2].mem_per_gpu_mb, 1024);
	assert_int_equal(t->jobs[3].cpus_per_gpu, 0); /* no GPUs: none */
	trace_free(t);
	g_free(p);
}

static void test_skip_bad(void **state)
{
	(void)state;
	char *p = write_tmp("skip.csv", "submit,gpus,run_time\n0,1,60\n1,x,60\n\n2,2,zz\n3,4,60\n");
	sim_trace_opts_t o = { .skip_bad = true };
	sim_trace_t *t = NULL;
	char err[256];
	assert_int_equal(trace_read(p, &o, &t, err, sizeof(err)), 0);
	assert_int_equal(t->njobs, 2);
	assert_int_equal(t->skipped, 2);
	assert_int_equal(t->jobs[1].gpus, 4);
	assert_int_equal(t->jobs[1].line, 6);
	trace_free(t);
	g_free(p);
}

static int setup(void **state)
{
	(void)state;
	tmpdir = g_dir_make_tmp("test_trace-XXXXXX", NULL);
	return tmpdir ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	GDir *d = g_dir_open(tmpdir, 0, NULL);
	const char *n;
	while (d && (n = g_dir_read_name(d))) {
		char *p = g_build_filename(tmpdir, n, NULL);
		remove(p);
		g_free(p);
	}
	if (d)
		g_dir_close(d);
	remove(tmpdir);
	g_free(tmpdir);
	return 0;
}

NODEOX_TEST_MAIN(setup, teardown, cmocka_unit_test(test_iso8601), cmocka_unit_test(test_durations),
		 cmocka_unit_test(test_good_trace), cmocka_unit_test(test_bad_rows),
		 cmocka_unit_test(test_per_gpu), cmocka_unit_test(test_skip_bad))
