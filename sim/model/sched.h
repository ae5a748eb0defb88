/*
 * sched.h: the scheduler model (sim/sched*.c): replays a trace on a cluster, with
 * or without the nodeox policy, the way Slurm's priority/multifactor (age and
 * job size), main scheduling pass and sched/backfill would.
 */
#ifndef SIM_SCHED_H
#define SIM_SCHED_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "policy/policy.h"
#include "sim/model/cluster.h"
#include "sim/model/runtime_model.h"
#include "sim/model/trace.h"

typedef enum {
	SIM_JOB_DONE = 0, /* ran to the end of its run time */
	SIM_JOB_TIMEOUT,  /* killed at its time limit */
	SIM_JOB_REJECTED, /* refused at submission (reason says why) */
	SIM_JOB_NEVER,    /* accepted but never started (cluster could not serve it) */
} sim_job_status_t;

typedef struct {
	int64_t submit;     /* seconds from trace start */
	int64_t start, end; /* seconds from trace start; -1 when it never ran */
	uint8_t status;     /* sim_job_status_t */
	bool tagged;        /* carried the nodeox tag in this run */
	bool broadened;     /* the policy rewrote its request */
	const char *types;  /* GPU types used, "a100:2+l40s:2" ("" for none) */
	const char *nodes;  /* comma list of nodes (only with record_nodes) */
	const char *reason; /* rejection reason or the policy's one line, or NULL */
} sim_result_t;

typedef struct {
	sim_result_t *jobs; /* one per trace job, same order */
	size_t njobs;
	double gpu_seconds[2][SIM_MAX_TYPES]; /* [all, flex][type] */
	int64_t first_submit, last_end;
	size_t rejected, never;
	uint64_t main_passes, bf_passes, reservations, releases_scanned;
	size_t max_pending; /* most jobs pending at once */
	GStringChunk *strings;
} sim_run_t;

typedef struct {
	sim_sched_params_t params;
	const nodeox_conf_t *policy; /* NULL: baseline (plugin off) */
	const sim_runtime_t *runtime;
	const bool *tagged; /* per job; NULL: the trace's own tags */
	bool record_nodes;
	void (*progress)(void *arg, const char *what, size_t done, size_t total);
	void *progress_arg;
	const char *label; /* "baseline"/"nodeox", for progress */
	/* Called after each policy decision with the job as handed to the policy
	 * and every node's state at that moment (tests check the decision). */
	void (*on_decide)(void *arg, uint32_t job, const nodeox_job_t *pj, const nodeox_cluster_t *all_nodes,
			  const nodeox_decision_t *d);
	void *decide_arg;
} sim_sched_opts_t;

/* Replay trace on cluster. Returns 0 and a run in *out, or -1 with err. */
int sched_run(const sim_cluster_t *c, const sim_trace_t *t, const sim_sched_opts_t *o, sim_run_t **out,
	      char *err, size_t errlen);
void sched_run_free(sim_run_t *r);
/* n runs of trace on cluster, one per o[i], at once (threads); out[i] as
 * sched_run gives it (NULL where it failed). Returns 0, or -1 with err
 * from the first that failed. */
int sched_run_all(const sim_cluster_t *c, const sim_trace_t *t, const sim_sched_opts_t *o, int n,
		  sim_run_t **out, char *err, size_t errlen);
/* The policy's view of the cluster with every node idle (for what-if tagging
 * and for tests); free with sched_policy_nodes_free. */
nodeox_node_t *sched_policy_nodes(const sim_cluster_t *c);
void sched_policy_nodes_free(nodeox_node_t *nodes);
/* Fill a nodeox_job_t for job the way slurmctld would see its submission;
 * bufs holds the TRES string, comment is the comment to hand over. With a
 * cluster c, time_cap is the smallest MaxTime of the job's partitions, as
 * job_submit/nodeox reads it from slurmctld (c may be NULL: no cap). */
void sched_policy_job(const sim_cluster_t *c, const sim_job_t *job, const char *comment, char *tres,
		      size_t tres_len, nodeox_job_t *out);

#endif
