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

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_random_ops), cmocka_unit_test(test_remove_while_walking))
