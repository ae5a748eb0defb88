/*
 * prio.h: job priority as Slurm's priority/multifactor computes and stores
 * it (the factors, their weighted sum, and the integer slurmctld keeps), and
 * a list of pending jobs ordered by priority (key descending, then
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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------ factors */

/* The age factor, 0 to 1 (priority_multifactor.c, set_priority_factors):
 * the seconds since the job began to accrue age over PriorityMaxAge, 1 from
 * there on; 0 before it accrues. */
double prio_age_factor(int64_t age_s, int64_t max_age_s);

/* The job-size factor, 0 to 1 (set_priority_factors, its weight_js block):
 * favour large, the default: (min_nodes / nodes + cpus / cluster CPUs) / 2;
 * PriorityFavorSmall: the shares left free, (1 - n) + (1 - c), halved (a job
 * of no CPUs counts its nodes only, not halved, in both); with
 * PriorityFlags=SMALL_RELATIVE_TO_TIME (size_relative): the job's CPUs (at
 * least min_nodes times the cluster's mean CPUs per node) over its time
 * limit in minutes, over the cluster's CPUs (1 less that, favouring small).
 * nodes and cluster_cpus are every node and CPU slurm.conf defines
 * (node_record_count, cluster_cpus). */
double prio_size_factor(uint32_t min_nodes, uint32_t cpus, uint32_t nodes, uint32_t cluster_cpus,
			bool favor_small, bool size_relative, uint32_t time_limit_min);

/* What slurmctld stores as job_ptr->priority from the sum of the weighted
 * factors (_get_priority_internal, the same in 22.05 to 26.05): below 1 it
 * is 1 (0 means held), above 2^32 - 1 it is that, and otherwise the sum
 * truncated to an integer: (uint32_t)priority. */
uint32_t prio_store(double weighted_sum);

/* ------------------------------------------------------------ the list */

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
