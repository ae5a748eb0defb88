/*
 * test_replica.c: where the replicas put slurmctld's start (sim/run/replica.h,
 * replica_params). Every clock the start sets must be spread over its whole
 * cycle: the 30 s time-limit checks over n strata, and the longer
 * sched_interval and (with an age weight) PriorityCalcPeriod over both or
 * all of their 30 s windows; replica 0 keeps the command line's start.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "tests/common/test_main.h"
#include "sim/model/cluster.h"
#include "sim/run/replica.h"

static int64_t mod(int64_t a, int64_t m)
{
	return ((a % m) + m) % m;
}

/* Replica k's start, as a phase of period p. */
static int64_t start_phase(const sim_sched_params_t *base, int k, int n, int64_t p)
{
	sim_sched_params_t r;
	replica_params(base, k, n, &r);
	return mod(r.limit_origin_s, p);
}

/* How many of the p / w windows of w seconds hold some replica's start. */
static int windows_hit(const sim_sched_params_t *base, int n, int64_t p, int64_t w)
{
	int hit = 0;
	for (int64_t lo = 0; lo < p; lo += w) {
		int any = 0;
		for (int k = 0; k < n; k++) {
			int64_t ph = start_phase(base, k, n, p);
			any |= ph >= lo && ph < lo + w;
		}
		hit += any;
	}
	return hit;
}

/* The time-limit checks' phases: n distinct strata of 30 s, whatever the
 * longer clocks, and replica 0 at the given start. */
static void check_limit_strata(const sim_sched_params_t *base, int n)
{
	int64_t seen[64];
	for (int k = 0; k < n; k++) {
		seen[k] = start_phase(base, k, n, 30);
		assert_int_equal(seen[k], (mod(base->limit_origin_s - (k * 3 % 8) * 30 / 8, 30)));
		for (int i = 0; i < k; i++)
			assert_true(seen[i] != seen[k]);
	}
	sim_sched_params_t r;
	replica_params(base, 0, n, &r);
	assert_int_equal(r.limit_origin_s, base->limit_origin_s);
}

static void test_limit_checks_only(void **state)
{
	(void)state;
	sim_sched_params_t p;
	cluster_params_default(&p);
	p.sched_interval_s = 2; /* a divisor of 30: the checks' cycle alone */
	check_limit_strata(&p, 8);
	for (int k = 0; k < 8; k++) { /* as before slurmctld's other clocks counted */
		sim_sched_params_t r;
		replica_params(&p, k, 8, &r);
		assert_int_equal(r.limit_origin_s, -((k * 3 % 8) * 30 / 8));
	}
}

/* sched_interval=60 (Slurm's default): the passes over the whole queue
 * come in both halves of their minute and in each of its quarters. */
static void test_sched_interval_cycle(void **state)
{
	(void)state;
	sim_sched_params_t p;
	cluster_params_default(&p);
	p.sched_interval_s = 60;
	p.limit_origin_s = -7;
	check_limit_strata(&p, 8);
	assert_int_equal(windows_hit(&p, 8, 60, 30), 2);
	assert_int_equal(windows_hit(&p, 8, 60, 15), 4);
}

/* An age weight: the decay thread's PriorityCalcPeriod counts. 1 minute
 * (the multifactor trace): the starts in both halves and every quarter; 5
 * minutes (Slurm's default), 10 windows for 8 replicas: 8 of them. Without
 * an age weight the period does not count: every start within 30 s. */
static void test_decay_cycle(void **state)
{
	(void)state;
	sim_sched_params_t p;
	cluster_params_default(&p);
	p.sched_interval_s = 2;
	p.weight_age = 1000;
	p.calc_period_s = 60;
	check_limit_strata(&p, 8);
	assert_int_equal(windows_hit(&p, 8, 60, 30), 2);
	assert_int_equal(windows_hit(&p, 8, 60, 15), 4);
	p.calc_period_s = 300;
	check_limit_strata(&p, 8);
	assert_int_equal(windows_hit(&p, 8, 300, 30), 8);
	p.weight_age = 0;
	for (int k = 0; k < 8; k++) {
		sim_sched_params_t r;
		replica_params(&p, k, 8, &r);
		assert_true(r.limit_origin_s > -30 && r.limit_origin_s <= 0);
	}
}

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_limit_checks_only),
		 cmocka_unit_test(test_sched_interval_cycle), cmocka_unit_test(test_decay_cycle))
