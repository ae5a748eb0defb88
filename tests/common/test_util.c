/*
 * tests/common/test_util.c: unit tests of common/util.c's text helpers that
 * the policy library, the plugin, nodeox-sim and `nodeox why` share: the
 * bracket-aware span that splits a --constraint into its top-level terms,
 * the comma-list walk (empty items skipped) with what is built on it, and
 * the readers' one form of an error message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tests/common/test_main.h"
#include "common/util.h"

/* Every byte: the digits and both cases of A-F have their value, nothing else does. */
static void test_hex_digit(void **state)
{
	int c;

	(void)state;
	for (c = 0; c < 256; c++) {
		int want = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			   c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		assert_int_equal(nodeox_util_hex_digit((char)c), want);
	}
}

static void test_top_span(void **state)
{
	(void)state;
	assert_int_equal(nodeox_util_top_span("ib&(a100|l40s)", "&"), 2);
	assert_int_equal(nodeox_util_top_span("ib&(a100|l40s)", "|"), strlen("ib&(a100|l40s)"));
	assert_int_equal(nodeox_util_top_span("[a100|l40s]&ib", "&,"), strlen("[a100|l40s]"));
	assert_int_equal(nodeox_util_top_span("a,b&c", "&,"), 1);
	assert_int_equal(nodeox_util_top_span("", "&"), 0);
	assert_int_equal(nodeox_util_top_span("&x", "&"), 0);
	/* nested brackets stay inside; a stray closing bracket is text */
	assert_int_equal(nodeox_util_top_span("((a|b)|c)|d", "|"), strlen("((a|b)|c)"));
	assert_int_equal(nodeox_util_top_span("a)|b", "|"), 2);
	/* an unclosed bracket hides everything after it */
	assert_int_equal(nodeox_util_top_span("(a|b", "|"), 4);
}

static void test_list_next(void **state)
{
	const char *c = ",a100,,l40s,", *it;
	size_t n;

	(void)state;
	assert_true(nodeox_util_list_next(&c, &it, &n));
	assert_int_equal(n, 4);
	assert_memory_equal(it, "a100", 4);
	assert_true(nodeox_util_list_next(&c, &it, &n));
	assert_int_equal(n, 4);
	assert_memory_equal(it, "l40s", 4);
	assert_false(nodeox_util_list_next(&c, &it, &n));
	assert_false(nodeox_util_list_next(&c, &it, &n));
	c = NULL;
	assert_false(nodeox_util_list_next(&c, &it, &n));
	c = "";
	assert_false(nodeox_util_list_next(&c, &it, &n));

	assert_true(nodeox_util_list_has("gpu,big", "big", 3));
	assert_false(nodeox_util_list_has("gpu,bigger", "big", 3));
	assert_false(nodeox_util_list_has("gpu,,big", "", 0));
	assert_false(nodeox_util_list_has(NULL, "gpu", 3));
	assert_true(nodeox_util_lists_meet("short,gpu", "big,gpu"));
	assert_false(nodeox_util_lists_meet("short", "big,gpu"));
	assert_false(nodeox_util_lists_meet(NULL, "gpu"));
	assert_false(nodeox_util_lists_meet("gpu", ""));
}

/* "NAME:LINE: ", "NAME: " without a line, "column X: " when named; always -1. */
static void test_fail_form(void **state)
{
	char err[64];
	(void)state;
	assert_int_equal(nodeox_util_fail(err, sizeof(err), "a.conf", 3, NULL, "bad %s", "key"), -1);
	assert_string_equal(err, "a.conf:3: bad key");
	nodeox_util_fail(err, sizeof(err), "a.conf", 0, NULL, "no file");
	assert_string_equal(err, "a.conf: no file");
	nodeox_util_fail(err, sizeof(err), "t.csv", 2, "submit", "missing value");
	assert_string_equal(err, "t.csv:2: column submit: missing value");
}

/* Cut to the buffer, and nothing written into none. */
static void test_fail_cut(void **state)
{
	char err[8];
	(void)state;
	assert_int_equal(nodeox_util_fail(err, sizeof(err), "t.csv", 2, "submit", "missing"), -1);
	assert_string_equal(err, "t.csv:2");
	assert_int_equal(nodeox_util_fail(err, 0, "t.csv", 2, NULL, "x"), -1);
	assert_string_equal(err, "t.csv:2");
}

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_hex_digit), cmocka_unit_test(test_top_span), cmocka_unit_test(test_list_next),
		 cmocka_unit_test(test_fail_form), cmocka_unit_test(test_fail_cut))
