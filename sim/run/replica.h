/*
 * replica.h: a compare run as N replicas under Slurm's timing noise, run in
 * parallel by forked workers on the machine's cores (replica.c), and the
 * median and range of each figure over them. doc/simulator.md, Replicas.
 */
#ifndef SIM_REPLICA_H
#define SIM_REPLICA_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/policy.h"
#include "sim/model/bf_phase.h"
#include "sim/model/cluster.h"
#include "sim/run/report.h"
#include "sim/model/runtime_model.h"
#include "sim/model/sched.h"
#include "sim/model/trace.h"

#define REPLICA_MAX 1000

/* One setting to replay: the runs of a compare (or a single mode). */
typedef struct {
	const sim_cluster_t *c;
	const sim_trace_t *t;
	const sim_runtime_t *model;
	const nodeox_conf_t *conf;  /* the policy of the nodeox run */
	const bool *tagged;         /* per job; NULL: the trace's tags */
	const double *price;        /* NULL: no cost */
	const sim_labels_t *labels; /* --labels; NULL: none */
	sim_sched_params_t params;  /* replica 0's: the command line's */
	bool run_base, run_nodeox;
	bool record_nodes;  /* --jobs: keep each job's nodes */
	bool modes_at_once; /* run the two modes on two threads (a lone */
			    /* run: no other worker on the cores) */
	/* progress on stderr (replica 0 in this process only) */
	void (*progress)(void *arg, const char *what, size_t done, size_t total);
} replica_setting_t;

/* Replica k of n: replica 0 has the given parameters (today's single run);
 * replica k > 0 has --latency-seed + k, the wall-clock phase of trace second
 * 0 (bf_origin) moved by k/n of bf_resolution, and slurmctld's start
 * (limit_origin_s) earlier by a different k'/n of 30 s (a fixed permutation)
 * plus whole 30 s windows, k mod W of the W in the cycle of its clocks
 * (time-limit checks, sched_interval, PriorityCalcPeriod where an age weight
 * makes it count), or k W / n where W > n. */
void replica_params(const sim_sched_params_t *base, int k, int n, sim_sched_params_t *out);
/* Where passes come every second (bf_interval=1) and no --bf-phase was
 * given, odd replicas k hand nodes on at the passes of a synthetic phase
 * table: phase p0 + drift * second, p0 = frac(k * 0.618...), drift
 * 1.0 * 58.2^frac(k * 0.414...) ms a second (1.0 to 58.2, even in its
 * logarithm). Fills *ph over sec and phase and returns true for those, else
 * false. */
#define REPLICA_PHASE_SPAN_S 1000000000
bool replica_pass_phase(const sim_sched_params_t *base, int k, int n, sim_bf_phase_t *ph, int64_t sec[2],
			double phase[2]);

/* Run replica k of n of setting s: the figures of its baseline and nodeox
 * runs in figs[0] and figs[1] (zeroed for a mode not run). With runs not
 * NULL, the runs themselves are handed back (caller frees). 0, or -1 and err. */
int replica_run(const replica_setting_t *s, int k, int n, report_figures_t figs[2], sim_run_t *runs[2],
		char *err, size_t errlen);

/* A task for the worker pool: fill out[0..nfig) for task i; 0 or -1 and err. */
typedef int (*replica_task_fn)(void *arg, int i, report_figures_t *out, char *err, size_t errlen);

/* Run tasks first..ntasks-1 in forked workers, as many at once as the
 * process may use CPUs, each handing back nfig figures (out[i * nfig...]).
 * While they run, calls own(own_arg) in this process (may be NULL: the
 * caller's own work, e.g. task 0). 0, or -1 with the first failure in err. */
int replica_pool(int first, int ntasks, int nfig, replica_task_fn fn, void *arg, report_figures_t *out,
		 int (*own)(void *own_arg, char *err, size_t errlen), void *own_arg, char *err,
		 size_t errlen);

/* Median, lowest and highest of each figure over n figures taken every
 * stride-th from figs (field by field; the median of an even count is the
 * mean of the middle two). */
void replica_combine(const report_figures_t *figs, int n, int stride, report_figures_t *med,
		     report_figures_t *lo, report_figures_t *hi);

#endif
