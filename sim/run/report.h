/*
 * report.h: what nodeox-sim prints and writes (report.c): the comparison
 * table, --json, --jobs and --plot. Keys and columns: doc/simulator.md.
 * With prices per GPU-hour (price.h; NULL: none) the table and --json also
 * give the cost of the GPU-hours.
 */
#ifndef SIM_REPORT_H
#define SIM_REPORT_H

#include <stdio.h>

#include "sim/model/cluster.h"
#include "sim/model/sched.h"
#include "sim/model/trace.h"
#include "sim/run/labels.h"

typedef struct {
	const char *name; /* "baseline" or "nodeox" */
	const sim_run_t *run;
} report_run_t;

/* Every field of the statistics is a double (counts too), so that the
 * figures of several replicas combine field by field (replica.c). */
typedef struct {
	double jobs; /* jobs that ran */
	double wait_mean_s, wait_p50_s, wait_p95_s;
	double run_mean_s, run_p50_s, run_p95_s;
	double turnaround_mean_s, turnaround_p50_s, turnaround_p95_s;
	double gpu_hours;
	double gpu_hours_type[SIM_MAX_TYPES];
	double cost; /* with prices only (report_figures), else 0 */
	double cost_type[SIM_MAX_TYPES];
	double ended_later; /* vs base run; -1 without one */
} report_stats_t;

/* What the table and --json print of one run: all jobs, the tagged ones
 * (flex), the untagged ones (the rest: flex + untagged = all), the jobs of
 * each --labels label (label[i] for labels.h's name[i]; zero without) and
 * the cluster's counters. Doubles only, as report_stats_t. */
typedef struct {
	report_stats_t all, flex, untagged;
	report_stats_t label[LABELS_MAX];
	double utilization, makespan_s;
	double rejected, never, bf_passes, reservations, releases_scanned;
	double untagged_turnaround_mean_s; /* over the jobs that ran untagged */
	double max_pending;                /* most jobs pending at once (the footer) */
} report_figures_t;

#define REPORT_FIGURES_N (sizeof(report_figures_t) / sizeof(double))

/* One run's figures as the table and --json print them: from one replica
 * (lo, hi NULL), or the median over several with their lowest and highest
 * (replica.c). */
typedef struct {
	const char *name; /* "baseline" or "nodeox" */
	const report_figures_t *med, *lo, *hi;
} report_fig_run_t;

/* The jobs a group of the figures counts: every job, the tagged ones
 * (nodeox:flex), the untagged ones. */
typedef enum { REPORT_GROUP_ALL = 0, REPORT_GROUP_FLEX = 1, REPORT_GROUP_UNTAGGED = 2 } report_group_t;

/* Statistics over the jobs of run that ran, of one group (REPORT_GROUP_*;
 * false and true read as all and flex); base (may be NULL) is the run to
 * count "ended later" against. */
void report_stats(const sim_run_t *run, const sim_run_t *base, int group, int ntypes, report_stats_t *out);
double report_utilization(const sim_cluster_t *c, const sim_run_t *run);
double report_makespan(const sim_run_t *run);
/* Everything the table and --json print of run; base (may be NULL) is the
 * run "ended later" counts against; price (may be NULL) adds cost; labels
 * (may be NULL) the jobs' --labels. */
void report_figures(const sim_cluster_t *c, const sim_run_t *run, const sim_run_t *base, const double *price,
		    const sim_labels_t *labels, report_figures_t *out);
/* Jobs the run tagged (the table's header). */
size_t report_tagged(const sim_run_t *run);

/* The table of one or two runs; replicas > 1 prints each figure as the
 * median with its range and marks changes within noise; labels (may be
 * NULL) adds a section per --labels label. */
void report_table(FILE *out, const sim_cluster_t *c, const sim_trace_t *t, size_t tagged,
		  const report_fig_run_t *runs, int nruns, const double *price, int replicas,
		  const sim_labels_t *labels);
int report_json(const char *path, const sim_cluster_t *c, const report_fig_run_t *runs, int nruns,
		const double *price, int replicas, const sim_labels_t *labels, char *err, size_t errlen);
/* One run's --json object ({"all": ..., "flex": ..., "untagged": ..., ["labels":
 * {LABEL: ...},] ...}) at indent spaces, for the sweep's JSON (sweep.c, labels
 * NULL) as for report_json. */
void report_json_run(FILE *f, const sim_cluster_t *c, const report_fig_run_t *run, const double *price,
		     const sim_labels_t *labels, int indent);
/* Whether two runs' ranges [lo0, hi0] and [lo1, hi1] overlap: a change
 * between them is within noise. */
bool report_within_noise(double lo0, double hi0, double lo1, double hi1);
int report_jobs_csv(const char *path, const sim_trace_t *t, const report_run_t *runs, int nruns, char *err,
		    size_t errlen);
/* "N nodes, G GPUs (a100 32, ...)", as the table's header says it. */
void report_cluster_summary(FILE *out, const sim_cluster_t *c);
/* fopen for writing / fclose checking every write, with "PATH: why" in err. */
FILE *report_open(const char *path, char *err, size_t errlen);
int report_close(FILE *f, const char *path, char *err, size_t errlen);
/* Draw path with gnuplot: data(f, arg) writes the data file, script(f,
 * data_path, arg) the plot commands after the terminal and output lines
 * (SVG, or PNG for *.png). */
typedef void (*report_plot_data_fn)(FILE *f, void *arg);
typedef void (*report_plot_script_fn)(FILE *f, const char *data, void *arg);
int report_gnuplot(const char *path, const char *gnuplot, report_plot_data_fn data,
		   report_plot_script_fn script, void *arg, char *err, size_t errlen);
int report_plot(const char *path, const char *gnuplot, const report_run_t *runs, int nruns, char *err,
		size_t errlen);

#endif
