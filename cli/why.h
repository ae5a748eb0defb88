/*
 * why.h: `nodeox why JOBID`, the explanation of a pending job.
 *
 * Three layers, one file each, so the reasoning can be tested without a
 * cluster:
 *   why_load.c     libslurm -> the plain structs below (the only Slurm code)
 *   why_analyze.c  plain structs + nodeox.conf -> why_result_t (pure)
 *   why_print.c    why_result_t -> text for people, or JSON
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

#include "plugin/policy.h"

#define WHY_MAX_NODE_GPUS 8     /* GPU types on one node */
#define WHY_NAME_MAX      64
#define WHY_MEM_NONE      0     /* no memory request */

/* ------------------------------------------------------------------ input */

/* What the node is doing, reduced to what decides whether it can take work. */
typedef enum {
	WHY_NODE_UP = 0,          /* idle, mixed or allocated */
	WHY_NODE_DOWN,            /* down or failed */
	WHY_NODE_DRAINED,         /* drained or draining */
	WHY_NODE_NOT_RESPONDING,
	WHY_NODE_UNAVAILABLE,     /* powered down, future, maintenance, ... */
} why_node_state_t;

/* One GPU type present on a node: "gpu:a100:4" with 2 of them in use. */
typedef struct {
	char type[WHY_NAME_MAX];  /* "" for untyped GPUs */
	uint32_t total;
	uint32_t used;
} why_gpu_t;

typedef struct {
	const char *name;
	const char *features;       /* active features, comma list */
	const char *partitions;     /* comma list */
	why_node_state_t state;
	const char *state_name;     /* Slurm's words, e.g. "IDLE+DRAIN" */
	const char *state_reason;   /* why an admin drained it, may be NULL */
	why_gpu_t gpus[WHY_MAX_NODE_GPUS];
	int ngpus;
	uint32_t cpus, cpus_alloc;
	uint64_t mem_mb, mem_alloc_mb;
} why_node_t;

/* The job, with Slurm's fields as loaded (22.05 strings, e.g. "gres:gpu:a100:4"). */
typedef struct {
	uint32_t job_id;
	bool pending;
	const char *state_name;     /* "PENDING", "RUNNING", ... */
	const char *reason;         /* Slurm's pending reason, e.g. "Resources" */
	const char *user, *account;
	const char *partition;      /* comma list as Slurm assigned it */
	const char *features;       /* --constraint */
	const char *prefer;
	const char *comment, *admin_comment;
	const char *tres_per_job, *tres_per_node, *tres_per_task, *tres_per_socket;
	const char *cpus_per_tres, *mem_per_tres;  /* "gres:gpu:N" */
	const char *req_nodes, *exc_nodes;         /* comma lists, expanded */
	uint32_t time_limit;        /* minutes, NODEOX_TIME_NONE/INFINITE */
	uint32_t num_nodes, max_nodes;  /* max 0 = no maximum */
	uint32_t num_tasks;
	uint32_t num_cpus;          /* minimum CPUs in total */
	uint32_t pn_min_cpus;       /* minimum CPUs per node */
	uint32_t cpus_per_task;
	uint64_t mem_per_node_mb;   /* 0 = none asked */
	uint64_t mem_per_cpu_mb;    /* 0 = none asked */
	bool mem_tracked;           /* memory is consumable (CR_MEMORY): a job
				     * asking none gets a whole node's memory */
} why_job_t;

/* ---------------------------------------------------------------- analysis */

/* How the GPU count is given. */
typedef enum {
	WHY_PER_NONE = 0, WHY_PER_NODE, WHY_PER_JOB, WHY_PER_TASK, WHY_PER_SOCKET,
} why_per_t;

/* The job's GPU request, read from its TRES strings. */
typedef struct {
	why_per_t per;
	char type[WHY_NAME_MAX];    /* "" = any type */
	uint32_t count;             /* per unit of `per` */
	uint32_t total;             /* GPUs the job needs in all */
	uint32_t per_node_min;      /* GPUs one node must have idle to help */
	uint32_t nodes;             /* nodes the job needs at least */
	uint32_t cpus_per_node;     /* CPUs one node must have left */
	uint64_t mem_per_node_mb;   /* memory one node must have left */
	bool several;               /* more than one GPU entry: only the first is read */
} why_request_t;

/* Why idle GPUs cannot serve the request. Order = the order of the checks. */
typedef enum {
	WHY_OK = 0,
	WHY_CAUSE_NODE_DOWN,
	WHY_CAUSE_NODE_DRAINED,
	WHY_CAUSE_NODE_NOT_RESPONDING,
	WHY_CAUSE_NODE_UNAVAILABLE,
	WHY_CAUSE_PARTITION,
	WHY_CAUSE_NODELIST,         /* not in --nodelist, or in --exclude */
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
	const char *type;           /* node's GPU type ("" untyped) */
	uint32_t idle;
	why_cause_t cause;
	char detail[160];           /* e.g. "needs 8 CPUs, 2 left" */
} why_verdict_t;

/* Idle GPUs excluded for one cause and one type, on some nodes. */
typedef struct {
	why_cause_t cause;
	char type[WHY_NAME_MAX];
	uint32_t gpus;
	char nodes[512];            /* comma list, truncated with "..." */
	char detail[160];           /* the first node's detail */
} why_excluded_t;

/* What the cluster can do for one version of the request. */
typedef struct {
	why_request_t req;
	uint32_t idle_gpus;         /* idle GPUs on all nodes */
	uint32_t eligible_gpus;     /* of those, usable by the request */
	uint32_t eligible_nodes;
	bool could_start;           /* the usable GPUs cover the request now */
	why_verdict_t *verdicts;    /* one per (node, GPU type) with idle GPUs */
	size_t nverdicts;
	why_excluded_t excluded[64];/* grouped by cause and type */
	size_t nexcluded;
	char shortfall[256];        /* what is missing, "" if could_start */
} why_fit_t;

/* The nodeox.conf view. */
typedef struct {
	bool conf_loaded;
	char conf_path[512];
	char conf_error[NODEOX_ERR_MAX + 512];
	bool tagged;                /* the comment carries nodeox:flex */
	char tag_error[NODEOX_ERR_MAX];
	bool applied;               /* the plugin already broadened this job */
	nodeox_decision_t decision; /* for the job as tagged (or as if tagged) */
	char eligible_types[NODEOX_MAX_TYPES][NODEOX_NAME_MAX];
	int neligible;
	double run_time_factor;     /* 0 = not known */
	bool analysed;              /* fit below is filled */
	why_fit_t fit;              /* the broadened request against the cluster */
} why_flex_t;

typedef struct {
	const why_job_t *job;
	why_fit_t fit;              /* the request as it stands */
	why_flex_t flex;
} why_result_t;

/* why_analyze.c */
/* Read the job's GPU, CPU and memory request. Returns 0, or -1 with err set
 * when a TRES string cannot be read. */
int why_request_read(const why_job_t *job, why_request_t *req, char *err, size_t errlen);
/* Judge every node's idle GPUs against req. */
void why_fit_compute(const why_job_t *job, const why_request_t *req,
		     const why_node_t *nodes, size_t nnodes, why_fit_t *fit);
/* Everything: the request as it stands, and under conf (may be NULL) as if
 * tagged flexible. conf_path/conf_error say where conf came from or why not. */
int why_analyze(const why_job_t *job, const why_node_t *nodes, size_t nnodes,
		const nodeox_conf_t *conf, why_result_t *res, char *err, size_t errlen);
void why_fit_free(why_fit_t *fit);
void why_result_free(why_result_t *res);
/* "node_down", "gpu_type", ... (the JSON words) and a phrase for people. */
const char *why_cause_name(why_cause_t cause);
const char *why_cause_text(why_cause_t cause);

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

/* why_load.c (libslurm) */
typedef struct why_load why_load_t;
/* Load job_id (array_task: one task of an array, or WHY_NO_TASK) and all
 * nodes. Returns NULL with err set on failure. */
#define WHY_NO_TASK 0xfffffffeu
why_load_t *why_load(uint32_t job_id, uint32_t array_task, char *err, size_t errlen);
const why_job_t *why_load_job(const why_load_t *ld);
const why_node_t *why_load_nodes(const why_load_t *ld, size_t *nnodes);
void why_load_free(why_load_t *ld);

/* why_cmd.c */
int why_cmd_run(int argc, char **argv);

#endif
