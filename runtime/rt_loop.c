/*
 * rt_loop.c: the one training loop of both modes.
 *
 * Training is a sequence of intervals ("rounds" in the log). Each interval
 * is planned first, and the plan is the only thing that differs between
 * the modes:
 *   rounds           tau_i local steps per worker (rt_rounds_plan, sized to
 *                    speed), gradients stay local; the interval ends with the
 *                    pseudo-gradients combined and the outer step
 *                    (rt_rounds_combine).
 *   sync, and the    the same number of steps everywhere (H, or what is left
 *   --sync-warmup    of the warm-up), gradients all-reduced every step so the
 *   of rounds        weights stay identical; the interval ends with the
 *                    workers' records exchanged (rt_sync_finish).
 * Everything else is shared: the step (train_batch, inner optimizer step at
 * the schedule's learning rate, emulated duration), the global step
 * counter, the end-of-interval bookkeeping (rt_engine_end_round), and the
 * --eval-ema average (rt_ema.c), fed after every all-reduced step and
 * after every combine, whichever the interval had.
 *
 * Learning rate: one global step counter t for all workers, advanced by
 * T = max_i tau_i per interval; worker i's k-th step uses lr(t + k T /
 * tau_i), so slow and fast workers sweep the same part of the schedule in
 * the same wall time (with equal tau, as in sync, that is lr(t + k)).
 */
#include "config.h"

#include <string.h>

#include "runtime/rt_internal.h"

typedef struct rt_plan {
    int tau[NODEOX_RT_MAX_WORKERS]; /* steps per worker */
    int T;                          /* global steps the interval advances */
    int allreduce;                  /* 1: gradients all-reduced every step */
} rt_plan_t;

static void _loop_plan(const nodeox_rt_t *rt, rt_plan_t *p)
{
    const nodeox_rt_config_t *c = &rt->cfg;
    int world = rt->env.world;
    long left = c->total_steps - rt->global_step;
    p->allreduce = c->mode == NODEOX_MODE_SYNC || rt->global_step < c->sync_warmup_steps;
    if (p->allreduce) {
        long n = c->mode == NODEOX_MODE_SYNC ? (left < c->local_steps ? left : c->local_steps)
                                             : c->sync_warmup_steps - rt->global_step;
        for (int i = 0; i < world; i++) p->tau[i] = (int)n;
    } else {
        nodeox_rt_config_t now = *c;
        now.local_steps = rt_rounds_h(c, rt->global_step);
        rt_rounds_plan(&now, world, rt->last_step_ms, left, p->tau);
    }
    p->T = 0;
    for (int i = 0; i < world; i++)
        if (p->tau[i] > p->T) p->T = p->tau[i];
}

/* This worker's tau steps; fills info (steps, samples, shard, loss, step_ms). */
static void _loop_steps(nodeox_rt_t *rt, nodeox_workload_t *w, const rt_plan_t *p,
                        rt_worker_info_t *info)
{
    int tau = p->tau[rt->env.rank];
    double loss_sum = 0, ms_sum = 0;
    for (int k = 0; k < tau; k++) {
        double lr = rt_rounds_lr(&rt->cfg, (double)rt->global_step + (double)k * p->T / tau);
        rt_emulate_step_begin(&rt->emu);
        loss_sum += w->train_batch(w);
        if (p->allreduce) {
            /* The measured (and emulated) time is this worker's compute;
             * the all-reduce is where it waits for the slowest. */
            rt->be->sync();
            ms_sum += rt_emulate_step_end(&rt->emu);
            rt_sync_reduce_grads(rt, w);
            rt_engine_inner_step(rt, w, lr);
            if (rt->ema.avg) /* the same weights everywhere after every step */
                rt_ema_update(&rt->ema, w->params, rt->sync_samples);
        } else {
            rt_engine_inner_step(rt, w, lr);
            rt->be->sync();
            ms_sum += rt_emulate_step_end(&rt->emu);
        }
    }
    info->steps = tau;
    info->samples = (double)tau * w->batch_size;
    info->shard = (double)w->shard_samples;
    info->loss = tau > 0 ? loss_sum / tau : 0;
    info->step_ms = tau > 0 ? ms_sum / tau : 0;
}

int rt_loop_run(nodeox_rt_t *rt, nodeox_workload_t *w)
{
    rt_worker_info_t mine, all[NODEOX_RT_MAX_WORKERS];
    rt_plan_t plan;
    while (rt->global_step < rt->cfg.total_steps) {
        rt_engine_inject(rt, rt->round + 1);
        double t0 = rt_clock_s();
        _loop_plan(rt, &plan);
        memset(&mine, 0, sizeof mine);
        _loop_steps(rt, w, &plan, &mine);
        if (plan.allreduce) rt_sync_finish(rt, w, &mine, all);
        else {
            rt_rounds_combine(rt, w, &mine, all);
            if (rt->ema.avg) { /* the weights agree once a round is combined */
                double samples = 0;
                for (int i = 0; i < rt->env.world; i++) samples += all[i].samples;
                rt_ema_update(&rt->ema, rt->global, samples);
            }
        }
        rt->global_step += plan.T;
        if (rt_engine_end_round(rt, w, all, rt_clock_s() - t0)) break;
    }
    return 0;
}
