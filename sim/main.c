/*
 * main.c: nodeox-sim, replay a cluster trace with and without the nodeox
 * policy and report what changes (man page: doc/nodeox-sim.1).
 *
 * The pipeline, one file per stage: trace.c reads the jobs, cluster.c the
 * admin's slurm.conf/gres.conf, the plugin's own library reads nodeox.conf,
 * sched.c replays (using queue.c and runtime_model.c), report.c writes.
 * Exit status: 0 done, 1 bad input or failed output, 2 bad usage.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "plugin/policy.h"
#include "sim/bf_phase.h"
#include "sim/cluster.h"
#include "sim/price.h"
#include "sim/report.h"
#include "sim/runtime_model.h"
#include "sim/sched.h"
#include "sim/trace.h"
#include "sim/whatif.h"

#ifndef NODEOX_SIM_CLUSTER_DIR
#define NODEOX_SIM_CLUSTER_DIR "/usr/share/nodeox/traces/cluster"
#endif
#ifndef NODEOX_GNUPLOT
#define NODEOX_GNUPLOT "gnuplot"
#endif

typedef struct {
	char *cluster, *policy, *json, *jobs, *plot, *mode, *class_speeds;
	double flex_fraction, round_sync;
	gint64 seed;
	gboolean skip_bad, quiet;
	gint64 bf_window, bf_resolution, bf_max_job_test, bf_interval, queue_depth, bf_origin;
	gint64 limit_origin;
	double end_latency;
	gint64 latency_seed;
	char *bf_phase;
	double end_overhead;
	double weight_age, weight_size;
	char *max_age;
	char **price;              /* --price items, NULL when none given */
} main_opts_t;

static void main_progress(void *arg, const char *what, size_t done, size_t total)
{
	(void)arg;
	fprintf(stderr, "\rnodeox-sim: %-8s %zu/%zu jobs (%3.0f%%)%s", what, done, total,
		total ? 100.0 * (double)done / (double)total : 100.0, done == total ? "\n" : "");
	fflush(stderr);
}

static int main_usage(GOptionContext *ctx, const char *fmt, const char *arg)
{
	fprintf(stderr, "nodeox-sim: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(nodeox-sim --help for usage)\n");
	g_option_context_free(ctx);
	return 2;
}

/* Command-line scheduler parameters override slurm.conf's. */
static int main_sched_params(const main_opts_t *o, sim_sched_params_t *p, char *err, size_t len)
{
	if (o->bf_window >= 0) p->bf_window_min = o->bf_window;
	if (o->bf_resolution >= 0) p->bf_resolution_s = o->bf_resolution;
	if (o->bf_origin >= 0) p->bf_origin_s = o->bf_origin;
	if (o->limit_origin != G_MININT64) p->limit_origin_s = o->limit_origin;
	if (!(o->end_latency >= 0 && o->end_latency <= 3600)) {
		snprintf(err, len, "--end-latency=%g: seconds from 0 to 3600", o->end_latency);
		return -1;
	}
	p->end_latency_s = o->end_latency;
	p->latency_seed = (uint32_t)o->latency_seed;
	if (o->end_overhead != -1) {
		if (!(o->end_overhead >= 0 && o->end_overhead <= 60)) {
			snprintf(err, len, "--end-overhead=%g: seconds from 0 to 60", o->end_overhead);
			return -1;
		}
		p->end_overhead_s = o->end_overhead;
	}
	if (o->bf_max_job_test >= 0) p->bf_max_job_test = (int)o->bf_max_job_test;
	if (o->bf_interval >= 0) p->bf_interval_s = o->bf_interval;
	if (o->queue_depth >= 0) p->default_queue_depth = (int)o->queue_depth;
	if (o->weight_age >= 0) p->weight_age = o->weight_age;
	if (o->weight_size >= 0) p->weight_job_size = o->weight_size;
	if (o->max_age) {
		int64_t s;
		if (trace_parse_slurm_minutes(o->max_age, &s) < 0 || s == SIM_TIME_NONE || s == 0) {
			snprintf(err, len, "--priority-max-age=%s: expected a Slurm time "
				 "([D-]HH:MM:SS or minutes)", o->max_age);
			return -1;
		}
		p->max_age_s = s;
	}
	const char *bad = p->bf_window_min < 1 ? "--bf-window" : p->bf_resolution_s < 1 ?
		"--bf-resolution" : p->bf_max_job_test < 1 ? "--bf-max-job-test" :
		p->bf_interval_s < 1 ? "--bf-interval" : p->default_queue_depth < 1 ?
		"--default-queue-depth" : NULL;
	if (bad) {
		snprintf(err, len, "%s must be at least 1", bad);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	main_opts_t o = { .mode = NULL, .flex_fraction = -1, .round_sync = 0.05, .seed = 1,
		.bf_window = -1, .bf_resolution = -1, .bf_origin = -1, .limit_origin = G_MININT64, .bf_max_job_test = -1, .bf_interval = -1,
		.queue_depth = -1, .weight_age = -1, .weight_size = -1, .end_latency = 0.9,
		.end_overhead = -1 };
	GOptionEntry entries[] = {
		{ "cluster", 'c', 0, G_OPTION_ARG_FILENAME, &o.cluster,
		  "Directory with slurm.conf and gres.conf (default " NODEOX_SIM_CLUSTER_DIR ")", "DIR" },
		{ "policy", 'p', 0, G_OPTION_ARG_FILENAME, &o.policy,
		  "nodeox.conf to apply (default DIR/nodeox.conf)", "FILE" },
		{ "mode", 'm', 0, G_OPTION_ARG_STRING, &o.mode,
		  "compare (default): plugin off and on; baseline: off only; nodeox: on only", "MODE" },
		{ "json", 'j', 0, G_OPTION_ARG_FILENAME, &o.json, "Write the summary as JSON", "FILE" },
		{ "jobs", 0, 0, G_OPTION_ARG_FILENAME, &o.jobs, "Write one CSV row per job and run", "FILE" },
		{ "plot", 0, 0, G_OPTION_ARG_FILENAME, &o.plot,
		  "Plot wait and turnaround distributions (SVG, or PNG for *.png; gnuplot)", "FILE" },
		{ "flex-fraction", 'f', 0, G_OPTION_ARG_DOUBLE, &o.flex_fraction,
		  "Tag this fraction of the broadenable jobs (ignores the trace's tags)", "F" },
		{ "seed", 's', 0, G_OPTION_ARG_INT64, &o.seed, "Seed for --flex-fraction (default 1)", "N" },
		{ "skip-bad", 0, 0, G_OPTION_ARG_NONE, &o.skip_bad, "Skip and count malformed trace rows", NULL },
		{ "class-speeds", 0, 0, G_OPTION_ARG_FILENAME, &o.class_speeds,
		  "CSV class,gpu_type,speed: per-class speeds overriding nodeox.conf", "FILE" },
		{ "round-sync", 0, 0, G_OPTION_ARG_DOUBLE, &o.round_sync,
		  "Fraction of each round lost to synchronisation (default 0.05)", "F" },
		{ "bf-window", 0, 0, G_OPTION_ARG_INT64, &o.bf_window, "bf_window, minutes (1440)", "MIN" },
		{ "bf-resolution", 0, 0, G_OPTION_ARG_INT64, &o.bf_resolution, "bf_resolution, s (60)", "S" },
		{ "bf-origin", 0, 0, G_OPTION_ARG_INT64, &o.bf_origin,
		  "Wall-clock second of trace second 0 (Unix time), for bf_resolution's rounding (0)", "S" },
		{ "limit-check-origin", 0, 0, G_OPTION_ARG_INT64, &o.limit_origin,
		  "Trace second of slurmctld's start, from which it checks time limits every 30 s "
		  "(may be negative; 0)", "S" },
		{ "bf-max-job-test", 0, 0, G_OPTION_ARG_INT64, &o.bf_max_job_test, "bf_max_job_test (500)", "N" },
		{ "end-latency", 0, 0, G_OPTION_ARG_DOUBLE, &o.end_latency,
		  "Seconds a job's nodes stay taken after its last second, until slurmctld gives them "
		  "to the next job, on average (0.9)", "S" },
		{ "latency-seed", 0, 0, G_OPTION_ARG_INT64, &o.latency_seed,
		  "Which jobs get --end-latency's fraction as a whole second (0)", "N" },
		{ "bf-phase", 0, 0, G_OPTION_ARG_FILENAME, &o.bf_phase,
		  "A real run's backfill pass phases (lines: trace second, fraction of it; "
		  "tools/fidelity-compare writes them): jobs start at their second's pass and "
		  "hand their nodes on at the first pass after their end, instead of --end-latency", "FILE" },
		{ "end-overhead", 0, 0, G_OPTION_ARG_DOUBLE, &o.end_overhead,
		  "With --bf-phase: seconds from a job's last second of run time to its end (0.075)", "S" },
		{ "bf-interval", 0, 0, G_OPTION_ARG_INT64, &o.bf_interval, "bf_interval, s (30)", "S" },
		{ "default-queue-depth", 0, 0, G_OPTION_ARG_INT64, &o.queue_depth,
		  "Jobs the main pass looks at (100)", "N" },
		{ "priority-weight-age", 0, 0, G_OPTION_ARG_DOUBLE, &o.weight_age, "PriorityWeightAge", "W" },
		{ "priority-weight-job-size", 0, 0, G_OPTION_ARG_DOUBLE, &o.weight_size,
		  "PriorityWeightJobSize", "W" },
		{ "priority-max-age", 0, 0, G_OPTION_ARG_STRING, &o.max_age, "PriorityMaxAge (7-0)", "TIME" },
		{ "price", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.price,
		  "Price per GPU-hour by GPU type, e.g. a100=2.9,l40s=1.1 (every type; "
		  "adds cost to the table and JSON)", "TYPE=COST,..." },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &o.quiet, "No table on stdout", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL }
	};
	GOptionContext *ctx = g_option_context_new("TRACE.csv - replay a trace with and without nodeox");
	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_summary(ctx, "Scheduler parameters default to slurm.conf's "
				     "SchedulerParameters and Priority* settings, then Slurm's defaults.");
	GError *gerr = NULL;
	if (!g_option_context_parse(ctx, &argc, &argv, &gerr)) {
		int rc = main_usage(ctx, "%s", gerr->message);
		g_error_free(gerr);
		return rc;
	}
	if (argc != 2)
		return main_usage(ctx, "%s", argc < 2 ? "no trace given" : "more than one trace given");
	bool run_base = true, run_nodeox = true;
	if (o.mode && !strcmp(o.mode, "baseline"))
		run_nodeox = false;
	else if (o.mode && !strcmp(o.mode, "nodeox"))
		run_base = false;
	else if (o.mode && strcmp(o.mode, "compare"))
		return main_usage(ctx, "--mode=%s: expected compare, baseline or nodeox", o.mode);
	if (o.flex_fraction != -1 && !(o.flex_fraction >= 0 && o.flex_fraction <= 1))
		return main_usage(ctx, "%s", "--flex-fraction must be between 0 and 1");
	if (!(o.round_sync >= 0 && o.round_sync < 1))
		return main_usage(ctx, "%s", "--round-sync must be in [0, 1)");
	if (o.seed < 0)
		return main_usage(ctx, "%s", "--seed must not be negative");
	g_option_context_free(ctx);

	char err[1024];
	int rc = 1;
	/* Default cluster: cluster/ beside the trace (traces/week.csv in a
	 * checkout or the installed copy), else the installed default. */
	char *beside = NULL;
	if (!o.cluster) {
		char *tdir = g_path_get_dirname(argv[1]);
		beside = g_build_filename(tdir, "cluster", NULL);
		char *probe = g_build_filename(beside, "slurm.conf", NULL);
		if (!g_file_test(probe, G_FILE_TEST_IS_REGULAR))
			g_clear_pointer(&beside, g_free);
		g_free(probe);
		g_free(tdir);
	}
	const char *cdir = o.cluster ? o.cluster : beside ? beside : NODEOX_SIM_CLUSTER_DIR;
	sim_cluster_t *cl = NULL;
	sim_trace_t *tr = NULL;
	sim_bf_phase_t *phase = NULL;
	nodeox_conf_t *conf = NULL;
	sim_runtime_t model = { 0 };
	sim_run_t *runs[2] = { NULL, NULL };
	bool *tagged = NULL;
	double price[SIM_MAX_TYPES];
	char *ppath = o.policy ? g_strdup(o.policy) : g_build_filename(cdir, "nodeox.conf", NULL);

	if (cluster_read(cdir, &cl, err, sizeof(err)) < 0)
		goto fail;
	if (main_sched_params(&o, &cl->params, err, sizeof(err)) < 0)
		goto fail;
	if (o.bf_phase) {
		if (bf_phase_read(o.bf_phase, &phase, err, sizeof(err)) < 0)
			goto fail;
		cl->params.bf_phase = phase;
	}
	if (o.price && price_parse(cl, (const char *const *)o.price, price, err, sizeof(err)) < 0)
		goto fail;
	if (o.policy || run_nodeox || g_file_test(ppath, G_FILE_TEST_EXISTS)) {
		if (nodeox_conf_parse_file(ppath, &conf, err, sizeof(err)) < 0)
			goto fail;
	}
	sim_trace_opts_t topts = { .skip_bad = o.skip_bad, .conf = conf, .warn = stderr };
	if (trace_read(argv[1], &topts, &tr, err, sizeof(err)) < 0)
		goto fail;
	if (runtime_model_init(&model, cl, conf, o.class_speeds, o.round_sync, err, sizeof(err)) < 0)
		goto fail;
	if (o.flex_fraction >= 0) {
		size_t n = 0;
		if (!conf) {
			snprintf(err, sizeof(err), "--flex-fraction needs a policy (%s)", ppath);
			goto fail;
		}
		tagged = whatif_flex_fraction(tr, cl, conf, o.flex_fraction, (unsigned long)o.seed, &n);
	}
	bool progress = isatty(STDERR_FILENO);
	report_run_t rr[2];
	sim_sched_opts_t so[2];
	int nr = 0;
	for (int i = 0; i < 2; i++) {
		if ((i == 0 && !run_base) || (i == 1 && !run_nodeox))
			continue;
		so[nr++] = (sim_sched_opts_t){
			.params = cl->params, .policy = i ? conf : NULL, .runtime = &model,
			.tagged = tagged, .record_nodes = o.jobs != NULL,
			.progress = progress ? main_progress : NULL,
			.label = i ? "nodeox" : "baseline",
		};
	}
	int failed = sched_run_all(cl, tr, so, nr, runs, err, sizeof(err));
	for (int k = 0; k < nr; k++) {
		rr[k].name = so[k].label;
		rr[k].run = runs[k];
	}
	if (failed < 0)
		goto fail;
	if (!o.quiet)
		report_table(stdout, cl, tr, rr, nr, o.price ? price : NULL);
	if (o.json && report_json(o.json, cl, rr, nr, o.price ? price : NULL, err, sizeof(err)) < 0)
		goto fail;
	if (o.jobs && report_jobs_csv(o.jobs, tr, rr, nr, err, sizeof(err)) < 0)
		goto fail;
	if (o.plot && report_plot(o.plot, NODEOX_GNUPLOT, rr, nr, err, sizeof(err)) < 0)
		goto fail;
	if (fflush(stdout) != 0) {
		snprintf(err, sizeof(err), "stdout: %s", strerror(errno));
		goto fail;
	}
	rc = 0;
fail:
	if (rc)
		fprintf(stderr, "nodeox-sim: %s\n", err);
	sched_run_free(runs[0]);
	sched_run_free(runs[1]);
	g_free(tagged);
	g_free(beside);
	runtime_model_free(&model);
	trace_free(tr);
	if (conf)
		nodeox_conf_free(conf);
	cluster_free(cl);
	bf_phase_free(phase);
	g_free(ppath);
	g_free(o.cluster); g_free(o.policy); g_free(o.json); g_free(o.jobs); g_free(o.plot);
	g_free(o.mode); g_free(o.class_speeds); g_free(o.max_age); g_strfreev(o.price);
	g_free(o.bf_phase);
	return rc;
}
