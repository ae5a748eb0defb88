/*
 * rt_batch.c: speed-sized batches (--batch-by-speed).
 *
 * Instead of giving slow workers fewer steps per round, every worker takes
 * the same steps and each step's batch is sized to the worker's speed:
 * b_i = max(1, round(B s_i / max_j s_j)), B the batch given (--batch, or
 * the workload's default), s_i the speeds known before training
 * (--emulate-speeds, or the GPU speeds of the Slurm allocation). A step's
 * time then follows its batch: under emulation rank i's step takes
 * base_ms (b_i / B) / s_i, so at speeds 1,1,0.5,0.5 and B 64 the slow ranks
 * take batches of 32 in the fast ranks' time and every worker's round (and
 * synchronous step) ends together. Synchronous steps weight each worker's
 * mean gradient by its share of the step's samples, b_i / sum_j b_j, so the
 * all-reduce gives the mean gradient over all the step's samples; rounds
 * weight pseudo-gradients as --combine says (samples: b_i / sum_j b_j).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "runtime/rt_internal.h"

int nodeox_rt_batch(const nodeox_rt_t *rt, int batch)
{
	const nodeox_rt_config_t *c = &rt->cfg;
	if (!c->batch_by_speed || c->mode == NODEOX_MODE_EVALUATE)
		return batch;
	if (c->n_emulate_speeds != rt->env.world)
		rt_util_die(rt, NODEOX_RT_EXIT_USAGE,
			    "--batch-by-speed needs every rank's speed before training: give "
			    "--emulate-speeds, or run in a Slurm allocation whose GPU types have speeds");
	double fastest = 0;
	for (int i = 0; i < c->n_emulate_speeds; i++)
		if (c->emulate_speeds[i] > fastest)
			fastest = c->emulate_speeds[i];
	long b = lround((double)batch * c->emulate_speeds[rt->env.rank] / fastest);
	return b < 1 ? 1 : (int)b;
}

void rt_batch_setup(nodeox_rt_t *rt, const nodeox_workload_t *w)
{
	int world = rt->env.world;
	double mine = w->batch_size, largest = 0, sum = 0;
	if (rt->cfg.batch_by_speed)
		rt_comm_allgather(rt->comm, &mine, rt->batches, sizeof mine, __FILE__, __LINE__);
	else /* the same batch everywhere: nothing to exchange */
		for (int i = 0; i < world; i++)
			rt->batches[i] = mine;
	for (int i = 0; i < world; i++) {
		sum += rt->batches[i];
		if (rt->batches[i] > largest)
			largest = rt->batches[i];
	}
	rt->sync_samples = sum;
	rt->grad_share = rt->cfg.batch_by_speed ? mine / sum : 1.0 / world;
	if (rt->cfg.batch_by_speed && rt->emu.step_ms > 0)
		rt->emu.step_ms *= mine / largest;
}
