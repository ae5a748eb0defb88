/*
 * sacct_import_main.c: nodeox-sacct-import, the command. Reads `sacct -P`
 * output (a file or stdin), keeps the GPU jobs that ran, writes them as a
 * nodeox trace CSV sorted by submit time (seconds from the first submit), and
 * says on stderr what it skipped and why, and which slurm.conf accounting
 * setting the input shows to be missing. See nodeox-sacct-import(1).
 */
#include "config.h"
#include "sim/sacct_import.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define PROG "nodeox-sacct-import"

static void usage(FILE *to)
{
	fprintf(to, "Usage: " PROG " [-o FILE] [-d DELIM] [--skip-bad] [FILE]\n"
		    "Convert `sacct -a -X -P --format=JobIDRaw,User,Account,Partition,Submit,Start,End,\n"
		    "Timelimit,ReqTRES,AllocTRES,NNodes,State,Comment,AdminComment` output (FILE, or\n"
		    "stdin) into a nodeox-sim trace CSV.\n"
		    "  -o, --output FILE  write the trace here (default stdout)\n"
		    "  -d, --delimiter S  the field delimiter given to sacct --delimiter (default |)\n"
		    "  -k, --skip-bad     skip malformed lines (counted) instead of stopping\n"
		    "  -q, --quiet        no summary on stderr\n"
		    "  -h, --help         this text\n"
		    "  -V, --version      print the version\n");
}

/*
 * What the input shows about slurm.conf's accounting settings (each one
 * loses part of the workload, see nodeox-sacct-import(1) REQUIREMENTS).
 * Warnings, not errors: the trace is written all the same.
 */
static void warn_missing(const sacct_header_t *h, size_t njobs, long n_nogpu, long n_typed, long n_commented,
			 long n_legacy, long n_unknown)
{
	if (!njobs && n_nogpu)
		fprintf(stderr, PROG ": warning: no job has GPUs in ReqTRES or AllocTRES: "
				     "AccountingStorageTRES in slurm.conf must list gres/gpu\n");
	if (njobs && !n_typed)
		fprintf(stderr,
			PROG ": warning: no GPU type in any ReqTRES or AllocTRES: "
			     "without gres/gpu:TYPE for each type in AccountingStorageTRES (slurm.conf), "
			     "jobs import as asking for any type unless job_submit/nodeox recorded them\n");
	if (h->index[SACCT_COL_COMMENT] < 0)
		fprintf(stderr,
			PROG ": warning: no Comment column: nodeox:flex tags of jobs "
			     "job_submit/nodeox did not rewrite are lost (add Comment to --format)\n");
	else if (njobs && !n_commented)
		fprintf(stderr, PROG ": warning: no job has a Comment: Slurm stores --comment only "
				     "with AccountingStoreFlags=job_comment in slurm.conf; without it the "
				     "nodeox:flex tags of jobs job_submit/nodeox did not rewrite are lost\n");
	if (h->index[SACCT_COL_ADMINCOMMENT] < 0)
		fprintf(stderr,
			PROG ": warning: no AdminComment column: jobs job_submit/nodeox "
			     "rewrote import as rewritten (untyped, scaled time limit); add AdminComment "
			     "to --format\n");
	if (n_legacy)
		fprintf(stderr,
			PROG ": warning: %ld jobs carry a nodeox record from before "
			     "format v=1: their type and time limit are restored, their tag options are "
			     "not known (written as nodeox:flex)\n",
			n_legacy);
	if (n_unknown)
		fprintf(stderr,
			PROG ": warning: %ld jobs carry a nodeox record of a newer format "
			     "than v=1: imported as rewritten; use a newer nodeox-sacct-import\n",
			n_unknown);
}

static int job_cmp(const void *a, const void *b)
{
	const sacct_job_t *x = a, *y = b;

	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "delimiter", required_argument, NULL, 'd' },
		{ "skip-bad", no_argument, NULL, 'k' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *in_name = "-", *out_name = "-", *delim = "|";
	int skip_bad = 0, quiet = 0, c;
	FILE *in, *out;
	char *line = NULL;
	size_t cap = 0;
	long lineno = 0;
	sacct_header_t h;
	char err[SACCT_ERR_MAX], first_bad[SACCT_ERR_MAX + 64] = "";
	sacct_job_t *jobs = NULL;
	size_t njobs = 0, jcap = 0, i;
	long n_step = 0, n_nogpu = 0, n_unstarted = 0, n_running = 0, n_bad = 0, n_multi = 0;
	long n_typed = 0, n_commented = 0, n_recovered = 0, n_legacy = 0, n_unknown = 0;
	int have_header = 0, rc = 0;

	while ((c = getopt_long(argc, argv, "o:d:kqhV", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out_name = optarg; break;
		case 'd':
			delim = optarg;
			if (!*delim || strpbrk(delim, "\r\n")) {
				fprintf(stderr, PROG ": --delimiter: must be non-empty, without a newline\n");
				return 2;
			}
			break;
		case 'k': skip_bad = 1; break;
		case 'q': quiet = 1; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf(PROG " (nodeox) %s\n", PACKAGE_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind + 1 < argc) {
		fprintf(stderr, PROG ": one input file at most\n");
		usage(stderr);
		return 2;
	}
	if (optind < argc)
		in_name = argv[optind];
	in = strcmp(in_name, "-") ? fopen(in_name, "r") : stdin;
	if (!in) {
		fprintf(stderr, PROG ": %s: %s\n", in_name, strerror(errno));
		return 1;
	}
	if (!strcmp(in_name, "-"))
		in_name = "<stdin>";

	while (getline(&line, &cap, in) != -1) {
		sacct_job_t job;
		sacct_line_t kind;

		lineno++;
		if (!have_header) {
			if (line[strspn(line, " \t\r\n")] == '\0')
				continue;
			if (sacct_parse_header(line, delim, &h, err, sizeof(err)) < 0) {
				fprintf(stderr, PROG ": %s:%ld: %s\n", in_name, lineno, err);
				rc = 1;
				goto done;
			}
			have_header = 1;
			continue;
		}
		if (line[strspn(line, " \t\r\n")] == '\0')
			continue;
		kind = sacct_parse_line(&h, line, &job, err, sizeof(err));
		switch (kind) {
		case SACCT_LINE_STEP: n_step++; continue;
		case SACCT_LINE_NO_GPU: n_nogpu++; continue;
		case SACCT_LINE_UNSTARTED: n_unstarted++; continue;
		case SACCT_LINE_RUNNING: n_running++; continue;
		case SACCT_LINE_ERROR:
			if (!skip_bad) {
				fprintf(stderr, PROG ": %s:%ld: %s\n", in_name, lineno, err);
				rc = 1;
				goto done;
			}
			if (!n_bad++)
				snprintf(first_bad, sizeof(first_bad), "%s:%ld: %s", in_name, lineno, err);
			continue;
		case SACCT_LINE_JOB: break;
		}
		job.line = lineno;
		n_multi += job.multi_type;
		n_typed += job.typed_tres;
		n_commented += job.had_comment;
		n_recovered += job.recovered;
		n_legacy += job.record_legacy;
		n_unknown += job.record_unknown;
		if (njobs == jcap) {
			size_t ncap = jcap ? 2 * jcap : 1024;
			sacct_job_t *grown = realloc(jobs, ncap * sizeof(*jobs));

			if (!grown) {
				fprintf(stderr, PROG ": out of memory after %zu jobs\n", njobs);
				sacct_job_clear(&job);
				rc = 2;
				goto done;
			}
			jobs = grown;
			jcap = ncap;
		}
		jobs[njobs++] = job;
	}
	if (ferror(in)) {
		fprintf(stderr, PROG ": %s: read error: %s\n", in_name, strerror(errno));
		rc = 1;
		goto done;
	}
	if (!have_header) {
		fprintf(stderr, PROG ": %s: empty input (no sacct header line)\n", in_name);
		rc = 1;
		goto done;
	}

	if (njobs)
		qsort(jobs, njobs, sizeof(*jobs), job_cmp);
	out = strcmp(out_name, "-") ? fopen(out_name, "w") : stdout;
	if (!out) {
		fprintf(stderr, PROG ": %s: %s\n", out_name, strerror(errno));
		rc = 1;
		goto done;
	}
	sacct_write_header(out);
	for (i = 0; i < njobs; i++)
		sacct_write_job(out, &jobs[i], jobs[0].submit);
	if (fflush(out) != 0 || ferror(out) || (out != stdout && fclose(out) != 0)) {
		fprintf(stderr, PROG ": %s: write error: %s\n", out_name, strerror(errno));
		rc = 1;
		goto done;
	}
	if (!quiet) {
		fprintf(stderr,
			PROG ": %zu GPU jobs written; skipped: %ld without GPUs, "
			     "%ld never started, %ld still running, %ld job steps, %ld malformed\n",
			njobs, n_nogpu, n_unstarted, n_running, n_step, n_bad);
		if (n_bad)
			fprintf(stderr, PROG ": first malformed line: %s\n", first_bad);
		if (n_multi)
			fprintf(stderr,
				PROG ": %ld jobs asked for several GPU types; "
				     "the type with most GPUs was kept\n",
				n_multi);
		if (n_recovered)
			fprintf(stderr,
				PROG ": %ld jobs rewritten by job_submit/nodeox imported as "
				     "submitted (request read from AdminComment)\n",
				n_recovered);
	}
	warn_missing(&h, njobs, n_nogpu, n_typed, n_commented, n_legacy, n_unknown);
done:
	if (in != stdin)
		fclose(in);
	free(line);
	for (i = 0; i < njobs; i++)
		sacct_job_clear(&jobs[i]);
	free(jobs);
	return rc;
}
