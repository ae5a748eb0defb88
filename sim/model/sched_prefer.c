/*
 * sched_prefer.c: a job's --prefer as slurmctld schedules it (22.05 and
 * 24.11 alike; doc/simulator.md, "--prefer"). A job with prefer features has
 * two records in the scheduler's queue, the first with the prefer features
 * in place of its constraint (job_queue_append_internal: use_prefer), so
 * every pass tries the job as if --prefer were its constraint first:
 *  - the main pass (job_scheduler.c, _schedule) tries only that record when
 *    it does not fit, since its failure (ESLURM_NODES_BUSY) marks the
 *    partition failed and the job's second record is skipped with the rest;
 *  - backfill (backfill.c) tests the first record for a start now only
 *    (TEST_NOW_ONLY: no reservation), then the second as any other job.
 * Here the first record is the job's second request, s->preq[j], built at
 * submission; sched_prefer_swap() puts it in s->req[j] for one try and back,
 * as slurmctld swaps details->features_use and feature_list_use.
 * From 25.11.1 and 26.05 a prefer record that does not fit leaves its
 * partition open (job_scheduler.c, _schedule: `if (!use_prefer)
 * fail_by_part = true;`), so the main pass tries the second record at once.
 */
#include <stdio.h>
#include <string.h>

#include "sim/model/sched_internal.h"

/* Job j's prefer request, from its request r (already filled) with the
 * classes of elig `pe` (the prefer features as its constraint). */
void sched_prefer_set(sched_t *s, uint32_t j, const elig_t *pe)
{
	req_t *p = &s->preq[j];
	*p = s->req[j];
	p->elig = pe;
	p->fail_epoch = UINT64_MAX;
	p->kind = sched_request_kind(p);
}

bool sched_prefer_swap(sched_t *s, uint32_t j)
{
	if (!s->preq[j].elig)
		return false;
	req_t tmp = s->req[j];
	s->req[j] = s->preq[j];
	s->preq[j] = tmp;
	return true;
}

bool sched_prefer_keeps_part(const sched_t *s)
{
	return cluster_slurm_has(s->c, SIM_CHG_PREFER_KEEPS_PART);
}
