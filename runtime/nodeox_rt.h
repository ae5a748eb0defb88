/*
 * nodeox_rt.h: public C API of the nodeox heterogeneous-rounds runtime.
 *
 * One process per GPU (or per CPU worker), started by srun or mpirun. The
 * runtime trains a nodeox_workload_t (runtime/workload.h) either in rounds
 * (each worker takes a number of local steps sized to its measured speed,
 * then the pseudo-gradients are combined and an outer optimizer steps the
 * global weights) or in plain synchronous data parallel (gradients
 * all-reduced every step). Both run on the same code path for data, model
 * and optimizer, so the synchronous mode is a fair baseline.
 *
 * Typical use (what nodeox-run does):
 *
 *     nodeox_rt_config_t cfg;
 *     nodeox_rt_config_defaults(&cfg);
 *     if (nodeox_rt_config_parse(&cfg, argc, argv, err, sizeof err) != 0) ...
 *     nodeox_rt_t *rt = nodeox_rt_init(&argc, &argv, &cfg);   // MPI, env, device
 *     nodeox_workload_t *w = workload_mlp_create(&opts, rank, world, be, ...);
 *                            // or workload_gpt_create (runtime/workload_gpt.h)
 *     nodeox_rt_result_t res;
 *     int rc = nodeox_rt_run(rt, w, &res);                     // train, log, json
 *     // or, --evaluate: nodeox_rt_evaluate(rt, w, &eval_result)
 *     w->destroy(w);
 *     nodeox_rt_finalize(rt);
 *
 * Failure behaviour: errors in MPI/NCCL/CUDA calls print file:line and exit
 * the process non-zero; a peer that dies or hangs makes the others exit with
 * NODEOX_RT_EXIT_PEER_LOST within a deadline derived from observed round
 * times (see doc/runtime.md).
 */
#ifndef NODEOX_RT_H
#define NODEOX_RT_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/backend.h"
#include "runtime/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Exit codes of a worker that stops on an error (0 is success). */
#define NODEOX_RT_EXIT_USAGE 2      /* bad option or configuration */
#define NODEOX_RT_EXIT_COMM 3       /* an MPI/NCCL call returned an error */
#define NODEOX_RT_EXIT_PEER_LOST 4  /* a collective passed its deadline */
#define NODEOX_RT_EXIT_CHECKPOINT 5 /* checkpoint or model file could not be written/read */
#define NODEOX_RT_EXIT_INJECTED 6   /* --inject-exit test hook */
#define NODEOX_RT_EXIT_DATA 7       /* the data set or corpus is missing or malformed */
#define NODEOX_RT_EXIT_RESOURCES 8  /* out of host or device memory */
#define NODEOX_RT_EXIT_DEVICE 9     /* --backend cuda: no usable CUDA device */
#define NODEOX_RT_EXIT_OUTPUT 10    /* the --json file could not be written */

#define NODEOX_RT_MAX_WORKERS 1024

typedef enum {
	NODEOX_MODE_ROUNDS = 0,
	NODEOX_MODE_SYNC = 1,
	NODEOX_MODE_EVALUATE = 2 /* no training: split the held-out set across ranks by speed */
} nodeox_rt_mode_t;

typedef enum { NODEOX_WORKLOAD_MLP = 0, NODEOX_WORKLOAD_GPT = 1 } nodeox_rt_workload_t;

typedef enum {
	NODEOX_COMBINE_MEAN = 0,    /* DiLoCo: uniform mean of pseudo-gradients */
	NODEOX_COMBINE_SAMPLES = 1, /* weighted by samples processed this round */
	NODEOX_COMBINE_FEDNOVA = 2  /* normalized by (momentum-corrected) steps */
} nodeox_combine_t;

typedef enum { NODEOX_INNER_SGD = 0, NODEOX_INNER_ADAMW = 1 } nodeox_inner_t;

typedef enum {
	NODEOX_PLAN_SPEED = 0, /* H_i = max(1, ceil(H * s_i / max_j s_j)) */
	NODEOX_PLAN_TIME = 1,  /* H_i = max(1, floor(round_ms / step_ms_i)) */
	NODEOX_PLAN_FIXED = 2  /* H_i = H for everyone (plain local SGD) */
} nodeox_plan_t;

/* Collectives supplied by the caller instead of MPI: nodeox.torch under
 * torchrun hands the engine torch.distributed's (Gloo, or NCCL for device
 * buffers). The engine uses them only when MPI sees a world of one and the
 * launcher's environment (RANK, WORLD_SIZE) says more; start() then sets the
 * group up. Buffers are host memory unless on_device; every function
 * returns 0, or -1 with a message in err (the engine names the call's
 * file:line and exits NODEOX_RT_EXIT_COMM). */
enum { NODEOX_COMM_F32 = 0, NODEOX_COMM_F64 = 1 };
typedef struct nodeox_comm_ops {
	const char *name; /* for messages, e.g. "torch.distributed" */
	/* join the group (on_device: device buffers will be reduced); *rank and
	 * *world: what the group says */
	int (*start)(int on_device, int *rank, int *world, char *err, size_t errlen);
	/* in-place sum of n items of dtype (NODEOX_COMM_F32 or _F64) */
	int (*allreduce_sum)(void *buf, size_t n, int dtype, int on_device, char *err, size_t errlen);
	/* recv holds world * bytes: rank i's bytes from send at i * bytes */
	int (*allgather)(const void *send, void *recv, size_t bytes, char *err, size_t errlen);
	int (*bcast)(void *buf, size_t bytes, int root, char *err, size_t errlen);
	int (*barrier)(char *err, size_t errlen);
} nodeox_comm_ops_t;

typedef struct nodeox_rt_config {
	nodeox_rt_mode_t mode;
	nodeox_combine_t combine;
	nodeox_inner_t inner;
	nodeox_plan_t plan;
	const char *backend;           /* "cpu" or "cuda" */
	nodeox_rt_workload_t workload; /* which built-in model nodeox-run builds */
	const char *data_dir;          /* Fashion-MNIST IDX directory */
	/* transformer (--workload gpt) */
	const char *corpus; /* data_text.h name or path */
	int layers, channels, heads, context;
	long max_docs;          /* read only this many corpus documents (0: all) */
	long eval_windows;      /* validation windows to evaluate on (0: all) */
	double target_loss;     /* record time to this validation loss (0 = off) */
	double grad_clip;       /* global gradient norm bound (0 = off) */
	const char *init_model; /* start from these weights (--init-model) */
	const char *save_model; /* write the final global weights here (--save-model) */
	/* inner optimizer */
	double lr, lr_min_ratio, momentum, weight_decay, beta1, beta2, eps;
	int batch;               /* per-worker batch size (0: the workload's default) */
	int batch_by_speed;      /* 1: batch sized to each rank's speed (nodeox_rt_batch) */
	const char *hidden;      /* MLP hidden sizes "256,128,100" (built-in workload) */
	long max_train;          /* use only this many training samples (0: all) */
	long total_steps;        /* global steps; drives the LR schedule */
	long warmup_steps;       /* linear LR warm-up, in global steps */
	int reset_inner_state;   /* 1: zero inner optimizer state every round */
	int average_inner_state; /* 1: average it over workers every round (combine weights) */
	/* rounds */
	int local_steps;                 /* H: steps of the fastest worker per round */
	double round_ms;                 /* time budget per round (plan "time") */
	long sync_warmup_steps;          /* synchronous steps before the first round */
	long h_ramp_steps;               /* H grows from 2 to local_steps over these global steps */
	double outer_lr, outer_momentum; /* outer SGD with Nesterov momentum */
	/* evaluation and stopping */
	int eval_every;     /* evaluate test accuracy every N rounds */
	double target_acc;  /* record time to this accuracy (0 = off) */
	int stop_at_target; /* stop once target_acc is reached */
	double eval_ema;    /* evaluate an EMA of the weights, decay per world * batch samples (0 = off) */
	/* emulated heterogeneity */
	double emulate_speeds[NODEOX_RT_MAX_WORKERS];
	int n_emulate_speeds;   /* 0 = no emulation */
	double emulate_base_ms; /* step duration at speed 1.0 */
	/* checkpoints */
	const char *checkpoint_dir;
	int checkpoint_every; /* rounds; 0 = never */
	int resume;
	/* output */
	const char *json_path;
	int quiet;
	int speed_record; /* 1 (default): leave the speed record in the job's Comment
			   * under Slurm (runtime/rt_speedrec.h); --no-speed-record: 0 */
	uint64_t seed;
	/* who drives the engine, for its messages: NULL for nodeox-run (they name
	 * its options), else the API's name (e.g. "nodeox.torch") */
	const char *api;
	/* collectives to use when MPI did not launch the job (NULL: MPI only;
	 * then a world of one with a launcher saying more is an error) */
	const nodeox_comm_ops_t *comm_ops;
	/* failure handling */
	double fault_initial_s; /* deadline before any round time is known */
	double fault_factor;    /* deadline = factor * longest round + min */
	double fault_min_s;
	/* test hooks: RANK:ROUND, -1 when unset */
	int inject_nan_rank, inject_nan_round;
	int inject_exit_rank, inject_exit_round;
	int inject_hang_rank, inject_hang_round;
} nodeox_rt_config_t;

/* What nodeox_rt_run reports (identical on every rank). */
typedef struct nodeox_rt_result {
	double metric;               /* the last evaluation (accuracy or loss) */
	double test_accuracy;        /* after the last round; -1 for a loss workload */
	double val_loss;             /* validation loss for a loss workload, else -1 */
	double wall_s;               /* wall time of nodeox_rt_run in this process */
	double train_s;              /* training time (rounds' compute and
                                 communication; evaluation and checkpoints
                                 excluded), carried across --resume */
	double time_to_target_s;     /* train_s when target_acc was first reached, -1 if never */
	double critical_s;           /* sum over intervals of the slowest worker's step
                                 time: under emulation, the run's wall time on
                                 an unloaded host without communication */
	double critical_to_target_s; /* critical_s at the target, -1 if never */
	long rounds;                 /* rounds (or sync intervals) completed */
	long global_steps;
	long dropped;              /* pseudo-gradients dropped as non-finite */
	double bytes_communicated; /* payload bytes, summed over all ranks */
	uint64_t params_fnv;       /* FNV-1a of the final global weights */
} nodeox_rt_result_t;

typedef struct nodeox_rt nodeox_rt_t;

/* Fill cfg with the documented defaults (doc/nodeox-run.1). */
void nodeox_rt_config_defaults(nodeox_rt_config_t *cfg);

/* Parse nodeox-run's command line into cfg. Returns 0, 1 after --help
 * (text printed), or -1 with a message naming the option in err. */
int nodeox_rt_config_parse(nodeox_rt_config_t *cfg, int argc, char **argv, char *err, size_t errlen);

/* Start MPI (or cfg->comm_ops: see nodeox_comm_ops_t), read rank/size/local
 * rank, pick the device, start the fault watchdog. Exits the process on failure (there is no one to report to). */
nodeox_rt_t *nodeox_rt_init(int *argc, char ***argv, const nodeox_rt_config_t *cfg);

int nodeox_rt_rank(const nodeox_rt_t *rt);
int nodeox_rt_world(const nodeox_rt_t *rt);
int nodeox_rt_local_rank(const nodeox_rt_t *rt);
const nodeox_backend_t *nodeox_rt_backend(const nodeox_rt_t *rt);
/* The engine's own copy of the configuration (the launcher's options, the
 * Slurm allocation's speeds): a caller of the step API sets the training
 * settings here between nodeox_rt_init and nodeox_rt_start. */
nodeox_rt_config_t *nodeox_rt_config(nodeox_rt_t *rt);

/* The batch this rank trains with when the configured one is batch: batch
 * itself, or with --batch-by-speed max(1, round(batch * s_rank / max s))
 * from the speeds known at start (exits with a usage error when they are
 * not). Call after nodeox_rt_init, before creating the workload. */
int nodeox_rt_batch(const nodeox_rt_t *rt, int batch);

/* Train w to cfg->total_steps (or target), resuming from a checkpoint when
 * asked; log one line per round on rank 0; write cfg->json_path. Returns 0. */
int nodeox_rt_run(nodeox_rt_t *rt, nodeox_workload_t *w, nodeox_rt_result_t *res);

/* --evaluate: split w's held-out items across ranks in proportion to their
 * speed (the emulated speeds, else measured on one batch), sum the per-item
 * losses exactly, and report loss and perplexity (rank 0 prints; --json).
 * Exits NODEOX_RT_EXIT_USAGE when w has no split evaluation. */
typedef struct nodeox_rt_eval_result {
	double loss, perplexity;
	size_t items, tokens;
	double wall_s; /* slowest rank's evaluation time */
} nodeox_rt_eval_result_t;
int nodeox_rt_evaluate(nodeox_rt_t *rt, nodeox_workload_t *w, nodeox_rt_eval_result_t *res);

/* ---- The step API: a model driven from outside (nodeox.torch) ----
 * The caller owns the model, its forward and backward, and its inner
 * optimizer; w describes its flat parameters and gradients (params, grads,
 * nparams, be, batch_size, shard_samples, data_pos/data_seek for
 * checkpoints; train_batch and evaluate may be NULL). The engine plans the
 * rounds, all-reduces gradients in synchronous intervals, combines, runs the
 * outer step on w->params in place, checkpoints, and keeps the critical
 * path, exactly as nodeox_rt_run does (which runs the same steps):
 *
 *     nodeox_rt_start(rt, w, 1);              // state; rank 0's weights everywhere
 *     for (;;) {
 *         loss = forward_backward();           // writes w->grads
 *         nodeox_rt_step_grads(rt, w);         // sync intervals: all-reduce
 *         inner_step(nodeox_rt_step_lr(rt));   // the caller's optimizer
 *         if (nodeox_rt_step_end(rt, w, loss) == 2) break;
 *     }
 *     nodeox_rt_result(rt, &res);             // collective
 *
 * nodeox_rt_step_end returns 0 in the middle of a round, 1 when the round
 * just ended (w->params now hold the new global weights), 2 when it ended
 * and training is over (cfg->total_steps reached, or the target). Each
 * step's clock (emulated duration) starts when the previous step ended;
 * wrap work between steps that is no step's (evaluation) in
 * nodeox_rt_pause(rt, 1) .. (rt, 0). nodeox_rt_start returns 1 when it
 * resumed from cfg->checkpoint_dir. broadcast: 1 makes every rank start
 * from rank 0's w->params. */
int nodeox_rt_start(nodeox_rt_t *rt, nodeox_workload_t *w, int broadcast);
void nodeox_rt_step_grads(nodeox_rt_t *rt, nodeox_workload_t *w);
double nodeox_rt_step_lr(const nodeox_rt_t *rt); /* the schedule's lr for the step in progress */
int nodeox_rt_step_end(nodeox_rt_t *rt, nodeox_workload_t *w, double loss);
void nodeox_rt_pause(nodeox_rt_t *rt, int on);

typedef struct nodeox_rt_progress {
	long round, global_step;     /* rounds completed, the global step counter */
	long local_steps;            /* this worker's steps in completed rounds */
	int in_round;                /* 1: a round is open */
	int step_in_round;           /* steps this worker took in the open round */
	int round_steps;             /* its planned steps in the open round (tau_i) */
	int allreduce;               /* 1: the open interval all-reduces gradients */
	int last_finite;             /* 0: this worker's last update was dropped as non-finite */
	int checkpoint_at_round_end; /* the step in progress ends a checkpointed round */
	int overruns;                /* steps longer than their emulated duration */
	double lr;                   /* nodeox_rt_step_lr */
	double critical_s, train_s;
	long dropped;                 /* pseudo-gradients dropped so far, all workers */
	const long *steps_per_worker; /* world entries: steps in completed rounds */
} nodeox_rt_progress_t;
void nodeox_rt_progress(const nodeox_rt_t *rt, nodeox_rt_progress_t *p);
/* The speed known before training (--emulate-speeds, or the GPU type's
 * Speed= in nodeox.conf from the Slurm allocation); 0: unknown. */
double nodeox_rt_speed(const nodeox_rt_t *rt, int rank);
/* This rank's share [first, first + count) of n items, in proportion to
 * the speeds (known, else measured, else equal), as --evaluate splits. */
void nodeox_rt_share(const nodeox_rt_t *rt, size_t n, size_t *first, size_t *count);
/* In-place sum over ranks of n doubles in host memory. */
void nodeox_rt_allreduce_host(nodeox_rt_t *rt, double *buf, size_t n);
/* Rank 0's bytes at buf (host memory) on every rank: a collective (e.g.
 * nodeox.torch's frozen parameters and buffers at the start). */
void nodeox_rt_bcast_host(nodeox_rt_t *rt, void *buf, size_t bytes);
/* The run's figures so far (collective: bytes are summed over ranks);
 * wall_s is left 0. */
void nodeox_rt_result(nodeox_rt_t *rt, nodeox_rt_result_t *res);

/* What the engine communicates through: "MPI" or cfg->comm_ops->name. */
const char *nodeox_rt_comm_name(const nodeox_rt_t *rt);
/* End every rank of the job now (MPI_Abort; under comm_ops this process
 * only, and the launcher ends the others). */
void nodeox_rt_abort(int code);
/* Stop the watchdog, free buffers, MPI_Finalize. */
void nodeox_rt_finalize(nodeox_rt_t *rt);

#ifdef __cplusplus
}
#endif
#endif
