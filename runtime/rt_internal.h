/*
 * rt_internal.h: types and functions shared between the runtime's modules
 * (not installed; users see runtime/nodeox_rt.h). One section per file.
 */
#ifndef NODEOX_RT_INTERNAL_H
#define NODEOX_RT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "runtime/nodeox_rt.h"

/* ------------------------------------------------------------ rt_util.c */
/* "NAME: rank R: " (rank < 0: "NAME: "), the formatted message and a
 * newline to stderr in one write(2), so ranks' lines do not interleave. */
void rt_util_say(int rank, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print "nodeox-run: rank R: msg" and exit with code. */
void rt_util_die(const nodeox_rt_t *rt, int code, const char *msg);
/* what messages start with: cfg.api (e.g. "nodeox.torch") or "nodeox-run" */
void rt_util_set_name(const char *api);
const char *rt_util_name(void);
double rt_util_clock_s(void); /* CLOCK_MONOTONIC seconds */
/* FNV-1a over bytes, continuing from h (0 starts a new hash). */
uint64_t rt_util_fnv(uint64_t h, const void *p, size_t bytes);

/* ------------------------------------------------------------ rt_env.c */
typedef struct rt_env {
	int rank, world, local_rank;
	const char *source; /* "openmpi", "slurm", "pmi", "torchrun" or "none" */
} rt_env_t;

/* Read rank/size/local rank from OMPI_COMM_WORLD_{RANK,SIZE,LOCAL_RANK},
 * else SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID, else PMI_RANK/PMI_SIZE.
 * getenv_fn lets unit tests pass a fake environment. Returns 0, or -1 with
 * a message in err naming the variable that is malformed. */
int rt_env_read(rt_env_t *env, const char *(*getenv_fn)(const char *), char *err, size_t errlen);
/* The GPU index for this local rank: local_rank % (GPUs on the node), or
 * local_rank when none can be counted (backend_cuda then reports it). */
int rt_env_pick_device(int local_rank);
/* keys: world device keys (this rank's GPU as "host/PCI bus id", gathered
 * from every rank), keylen bytes each, each NUL-terminated within. Returns
 * 1 with *first < *second the lowest pair of ranks on one device (NCCL
 * refuses them), else 0. */
int rt_env_shared_device(const char *keys, int world, size_t keylen, int *first, int *second);

/* ------------------------------------------------------------ rt_fault.c */
/* A watchdog thread: while a collective is "armed", it checks every 100 ms
 * whether the deadline has passed and, if so, prints what was waited for
 * and _exit(NODEOX_RT_EXIT_PEER_LOST). The deadline is fault_initial_s until
 * a round has been observed, then fault_factor * longest round + fault_min_s. */
int rt_fault_start(int rank, double initial_s, double factor, double min_s);
void rt_fault_arm(const char *what, const char *file, int line);
void rt_fault_disarm(void);
void rt_fault_observe_round(double seconds);
/* 1: slow phase (evaluation, checkpoint), deadline at least initial_s; 0: back. */
void rt_fault_relax(int on);
double rt_fault_deadline_s(void);
void rt_fault_stop(void);

/* ------------------------------------------------------------ rt_comm.c */
typedef struct rt_comm rt_comm_t;

/* MPI_Init_thread, this process's rank and MPI's world size. */
void rt_comm_mpi_start(int *argc, char ***argv, int *rank, int *world);
/* The rank among MPI's ranks sharing this node. */
int rt_comm_mpi_node_rank(int rank);
/* From now on every collective goes to ops (started here: *rank, *world are
 * the group's). -1 with err when ops->start fails. */
int rt_comm_use_ops(const nodeox_comm_ops_t *ops, int on_device, int *rank, int *world, char *err,
		    size_t errlen);
/* "MPI" or the caller's collectives' name. */
const char *rt_comm_name(void);
/* End the job now: MPI_Abort, or _exit(code) under the caller's collectives. */
void rt_comm_abort(int code) __attribute__((noreturn));
void rt_comm_finish(void); /* MPI_Finalize */

rt_comm_t *rt_comm_create(int rank, int world, const nodeox_backend_t *be);
void rt_comm_destroy(rt_comm_t *c);
/* In-place sum over ranks of n floats in backend memory (device buffers go
 * through NCCL when built with it, else are staged through the host). */
void rt_comm_allreduce_sum(rt_comm_t *c, float *buf, size_t n, const char *file, int line);
/* In-place sum over ranks of n doubles in host memory (evaluation's
 * per-item losses: each item has one nonzero contributor, so the sum is
 * exact and independent of the rank count). */
void rt_comm_allreduce_host_double(rt_comm_t *c, double *buf, size_t n, const char *file, int line);
/* Every rank contributes bytes from send; recv holds world * bytes. Host memory. */
void rt_comm_allgather(rt_comm_t *c, const void *send, void *recv, size_t bytes, const char *file, int line);
void rt_comm_bcast(rt_comm_t *c, void *buf, size_t bytes, int root, const char *file, int line);
void rt_comm_barrier(rt_comm_t *c, const char *file, int line);
/* Payload bytes this rank has handed to collectives so far. */
double rt_comm_bytes(const rt_comm_t *c);
void rt_comm_set_bytes(rt_comm_t *c, double bytes);
/* Print "rank R: what failed at file:line: MPI message" and exit. */
void rt_comm_mpi_fail(int err, const char *expr, const char *file, int line);
#define mpiCheck(expr)                                                        \
	do {                                                                  \
		int mpi_rc_ = (expr);                                         \
		if (mpi_rc_ != 0)                                             \
			rt_comm_mpi_fail(mpi_rc_, #expr, __FILE__, __LINE__); \
	} while (0)

/* ------------------------------------------------------------ rt_emulate.c */
typedef struct rt_emulate {
	double step_ms; /* stretched duration of one step, 0 = no emulation */
	double t0;      /* start of the step in progress (rt_util_clock_s) */
	int overruns;   /* steps whose compute took longer than step_ms */
} rt_emulate_t;

/* Parse "1,1,0.5,0.5" into speeds (at most max); -1 with err on bad input. */
int rt_emulate_parse_speeds(const char *s, double *speeds, int max, char *err, size_t errlen);
void rt_emulate_init(rt_emulate_t *e, const double *speeds, int n, int rank, double base_ms);
void rt_emulate_step_begin(rt_emulate_t *e);
/* Sleep until step_ms after the step began; returns the step's duration in
 * ms as the planner should see it: exactly step_ms under emulation (an
 * overrun is counted, not reported), the measured time otherwise. */
double rt_emulate_step_end(rt_emulate_t *e);

/* ------------------------------------------------------------ rt_combine.c */
/* What each worker reports after a round (all-gathered, one record each). */
typedef struct rt_worker_info {
	double steps;   /* tau_i, local steps this round */
	double samples; /* samples processed this round */
	double shard;   /* size of the worker's data shard (p_i = shard share) */
	double finite;  /* 1 when every entry of Delta_i is finite */
	double loss;    /* mean training loss over the round */
	double step_ms; /* mean step duration over the round */
	double op;      /* the collective this rank is in (rt_agree.c's RT_OP_*) */
} rt_worker_info_t;

/* Weights w_i such that Delta = sum_i w_i Delta_i under the rule; workers
 * with finite == 0 get w_i = 0 and the others are renormalized among
 * themselves. rho is the inner SGD momentum for FedNova's a_i (0 for plain
 * SGD or AdamW). Returns the number of workers kept (0: skip the step). */
int rt_combine_weights(nodeox_combine_t rule, int n, const rt_worker_info_t *info, double rho, double *w);
/* FedNova's a_i = sum_{k=1..tau} (1 - rho^k) / (1 - rho); tau when rho == 0. */
double rt_combine_fednova_a(double tau, double rho);
const char *rt_combine_name(nodeox_combine_t rule);

/* ------------------------------------------------------------ rt_agree.c */
/* The engine collectives a caller could reach out of step with its peers. */
enum { RT_OP_ROUND_END = 1, RT_OP_RESULT, RT_OP_ALLREDUCE, RT_OP_FINALIZE, RT_OP_BCAST };
/* After the round end's all-gather of worker records: stop every rank with
 * a message naming both calls when a rank is in another collective. */
void rt_agree_check(const nodeox_rt_t *rt, const rt_worker_info_t *all, int op);
/* Before the collective op: all-gather a worker record carrying op (the
 * size of the round end's, so the two always pair up) and check it. */
void rt_agree(nodeox_rt_t *rt, int op);

/* ------------------------------------------------------------ rt_ema.c */
/* The moving average of --eval-ema (backend memory, n floats). */
typedef struct rt_ema {
	const nodeox_backend_t *be;
	float *avg;
	size_t n;
	double beta;        /* decay per ref_samples samples */
	double ref_samples; /* world * batch: one synchronous step */
	double weight;      /* 1 - product of the decays so far (bias correction) */
	long updates;
} rt_ema_t;

/* -1 when out of backend memory. */
int rt_ema_init(rt_ema_t *e, const nodeox_backend_t *be, size_t n, double beta, double ref_samples);
/* Fold x (backend memory) in after samples more samples: decay
 * beta^(samples / ref_samples), debiased (the first update copies x). */
void rt_ema_update(rt_ema_t *e, const float *x, double samples);
void rt_ema_free(rt_ema_t *e);

/* ------------------------------------------------------------ engine state */
/* The interval in progress (rt_loop.c). */
typedef struct rt_interval {
	int tau[NODEOX_RT_MAX_WORKERS]; /* steps per worker */
	int T;                          /* global steps the interval advances */
	int allreduce;                  /* 1: gradients all-reduced every step */
	int k;                          /* this worker's steps taken so far */
	int open;                       /* 1: planned and not yet closed */
	double loss_sum, ms_sum;        /* over this worker's steps */
	double t0;                      /* when it opened */
} rt_interval_t;

struct nodeox_rt {
	nodeox_rt_config_t cfg;
	rt_env_t env;
	const nodeox_backend_t *be;
	rt_comm_t *comm;
	rt_emulate_t emu;
	int device;
	/* optimizer state, backend memory, nparams floats each */
	size_t n;
	float *global;            /* theta: global weights at the start of the round */
	float *outer_m;           /* outer Nesterov momentum */
	float *delta;             /* pseudo-gradient / scratch */
	float *inner_m, *inner_v; /* inner SGD momentum / AdamW moments */
	long adam_t;              /* AdamW step count (bias correction) */
	/* counters */
	long round;             /* rounds completed */
	long global_step;       /* drives the LR schedule */
	long local_steps_total; /* this worker's steps so far */
	long steps_per_worker[NODEOX_RT_MAX_WORKERS];
	double last_step_ms[NODEOX_RT_MAX_WORKERS]; /* planner input */
	long dropped;
	double train_s; /* training time so far (evaluation excluded) */
	double time_to_target_s;
	/* critical path: sum over intervals of the slowest worker's step time
     * (max_i steps_i * step_ms_i). Under emulation, the wall time the run
     * would take without communication and without a loaded host. */
	double critical_s, critical_to_target_s;
	double last_metric; /* last evaluation: accuracy or loss (-1: none yet) */
	const char *metric; /* the workload's: "accuracy" or "loss" */
	int metric_lower_is_better;
	double longest_round_s;
	long ckpt_prev[2];                     /* rounds of this rank's last two checkpoint files */
	rt_ema_t ema;                          /* --eval-ema, rank 0 only (ema.avg NULL otherwise) */
	double batches[NODEOX_RT_MAX_WORKERS]; /* every worker's batch (rt_batch.c) */
	double sync_samples;                   /* samples of one synchronous step, all workers */
	double grad_share;                     /* this worker's weight in the synchronous gradient mean */
	rt_interval_t iv;                      /* the interval in progress (rt_loop.c) */
	int last_finite;                       /* this worker's update was finite in the last interval */
	int started;                           /* nodeox_rt_start has run (state allocated) */
	/* this worker's mean step per interval, for the speed record
	 * (rt_speedrec.c): every speed_stride-th of speed_seen kept */
	double speed_ms[512];
	int speed_n, speed_stride;
	long speed_seen;
};

/* ------------------------------------------------------------ rt_inner.c */
/* One inner optimizer step on w->params with w->grads at learning rate lr
 * (nodeox-run's workloads; a model driven from outside brings its own). */
void rt_inner_step(nodeox_rt_t *rt, nodeox_workload_t *w, double lr);
void rt_inner_reset(nodeox_rt_t *rt);

/* ------------------------------------------------------------ rt_batch.c */
/* Before training: the samples of a synchronous step and this worker's
 * share of them (1 / world with equal batches); with --batch-by-speed the
 * batches are all-gathered and the emulated step time scaled by this
 * worker's batch over the largest. */
void rt_batch_setup(nodeox_rt_t *rt, const nodeox_workload_t *w);

/* ------------------------------------------------------------ rt_rounds.c */
/* Learning rate at (possibly fractional) global step t: linear warm-up to
 * cfg->lr over warmup_steps, then cosine to lr * lr_min_ratio at total_steps. */
double rt_rounds_lr(const nodeox_rt_config_t *cfg, double t);
/* Local steps per worker for the next round from the last measured step
 * times (ms; <= 0 means unknown, which plans H for everyone). cap bounds
 * every tau (the steps left in the budget). */
/* H for the round that starts at global step t (--h-ramp: from 2 up). */
int rt_rounds_h(const nodeox_rt_config_t *cfg, long t);
void rt_rounds_plan(const nodeox_rt_config_t *cfg, int world, const double *step_ms, long cap, int *tau);
/* End of a round: Delta_i = theta - theta_i, the combine weights from the
 * all-gathered records (all), Delta summed over workers, outer Nesterov
 * step; every worker restarts from the new theta. */
void rt_rounds_combine(nodeox_rt_t *rt, nodeox_workload_t *w, rt_worker_info_t *mine, rt_worker_info_t *all);

/* ------------------------------------------------------------ rt_sync.c */
/* Average the gradients over workers (one all-reduce), every step. */
void rt_sync_reduce_grads(nodeox_rt_t *rt, nodeox_workload_t *w);
/* End of a synchronous interval: exchange the records, theta = params. */
void rt_sync_finish(nodeox_rt_t *rt, nodeox_workload_t *w, rt_worker_info_t *mine, rt_worker_info_t *all);

/* ------------------------------------------------------------ rt_loop.c */
/* The step machine both drivers run (see rt_loop.c's header):
 *   rt_loop_open   plan the next interval, start the first step's clock
 *   rt_loop_lr     learning rate of the step in progress
 *   rt_loop_grads  after backward: in synchronous intervals the step's
 *                  emulated end and the gradient all-reduce
 *   rt_loop_end    after the inner step: 0 mid-interval; 1 the interval
 *                  closed (global weights updated) and the next one opened;
 *                  2 closed and training is over (total_steps or target). */
void rt_loop_open(nodeox_rt_t *rt);
double rt_loop_lr(const nodeox_rt_t *rt);
void rt_loop_grads(nodeox_rt_t *rt, nodeox_workload_t *w);
int rt_loop_end(nodeox_rt_t *rt, nodeox_workload_t *w, double loss);
/* nodeox-run's loop over w->train_batch and rt_inner_step, to total_steps
 * or the target. */
int rt_loop_run(nodeox_rt_t *rt, nodeox_workload_t *w);
/* Evaluate on rank 0, broadcast; returns the metric (-1 when w has no
 * evaluate). The time spent is not counted as training time. */
double rt_loop_evaluate(nodeox_rt_t *rt, nodeox_workload_t *w);
/* 1 when an evaluation result meets the target (--target-acc for an
 * accuracy, --target-loss for a loss; 0 targets are off). */
int rt_loop_reached(const nodeox_rt_t *rt, double metric);
/* 1 when round (counted from 1) is to be checkpointed; last: it is the
 * run's last (or stops it). */
int rt_loop_checkpoint_due(const nodeox_rt_t *rt, long round, int last);

/* ------------------------------------------------------------ rt_checkpoint.c */
/* Write this rank's state for the round just completed (tmp + rename), wait
 * for every rank, then rank 0 records the round in DIR/latest. */
void rt_checkpoint_save(nodeox_rt_t *rt, nodeox_workload_t *w);
/* Load the last complete checkpoint if there is one: returns 1 when loaded,
 * 0 when none exists; exits with a message naming the file on a bad one. */
int rt_checkpoint_load(nodeox_rt_t *rt, nodeox_workload_t *w);

/* ------------------------------------------------------------ rt_model.c */
/* Model files (--save-model, --init-model): the global weights alone, with
 * the workload's name and size, for pretrain -> fine-tune -> evaluate.
 * Save: rank 0 writes rt->global (tmp + rename). Load: every rank reads the
 * file into w->params; exits NODEOX_RT_EXIT_CHECKPOINT naming the file when
 * it is missing, foreign, of another model shape, or corrupt. */
void rt_model_save(nodeox_rt_t *rt, nodeox_workload_t *w, const char *path);
void rt_model_load(nodeox_rt_t *rt, nodeox_workload_t *w, const char *path);

/* ------------------------------------------------------------ rt_eval.c */
/* Shares of n items for speeds s (n_i proportional to s_i, largest
 * remainders first, ties to the lower rank); first[i] = start of rank i. */
void rt_eval_shares(size_t n, int world, const double *speeds, size_t *count, size_t *first);

/* ------------------------------------------------------------ rt_speedrec.c */
/* Keep this worker's mean step time of an interval (ms) for the speed
 * record (runtime/rt_speedrec.h). */
void rt_speedrec_observe(nodeox_rt_t *rt, double step_ms);

/* ------------------------------------------------------------ rt_log.c */
void rt_log_round(const nodeox_rt_t *rt, const rt_worker_info_t *all, double acc);
void rt_log_warn(const nodeox_rt_t *rt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int rt_log_json(const nodeox_rt_t *rt, const nodeox_rt_result_t *res, const char *path);
int rt_log_eval_json(const nodeox_rt_t *rt, const nodeox_rt_eval_result_t *res, const size_t *count,
		     const double *seconds, const char *path);

#endif
