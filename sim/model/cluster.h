/*
 * cluster.h: the cluster the simulator schedules on, read from an admin's
 * own slurm.conf and gres.conf (cluster.c), and the node-feature constraint
 * expressions jobs use to pick nodes (constraint.c).
 *
 * Nodes with the same GPU type, counts, CPUs, memory, features, partitions
 * and state form a class; the scheduler indexes nodes by class so a pass
 * looks only at nodes a job could use.
 */
#ifndef SIM_CLUSTER_H
#define SIM_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/feature_expr.h"
#include "sim/model/fairshare.h"
#include "sim/model/qos.h"

#define SIM_MAX_FEATURES 64 /* distinct node features (one bit each) */
#define SIM_MAX_PARTITIONS 64
#define SIM_MAX_TYPES 32  /* distinct GPU types */
#define SIM_MAX_TERMS 32  /* OR terms in one constraint */
#define SIM_MAX_SOCKETS 8 /* sockets per node the GPU binding is modelled for */

/* The Slurm releases nodeox-sim models (nodeox-sim --slurm-version): how
 * each reads slurm.conf where it is silent and how its scheduler differs
 * where the model follows it. The two defaults the model reads both changed
 * in 23.11 (read_config.h): PriorityType (before: priority/basic, from:
 * priority/multifactor) and SelectType (before: select/linear, from:
 * select/cons_tres, which brings CR_Core_Memory). What else changed, and in
 * which release, is the table of sim_slurm_change_t (cluster_slurm_has). */
typedef enum {
	SIM_SLURM_2205 = 2205,
	SIM_SLURM_2311 = 2311,
	SIM_SLURM_2405 = 2405,
	SIM_SLURM_2411 = 2411,
	SIM_SLURM_2505 = 2505,
	SIM_SLURM_2511 = 2511,
	SIM_SLURM_2605 = 2605,
} sim_slurm_version_t;

/* Changes in SchedMD's code that touch what the model models, each applied
 * from the release (and micro release, where it came in one) the table in
 * cluster.c names; doc/simulator.md, "Slurm releases", says where in
 * Slurm's source each one is. */
typedef enum {
	SIM_CHG_MIN_CPUS_PER_GRES,  /* 24.05: --cpus-per-gpu raises min_cpus */
	SIM_CHG_WR_RELEVANT_JOB,    /* 25.05.1: will-run start from overlapping jobs */
	SIM_CHG_WR_YEAR_CAP,        /* 25.05.6, 25.11.1, 26.05: window stops growing */
	SIM_CHG_BF_END_ROUNDUP,     /* 24.11 (modelled from 25.05): slot end rounded up */
	SIM_CHG_PREFER_KEEPS_PART,  /* 25.11.1, 26.05: prefer failure keeps partition */
	SIM_CHG_ONE_NODE_FIRST_FIT, /* 26.05: _get_one_res */
	SIM_CHG_COUNT
} sim_slurm_change_t;

typedef struct {
	char *name;
	uint32_t cpus;
	uint64_t mem_mb;
	uint64_t features;   /* bit i = cluster features[i] */
	uint64_t partitions; /* bit i = cluster parts[i] */
	int type;            /* GPU type index, -1 = no GPUs */
	uint32_t gpus;
	bool usable;        /* State= not DOWN/DRAIN/FAIL */
	uint32_t weight;    /* Weight= (1): lower weights are used first */
	uint32_t sockets;   /* Boards x Sockets when given, dividing CPUs and
				   * GPUs evenly and at most SIM_MAX_SOCKETS: GPUs
				   * bound to sockets in order (sched_socket.c); 1:
				   * one pool of CPUs and GPUs */
	int cls;            /* node class index */
	char *features_str; /* comma lists, for the policy library */
	char *partitions_str;
} sim_node_t;

/* Memory and CPU defaults and limits of a partition or of the cluster
 * (slurm.conf DefMemPerCPU, DefMemPerNode, MaxMemPerCPU, MaxMemPerNode,
 * DefMemPerGPU, DefCpuPerGPU; MB). A partition's setting, where it has one,
 * replaces the cluster's (sched_request.c applies them). */
typedef struct {
	uint64_t def_mem;     /* DefMemPerCPU or DefMemPerNode (one field in */
	bool def_mem_per_cpu; /* Slurm, the last given wins), 0 = not set */
	uint64_t max_mem;     /* MaxMemPerCPU or MaxMemPerNode, 0 = not set */
	bool max_mem_per_cpu;
	uint64_t def_mem_per_gpu; /* DefMemPerGPU, 0 = not set */
	uint32_t def_cpu_per_gpu; /* DefCpuPerGPU, 0 = not set */
} sim_job_defaults_t;

typedef struct {
	char *name;
	bool is_default;
	bool up;              /* State=UP (else jobs are not scheduled there) */
	int64_t max_time;     /* seconds, SIM_TIME_NONE when UNLIMITED */
	int64_t default_time; /* seconds, SIM_TIME_NONE when not set */
	int tier;             /* PriorityTier (1): higher tiers are scheduled first */
	uint32_t job_factor;  /* PriorityJobFactor (1) */
	double norm_job;      /* job_factor over the highest partition's (at least 1) */
	sim_job_defaults_t defs;
} sim_part_t;

typedef struct {
	int first;  /* a representative node */
	int *nodes; /* node indexes, ascending */
	int nnodes;
} sim_class_t;

/* Scheduler parameters read from slurm.conf (Slurm's names and defaults). */
typedef struct {
	int64_t bf_window_min;       /* bf_window=, minutes, 1440 */
	int64_t bf_resolution_s;     /* bf_resolution=, seconds, 60 */
	int64_t bf_origin_s;         /* wall-clock second of trace second 0, mod bf_resolution (0) */
	int64_t limit_origin_s;      /* slurmctld's start as a trace second (0): the origin
				   * of its 30 s time-limit checks, its sched_interval
				   * passes and its decay thread's recalculations */
	int bf_max_job_test;         /* bf_max_job_test=, 500 */
	int64_t bf_interval_s;       /* bf_interval=, seconds, 30 */
	int default_queue_depth;     /* default_queue_depth=, 100 */
	int64_t sched_interval_s;    /* sched_interval=, seconds, 60: how often the
				   * main pass tests the whole queue (0: every
				   * second, as slurmctld's 1 s loop does) */
	int64_t batch_sched_delay_s; /* batch_sched_delay=, seconds, 3: how long after
				      * its last pass the background loop waits
				      * before one for new submissions */
	/* Deep-queue limits, 0 = none (Slurm's default for each): */
	int bf_max_job_part;      /* bf_max_job_part=: jobs a backfill pass tests per partition */
	int bf_max_job_user;      /* bf_max_job_user=: ... per user */
	int bf_max_job_user_part; /* bf_max_job_user_part=: ... per user and partition */
	int partition_job_depth;  /* partition_job_depth=: jobs the main pass tests per partition */
	int sched_max_job_start;  /* sched_max_job_start=: jobs the main pass starts */
	bool bf_continue;         /* bf_continue: read, no effect (doc/simulator.md) */
	double weight_age;        /* PriorityWeightAge, 0 */
	double weight_job_size;   /* PriorityWeightJobSize, 0 */
	int64_t max_age_s;        /* PriorityMaxAge, 7-0 */
	int64_t calc_period_s;    /* PriorityCalcPeriod, seconds, 5 minutes */
	bool favor_small;         /* PriorityFavorSmall */
	double weight_partition;  /* PriorityWeightPartition, 0 */
	bool size_relative;       /* PriorityFlags=SMALL_RELATIVE_TO_TIME */
	bool no_normal_part;      /* PriorityFlags=NO_NORMAL_PART (or NO_NORMAL_ALL) */
	double weight_qos;        /* PriorityWeightQOS, 0; 0 without slurmdbd or qos.conf */
	bool no_normal_qos;       /* PriorityFlags=NO_NORMAL_QOS (or NO_NORMAL_ALL) */
	double weight_fs;         /* PriorityWeightFairshare, 0; 0 where not modelled
				   * (no slurmdbd, no accounts.conf, NO_FAIR_TREE) */
	int64_t decay_hl_s;       /* PriorityDecayHalfLife, seconds, 7 days; 0: none */
	bool enforce_limits;      /* AccountingStorageEnforce has limits (or safe,
				   * all): only then does a job's end add its
				   * last slice of usage (acct_policy.c) */
	bool no_fair_tree;        /* PriorityFlags=NO_FAIR_TREE (the classic */
				  /* algorithm: not modelled) */
	const char *prio_zero;    /* a weight the model counts as 0 (QOS...), or NULL */
	bool slurmdbd;            /* AccountingStorageType=accounting_storage/slurmdbd */
	double end_latency_s;     /* a job's nodes go to the next job this long after
				   * its last second, on average: whole seconds, the
				   * fraction as one more second for that share of
				   * the jobs (not in slurm.conf; 0 here, nodeox-sim's
				   * --end-latency sets its default) */
	uint32_t latency_seed;    /* which jobs get the fraction's extra second */
	/* With a real run's backfill pass phases (not in slurm.conf; nodeox-sim's
	 * --bf-phase): every job starts at its second's pass phase and ends
	 * end_overhead_s after its run time; its nodes reach the next job in
	 * the second whose pass follows that end, instead of end_latency_s. */
	const struct sim_bf_phase *bf_phase;
	double end_overhead_s;
	/* The sub-second at which a second's submissions reach slurmctld (not in
	 * slurm.conf; nodeox-sim's --submit-phase, 0): the plugin's view at a
	 * submission holds as idle the GPUs of jobs that ended before it, though
	 * their nodes reach the next job only at a later pass (sched.c,
	 * sched_soft_end). */
	double submit_phase_s;
} sim_sched_params_t;

typedef struct {
	char *dir;
	sim_node_t *nodes;
	int nnodes;
	char *types[SIM_MAX_TYPES];
	int ntypes;
	char *features[SIM_MAX_FEATURES];
	int nfeatures;
	sim_part_t parts[SIM_MAX_PARTITIONS];
	int nparts;
	int default_part; /* -1 if none is Default=YES */
	sim_class_t *classes;
	int nclasses;
	uint64_t total_gpus;
	uint64_t total_cpus; /* every node's, usable or not: Slurm's cluster_cpus */
	sim_sched_params_t params;
	sim_job_defaults_t defs;           /* the cluster-wide ones */
	fs_accounts_t accounts;            /* DIR/accounts.conf (none: n 0) */
	sim_qos_t qos;                     /* DIR/qos.conf (none: n 0) */
	bool mem_counted;                  /* memory is allocated: SelectTypeParameters names
				   * it (CR_*_Memory), or, without the line, the
				   * select plugin is cons_tres (given, or 24.11's
				   * default), whose default is CR_Core_Memory */
	sim_slurm_version_t slurm_version; /* whose defaults the file was read with */
	int slurm_micro;                   /* its micro release, -1: the newest */
	uint32_t slurm_changes;            /* bit per sim_slurm_change_t the release has */
} sim_cluster_t;

/* A node-feature constraint (--constraint or --prefer), parsed by the
 * evaluator `nodeox why` shares (common/feature_expr.c, Slurm 22.05's rules:
 * left to right, no precedence of & over |), its names mapped to the
 * cluster's feature bits. `matching` ([a|b]): all nodes of the job must
 * satisfy the same one of its nalt alternatives. */
typedef struct {
	feature_expr_t expr;
	int8_t feature[FEATURE_EXPR_MAX]; /* cluster feature index of each name, -1 none */
	bool empty;                       /* no constraint (every node matches) */
	bool matching;
	int nalt;   /* alternatives when matching */
	bool never; /* names a feature no node has: Slurm refuses the job */
} sim_constraint_t;

void cluster_params_default(sim_sched_params_t *p);
/* A release nodeox-sim models ("22.05", "23.11", ..., "26.05"), with or
 * without a micro release ("25.05.6": *micro 6, else -1): 0 and *out, else
 * -1. micro may be NULL. */
int cluster_version_parse(const char *s, sim_slurm_version_t *out, int *micro);
/* "22.05" ... "26.05"; the releases' list for messages ("22.05, 23.11, ..."). */
const char *cluster_version_name(sim_slurm_version_t v);
const char *cluster_version_list(void);
/* The release as options and the table name it: its name, with ".MICRO"
 * where a micro release was given and a modelled change depends on it in
 * that release. */
void cluster_version_label(sim_slurm_version_t v, int micro, char *buf, size_t len);
/* The Slurm nodeox was built against (configure's NODEOX_SLURM_VERSION_NUMBER):
 * the newest modelled release not after it (22.05 before 22.05), with its
 * micro release; 24.11 when built without Slurm. */
sim_slurm_version_t cluster_version_built(int *micro);
/* Set the release's micro release (-1: the newest) and the changes it has. */
void cluster_version_set(sim_cluster_t *c, sim_slurm_version_t v, int micro);
/* Does the cluster's Slurm release have change ch? (asked per test in the
 * scheduler's inner loops: inline) */
static inline bool cluster_slurm_has(const sim_cluster_t *c, sim_slurm_change_t ch)
{
	return (c->slurm_changes >> ch) & 1u;
}
/* Read DIR/slurm.conf and DIR/gres.conf (optional) with the defaults of
 * Slurm release ver where the file is silent. Returns 0, or -1 with
 * "FILE:LINE: what" in err. */
int cluster_read(const char *dir, sim_slurm_version_t ver, sim_cluster_t **out, char *err, size_t errlen);
/* The same from in-memory texts (gres may be NULL); names are used in errors. */
int cluster_read_strings(const char *slurm_conf, const char *gres_conf, const char *name,
			 sim_slurm_version_t ver, sim_cluster_t **out, char *err, size_t errlen);
void cluster_free(sim_cluster_t *c);
int cluster_find_type(const sim_cluster_t *c, const char *name);
int cluster_find_partition(const sim_cluster_t *c, const char *name);
int cluster_find_feature(const sim_cluster_t *c, const char *name);

/* Parse --constraint syntax (see sim_constraint_t). Returns 0, or -1 with a
 * message in err. */
int constraint_parse(const char *expr, const sim_cluster_t *c, sim_constraint_t *out, char *err,
		     size_t errlen);
/* 0 when a node with these features satisfies k (some alternative), else -1. */
int constraint_match(const sim_constraint_t *k, uint64_t node_features);
/* Does a node satisfy k with the matching set's alternative alt? */
bool constraint_match_alt(const sim_constraint_t *k, uint64_t node_features, int alt);

#endif
