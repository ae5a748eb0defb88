/*
 * rt_speedrec.h: the speed record nodeox-run leaves in its job's Comment at
 * the end of a run under Slurm (format: common/speed_record.h; what reads it:
 * `nodeox speeds`, nodeox(1)). Each rank keeps its mean step time of every
 * interval (rt_speedrec_observe, from the loop); at the end the ranks'
 * medians after warm-up are gathered with their GPU types (rt_alloc.h), and
 * rank 0, once MPI is finalized (no fork while MPI runs), reads the job's
 * Comment with squeue, appends the record (an older one replaced, the
 * user's tag and text kept) and stores it with `scontrol update JobId=ID
 * Comment=...`. Nothing here fails the job: a record that cannot be made
 * or stored is one warning line on stderr.
 *
 *   rt_speedrec_observe   every interval, each rank (rt_loop.c)
 *   rt_speedrec_gather    collective, before nodeox_rt_finalize
 *   rt_speedrec_store     rank 0, after nodeox_rt_finalize
 */
#ifndef NODEOX_RT_SPEEDREC_H
#define NODEOX_RT_SPEEDREC_H

#include <stddef.h>

#include "common/speed_record.h"
#include "runtime/nodeox_rt.h"
#include "runtime/rt_alloc.h"

#define RT_SPEEDREC_SAMPLES 512  /* intervals kept per rank (every k-th past that) */
#define RT_SPEEDREC_COMMENT 1024 /* Slurm refuses a longer Comment (_test_job_desc_fields) */
#define RT_SPEEDREC_TIMEOUT_S 30 /* squeue or scontrol taking longer is killed */

/* One rank's part, the same size on every rank (all-gathered as bytes). */
typedef struct {
	char type[32];    /* GPU type (rt_alloc's), "" unknown */
	double median_ms; /* median step after warm-up, 0: none measured */
	long batch;       /* its batch per step */
} rt_speedrec_rank_t;

/* The median of this rank's kept intervals after warm-up: the first tenth
 * of them (at least one, when there are two or more) left out. 0: none. */
double rt_speedrec_median(const double *ms, int n);

/* The record's types from every rank's part: ranks grouped by type (in
 * order of first rank), per type the median of its ranks' medians, their
 * count, their batch (0 when they differ). Ranks without a type or a time
 * are left out. Returns the number of types (0: nothing to record). */
int rt_speedrec_summarise(const rt_speedrec_rank_t *all, int world, speedrec_t *rec);

/* Collective. Fills *rec on rank 0 (workload left empty: rt_speedrec_store
 * takes it from the job); returns its number of types there, 0 elsewhere or
 * when nothing is to be recorded (not under srun, --no-speed-record). */
int rt_speedrec_gather(nodeox_rt_t *rt, const rt_alloc_t *a, long batch, speedrec_t *rec);

/* Rank 0, MPI finalized: the workload (the tag's workload=, else
 * $SLURM_JOB_NAME), the Comment composed, and stored. Returns 0, or -1 with
 * the reason in err (the caller warns; the job's exit status is not touched). */
int rt_speedrec_store(speedrec_t *rec, char *err, size_t errlen);

/* The Comment to store for job comment (as squeue prints it: "(null)" for
 * none) and rec: the workload from the tag or job_name filled into rec,
 * formatted and composed. Returns 0, or -1 with err. Pure (unit-tested). */
int rt_speedrec_comment(const char *comment, const char *job_name, speedrec_t *rec, char *out, size_t cap,
			char *err, size_t errlen);

#endif
