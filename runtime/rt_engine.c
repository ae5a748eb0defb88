/*
 * rt_engine.c: the runtime's public entry points (nodeox_rt_init, _run,
 * _finalize) and what rounds and synchronous mode share: the inner
 * optimizer step, evaluation (on the --eval-ema average when asked,
 * rt_ema.c), and the end-of-round bookkeeping (counters, log line,
 * checkpoint, stopping at the target accuracy).
 *
 * Inner optimizer state at round boundaries: kept (DiLoCo keeps AdamW's
 * moments across rounds); --reset-inner-state zeroes it every round, and a
 * worker whose pseudo-gradient was dropped as non-finite always restarts it,
 * since the state that produced NaN would produce it again.
 */
#include "config.h"

#include <math.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/rt_internal.h"

static const char *_engine_getenv(const char *name)
{
    return getenv(name);
}

void rt_engine_die(const nodeox_rt_t *rt, int code, const char *msg)
{
    fprintf(stderr, "nodeox-run: rank %d: %s\n", rt ? rt->env.rank : -1, msg);
    fflush(stderr);
    exit(code);
}

nodeox_rt_t *nodeox_rt_init(int *argc, char ***argv, const nodeox_rt_config_t *cfg)
{
    char err[512];
    nodeox_rt_t *rt = calloc(1, sizeof *rt);
    if (rt == NULL) rt_engine_die(NULL, NODEOX_RT_EXIT_RESOURCES, "out of memory");
    rt->cfg = *cfg;
    if (rt_env_read(&rt->env, _engine_getenv, err, sizeof err) != 0)
        rt_engine_die(rt, NODEOX_RT_EXIT_USAGE, err);

    int provided = 0, rank = 0, world = 1;
    mpiCheck(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided));
    mpiCheck(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    mpiCheck(MPI_Comm_size(MPI_COMM_WORLD, &world));
    if (strcmp(rt->env.source, "none") != 0 && (rt->env.rank != rank || rt->env.world != world))
        fprintf(stderr, "nodeox-run: rank %d: %s environment says rank %d of %d; using MPI's\n",
                rank, rt->env.source, rt->env.rank, rt->env.world);
    if (strcmp(rt->env.source, "none") == 0) {
        /* No launcher variables: ranks sharing this node decide the device. */
        MPI_Comm node;
        mpiCheck(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
        mpiCheck(MPI_Comm_rank(node, &rt->env.local_rank));
        mpiCheck(MPI_Comm_free(&node));
    }
    rt->env.rank = rank;
    rt->env.world = world;
    if (world > NODEOX_RT_MAX_WORKERS) {
        snprintf(err, sizeof err, "%d ranks; at most %d are supported", world, NODEOX_RT_MAX_WORKERS);
        rt_engine_die(rt, NODEOX_RT_EXIT_USAGE, err);
    }
    if (cfg->n_emulate_speeds > 0 && cfg->n_emulate_speeds != world) {
        snprintf(err, sizeof err, "--emulate-speeds gives %d speeds for %d ranks",
                 cfg->n_emulate_speeds, world);
        rt_engine_die(rt, NODEOX_RT_EXIT_USAGE, err);
    }
    if (rt_fault_start(rank, cfg->fault_initial_s, cfg->fault_factor, cfg->fault_min_s) != 0)
        rt_engine_die(rt, NODEOX_RT_EXIT_RESOURCES, "cannot start the watchdog thread");
    /* CPU runs never touch the CUDA runtime, even in a CUDA build. */
    rt->device = strcmp(cfg->backend, "cuda") == 0 ? rt_env_pick_device(rt->env.local_rank) : -1;
    rt->be = backend_by_name(cfg->backend, rt->device, err, sizeof err);
    if (rt->be == NULL)
        rt_engine_die(rt, strcmp(cfg->backend, "cuda") == 0 ? NODEOX_RT_EXIT_DEVICE : NODEOX_RT_EXIT_USAGE, err);
    rt->comm = rt_comm_create(rank, world, rt->be);
    rt_emulate_init(&rt->emu, cfg->emulate_speeds, cfg->n_emulate_speeds, rank,
                    cfg->emulate_base_ms);
    rt->time_to_target_s = -1;
    rt->critical_to_target_s = -1;
    rt->last_metric = -1;
    return rt;
}

int nodeox_rt_rank(const nodeox_rt_t *rt) { return rt->env.rank; }
int nodeox_rt_world(const nodeox_rt_t *rt) { return rt->env.world; }
int nodeox_rt_local_rank(const nodeox_rt_t *rt) { return rt->env.local_rank; }
const nodeox_backend_t *nodeox_rt_backend(const nodeox_rt_t *rt) { return rt->be; }

static float *_engine_alloc(nodeox_rt_t *rt, size_t n)
{
    float *p = rt->be->alloc(n * sizeof(float));
    if (p == NULL) rt_engine_die(rt, NODEOX_RT_EXIT_RESOURCES, "out of backend memory for optimizer state");
    return p;
}

void rt_engine_inner_step(nodeox_rt_t *rt, nodeox_workload_t *w, double lr)
{
    const nodeox_rt_config_t *c = &rt->cfg;
    if (c->grad_clip > 0) { /* global-norm clipping, before the optimizer sees the gradient */
        double norm = sqrt(rt->be->sumsq(w->grads, rt->n));
        if (norm > c->grad_clip) rt->be->scale(w->grads, (float)(c->grad_clip / norm), rt->n);
    }
    if (c->inner == NODEOX_INNER_SGD) {
        rt->be->sgd_step(w->params, w->grads, rt->inner_m, rt->n, (float)lr, (float)c->momentum,
                         (float)c->weight_decay);
    } else {
        rt->adam_t++;
        rt->be->adamw_step(w->params, w->grads, rt->inner_m, rt->inner_v, w->decay_mask, rt->n, (float)lr,
                           (float)c->beta1, (float)c->beta2, (float)c->eps, (float)c->weight_decay,
                           rt->adam_t);
    }
}

void rt_engine_reset_inner(nodeox_rt_t *rt)
{
    rt->be->zero(rt->inner_m, rt->n * sizeof(float));
    if (rt->inner_v) rt->be->zero(rt->inner_v, rt->n * sizeof(float));
    rt->adam_t = 0;
}

int rt_engine_reached(const nodeox_rt_t *rt, double metric)
{
    const nodeox_rt_config_t *c = &rt->cfg;
    if (rt->metric_lower_is_better) return c->target_loss > 0 && metric <= c->target_loss;
    return c->target_acc > 0 && metric >= c->target_acc;
}

double rt_engine_evaluate(nodeox_rt_t *rt, nodeox_workload_t *w)
{
    double t0 = rt_clock_s();
    double acc = 0;
    /* One evaluation on rank 0 while the others sleep in the broadcast is
     * cheaper on shared cores than every rank repeating it. */
    rt_fault_relax(1);
    if (rt->env.rank == 0 && rt->ema.updates > 0) {
        /* --eval-ema: w->params equals rt->global whenever an interval has
         * ended, so the average can borrow w->params and global restore it. */
        rt->be->copy_d2d(w->params, rt->ema.avg, rt->n * sizeof(float));
        acc = w->evaluate(w);
        rt->be->copy_d2d(w->params, rt->global, rt->n * sizeof(float));
    } else if (rt->env.rank == 0) {
        acc = w->evaluate(w);
    }
    rt_comm_bcast(rt->comm, &acc, sizeof acc, 0, __FILE__, __LINE__);
    rt_fault_relax(0);
    /* Evaluation is part of what peers wait for: let the deadline cover it. */
    rt_fault_observe_round(rt_clock_s() - t0);
    return acc;
}

void rt_engine_inject(nodeox_rt_t *rt, long r)
{
    const nodeox_rt_config_t *c = &rt->cfg;
    if (rt->env.rank == c->inject_exit_rank && r == c->inject_exit_round) {
        fprintf(stderr, "nodeox-run: rank %d: --inject-exit: killing myself (SIGKILL) at round %ld\n",
                rt->env.rank, r);
        fflush(stderr);
        raise(SIGKILL);
        _exit(NODEOX_RT_EXIT_INJECTED);
    }
    if (rt->env.rank == c->inject_hang_rank && r == c->inject_hang_round) {
        fprintf(stderr, "nodeox-run: rank %d: --inject-hang: stopping at round %ld\n", rt->env.rank, r);
        fflush(stderr);
        for (;;) pause();
    }
}

int rt_engine_end_round(nodeox_rt_t *rt, nodeox_workload_t *w, const rt_worker_info_t *all,
                        double round_s)
{
    const nodeox_rt_config_t *c = &rt->cfg;
    for (int i = 0; i < rt->env.world; i++) {
        rt->steps_per_worker[i] += (long)all[i].steps;
        if (all[i].step_ms > 0) rt->last_step_ms[i] = all[i].step_ms;
    }
    rt->local_steps_total += (long)all[rt->env.rank].steps;
    rt->round++;
    rt->train_s += round_s;
    double slowest = 0;
    for (int i = 0; i < rt->env.world; i++)
        if (all[i].steps * all[i].step_ms > slowest) slowest = all[i].steps * all[i].step_ms;
    rt->critical_s += slowest / 1000.0;
    if (round_s > rt->longest_round_s) rt->longest_round_s = round_s;
    rt_fault_observe_round(round_s);

    double acc = -1;
    int last = rt->global_step >= c->total_steps;
    if (c->eval_every > 0 && (rt->round % c->eval_every == 0 || last)) {
        acc = rt_engine_evaluate(rt, w);
        rt->last_metric = acc;
        if (rt_engine_reached(rt, acc) && rt->time_to_target_s < 0) {
            rt->time_to_target_s = rt->train_s;
            rt->critical_to_target_s = rt->critical_s;
        }
    }
    rt_log_round(rt, all, acc);
    int stop = c->stop_at_target && rt->time_to_target_s >= 0;
    if (c->checkpoint_dir && c->checkpoint_every > 0 &&
        (rt->round % c->checkpoint_every == 0 || last || stop)) {
        rt_fault_relax(1);
        rt_checkpoint_save(rt, w);
        rt_fault_relax(0);
    }
    return stop;
}

int nodeox_rt_run(nodeox_rt_t *rt, nodeox_workload_t *w, nodeox_rt_result_t *res)
{
    const nodeox_rt_config_t *c = &rt->cfg;
    double t0 = rt_clock_s();
    if (w->be != rt->be) rt_engine_die(rt, NODEOX_RT_EXIT_USAGE, "workload lives on another backend");
    rt->n = w->nparams;
    rt->metric = w->metric ? w->metric : "accuracy";
    rt->metric_lower_is_better = w->metric_lower_is_better;
    if (c->init_model) rt_model_load(rt, w, c->init_model);
    rt->global = _engine_alloc(rt, rt->n);
    rt->outer_m = _engine_alloc(rt, rt->n);
    rt->delta = _engine_alloc(rt, rt->n);
    rt->inner_m = _engine_alloc(rt, rt->n);
    if (c->inner == NODEOX_INNER_ADAMW) rt->inner_v = _engine_alloc(rt, rt->n);
    rt->be->copy_d2d(rt->global, w->params, rt->n * sizeof(float));
    rt_batch_setup(rt, w);
    if (c->eval_ema > 0 && rt->env.rank == 0 &&
        rt_ema_init(&rt->ema, rt->be, rt->n, c->eval_ema, rt->sync_samples) != 0)
        rt_engine_die(rt, NODEOX_RT_EXIT_RESOURCES, "out of backend memory for the --eval-ema average");

    rt_fault_relax(1);
    int resumed = c->resume && c->checkpoint_dir && rt_checkpoint_load(rt, w);
    rt_fault_relax(0);
    if (resumed && rt->env.rank == 0)
        printf("nodeox-run: resumed from %s at round %ld, global step %ld\n", c->checkpoint_dir,
               rt->round, rt->global_step);

    rt_loop_run(rt, w);

    if (rt->last_metric < 0 || c->eval_every <= 0) rt->last_metric = rt_engine_evaluate(rt, w);
    if (c->save_model) rt_model_save(rt, w, c->save_model);
    double bytes = rt_comm_bytes(rt->comm), total = 0;
    double *all = calloc((size_t)rt->env.world, sizeof *all);
    if (all == NULL) rt_engine_die(rt, NODEOX_RT_EXIT_RESOURCES, "out of memory");
    rt_comm_allgather(rt->comm, &bytes, all, sizeof bytes, __FILE__, __LINE__);
    for (int i = 0; i < rt->env.world; i++) total += all[i];
    free(all);

    float *host = malloc(rt->n * sizeof(float));
    if (host == NULL) rt_engine_die(rt, NODEOX_RT_EXIT_RESOURCES, "out of memory");
    rt->be->copy_d2h(host, rt->global, rt->n * sizeof(float));
    memset(res, 0, sizeof *res);
    res->params_fnv = rt_checkpoint_fnv(0, host, rt->n * sizeof(float));
    free(host);
    res->metric = rt->last_metric;
    res->test_accuracy = rt->metric_lower_is_better ? -1 : rt->last_metric;
    res->val_loss = rt->metric_lower_is_better ? rt->last_metric : -1;
    res->train_s = rt->train_s;
    res->wall_s = rt_clock_s() - t0;
    res->time_to_target_s = rt->time_to_target_s;
    res->critical_s = rt->critical_s;
    res->critical_to_target_s = rt->critical_to_target_s;
    res->rounds = rt->round;
    res->global_steps = rt->global_step;
    res->dropped = rt->dropped;
    res->bytes_communicated = total;
    if (rt->emu.overruns > 0)
        fprintf(stderr, "nodeox-run: rank %d: %d steps took longer than the emulated %.1f ms\n",
                rt->env.rank, rt->emu.overruns, rt->emu.step_ms);
    if (rt->env.rank == 0 && c->json_path && rt_log_json(rt, res, c->json_path) != 0) {
        char msg[4200];
        snprintf(msg, sizeof msg, "cannot write the --json file %s", c->json_path);
        rt_engine_die(rt, NODEOX_RT_EXIT_OUTPUT, msg);
    }
    return 0;
}

void nodeox_rt_finalize(nodeox_rt_t *rt)
{
    if (rt == NULL) return;
    rt_comm_barrier(rt->comm, __FILE__, __LINE__);
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
    MPI_Finalize();
    free(rt);
}
