/*
 * main.c: nodeox-sim, replay a cluster trace with and without the nodeox
 * policy and report what changes (man page: doc/nodeox-sim.1).
 *
 * The pipeline, one file per stage: trace.c reads the jobs, cluster.c the
 * admin's slurm.conf/gres.conf, the plugin's own library reads nodeox.conf,
 * sched.c replays (using queue.c and runtime_model.c), report.c writes.
 * replica.c runs a compare as replicas under Slurm's timing noise on the
 * machine's cores; sweep.c runs one per setting of --sweep, sweep_array.c
 * writes and merges --sweep-array's Slurm job array. This file parses the
 * options and dispatches.
 * Exit status: 0 done, 1 bad input or failed output, 2 bad usage.
 */
#include "common/free_all.h"
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "common/util.h"
#include "policy/policy.h"
#include "sim/model/bf_phase.h"
#include "sim/model/cluster.h"
#include "sim/run/labels.h"
#include "sim/run/price.h"
#include "sim/run/replica.h"
#include "sim/run/report.h"
#include "sim/model/runtime_model.h"
#include "sim/model/sched.h"
#include "sim/run/sweep.h"
#include "sim/run/sweep_array.h"
#include "sim/model/trace.h"
#include "sim/run/whatif.h"

#ifndef NODEOX_SIM_CLUSTER_DIR
#define NODEOX_SIM_CLUSTER_DIR "/usr/share/nodeox/traces/cluster"
#endif
#ifndef NODEOX_GNUPLOT
#define NODEOX_GNUPLOT "gnuplot"
#endif

typedef struct {
	char *cluster, *policy, *json, *jobs, *plot, *mode, *class_speeds, *speed_table;
	char *labels; /* --labels FILE */
	double flex_fraction, round_sync;
	gint64 seed;
	gboolean skip_bad, quiet;
	gint64 bf_window, bf_resolution, bf_max_job_test, bf_interval, queue_depth, bf_origin;
	gint64 limit_origin;
	double end_latency;
	gint64 latency_seed;
	char *bf_phase;
	double end_overhead;
	double submit_phase;
	double weight_age, weight_size;
	char *max_age;
	char **price; /* --price items, NULL when none given */
	gint64 replicas;
	char *sweep, *sweep_array, *merge;
	gint64 sweep_task;
	gint64 cpus_per_gpu;         /* --cpus-per-gpu, -1 when not given */
	char *mem_per_gpu;           /* --mem-per-gpu */
	uint64_t mem_per_gpu_mb;     /* its value */
	char *slurm_version;         /* --slurm-version, NULL: the built-against one */
	sim_slurm_version_t version; /* whose slurm.conf defaults apply */
	int version_micro;           /* its micro release, -1: the newest */
} main_opts_t;
/* Every option that changes what a sweep computes is also in main_store_args
 * (the options an array task of --sweep-array runs with). */

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
	if (o->bf_window >= 0)
		p->bf_window_min = o->bf_window;
	if (o->bf_resolution >= 0)
		p->bf_resolution_s = o->bf_resolution;
	if (o->bf_origin >= 0)
		p->bf_origin_s = o->bf_origin;
	if (o->limit_origin != G_MININT64)
		p->limit_origin_s = o->limit_origin;
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
	if (!(o->submit_phase >= 0 && o->submit_phase < 1)) {
		snprintf(err, len, "--submit-phase=%g: a fraction of a second, from 0 to below 1",
			 o->submit_phase);
		return -1;
	}
	p->submit_phase_s = o->submit_phase;
	if (o->bf_max_job_test >= 0)
		p->bf_max_job_test = (int)o->bf_max_job_test;
	if (o->bf_interval >= 0)
		p->bf_interval_s = o->bf_interval;
	if (o->queue_depth >= 0)
		p->default_queue_depth = (int)o->queue_depth;
	if (o->weight_age >= 0)
		p->weight_age = o->weight_age;
	if (o->weight_size >= 0)
		p->weight_job_size = o->weight_size;
	if (o->max_age) {
		int64_t s;
		if (trace_parse_slurm_minutes(o->max_age, &s) < 0 || s == SIM_TIME_NONE || s == 0) {
			snprintf(err, len,
				 "--priority-max-age=%s: expected a Slurm time "
				 "([D-]HH:MM:SS or minutes)",
				 o->max_age);
			return -1;
		}
		p->max_age_s = s;
	}
	const char *bad = p->bf_window_min < 1         ? "--bf-window"
			  : p->bf_resolution_s < 1     ? "--bf-resolution"
			  : p->bf_max_job_test < 1     ? "--bf-max-job-test"
			  : p->bf_interval_s < 1       ? "--bf-interval"
			  : p->default_queue_depth < 1 ? "--default-queue-depth"
						       : NULL;
	if (bad) {
		snprintf(err, len, "%s must be at least 1", bad);
		return -1;
	}
	return 0;
}

/* The options an array task runs with (DIR/sweep.args, one argument a
 * line): every option that changes what the sweep computes, files as the
 * copies sweep_array_write makes. */
static void main_store_args(const main_opts_t *o, GPtrArray *a)
{
#define ARG(...) g_ptr_array_add(a, g_strdup_printf(__VA_ARGS__))
	ARG("--cluster=cluster");
	ARG("--policy=nodeox.conf");
	if (o->mode)
		ARG("--mode=%s", o->mode);
	if (o->flex_fraction >= 0)
		ARG("--flex-fraction=%.17g", o->flex_fraction);
	ARG("--seed=%" G_GINT64_FORMAT, o->seed);
	if (o->skip_bad)
		ARG("--skip-bad");
	if (o->cpus_per_gpu > 0)
		ARG("--cpus-per-gpu=%" G_GINT64_FORMAT, o->cpus_per_gpu);
	if (o->mem_per_gpu)
		ARG("--mem-per-gpu=%s", o->mem_per_gpu);
	/* always: the task may run where nodeox was built against another Slurm */
	char rel[32];
	cluster_version_label(o->version, o->version_micro, rel, sizeof(rel));
	ARG("--slurm-version=%s", rel);
	if (o->class_speeds)
		ARG("--class-speeds=class-speeds.csv");
	ARG("--round-sync=%.17g", o->round_sync);
	ARG("--bf-window=%" G_GINT64_FORMAT, o->bf_window);
	ARG("--bf-resolution=%" G_GINT64_FORMAT, o->bf_resolution);
	ARG("--bf-origin=%" G_GINT64_FORMAT, o->bf_origin);
	if (o->limit_origin != G_MININT64)
		ARG("--limit-check-origin=%" G_GINT64_FORMAT, o->limit_origin);
	ARG("--bf-max-job-test=%" G_GINT64_FORMAT, o->bf_max_job_test);
	ARG("--end-latency=%.17g", o->end_latency);
	ARG("--latency-seed=%" G_GINT64_FORMAT, o->latency_seed);
	if (o->bf_phase)
		ARG("--bf-phase=bf-phase");
	ARG("--end-overhead=%.17g", o->end_overhead);
	ARG("--submit-phase=%.17g", o->submit_phase);
	ARG("--bf-interval=%" G_GINT64_FORMAT, o->bf_interval);
	ARG("--default-queue-depth=%" G_GINT64_FORMAT, o->queue_depth);
	ARG("--priority-weight-age=%.17g", o->weight_age);
	ARG("--priority-weight-job-size=%.17g", o->weight_size);
	if (o->max_age)
		ARG("--priority-max-age=%s", o->max_age);
	for (char **p = o->price; p && *p; p++)
		ARG("--price=%s", *p);
	ARG("--replicas=%" G_GINT64_FORMAT, o->replicas);
	ARG("--sweep=%s", o->sweep);
	ARG("trace.csv");
#undef ARG
}

static void main_opts_free(main_opts_t *o)
{
	nodeox_g_free_all(o->cluster, o->policy, o->json, o->jobs, o->plot, o->mode, o->class_speeds,
			  o->max_age, o->speed_table, o->labels);
	g_strfreev(o->price);
	nodeox_g_free_all(o->bf_phase, o->sweep, o->sweep_array, o->merge, o->mem_per_gpu, o->slurm_version);
}

/* Parse argv into o (argv is consumed: on return argv[1] is the trace).
 * 0, or the exit status of a usage error (message printed). */
static int main_parse(int *argc, char ***argv, main_opts_t *o)
{
	*o = (main_opts_t){ .mode = NULL,
			    .flex_fraction = -1,
			    .round_sync = 0.05,
			    .seed = 1,
			    .bf_window = -1,
			    .bf_resolution = -1,
			    .bf_origin = -1,
			    .limit_origin = G_MININT64,
			    .bf_max_job_test = -1,
			    .bf_interval = -1,
			    .queue_depth = -1,
			    .weight_age = -1,
			    .weight_size = -1,
			    .end_latency = 0.9,
			    .end_overhead = -1,
			    .replicas = 8,
			    .sweep_task = -1,
			    .cpus_per_gpu = -1 };
	/* --help's word for the default (cluster_version_built's rule) */
	char version_help[512], built[32];
	int built_micro;
	sim_slurm_version_t built_v = cluster_version_built(&built_micro);
	cluster_version_label(built_v, built_micro, built, sizeof(built));
	snprintf(version_help, sizeof(version_help),
		 "Model this Slurm release: its slurm.conf defaults where the file is silent "
		 "(PriorityType, SelectType) and the scheduling changes doc/simulator.md lists: %s, "
		 "or a micro release of one, e.g. 25.05.6 (default %s%s)",
		 cluster_version_list(), built,
#ifdef NODEOX_SLURM_VERSION_NUMBER
		 ", from the Slurm nodeox was built against"
#else
		 ""
#endif
	);
	GOptionEntry entries[] = {
		{ "cluster", 'c', 0, G_OPTION_ARG_FILENAME, &o->cluster,
		  "Directory with slurm.conf, gres.conf, accounts.conf and qos.conf (default " NODEOX_SIM_CLUSTER_DIR ")", "DIR" },
		{ "policy", 'p', 0, G_OPTION_ARG_FILENAME, &o->policy,
		  "nodeox.conf to apply (default DIR/nodeox.conf)", "FILE" },
		{ "mode", 'm', 0, G_OPTION_ARG_STRING, &o->mode,
		  "compare (default): plugin off and on; baseline: off only; nodeox: on only", "MODE" },
		{ "json", 'j', 0, G_OPTION_ARG_FILENAME, &o->json, "Write the summary as JSON", "FILE" },
		{ "jobs", 0, 0, G_OPTION_ARG_FILENAME, &o->jobs, "Write one CSV row per job and run",
		  "FILE" },
		{ "plot", 0, 0, G_OPTION_ARG_FILENAME, &o->plot,
		  "Plot wait and turnaround distributions, or a sweep's Pareto front "
		  "(SVG, or PNG for *.png; gnuplot)",
		  "FILE" },
		{ "flex-fraction", 'f', 0, G_OPTION_ARG_DOUBLE, &o->flex_fraction,
		  "Tag this fraction of the broadenable jobs (ignores the trace's tags)", "F" },
		{ "seed", 's', 0, G_OPTION_ARG_INT64, &o->seed, "Seed for --flex-fraction (default 1)", "N" },
		{ "skip-bad", 0, 0, G_OPTION_ARG_NONE, &o->skip_bad, "Skip and count malformed trace rows",
		  NULL },
		{ "class-speeds", 0, 0, G_OPTION_ARG_FILENAME, &o->class_speeds,
		  "Per-class speeds overriding nodeox.conf: a speed table (nodeox.conf(5)) or CSV "
		  "class,gpu_type,speed",
		  "FILE" },
		{ "labels", 0, 0, G_OPTION_ARG_FILENAME, &o->labels,
		  "CSV job_id,label: the table and --json also count the jobs of each label apart "
		  "(at most 4 labels; not with --sweep)",
		  "FILE" },
		{ "speed-table", 0, 0, G_OPTION_ARG_FILENAME, &o->speed_table,
		  "Speed table the policy decides with (default: SpeedTable= of nodeox.conf)", "FILE" },
		{ "round-sync", 0, 0, G_OPTION_ARG_DOUBLE, &o->round_sync,
		  "Fraction of each round lost to synchronisation (default 0.05)", "F" },
		{ "bf-window", 0, 0, G_OPTION_ARG_INT64, &o->bf_window, "bf_window, minutes (1440)", "MIN" },
		{ "bf-resolution", 0, 0, G_OPTION_ARG_INT64, &o->bf_resolution, "bf_resolution, s (60)",
		  "S" },
		{ "bf-origin", 0, 0, G_OPTION_ARG_INT64, &o->bf_origin,
		  "Wall-clock second of trace second 0 (Unix time), for bf_resolution's rounding (0)", "S" },
		{ "limit-check-origin", 0, 0, G_OPTION_ARG_INT64, &o->limit_origin,
		  "Trace second of slurmctld's start, from which it checks time limits every 30 s, "
		  "passes over the whole queue every sched_interval and recalculates priorities every "
		  "PriorityCalcPeriod (may be negative; 0)",
		  "S" },
		{ "bf-max-job-test", 0, 0, G_OPTION_ARG_INT64, &o->bf_max_job_test, "bf_max_job_test (500)",
		  "N" },
		{ "end-latency", 0, 0, G_OPTION_ARG_DOUBLE, &o->end_latency,
		  "Seconds a job's nodes stay taken after its last second, until slurmctld gives them "
		  "to the next job, on average (0.9)",
		  "S" },
		{ "latency-seed", 0, 0, G_OPTION_ARG_INT64, &o->latency_seed,
		  "Which jobs get --end-latency's fraction as a whole second (0)", "N" },
		{ "bf-phase", 0, 0, G_OPTION_ARG_FILENAME, &o->bf_phase,
		  "A real run's backfill pass phases (lines: trace second, fraction of it; "
		  "tools/fidelity-compare writes them): jobs start at their second's pass and "
		  "hand their nodes on at the first pass after their end, instead of --end-latency",
		  "FILE" },
		{ "end-overhead", 0, 0, G_OPTION_ARG_DOUBLE, &o->end_overhead,
		  "With --bf-phase: seconds from a job's last second of run time to its end (0.075)", "S" },
		{ "submit-phase", 0, 0, G_OPTION_ARG_DOUBLE, &o->submit_phase,
		  "Fraction of its second at which a submission reaches slurmctld: the policy sees as "
		  "idle the GPUs of jobs that ended before it, whose nodes wait for the next pass (0)",
		  "F" },
		{ "bf-interval", 0, 0, G_OPTION_ARG_INT64, &o->bf_interval, "bf_interval, s (30)", "S" },
		{ "default-queue-depth", 0, 0, G_OPTION_ARG_INT64, &o->queue_depth,
		  "Jobs the main pass looks at (100)", "N" },
		{ "priority-weight-age", 0, 0, G_OPTION_ARG_DOUBLE, &o->weight_age, "PriorityWeightAge",
		  "W" },
		{ "priority-weight-job-size", 0, 0, G_OPTION_ARG_DOUBLE, &o->weight_size,
		  "PriorityWeightJobSize", "W" },
		{ "priority-max-age", 0, 0, G_OPTION_ARG_STRING, &o->max_age, "PriorityMaxAge (7-0)",
		  "TIME" },
		{ "price", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->price,
		  "Price per GPU-hour by GPU type, e.g. a100=2.9,l40s=1.1 (every type; "
		  "adds cost to the table and JSON)",
		  "TYPE=COST,..." },
		{ "replicas", 'r', 0, G_OPTION_ARG_INT64, &o->replicas,
		  "Replicas under Slurm's timing noise, in parallel on this machine's cores: each "
		  "figure their median and range (default 8; 1: one run)",
		  "N" },
		{ "sweep", 0, 0, G_OPTION_ARG_STRING, &o->sweep,
		  "Compare every combination of nodeox.conf settings, e.g. "
		  "'Broaden=always,when-blocked;MinSpeed=0.4,0.6;flex=0.2,0.5'",
		  "SPEC" },
		{ "sweep-array", 0, 0, G_OPTION_ARG_FILENAME, &o->sweep_array,
		  "With --sweep: write DIR/sweep.sbatch, the sweep as a Slurm job array, and the "
		  "inputs it needs, instead of running it",
		  "DIR" },
		{ "sweep-task", 0, 0, G_OPTION_ARG_INT64, &o->sweep_task,
		  "With --sweep-array DIR alone: run task I of DIR's sweep (what DIR/sweep.sbatch "
		  "runs)",
		  "I" },
		{ "merge", 0, 0, G_OPTION_ARG_FILENAME, &o->merge,
		  "Combine the results of a --sweep-array DIR: the local sweep's table and JSON "
		  "(also written to DIR/sweep.json)",
		  "DIR" },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &o->quiet, "No table on stdout", NULL },
		{ "cpus-per-gpu", 0, 0, G_OPTION_ARG_INT64, &o->cpus_per_gpu,
		  "Rows with neither cpus nor cpus_per_gpu asked sbatch --cpus-per-gpu N "
		  "(default: Slurm's defaults, one CPU per task)",
		  "N" },
		{ "mem-per-gpu", 0, 0, G_OPTION_ARG_STRING, &o->mem_per_gpu,
		  "Rows with neither mem nor mem_per_gpu asked sbatch --mem-per-gpu SIZE "
		  "(e.g. 40G; default: the partition's or cluster's DefMem*)",
		  "SIZE" },
		{ "slurm-version", 0, 0, G_OPTION_ARG_STRING, &o->slurm_version, version_help, "VERSION" },
		{ NULL, 0, 0, 0, NULL, NULL, NULL }
	};
	GOptionContext *ctx = g_option_context_new("TRACE.csv - replay a trace with and without nodeox");
	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_set_summary(ctx,
				     "Scheduler parameters default to slurm.conf's "
				     "SchedulerParameters and Priority* settings, then Slurm's defaults.");
	GError *gerr = NULL;
	if (!g_option_context_parse(ctx, argc, argv, &gerr)) {
		int rc = main_usage(ctx, "%s", gerr->message);
		g_error_free(gerr);
		return rc;
	}
	bool array_run = o->merge || (o->sweep_array && o->sweep_task >= 0);
	if (array_run && *argc != 1)
		return main_usage(ctx, "%s",
				  o->merge ? "--merge DIR takes no trace"
					   : "--sweep-task takes no trace (DIR has it)");
	if (!array_run && *argc != 2)
		return main_usage(ctx, "%s", *argc < 2 ? "no trace given" : "more than one trace given");
	if (o->mode && strcmp(o->mode, "baseline") && strcmp(o->mode, "nodeox") && strcmp(o->mode, "compare"))
		return main_usage(ctx, "--mode=%s: expected compare, baseline or nodeox", o->mode);
	if (o->flex_fraction != -1 && !(o->flex_fraction >= 0 && o->flex_fraction <= 1))
		return main_usage(ctx, "%s", "--flex-fraction must be between 0 and 1");
	if (!(o->round_sync >= 0 && o->round_sync < 1))
		return main_usage(ctx, "%s", "--round-sync must be in [0, 1)");
	if (o->seed < 0)
		return main_usage(ctx, "%s", "--seed must not be negative");
	if (o->replicas < 1 || o->replicas > REPLICA_MAX)
		return main_usage(ctx, "%s", "--replicas must be from 1 to " G_STRINGIFY(REPLICA_MAX));
	if (o->sweep_task >= 0 && !o->sweep_array)
		return main_usage(ctx, "%s", "--sweep-task needs --sweep-array DIR");
	if (o->sweep_array && o->sweep_task < 0 && !o->sweep)
		return main_usage(ctx, "%s", "--sweep-array needs --sweep SPEC");
	if (o->merge && (o->sweep || o->sweep_array))
		return main_usage(ctx, "%s", "--merge DIR takes the sweep from DIR (no --sweep)");
	if (o->sweep && o->mode && strcmp(o->mode, "compare"))
		return main_usage(ctx, "%s", "--sweep compares: no --mode");
	if ((o->sweep || array_run) && o->jobs)
		return main_usage(ctx, "%s", "--jobs is for one run, not a sweep");
	if ((o->sweep || array_run) && o->labels)
		return main_usage(ctx, "%s", "--labels is for one run, not a sweep");
	if (o->cpus_per_gpu != -1 && !(o->cpus_per_gpu >= 1 && o->cpus_per_gpu <= 65536))
		return main_usage(ctx, "%s", "--cpus-per-gpu must be 1 to 65536");
	if (o->mem_per_gpu &&
	    (nodeox_util_parse_size_mb(o->mem_per_gpu, &o->mem_per_gpu_mb) < 0 || o->mem_per_gpu_mb == 0))
		return main_usage(ctx, "--mem-per-gpu=%s: expected a size such as 40G or 4096M",
				  o->mem_per_gpu);
	o->version = cluster_version_built(&o->version_micro);
	if (o->slurm_version && cluster_version_parse(o->slurm_version, &o->version, &o->version_micro) < 0) {
		char msg[256];
		snprintf(msg, sizeof(msg),
			 "--slurm-version=%s: expected %s (or a micro release of them, e.g. 25.05.6)",
			 o->slurm_version, cluster_version_list());
		return main_usage(ctx, "%s", msg);
	}
	g_option_context_free(ctx);
	return 0;
}

/* The stored options of an array directory (--merge DIR, --sweep-task):
 * parse DIR/sweep.args into o, keeping this command line's outputs and
 * mode; paths in it are DIR's, so the caller works in DIR from here on. */
static int main_array_opts(main_opts_t *o, main_opts_t *cmd, char *err, size_t errlen)
{
	const char *dir = cmd->merge ? cmd->merge : cmd->sweep_array;
	GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
	if (sweep_array_read_args(dir, a, err, errlen) < 0) {
		g_ptr_array_free(a, TRUE);
		return -1;
	}
	int argc = (int)a->len + 1;
	char **argv = g_new0(char *, argc + 1);
	argv[0] = g_strdup("nodeox-sim");
	for (guint i = 0; i < a->len; i++)
		argv[i + 1] = g_strdup(g_ptr_array_index(a, i));
	g_ptr_array_free(a, TRUE);
	char **keep = argv;
	char **own = g_memdup2(argv, sizeof(char *) * (size_t)(argc + 1));
	int rc = main_parse(&argc, &argv, o);
	if (rc == 0 && argc != 2) {
		snprintf(err, errlen, "%s/sweep.args: no trace", dir);
		rc = 1;
	}
	if (rc == 0) {
		o->sweep_array = g_strdup(dir);
		o->merge = cmd->merge ? g_strdup(cmd->merge) : NULL;
		o->sweep_task = cmd->sweep_task;
		o->quiet = cmd->quiet;
		/* outputs relative to where the command was run */
		o->json = cmd->json ? g_canonicalize_filename(cmd->json, NULL) : NULL;
		o->plot = cmd->plot ? g_canonicalize_filename(cmd->plot, NULL) : NULL;
		if (chdir(dir) < 0) {
			snprintf(err, errlen, "%s: %s", dir, strerror(errno));
			rc = -1;
		}
	} else if (rc > 0) {
		snprintf(err, errlen, "%s/sweep.args: not options nodeox-sim takes", dir);
		rc = -1;
	}
	g_strfreev(own);
	g_free(keep);
	return rc ? -1 : 0;
}

typedef struct {
	replica_setting_t s;
	int n;
	report_figures_t *figs; /* [replica][run] */
	sim_run_t *runs[2];     /* replica 0's, for --jobs and --plot */
	void (*progress)(void *arg, const char *what, size_t done, size_t total);
} main_compare_t;

static int main_compare_task(void *arg, int i, report_figures_t *out, char *err, size_t errlen)
{
	main_compare_t *m = arg;
	return replica_run(&m->s, i, m->n, out, NULL, err, errlen);
}

static int main_compare_own(void *arg, char *err, size_t errlen)
{
	main_compare_t *m = arg;
	m->s.progress = m->progress;
	int rc = replica_run(&m->s, 0, m->n, m->figs, m->runs, err, errlen);
	m->s.progress = NULL;
	return rc;
}

int main(int argc, char **argv)
{
	/* an array directory's own copy of the trace (main_array_opts) */
	static char *array_argv[] = { "nodeox-sim", "trace.csv", NULL };
	main_opts_t cmd, o;
	int urc = main_parse(&argc, &argv, &cmd);
	if (urc) {
		main_opts_free(&cmd);
		return urc;
	}
	char err[1024];
	int rc = 1;
	bool array_run = cmd.merge || (cmd.sweep_array && cmd.sweep_task >= 0);
	if (array_run) {
		if (main_array_opts(&o, &cmd, err, sizeof(err)) < 0) {
			fprintf(stderr, "nodeox-sim: %s\n", err);
			main_opts_free(&cmd);
			return 1;
		}
		argv = array_argv;
		main_opts_free(&cmd);
	} else {
		o = cmd;
	}
	bool run_base = !(o.mode && !strcmp(o.mode, "nodeox"));
	bool run_nodeox = !(o.mode && !strcmp(o.mode, "baseline"));

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
	nodeox_speeds_t *speeds = NULL;
	sim_runtime_t model = { 0 };
	main_compare_t m = { 0 };
	bool *tagged = NULL;
	sim_labels_t labels = { 0 };
	double price[SIM_MAX_TYPES];
	char *ppath = o.policy ? g_strdup(o.policy) : g_build_filename(cdir, "nodeox.conf", NULL);

	/* The trace first: a missing one is what the user got wrong, not the
	 * cluster the default directory would have given. */
	if (access(argv[1], R_OK) != 0) {
		snprintf(err, sizeof(err), "%s: %s", argv[1], strerror(errno));
		goto fail;
	}
	if (cluster_read(cdir, o.version, &cl, err, sizeof(err)) < 0)
		goto fail;
	cluster_version_set(cl, o.version, o.version_micro);
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
	/* the policy's speed table, as the plugin reads it (per job: its class
	 * is its workload) */
	if (o.speed_table || (conf && conf->speed_table[0])) {
		if (!conf) {
			snprintf(err, sizeof(err), "--speed-table needs a policy (%s)", ppath);
			goto fail;
		}
		if (o.sweep || array_run) {
			snprintf(err, sizeof(err),
				 "a speed table (--speed-table, SpeedTable=) is not yet "
				 "supported with --sweep");
			goto fail;
		}
		if (nodeox_speeds_parse_file(o.speed_table ? o.speed_table : conf->speed_table, &speeds, err,
					     sizeof(err)) < 0)
			goto fail;
		conf->speeds = speeds;
	}
	sim_trace_opts_t topts = { .skip_bad = o.skip_bad,
				   .conf = conf,
				   .warn = stderr,
				   .cpus_per_gpu = o.cpus_per_gpu > 0 ? (uint32_t)o.cpus_per_gpu : 0,
				   .mem_per_gpu_mb = o.mem_per_gpu_mb };
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
	if (o.labels && labels_read(o.labels, tr, &labels, err, sizeof(err)) < 0)
		goto fail;
	m.s = (replica_setting_t){ .c = cl,
				   .t = tr,
				   .labels = o.labels ? &labels : NULL,
				   .model = &model,
				   .conf = conf,
				   .tagged = tagged,
				   .price = o.price ? price : NULL,
				   .params = cl->params,
				   .run_base = run_base,
				   .run_nodeox = run_nodeox,
				   .record_nodes = o.jobs != NULL };
	if (o.sweep || array_run) {
		sweep_inputs_t in = { .setting = m.s,
				      .policy_path = ppath,
				      .class_speeds = o.class_speeds,
				      .round_sync = o.round_sync,
				      .seed = (unsigned long)o.seed,
				      .replicas = (int)o.replicas,
				      .trace_name = argv[1],
				      .cluster_name = cdir,
				      .quiet = o.quiet,
				      .json = o.json,
				      .plot = o.plot,
				      .gnuplot = NODEOX_GNUPLOT };
		if (o.sweep_array && !array_run) {
			GPtrArray *args = g_ptr_array_new_with_free_func(g_free);
			main_store_args(&o, args);
			sweep_array_files_t files = { .trace = argv[1],
						      .cluster = cdir,
						      .policy = ppath,
						      .class_speeds = o.class_speeds,
						      .bf_phase = o.bf_phase };
			int r = sweep_array_write(o.sweep_array, &in, o.sweep, &files, args, err,
						  sizeof(err));
			g_ptr_array_free(args, TRUE);
			if (r < 0)
				goto fail;
		} else if (o.sweep_task >= 0) {
			if (sweep_array_task(".", &in, o.sweep, (int)o.sweep_task, err, sizeof(err)) < 0)
				goto fail;
		} else if (o.merge) {
			if (sweep_array_merge(".", &in, o.sweep, err, sizeof(err)) < 0)
				goto fail;
		} else if (sweep_local(&in, o.sweep, err, sizeof(err)) < 0) {
			goto fail;
		}
	} else {
		/* Replicas are for the table and --json; --jobs and --plot show
		 * replica 0, the command line's own run. */
		m.n = o.quiet && !o.json ? 1 : (int)o.replicas;
		m.s.modes_at_once = m.n == 1;
		m.figs = g_new0(report_figures_t, (size_t)m.n * 2);
		m.progress = isatty(STDERR_FILENO) ? main_progress : NULL;
		if (replica_pool(1, m.n, 2, main_compare_task, &m, m.figs, main_compare_own, &m, err,
				 sizeof(err)) < 0)
			goto fail;
		report_figures_t med[2], lo[2], hi[2];
		report_fig_run_t fr[2];
		report_run_t rr[2];
		int nr = 0;
		for (int i = 0; i < 2; i++) {
			if (!m.runs[i])
				continue;
			replica_combine(&m.figs[i], m.n, 2, &med[i], &lo[i], &hi[i]);
			fr[nr] =
				(report_fig_run_t){ i ? "nodeox" : "baseline", m.n > 1 ? &med[i] : &m.figs[i],
						    m.n > 1 ? &lo[i] : NULL, m.n > 1 ? &hi[i] : NULL };
			rr[nr] = (report_run_t){ fr[nr].name, m.runs[i] };
			nr++;
		}
		if (!o.quiet)
			report_table(stdout, cl, tr, report_tagged(rr[0].run), fr, nr, o.price ? price : NULL,
				     m.n, m.s.labels);
		if (o.json && report_json(o.json, cl, fr, nr, o.price ? price : NULL, m.n, m.s.labels, err,
					  sizeof(err)) < 0)
			goto fail;
		if (o.jobs && report_jobs_csv(o.jobs, tr, rr, nr, err, sizeof(err)) < 0)
			goto fail;
		if (o.plot && report_plot(o.plot, NODEOX_GNUPLOT, rr, nr, err, sizeof(err)) < 0)
			goto fail;
	}
	if (fflush(stdout) != 0) {
		snprintf(err, sizeof(err), "stdout: %s", strerror(errno));
		goto fail;
	}
	rc = 0;
fail:
	if (rc)
		fprintf(stderr, "nodeox-sim: %s\n", err);
	sched_run_free(m.runs[0]);
	sched_run_free(m.runs[1]);
	nodeox_g_free_all(m.figs, tagged, beside);
	labels_free(&labels);
	runtime_model_free(&model);
	trace_free(tr);
	if (conf)
		nodeox_conf_free(conf);
	nodeox_speeds_free(speeds);
	cluster_free(cl);
	bf_phase_free(phase);
	g_free(ppath);
	main_opts_free(&o);
	return rc;
}
