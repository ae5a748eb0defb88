/*
 * prio.c: Slurm's priority factors and the integer it stores, and pending
 * jobs by priority as a chunked sorted array (see prio.h).
 */
#include <glib.h>
#include <stdbool.h>
#include <string.h>

#include "sim/prio.h"

#define PRIO_CHUNK 256

double prio_age_factor(int64_t age_s, int64_t max_age_s)
{
	/* diff is a uint32_t there: 0 until the job accrues */
	uint32_t diff = age_s > 0 ? (uint32_t)MIN(age_s, (int64_t)UINT32_MAX) : 0;
	if (max_age_s <= 0 || diff >= (uint64_t)max_age_s)
		return 1.0;
	return (double)diff / (double)max_age_s;
}

double prio_size_factor(uint32_t min_nodes, uint32_t cpus, uint32_t nodes, uint32_t cluster_cpus,
			bool favor_small, bool size_relative, uint32_t time_limit_min)
{
	double f;
	if (nodes == 0 || cluster_cpus == 0)
		return 0;
	if (size_relative) {
		f = (double)min_nodes * (double)cluster_cpus / (double)nodes;
		if (cpus > f)
			f = (double)cpus;
		f /= time_limit_min ? time_limit_min : 1; /* Slurm divides by 0 here */
		f /= cluster_cpus;
		if (favor_small)
			f = 1.0 - f;
	} else if (favor_small) {
		f = (double)(nodes - MIN(min_nodes, nodes)) / (double)nodes;
		if (cpus) {
			f += (double)(cluster_cpus - MIN(cpus, cluster_cpus)) / (double)cluster_cpus;
			f /= 2;
		}
	} else {
		f = (double)min_nodes / (double)nodes;
		if (cpus) {
			f += (double)cpus / (double)cluster_cpus;
			f /= 2;
		}
	}
	return f < 0 ? 0 : f > 1 ? 1 : f;
}

uint32_t prio_store(double weighted_sum)
{
	if (!(weighted_sum >= 1)) /* "Priority 0 is reserved for held jobs" */
		return 1;
	if (weighted_sum >= 4294967295.0)
		return UINT32_MAX;
	return (uint32_t)(uint64_t)weighted_sum;
}

/* Does (k1, j1) come before (k2, j2)? Higher key first, then lower job. */
static inline bool prio_before(double k1, uint32_t j1, double k2, uint32_t j2)
{
	return k1 > k2 || (k1 == k2 && j1 < j2);
}

void prio_list_init(prio_list_t *l)
{
	memset(l, 0, sizeof(*l));
}

void prio_list_free(prio_list_t *l)
{
	for (size_t c = 0; c < l->nc; c++)
		g_free(l->c[c].e);
	g_free(l->c);
	memset(l, 0, sizeof(*l));
}

/* The first chunk whose last entry is not before (key, job); nc if none. */
static size_t prio_chunk_find(const prio_list_t *l, double key, uint32_t job)
{
	size_t lo = 0, hi = l->nc;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const prio_chunk_t *ch = &l->c[mid];
		const prio_ent_t *last = &ch->e[ch->n - 1];
		if (prio_before(last->key, last->job, key, job))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Where (key, job) is or would go in chunk ch. */
static uint32_t prio_slot_find(const prio_chunk_t *ch, double key, uint32_t job)
{
	uint32_t lo = 0, hi = ch->n;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (prio_before(ch->e[mid].key, ch->e[mid].job, key, job))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void prio_chunk_open(prio_list_t *l, size_t at)
{
	if (l->nc == l->capc) {
		l->capc = l->capc ? 2 * l->capc : 16;
		l->c = g_renew(prio_chunk_t, l->c, l->capc);
	}
	memmove(&l->c[at + 1], &l->c[at], (l->nc - at) * sizeof(prio_chunk_t));
	l->c[at].e = g_new(prio_ent_t, PRIO_CHUNK);
	l->c[at].n = 0;
	l->nc++;
}

void prio_list_insert(prio_list_t *l, double key, uint32_t job)
{
	size_t c = prio_chunk_find(l, key, job);
	if (c == l->nc) { /* after every entry: into the last chunk */
		if (c == 0 || l->c[c - 1].n == PRIO_CHUNK)
			prio_chunk_open(l, c);
		else
			c--;
	}
	prio_chunk_t *ch = &l->c[c];
	if (ch->n == PRIO_CHUNK) { /* full: split in halves */
		prio_chunk_open(l, c + 1);
		ch = &l->c[c];
		prio_chunk_t *nx = &l->c[c + 1];
		nx->n = PRIO_CHUNK / 2;
		memcpy(nx->e, &ch->e[PRIO_CHUNK / 2], sizeof(prio_ent_t) * nx->n);
		ch->n = PRIO_CHUNK / 2;
		const prio_ent_t *last = &ch->e[ch->n - 1];
		if (prio_before(last->key, last->job, key, job))
			ch = nx;
	}
	uint32_t at = prio_slot_find(ch, key, job);
	memmove(&ch->e[at + 1], &ch->e[at], (ch->n - at) * sizeof(prio_ent_t));
	ch->e[at] = (prio_ent_t){ key, job };
	ch->n++;
	l->n++;
}

void prio_list_remove(prio_list_t *l, double key, uint32_t job)
{
	size_t c = prio_chunk_find(l, key, job);
	g_assert(c < l->nc);
	prio_chunk_t *ch = &l->c[c];
	uint32_t at = prio_slot_find(ch, key, job);
	g_assert(at < ch->n && ch->e[at].job == job);
	memmove(&ch->e[at], &ch->e[at + 1], (ch->n - at - 1) * sizeof(prio_ent_t));
	ch->n--;
	l->n--;
	prio_pos_t *t = l->track;
	if (t && t->c == c && t->p > at)
		t->p--;
	if (ch->n == 0) {
		g_free(ch->e);
		memmove(&l->c[c], &l->c[c + 1], (l->nc - c - 1) * sizeof(prio_chunk_t));
		l->nc--;
		if (t && t->c > c)
			t->c--;
		else if (t && t->c == c)
			t->p = 0; /* it was at the end of the removed chunk */
	} else if (ch->n < PRIO_CHUNK / 4 && c + 1 < l->nc && ch->n + l->c[c + 1].n <= PRIO_CHUNK) {
		/* a thin chunk takes in its successor, so chunks stay well filled */
		prio_chunk_t *nx = &l->c[c + 1];
		uint32_t base = ch->n;
		memcpy(&ch->e[base], nx->e, sizeof(prio_ent_t) * nx->n);
		ch->n += nx->n;
		g_free(nx->e);
		memmove(&l->c[c + 1], &l->c[c + 2], (l->nc - c - 2) * sizeof(prio_chunk_t));
		l->nc--;
		if (t && t->c == c + 1) {
			t->c = c;
			t->p += base;
		} else if (t && t->c > c + 1) {
			t->c--;
		}
	}
}
