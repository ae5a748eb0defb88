/*
 * report_cmd.c: `nodeox report [options] HISTORY` (report.h, nodeox(1)):
 * reads the history with libnodeox_sacct (the importer's reader; bad lines
 * named FILE:LINE: field NAME: reason and skipped), the policy for the kept
 * jobs' reasons (--policy, else --cluster's nodeox.conf, else
 * /etc/slurm/nodeox.conf when readable), computes the figures
 * (report_stats.c), with --cluster the counterfactual (report_cf.c: nodeox-sim,
 * found as $NODEOX_SIM or where it was installed), and writes the table on
 * stdout, --json and --prometheus.
 */
#include "config.h"
#include "cli/report.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG "nodeox report"
#ifndef NODEOX_GNUPLOT /* configure's gnuplot (cli/Makefile.inc) */
#define NODEOX_GNUPLOT "gnuplot"
#endif
#ifndef NODEOX_SIM_PATH /* where `make install` puts it (cli/Makefile.inc) */
#define NODEOX_SIM_PATH "nodeox-sim"
#endif
#define REPORT_WARN_MAX 20 /* bad lines named one by one */

static void usage(FILE *to)
{
	fprintf(to,
		"usage: nodeox report [--cluster DIR] [--policy FILE] [--price TYPE=COST,...]\n"
		"                     [--replicas N] [--json FILE] [--prometheus FILE] [-d DELIM] HISTORY\n"
		"What job_submit/nodeox did and what it cost, from `sacct -a -X -P [-D] --format=...`\n"
		"output (HISTORY, or - for stdin; the columns of nodeox-sacct-import(1)).\n"
		"  --cluster DIR       the cluster's slurm.conf, gres.conf, nodeox.conf: the same jobs\n"
		"                      replayed by nodeox-sim, plugin off and on (the counterfactual)\n"
		"  --replicas N        nodeox-sim's replicas (default 8)\n"
		"  --policy FILE       nodeox.conf, for why kept jobs were kept\n"
		"  --price T=C,...     cost per GPU-hour of each type, for GPU-hours and cost\n"
		"  --json FILE         the figures as JSON\n"
		"  --prometheus FILE   the figures for node_exporter's textfile collector\n"
		"  -d, --delimiter S   sacct's --delimiter (default |)\n"
		"See nodeox(1), REPORT.\n");
}

/* Write with fn into path ("-": stdout); returns 0 or -1 (said on stderr). */
static int write_to(const char *path, void (*fn)(FILE *, const report_t *, const sacct_history_t *),
		    const report_t *r, const sacct_history_t *h)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (!f) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return -1;
	}
	fn(f, r, h);
	if (fflush(f) || ferror(f) || (f != stdout && fclose(f))) {
		fprintf(stderr, PROG ": %s: write error: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void prom_adapter(FILE *f, const report_t *r, const sacct_history_t *h)
{
	(void)h;
	report_write_prom(f, r);
}

/* The policy file to read, or NULL for none. */
static const char *policy_path(const char *policy, const char *cluster, char *buf, size_t len)
{
	if (policy)
		return policy;
	if (cluster) {
		snprintf(buf, len, "%s/nodeox.conf", cluster);
		return buf;
	}
	return access("/etc/slurm/nodeox.conf", R_OK) == 0 ? "/etc/slurm/nodeox.conf" : NULL;
}

int report_cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cluster", required_argument, NULL, 'C' },
		{ "policy", required_argument, NULL, 'P' },
		{ "price", required_argument, NULL, 'p' },
		{ "json", required_argument, NULL, 'j' },
		{ "prometheus", required_argument, NULL, 'm' },
		{ "delimiter", required_argument, NULL, 'd' },
		{ "replicas", required_argument, NULL, 'r' },
		{ "plot", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cluster = NULL, *policy = NULL, *price = NULL, *json = NULL, *prom = NULL, *delim = "|";
	const char *plot = NULL;
	char err[512], pbuf[4096];
	nodeox_conf_t *conf = NULL;
	sacct_history_t h;
	report_t r;
	FILE *in;
	int c, rc, replicas = 8;
	char *end;

	optind = 1;
	while ((c = getopt_long(argc, argv, "d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'C': cluster = optarg; break;
		case 'P': policy = optarg; break;
		case 'p': price = optarg; break;
		case 'j': json = optarg; break;
		case 'm': prom = optarg; break;
		case 'g': plot = optarg; break;
		case 'd':
			delim = optarg;
			if (!*delim || strpbrk(delim, "\r\n")) {
				fprintf(stderr, PROG ": --delimiter: must be non-empty, without a newline\n");
				return 2;
			}
			break;
		case 'r':
			replicas = (int)strtol(optarg, &end, 10);
			if (*end || end == optarg || replicas < 1 || replicas > 1000) {
				fprintf(stderr, PROG ": --replicas: a count from 1 to 1000\n");
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, PROG ": one HISTORY file (sacct -P output), or - for stdin\n");
		usage(stderr);
		return 2;
	}
	memset(&r, 0, sizeof(r));
	if (price && report_price_parse(price, &r.prices, &r.nprices, err, sizeof(err)) < 0) {
		fprintf(stderr, PROG ": %s\n", err);
		return 2;
	}
	const char *ppath = policy_path(policy, cluster, pbuf, sizeof(pbuf));
	if (ppath && nodeox_conf_parse_file(ppath, &conf, err, sizeof(err)) < 0) {
		fprintf(stderr, PROG ": %s\n", err);
		report_free(&r);
		return 1;
	}
	const char *name = argv[optind];
	in = strcmp(name, "-") ? fopen(name, "r") : stdin;
	if (!in) {
		fprintf(stderr, PROG ": %s: %s\n", name, strerror(errno));
		nodeox_conf_free(conf);
		report_free(&r);
		return 1;
	}
	sacct_history_opts_t ho = {
		.prog = PROG, .delim = delim, .skip_bad = 1, .warn = stderr, .warn_max = REPORT_WARN_MAX
	};
	int in_stdin = in == stdin;
	rc = sacct_history_read(in, in_stdin ? "<stdin>" : name, &ho, &h);
	if (in != stdin)
		fclose(in);
	if (rc)
		goto out;
	if (h.n_bad > REPORT_WARN_MAX)
		fprintf(stderr, PROG ": %ld malformed lines skipped in all (the first %d named)\n", h.n_bad,
			REPORT_WARN_MAX);
	if (!h.trace && h.header.index[SACCT_COL_ADMINCOMMENT] < 0)
		fprintf(stderr, PROG ": warning: no AdminComment column: no job can be seen broadened "
				     "(add AdminComment to sacct's --format)\n");
	if (!h.trace && h.header.index[SACCT_COL_STATE] < 0)
		fprintf(stderr, PROG ": warning: no State column: end states unknown\n");
	if (h.n_foreign)
		fprintf(stderr,
			PROG ": warning: %ld jobs have an AdminComment that is not job_submit/nodeox's "
			     "record (first: %s); tagged ones are counted as record_lost\n",
			h.n_foreign, h.foreign_ids);
	if (report_build(&h, conf, &r) < 0) {
		fprintf(stderr, PROG ": out of memory\n");
		rc = 2;
		goto out;
	}
	if (cluster && h.trace && in_stdin) {
		fprintf(stderr, PROG ": counterfactual not made: a trace on stdin (give its file, which "
				     "nodeox-sim replays as it is)\n");
		rc = 1;
	} else if (cluster) {
		const char *sim = getenv("NODEOX_SIM");
		report_cf_opts_t co = { .sim = sim && *sim ? sim : NODEOX_SIM_PATH,
					.cluster = cluster,
					.policy = ppath,
					.replicas = replicas,
					.jobs = plot != NULL,
					.trace = h.trace ? name : NULL };

		if (report_cf_run(&h, &co, &r.cf, err, sizeof(err)) < 0) {
			fprintf(stderr, PROG ": counterfactual not made: %s\n", err);
			rc = 1;
		}
	}
	if (plot) {
		const char *gp = getenv("GNUPLOT");

		if (report_plot_write(plot, gp && *gp ? gp : NODEOX_GNUPLOT, &h, r.cf.made ? &r.cf : NULL,
				      err, sizeof(err)) < 0) {
			fprintf(stderr, PROG ": %s\n", err);
			rc = 1;
		}
	}
	report_write_text(stdout, &r, &h);
	if ((json && write_to(json, report_write_json, &r, &h) < 0) ||
	    (prom && write_to(prom, prom_adapter, &r, &h) < 0))
		rc = 1;
out:
	sacct_history_free(&h);
	report_free(&r);
	nodeox_conf_free(conf);
	return rc;
}
