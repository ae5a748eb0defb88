/*
 * speeds.h: `nodeox speeds [options] HISTORY` (nodeox(1), SPEEDS): the speed
 * table of nodeox.conf's SpeedTable= made from what jobs measured. The
 * history is sacct's (or nodeox-sacct-import's trace), read with
 * libnodeox_sacct; each job's speed record (its Comment, written by the
 * runtime: common/speed_record.h) gives its time per sample on each GPU
 * type it ran on (step time / batch; the step time when the batch is not
 * known).
 *
 * Per scope (workload, user, account) and name, and per GPU type, the
 * jobs' times are summarised by their median and their relative spread,
 * (Q3 - Q1) / median; for each two types A and R measured under a name,
 * the entry "SCOPE NAME A R SPEED JOBS SPREAD" gives SPEED = median(A) /
 * median(R) (R's speed relative to A), JOBS the jobs measured on either,
 * SPREAD the sum of the two types' spreads (a ratio's relative error is
 * at most the sum of its terms'). An entry whose types have fewer than
 * --min-jobs jobs each, or a spread above --max-spread, is left out, and
 * the tool says so.
 *
 *   speeds_build.c  the entries from the jobs (pure: unit-tested)
 *   speeds_cmd.c    the command: options, reading, writing, messages
 */
#ifndef NODEOX_CLI_SPEEDS_H
#define NODEOX_CLI_SPEEDS_H

#include <stdio.h>
#include <time.h>

#include "policy/policy.h"
#include "sim/sacct/sacct_import.h"

#define SPEEDS_MIN_JOBS 3     /* default --min-jobs */
#define SPEEDS_MAX_SPREAD 0.5 /* default --max-spread */

typedef struct {
	int min_jobs;      /* jobs on each of the two types, at least */
	double max_spread; /* an entry's spread at most */
} speeds_opts_t;

typedef enum {
	SPEEDS_KEPT = 0,
	SPEEDS_FEW_JOBS, /* a type with fewer than min_jobs jobs */
	SPEEDS_WIDE,     /* spread above max_spread */
	SPEEDS_RANGE,    /* speed or spread outside what a table holds */
} speeds_verdict_t;

typedef struct {
	nodeox_speed_t e;   /* scope, name, asked, run, speed, jobs, spread */
	int n_asked, n_run; /* jobs measured on asked, on run */
	double spread_asked, spread_run;
	speeds_verdict_t verdict;
} speeds_row_t;

typedef struct {
	speeds_row_t *rows; /* by scope, name, asked, run */
	size_t nrows, nkept;
	long jobs;              /* jobs read */
	long with_record;       /* of them with a speed record */
	long bad_names;         /* names (workload, user, account, type) a table cannot hold */
	long single;            /* names measured on one GPU type only: no entry to give */
	char single_first[160]; /* "SCOPE NAME (TYPE, N jobs)" of the first of them */
	time_t first, last;     /* earliest start, latest end of the jobs with a record */
} speeds_result_t;

/* The entries from n jobs (their speeds read by sacct_job_speeds). Returns
 * 0, or -1 when out of memory. */
int speeds_build(const sacct_job_t *jobs, size_t n, const speeds_opts_t *o, speeds_result_t *r);
void speeds_result_free(speeds_result_t *r);

/* The table: the header (made=, from=), a comment line (NULL: none), the
 * kept entries. Returns 0, or -1 when the writer refuses made or from. */
int speeds_write(FILE *out, const speeds_result_t *r, const char *made, const char *from,
		 const char *comment);

/* One line on err for each pair of types left out, saying why. */
void speeds_say_left_out(FILE *err, const char *prog, const speeds_result_t *r, const speeds_opts_t *o);

int speeds_cmd_run(int argc, char **argv);

#endif
