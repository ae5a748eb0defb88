/*
 * sacct_history.c: a `sacct -P` history read whole into jobs (sacct_history.h),
 * for nodeox-sacct-import and `nodeox report`: the header, each line through
 * sacct_parse_line, the counts of what was skipped, the foreign AdminComments
 * named, and the runs of a requeued job merged into one job.
 */
#include "sim/sacct_history.h"

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
