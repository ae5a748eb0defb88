/*
 * prio.h: a list of pending jobs ordered by priority (key descending, then
 * job index ascending), kept as a sorted array cut into chunks: insert and
 * remove cost a binary search and a move within one chunk, and walking the
 * list in order reads memory in sequence (the scheduler walks its head on
 * every pass, far more often than jobs come and go).
 *
 * One position may be tracked (l->track): removing an entry before it keeps
 * it on the same next entry, so a pass may remove the job it just read.
 */
#ifndef SIM_PRIO_H
#define SIM_PRIO_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	double key;
	uint32_t job;
} prio_ent_t;

typedef struct {
	prio_ent_t *e; /* PRIO_CHUNK slots */
	uint32_t n;
} prio_chunk_t;

typedef struct { /* a position: chunk, then slot */
	size_t c, p;
} prio_pos_t;

typedef struct {
	prio_chunk_t *c;
	size_t nc, capc, n;
	prio_pos_t *track; /* kept valid across removals, or NULL */
} prio_list_t;

void prio_list_init(prio_list_t *l);
void prio_list_free(prio_list_t *l);
void prio_list_insert(prio_list_t *l, double key, uint32_t job);
/* Remove the entry (key, job), which must be in the list. */
void prio_list_remove(prio_list_t *l, double key, uint32_t job);

/* The entry at *p (moved past chunk ends first), or NULL at the end. */
static inline const prio_ent_t *prio_list_at(const prio_list_t *l, prio_pos_t *p)
{
	while (p->c < l->nc && p->p >= l->c[p->c].n) {
		p->c++;
		p->p = 0;
	}
	return p->c < l->nc ? &l->c[p->c].e[p->p] : NULL;
}

#endif
