/*
 * sacct_import.h: turn `sacct -P` output into nodeox trace rows.
 *
 * The pieces of nodeox-sacct-import that can be tested on their own: the
 * header (columns found by name), sacct's time and time-limit formats, the GPU
 * entries of ReqTRES/AllocTRES, one line into one job (with the original
 * request of a job job_submit/nodeox rewrote, read back from its AdminComment
 * by policy/policy_record.c), and the CSV writer.
 * The command itself (sacct_import_main.c) reads a file with these and sorts.
 * Plain C, no glib: the same code could run anywhere sacct output lands.
 */
#ifndef NODEOX_SACCT_IMPORT_H
#define NODEOX_SACCT_IMPORT_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "common/speed_record.h"

#define SACCT_ERR_MAX 256
#define SACCT_MAX_COLS 128
#define SACCT_TYPE_MAX 64
#define SACCT_TRES_MAX_GPU 32 /* gres/gpu entries in one TRES string */
#define SACCT_TEXT_MAX 8192   /* Comment, AdminComment kept up to this length */

/* The columns the importer reads; others in the input are ignored. */
typedef enum {
	SACCT_COL_JOBID = 0, /* JobIDRaw (or JobID) */
	SACCT_COL_USER,
	SACCT_COL_ACCOUNT,
	SACCT_COL_PARTITION,
	SACCT_COL_SUBMIT,
	SACCT_COL_START,
	SACCT_COL_END,
	SACCT_COL_TIMELIMIT,
	SACCT_COL_REQTRES,
	SACCT_COL_ALLOCTRES,
	SACCT_COL_COMMENT,
	SACCT_COL_NNODES,
	SACCT_COL_STATE,
	SACCT_COL_ADMINCOMMENT, /* job_submit/nodeox's record of the original request */
	SACCT_NCOLS
} sacct_col_t;

/* Where each column is in the input (-1: absent), from the header line. */
typedef struct {
	int index[SACCT_NCOLS];
	int ncols;         /* fields in the header */
	const char *delim; /* sacct --delimiter (not copied), "|" by default */
} sacct_header_t;

/* GPU entries of one TRES string. */
typedef struct {
	int64_t total;             /* gres/gpu=N, or the sum of typed entries; -1 none */
	char type[SACCT_TYPE_MAX]; /* the type with most GPUs, "" if untyped */
	int64_t type_count;
	int ntypes; /* distinct gres/gpu:TYPE entries */
} sacct_gpus_t;

/* What AdminComment holds (sacct_parse_line). */
typedef enum {
	SACCT_RECORD_NONE = 0, /* empty */
	SACCT_RECORD_REWRITE,  /* job_submit/nodeox's record: it broadened the job */
	SACCT_RECORD_DRYRUN,   /* a Mode=dryrun "would change" text (logged by
				* the plugin, not stored: copied there) */
	SACCT_RECORD_FOREIGN,  /* someone else's text (an admin's, or `scancel
				* --admin-comment` since 25.11, which replaces a
				* record): what nodeox did is not known */
} sacct_record_t;

/* One imported job. Strings are owned (malloc) and freed by sacct_job_clear. */
typedef struct {
	char *job_id, *user, *account, *partition, *comment, *state;
	char req_type[SACCT_TYPE_MAX];   /* requested GPU type, "" = any */
	char alloc_type[SACCT_TYPE_MAX]; /* type it got, "" if unknown */
	int64_t gpus;
	int64_t nodes;                    /* 0 if not known */
	int64_t cpus, mem_mb;             /* ReqTRES cpu=, mem=: what it asked (the
					  * defaults slurmctld filled in included);
					  * -1 if absent */
	int64_t alloc_cpus, alloc_mem_mb; /* AllocTRES cpu=, mem=: what it got; -1 */
	int64_t cpus_per_gpu;             /* what it got per GPU where it asked */
	int64_t mem_per_gpu_mb;           /* nothing sacct records (sacct_per_gpu):
					  * cpus or mem is then -1; 0: none */
	time_t submit;
	int64_t run_time;   /* End - Start, seconds */
	int64_t time_limit; /* seconds, -1 = none (UNLIMITED, Partition_Limit) */
	int multi_type;     /* request named several GPU types */
	int typed_tres;     /* ReqTRES/AllocTRES name a GPU type */
	int had_comment;    /* the Comment field was not empty */
	int recovered;      /* original request read from AdminComment */
	int record_legacy;  /* ... from a record written before v=1 */
	int record_unknown; /* AdminComment has a record of a newer version */
	long line;          /* input line, for ordering ties */
	/* what happened to it, for `nodeox report` (trace columns nodeox-sim
	 * ignores) */
	time_t start, end;     /* of its first and its last run */
	int64_t wait;          /* Start of its first run - Submit, seconds */
	int64_t alloc_gpus;    /* AllocTRES GPUs (of its last run) */
	int64_t gpu_seconds;   /* AllocTRES GPUs x run time, all runs */
	int requeues;          /* earlier runs (sacct -D rows, merged) */
	int tagged;            /* nodeox:flex in its comment or record */
	sacct_record_t record; /* what AdminComment holds */
	/* the speed record the job's runtime left in its Comment (issue 46;
	 * common/speed_record.h), read by sacct_job_speeds */
	speedrec_t *speeds; /* NULL: none, unreadable or of a later version */
	int speeds_rc;      /* speedrec_find's answer: 0 none, 1 read, 2 later, -1 bad */
} sacct_job_t;

/* What sacct_parse_line made of a line. */
typedef enum {
	SACCT_LINE_JOB = 0,   /* *job filled */
	SACCT_LINE_STEP,      /* a job step (JobIDRaw with '.'): not a job */
	SACCT_LINE_NO_GPU,    /* no GPUs requested or allocated */
	SACCT_LINE_UNSTARTED, /* never started (pending, cancelled while pending) */
	SACCT_LINE_RUNNING,   /* started, no End yet */
	SACCT_LINE_ERROR      /* malformed: err says which field and why */
} sacct_line_t;

/*
 * Read the header line (`sacct -P` prints one unless -n), fields separated by
 * delim (sacct's --delimiter; NULL: "|"), which must outlive h. Modifies
 * line. Returns 0, or -1 with err naming the missing column.
 */
int sacct_parse_header(char *line, const char *delim, sacct_header_t *h, char *err, size_t errlen);

/*
 * sacct time "YYYY-MM-DDTHH:MM:SS" (local time, as sacct prints it) to
 * seconds since the epoch. Returns 0, 1 for "Unknown"/"None"/empty, -1 if bad.
 */
int sacct_parse_time(const char *s, time_t *out);

/*
 * Timelimit: "[D-]HH:MM:SS", "[D-]HH:MM", "D-HH", "MM:SS", "MM" (minutes), as
 * Slurm reads them. Returns 0 with seconds, 1 for "UNLIMITED",
 * "Partition_Limit", empty or zero (no limit of its own), -1 if bad.
 */
int sacct_parse_timelimit(const char *s, int64_t *secs);

/*
 * GPU entries of a TRES string ("cpu=8,gres/gpu:a100=4,gres/gpu=4,mem=64G"),
 * read by the policy library's parser (policy/policy.h); each must have
 * sacct's "=COUNT". Returns 0, or -1 with err naming the bad entry.
 */
int sacct_parse_tres_gpus(const char *tres, sacct_gpus_t *out, char *err, size_t errlen);
/* The count of TRES `name` ("cpu", or "mem" in MB: sacct writes mem=N with a
 * K/M/G/T suffix) in a TRES string, -1 when it has none; -2 when it is not a
 * number. */
int64_t sacct_parse_tres_count(const char *tres, const char *name);

/*
 * Parse one data line (modified in place). A line with more delimiters than
 * the header is accepted when the extra ones can belong to the free-text
 * columns Comment and AdminComment: joined into the one present, or, with
 * both, placed first as AdminComment starting at the piece holding a nodeox
 * record (else all in Comment), then every other way, until one parses. A
 * nodeox record in AdminComment replaces the rewritten request by the
 * original one (type, count, tag, time limit). On SACCT_LINE_ERROR, err
 * holds "field NAME: reason" (of the first placement tried).
 */
sacct_line_t sacct_parse_line(const sacct_header_t *h, char *line, sacct_job_t *job, char *err,
			      size_t errlen);

void sacct_job_clear(sacct_job_t *job);

/* Read the speed record of job->comment (the last nodeox-speeds:v word)
 * into job->speeds (allocated, freed by sacct_job_clear); sets and returns
 * job->speeds_rc, with err saying why a bad record (-1) is bad. */
int sacct_job_speeds(sacct_job_t *job, char *err, size_t errlen);

/* The trace's `record` column: "rewrite", "dryrun", "foreign" or "". */
const char *sacct_record_name(sacct_record_t r);

/* Header and rows of the trace CSV; submit is written relative to t0. */
void sacct_write_header(FILE *out);
void sacct_write_job(FILE *out, const sacct_job_t *job, time_t t0);

#endif
