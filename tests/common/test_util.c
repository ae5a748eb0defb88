/*
 * tests/common/test_util.c: unit tests of common/util.c's text helpers that
 * the policy library, the plugin, nodeox-sim and `nodeox why` share: the
 * bracket-aware span that splits a --constraint into its top-level terms.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "common/util.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_top_span),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
