/*
 * speeds_cmd.c: `nodeox speeds [options] HISTORY` (speeds.h, nodeox(1),
 * SPEEDS): reads sacct's history (or nodeox-sacct-import's trace) with
 * libnodeox_sacct, the jobs' speed records from their Comment, builds the
 * entries (speeds_build.c) and writes the table nodeox.conf's SpeedTable=
 * names: to stdout, or to -o FILE through a temporary file renamed over it
 * (slurmctld, reading at reconfigure, never sees half a table). What was
 * left out and why goes to stderr.
 */
#include "config.h"
#include "cli/speeds.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim/sacct/sacct_history.h"

#define PROG "nodeox speeds"
#define SPEEDS_WARN_MAX 20

static void usage(FILE *to)
{
	fprintf(to,
		"usage: nodeox speeds [-o FILE] [--min-jobs N] [--max-spread X] [--made TIME]\n"
		"                     [-d DELIM] HISTORY\n"
		"The speed table of nodeox.conf's SpeedTable= from what jobs measured: the speed\n"
		"records nodeox-run leaves in their Comment, in `sacct -a -X -P --format=...`\n"
		"output (HISTORY, or - for stdin; the columns of nodeox-sacct-import(1), Comment\n"
		"among them) or a trace nodeox-sacct-import wrote.\n"
		"  -o, --output FILE   write the table there (default: stdout)\n"
		"  --min-jobs N        jobs measured on each of an entry's two types (default %d)\n"
		"  --max-spread X      an entry's relative spread at most (default %g)\n"
		"  --made TIME         the header's made= (default: now, UTC)\n"
		"  -d, --delimiter S   sacct's --delimiter (default |)\n"
		"See nodeox(1), SPEEDS, and nodeox.conf(5), SPEED TABLE.\n",
		SPEEDS_MIN_JOBS, SPEEDS_MAX_SPREAD);
}

/* s with every byte a table's header word cannot hold as '_', at most cap-1. */
static void header_word(char *dst, size_t cap, const char *s)
{
	size_t n = 0;

	for (; *s && n + 1 < cap; s++)
		dst[n++] = (*s > 0x20 && *s < 0x7f && *s != '#') ? *s : '_';
	dst[n] = '\0';
}

static void utc_date(char *dst, size_t cap, time_t t, const char *fmt)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(dst, cap, fmt, &tm))
		snprintf(dst, cap, "unknown");
}

/* from=: the history's file name and the span of the measured jobs. */
static void make_from(char *dst, size_t cap, const char *name, const sacct_history_t *h,
		      const speeds_result_t *r)
{
	const char *base = strrchr(name, '/');
	char file[64], a[16], b[16];

	header_word(file, sizeof(file), base ? base + 1 : name);
	if (h->trace || !r->with_record) {
		snprintf(dst, cap, "%s:%s", file, h->trace ? "trace" : "no-records");
		return;
	}
	utc_date(a, sizeof(a), r->first, "%Y-%m-%d");
	utc_date(b, sizeof(b), r->last, "%Y-%m-%d");
	snprintf(dst, cap, "%s:%s..%s", file, a, b);
}

static int write_table(const char *path, const speeds_result_t *r, const char *made, const char *from,
		       const char *comment)
{
	char tmp[4096];
	FILE *f = stdout;

	if (path && strcmp(path, "-")) {
		if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= sizeof(tmp)) {
			fprintf(stderr, PROG ": %s: path too long\n", path);
			return 1;
		}
		if (!(f = fopen(tmp, "w"))) {
			fprintf(stderr, PROG ": %s: %s\n", tmp, strerror(errno));
			return 1;
		}
	}
	if (speeds_write(f, r, made, from, comment) < 0) {
		fprintf(stderr,
			PROG ": --made '%s' or from '%s': not one word of printable characters "
			     "(at most 127, no '#')\n",
			made, from);
		if (f != stdout) {
			fclose(f);
			unlink(tmp);
		}
		return 2;
	}
	if (fflush(f) || ferror(f) || (f != stdout && fclose(f))) {
		fprintf(stderr, PROG ": %s: write error: %s\n", f == stdout ? "stdout" : tmp,
			strerror(errno));
		if (f != stdout)
			unlink(tmp);
		return 1;
	}
	if (f != stdout && rename(tmp, path)) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		unlink(tmp);
		return 1;
	}
	return 0;
}

int speeds_cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "min-jobs", required_argument, NULL, 'n' },
		{ "max-spread", required_argument, NULL, 's' },
		{ "made", required_argument, NULL, 'm' },
		{ "delimiter", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	speeds_opts_t o = { .min_jobs = SPEEDS_MIN_JOBS, .max_spread = SPEEDS_MAX_SPREAD };
	const char *output = NULL, *made = NULL, *delim = "|";
	char now[32], from[160], comment[512];
	sacct_history_t h;
	speeds_result_t r;
	FILE *in;
	int c, rc;
	char *end;
	long v;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case 'm': made = optarg; break;
		case 'n':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || v < 1 || v > 1000000) {
				fprintf(stderr, PROG ": --min-jobs '%s': a count from 1 to 1000000\n",
					optarg);
				return 2;
			}
			o.min_jobs = (int)v;
			break;
		case 's':
			errno = 0;
			o.max_spread = strtod(optarg, &end);
			if (errno || *end || end == optarg || !(o.max_spread >= 0 && o.max_spread <= 1000)) {
				fprintf(stderr, PROG ": --max-spread '%s': a number from 0 to 1000\n",
					optarg);
				return 2;
			}
			break;
		case 'd':
			delim = optarg;
			if (!*delim || strpbrk(delim, "\r\n")) {
				fprintf(stderr, PROG ": --delimiter: must be non-empty, without a newline\n");
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, PROG ": one HISTORY file (sacct -P output or a trace), or - for stdin\n");
		usage(stderr);
		return 2;
	}
	const char *name = argv[optind];
	int from_stdin = !strcmp(name, "-");
	in = from_stdin ? stdin : fopen(name, "r");
	if (!in) {
		fprintf(stderr, PROG ": %s: %s\n", name, strerror(errno));
		return 1;
	}
	sacct_history_opts_t ho = {
		.prog = PROG, .delim = delim, .skip_bad = 1, .warn = stderr, .warn_max = SPEEDS_WARN_MAX
	};
	rc = sacct_history_read(in, from_stdin ? "<stdin>" : name, &ho, &h);
	if (!from_stdin)
		fclose(in);
	if (rc)
		goto out_hist;
	if (h.n_bad > SPEEDS_WARN_MAX)
		fprintf(stderr, PROG ": %ld malformed lines skipped in all (the first %d named)\n", h.n_bad,
			SPEEDS_WARN_MAX);
	if (!h.trace && h.header.index[SACCT_COL_COMMENT] < 0) {
		fprintf(stderr,
			PROG ": %s: no Comment column: the speed records are there (add Comment to "
			     "sacct's --format)\n",
			name);
		rc = 1;
		goto out_hist;
	}
	if (h.n_speeds_bad)
		fprintf(stderr, PROG ": %ld unreadable speed records skipped (first: %s)\n", h.n_speeds_bad,
			h.first_speeds_bad);
	if (h.n_speeds_later)
		fprintf(stderr,
			PROG ": %ld speed records of a later version skipped (a newer nodeox-run "
			     "wrote them)\n",
			h.n_speeds_later);
	if (speeds_build(h.jobs, h.njobs, &o, &r) < 0) {
		fprintf(stderr, PROG ": out of memory\n");
		rc = 2;
		goto out_hist;
	}
	if (!r.with_record)
		fprintf(stderr,
			PROG
			": warning: none of the %zu GPU jobs in %s has a speed record (nodeox-run writes "
			"them under Slurm; sacct keeps Comment only with "
			"AccountingStoreFlags=job_comment in slurm.conf): the table is empty\n",
			h.njobs, name);
	if (r.bad_names)
		fprintf(stderr,
			PROG ": %ld names a speed table cannot hold skipped (1 to 63 letters, "
			     "digits, _ . - @)\n",
			r.bad_names);
	if (r.single)
		fprintf(stderr,
			PROG ": %ld names measured on one GPU type only, no speed against another "
			     "to give (first: %s)\n",
			r.single, r.single_first);
	speeds_say_left_out(stderr, PROG, &r, &o);
	if (!made) {
		utc_date(now, sizeof(now), time(NULL), "%Y-%m-%dT%H:%M:%SZ");
		made = now;
	}
	make_from(from, sizeof(from), from_stdin ? "stdin" : name, &h, &r);
	snprintf(comment, sizeof(comment),
		 "nodeox speeds --min-jobs %d --max-spread %g: %zu entries from %ld jobs with speed records "
		 "of %ld GPU jobs; %zu left out",
		 o.min_jobs, o.max_spread, r.nkept, r.with_record, r.jobs, r.nrows - r.nkept);
	rc = write_table(output, &r, made, from, comment);
	if (!rc)
		fprintf(stderr, PROG ": %s\n", comment);
	speeds_result_free(&r);
out_hist:
	sacct_history_free(&h);
	return rc;
}
