/*
 * sacct_history.c: a `sacct -P` history read whole into jobs (sacct_history.h),
 * for nodeox-sacct-import and `nodeox report`: the header, each line through
 * sacct_parse_line, the counts of what was skipped, the foreign AdminComments
 * named, and the runs of a requeued job merged into one job.
 */
#include "sim/sacct/sacct_history.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int job_cmp_submit(const void *a, const void *b)
{
	const sacct_job_t *x = a, *y = b;

	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

static int job_cmp_id_start(const void *a, const void *b)
{
	const sacct_job_t *x = a, *y = b;
	int c = strcmp(x->job_id, y->job_id);

	if (c)
		return c;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

/*
 * sacct -D prints a row per run of a requeued job, the same JobIDRaw in each
 * (REQUEUED, NODE_FAIL or PREEMPTED in all but the last; slurmctld sets
 * Submit to the requeue time for the next run). One job stays: the last run
 * (its state, type and run time), submitted when the first was, waiting
 * until the first started, with the GPU time of every run and the number
 * of earlier runs as its requeues.
 */
static void history_merge_requeued(sacct_history_t *hist)
{
	size_t i, j, out = 0;

	if (hist->njobs < 2)
		return;
	qsort(hist->jobs, hist->njobs, sizeof(*hist->jobs), job_cmp_id_start);
	for (i = 0; i < hist->njobs; i = j) {
		sacct_job_t *first = &hist->jobs[i];
		int64_t gpu_seconds = 0;

		for (j = i; j < hist->njobs && !strcmp(hist->jobs[j].job_id, first->job_id); j++)
			gpu_seconds += hist->jobs[j].gpu_seconds;
		sacct_job_t last = hist->jobs[j - 1];
		if (j - i > 1) {
			last.requeues = (int)(j - i - 1);
			last.submit = first->submit;
			last.wait = first->wait;
			last.start = first->start;
			last.gpu_seconds = gpu_seconds;
			last.line = first->line;
			hist->n_requeued += last.requeues;
			for (size_t k = i; k < j - 1; k++)
				sacct_job_clear(&hist->jobs[k]);
		}
		hist->jobs[out++] = last;
	}
	hist->njobs = out;
}

static void history_name_foreign(sacct_history_t *hist, const char *job_id)
{
	size_t used = strlen(hist->foreign_ids);

	if (hist->n_foreign++ >= SACCT_HISTORY_NAMED)
		return;
	snprintf(hist->foreign_ids + used, sizeof(hist->foreign_ids) - used, "%s%.20s", used ? " " : "",
		 job_id);
}

/* The job's speed record (its Comment), counted; a bad one is named once. */
static void history_speeds(sacct_history_t *hist, sacct_job_t *job)
{
	char err[SACCT_ERR_MAX];

	switch (sacct_job_speeds(job, err, sizeof(err))) {
	case 1: hist->n_speeds++; break;
	case 2: hist->n_speeds_later++; break;
	case -1:
		if (!hist->n_speeds_bad++)
			snprintf(hist->first_speeds_bad, sizeof(hist->first_speeds_bad), "job %s: %s",
				 job->job_id, err);
		break;
	default: break;
	}
}

static int history_keep(sacct_history_t *hist, size_t *cap, sacct_job_t *job)
{
	if (hist->njobs == *cap) {
		size_t ncap = *cap ? 2 * *cap : 1024;
		sacct_job_t *grown = realloc(hist->jobs, ncap * sizeof(*hist->jobs));

		if (!grown)
			return -1;
		hist->jobs = grown;
		*cap = ncap;
	}
	hist->jobs[hist->njobs++] = *job;
	return 0;
}

/* The columns of a trace that `nodeox report` needs, as sacct_write_job
 * writes them (those after alloc_mem: an older importer's trace lacks them). */
enum {
	TR_JOB_ID,
	TR_SUBMIT,
	TR_USER,
	TR_ACCOUNT,
	TR_PARTITION,
	TR_GPU_TYPE,
	TR_GPUS,
	TR_NODES,
	TR_RUN_TIME,
	TR_COMMENT,
	TR_STATE,
	TR_ALLOC_TYPE,
	TR_ALLOC_GPUS,
	TR_WAIT,
	TR_TURNAROUND,
	TR_REQUEUES,
	TR_GPU_SECONDS,
	TR_RECORD,
	TR_NCOLS
};
static const char *const tr_names[TR_NCOLS] = {
	"job_id",     "submit", "user",       "account",  "partition",   "gpu_type",
	"gpus",       "nodes",  "run_time",   "comment",  "state",       "alloc_gpu_type",
	"alloc_gpus", "wait",   "turnaround", "requeues", "gpu_seconds", "record",
};

/* Split a CSV line (RFC 4180, as csv_write_field writes: quotes doubled
 * inside a quoted field) in place into at most max fields; the count, or -1
 * for a quote left open. */
static int tr_split(char *line, char **f, int max)
{
	char *r = line, *w = line;
	int n = 0;

	for (;;) {
		if (n == max)
			return max + 1;
		f[n++] = w;
		if (*r == '"') {
			for (r++;; r++) {
				if (!*r)
					return -1;
				if (*r == '"' && r[1] == '"')
					*w++ = *r++;
				else if (*r == '"')
					break;
				else
					*w++ = *r;
			}
			r++;
		}
		while (*r && *r != ',')
			*w++ = *r++;
		if (!*r) {
			*w = '\0';
			return n;
		}
		*w++ = '\0';
		r++;
	}
}

/* A whole number field (empty: 0). */
static int tr_int(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!*s) {
		*out = 0;
		return 0;
	}
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end || errno)
		return -1;
	*out = v;
	return 0;
}

static char *tr_dup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return d;
}

/* One trace row into job; 0, or -1 with err naming the column. */
static int tr_row(char **f, const int *col, sacct_job_t *job, char *err, size_t errlen)
{
	static const int nums[] = { TR_SUBMIT, TR_GPUS,       TR_NODES,    TR_RUN_TIME,   TR_ALLOC_GPUS,
				    TR_WAIT,   TR_TURNAROUND, TR_REQUEUES, TR_GPU_SECONDS };
	int64_t v[TR_NCOLS] = { 0 };
	const char *rec;

	memset(job, 0, sizeof(*job));
	if (!*f[col[TR_JOB_ID]]) {
		snprintf(err, errlen, "column job_id: empty");
		return -1;
	}
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		const char *s = col[nums[i]] >= 0 ? f[col[nums[i]]] : "";

		if (tr_int(s, &v[nums[i]]) < 0 || v[nums[i]] < 0) {
			snprintf(err, errlen, "column %s: '%.40s' is not a whole number of seconds or GPUs",
				 tr_names[nums[i]], s);
			return -1;
		}
	}
	rec = f[col[TR_RECORD]];
	if (!strcmp(rec, "rewrite"))
		job->record = SACCT_RECORD_REWRITE;
	else if (!strcmp(rec, "dryrun"))
		job->record = SACCT_RECORD_DRYRUN;
	else if (!strcmp(rec, "foreign"))
		job->record = SACCT_RECORD_FOREIGN;
	else if (*rec) {
		snprintf(err, errlen, "column record: '%.40s' is not rewrite, dryrun, foreign or empty", rec);
		return -1;
	}
#define TR_TEXT(c) (col[c] >= 0 ? f[col[c]] : "")
	snprintf(job->req_type, sizeof(job->req_type), "%s", TR_TEXT(TR_GPU_TYPE));
	snprintf(job->alloc_type, sizeof(job->alloc_type), "%s", TR_TEXT(TR_ALLOC_TYPE));
	job->job_id = tr_dup(f[col[TR_JOB_ID]]);
	job->user = tr_dup(TR_TEXT(TR_USER));
	job->account = tr_dup(TR_TEXT(TR_ACCOUNT));
	job->partition = tr_dup(TR_TEXT(TR_PARTITION));
	job->comment = tr_dup(TR_TEXT(TR_COMMENT));
	job->state = tr_dup(TR_TEXT(TR_STATE));
#undef TR_TEXT
	job->gpus = v[TR_GPUS];
	job->nodes = v[TR_NODES];
	job->run_time = v[TR_RUN_TIME];
	job->time_limit = -1;
	job->alloc_gpus = v[TR_ALLOC_GPUS];
	job->wait = v[TR_WAIT];
	job->requeues = (int)v[TR_REQUEUES];
	job->gpu_seconds = v[TR_GPU_SECONDS];
	job->submit = (time_t)v[TR_SUBMIT];
	job->start = job->submit + (time_t)job->wait;
	job->end = job->submit + (time_t)v[TR_TURNAROUND];
	job->tagged = strstr(job->comment, "nodeox:flex") != NULL;
	job->recovered = job->record == SACCT_RECORD_REWRITE;
	job->had_comment = *job->comment != '\0';
	return 0;
}

/* The rest of a trace nodeox-sacct-import wrote, after its header line. */
static int history_read_trace(FILE *in, const char *name, char *header, const sacct_history_opts_t *opts,
			      sacct_history_t *hist, size_t *jcap)
{
	char *f[SACCT_MAX_COLS + 1], *line = NULL, err[SACCT_ERR_MAX];
	int col[TR_NCOLS], n, rc = 0;
	size_t cap = 0;
	long lineno = 1;

	header[strcspn(header, "\r\n")] = '\0';
	n = tr_split(header, f, SACCT_MAX_COLS);
	if (n < 0 || n > SACCT_MAX_COLS) {
		fprintf(stderr, "%s: %s:1: trace header: %s\n", opts->prog, name,
			n < 0 ? "a quote is left open" : "more columns than a trace has");
		return 1;
	}
	for (int c = 0; c < TR_NCOLS; c++) {
		col[c] = -1;
		for (int i = 0; i < n; i++)
			if (!strcmp(f[i], tr_names[c]))
				col[c] = i;
	}
	for (int c = 0; c < TR_NCOLS; c++)
		if (col[c] < 0 && (c == TR_JOB_ID || c == TR_SUBMIT || c == TR_RUN_TIME || c >= TR_STATE)) {
			fprintf(stderr,
				"%s: %s:1: no %s column: not a trace of this nodeox-sacct-import (the "
				"columns "
				"from alloc_gpus on are newer); give sacct's output instead\n",
				opts->prog, name, tr_names[c]);
			return 1;
		}
	while (getline(&line, &cap, in) != -1) {
		sacct_job_t job;

		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (!*line)
			continue;
		n = tr_split(line, f, SACCT_MAX_COLS);
		if (n < 0)
			snprintf(err, sizeof(err), "a quote is left open");
		else if (n <= col[TR_RECORD] || n <= col[TR_STATE])
			snprintf(err, sizeof(err), "%d fields, the header has more (line cut short?)", n);
		if (n < 0 || n <= col[TR_RECORD] || n <= col[TR_STATE] ||
		    tr_row(f, col, &job, err, sizeof(err)) < 0) {
			if (!opts->skip_bad) {
				fprintf(stderr, "%s: %s:%ld: %s\n", opts->prog, name, lineno, err);
				rc = 1;
				break;
			}
			if (!hist->n_bad++)
				snprintf(hist->first_bad, sizeof(hist->first_bad), "%s:%ld: %s", name, lineno,
					 err);
			if (opts->warn && (!opts->warn_max || hist->n_bad <= opts->warn_max))
				fprintf(opts->warn, "%s: %s:%ld: %s (line skipped)\n", opts->prog, name,
					lineno, err);
			continue;
		}
		job.line = lineno;
		history_speeds(hist, &job);
		hist->n_recovered += job.recovered;
		hist->n_commented += job.had_comment;
		hist->n_requeued += job.requeues;
		if (job.record == SACCT_RECORD_FOREIGN)
			history_name_foreign(hist, job.job_id);
		if (history_keep(hist, jcap, &job) < 0) {
			fprintf(stderr, "%s: out of memory after %zu jobs\n", opts->prog, hist->njobs);
			sacct_job_clear(&job);
			rc = 2;
			break;
		}
	}
	free(line);
	hist->trace = 1;
	return rc;
}

int sacct_history_read(FILE *in, const char *name, const sacct_history_opts_t *opts, sacct_history_t *hist)
{
	char *line = NULL, err[SACCT_ERR_MAX];
	size_t cap = 0, jcap = 0;
	long lineno = 0;
	int have_header = 0, rc = 0;

	memset(hist, 0, sizeof(*hist));
	while (getline(&line, &cap, in) != -1) {
		sacct_job_t job;

		lineno++;
		if (line[strspn(line, " \t\r\n")] == '\0')
			continue;
		if (!have_header && !strncmp(line, "job_id,", 7)) {
			rc = history_read_trace(in, name, line, opts, hist, &jcap);
			if (rc == 0 && hist->njobs)
				qsort(hist->jobs, hist->njobs, sizeof(*hist->jobs), job_cmp_submit);
			goto done;
		}
		if (!have_header) {
			if (sacct_parse_header(line, opts->delim ? opts->delim : "|", &hist->header, err,
					       sizeof(err)) < 0) {
				fprintf(stderr, "%s: %s:%ld: %s\n", opts->prog, name, lineno, err);
				rc = 1;
				goto done;
			}
			have_header = 1;
			continue;
		}
		switch (sacct_parse_line(&hist->header, line, &job, err, sizeof(err))) {
		case SACCT_LINE_STEP: hist->n_step++; continue;
		case SACCT_LINE_NO_GPU: hist->n_nogpu++; continue;
		case SACCT_LINE_UNSTARTED: hist->n_unstarted++; continue;
		case SACCT_LINE_RUNNING: hist->n_running++; continue;
		case SACCT_LINE_ERROR:
			if (!opts->skip_bad) {
				fprintf(stderr, "%s: %s:%ld: %s\n", opts->prog, name, lineno, err);
				rc = 1;
				goto done;
			}
			if (!hist->n_bad++)
				snprintf(hist->first_bad, sizeof(hist->first_bad), "%s:%ld: %s", name, lineno,
					 err);
			if (opts->warn && (!opts->warn_max || hist->n_bad <= opts->warn_max))
				fprintf(opts->warn, "%s: %s:%ld: %s (line skipped)\n", opts->prog, name,
					lineno, err);
			continue;
		case SACCT_LINE_JOB: break;
		}
		job.line = lineno;
		history_speeds(hist, &job);
		hist->n_multi += job.multi_type;
		hist->n_typed += job.typed_tres;
		hist->n_commented += job.had_comment;
		hist->n_recovered += job.recovered;
		hist->n_legacy += job.record_legacy;
		hist->n_unknown += job.record_unknown;
		if (job.record == SACCT_RECORD_FOREIGN)
			history_name_foreign(hist, job.job_id);
		if (history_keep(hist, &jcap, &job) < 0) {
			fprintf(stderr, "%s: out of memory after %zu jobs\n", opts->prog, hist->njobs);
			sacct_job_clear(&job);
			rc = 2;
			goto done;
		}
	}
	if (ferror(in)) {
		fprintf(stderr, "%s: %s: read error: %s\n", opts->prog, name, strerror(errno));
		rc = 1;
		goto done;
	}
	if (!have_header) {
		fprintf(stderr, "%s: %s: empty input (no sacct header line)\n", opts->prog, name);
		rc = 1;
		goto done;
	}
	history_merge_requeued(hist);
	if (hist->njobs)
		qsort(hist->jobs, hist->njobs, sizeof(*hist->jobs), job_cmp_submit);
done:
	free(line);
	return rc;
}

void sacct_history_free(sacct_history_t *hist)
{
	for (size_t i = 0; i < hist->njobs; i++)
		sacct_job_clear(&hist->jobs[i]);
	free(hist->jobs);
	hist->jobs = NULL;
	hist->njobs = 0;
}
