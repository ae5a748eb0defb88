/*
 * test_slurm_time.c: the one parser of Slurm time strings (common/slurm_time.h)
 * that the trace reader and the sacct importer share: every form Slurm
 * writes, the unit of a bare number (seconds in a trace, minutes in
 * slurm.conf and sacct), no-limit words, 0, and what it refuses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/common/test_main.h"
#include "sim/sacct/sacct_import.h"
#include "common/slurm_time.h"
#include "sim/model/trace.h"

static int64_t parse(const char *s, int64_t unit)
{
	int64_t v = -7;
	if (slurm_time_parse(s, unit, &v) < 0)
		return -1;
	return v;
}

static void test_forms(void **state)
{
	(void)state;
	assert_int_equal(parse("1-02:03:04", 1), 86400 + 7384);
	assert_int_equal(parse("2-03", 1), 2 * 86400 + 3 * 3600);
	assert_int_equal(parse("2-03:04", 1), 2 * 86400 + 3 * 3600 + 240);
	assert_int_equal(parse("02:03:04", 1), 7384);
	assert_int_equal(parse("03:04", 1), 184); /* MM:SS */
	assert_int_equal(parse("90", 1), 90);     /* trace: seconds */
	assert_int_equal(parse("90", 60), 5400);  /* slurm.conf, sacct: minutes */
	assert_int_equal(parse("0", 60), 0);
	assert_true(parse("UNLIMITED", 60) == SLURM_TIME_NONE);
	assert_true(parse("infinite", 1) == SLURM_TIME_NONE);
	assert_true(parse("Partition_Limit", 60) == SLURM_TIME_NONE);
	assert_true(parse("", 60) == SLURM_TIME_NONE);
}

static void test_refused(void **state)
{
	(void)state;
	const char *bad[] = { "1:60", "1:00:60", "1-2-3", "1:2:3:4", "a",         "-5",     "5-",
			      "1:",   ":1",      " 5",    "5 ",      "999999999", "1-00:60" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse(bad[i], 60) != -1)
			fail_msg("'%s' was accepted", bad[i]);
	assert_int_equal(slurm_time_parse(NULL, 1, &(int64_t){ 0 }), -1);
}

/* The two callers keep their own meanings of a bare number and of 0. */
static void test_callers(void **state)
{
	(void)state;
	int64_t v;
	assert_int_equal(trace_parse_duration(" 90 ", &v), 0); /* trimmed, seconds */
	assert_int_equal(v, 90);
	assert_int_equal(trace_parse_slurm_minutes("90", &v), 0);
	assert_int_equal(v, 5400);
	assert_int_equal(trace_parse_duration("UNLIMITED", &v), 0);
	assert_true(v == SIM_TIME_NONE);
	assert_int_equal(sacct_parse_timelimit("90", &v), 0); /* minutes */
	assert_int_equal(v, 5400);
	assert_int_equal(sacct_parse_timelimit("0", &v), 1); /* --time=0: no limit */
	assert_int_equal(sacct_parse_timelimit("12:00:00 ", &v), -1);
}

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_forms), cmocka_unit_test(test_refused),
		 cmocka_unit_test(test_callers))
