/*
 * report.h: what nodeox-sim prints and writes (report.c): the comparison
 * table, --json, --jobs and --plot. Keys and columns: doc/simulator.md.
 * With prices per GPU-hour (price.h; NULL: none) the table and --json also
 * give the cost of the GPU-hours.
 */
#ifndef SIM_REPORT_H
#define SIM_REPORT_H

#include <stdio.h>

#include "sim/cluster.h"
#include "sim/sched.h"
#include "sim/trace.h"

typedef struct {
	const char *name;          /* "baseline" or "nodeox" */
	const sim_run_t *run;
} report_run_t;

typedef struct {
	size_t jobs;               /* jobs that ran */
	double wait_mean_s, wait_p50_s, wait_p95_s;
	double run_mean_s, run_p50_s, run_p95_s;
	double turnaround_mean_s, turnaround_p50_s, turnaround_p95_s;
	double gpu_hours;
	double gpu_hours_type[SIM_MAX_TYPES];
	long ended_later;          /* vs base run; -1 without one */
} report_stats_t;

/* Statistics over the jobs of run that ran (only tagged ones with flex_only);
 * base (may be NULL) is the run to count "ended later" against. */
void report_stats(const sim_run_t *run, const sim_run_t *base, bool flex_only, int ntypes,
		  report_stats_t *out);
double report_utilization(const sim_cluster_t *c, const sim_run_t *run);
double report_makespan(const sim_run_t *run);

void report_table(FILE *out, const sim_cluster_t *c, const sim_trace_t *t,
		  const report_run_t *runs, int nruns, const double *price);
int report_json(const char *path, const sim_cluster_t *c, const report_run_t *runs, int nruns,
		const double *price, char *err, size_t errlen);
int report_jobs_csv(const char *path, const sim_trace_t *t, const report_run_t *runs, int nruns,
		    char *err, size_t errlen);
int report_plot(const char *path, const char *gnuplot, const report_run_t *runs, int nruns,
		char *err, size_t errlen);

#endif
