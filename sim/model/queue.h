/*
 * queue.h: the simulator's event queue, a binary min-heap of timed events.
 *
 * Events are ordered by time, then kind (job ends before anything else at the
 * same second, so a pass sees the resources they free), then by a sequence
 * number given at push time, so equal events pop in insertion order and a run
 * is deterministic. Push and pop are O(log n), peek is O(1).
 */
#ifndef SIM_QUEUE_H
#define SIM_QUEUE_H

#include <stddef.h>
#include <stdint.h>

typedef enum { SIM_EV_END = 0, SIM_EV_SUBMIT = 1, SIM_EV_TIMER = 2 } sim_event_kind_t;

typedef struct {
	int64_t time;  /* seconds from trace start */
	uint32_t kind; /* sim_event_kind_t */
	uint32_t job;  /* index into the trace */
	uint64_t seq;  /* tie-breaker, set by sim_queue_push */
} sim_event_t;

typedef struct {
	sim_event_t *heap;
	size_t n, cap;
	uint64_t next_seq;
} sim_queue_t;

void sim_queue_init(sim_queue_t *q);
void sim_queue_free(sim_queue_t *q);
void sim_queue_push(sim_queue_t *q, int64_t time, sim_event_kind_t kind, uint32_t job);
/* Removes the earliest event into *ev; returns 0, or -1 when empty. */
int sim_queue_pop(sim_queue_t *q, sim_event_t *ev);
/* The earliest event, or NULL when empty. */
const sim_event_t *sim_queue_peek(const sim_queue_t *q);
static inline size_t sim_queue_size(const sim_queue_t *q)
{
	return q->n;
}

#endif
