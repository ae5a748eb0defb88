/*
 * policy.h: the nodeox policy library, the one place where nodeox decides.
 *
 * Both job_submit/nodeox (inside slurmctld) and nodeox-sim link this library,
 * so a simulated decision and a real one are the same code. It is pure C:
 * no Slurm, no glib, no global state, no allocation on the decision path
 * (results go into caller-owned fixed-size buffers), bounded work per call.
 * Only nodeox_conf_parse_* allocate (plain malloc), and nodeox_conf_free
 * releases everything.
 *
 * Pieces, one file each:
 *   policy_conf.c    nodeox.conf parser            (nodeox_conf_*)
 *   policy_tag.c     the --comment tag parser      (nodeox_tag_*)
 *   policy_tres.c    GPU entries in TRES and node GRES strings
 *                    (nodeox_tres_*, policy_tres.h; also read by the
 *                    simulator, `nodeox why` and the sacct importer)
 *   policy_decide.c  the broadening decision       (nodeox_policy_*)
 *   policy_util.c    sizes, lists, bounded strings (nodeox_util_*)
 *   policy_record.c  reads back the admin_comment record that
 *                    policy_decide.c writes (nodeox_record_*, policy_record.h)
 */
#ifndef NODEOX_POLICY_H
#define NODEOX_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NODEOX_MAX_TYPES   32    /* GPU types in one nodeox.conf */
#define NODEOX_MAX_GROUPS  32
#define NODEOX_MAX_SCOPE   64    /* names in one Partitions=/Allow*=/Deny* list */
#define NODEOX_NAME_MAX    64    /* a type, feature, group, partition or user name */
#define NODEOX_STR_MAX     1024  /* Slurm limits features/prefer to 1024 chars */
#define NODEOX_ERR_MAX     256
#define NODEOX_COMMENT_MAX 8192  /* longer comments are not scanned for a tag */

/* No time limit given (Slurm's NO_VAL) or unlimited (INFINITE): never scaled. */
#define NODEOX_TIME_NONE     0xfffffffeu
#define NODEOX_TIME_INFINITE 0xffffffffu

typedef enum { NODEOX_MODE_ENFORCE = 0, NODEOX_MODE_DRYRUN, NODEOX_MODE_OFF } nodeox_mode_t;
typedef enum { NODEOX_BROADEN_ALWAYS = 0, NODEOX_BROADEN_WHEN_BLOCKED } nodeox_broaden_t;

/* One `GpuType=` line. */
typedef struct {
	char name[NODEOX_NAME_MAX];     /* gres type, e.g. "a100" */
	char feature[NODEOX_NAME_MAX];  /* node feature naming it; defaults to name */
	uint64_t mem_mb;                /* GPU memory in MB, 0 = unknown */
	double speed;                   /* relative throughput, > 0 */
	int line;                       /* where it was defined */
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

/* A parsed nodeox.conf. Plain data: read it freely. */
typedef struct {
	char path[512];
	nodeox_mode_t mode;             /* Mode=, default enforce */
	nodeox_broaden_t broaden;       /* Broaden=, default always */
	double min_speed;               /* MinSpeed=, default 0 (no floor) */
	bool scale_time_limit;          /* ScaleTimeLimit=, default yes */
	bool prefer_requested;          /* PreferRequested=, default no */
	nodeox_namelist_t partitions;   /* Partitions=: empty = all */
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
int nodeox_conf_parse_string(const char *text, const char *name, nodeox_conf_t **out,
			     char *err, size_t errlen);
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
} nodeox_tag_t;

/*
 * Look for the tag in comment (NULL or no tag: returns 0, tag->present false).
 * Returns 1 for a valid tag, -1 for a malformed one with a one-line reason in
 * err naming the bad part. Never reads past NODEOX_COMMENT_MAX characters.
 */
int nodeox_tag_parse(const char *comment, const nodeox_conf_t *conf, nodeox_tag_t *tag,
		     char *err, size_t errlen);

/* The fields of a job that the policy reads (job_desc_msg_t or a sim job). */
typedef struct {
	uint32_t job_id;                /* 0 if not known yet */
	const char *comment;
	const char *tres_per_job;       /* --gpus                  "gres:gpu:a100:4" */
	const char *tres_per_node;      /* --gres, --gpus-per-node "gres:gpu:a100:4,gres:foo:1" */
	const char *tres_per_task;      /* --gpus-per-task */
	const char *tres_per_socket;    /* --gpus-per-socket */
	const char *features;           /* --constraint */
	const char *prefer;             /* --prefer */
	const char *partition;          /* comma list, NULL = default partition */
	const char *account;
	const char *user;
	uint32_t time_limit;            /* minutes, or NODEOX_TIME_NONE/INFINITE */
	uint32_t time_cap;              /* longest limit the job may have (its partitions'
					 * MaxTime, its QOS's MaxWall), minutes; 0 = none */
	const char *time_cap_what;      /* where time_cap comes from ("MaxTime of
					 * partition short"), for the reason; may be NULL */
	uint32_t min_nodes;             /* 0 = unknown */
	uint32_t num_tasks;             /* 0 = unknown (used by Broaden=when-blocked) */
} nodeox_job_t;

/* One node as slurmctld (or the simulator) sees it now. */
typedef struct {
	const char *name;
	const char *features;           /* comma list of available features */
	const char *partitions;         /* comma list */
	const char *gpu_type;           /* gres type on the node ("" untyped) */
	uint32_t gpus_total;
	uint32_t gpus_idle;
	bool usable;                    /* up, not drained/down/reserved-away */
} nodeox_node_t;

typedef struct {
	const nodeox_node_t *nodes;
	size_t nnodes;
} nodeox_cluster_t;

typedef enum {
	NODEOX_PASS = 0,   /* not tagged, or mode off: job untouched, nothing to say */
	NODEOX_KEEP,       /* tagged, but left as asked: reason says why */
	NODEOX_REWRITE,    /* tagged and broadened: new_* hold the new fields */
	NODEOX_REJECT,     /* malformed tag: reject the submission with reason */
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
	double run_time_factor;         /* speed(requested)/speed(slowest eligible), >= 1 */
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
	bool time_capped;               /* scaling was cut (or skipped) at job->time_cap */
	uint32_t time_scaled;           /* the limit scaling alone would have given */
	char admin_comment[NODEOX_STR_MAX]; /* original request and the change */
} nodeox_decision_t;

/*
 * Decide what to do with job. cluster may be NULL (then Broaden=when-blocked
 * acts as always, and no feature filtering is done). With a cluster, types
 * whose feature no usable node in the job's partitions has are left out, and
 * nodes are matched to the job by job->partition (NULL: every node).
 * The new constraint is the user's (minus terms naming only GPU type
 * features) AND the OR of the eligible features. Semantics of every field:
 * doc/nodeox.conf.5. Always fills out; never fails; allocates nothing.
 */
void nodeox_policy_decide(const nodeox_conf_t *conf, const nodeox_job_t *job,
			  const nodeox_cluster_t *cluster, nodeox_decision_t *out);

/* "PASS", "KEEP", "REWRITE", "REJECT". */
const char *nodeox_action_name(nodeox_action_t action);

/* Helpers shared by plugin, simulator and CLI. */
/* Parse "80G", "40960M", "1T", "512" (MB). Returns 0, or -1 on a bad size. */
int nodeox_util_parse_size_mb(const char *s, uint64_t *mb);
/* Is name (len bytes) an item of the comma list `list`? Case-sensitive. */
bool nodeox_util_list_has(const char *list, const char *name, size_t len);

#endif
