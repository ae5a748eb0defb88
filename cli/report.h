/*
 * report.h: `nodeox report HISTORY`, what job_submit/nodeox did and what it
 * cost, from the cluster's own accounting (issue 45).
 *
 * Layout: the history is read by libnodeox_sacct (sim/sacct/sacct_history.h), the
 * same reader nodeox-sacct-import uses, so the report and the importer see
 * the same jobs; the kept jobs' reasons come from libnodeox_policy (the
 * plugin's own decision); nothing here links libslurm or glib. Files:
 *   report_cmd.c    options, reading, the order of the outputs
 *   report_stats.c  groups, distributions, end states and their flags, cost
 *   report_cf.c     the counterfactual: nodeox-sim on the same jobs (--cluster)
 *   report_text.c   the table; report_json.c --json; report_prom.c --prometheus;
 *   report_plot.c   --plot
 */
#ifndef NODEOX_CLI_REPORT_H
#define NODEOX_CLI_REPORT_H

#include <stdio.h>

#include "policy/policy.h"
#include "sim/sacct/sacct_history.h"

/* The groups, by what accounting says the plugin did. */
typedef enum {
	REPORT_BROADENED = 0, /* its record says it rewrote the job */
	REPORT_KEPT,          /* tagged, not rewritten (a dryrun record counts here) */
	REPORT_UNTAGGED,      /* no nodeox:flex tag */
	REPORT_LOST,          /* tagged, AdminComment replaced by someone else's text:
			       * what nodeox did is not known */
	REPORT_NGROUPS
} report_group_t;

/* End states counted; REPORT_ST_OTHER is every other one (PREEMPTED, ...). */
typedef enum {
	REPORT_ST_COMPLETED = 0,
	REPORT_ST_FAILED,
	REPORT_ST_TIMEOUT,
	REPORT_ST_OUT_OF_MEMORY,
	REPORT_ST_CANCELLED,
	REPORT_ST_NODE_FAIL,
	REPORT_ST_OTHER,
	REPORT_ST_REQUEUED, /* not an end state: jobs requeued at least once */
	REPORT_NSTATES
} report_state_t;

/* A flag is raised when a one-sided Fisher exact test puts the rate of a
 * state on a substitute type above the rate on the type asked at p below
 * this (doc/admin-guide.md, "After a week: nodeox report"). */
#define REPORT_FLAG_P 0.05

typedef struct {
	double mean, median, p95; /* seconds; NaN with no jobs */
} report_dist_t;

typedef struct {
	long jobs;
	report_dist_t wait, run, turnaround;
	double gpu_hours;
} report_group_stats_t;

/* One (type asked, type run on) pair of a set of jobs. */
typedef struct {
	const char *asked, *ran; /* "any": untyped request; "unknown": no type in AllocTRES */
	long jobs;
	long n[REPORT_NSTATES];
	double p[REPORT_NSTATES]; /* Fisher's p against (asked, asked); 1 when not tested */
	int flagged[REPORT_NSTATES];
	long base_jobs; /* jobs of (asked, asked), the comparison; 0: none */
	long base_n[REPORT_NSTATES];
} report_cell_t;

/* GPU-hours of one (group, asked, ran, account, partition) combination. */
typedef struct {
	report_group_t group;
	const char *asked, *ran, *account, *partition;
	long jobs;
	double gpu_hours;
} report_use_t;

/* GPU-hours of a group on one type run on. */
typedef struct {
	report_group_t group;
	const char *ran;
	double gpu_hours;
} report_type_hours_t;

typedef struct {
	const char *reason;
	long jobs;
} report_reason_t;

typedef struct {
	char type[SACCT_TYPE_MAX];
	double cost; /* per GPU-hour */
} report_price_t;

/* The counterfactual (report_cf.c): nodeox-sim's replay of the same jobs. */
#define REPORT_CF_NKEYS 6           /* wait mean, median, p95; turnaround mean, median, p95 */
#define REPORT_CF_TURNAROUND_MEAN 3 /* the key a group's verdict is (report_cf_t) */
/* The counterfactual's groups: a report_group_t's jobs (g < REPORT_NGROUPS:
 * the group accounting gives each job, report_group_of, passed to nodeox-sim
 * as its --labels, so that the plugin-off run, where nothing is broadened,
 * still counts the broadened jobs apart), then all jobs. */
#define REPORT_CF_ALL REPORT_NGROUPS
#define REPORT_CF_NGROUPS (REPORT_NGROUPS + 1)
typedef enum {
	REPORT_CF_NOISE = 0,
	REPORT_CF_SOONER,
	REPORT_CF_LATER,
	REPORT_CF_EMPTY /* no job of the group ran in one of the model's runs */
} report_cf_effect_t;

typedef struct {
	double med, lo, hi; /* over the replicas */
} report_range_t;

typedef struct {
	long jobs;
	report_range_t v[REPORT_CF_NKEYS];
} report_cf_side_t;

typedef struct {
	long actual_jobs;
	double actual[REPORT_CF_NKEYS]; /* what happened */
	report_cf_side_t on, off;       /* the model, plugin on and off */
	report_cf_effect_t effect[REPORT_CF_NKEYS];
	int model_off[REPORT_CF_NKEYS]; /* what happened is outside the on range */
	report_cf_effect_t verdict;     /* did the plugin make them finish sooner: the
					 * effect on the mean turnaround */
} report_cf_group_t;

/* One job of nodeox-sim's replica 0 (its --jobs), for --plot. */
typedef struct {
	char job_id[32];
	int on; /* plugin on (1) or off (0) */
	double wait, turnaround;
} report_cf_job_t;

typedef struct {
	int made;
	int replicas;
	report_cf_group_t group[REPORT_CF_NGROUPS];
	report_cf_job_t *jobs; /* with report_cf_opts_t.jobs; NULL otherwise */
	size_t njobs;
} report_cf_t;

typedef struct {
	const char *sim;     /* nodeox-sim's path */
	const char *cluster; /* --cluster DIR */
	const char *policy;  /* nodeox.conf */
	int replicas;
	int jobs;          /* keep replica 0's jobs (for --plot) */
	const char *trace; /* HISTORY when it is a trace file: replayed as it is */
} report_cf_opts_t;

typedef struct {
	report_cf_t cf;
	report_group_stats_t group[REPORT_NGROUPS];
	report_cell_t *cells; /* sorted by asked, then ran */
	size_t ncells;
	report_use_t *use;
	size_t nuse;
	report_type_hours_t *type_hours; /* per group, in order of first use */
	size_t ntype_hours;
	report_reason_t *reasons; /* why kept jobs were kept, most first */
	size_t nreasons;
	const char **lost_ids; /* REPORT_LOST jobs (all of them) */
	size_t nlost;
	report_price_t *prices; /* --price, NULL when none */
	size_t nprices;
	double idle_gpu_hours; /* broadened jobs on a type other than asked */
	long jobs;
} report_t;

/* The group of job, and why a kept one was kept (a static or conf-owned
 * string; conf may be NULL). */
report_group_t report_group_of(const sacct_job_t *job);
const char *report_kept_reason(const sacct_job_t *job, const nodeox_conf_t *conf, char *buf, size_t len);
const char *report_group_name(report_group_t g);
const char *report_state_name(report_state_t s);
report_state_t report_state_of(const char *state);

/* Nearest-rank percentile q (0..1] of n sorted values; the median is the
 * mean of the middle two for even n. */
double report_percentile(const double *sorted, size_t n, double q);
double report_median(const double *sorted, size_t n);
/* Mean, median and p95 of v[0..n) (sorted in place). */
report_dist_t report_dist_of(double *v, size_t n);
/* One-sided Fisher exact test: the chance of k or more of n in a state when
 * k0 of n0 are in it on the comparison, under one rate for both. */
double report_fisher_greater(long k, long n, long k0, long n0);

/* Parse --price "TYPE=COST[,TYPE=COST...]". Returns 0, or -1 with err. */
int report_price_parse(const char *s, report_price_t **out, size_t *n, char *err, size_t errlen);
/* Cost of hours on type (NaN when the type has no price). */
double report_price_cost(const report_t *r, const char *type, double hours);

/* Compute everything from the history's jobs (which must outlive r). */
int report_build(const sacct_history_t *h, const nodeox_conf_t *conf, report_t *r);
void report_free(report_t *r);

void report_write_text(FILE *out, const report_t *r, const sacct_history_t *h);
void report_write_json(FILE *out, const report_t *r, const sacct_history_t *h);
void report_write_prom(FILE *out, const report_t *r);

/* Replay the history's jobs with nodeox-sim (report_cf.c). 0, or -1 with err. */
int report_cf_run(const sacct_history_t *h, const report_cf_opts_t *o, report_cf_t *cf, char *err,
		  size_t errlen);
const char *report_cf_key_name(int k);
/* A counterfactual group's name in every output: report_group_name's, or "all". */
const char *report_cf_group_name(int g);
/* A new directory under $TMPDIR (or /tmp) in dir; 0, or -1 with err. */
int report_tmpdir(char *dir, size_t len, char *err, size_t errlen);
/* Run argv (argv[0] a path, or a name looked up in PATH), stdout to
 * /dev/null, stderr to errpath (NULL: ours): its exit status, or -1 with err. */
int report_spawn(char *const argv[], const char *errpath, char *err, size_t errlen);
/* --plot FILE (report_plot.c): wait and turnaround distributions per group,
 * what happened against the model's plugin on and off (cf may be NULL).
 * 0, or -1 with err. */
int report_plot_write(const char *path, const char *gnuplot, const sacct_history_t *h, const report_cf_t *cf,
		      char *err, size_t errlen);
const char *report_cf_effect_name(report_cf_effect_t e);

int report_cmd_run(int argc, char **argv);

#endif
