/*
 * sacct_history.h: a whole `sacct -P` history read into jobs, the one reader
 * behind nodeox-sacct-import (which writes them as a trace) and `nodeox
 * report` (which tells what happened to them). Line by line through
 * sacct_import.h's parsers (or a trace the importer wrote, read back); bad
 * lines are named (FILE:LINE: field NAME:
 * reason) and either stop the read or are skipped and counted; the runs of a
 * requeued job (sacct -D prints one row per run) become one job with its
 * requeues counted.
 *
 * Layout: this and sacct_import.c form libnodeox_sacct (traces/Makefile.inc),
 * plain C without glib, linked by nodeox-sacct-import, the `nodeox` command
 * (cli/report_*.c) and their tests, so the importer and the report read
 * accounting the same way; nodeox-sim reads the importer's trace
 * (sim/model/trace.c) and ignores the columns only the report needs.
 */
#ifndef NODEOX_SACCT_HISTORY_H
#define NODEOX_SACCT_HISTORY_H

#include <stdio.h>

#include "sim/sacct/sacct_import.h"

#define SACCT_HISTORY_NAMED 5 /* job ids named per warning */

typedef struct {
	const char *prog;  /* prefix of messages ("nodeox-sacct-import") */
	const char *delim; /* sacct --delimiter, NULL: "|" */
	int skip_bad;      /* skip malformed lines (counted, each named on warn) */
	FILE *warn;        /* where skipped lines are named; NULL: nowhere */
	int warn_max;      /* at most this many named (0: all) */
} sacct_history_opts_t;

typedef struct {
	sacct_job_t *jobs; /* sorted by submit time, then input line */
	size_t njobs;
	sacct_header_t header;
	long n_step, n_nogpu, n_unstarted, n_running, n_bad, n_multi;
	long n_typed, n_commented, n_recovered, n_legacy, n_unknown;
	long n_foreign;                             /* AdminComment that is not job_submit/nodeox's */
	long n_requeued;                            /* runs merged into a later run of their job (sacct -D) */
	char foreign_ids[SACCT_HISTORY_NAMED * 24]; /* the first of them, blank-separated */
	char first_bad[SACCT_ERR_MAX + 64];         /* "FILE:LINE: what" of the first bad line */
	int trace;                                  /* read from a trace, not from sacct */
	long n_speeds, n_speeds_bad, n_speeds_later; /* speed records read, unreadable, of a later version */
	char first_speeds_bad[SACCT_ERR_MAX + 64];   /* "job ID: what" of the first unreadable one */
} sacct_history_t;

/*
 * Read sacct output from in (named name in messages), or a trace
 * nodeox-sacct-import wrote (its header starts "job_id,"; the columns from
 * alloc_gpus on needed: what happened to each job; times relative to its
 * first submit; bad rows named FILE:LINE: column NAME: reason). Returns 0; 1 when a
 * line is malformed without skip_bad, or the header or the input cannot be
 * read, with the message printed on stderr; 2 when out of memory. The
 * history is filled as far as it was read in every case.
 */
int sacct_history_read(FILE *in, const char *name, const sacct_history_opts_t *opts, sacct_history_t *hist);

void sacct_history_free(sacct_history_t *hist);

#endif
