/*
 * rt_engine.c: the runtime's public entry points: nodeox_rt_init, _run,
 * _evaluate (rt_eval.c), _finalize for nodeox-run, and the step API
 * (nodeox_rt_start, nodeox_rt_step_*, nodeox_rt_result) through which a
 * model driven from outside -- nodeox.torch's PyTorch models -- runs the
 * same step machine (rt_loop.c) with its own forward, backward and inner
 * optimizer. Calls run one way: this file, then rt_loop.c, then rt_rounds.c
 * or rt_sync.c, then the layers below (rt_comm, rt_combine, rt_checkpoint,
 * rt_util ...).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt_internal.h"

static const char *_engine_getenv(const char *name)
{
	return getenv(name);
}

/* The launcher's environment against MPI's world. Several processes that
 * each find themselves in a world of one (torchrun's RANK/WORLD_SIZE, srun
 * without --mpi=pmix, an MPI other than the launcher's) would train alone,
 * N times, and all exit 0: stop. (A batch script's SLURM_NTASKS with no
 * step of its own is one process in a larger allocation: only a warning.) */
static void _engine_check_world(nodeox_rt_t *rt, int rank, int world)
{
	const rt_env_t *e = &rt->env;
	const char *step_tasks = getenv("SLURM_STEP_NUM_TASKS");
	int slurm_step = step_tasks != NULL && atoi(step_tasks) > 1;
	char err[700];
	if (strcmp(e->source, "none") == 0 || (e->rank == rank && e->world == world))
		return;
	if (world == 1 && e->world > 1 && (strcmp(e->source, "slurm") != 0 || slurm_step)) {
		char how[200];
		/* nodeox.torch takes torch.distributed when torchrun's variables are all set */
		if (rt->cfg.api != NULL)
			snprintf(how, sizeof how, "torchrun, which also sets MASTER_ADDR and MASTER_PORT");
		else
			snprintf(how, sizeof how, "torchrun: run the script under mpirun -np %d instead",
				 e->world);
		snprintf(err, sizeof err,
			 "the %s environment says rank %d of %d, but MPI sees a world of one: each of the %d "
			 "processes would train alone. Start the job with mpirun or srun --mpi=pmix (for "
			 "%s)%s",
			 e->source, e->rank, e->world, e->world, how,
			 strcmp(e->source, "slurm") == 0 ? "; srun needs an MPI plugin (srun --mpi=list)"
							 : "");
		rt_util_die(rt, NODEOX_RT_EXIT_USAGE, err);
	}
	rt_util_say(rank, "%s environment says rank %d of %d; using MPI's", e->source, e->rank, e->world);
}

/* MPI sees a world of one while torchrun's RANK/WORLD_SIZE say more, and
 * the caller brought collectives (nodeox.torch: torch.distributed): join
 * their group instead of stopping. */
static void _engine_start_ops(nodeox_rt_t *rt, int *rank, int *world)
{
	const nodeox_rt_config_t *cfg = &rt->cfg;
	char err[700], msg[900];
	if (rt_comm_use_ops(cfg->comm_ops, strcmp(cfg->backend, "cuda") == 0, rank, world, err, sizeof err) !=
	    0) {
		snprintf(msg, sizeof msg, "%s did not start (torchrun's rank %d of %d): %s",
			 cfg->comm_ops->name, rt->env.rank, rt->env.world, err);
		rt_util_die(rt, NODEOX_RT_EXIT_COMM, msg);
	}
	if (*rank != rt->env.rank || *world != rt->env.world) {
		snprintf(msg, sizeof msg, "%s says rank %d of %d, torchrun's RANK/WORLD_SIZE %d of %d",
			 cfg->comm_ops->name, *rank, *world, rt->env.rank, rt->env.world);
		rt_util_die(rt, NODEOX_RT_EXIT_COMM, msg);
	}
}

nodeox_rt_t *nodeox_rt_init(int *argc, char ***argv, const nodeox_rt_config_t *cfg)
{
	char err[512];
	rt_util_set_name(cfg->api); /* every message of this process names it */
	nodeox_rt_t *rt = calloc(1, sizeof *rt);
	if (rt == NULL)
		rt_util_die(NULL, NODEOX_RT_EXIT_RESOURCES, "out of memory");
	rt->cfg = *cfg;
	if (rt_env_read(&rt->env, _engine_getenv, err, sizeof err) != 0)
		rt_util_die(rt, NODEOX_RT_EXIT_USAGE, err);

	int rank = 0, world = 1;
	rt_comm_mpi_start(argc, argv, &rank, &world);
	if (cfg->comm_ops != NULL && world == 1 && rt->env.world > 1 &&
	    strcmp(rt->env.source, "torchrun") == 0)
		_engine_start_ops(rt, &rank, &world);
	else
		_engine_check_world(rt, rank, world);
	/* no launcher variables: ranks sharing this node decide the device */
	if (strcmp(rt->env.source, "none") == 0)
		rt->env.local_rank = rt_comm_mpi_node_rank(rank);
	rt->env.rank = rank;
	rt->env.world = world;
	if (world > NODEOX_RT_MAX_WORKERS) {
		snprintf(err, sizeof err, "%d ranks; at most %d are supported", world, NODEOX_RT_MAX_WORKERS);
		rt_util_die(rt, NODEOX_RT_EXIT_USAGE, err);
	}
	if (cfg->n_emulate_speeds > 0 && cfg->n_emulate_speeds != world) {
		snprintf(err, sizeof err, "%s gives %d speeds for %d ranks",
			 cfg->api ? "init(emulate_speeds=...)" : "--emulate-speeds", cfg->n_emulate_speeds,
			 world);
		rt_util_die(rt, NODEOX_RT_EXIT_USAGE, err);
	}
	if (rt_fault_start(rank, cfg->fault_initial_s, cfg->fault_factor, cfg->fault_min_s) != 0)
		rt_util_die(rt, NODEOX_RT_EXIT_RESOURCES, "cannot start the watchdog thread");
	/* CPU runs never touch the CUDA runtime, even in a CUDA build. */
	rt->device = strcmp(cfg->backend, "cuda") == 0 ? rt_env_pick_device(rt->env.local_rank) : -1;
	rt->be = backend_by_name(cfg->backend, rt->device, err, sizeof err);
	if (rt->be == NULL)
		rt_util_die(rt,
			    strcmp(cfg->backend, "cuda") == 0 ? NODEOX_RT_EXIT_DEVICE : NODEOX_RT_EXIT_USAGE,
			    err);
	rt->comm = rt_comm_create(rank, world, rt->be);
	rt_emulate_init(&rt->emu, cfg->emulate_speeds, cfg->n_emulate_speeds, rank, cfg->emulate_base_ms);
	rt->time_to_target_s = -1;
	rt->critical_to_target_s = -1;
	rt->last_metric = -1;
	return rt;
}

int nodeox_rt_rank(const nodeox_rt_t *rt)
{
	return rt->env.rank;
}
int nodeox_rt_world(const nodeox_rt_t *rt)
{
	return rt->env.world;
}
int nodeox_rt_local_rank(const nodeox_rt_t *rt)
{
	return rt->env.local_rank;
}
const char *nodeox_rt_comm_name(const nodeox_rt_t *rt)
{
	(void)rt;
	return rt_comm_name();
}
void nodeox_rt_abort(int code)
{
	rt_comm_abort(code);
}
const nodeox_backend_t *nodeox_rt_backend(const nodeox_rt_t *rt)
{
	return rt->be;
}
nodeox_rt_config_t *nodeox_rt_config(nodeox_rt_t *rt)
{
	return &rt->cfg;
}

static float *_engine_alloc(nodeox_rt_t *rt, size_t n)
{
	float *p = rt->be->alloc(n * sizeof(float));
	if (p == NULL)
		rt_util_die(rt, NODEOX_RT_EXIT_RESOURCES, "out of backend memory for optimizer state");
	return p;
}

int nodeox_rt_start(nodeox_rt_t *rt, nodeox_workload_t *w, int broadcast)
{
	const nodeox_rt_config_t *c = &rt->cfg;
	if (rt->started)
		rt_util_die(rt, NODEOX_RT_EXIT_USAGE, "nodeox_rt_start called twice");
	if (w->be != rt->be)
		rt_util_die(rt, NODEOX_RT_EXIT_USAGE, "workload lives on another backend");
	rt->n = w->nparams;
	rt->metric = w->metric ? w->metric : "accuracy";
	rt->metric_lower_is_better = w->metric_lower_is_better;
	if (c->init_model)
		rt_model_load(rt, w, c->init_model);
	if (broadcast) { /* rank 0's weights everywhere: others add zeros to them */
		if (rt->env.rank != 0)
			rt->be->zero(w->params, rt->n * sizeof(float));
		rt_comm_allreduce_sum(rt->comm, w->params, rt->n, __FILE__, __LINE__);
	}
	rt->global = _engine_alloc(rt, rt->n);
	rt->outer_m = _engine_alloc(rt, rt->n);
	rt->delta = _engine_alloc(rt, rt->n);
	rt->inner_m = _engine_alloc(rt, rt->n);
	if (c->inner == NODEOX_INNER_ADAMW)
		rt->inner_v = _engine_alloc(rt, rt->n);
	rt->be->copy_d2d(rt->global, w->params, rt->n * sizeof(float));
	rt_batch_setup(rt, w);
	if (c->eval_ema > 0 && rt->env.rank == 0 &&
	    rt_ema_init(&rt->ema, rt->be, rt->n, c->eval_ema, rt->sync_samples) != 0)
		rt_util_die(rt, NODEOX_RT_EXIT_RESOURCES, "out of backend memory for the --eval-ema average");
	rt->started = 1;
	rt->last_finite = 1;

	rt_fault_relax(1);
	int resumed = c->resume && c->checkpoint_dir && rt_checkpoint_load(rt, w);
	rt_fault_relax(0);
	if (resumed && rt->env.rank == 0)
		printf("%s: resumed from %s at round %ld, global step %ld\n", rt_util_name(), c->checkpoint_dir,
		       rt->round, rt->global_step);
	if (rt->global_step < c->total_steps)
		rt_loop_open(rt); /* the first step's clock starts */
	return resumed;
}

static void _engine_need_open(const nodeox_rt_t *rt, const char *what)
{
	if (!rt->started || !rt->iv.open) {
		char msg[200];
		snprintf(msg, sizeof msg, "%s: no round in progress (%s)", what,
			 !rt->started ? "nodeox_rt_start not called"
				      : "training is over: total steps reached");
		rt_util_die(rt, NODEOX_RT_EXIT_USAGE, msg);
	}
}

double nodeox_rt_step_lr(const nodeox_rt_t *rt)
{
	if (!rt->iv.open)
		return rt_rounds_lr(&rt->cfg, (double)rt->global_step);
	return rt_loop_lr(rt);
}

void nodeox_rt_step_grads(nodeox_rt_t *rt, nodeox_workload_t *w)
{
	_engine_need_open(rt, "nodeox_rt_step_grads");
	rt_loop_grads(rt, w);
}

int nodeox_rt_step_end(nodeox_rt_t *rt, nodeox_workload_t *w, double loss)
{
	_engine_need_open(rt, "nodeox_rt_step_end");
	return rt_loop_end(rt, w, loss);
}

void nodeox_rt_pause(nodeox_rt_t *rt, int on)
{
	rt_fault_relax(on);
	if (!on)
		rt_emulate_step_begin(&rt->emu); /* the paused time is no step's */
}

void nodeox_rt_progress(const nodeox_rt_t *rt, nodeox_rt_progress_t *p)
{
	const rt_interval_t *iv = &rt->iv;
	memset(p, 0, sizeof *p);
	p->round = rt->round;
	p->global_step = rt->global_step;
	p->local_steps = rt->local_steps_total;
	p->in_round = iv->open;
	p->step_in_round = iv->k;
	p->round_steps = iv->open ? iv->tau[rt->env.rank] : 0;
	p->allreduce = iv->open && iv->allreduce;
	p->lr = nodeox_rt_step_lr(rt);
	p->critical_s = rt->critical_s;
	p->train_s = rt->train_s;
	p->dropped = rt->dropped;
	p->last_finite = rt->last_finite;
	p->overruns = rt->emu.overruns;
	/* the step in progress closes its interval: is that round checkpointed? */
	p->checkpoint_at_round_end =
		iv->open && iv->k + 1 >= iv->tau[rt->env.rank] &&
		rt_loop_checkpoint_due(rt, rt->round + 1, rt->global_step + iv->T >= rt->cfg.total_steps);
	p->steps_per_worker = rt->steps_per_worker;
}

double nodeox_rt_speed(const nodeox_rt_t *rt, int rank)
{
	if (rank < 0 || rank >= rt->env.world || rt->cfg.n_emulate_speeds <= 0)
		return 0;
	return rt->cfg.emulate_speeds[rank];
}

void nodeox_rt_share(const nodeox_rt_t *rt, size_t n, size_t *first, size_t *count)
{
	double speeds[NODEOX_RT_MAX_WORKERS];
	size_t cnt[NODEOX_RT_MAX_WORKERS], fst[NODEOX_RT_MAX_WORKERS];
	int world = rt->env.world, measured = 1;
	for (int i = 0; i < world; i++) { /* known speeds, else measured ones, else equal */
		speeds[i] = nodeox_rt_speed(rt, i);
		if (!(speeds[i] > 0))
			measured = 0;
	}
	for (int i = 0; i < world && !measured; i++)
		speeds[i] = rt->last_step_ms[i] > 0 ? 1.0 / rt->last_step_ms[i] : 1.0;
	rt_eval_shares(n, world, speeds, cnt, fst);
	*first = fst[rt->env.rank];
	*count = cnt[rt->env.rank];
}

void nodeox_rt_allreduce_host(nodeox_rt_t *rt, double *buf, size_t n)
{
	rt_agree(rt, RT_OP_ALLREDUCE);
	rt_comm_allreduce_host_double(rt->comm, buf, n, __FILE__, __LINE__);
}

void nodeox_rt_bcast_host(nodeox_rt_t *rt, void *buf, size_t bytes)
{
	rt_agree(rt, RT_OP_BCAST);
	/* MPI counts are int: in chunks */
	const size_t chunk = (size_t)1 << 30;
	for (size_t off = 0; off < bytes; off += chunk)
		rt_comm_bcast(rt->comm, (char *)buf + off, bytes - off < chunk ? bytes - off : chunk, 0,
			      __FILE__, __LINE__);
}

void nodeox_rt_result(nodeox_rt_t *rt, nodeox_rt_result_t *res)
{
	rt_agree(rt, RT_OP_RESULT);
	double bytes = rt_comm_bytes(rt->comm), total = 0;
	double *all = calloc((size_t)rt->env.world, sizeof *all);
	if (all == NULL)
		rt_util_die(rt, NODEOX_RT_EXIT_RESOURCES, "out of memory");
	rt_comm_allgather(rt->comm, &bytes, all, sizeof bytes, __FILE__, __LINE__);
	for (int i = 0; i < rt->env.world; i++)
		total += all[i];
	free(all);

	float *host = malloc(rt->n * sizeof(float));
	if (host == NULL)
		rt_util_die(rt, NODEOX_RT_EXIT_RESOURCES, "out of memory");
	rt->be->copy_d2h(host, rt->global, rt->n * sizeof(float));
	memset(res, 0, sizeof *res);
	res->params_fnv = rt_util_fnv(0, host, rt->n * sizeof(float));
	free(host);
	res->metric = rt->last_metric;
	res->test_accuracy = rt->metric_lower_is_better ? -1 : rt->last_metric;
	res->val_loss = rt->metric_lower_is_better ? rt->last_metric : -1;
	res->train_s = rt->train_s;
	res->time_to_target_s = rt->time_to_target_s;
	res->critical_s = rt->critical_s;
	res->critical_to_target_s = rt->critical_to_target_s;
	res->rounds = rt->round;
	res->global_steps = rt->global_step;
	res->dropped = rt->dropped;
	res->bytes_communicated = total;
}

int nodeox_rt_run(nodeox_rt_t *rt, nodeox_workload_t *w, nodeox_rt_result_t *res)
{
	const nodeox_rt_config_t *c = &rt->cfg;
	double t0 = rt_util_clock_s();
	nodeox_rt_start(rt, w, 0);
	rt_loop_run(rt, w);

	if (rt->last_metric < 0 || c->eval_every <= 0)
		rt->last_metric = rt_loop_evaluate(rt, w);
	if (c->save_model)
		rt_model_save(rt, w, c->save_model);
	nodeox_rt_result(rt, res);
	res->wall_s = rt_util_clock_s() - t0;
	if (rt->emu.overruns > 0)
		rt_util_say(rt->env.rank, "%d steps took longer than the emulated %.1f ms", rt->emu.overruns,
			    rt->emu.step_ms);
	if (rt->env.rank == 0 && c->json_path && rt_log_json(rt, res, c->json_path) != 0) {
		char msg[4200];
		snprintf(msg, sizeof msg, "cannot write the --json file %s", c->json_path);
		rt_util_die(rt, NODEOX_RT_EXIT_OUTPUT, msg);
	}
	return 0;
}

void nodeox_rt_finalize(nodeox_rt_t *rt)
{
	if (rt == NULL)
		return;
	rt_agree(rt, RT_OP_FINALIZE); /* also the barrier: every rank is here */
	rt_fault_stop();
	if (rt->be) {
		rt->be->free(rt->global);
		rt->be->free(rt->outer_m);
		rt->be->free(rt->delta);
		rt->be->free(rt->inner_m);
		rt->be->free(rt->inner_v);
		rt_ema_free(&rt->ema);
	}
	rt_comm_destroy(rt->comm);
	rt_comm_finish();
	free(rt);
}
