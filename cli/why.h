/*
 * why.h: `nodeox why JOBID`, the explanation of a pending job.
 *
 * Three layers, so the reasoning can be tested without a cluster:
 *   why_load.c     libslurm -> the plain structs below (the only Slurm code,
 *                  and the only place that knows a Slurm version's API)
 *   why_pending.c  Slurm's pending reason -> blockers in the job's terms (pure)
 *   why_never.c    can the job ever run in its partitions as configured (pure)
 *   why_analyze.c  plain structs + nodeox.conf -> the GPU view (pure)
 *   why_state.c    the queue -> Broaden=when-faster's state for the policy (pure)
 *   why_print.c    why_result_t -> text for people, or JSON
 * Calls run one way: why_pending.c asks why_never.c, and both add blockers
 * through why_blockers.c (the list, its overflow count and the kinds' names).
 * Helpers: why_gres.c parses GRES/TRES strings and node lists, why_feature.c
 * evaluates a --constraint expression against a node's features.
 *
 * Strings in why_job_t and why_node_t are borrowed: the caller keeps them
 * alive while the result is used. The result owns nothing on the heap except
 * the per-node verdicts (why_result_free).
 */
#ifndef NODEOX_WHY_H
#define NODEOX_WHY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "common/util.h"
#include "policy/policy.h"

#define WHY_MAX_NODE_GPUS 8 /* GPU types on one node */
#define WHY_NAME_MAX 64
#define WHY_MEM_NONE 0 /* no memory request */

/* ------------------------------------------------------------------ input */

/* What the node is doing, reduced to what decides whether it can take work. */
typedef enum {
	WHY_NODE_UP = 0,  /* idle, mixed or allocated */
	WHY_NODE_DOWN,    /* down or failed */
	WHY_NODE_DRAINED, /* drained or draining */
	WHY_NODE_NOT_RESPONDING,
	WHY_NODE_UNAVAILABLE, /* powered down, future, maintenance, ... */
} why_node_state_t;

/* One GPU type present on a node: "gpu:a100:4" with 2 of them in use. */
typedef struct {
	char type[WHY_NAME_MAX]; /* "" for untyped GPUs */
	uint32_t total;
	uint32_t used;
} why_gpu_t;

typedef struct {
	const char *name;
	const char *features;   /* active features, comma list */
	const char *partitions; /* comma list */
	why_node_state_t state;
	const char *state_name;   /* Slurm's words, e.g. "IDLE+DRAIN" */
	const char *state_reason; /* why an admin drained it, may be NULL */
	why_gpu_t gpus[WHY_MAX_NODE_GPUS];
	int ngpus;
	uint32_t cpus, cpus_alloc;
	uint64_t mem_mb, mem_alloc_mb;
} why_node_t;

/* Where a job is in its life. */
typedef enum {
	WHY_PHASE_PENDING = 0,
	WHY_PHASE_ACTIVE, /* running, suspended, configuring, completing */
	WHY_PHASE_ENDED,  /* completed, failed, cancelled, timeout, ... */
} why_phase_t;

/* The job, with Slurm's fields as loaded (22.05 strings, e.g. "gres:gpu:a100:4"). */
typedef struct {
	uint32_t job_id;
	bool pending;
	why_phase_t phase;
	const char *state_name;  /* "PENDING", "RUNNING", ... */
	const char *reason;      /* Slurm's pending reason, e.g. "Resources" */
	const char *reason_desc; /* Slurm's detail for it, may be NULL */
	const char *name;        /* job name */
	uint32_t priority;       /* 0 = held */
	const char *dependency;  /* "afterok:12(unfulfilled),..." */
	const char *reservation; /* --reservation */
	const char *licenses;    /* "matlab:1,..." */
	const char *qos;
	const char *alloc_nodes; /* nodes of a started job, Slurm's hostlist form */
	time_t begin_time;       /* --begin (eligible time), 0 = none */
	time_t start_time;       /* started, or backfill's expected start; 0 = none */
	time_t end_time;         /* ended, or expected end */
	int exit_status;         /* of an ended job; -1 = killed by a signal */
	const char *user, *account;
	const char *partition; /* comma list as Slurm assigned it */
	const char *features;  /* --constraint */
	const char *prefer;
	const char *comment, *admin_comment;
	const char *tres_per_job, *tres_per_node, *tres_per_task, *tres_per_socket;
	const char *cpus_per_tres, *mem_per_tres; /* "gres:gpu:N" */
	const char *req_nodes, *exc_nodes;        /* comma lists, expanded */
	uint32_t time_limit;                      /* minutes, NODEOX_TIME_NONE/INFINITE */
	uint32_t num_nodes, max_nodes;            /* max 0 = no maximum */
	uint32_t num_tasks;
	uint32_t num_cpus;    /* minimum CPUs in total */
	uint32_t pn_min_cpus; /* minimum CPUs per node */
	uint32_t cpus_per_task;
	uint64_t mem_per_node_mb; /* 0 = none asked */
	uint64_t mem_per_cpu_mb;  /* 0 = none asked */
	bool mem_tracked;         /* memory is consumable (CR_MEMORY): a job
				     * asking none gets a whole node's memory */
} why_job_t;

/* A partition as configured. */
typedef struct {
	const char *name;
	const char *state_name; /* "UP", "DOWN", "DRAIN", "INACTIVE" */
	bool up;
	uint32_t max_time;            /* minutes, NODEOX_TIME_INFINITE = no limit */
	uint32_t max_nodes;           /* per job, 0 = no limit */
	uint32_t min_nodes;           /* per job */
	uint32_t max_cpus_per_node;   /* 0 = no limit */
	uint64_t max_mem_per_node_mb; /* 0 = no limit */
} why_part_t;

/* Another job of slurmctld's queue, as seen by the explanation: jobs ahead,
 * jobs on the nodes, dependency targets, license holders. */
typedef struct {
	uint32_t job_id;
	uint32_t array_job_id, array_task_id; /* array_job_id 0: not an array */
	why_phase_t phase;
	const char *state_name;
	const char *reason;
	const char *name, *user;
	const char *partition; /* comma list */
	const char *nodes;     /* allocated, expanded comma list, may be NULL */
	const char *licenses;
	uint32_t priority;
	uint32_t num_nodes, num_cpus, num_tasks;
	time_t start_time, end_time;
	int exit_status;
	/* GPUs, for Broaden=when-faster's state (why_state.c): what a running
	 * job holds ("gres/gpu:a100=4", over all its nodes) and what a pending
	 * one asks (Slurm's tres_per_* strings) */
	const char *tres_alloc;
	const char *tres_per_job, *tres_per_node, *tres_per_task, *tres_per_socket;
	/* and, for the backfill map (policy_map.c), a pending job's time limit
	 * (minutes, NODEOX_TIME_NONE/INFINITE: its partition's MaxTime) and
	 * its constraint (a broadened job's types) */
	uint32_t time_limit;
	const char *features;
	/* and, for the run-time history (policy_history.c), its user's id
	 * and whether an ended job ended on its own (completed, failed,
	 * timed out, out of memory: a run time, as the plugin counts one) */
	uint32_t user_id;
	bool ended_own;
} why_qjob_t;

/* A reservation. */
typedef struct {
	const char *name;
	const char *nodes; /* expanded comma list */
	const char *users, *accounts;
	time_t start_time, end_time;
	bool maint; /* Flags=MAINT */
} why_resv_t;

/* A license of slurm.conf (Licenses=). */
typedef struct {
	const char *name;
	uint32_t total, in_use, reserved;
} why_license_t;

/* slurmctld's accounting view (its assoc_mgr: slurm_load_assoc_mgr_info)
 * of the job's QOS and association, per TRES ("cpu", "mem" in MB, "node",
 * "gres/gpu", ...). WHY_ACCT_NONE: no limit set, or nothing read. */
#define WHY_ACCT_TRES_MAX 32
#define WHY_ACCT_NONE UINT64_MAX
typedef struct {
	bool readable;               /* slurmctld answered with accounting data */
	char why_not[160];           /* else: why not, in plain words */
	bool qos_found, assoc_found; /* the job's QOS / user association seen */
	size_t ntres;
	char tres[WHY_ACCT_TRES_MAX][WHY_NAME_MAX];
	uint64_t job[WHY_ACCT_TRES_MAX];           /* the job's request (tres_req_str) */
	uint64_t qos_max_pu[WHY_ACCT_TRES_MAX];    /* QOS MaxTRESPerUser */
	uint64_t qos_user_used[WHY_ACCT_TRES_MAX]; /* the job's user's use in the QOS */
	uint64_t qos_max_pj[WHY_ACCT_TRES_MAX];    /* QOS MaxTRESPerJob */
	uint64_t qos_grp[WHY_ACCT_TRES_MAX];       /* QOS GrpTRES */
	uint64_t qos_grp_used[WHY_ACCT_TRES_MAX];
	uint64_t assoc_grp[WHY_ACCT_TRES_MAX]; /* GrpTRES of the nearest association
						   * (user, then its accounts up) setting it */
	uint64_t assoc_grp_used[WHY_ACCT_TRES_MAX];
	uint64_t assoc_max_pj[WHY_ACCT_TRES_MAX]; /* MaxTRES (per job) */
} why_acct_t;

/* Everything else slurmctld said, beside the job and its nodes. */
typedef struct {
	const why_node_t *nodes;
	size_t nnodes;
	const why_part_t *parts;
	size_t nparts;
	const why_qjob_t *jobs;
	size_t njobs;
	const why_resv_t *resvs;
	size_t nresvs;
	const why_license_t *lics;
	size_t nlics;
	const why_acct_t *acct; /* NULL: not loaded */
	time_t now;
} why_cluster_t;

/* ---------------------------------------------------------------- analysis */

/* How the GPU count is given. */
typedef enum {
	WHY_PER_NONE = 0,
	WHY_PER_NODE,
	WHY_PER_JOB,
	WHY_PER_TASK,
	WHY_PER_SOCKET,
} why_per_t;

/* The job's GPU request, read from its TRES strings. */
typedef struct {
	why_per_t per;
	char type[WHY_NAME_MAX];  /* "" = any type */
	uint32_t count;           /* per unit of `per` */
	uint32_t total;           /* GPUs the job needs in all */
	uint32_t per_node_min;    /* GPUs one node must have idle to help */
	uint32_t nodes;           /* nodes the job needs at least */
	uint32_t cpus_per_node;   /* CPUs one node must have left */
	uint64_t mem_per_node_mb; /* memory one node must have left */
	bool several;             /* more than one GPU entry: only the first is read */
} why_request_t;

/* Why idle GPUs cannot serve the request. Order = the order of the checks. */
typedef enum {
	WHY_OK = 0,
	WHY_CAUSE_NODE_DOWN,
	WHY_CAUSE_NODE_DRAINED,
	WHY_CAUSE_NODE_NOT_RESPONDING,
	WHY_CAUSE_NODE_UNAVAILABLE,
	WHY_CAUSE_PARTITION,
	WHY_CAUSE_NODELIST, /* not in --nodelist, or in --exclude */
	WHY_CAUSE_GPU_TYPE,
	WHY_CAUSE_FEATURE,
	WHY_CAUSE_CPUS,
	WHY_CAUSE_MEMORY,
	WHY_CAUSE_GPUS_PER_NODE,
	WHY_CAUSE_COUNT
} why_cause_t;

/* The verdict on one GPU type of one node with idle GPUs. */
typedef struct {
	const why_node_t *node;
	const char *type; /* node's GPU type ("" untyped) */
	uint32_t idle;
	why_cause_t cause;
	char detail[160]; /* e.g. "needs 8 CPUs, 2 left" */
} why_verdict_t;

/* Idle GPUs excluded for one cause and one type, on some nodes. */
typedef struct {
	why_cause_t cause;
	char type[WHY_NAME_MAX];
	uint32_t gpus;
	char nodes[512];  /* comma list, truncated with "..." */
	char detail[160]; /* the first node's detail */
} why_excluded_t;

/* What the cluster can do for one version of the request. */
typedef struct {
	why_request_t req;
	uint32_t idle_gpus;     /* idle GPUs on all nodes */
	uint32_t eligible_gpus; /* of those, usable by the request */
	uint32_t eligible_nodes;
	bool could_start;        /* the usable GPUs cover the request now */
	why_verdict_t *verdicts; /* one per (node, GPU type) with idle GPUs */
	size_t nverdicts;
	why_excluded_t excluded[64]; /* grouped by cause and type */
	size_t nexcluded;
	char shortfall[256]; /* what is missing, "" if could_start */
} why_fit_t;

/* Broaden=when-faster's estimate as `nodeox why` names what decides it
 * (why_state_deciders): a running job whose GPUs coming back made a side
 * fit, and the demand of the pending jobs ahead, per type. */
typedef struct {
	uint32_t job_id;
	int64_t end; /* seconds from now */
} why_by_t;
typedef struct {
	char type[NODEOX_NAME_MAX];    /* "" = untyped */
	uint64_t gpus;                 /* all the pending jobs' of that type */
	uint32_t first_id, first_prio; /* the first of them in priority order */
	bool kept, broad;              /* charged to the side as asked, broadened */
} why_ahead_t;
typedef struct {
	char type[NODEOX_NAME_MAX]; /* the type asked for */
	why_by_t kept_by[NODEOX_ESTIMATE_BY], broad_by[NODEOX_ESTIMATE_BY];
	int nkept_by, nbroad_by;
	why_ahead_t ahead[NODEOX_MAX_TYPES + 1];
	size_t nahead;
} why_plan_t;

/* The nodeox.conf view. */
typedef struct {
	bool conf_loaded;
	char conf_path[512];
	char conf_error[NODEOX_ERR_MAX + 512];
	bool tagged; /* the comment carries nodeox:flex */
	char tag_error[NODEOX_ERR_MAX];
	bool applied;               /* the plugin already broadened this job */
	nodeox_decision_t decision; /* for the job as tagged (or as if tagged) */
	why_plan_t plan;            /* what decides decision.estimate, when made */
	char eligible_types[NODEOX_MAX_TYPES][NODEOX_NAME_MAX];
	int neligible;
	double run_time_factor; /* 0 = not known */
	bool analysed;          /* fit below is filled */
	why_fit_t fit;          /* the broadened request against the cluster */
} why_flex_t;

/* What keeps a pending job from starting, in the job's terms. */
typedef enum {
	WHY_BLK_HELD_USER = 0,     /* held by its user: scontrol release */
	WHY_BLK_HELD_ADMIN,        /* held by an administrator */
	WHY_BLK_DEPENDENCY,        /* waits for other jobs */
	WHY_BLK_BEGIN_TIME,        /* --begin in the future */
	WHY_BLK_JOBS_AHEAD,        /* higher-priority jobs of its partitions */
	WHY_BLK_BUSY,              /* running jobs hold the nodes it could use */
	WHY_BLK_PART_TIME,         /* time limit over the partition's MaxTime */
	WHY_BLK_PART_NODES,        /* node count outside MinNodes..MaxNodes or the partition's size */
	WHY_BLK_PART_CPUS,         /* no node of the partition has the CPUs */
	WHY_BLK_PART_MEMORY,       /* no node of the partition has the memory */
	WHY_BLK_PART_GPUS,         /* no node of the partition has the GPUs */
	WHY_BLK_PART_FEATURE,      /* no node of the partition has the features */
	WHY_BLK_PART_STATE,        /* partition down, drained or inactive */
	WHY_BLK_PART_UNKNOWN,      /* the job names a partition that does not exist */
	WHY_BLK_QOS,               /* a QOS limit */
	WHY_BLK_ASSOC,             /* an association (account/user) limit */
	WHY_BLK_RESERVATION,       /* its reservation has not started */
	WHY_BLK_NODES_RESERVED,    /* a reservation holds the nodes */
	WHY_BLK_LICENSES,          /* not enough licenses free */
	WHY_BLK_NODES_UNAVAILABLE, /* nodes down, drained, not responding */
	WHY_BLK_CPUS,              /* not enough CPUs free on enough nodes now */
	WHY_BLK_MEMORY,            /* not enough memory free on enough nodes now */
	WHY_BLK_GPUS,              /* the idle GPUs do not cover the request */
	WHY_BLK_OTHER,             /* a reason not modelled: Slurm's words */
	WHY_BLK_COUNT
} why_blk_kind_t;

#define WHY_BLK_MAX_JOBS 8
#define WHY_MAX_BLOCKERS 16

typedef struct {
	why_blk_kind_t kind;
	bool never;                               /* does not go away by waiting: needs a change
				     * to the job or to the configuration */
	char detail[512];                         /* a sentence in the job's terms */
	char item[48];                            /* what is compared, e.g. "time_limit_min" */
	char job_value[64];                       /* the job's side ("" = none) */
	char limit_value[64];                     /* the limit's side ("" = none) */
	char used_value[64];                      /* current use, where it counts ("" = none) */
	const why_qjob_t *jobs[WHY_BLK_MAX_JOBS]; /* jobs ahead, holders, ... */
	size_t njobs;
	size_t more_jobs; /* further jobs not listed */
} why_blocker_t;

typedef struct {
	why_blocker_t blockers[WHY_MAX_BLOCKERS];
	size_t nblockers;
	size_t more_blockers;        /* found past the list's end: counted, not shown */
	why_blocker_t spill;         /* where those were filled (why_blockers.c) */
	time_t expected_start;       /* 0 = unknown */
	const char *expected_source; /* "backfill", "begin_time", "reservation" */
	bool never_runs;             /* no partition of the job can ever run it */
} why_pending_t;

typedef struct {
	const why_job_t *job;
	why_fit_t fit; /* the request as it stands */
	why_flex_t flex;
	why_pending_t pend; /* filled by why_pending_explain */
} why_result_t;

/* why_analyze.c */
/* Read the job's GPU, CPU and memory request. Returns 0, or -1 with err set
 * when a TRES string cannot be read. */
int why_request_read(const why_job_t *job, why_request_t *req, char *err, size_t errlen);
/* Judge every node's idle GPUs against req. */
void why_fit_compute(const why_job_t *job, const why_request_t *req, const why_node_t *nodes, size_t nnodes,
		     why_fit_t *fit);
/* Everything: the request as it stands, and under conf (may be NULL) as if
 * tagged flexible. conf_path/conf_error say where conf came from or why not.
 * state (may be NULL): the queue, for Broaden=when-faster's estimate. */
int why_analyze(const why_job_t *job, const why_node_t *nodes, size_t nnodes, const why_cluster_t *state,
		const nodeox_conf_t *conf, why_result_t *res, char *err, size_t errlen);

/* why_state.c: Broaden=when-faster's state from the live queue, as
 * job_submit/nodeox reads it from slurmctld: every running job's GPUs on each
 * of its nodes (its allocated GPUs spread evenly over its nodes) with its
 * expected end, and the GPUs each pending, not held job of the job's
 * partitions wants, by type and (for the backfill map) one by one in
 * priority order, with its types, limit and id. nodes are the policy's nodes (one per node and
 * GPU type, _flex_cluster). Returns 0, or -1 out of memory. */
typedef struct {
	nodeox_running_t *running;
	uint32_t *running_id; /* the job of each running entry */
	nodeox_demand_t ahead[NODEOX_MAX_TYPES + 1];
	char ahead_type[NODEOX_MAX_TYPES + 1][NODEOX_NAME_MAX];
	uint32_t *scratch;
	nodeox_pending_t *pending; /* the backfill map's list, priority order */
	uint32_t *pending_prio;    /* the priority of each */
} why_state_t;
int why_state_fill(const why_cluster_t *cl, const why_job_t *job, const nodeox_conf_t *conf,
		   const nodeox_node_t *nodes, size_t nnodes, why_state_t *st, nodeox_cluster_t *out);
void why_state_free(why_state_t *st);
/* Name what decides the estimate e made from st and cl (why_state_fill's):
 * the running jobs of e's kept_by/broad_by and the demand ahead (with the
 * backfill map: the pending jobs whose reservations touch each side, one
 * by one, their types named from conf), into plan. */
void why_state_deciders(const why_state_t *st, const nodeox_conf_t *conf, const nodeox_cluster_t *cl,
			const nodeox_estimate_t *e, why_plan_t *plan);
void why_fit_free(why_fit_t *fit);
void why_result_free(why_result_t *res);
/* "node_down", "gpu_type", ... (the JSON words) and a phrase for people. */
const char *why_cause_name(why_cause_t cause);
const char *why_cause_text(why_cause_t cause);

/* The check of one node for the request (state, partition, node list, GPU
 * type, constraint, CPUs and memory left): WHY_OK or the first cause, with
 * detail filled. gpu_type "" for a node without GPUs. */
why_cause_t why_node_check(const why_job_t *job, const why_request_t *req, const why_node_t *node,
			   const char *gpu_type, char *detail, size_t dlen);

/* why_pending.c */
/* The blockers of a pending job, from Slurm's reason first, then what the
 * cluster shows (res->fit, res->flex must be filled). Fills res->pend. */
void why_pending_explain(const why_cluster_t *cl, why_result_t *res);

/* why_blockers.c: the blocker list */
/* "held_user", ... (the JSON words). */
const char *why_blk_name(why_blk_kind_t kind);
/* Add a blocker to p and return it for the caller to fill; past
 * WHY_MAX_BLOCKERS it is counted in p->more_blockers and not kept. */
why_blocker_t *why_blockers_add(why_pending_t *p, why_blk_kind_t kind, bool never);
/* How many were added (kept or not); rewind drops those added after the
 * count a caller took. */
size_t why_blockers_count(const why_pending_t *p);
void why_blockers_rewind(why_pending_t *p, size_t count);

/* why_never.c */
/* Can the job run in one of its partitions as configured (whatever node
 * states and other jobs)? Adds a never blocker per partition that cannot
 * host it; sets p->never_runs when none can. Returns the partitions that
 * could host it. */
int why_never_check(const why_job_t *job, const why_request_t *req, const why_cluster_t *cl,
		    why_pending_t *p);

/* why_gres.c: strings */
/* Parse a node's gres ("gpu:a100:4(S:0-1),gpu:l40s:2") into GPU entries;
 * used (gres_used, may be NULL) fills .used. Returns entries or -1. */
int why_gres_parse_node(const char *gres, const char *used, why_gpu_t *gpus, int max);
/* The first GPU entry of a job TRES string ("gres:gpu:a100:4,gres:foo:1",
 * also "gres/gpu:a100=4", "gpu:4"). Returns 1 found, 0 none, -1 malformed;
 * *more is set when there is a second GPU entry. */
int why_gres_parse_job(const char *tres, char *type, size_t typelen, uint32_t *count, bool *more);
/* Is name an item of the comma list? */
bool why_list_has(const char *list, const char *name);
/* Append name to a comma list held in buf (truncates with "..."). */
void why_list_add(char *buf, size_t len, const char *name);

/* why_feature.c */
/* Does a node with these features satisfy constraint (Slurm syntax: a&b,
 * a|b, [a|b], (…), a*2)? NULL/"" constraint: true. Returns 1, 0, or -1 for
 * a malformed expression. */
int why_feature_match(const char *constraint, const char *features);

/* why_print.c */
void why_print_text(FILE *out, const why_result_t *res);
void why_print_json(FILE *out, const why_result_t *res);
/* One line for a job that is not pending (started or ended). */
void why_print_done_text(FILE *out, const why_job_t *job);
void why_print_done_json(FILE *out, const why_job_t *job);

/* why_load.c (libslurm) */
typedef struct why_load why_load_t;
/* Load job_id (array_task: one task of an array, or WHY_NO_TASK), all
 * nodes, partitions, jobs, reservations and licenses. Returns NULL with err
 * set on failure; *unknown is set when slurmctld does not know the job. */
#define WHY_NO_TASK 0xfffffffeu
why_load_t *why_load(uint32_t job_id, uint32_t array_task, bool *unknown, char *err, size_t errlen);
const why_job_t *why_load_job(const why_load_t *ld);
const why_node_t *why_load_nodes(const why_load_t *ld, size_t *nnodes);
const why_cluster_t *why_load_cluster(const why_load_t *ld);
void why_load_free(why_load_t *ld);

/* why_cmd.c */
int why_cmd_run(int argc, char **argv);

#endif
