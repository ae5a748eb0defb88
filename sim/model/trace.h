/*
 * trace.h: the job trace the simulator replays (read from CSV by trace.c).
 *
 * A trace is an array of jobs sorted by submit time (ties keep file order).
 * Strings are interned in one GStringChunk owned by the trace, so a million
 * jobs from a few hundred users cost a few pointers each.
 */
#ifndef SIM_TRACE_H
#define SIM_TRACE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "policy/policy.h"

#define SIM_TIME_NONE INT64_MAX /* no time limit given / unlimited */

typedef struct {
	uint32_t id;                            /* job_id column, else the row number */
	int line;                               /* line in the trace file */
	int64_t submit;                         /* seconds from trace start */
	int64_t run_time;                       /* seconds on the requested GPU type */
	int64_t time_limit;                     /* seconds, or SIM_TIME_NONE */
	uint64_t mem_mb;                        /* total memory, 0 = not given */
	uint64_t mem_per_gpu_mb;                /* sbatch --mem-per-gpu, 0 = not given */
	uint32_t gpus;                          /* total GPUs */
	uint32_t nodes;                         /* 0 = not given (GPUs may spread over nodes) */
	uint32_t cpus;                          /* total CPUs asked (tasks x --cpus-per-task), 0 = not
				   * given: 1 per task (sched_request.c) */
	uint32_t cpus_per_gpu;                  /* sbatch --cpus-per-gpu, 0 = not given */
	bool tagged;                            /* nodeox:flex in comment, or flex=1 */
	bool rounds;                            /* uses the heterogeneous-rounds runtime */
	const char *user, *account, *partition; /* NULL = not given */
	const char *qos;                        /* sbatch --qos, NULL = not given */
	const char *gpu_type;                   /* NULL = any type */
	const char *comment;                    /* NULL = none */
	const char *features;                   /* --constraint, NULL = none */
	const char *class_name;                 /* workload class, NULL = none */
} sim_job_t;

typedef struct {
	char *path;
	sim_job_t *jobs;
	size_t njobs;
	size_t skipped; /* bad rows skipped with --skip-bad */
	int64_t epoch;  /* Unix time of second 0 when submit was ISO-8601, else 0 */
	GStringChunk *strings;
} sim_trace_t;

typedef struct {
	bool skip_bad;             /* count and report bad rows instead of failing */
	const nodeox_conf_t *conf; /* for the tag parser; NULL: tag found by its prefix only */
	FILE *warn;                /* where skipped rows are reported (NULL: nowhere) */
	/* nodeox-sim --cpus-per-gpu / --mem-per-gpu: what a row that gives
	 * neither cpus nor cpus_per_gpu (mem nor mem_per_gpu) is taken to
	 * have asked; 0: nothing (Slurm's defaults apply) */
	uint32_t cpus_per_gpu;
	uint64_t mem_per_gpu_mb;
} sim_trace_opts_t;

/* Read a CSV trace. Returns 0, or -1 with "FILE:LINE: column C: what" in err. */
int trace_read(const char *path, const sim_trace_opts_t *opts, sim_trace_t **out, char *err, size_t errlen);
void trace_free(sim_trace_t *t);

/* "2024-05-01T12:00:00[.fff][Z|+HH:MM]" (or a space for T) to Unix seconds.
 * A time without a zone is taken as UTC. Returns 0, or -1. */
int trace_parse_iso8601(const char *s, int64_t *out);
/* Seconds ("3600") or Slurm's [D-]HH:MM:SS, MM:SS, D-HH, D-HH:MM; "UNLIMITED",
 * "INFINITE" or "" give SIM_TIME_NONE. Returns 0, or -1. */
int trace_parse_duration(const char *s, int64_t *out);
/* Slurm's time format only (a plain number is minutes, as in slurm.conf), in
 * seconds, rounded up to whole minutes as slurmctld keeps it. */
int trace_parse_slurm_minutes(const char *s, int64_t *seconds);

#endif
