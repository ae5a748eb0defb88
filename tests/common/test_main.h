/*
 * tests/common/test_main.h: the one main() of nodeox's cmocka unit tests.
 * Each test file ends with
 *
 *	NODEOX_TEST_MAIN(setup, teardown,
 *		cmocka_unit_test(test_a),
 *		cmocka_unit_test(test_b))
 *
 * which runs the listed tests as one group, with the group's setup and
 * teardown (NULL where there are none), and exits with cmocka's status.
 * Work a file needs before its tests (a temporary directory, a time zone)
 * goes in that group setup, so every unit test starts the same way.
 * nodeox_test_case_t is the row of the tests that run a table of inputs.
 */
#ifndef NODEOX_TESTS_TEST_MAIN_H
#define NODEOX_TESTS_TEST_MAIN_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* One row of a table-driven test: an input and what it must give (an error
 * message, an output). */
typedef struct {
	const char *in, *want;
} nodeox_test_case_t;

#define NODEOX_TEST_MAIN(setup, teardown, ...)                         \
	int main(void)                                                 \
	{                                                              \
		const struct CMUnitTest tests[] = { __VA_ARGS__ };     \
		return cmocka_run_group_tests(tests, setup, teardown); \
	}

#endif
