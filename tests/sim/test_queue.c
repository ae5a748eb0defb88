/*
 * test_queue.c: the simulator's event heap pops events in (time, kind,
 * insertion) order, against a sorted reference, including interleaved pushes
 * and pops as the simulator does them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "tests/common/test_main.h"
#include "sim/model/queue.h"

static void test_queue_empty(void **state)
{
	(void)state;
	sim_queue_t q;
	sim_event_t ev;
	sim_queue_init(&q);
	assert_null(sim_queue_peek(&q));
	assert_int_equal(sim_queue_pop(&q, &ev), -1);
	sim_queue_free(&q);
}

static void test_queue_ties(void **state)
{
	(void)state;
	sim_queue_t q;
	sim_event_t ev;
	sim_queue_init(&q);
	sim_queue_push(&q, 10, SIM_EV_SUBMIT, 1);
	sim_queue_push(&q, 10, SIM_EV_END, 2);
	sim_queue_push(&q, 5, SIM_EV_TIMER, 3);
	sim_queue_push(&q, 10, SIM_EV_END, 4);
	sim_queue_push(&q, 10, SIM_EV_SUBMIT, 5);
	static const uint32_t order[] = { 3, 2, 4, 1, 5 };
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(sim_queue_pop(&q, &ev), 0);
		assert_int_equal(ev.job, order[i]);
	}
	assert_int_equal(sim_queue_size(&q), 0);
	sim_queue_free(&q);
}

typedef struct {
	int64_t time;
	uint32_t kind, job;
} ref_t;

static int ref_cmp(const void *a, const void *b)
{
	const ref_t *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job; /* job = insertion order */
}

static void test_queue_random_vs_sorted(void **state)
{
	(void)state;
	enum { N = 20000 };
	ref_t *ref = malloc(sizeof(ref_t) * N);
	sim_queue_t q;
	sim_queue_init(&q);
	srand(7);
	for (uint32_t i = 0; i < N; i++) {
		ref[i] = (ref_t){ rand() % 500, (uint32_t)(rand() % 3), i };
		sim_queue_push(&q, ref[i].time, (sim_event_kind_t)ref[i].kind, i);
	}
	qsort(ref, N, sizeof(ref_t), ref_cmp);
	sim_event_t ev;
	for (size_t i = 0; i < N; i++) {
		assert_int_equal(sim_queue_pop(&q, &ev), 0);
		assert_int_equal(ev.time, ref[i].time);
		assert_int_equal(ev.job, ref[i].job);
	}
	assert_int_equal(sim_queue_pop(&q, &ev), -1);
	sim_queue_free(&q);
	free(ref);
}

/* The simulator pops the earliest end and pushes later ones: time never goes back. */
static void test_queue_interleaved(void **state)
{
	(void)state;
	sim_queue_t q;
	sim_queue_init(&q);
	srand(11);
	for (uint32_t i = 0; i < 100; i++)
		sim_queue_push(&q, rand() % 1000, SIM_EV_END, i);
	int64_t last = -1;
	uint32_t next = 100;
	sim_event_t ev;
	for (int step = 0; step < 50000 && sim_queue_pop(&q, &ev) == 0; step++) {
		assert_true(ev.time >= last);
		last = ev.time;
		if (step < 40000)
			sim_queue_push(&q, ev.time + rand() % 1000, SIM_EV_END, next++);
	}
	assert_int_equal(sim_queue_size(&q), 0);
	sim_queue_free(&q);
}

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_queue_empty), cmocka_unit_test(test_queue_ties),
		 cmocka_unit_test(test_queue_random_vs_sorted), cmocka_unit_test(test_queue_interleaved))
