/*
 * rt_sync.c: plain synchronous data parallel, the baseline.
 *
 * Every step each worker computes the gradient of its own batch, the
 * gradients are averaged with one all-reduce, and every worker applies the
 * same inner optimizer step, so the weights stay identical everywhere. Each
 * step therefore runs at the pace of the slowest worker. It shares data,
 * model, optimizer kernels, LR schedule, logging and checkpoints with the
 * rounds mode: only the communication pattern differs. For logging and
 * checkpoints, H steps form one "round" (interval).
 */
#include "config.h"

#include <string.h>

#include "runtime/rt_internal.h"

void rt_sync_steps(nodeox_rt_t *rt, nodeox_workload_t *w, long nsteps, rt_worker_info_t *info)
{
    double loss_sum = 0, ms_sum = 0;
    float inv_world = 1.0f / (float)rt->env.world;
    for (long k = 0; k < nsteps; k++) {
        rt_emulate_step_begin(&rt->emu);
        loss_sum += w->train_batch(w);
        rt->be->sync();
        /* The measured (and emulated) time is this worker's compute; the
         * all-reduce below is where it waits for the slowest. */
        ms_sum += rt_emulate_step_end(&rt->emu);
        rt->be->scale(w->grads, inv_world, rt->n);
        rt_comm_allreduce_sum(rt->comm, w->grads, rt->n, __FILE__, __LINE__);
        rt_engine_inner_step(rt, w, rt_rounds_lr(&rt->cfg, (double)rt->global_step));
        rt->global_step++;
    }
    info->steps = (double)nsteps;
    info->samples = (double)nsteps * w->batch_size;
    info->shard = (double)w->shard_samples;
    info->loss = nsteps > 0 ? loss_sum / nsteps : 0;
    info->step_ms = nsteps > 0 ? ms_sum / nsteps : 0;
}

int rt_sync_run(nodeox_rt_t *rt, nodeox_workload_t *w)
{
    const nodeox_rt_config_t *cfg = &rt->cfg;
    rt_worker_info_t mine, all[NODEOX_RT_MAX_WORKERS];
    while (rt->global_step < cfg->total_steps) {
        rt_engine_inject(rt, rt->round + 1);
        double t0 = rt_clock_s();
        long left = cfg->total_steps - rt->global_step;
        memset(&mine, 0, sizeof mine);
        rt_sync_steps(rt, w, left < cfg->local_steps ? left : cfg->local_steps, &mine);
        mine.finite = rt->be->count_nonfinite(w->params, rt->n) == 0;
        rt_comm_allgather(rt->comm, &mine, all, sizeof mine, __FILE__, __LINE__);
        rt->be->copy_d2d(rt->global, w->params, rt->n * sizeof(float));
        if (rt_engine_end_round(rt, w, all, rt_clock_s() - t0)) break;
    }
    return 0;
}
