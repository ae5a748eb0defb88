/*
 * tests/common/test_speed_record.c: unit tests of common/speed_record.c, the
 * speed record a job appends to its Comment: the writer's exact text and
 * what it refuses, the reader on what the writer wrote and on damaged or
 * foreign words, a later version told apart, and the comment composed so
 * that the user's text and tag are kept and an older record replaced.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "tests/common/test_main.h"
#include "common/speed_record.h"

static speedrec_t two_types(void)
{
	speedrec_t r = { .workload = "bert-ft", .ntypes = 2 };

	strcpy(r.t[0].type, "a100");
	r.t[0].step_ms = 412.5;
	r.t[0].ranks = 4;
	r.t[0].batch = 64;
	strcpy(r.t[1].type, "l40s");
	r.t[1].step_ms = 1006;
	r.t[1].ranks = 2;
	r.t[1].batch = 64;
	return r;
}

static void test_format_exact(void **state)
{
	char buf[SPEEDREC_MAX + 1];
	speedrec_t r = two_types();
	(void)state;

	int n = speedrec_format(&r, buf, sizeof(buf));
	assert_int_equal(n, (int)strlen(buf));
	assert_string_equal(buf, "nodeox-speeds:v1:w=bert-ft;g=a100:412.5:4:64;g=l40s:1006:2:64");
	/* names percent-encoded: blank, ':', ';', '%', '|' and non-ASCII */
	strcpy(r.workload, "my job;x|y");
	strcpy(r.t[0].type, "a:1%\xc3\xa9");
	r.ntypes = 1;
	r.t[0].step_ms = 0.25;
	assert_true(speedrec_format(&r, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "nodeox-speeds:v1:w=my%20job%3Bx%7Cy;g=a%3A1%25%C3%A9:0.25:4:64");
	/* no workload: no w= */
	r.workload[0] = '\0';
	assert_true(speedrec_format(&r, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "nodeox-speeds:v1:g=a%3A1%25%C3%A9:0.25:4:64");
}

static void test_format_refuses(void **state)
{
	char buf[SPEEDREC_MAX + 1], small[20];
	speedrec_t r = two_types(), bad;
	(void)state;

	bad = r;
	bad.ntypes = 0;
	assert_int_equal(speedrec_format(&bad, buf, sizeof(buf)), -1);
	assert_string_equal(buf, "");
	bad = r;
	bad.t[1].step_ms = 0;
	assert_int_equal(speedrec_format(&bad, buf, sizeof(buf)), -1);
	bad = r;
	bad.t[1].step_ms = 2e9;
	assert_int_equal(speedrec_format(&bad, buf, sizeof(buf)), -1);
	bad = r;
	bad.t[1].step_ms = 0.0004; /* would be written as 0 */
	assert_int_equal(speedrec_format(&bad, buf, sizeof(buf)), -1);
	bad = r;
	bad.t[0].ranks = 0;
	assert_int_equal(speedrec_format(&bad, buf, sizeof(buf)), -1);
	bad = r;
	bad.t[0].batch = -1;
	assert_int_equal(speedrec_format(&bad, buf, sizeof(buf)), -1);
	bad = r;
	strcpy(bad.t[1].type, "a100"); /* a type twice */
	assert_int_equal(speedrec_format(&bad, buf, sizeof(buf)), -1);
	bad = r;
	bad.t[0].type[0] = '\0';
	assert_int_equal(speedrec_format(&bad, buf, sizeof(buf)), -1);
	assert_int_equal(speedrec_format(&r, small, sizeof(small)), -1);
	assert_string_equal(small, "");
	/* eight types of 63 encoded bytes each (189 after encoding) pass no
	 * buffer: the record is bounded by SPEEDREC_MAX whatever cap says */
	bad.ntypes = SPEEDREC_TYPES;
	for (int i = 0; i < SPEEDREC_TYPES; i++) {
		memset(bad.t[i].type, ' ', SPEEDREC_NAME_MAX - 1);
		bad.t[i].type[SPEEDREC_NAME_MAX - 1] = '\0';
		bad.t[i].type[0] = (char)('a' + i);
		bad.t[i].step_ms = 1;
		bad.t[i].ranks = 1;
		bad.t[i].batch = 1;
	}
	char big[8192];
	assert_int_equal(speedrec_format(&bad, big, sizeof(big)), -1);
}

static void test_parse_roundtrip(void **state)
{
	char buf[SPEEDREC_MAX + 1], err[128];
	speedrec_t r = two_types(), back;
	(void)state;

	strcpy(r.workload, "a b:c");
	assert_true(speedrec_format(&r, buf, sizeof(buf)) > 0);
	assert_int_equal(speedrec_parse(buf, strlen(buf), &back, err, sizeof(err)), 1);
	assert_string_equal(back.workload, "a b:c");
	assert_int_equal(back.ntypes, 2);
	assert_string_equal(back.t[1].type, "l40s");
	assert_true(back.t[0].step_ms == 412.5);
	assert_int_equal(back.t[0].ranks, 4);
	assert_int_equal(back.t[1].batch, 64);
}

static void test_parse_refuses(void **state)
{
	static const nodeox_test_case_t cases[] = {
		{ "nodeox-speeds:v1:", "no GPU type (g=)" },
		{ "nodeox-speeds:v1:;g=a:1:1:1", "expected KEY=VALUE, found ''" },
		{ "nodeox-speeds:v1:w=x", "no GPU type (g=)" },
		{ "nodeox-speeds:v1:g=a100:1:1", "g=: expected TYPE:STEP_MS:RANKS:BATCH" },
		{ "nodeox-speeds:v1:g=a100:1:1:1:1", "g=: expected TYPE:STEP_MS:RANKS:BATCH" },
		{ "nodeox-speeds:v1:g=a100:-1:1:1", "g=a100: step time not a number in (0, 1e+09] ms" },
		{ "nodeox-speeds:v1:g=a100:1e3:1:1", "g=a100: step time not a number in (0, 1e+09] ms" },
		{ "nodeox-speeds:v1:g=a100:nan:1:1", "g=a100: step time not a number in (0, 1e+09] ms" },
		{ "nodeox-speeds:v1:g=a100:1:0:1", "g=a100: ranks not a whole number from 1" },
		{ "nodeox-speeds:v1:g=a100:1:1.5:1", "g=a100: ranks not a whole number from 1" },
		{ "nodeox-speeds:v1:g=a100:1:1:x", "g=a100: batch not a whole number" },
		{ "nodeox-speeds:v1:g=a100:1:1:1;g=a100:2:1:1", "GPU type a100 given twice" },
		{ "nodeox-speeds:v1:g=a%4:1:1:1", "GPU type: '%' not followed by two hex digits" },
		{ "nodeox-speeds:v1:g=a%0A:1:1:1", "GPU type: encodes control byte 0x0a" },
		{ "nodeox-speeds:v1:g=a|b:1:1:1", "GPU type: byte 0x7c not percent-encoded" },
		{ "nodeox-speeds:v1:w=x;w=y;g=a:1:1:1", "w= given twice" },
		{ "nodeox-speeds:v1:g=a:1:1:1;", "ends with ';'" },
		{ "nodeox-speeds:v1:g=a:1:1:1;X=1", "bad key 'X'" },
		{ "nodeox-speeds:vx:g=a:1:1:1", "expected nodeox-speeds:vN: with a version N" },
		{ "nodeox-speeds:v1", "expected nodeox-speeds:vN: with a version N" },
	};
	char err[128];
	speedrec_t r;
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = speedrec_parse(cases[i].in, strlen(cases[i].in), &r, err, sizeof(err));

		if (rc != -1 || strcmp(err, cases[i].want))
			fail_msg("case %zu '%s': rc %d, err '%s', want '%s'", i, cases[i].in, rc, err,
				 cases[i].want);
	}
	/* nine types: one too many */
	char nine[SPEEDREC_MAX] = "nodeox-speeds:v1:";
	for (int i = 0; i < 9; i++)
		sprintf(nine + strlen(nine), "%sg=t%d:1:1:1", i ? ";" : "", i);
	assert_int_equal(speedrec_parse(nine, strlen(nine), &r, err, sizeof(err)), -1);
	assert_string_equal(err, "more than 8 GPU types");
	/* a later key of v1 is skipped; a later version is not read */
	const char *later = "nodeox-speeds:v1:g=a:2:1:0;zz=what";
	assert_int_equal(speedrec_parse(later, strlen(later), &r, err, sizeof(err)), 1);
	assert_int_equal(r.t[0].batch, 0);
	const char *v2 = "nodeox-speeds:v2:anything";
	assert_int_equal(speedrec_parse(v2, strlen(v2), &r, err, sizeof(err)), 2);
	const char *v12 = "nodeox-speeds:v12:g=a:2:1:0";
	assert_int_equal(speedrec_parse(v12, strlen(v12), &r, err, sizeof(err)), 2);
}

static void test_find(void **state)
{
	char err[128];
	speedrec_t r;
	(void)state;

	assert_int_equal(speedrec_find("nodeox:flex:workload=w my text", &r, err, sizeof(err)), 0);
	assert_int_equal(speedrec_find(NULL, &r, err, sizeof(err)), 0);
	/* the last record counts */
	assert_int_equal(speedrec_find("nodeox:flex nodeox-speeds:v1:g=a:1:1:1 x nodeox-speeds:v1:g=b:2:1:1",
				       &r, err, sizeof(err)),
			 1);
	assert_string_equal(r.t[0].type, "b");
	/* only a word starting with the mark: "xnodeox-speeds:v1:..." is text */
	assert_int_equal(speedrec_find("xnodeox-speeds:v1:g=a:1:1:1", &r, err, sizeof(err)), 0);
	assert_int_equal(speedrec_find("hi nodeox-speeds:v1:g=a:x:1:1", &r, err, sizeof(err)), -1);
	assert_string_equal(err, "g=a: step time not a number in (0, 1e+09] ms");
}

static void test_compose(void **state)
{
	static const nodeox_test_case_t cases[] = {
		{ "", "nodeox-speeds:v1:g=b:2:1:1" },
		{ "nodeox:flex:workload=w", "nodeox:flex:workload=w nodeox-speeds:v1:g=b:2:1:1" },
		{ "nodeox:flex my  text ", "nodeox:flex my  text  nodeox-speeds:v1:g=b:2:1:1" },
		{ "nodeox:flex nodeox-speeds:v1:g=a:1:1:1", "nodeox:flex nodeox-speeds:v1:g=b:2:1:1" },
		{ "nodeox-speeds:v1:g=a:1:1:1", "nodeox-speeds:v1:g=b:2:1:1" },
		{ "a nodeox-speeds:v9:zz b", "a b nodeox-speeds:v1:g=b:2:1:1" },
	};
	const char *rec = "nodeox-speeds:v1:g=b:2:1:1";
	char out[256], again[256];
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = speedrec_compose(cases[i].in, rec, out, sizeof(out));
		assert_int_equal(n, (int)strlen(out));
		if (strcmp(out, cases[i].want))
			fail_msg("case %zu '%s': got '%s', want '%s'", i, cases[i].in, out, cases[i].want);
		/* composing again changes nothing */
		assert_true(speedrec_compose(out, rec, again, sizeof(again)) > 0);
		assert_string_equal(again, out);
	}
	assert_int_equal(speedrec_compose("0123456789", rec, out, 20), -1);
	assert_string_equal(out, "");
}

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_format_exact), cmocka_unit_test(test_format_refuses),
		 cmocka_unit_test(test_parse_roundtrip), cmocka_unit_test(test_parse_refuses),
		 cmocka_unit_test(test_find), cmocka_unit_test(test_compose))
