/*
 * rt_sync.c: what synchronous data parallel (the baseline, and the
 * --sync-warmup of rounds) adds to the shared loop of rt_loop.c.
 *
 * Every step each worker computes the gradient of its own batch, the
 * gradients are averaged with one all-reduce, and every worker applies the
 * same inner optimizer step, so the weights stay identical everywhere. Each
 * step therefore runs at the pace of the slowest worker. Data, model,
 * optimizer kernels, LR schedule, logging and checkpoints are those of the
 * rounds mode; H steps form one logged interval ("round").
 */
#include "config.h"

#include "runtime/rt_internal.h"

void rt_sync_reduce_grads(nodeox_rt_t *rt, nodeox_workload_t *w)
{
	/* 1 / world, or this worker's share of the step's samples (rt_batch.c) */
	rt->be->scale(w->grads, (float)rt->grad_share, rt->n);
	rt_comm_allreduce_sum(rt->comm, w->grads, rt->n, __FILE__, __LINE__);
}

void rt_sync_finish(nodeox_rt_t *rt, nodeox_workload_t *w, rt_worker_info_t *mine, rt_worker_info_t *all)
{
	mine->finite = rt->be->count_nonfinite(w->params, rt->n) == 0;
	mine->op = RT_OP_ROUND_END;
	rt_comm_allgather(rt->comm, mine, all, sizeof *mine, __FILE__, __LINE__);
	rt_agree_check(rt, all, RT_OP_ROUND_END);
	rt->be->copy_d2d(rt->global, w->params, rt->n * sizeof(float));
}
