/*
 * sacct_import_main.c: nodeox-sacct-import, the command. Reads `sacct -P`
 * output (a file or stdin), keeps the GPU jobs that ran, writes them as a
 * nodeox trace CSV sorted by submit time (seconds from the first submit), and
 * says on stderr what it skipped and why, and which slurm.conf accounting
 * setting the input shows to be missing. See nodeox-sacct-import(1).
 */
#include "config.h"
#include "sim/sacct/sacct_history.h"

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
static void warn_missing(const sacct_history_t *hist)
{
	const sacct_header_t *h = &hist->header;
	size_t njobs = hist->njobs;
	long n_nogpu = hist->n_nogpu, n_typed = hist->n_typed, n_commented = hist->n_commented;
	long n_legacy = hist->n_legacy, n_unknown = hist->n_unknown;

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
	if (hist->n_foreign)
		fprintf(stderr,
			PROG
			": warning: %ld jobs have an AdminComment that is not job_submit/nodeox's record "
			"(an admin's text, or `scancel --admin-comment` since Slurm 25.11, which replaces "
			"the record): imported as accounting shows them, what nodeox did is not known "
			"(record=foreign; first: %s)\n",
			hist->n_foreign, hist->foreign_ids);
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
	int skip_bad = 0, quiet = 0, c, rc;
	FILE *in, *out;
	sacct_history_t h;
	size_t i;

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

	sacct_history_opts_t ho = { .prog = PROG, .delim = delim, .skip_bad = skip_bad };
	rc = sacct_history_read(in, in_name, &ho, &h);
	if (rc)
		goto done;
	if (h.trace) {
		fprintf(stderr, PROG ": %s: a trace already (header job_id,...); give sacct's output\n",
			in_name);
		rc = 1;
		goto done;
	}
	out = strcmp(out_name, "-") ? fopen(out_name, "w") : stdout;
	if (!out) {
		fprintf(stderr, PROG ": %s: %s\n", out_name, strerror(errno));
		rc = 1;
		goto done;
	}
	sacct_write_header(out);
	for (i = 0; i < h.njobs; i++)
		sacct_write_job(out, &h.jobs[i], h.jobs[0].submit);
	if (fflush(out) != 0 || ferror(out) || (out != stdout && fclose(out) != 0)) {
		fprintf(stderr, PROG ": %s: write error: %s\n", out_name, strerror(errno));
		rc = 1;
		goto done;
	}
	if (!quiet) {
		fprintf(stderr,
			PROG ": %zu GPU jobs written; skipped: %ld without GPUs, "
			     "%ld never started, %ld still running, %ld job steps, %ld malformed\n",
			h.njobs, h.n_nogpu, h.n_unstarted, h.n_running, h.n_step, h.n_bad);
		if (h.n_bad)
			fprintf(stderr, PROG ": first malformed line: %s\n", h.first_bad);
		if (h.n_multi)
			fprintf(stderr,
				PROG ": %ld jobs asked for several GPU types; "
				     "the type with most GPUs was kept\n",
				h.n_multi);
		if (h.n_recovered)
			fprintf(stderr,
				PROG ": %ld jobs rewritten by job_submit/nodeox imported as "
				     "submitted (request read from AdminComment)\n",
				h.n_recovered);
		if (h.n_requeued)
			fprintf(stderr,
				PROG
				": %ld earlier runs of requeued jobs (sacct -D) merged into their jobs\n",
				h.n_requeued);
		if (h.n_speeds || h.n_speeds_bad || h.n_speeds_later)
			fprintf(stderr,
				PROG ": %ld jobs with a speed record in their Comment (kept in the comment "
				     "column for nodeox speeds); %ld unreadable, %ld of a later version\n",
				h.n_speeds, h.n_speeds_bad, h.n_speeds_later);
		if (h.n_speeds_bad)
			fprintf(stderr, PROG ": first unreadable speed record: %s\n", h.first_speeds_bad);
	}
	warn_missing(&h);
done:
	if (in != stdin)
		fclose(in);
	sacct_history_free(&h);
	return rc;
}
