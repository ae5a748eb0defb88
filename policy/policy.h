/*
 * policy.h: the nodeox policy library, the one place where nodeox decides.
 *
 * libnodeox_policy, linked by job_submit/nodeox (inside slurmctld), nodeox-sim,
 * `nodeox why`, nodeox-sacct-import and the runtime (rt_alloc.c), so a
 * simulated decision and a real one are the same code; this is its one public
 * header (policy_internal.h is for its own files). It is pure C:
 * no Slurm, no glib, no global state, no allocation on the decision path
 * (results go into caller-owned fixed-size buffers), bounded work per call.
 * Only nodeox_conf_parse_* allocate (plain malloc), and nodeox_conf_free
 * releases everything.
 *
 * Pieces, one file each:
 *   policy_conf.c    nodeox.conf parser            (nodeox_conf_*)
 *   policy_tag.c     the --comment tag parser      (nodeox_tag_*)
 *   policy_tres.c    GPU entries in TRES and node GRES strings
 *                    (nodeox_tres_*; also read by the simulator, `nodeox
 *                    why`, the sacct importer and the runtime)
 *   policy_decide.c  the broadening decision       (nodeox_policy_*)
 *   policy_estimate.c Broaden=when-faster's two finishes (internal;
 *                    nodeox_running_sort for its feeders)
 *   policy_map.c     the same as backfill would plan it: the map of
 *                    running jobs' ends and pending jobs' reservations
 *                    (internal; nodeox_pending_types for its feeders)
 *   policy_history.c how long users' jobs really ran: running jobs'
 *                    expected ends for the map (nodeox_history_*)
 *   policy_util.c    name checks, quoting, bounded strings (internal)
 *   policy_record.c  reads back the admin_comment record that
 *                    policy_decide.c writes (nodeox_record_*)
 *   policy_speeds.c  the speed table SpeedTable= names: its reader
 *                    and O(1) lookup (nodeox_speeds_*)
 * Sizes ("80G") and comma lists are general helpers: common/util.h.
 */
#ifndef NODEOX_POLICY_H
#define NODEOX_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NODEOX_MAX_TYPES 32 /* GPU types in one nodeox.conf */
#define NODEOX_MAX_GROUPS 32
#define NODEOX_MAX_SCOPE 64 /* names in one Partitions=/Allow*=/Deny* list */
#define NODEOX_NAME_MAX 64  /* a type, feature, group, partition or user name */
#define NODEOX_STR_MAX 1024 /* Slurm limits features/prefer to 1024 chars */
#define NODEOX_ERR_MAX 256
#define NODEOX_COMMENT_MAX 8192 /* longer comments are not scanned for a tag */

/* No time limit given (Slurm's NO_VAL) or unlimited (INFINITE): never scaled. */
#define NODEOX_TIME_NONE 0xfffffffeu
#define NODEOX_TIME_INFINITE 0xffffffffu

typedef enum { NODEOX_MODE_ENFORCE = 0, NODEOX_MODE_DRYRUN, NODEOX_MODE_OFF } nodeox_mode_t;
typedef enum {
	NODEOX_BROADEN_ALWAYS = 0,
	NODEOX_BROADEN_WHEN_BLOCKED,
	NODEOX_BROADEN_WHEN_FASTER,
} nodeox_broaden_t;

/* WhenFasterMargin= default: broaden only for an estimated finish at least
 * 20% sooner (doc/nodeox.conf.5 says why). */
#define NODEOX_WHEN_FASTER_MARGIN 0.20

/* One `GpuType=` line. */
typedef struct {
	char name[NODEOX_NAME_MAX];    /* gres type, e.g. "a100" */
	char feature[NODEOX_NAME_MAX]; /* node feature naming it; defaults to name */
	uint64_t mem_mb;               /* GPU memory in MB, 0 = unknown */
	double speed;                  /* relative throughput, > 0 */
	int line;                      /* where it was defined */
} nodeox_gpu_type_t;

/* One `Group=` line: indexes into nodeox_conf_t.types. */
typedef struct {
	char name[NODEOX_NAME_MAX];
	int types[NODEOX_MAX_TYPES];
	int ntypes;
	int line;
} nodeox_group_t;

typedef struct {
	char names[NODEOX_MAX_SCOPE][NODEOX_NAME_MAX];
	int n;
} nodeox_namelist_t;

typedef struct nodeox_speeds nodeox_speeds_t; /* a speed table (policy_speeds.c) */

/* A parsed nodeox.conf. Plain data: read it freely. */
typedef struct {
	char path[512];
	char speed_table[512]; /* SpeedTable=: "" = none */
	/* The speed table the decision looks jobs up in (NULL: Speed= alone).
	 * Not read from the file: whoever loaded the table (nodeox_speeds_parse_*)
	 * sets it, keeps it alive while conf is used and frees it;
	 * nodeox_conf_free leaves it alone. */
	const nodeox_speeds_t *speeds;
	nodeox_mode_t mode;           /* Mode=, default enforce */
	nodeox_broaden_t broaden;     /* Broaden=, default always */
	double min_speed;             /* MinSpeed=, default 0 (no floor) */
	double when_faster_margin;    /* WhenFasterMargin=, default NODEOX_WHEN_FASTER_MARGIN */
	bool scale_time_limit;        /* ScaleTimeLimit=, default yes */
	bool prefer_requested;        /* PreferRequested=, default no */
	bool run_time_history;        /* RunTimeHistory=, default yes: running
				       * jobs' ends from their users' last
				       * jobs (policy_history.c) */
	nodeox_namelist_t partitions; /* Partitions=: empty = all */
	nodeox_namelist_t allow_accounts, deny_accounts;
	nodeox_namelist_t allow_users, deny_users;
	nodeox_gpu_type_t types[NODEOX_MAX_TYPES];
	int ntypes;
	nodeox_group_t groups[NODEOX_MAX_GROUPS];
	int ngroups;
} nodeox_conf_t;

/*
 * Parse nodeox.conf. Returns 0 and a new conf in *out, or -1 with a message
 * "FILE:LINE: what is wrong" in err (and *out NULL). A file with no GpuType
 * lines is valid (it broadens nothing).
 */
int nodeox_conf_parse_file(const char *path, nodeox_conf_t **out, char *err, size_t errlen);
int nodeox_conf_parse_string(const char *text, const char *name, nodeox_conf_t **out, char *err,
			     size_t errlen);
void nodeox_conf_free(nodeox_conf_t *conf);
/* Index of the type called name (case-insensitive), or -1. */
int nodeox_conf_find_type(const nodeox_conf_t *conf, const char *name);

/* The `nodeox:flex[:opt[:opt...]]` tag found in a job's comment. */
typedef struct {
	bool present;
	uint64_t min_mem_mb;            /* mem=40G; 0 = no minimum */
	bool uniform;                   /* all nodes of the job share one type */
	int only[NODEOX_MAX_TYPES];     /* types=a100+l40s: restriction (conf indexes) */
	int nonly;                      /* 0 = no restriction */
	char workload[NODEOX_NAME_MAX]; /* workload=NAME; "" = none given */
} nodeox_tag_t;

/*
 * Look for the tag in comment (NULL or no tag: returns 0, tag->present false).
 * Returns 1 for a valid tag, -1 for a malformed one with a one-line reason in
 * err naming the bad part. Looks for the tag in the first NODEOX_COMMENT_MAX
 * bytes only; a tag that runs on past them is malformed (-1), never read cut
 * short. Reads at most one byte past NODEOX_COMMENT_MAX.
 */
int nodeox_tag_parse(const char *comment, const nodeox_conf_t *conf, nodeox_tag_t *tag, char *err,
		     size_t errlen);

/* The fields of a job that the policy reads (job_desc_msg_t or a sim job). */
typedef struct {
	uint32_t job_id; /* 0 if not known yet */
	const char *comment;
	const char *name;            /* job name (--job-name): the workload when the
				      * tag names none; NULL = none */
	const char *tres_per_job;    /* --gpus                  "gres:gpu:a100:4" */
	const char *tres_per_node;   /* --gres, --gpus-per-node "gres:gpu:a100:4,gres:foo:1" */
	const char *tres_per_task;   /* --gpus-per-task */
	const char *tres_per_socket; /* --gpus-per-socket */
	const char *features;        /* --constraint */
	const char *prefer;          /* --prefer */
	const char *partition;       /* comma list, NULL = default partition */
	const char *account;
	const char *user;
	uint32_t time_limit;       /* minutes, or NODEOX_TIME_NONE/INFINITE */
	uint32_t time_cap;         /* longest limit the job may have (its partitions'
					 * MaxTime, its QOS's MaxWall), minutes; 0 = none */
	const char *time_cap_what; /* where time_cap comes from ("MaxTime of
					 * partition short"), for the reason; may be NULL */
	uint32_t min_nodes;        /* 0 = unknown */
	uint32_t num_tasks;        /* 0 = unknown (used by Broaden=when-blocked) */
} nodeox_job_t;

/* One node as slurmctld (or the simulator) sees it now. */
typedef struct {
	const char *name;
	const char *features;   /* comma list of available features */
	const char *partitions; /* comma list */
	const char *gpu_type;   /* gres type on the node ("" untyped) */
	uint32_t gpus_total;
	uint32_t gpus_idle;
	bool usable; /* up, not drained/down/reserved-away */
} nodeox_node_t;

/* Broaden=when-faster: GPUs a running job holds on one node, and when they are
 * expected back (its start plus its time limit, as slurmctld's end_time,
 * or sooner from its user's history: nodeox_history_end). */
typedef struct {
	uint32_t node; /* index into nodeox_cluster_t.nodes */
	uint32_t gpus;
	int64_t end; /* seconds from now; <= 0: overdue, free now */
} nodeox_running_t;

/*
 * Run-time history (policy_history.c): a running job's expected end from
 * how long its user's last two finished jobs ran (their mean; Tsafrir,
 * Etsion and Feitelson 2007), never later than its limit's end; the limit's
 * end where the user has no history, or where the job already ran past its
 * prediction. Keyed by user id only (why: policy_history.c). A fixed table
 * the caller allocates (nodeox_history_init zeroes it); every call is
 * bounded (NODEOX_HISTORY_PROBE slots), allocates nothing and accepts any
 * input. nodeox.conf's RunTimeHistory=no turns its use off.
 */
#define NODEOX_HISTORY_USERS 4096 /* users kept; past it the stalest in a
				   * probe window is forgotten */
#define NODEOX_HISTORY_PROBE 16

typedef struct {
	uint32_t uid;
	uint32_t njobs;   /* 0: an empty slot; 1 or 2 */
	uint32_t id[2];   /* [0] the latest to end, [1] the one before */
	int64_t end[2];   /* when they ended (the feeder's clock) */
	int64_t run[2];   /* how long they ran, seconds */
} nodeox_history_user_t;

typedef struct {
	uint64_t recorded, ignored, evicted; /* record calls that changed it,
					      * that were refused (run < 0),
					      * users forgotten */
	uint32_t users;                      /* slots in use */
	nodeox_history_user_t slot[NODEOX_HISTORY_USERS];
} nodeox_history_t;

/* Where an expected end came from. */
typedef enum {
	NODEOX_END_LIMIT = 0, /* the limit: no history, or it predicts no sooner */
	NODEOX_END_HISTORY,   /* start + the user's predicted run time */
	NODEOX_END_OUTLIVED,  /* the limit: the job ran past its prediction */
} nodeox_end_from_t;

void nodeox_history_init(nodeox_history_t *h);
/* A finished job of user uid: it ended at end (any clock the feeder uses
 * throughout) after running run seconds (>= 0; capped at a year).
 * Kept when it is among the user's last two by end; the same job (id and
 * end) again changes nothing. Returns whether the history changed. */
bool nodeox_history_record(nodeox_history_t *h, uint32_t uid, uint32_t job_id, int64_t end, int64_t run);
/* The user's predicted run time in seconds, or -1: no history. */
int64_t nodeox_history_run(const nodeox_history_t *h, uint32_t uid);
/* A running job's expected end: it started at start and its limit ends at
 * limit_end (slurmctld's end_time; same clock as now); *from (may be NULL)
 * says which rule gave it. h NULL: limit_end (history off). */
int64_t nodeox_history_end(const nodeox_history_t *h, uint32_t uid, int64_t start, int64_t limit_end,
			   int64_t now, nodeox_end_from_t *from);
/* "limit", "history", "outlived". */
const char *nodeox_end_from_name(nodeox_end_from_t from);

/* Sort running jobs by end, ascending, equal ends kept in the order given:
 * the order nodeox_cluster_t.running must have (every feeder calls this).
 * tmp: n entries of scratch, for a radix sort in O(n) (the plugin's 10,000
 * holdings in tens of microseconds instead of a qsort's most of a
 * millisecond: `make bench-policy`); NULL (a feeder whose allocation
 * failed): a merge sort in place, O(n log^2 n), in the same order. */
void nodeox_running_sort(nodeox_running_t *running, size_t n, nodeox_running_t *tmp);

/* Broaden=when-faster: GPUs that pending jobs ahead of this one want, by type. */
typedef struct {
	const char *type; /* gres type; "" = untyped (any type serves it) */
	uint64_t gpus;    /* all the pending jobs' of that type */
	uint64_t first;   /* what the first of them in priority order wants, the
			   * job backfill reserves for first (0: unknown, take
			   * gpus); with first_prio and first_id kept by
			   * nodeox_demand_add */
	uint32_t first_prio, first_id;
} nodeox_demand_t;

/* Count a pending job that wants gpus into d (zeroed, type set, before the
 * first): gpus summed, saturating; the job becomes d's first when it comes
 * before the first so far: higher priority, or equal and a lower id (a feeder
 * walking its jobs in priority order may pass 0 and its position). */
void nodeox_demand_add(nodeox_demand_t *d, uint64_t gpus, uint32_t priority, uint32_t id);

/*
 * Broaden=when-faster's backfill map (policy_map.c): one pending job ahead of
 * the job being decided, as the feeder found it, in priority order (the
 * order Slurm's backfill walks them). Each gets its reservation on the GPU
 * types it can use, for its time limit, at the earliest time the map has
 * room for it, as backfill plans (src/plugins/sched/backfill/backfill.c).
 */
typedef struct {
	uint32_t types; /* conf types it can use (bit i: conf->types[i]);
			 * 0: any type (an untyped request with no type
			 * feature in its constraint): nodeox_pending_types */
	uint64_t gpus;  /* GPUs in all */
	int64_t limit;  /* its time limit, seconds; <= 0: none (it holds
			 * what it gets for good) */
	uint32_t id;    /* job id (0: not known), for the reason and `nodeox why` */
} nodeox_pending_t;

/* The types mask of a pending job: its gres type (typed: that conf type;
 * false when nodeox.conf has no such type, i.e. it runs on nodes the map
 * does not hold), or, untyped, the conf types whose feature its constraint
 * names (a job nodeox broadened: its OR of type features); none named: 0
 * (any type). type and features may be NULL. Bounded by NODEOX_STR_MAX
 * bytes of features. */
bool nodeox_pending_types(const nodeox_conf_t *conf, const char *type, const char *features, uint32_t *mask);

/* Bounds on the map's work per decision. Past any, the decision makes no
 * estimate: it decides as Broaden=when-blocked and says so. */
#define NODEOX_MAP_PENDING 128   /* pending jobs ahead reserved for (those
				  * with a type on the job's nodes) */
#define NODEOX_MAP_LIST (8 * NODEOX_MAP_PENDING) /* pending jobs a feeder gives */
#define NODEOX_MAP_RUN_STEPS 128 /* profile steps from running jobs' ends */
#define NODEOX_MAP_STEPS (NODEOX_MAP_RUN_STEPS + 2 * NODEOX_MAP_PENDING + 8)
#define NODEOX_MAP_WORK 2000000  /* (step, type) looks over all placements */
#define NODEOX_MAP_RESOLUTION 60 /* s: a reservation holds from its start less
				  * this (Slurm's bf_resolution default) */

/* What a feeder may keep of the backfill map between decisions (the
 * plugin does: per state view and node snapshot), so that a decision need
 * not make it again from the start:
 *   - the running jobs' part (the GPUs they give back by type over time),
 *     for the same cl->running array and nodes: the map then does not read
 *     the running jobs again;
 *   - the map with the pending jobs' reservations (placed), and the
 *     nodes' map types in the scratch, for the same running part, conf,
 *     cl->nodes, cl->scratch, job partitions and pending list: a decision
 *     then places the job alone (two placements and one pass over the
 *     nodes without string tests), and a list that only grew at its end
 *     (submissions counted since) is reserved for from where it stopped.
 * The decisions are the same as without it. Zero it, give it only with
 * cl->map, keep cl->scratch's entries between the calls, set valid false
 * whenever running or its ends change (the running part and the
 * reservations are made again), and valid and placed false whenever the
 * nodes (or what they hold), the scratch or the conf change. Filled and
 * read by policy_map.c only. */
typedef struct {
	bool valid;
	const nodeox_running_t *running; /* what it was made from */
	size_t nrunning, nnodes;
	int nt, n;
	int64_t t[NODEOX_MAP_RUN_STEPS];
	uint32_t back[NODEOX_MAP_RUN_STEPS * NODEOX_MAX_TYPES];
	/* the placed part (placed false: none kept; the reservations also
	 * need valid) */
	bool placed;
	const nodeox_conf_t *conf;
	const nodeox_node_t *nodes;
	size_t pnodes;
	const uint32_t *scratch;
	bool parts_set; /* job partitions given (parts), else none */
	char parts[NODEOX_STR_MAX];
	uint64_t cap[NODEOX_MAX_TYPES];
	uint32_t idle0[NODEOX_MAX_TYPES];
	/* the last node pass's answers for a job (its type, eligible types
	 * and per-node count; the classes are in the scratch) */
	bool jset;
	int jreq, jnelig, jelig[NODEOX_MAX_TYPES];
	uint64_t jper_node;
	uint64_t jhold[NODEOX_MAX_TYPES];
	uint64_t jkept_idle, jkept_held, jbroad_idle, jbroad_held;
	int pn;                                         /* the map's steps */
	int64_t pt[NODEOX_MAP_STEPS];                   /* their starts */
	uint32_t pfr[NODEOX_MAP_STEPS * NODEOX_MAX_TYPES]; /* free GPUs, rows of nt */
	int64_t work;    /* the map's work so far, less the running jobs' read */
	const char *cut; /* a bound reached while reserving */
	size_t npending; /* the jobs reserved for so far: */
	nodeox_pending_t pending[NODEOX_MAP_LIST];
	int nr; /* their reservations */
	int64_t rend[NODEOX_MAP_PENDING];
	uint32_t rmask[NODEOX_MAP_PENDING];
	int rwho[NODEOX_MAP_PENDING];
} nodeox_map_base_t;

/* Scratch the estimate needs per node (uint32_t entries), given by the caller
 * so that the decision allocates nothing. */
#define NODEOX_ESTIMATE_SCRATCH(nnodes) (4 * (size_t)(nnodes))

/*
 * The cluster as the decision sees it. nodes alone serve Broaden=always and
 * when-blocked; Broaden=when-faster also reads running (sorted by end,
 * ascending), ahead and scratch (NODEOX_ESTIMATE_SCRATCH(nnodes) entries).
 * A feeder that stopped at a cap of its own sets state_cut; the decision then
 * makes no estimate (it decides as when-blocked and says so).
 */
typedef struct {
	const nodeox_node_t *nodes;
	size_t nnodes;
	const nodeox_running_t *running;
	size_t nrunning;
	const nodeox_demand_t *ahead;
	size_t nahead;
	uint32_t *scratch;
	bool state_cut;
	/* The backfill map's input (Broaden=when-faster): with map set, the
	 * estimate is policy_map.c's, from pending[0..npending) in priority
	 * order (ahead is then read by nobody); pending_more: the feeder knows
	 * of more pending jobs ahead than it gave (its own cap), so the map
	 * cannot place the job (it decides as when-blocked and says so).
	 * Without map: the older per-type estimate (policy_estimate.c), for
	 * callers that only have the GPUs ahead by type. */
	bool map;
	const nodeox_pending_t *pending;
	size_t npending;
	bool pending_more;
	nodeox_map_base_t *map_base; /* NULL: the map reads the running jobs */
} nodeox_cluster_t;

/* Running jobs an estimate names per side as deciding its start. */
#define NODEOX_ESTIMATE_BY 4
/* How far back from the holding that made a side fit the estimate looks
 * for others ending at the same time (bounds that look-up). */
#define NODEOX_ESTIMATE_BY_SCAN 64

/* The two finishes Broaden=when-faster compares, in seconds from now. */
typedef struct {
	bool made;            /* an estimate was made (else the fields are 0) */
	int64_t kept_start;   /* enough GPUs of the requested type; -1: not
					 * within the running jobs known */
	int64_t kept_finish;  /* kept_start + the time limit; -1 as above */
	int64_t broad_start;  /* the same on the eligible types; -1 as above */
	int64_t broad_finish; /* broad_start + limit x factor; -1 as above */
	double broad_factor;  /* speed(requested)/speed(slowest type that
					 * could serve it at broad_start), >= 1 */
	int broad_slowest;    /* that type (conf index), -1 if none */
	int64_t horizon;      /* how far the walk over the running jobs
					 * looked (it stops once the answer is
					 * known); a side not fitting by then is -1 */
	bool extrapolated;    /* the running jobs known were not enough for a
					 * side: its start is extrapolated from the rate
					 * its GPUs came back */
	bool kept_backfill;   /* kept_start 0 by backfill: the job as asked fits
					 * now on idle GPUs of its type and ends before
					 * the jobs ahead could take them */
	bool broaden;         /* the broadened finish is earlier by the margin */
	bool tie_kept;        /* kept: no slower type, and broadened is not sooner by
			       * more than NODEOX_MAP_RESOLUTION (with history) */
	/* What decides each side, for `nodeox why` (the decision reads none
	 * of it): GPUs on the side's usable nodes of the job's partitions,
	 * idle and held by running jobs now; what the pending jobs ahead want
	 * of it, and which cl->ahead entries that is (bit i: entry i, i < 64);
	 * and the running jobs whose GPUs coming back at its start made it fit
	 * (cl->running indexes, the last NODEOX_ESTIMATE_BY of those ending
	 * then; none when it fits now or its start is extrapolated). */
	uint64_t kept_idle, kept_held, kept_ahead, kept_ahead_mask;
	uint64_t broad_idle, broad_held, broad_ahead, broad_ahead_mask;
	uint32_t kept_by[NODEOX_ESTIMATE_BY], broad_by[NODEOX_ESTIMATE_BY];
	int nkept_by, nbroad_by;
	/* The backfill map (cl->map): the reservations it placed, the
	 * pending job whose reservation each side starts after (cl->pending
	 * index, -1: none, it starts when running jobs' GPUs come back or
	 * now), and why it made no estimate (map_cut: a bound of
	 * NODEOX_MAP_*, or pending_more, was reached; map_cut_what says
	 * which). broad_limit: the limit backfill plans the broadened job
	 * with (seconds: scaled to the slowest eligible type, as the
	 * decision writes it). */
	bool map, map_cut;
	const char *map_cut_what;
	int map_reserved;
	int kept_after, broad_after;
	int64_t broad_limit;
} nodeox_estimate_t;

typedef enum {
	NODEOX_PASS = 0, /* not tagged, or mode off: job untouched, nothing to say */
	NODEOX_KEEP,     /* tagged, but left as asked: reason says why */
	NODEOX_REWRITE,  /* tagged and broadened: new_* hold the new fields */
	NODEOX_REJECT,   /* malformed tag: reject the submission with reason */
} nodeox_action_t;

typedef struct {
	nodeox_action_t action;
	bool dryrun;                    /* Mode=dryrun: REWRITE computed but not to apply */
	char reason[NODEOX_ERR_MAX];    /* one line for the user and the log */
	int requested_type;             /* conf index, -1 if none/unknown */
	int eligible[NODEOX_MAX_TYPES]; /* conf indexes; the requested type first,
					 * unless no usable node of the job's
					 * partitions has it (then it is absent) */
	int neligible;
	double run_time_factor; /* speed(requested)/speed(slowest eligible), >= 1 */
	/* The job's speed on each conf type, in Speed= units, as the decision
	 * used it: Speed= of nodeox.conf, or for a type with an entry in the
	 * speed table (conf->speeds) the requested type's Speed= times the
	 * entry's speed; speed_from says which (a nodeox_scope_t, -1: Speed=).
	 * Filled for the requested type's group mates once that type is known. */
	double speed[NODEOX_MAX_TYPES];
	int speed_from[NODEOX_MAX_TYPES];
	/* Changed fields for REWRITE (and dryrun). A *_set flag says whether the
	 * field is to be replaced; an empty string with _set means "clear it". */
	bool tres_per_job_set, tres_per_node_set, tres_per_task_set, tres_per_socket_set;
	char tres_per_job[NODEOX_STR_MAX];
	char tres_per_node[NODEOX_STR_MAX];
	char tres_per_task[NODEOX_STR_MAX];
	char tres_per_socket[NODEOX_STR_MAX];
	bool features_set, prefer_set, time_limit_set;
	char features[NODEOX_STR_MAX];
	char prefer[NODEOX_STR_MAX];
	uint32_t time_limit;
	bool time_capped;                   /* scaling was cut (or skipped) at job->time_cap */
	uint32_t time_scaled;               /* the limit scaling alone would have given */
	char admin_comment[NODEOX_STR_MAX]; /* original request and the change */
	nodeox_estimate_t estimate;         /* Broaden=when-faster: what it acted on */
} nodeox_decision_t;

/*
 * Decide what to do with job. cluster may be NULL (then Broaden=when-blocked
 * and when-faster act as always, and no feature filtering is done). With a cluster, types
 * whose feature no usable node in the job's partitions has are left out, and
 * nodes are matched to the job by job->partition (NULL: every node).
 * The new constraint is the user's (minus terms naming only GPU type
 * features) AND the OR of the eligible features. Semantics of every field:
 * doc/nodeox.conf.5. Always fills out; never fails; allocates nothing.
 */
void nodeox_policy_decide(const nodeox_conf_t *conf, const nodeox_job_t *job, const nodeox_cluster_t *cluster,
			  nodeox_decision_t *out);

/*
 * Partitions a job may name for nodeox to decide on it: the decision matches
 * the job's list against every node's partitions (and the plugin's
 * Broaden=when-faster against every pending job's), inside slurmctld's locks,
 * and slurmctld checks a list's length (1024) only after job_submit.
 */
#define NODEOX_MAX_JOB_PARTS 64

/*
 * Is the job's partition list (comma list; NULL: the default partition)
 * within what the decision walks: shorter than NODEOX_STR_MAX bytes and at
 * most NODEOX_MAX_JOB_PARTS names? Else false, with a one-line reason in err
 * (errlen 0: none); nodeox_policy_decide KEEPs such a job with that reason
 * before any per-node work, and a feeder asks first so as to read no
 * per-node or per-job state for it. Reads at most NODEOX_STR_MAX bytes.
 */
bool nodeox_policy_parts_ok(const char *parts, char *err, size_t errlen);

/*
 * The speed table (policy_speeds.c; format in nodeox.conf(5), SPEED TABLE):
 * how fast a GPU type ran jobs of one workload, user or account against the
 * type they asked for, as measured. Plain text, one entry a line:
 *
 *   nodeox-speeds v=1 made=2026-12-04T10:00:00Z from=sacct:2026-11-01..2026-12-01
 *   # scope    name     asked run  speed jobs spread
 *   workload   bert-ft  a100  l40s 0.41  37   0.06
 *
 * The decision (nodeox_policy_decide, through conf->speeds) takes a job's
 * speed on each type from its workload's entry, else its user's, else its
 * account's, else Speed= of nodeox.conf. Parsing allocates (plain malloc);
 * a lookup allocates nothing and costs O(1) (a hash of the key).
 */
typedef enum {
	NODEOX_SCOPE_WORKLOAD = 0,
	NODEOX_SCOPE_USER,
	NODEOX_SCOPE_ACCOUNT,
	NODEOX_NSCOPES
} nodeox_scope_t;

#define NODEOX_SPEEDS_VERSION 1
#define NODEOX_SPEEDS_MAX 100000           /* entries in one table */
#define NODEOX_SPEEDS_FILE_MAX (8u << 20)  /* bytes in one table file */
#define NODEOX_SPEEDS_SPEED_MAX 1000.0     /* a speed is in (0, 1000] */
#define NODEOX_SPEEDS_JOBS_MAX 1000000000u /* jobs behind an entry: 1.. */

typedef struct {
	nodeox_scope_t scope;
	char name[NODEOX_NAME_MAX];  /* the workload, user or account */
	char asked[NODEOX_NAME_MAX]; /* GPU type the jobs asked for */
	char run[NODEOX_NAME_MAX];   /* GPU type they ran on */
	double speed;                /* speed on run relative to asked (0.41:
				      * a step takes 1/0.41 as long) */
	uint32_t jobs;               /* jobs behind the entry */
	double spread;               /* their speeds' relative spread, >= 0 */
	int line;                    /* where in the file */
} nodeox_speed_t;

/* Parse a table. Returns 0 and a new table in *out, or -1 with "FILE:LINE:
 * what is wrong" in err (*out NULL); a bad line refuses the whole table.
 * The file is opened non-blocking and read only if it is a regular file of
 * at most NODEOX_SPEEDS_FILE_MAX bytes. */
int nodeox_speeds_parse_file(const char *path, nodeox_speeds_t **out, char *err, size_t errlen);
int nodeox_speeds_parse_string(const char *text, const char *name, nodeox_speeds_t **out, char *err,
			       size_t errlen);
void nodeox_speeds_free(nodeox_speeds_t *t);
/* The entry for (scope, name, asked, run), or NULL. Type names compare
 * case-insensitively, names exactly. O(1); NULL table or names: NULL. */
const nodeox_speed_t *nodeox_speeds_find(const nodeox_speeds_t *t, nodeox_scope_t scope, const char *name,
					 const char *asked, const char *run);
size_t nodeox_speeds_count(const nodeox_speeds_t *t);
/* Entry i (0 .. count-1) in the file's order, or NULL. */
const nodeox_speed_t *nodeox_speeds_entry(const nodeox_speeds_t *t, size_t i);
/* The header's made= and from=, and the file the table came from. */
const char *nodeox_speeds_made(const nodeox_speeds_t *t);
const char *nodeox_speeds_from(const nodeox_speeds_t *t);
const char *nodeox_speeds_path(const nodeox_speeds_t *t);
/* "workload", "user", "account". */
const char *nodeox_scope_name(nodeox_scope_t scope);
/* The writer's side, for a tool that makes tables (`nodeox speeds`): the
 * header line "nodeox-speeds v=1 made=MADE from=FROM\n" and one entry line
 * "SCOPE NAME ASKED RUN SPEED JOBS SPREAD\n" (speed and spread to 6
 * significant digits), each into dst (cap bytes). Returns the length, or -1
 * (dst "") for what the reader would refuse: made/from empty, longer than
 * 127 bytes or holding a blank or unprintable byte; a bad name, asked ==
 * run, a speed, jobs or spread out of range; or no room. */
int nodeox_speeds_format_header(const char *made, const char *from, char *dst, size_t cap);
int nodeox_speeds_format_entry(const nodeox_speed_t *e, char *dst, size_t cap);
/* The job's workload name: the tag's workload=, else its job name when that
 * is a valid name (letters, digits, _ . - @; under NODEOX_NAME_MAX bytes),
 * else "" (no workload entry applies). The one rule for every reader and
 * writer of workload names (the decision, the runtime's records). */
void nodeox_speeds_workload(const nodeox_tag_t *tag, const char *job_name, char *dst, size_t cap);

/* "PASS", "KEEP", "REWRITE", "REJECT". */
const char *nodeox_action_name(nodeox_action_t action);

/*
 * GPU entries of TRES and GRES strings (policy_tres.c): the one reader of
 * GPU entries in Slurm's TRES and GRES strings, for every part of nodeox: the
 * broadening decision (inside slurmctld), nodeox-sim, `nodeox why`,
 * nodeox-sacct-import and the runtime. No glib, no allocation, no abort on any input; work is
 * bounded by NODEOX_STR_MAX.
 *
 * Two forms, one grammar for the part after the name (Slurm 22.05's
 * _get_next_gres in src/common/gres.c):
 *   GPU[:TYPE][:COUNT]   "gpu" (one GPU), "gpu:4", "gpu:a100" (one a100),
 *                        "gpu:a100:4"; "gpu:", "gpu::4" and "gpu:a100:" are
 *                        malformed. A lone field is a count when it reads
 *                        as one ("4", "2k"), else a type.
 *   COUNT                digits with Slurm's optional suffix (suffix_mult:
 *                        k, m, g, t, p and kib.. = powers of 1024, kb.. =
 *                        powers of 1000; any case), after what strtoull
 *                        skips (blanks, a '+').
 * - Job TRES (job_desc tres_per_job/node/task/socket, sacct ReqTRES/AllocTRES,
 *   nodeox-sim traces): a comma list; GPU entries are spelled "gres:gpu:..."
 *   (22.05), "gres/gpu:..." or "gres/gpu:TYPE=N" / "gres/gpu=N" (23.11+,
 *   sacct), or bare "gpu:..." (simulator traces). nodeox_tres_scan.
 * - Node GRES (slurmctld's node Gres and GresUsed, slurm.conf Gres=): a comma
 *   list of "gpu:a100:4(S:0-1)", "gpu:a100:2(IDX:0,2)" (commas inside the
 *   parentheses do not split), "gpu:(null):3(IDX:0-2)" for an untyped GPU in
 *   use; no "gres" prefix, no '='. nodeox_tres_scan_node.
 * Other entries (cpu=, mem=, gres/gpumem=, gres:mps:100, ...) are skipped.
 */

/* How a GPU entry is spelled, kept when it is rewritten. */
typedef enum {
	NODEOX_TRES_BARE = 0, /* gpu:a100:4        (simulator traces, node GRES) */
	NODEOX_TRES_COLON,    /* gres:gpu:a100:4   (Slurm 22.05)       */
	NODEOX_TRES_SLASH,    /* gres/gpu:a100:4   (Slurm 23.11+)      */
	NODEOX_TRES_SLASH_EQ, /* gres/gpu:a100=4   (Slurm 23.11+, sacct) */
} nodeox_tres_form_t;

/* What is wrong with a GPU entry (Slurm would refuse it). */
typedef enum {
	NODEOX_TRES_OK = 0,
	NODEOX_TRES_NO_TYPE,   /* "gpu::4": empty type */
	NODEOX_TRES_NO_COUNT,  /* "gpu:a100:", "gpu:", "gres/gpu=": nothing where the count goes */
	NODEOX_TRES_BAD_COUNT, /* "gpu:a100:4x": the count is not a number */
	NODEOX_TRES_BIG_COUNT, /* over NODEOX_TRES_COUNT_MAX */
} nodeox_tres_problem_t;

#define NODEOX_TRES_COUNT_MAX 0xffffffffull /* larger counts are refused */
#define NODEOX_TRES_MAX_GPU 8               /* gpu entries the decision looks at in one field */

/* One gpu entry of a TRES or GRES string; offsets into that string. */
typedef struct {
	size_t start, end;         /* the whole entry (node: with its "(...)") */
	size_t type_off, type_len; /* type_len 0: untyped */
	size_t cnt_off, cnt_len;   /* cnt_len 0: no count given (means 1) */
	nodeox_tres_form_t form;
	uint64_t count; /* parsed count: 1 if none given, 0 if malformed */
	nodeox_tres_problem_t problem;
} nodeox_tres_gpu_t;

/* Find the gpu entries of a job TRES list s (NULL ok). Returns how many there
 * are (the first max of them stored in out, malformed ones included, with
 * their problem set), or -1 if s is NODEOX_STR_MAX bytes or longer. */
int nodeox_tres_scan(const char *s, nodeox_tres_gpu_t *out, int max);
/* The same for a node GRES list ("gpu:a100:4(S:0-1),mps:100"). */
int nodeox_tres_scan_node(const char *s, nodeox_tres_gpu_t *out, int max);
/* A count s[0..n) as Slurm reads one: 0, or -1 (not a number) or -2 (over
 * NODEOX_TRES_COUNT_MAX). */
int nodeox_tres_count_parse(const char *s, size_t n, uint64_t *out);
/* "count is not a number" and the like, for messages; "" for NODEOX_TRES_OK. */
const char *nodeox_tres_problem_text(nodeox_tres_problem_t p);
/* Copy an entry's type into dst (cap bytes, "" if untyped). Returns 0, or -1
 * (dst holds a cut copy) if it does not fit. */
int nodeox_tres_type_copy(const char *s, const nodeox_tres_gpu_t *e, char *dst, size_t cap);
/* Write s with the type removed from each of its n gpu entries into dst.
 * Returns 0, or -1 if dst is too small. */
int nodeox_tres_untype(const char *s, const nodeox_tres_gpu_t *e, int n, char *dst, size_t cap);

/*
 * The admin_comment record (policy_record.c): read job_submit/nodeox's record
 * back out of a job's AdminComment (format v=1 in nodeox.conf(5), ADMIN
 * COMMENT RECORD; written by decide_admin_comment in policy_decide.c).
 *
 * The record holds what the user asked before the plugin broadened the job:
 * the GPU type, the count form, the tag and the unscaled time limit, and
 * what the plugin set: the scaled limit and the constraint. The importer
 * puts the former back so that a trace is the workload as submitted; the
 * plugin reads the latter when an update replaces its constraint.
 */

#define NODEOX_RECORD_TYPE_MAX 64
#define NODEOX_RECORD_TAG_MAX 1024
#define NODEOX_RECORD_COUNT_MAX 1000000 /* GPUs a count is taken for when totalling */

/* Count forms, as the record's gpus= names them. */
typedef enum {
	NODEOX_FORM_JOB = 0, /* --gpus */
	NODEOX_FORM_NODE,    /* --gres, --gpus-per-node */
	NODEOX_FORM_TASK,    /* --gpus-per-task */
	NODEOX_FORM_SOCKET,  /* --gpus-per-socket */
	NODEOX_NFORMS
} nodeox_form_t;

typedef struct {
	int version;                       /* v= of the record used; 0: none found */
	int legacy;                        /* a record from before v=1 (no v= word) */
	char type[NODEOX_RECORD_TYPE_MAX]; /* "" if not recorded */
	int64_t count[NODEOX_NFORMS];      /* GPUs of the type per form, -1 = not used */
	char tag[NODEOX_RECORD_TAG_MAX];   /* canonical nodeox:flex tag, "" if not recorded */
	int64_t time_limit_min;            /* unscaled limit in minutes, -1 = not scaled */
	int64_t time_limit_to_min;         /* the limit nodeox set (same record), -1 = none */
	char features_to[1024];            /* the constraint nodeox set (decoded), "" = none */
	int cut;                           /* some keys were left out (cut=) */
} nodeox_record_t;

/* What every record in admin_comment starts with: the one home of the
 * marker the plugin writes and the readers (the plugin's job_modify, the
 * sacct importer) look for. */
#define NODEOX_RECORD_MARK "nodeox: changed"
/* Does admin_comment hold a record of job_submit/nodeox (NULL: no)? */
bool nodeox_record_present(const char *admin_comment);
/*
 * Find the nodeox records in admin_comment (anywhere: after an admin's own
 * text too) and read them: the last record gives type, counts and tag, the
 * last one with time_limit= the original limit. Returns 0 when there is no
 * record, 1 with *rec filled, 2 for a record of a version this reader does
 * not know (rec->version set, nothing else), -1 with err naming the bad word.
 */
int nodeox_record_parse(const char *admin_comment, nodeox_record_t *rec, char *err, size_t errlen);

/* Decode %XX in src[0..n) into dst (cap bytes). Returns 0, or -1 on a bad
 * escape, a decoded NUL or no room. */
int nodeox_record_decode(const char *src, size_t n, char *dst, size_t cap);

/* The name of form f in gpus= ("job", "node", ...). */
const char *nodeox_form_name(nodeox_form_t f);

#endif
