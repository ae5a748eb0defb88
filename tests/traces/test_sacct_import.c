/*
 * test_sacct_import.c: cmocka unit tests of the sacct field parsers behind
 * nodeox-sacct-import (sim/sacct_import.c): time limits, times, TRES GPU
 * entries, and whole lines (steps, '|' inside a comment, `sacct -p` output).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim/sacct_import.h"

static void test_timelimit(void **state)
{
	static const struct { const char *s; int rc; int64_t secs; } cases[] = {
		{"12:00:00", 0, 43200},   {"1-00:00:00", 0, 86400},
		{"2-03:04:05", 0, 183845}, {"00:30:00", 0, 1800},
		{"30:15", 0, 1815},        {"45", 0, 2700},
		{"1-12", 0, 129600},       {"1-12:30", 0, 131400},
		{"UNLIMITED", 1, 0},       {"Partition_Limit", 1, 0},
		{"INFINITE", 1, 0},        {"", 1, 0},
		{"00:00:00", 1, 0},        {"0", 1, 0},
		{"12:7x:00", -1, 0},       {"1-", -1, 0},
		{"-5", -1, 0},             {"1:2:3:4", -1, 0},
		{"10:61:00", -1, 0},       {"abc", -1, 0},
		{"12:00:00 ", -1, 0},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t secs = -7;
		int rc = sacct_parse_timelimit(cases[i].s, &secs);

		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, want %d", cases[i].s, rc, cases[i].rc);
		if (rc == 0 && secs != cases[i].secs)
			fail_msg("'%s': %lld s, want %lld", cases[i].s, (long long)secs,
				 (long long)cases[i].secs);
	}
}

static void test_time(void **state)
{
	time_t a, b;

	(void)state;
	assert_int_equal(sacct_parse_time("2026-11-02T08:59:12", &a), 0);
	assert_int_equal(sacct_parse_time("2026-11-03T09:00:13", &b), 0);
	assert_int_equal((long)(b - a), 86400 + 61);
	/* across the end of a month and a year */
	assert_int_equal(sacct_parse_time("2026-12-31T23:59:59", &a), 0);
	assert_int_equal(sacct_parse_time("2027-01-01T00:00:01", &b), 0);
	assert_int_equal((long)(b - a), 2);
	assert_int_equal(sacct_parse_time("Unknown", &a), 1);
	assert_int_equal(sacct_parse_time("None", &a), 1);
	assert_int_equal(sacct_parse_time("", &a), 1);
	assert_int_equal(sacct_parse_time("2026-13-02T08:59:12", &a), -1);
	assert_int_equal(sacct_parse_time("2026-11-02 08:59:12", &a), -1);
	assert_int_equal(sacct_parse_time("2026-11-02T08:59", &a), -1);
	assert_int_equal(sacct_parse_time("2026-11-02T08:59:12Z", &a), -1);
	assert_int_equal(sacct_parse_time("11/02-08:59:12", &a), -1);
}

static void test_tres(void **state)
{
	sacct_gpus_t g;
	char err[SACCT_ERR_MAX];

	(void)state;
	assert_int_equal(sacct_parse_tres_gpus("billing=16,cpu=16,gres/gpu:a100=4,gres/gpu=4,"
					       "mem=256000M,node=1", &g, err, sizeof(err)), 0);
	assert_int_equal(g.total, 4);
	assert_string_equal(g.type, "a100");
	assert_int_equal(g.ntypes, 1);

	/* untyped request */
	assert_int_equal(sacct_parse_tres_gpus("cpu=8,gres/gpu=2,mem=8G", &g, err, sizeof(err)), 0);
	assert_int_equal(g.total, 2);
	assert_string_equal(g.type, "");

	/* typed entries only (AccountingStorageTRES without plain gres/gpu): summed */
	assert_int_equal(sacct_parse_tres_gpus("gres/gpu:v100=1,gres/gpu:a100=3", &g, err,
					       sizeof(err)), 0);
	assert_int_equal(g.total, 4);
	assert_string_equal(g.type, "a100");   /* most GPUs */
	assert_int_equal(g.ntypes, 2);

	/* no GPU; other gres with similar names are not GPUs */
	assert_int_equal(sacct_parse_tres_gpus("cpu=4,mem=1G,gres/gpumem=40G,gres/mps=100",
					       &g, err, sizeof(err)), 0);
	assert_int_equal(g.total, -1);
	assert_int_equal(sacct_parse_tres_gpus("", &g, err, sizeof(err)), 0);
	assert_int_equal(g.total, -1);

	/* errors name the entry */
	assert_int_equal(sacct_parse_tres_gpus("cpu=1,gres/gpu:a100=four", &g, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "gres/gpu:a100=four"));
	assert_int_equal(sacct_parse_tres_gpus("gres/gpu:=4", &g, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bad GPU type"));
	assert_int_equal(sacct_parse_tres_gpus("gres/gpu:a100", &g, err, sizeof(err)), -1);
}

static const char *header =
	"JobIDRaw|User|Account|Partition|Submit|Start|End|Timelimit|ReqTRES|AllocTRES|"
	"Comment|NNodes|State";

static void parse_header(sacct_header_t *h, const char *text)
{
	char buf[512], err[SACCT_ERR_MAX];

	snprintf(buf, sizeof(buf), "%s", text);
	assert_int_equal(sacct_parse_header(buf, h, err, sizeof(err)), 0);
}

static void test_line(void **state)
{
	sacct_header_t h;
	sacct_job_t job;
	char err[SACCT_ERR_MAX];
	char line[1024];

	(void)state;
	parse_header(&h, header);
	assert_int_equal(h.ncols, 13);

	/* a '|' inside the comment is glued back; CANCELLED by N -> CANCELLED */
	snprintf(line, sizeof(line), "%s",
		 "17|ann|lab|gpu|2026-11-02T10:00:00|2026-11-02T10:00:10|2026-11-02T10:01:10|"
		 "01:00:00|cpu=1,gres/gpu:l40s=2,gres/gpu=2|cpu=1,gres/gpu:l40s=2,gres/gpu=2|"
		 "a|b|c nodeox:flex|1|CANCELLED by 1000\n");
	assert_int_equal(sacct_parse_line(&h, line, &job, err, sizeof(err)), SACCT_LINE_JOB);
	assert_string_equal(job.comment, "a|b|c nodeox:flex");
	assert_string_equal(job.state, "CANCELLED");
	assert_string_equal(job.req_type, "l40s");
	assert_int_equal(job.gpus, 2);
	assert_int_equal(job.run_time, 60);
	assert_int_equal(job.time_limit, 3600);
	assert_int_equal(job.nodes, 1);
	sacct_job_clear(&job);

	/* steps are not jobs */
	snprintf(line, sizeof(line), "%s", "17.batch||||||||||||");
	assert_int_equal(sacct_parse_line(&h, line, &job, err, sizeof(err)), SACCT_LINE_STEP);

	/* allocated but never started: cancelled pending job */
	snprintf(line, sizeof(line), "%s",
		 "18|ann|lab|gpu|2026-11-02T10:00:00|2026-11-02T11:00:00|2026-11-02T11:00:00|"
		 "01:00:00|gres/gpu=1||x|1|CANCELLED by 5");
	assert_int_equal(sacct_parse_line(&h, line, &job, err, sizeof(err)), SACCT_LINE_UNSTARTED);

	/* too few fields: the count is in the message */
	snprintf(line, sizeof(line), "%s", "19|ann|lab");
	assert_int_equal(sacct_parse_line(&h, line, &job, err, sizeof(err)), SACCT_LINE_ERROR);
	assert_non_null(strstr(err, "3 fields, the header has 13"));

	/* `sacct -p`: trailing '|' on header and lines */
	char hp[512];
	snprintf(hp, sizeof(hp), "%s|", header);
	parse_header(&h, hp);
	assert_int_equal(h.ncols, 13);
	snprintf(line, sizeof(line), "%s",
		 "20|bo|lab|gpu|2026-11-02T10:00:00|2026-11-02T10:00:00|2026-11-02T12:00:00|"
		 "UNLIMITED|gres/gpu:a100=8|gres/gpu:a100=8||1|COMPLETED|\n");
	assert_int_equal(sacct_parse_line(&h, line, &job, err, sizeof(err)), SACCT_LINE_JOB);
	assert_int_equal(job.time_limit, -1);
	assert_int_equal(job.gpus, 8);
	assert_string_equal(job.comment, "");
	sacct_job_clear(&job);
}

static void test_header(void **state)
{
	sacct_header_t h;
	char buf[256], err[SACCT_ERR_MAX];

	(void)state;
	/* JobID accepted for JobIDRaw; order free; unknown columns ignored */
	snprintf(buf, sizeof(buf), "%s", "State|JobID|Elapsed|Submit|Start|End|ReqTRES|AllocTRES");
	assert_int_equal(sacct_parse_header(buf, &h, err, sizeof(err)), 0);
	assert_int_equal(h.index[SACCT_COL_JOBID], 1);
	assert_int_equal(h.index[SACCT_COL_STATE], 0);
	assert_int_equal(h.index[SACCT_COL_COMMENT], -1);
	snprintf(buf, sizeof(buf), "%s", "JobIDRaw|Submit|Start|End|ReqTRES");
	assert_int_equal(sacct_parse_header(buf, &h, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "AllocTRES"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timelimit),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_tres),
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_header),
	};

	setenv("TZ", "UTC", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
