/*
 * test_history.c: the run-time history (policy/policy_history.c): a running
 * job's expected end from its user's last two finished jobs (their mean,
 * capped at the limit's end; the limit where there is no history or the
 * job outlived its prediction), its bounds (a full table forgets the
 * stalest user of a probe window) and inputs no caller should send.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "tests/common/test_main.h"
#include "policy/policy.h"

static nodeox_history_t h;

/* The end for a job of uid that started at 1000 with a 3600 s limit, asked
 * at now; *from must be want_from. */
static int64_t end_at(uint32_t uid, int64_t now, nodeox_end_from_t want_from)
{
	nodeox_end_from_t from;
	int64_t e = nodeox_history_end(&h, uid, 1000, 4600, now, &from);

	if (from != want_from)
		fail_msg("uid %u: end %lld from %s, want from %s", uid, (long long)e, nodeox_end_from_name(from),
			 nodeox_end_from_name(want_from));
	return e;
}

static void test_history_rule(void **state)
{
	(void)state;
	nodeox_history_init(&h);
	/* no history: the limit */
	assert_int_equal(end_at(7, 1100, NODEOX_END_LIMIT), 4600);
	assert_int_equal(nodeox_history_run(&h, 7), -1);
	/* one job: its run time */
	assert_true(nodeox_history_record(&h, 7, 100, 900, 300));
	assert_int_equal(end_at(7, 1100, NODEOX_END_HISTORY), 1300);
	/* two: their mean, rounded up */
	assert_true(nodeox_history_record(&h, 7, 101, 950, 601));
	assert_int_equal(nodeox_history_run(&h, 7), 451);
	assert_int_equal(end_at(7, 1100, NODEOX_END_HISTORY), 1451);
	/* a third: the last two by end only (300 s is forgotten) */
	assert_true(nodeox_history_record(&h, 7, 102, 990, 1201));
	assert_int_equal(nodeox_history_run(&h, 7), 901);
	/* the same job seen again by the next walk: no change */
	assert_false(nodeox_history_record(&h, 7, 102, 990, 1201));
	/* one that ended before both kept comes too late */
	assert_false(nodeox_history_record(&h, 7, 99, 800, 5));
	assert_int_equal(nodeox_history_run(&h, 7), 901);
	/* found out of order: one between the two replaces the older */
	assert_true(nodeox_history_record(&h, 7, 103, 970, 1));
	assert_int_equal(nodeox_history_run(&h, 7), 601);
	/* other users are apart */
	assert_int_equal(end_at(8, 1100, NODEOX_END_LIMIT), 4600);
	/* never later than the limit's end */
	assert_true(nodeox_history_record(&h, 9, 200, 990, 7200));
	assert_int_equal(end_at(9, 1100, NODEOX_END_LIMIT), 4600);
	/* a job already past its prediction: back to its limit */
	assert_int_equal(end_at(7, 1602, NODEOX_END_OUTLIVED), 4600);
	assert_int_equal(end_at(7, 1601, NODEOX_END_OUTLIVED), 4600);
	assert_int_equal(end_at(7, 1600, NODEOX_END_HISTORY), 1601);
	/* no table: history off */
	assert_int_equal(nodeox_history_end(NULL, 7, 1000, 4600, 1100, NULL), 4600);
	assert_int_equal(h.recorded, 5);
}

/* More users than the table holds: each call stays within its window, the
 * users recorded last are all found, and the forgotten are counted. */
static void test_history_full(void **state)
{
	uint32_t uid, n = 3 * NODEOX_HISTORY_USERS;

	(void)state;
	nodeox_history_init(&h);
	for (uid = 0; uid < n; uid++)
		assert_true(nodeox_history_record(&h, uid, uid, 10 + uid, 60));
	assert_true(h.users <= NODEOX_HISTORY_USERS);
	assert_true(h.evicted >= n - NODEOX_HISTORY_USERS);
	/* the last few hundred are there; no look-up reads past a window */
	for (uid = n - 200; uid < n; uid++)
		assert_int_equal(nodeox_history_run(&h, uid), 60);
	assert_int_equal(nodeox_history_run(&h, 0), -1);
}

/* Inputs no feeder should send: refused or clamped, never overflowing
 * (UBSan's builds would say). */
static void test_history_bad_input(void **state)
{
	nodeox_end_from_t from;

	(void)state;
	nodeox_history_init(&h);
	assert_false(nodeox_history_record(&h, 1, 1, 100, -1));
	assert_false(nodeox_history_record(&h, 1, 1, INT64_MIN, INT64_MIN));
	assert_false(nodeox_history_record(NULL, 1, 1, 100, 10));
	assert_int_equal(h.ignored, 2);
	assert_int_equal(nodeox_history_run(&h, 1), -1);
	/* any clock: the simulator's starts at 0 */
	assert_true(nodeox_history_record(&h, 2, 1, 0, 0));
	assert_int_equal(nodeox_history_end(&h, 2, 0, 500, 0, NULL), 500);
	assert_true(nodeox_history_record(&h, 2, 2, INT64_MIN, 10));
	assert_int_equal(nodeox_history_run(&h, 2), 5);
	assert_true(nodeox_history_record(&h, 1, 1, INT64_MAX, INT64_MAX));
	assert_true(nodeox_history_record(&h, 1, 2, INT64_MAX - 1, INT64_MAX));
	assert_int_equal(nodeox_history_run(&h, 1), 366 * 86400LL);
	assert_int_equal(nodeox_history_end(&h, 1, INT64_MAX - 5, INT64_MAX, 0, &from), INT64_MAX);
	assert_int_equal(from, NODEOX_END_LIMIT);
	assert_int_equal(nodeox_history_end(&h, 1, INT64_MAX - 5, INT64_MIN, INT64_MIN, &from), INT64_MIN);
	assert_int_equal(nodeox_history_end(&h, 1, INT64_MIN, 500, INT64_MIN, &from), INT64_MIN + 366 * 86400LL);
	assert_int_equal(from, NODEOX_END_HISTORY);
	assert_int_equal(nodeox_history_run(NULL, 1), -1);
	nodeox_history_init(NULL);
}

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_history_rule), cmocka_unit_test(test_history_full),
		 cmocka_unit_test(test_history_bad_input))
