/*
 * test_prio.c: the pending-job priority list (sim/prio.c) against a plain
 * sorted array: random inserts and removes across many chunk splits and
 * merges keep the order (key descending, then job), and a walk that removes
 * the job it just read, as a scheduling pass does, still visits every other
 * job once, in order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <glib.h>
#include <math.h>

#include "tests/common/test_main.h"
#include "sim/prio.h"

typedef struct {
	double key;
	uint32_t job;
} ref_t;

static int ref_cmp(const void *a, const void *b)
{
	const ref_t *x = a, *y = b;
	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return (x->job > y->job) - (x->job < y->job);
}

static uint64_t rng = 88172645463325252ull;
static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

/* The list holds exactly ref[0..n) in this order. */
static void check_order(const prio_list_t *l, ref_t *ref, size_t n)
{
	qsort(ref, n, sizeof(ref_t), ref_cmp);
	assert_int_equal(l->n, n);
	prio_pos_t p = { 0, 0 };
	for (size_t i = 0; i < n; i++) {
		const prio_ent_t *e = prio_list_at(l, &p);
		assert_non_null(e);
		assert_int_equal(e->job, ref[i].job);
		assert_true(e->key == ref[i].key);
		p.p++;
	}
	assert_null(prio_list_at(l, &p));
}

/* The list holds exactly the jobs j with in[j], at key[j], in order; ref is
 * scratch room for n entries. */
static void check_members(const prio_list_t *l, const double *key, const bool *in, uint32_t n, ref_t *ref)
{
	size_t m = 0;

	for (uint32_t j = 0; j < n; j++)
		if (in[j])
			ref[m++] = (ref_t){ key[j], j };
	check_order(l, ref, m);
}

static void test_random_ops(void **state)
{
	(void)state;
	enum { N = 20000 };
	prio_list_t l;
	prio_list_init(&l);
	ref_t *ref = g_new(ref_t, N);
	bool *in = g_new0(bool, N);
	double *key = g_new(double, N);
	for (int round = 0; round < 6; round++) {
		/* grow: keys from a small set, so many ties broken by job */
		for (uint32_t j = 0; j < N; j++)
			if (!in[j] && next_rand() % 3) {
				key[j] = (double)(next_rand() % 50) - (round % 2 ? (double)j / N : 0);
				prio_list_insert(&l, key[j], j);
				in[j] = true;
			}
		check_members(&l, key, in, N, ref);
		/* shrink: most entries go, which merges thin chunks */
		for (uint32_t j = 0; j < N; j++)
			if (in[j] && next_rand() % 8) {
				prio_list_remove(&l, key[j], j);
				in[j] = false;
			}
		check_members(&l, key, in, N, ref);
	}
	prio_list_free(&l);
	g_free(ref);
	g_free(in);
	g_free(key);
}

static void test_remove_while_walking(void **state)
{
	(void)state;
	enum { N = 3000 };
	prio_list_t l;
	prio_list_init(&l);
	for (uint32_t j = 0; j < N; j++)
		prio_list_insert(&l, (double)(j % 7), j);
	ref_t *ref = g_new(ref_t, N);
	for (uint32_t j = 0; j < N; j++)
		ref[j] = (ref_t){ (double)(j % 7), j };
	qsort(ref, N, sizeof(ref_t), ref_cmp);
	/* walk; remove two of every three entries just read (and so empty and
	 * merge chunks under the walk) */
	prio_pos_t p = { 0, 0 };
	l.track = &p;
	size_t i = 0, kept = 0;
	for (const prio_ent_t *e; (e = prio_list_at(&l, &p)); i++) {
		assert_true(i < N);
		assert_int_equal(e->job, ref[i].job);
		double k = e->key;
		uint32_t j = e->job;
		p.p++;
		if (i % 3)
			prio_list_remove(&l, k, j);
		else
			ref[kept++] = ref[i];
	}
	assert_int_equal(i, N);
	l.track = NULL;
	check_order(&l, ref, kept);
	prio_list_free(&l);
	g_free(ref);
}

/* Issue 49's cluster: 128 nodes of 32 CPUs (4,096), PriorityWeightJobSize
 * 100, jobs asking 2 CPUs per GPU. The weighted job-size factors are 0.4
 * to 2; Slurm stores each as an integer, at least 1, so a 1-node job of 1
 * GPU and one of 4 GPUs tie, and a 4-node job of 16 GPUs too: they go in
 * submission order. With the weight at 1000 they part by whole points. */
static void test_store_issue49(void **state)
{
	(void)state;
	const uint32_t nodes = 128, cpus = 128 * 32;
	double one1 = 100 * prio_size_factor(1, 2, nodes, cpus, false, false, 0);
	double one4 = 100 * prio_size_factor(1, 8, nodes, cpus, false, false, 0);
	double four = 100 * prio_size_factor(4, 32, nodes, cpus, false, false, 0);
	/* (1/128 + 2/4096) / 2 = 0.0041504 (exact in binary) */
	assert_true(fabs(one1 - 0.41503906) < 1e-6);
	assert_true(fabs(four - 1.953125) < 1e-6);
	assert_int_equal(prio_store(one1), 1);
	assert_int_equal(prio_store(one4), 1);
	assert_int_equal(prio_store(four), 1);
	assert_int_equal(prio_store(1000 * prio_size_factor(1, 2, nodes, cpus, false, false, 0)), 4);
	assert_int_equal(prio_store(1000 * prio_size_factor(1, 8, nodes, cpus, false, false, 0)), 4);
	assert_int_equal(prio_store(1000 * prio_size_factor(4, 32, nodes, cpus, false, false, 0)), 19);
}

/* The floor at 1 (0 means held), truncation (not rounding), the 32-bit cap. */
static void test_store_bounds(void **state)
{
	(void)state;
	assert_int_equal(prio_store(0), 1);
	assert_int_equal(prio_store(-5), 1);
	assert_int_equal(prio_store(0.999999), 1);
	assert_int_equal(prio_store(1.0), 1);
	assert_int_equal(prio_store(2.999999), 2);
	assert_int_equal(prio_store(1000.5), 1000);
	assert_int_equal(prio_store(4294967294.9), 4294967294u);
	assert_int_equal(prio_store(4294967295.0), UINT32_MAX);
	assert_int_equal(prio_store(1e12), UINT32_MAX);
}

/* The other branches of set_priority_factors' job-size block and the age
 * factor, by hand: favour small takes the shares left free; with a job of
 * no CPUs, the node share alone (not halved); SMALL_RELATIVE_TO_TIME: the
 * CPUs (at least min_nodes x the cluster's mean per node) per minute of
 * limit over the cluster's CPUs. */
static void test_factors(void **state)
{
	(void)state;
	/* 4 nodes, 64 CPUs */
	assert_true(fabs(prio_size_factor(1, 8, 4, 64, false, false, 0) - (0.25 + 0.125) / 2) < 1e-12);
	assert_true(fabs(prio_size_factor(1, 8, 4, 64, true, false, 0) - (0.75 + 0.875) / 2) < 1e-12);
	assert_true(fabs(prio_size_factor(1, 0, 4, 64, false, false, 0) - 0.25) < 1e-12);
	assert_true(fabs(prio_size_factor(1, 0, 4, 64, true, false, 0) - 0.75) < 1e-12);
	/* relative to time: 2 nodes (32 CPUs by the mean) over 8 minutes / 64 */
	assert_true(fabs(prio_size_factor(2, 8, 4, 64, false, true, 8) - 32.0 / 8 / 64) < 1e-12);
	/* 48 CPUs on 1 node: the CPUs count, over 1 minute */
	assert_true(fabs(prio_size_factor(1, 48, 4, 64, false, true, 1) - 48.0 / 64) < 1e-12);
	assert_true(fabs(prio_size_factor(1, 48, 4, 64, true, true, 1) - 16.0 / 64) < 1e-12);
	assert_true(prio_size_factor(8, 200, 4, 64, false, false, 0) == 1.0); /* capped */
	assert_true(prio_age_factor(-3, 300) == 0.0);
	assert_true(prio_age_factor(150, 300) == 0.5);
	assert_true(prio_age_factor(300, 300) == 1.0);
	assert_true(prio_age_factor(301, 300) == 1.0);
}

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_random_ops), cmocka_unit_test(test_remove_while_walking),
		 cmocka_unit_test(test_store_issue49), cmocka_unit_test(test_store_bounds),
		 cmocka_unit_test(test_factors))
