/*
 * queue.c: binary min-heap of simulator events (see queue.h).
 *
 * A heap rather than a sorted list or a calendar queue: the simulator holds
 * at most one end event per running job, pushes and pops are interleaved,
 * and O(log n) with a flat array is both simple and cache friendly.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sim/model/queue.h"

static int queue_less(const sim_event_t *a, const sim_event_t *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	if (a->kind != b->kind)
		return a->kind < b->kind;
	return a->seq < b->seq;
}

void sim_queue_init(sim_queue_t *q)
{
	q->heap = NULL;
	q->n = q->cap = 0;
	q->next_seq = 0;
}

void sim_queue_free(sim_queue_t *q)
{
	free(q->heap);
	sim_queue_init(q);
}

void sim_queue_push(sim_queue_t *q, int64_t time, sim_event_kind_t kind, uint32_t job)
{
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 1024;
		sim_event_t *h = realloc(q->heap, cap * sizeof(*h));
		if (!h) {
			fprintf(stderr, "nodeox-sim: out of memory (event queue of %zu)\n", cap);
			exit(1);
		}
		q->heap = h;
		q->cap = cap;
	}
	sim_event_t ev = { time, (uint32_t)kind, job, q->next_seq++ };
	size_t i = q->n++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!queue_less(&ev, &q->heap[parent]))
			break;
		q->heap[i] = q->heap[parent];
		i = parent;
	}
	q->heap[i] = ev;
}

int sim_queue_pop(sim_queue_t *q, sim_event_t *ev)
{
	if (q->n == 0)
		return -1;
	*ev = q->heap[0];
	sim_event_t last = q->heap[--q->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= q->n)
			break;
		if (c + 1 < q->n && queue_less(&q->heap[c + 1], &q->heap[c]))
			c++;
		if (!queue_less(&q->heap[c], &last))
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	if (q->n > 0)
		q->heap[i] = last;
	return 0;
}

const sim_event_t *sim_queue_peek(const sim_queue_t *q)
{
	return q->n ? &q->heap[0] : NULL;
}
