/*
 * rt_rounds.c: what heterogeneous rounds (local SGD with speed-sized
 * rounds) add to the shared loop of rt_loop.c: the round plan, the
 * learning-rate schedule, and the combine + outer step that ends a round.
 *
 * A round: every worker starts from the global weights theta, takes tau_i
 * local steps with its inner optimizer, and reports Delta_i = theta -
 * theta_i; the combined Delta (rt_combine.c) feeds the outer Nesterov step
 * on theta, and every worker restarts from the new theta.
 *
 * Sizing (re-planned every round from the step times measured in the round
 * before, so drifting speeds are followed; all ranks plan from the same
 * all-gathered numbers and so agree without a message):
 *   speed  tau_i = max(1, ceil(H * s_i / max_j s_j)),  s_i = 1 / step_ms_i
 *   time   tau_i = max(1, floor(round_ms / step_ms_i))
 *   fixed  tau_i = H
 * The first round, before anything is measured, is H steps everywhere
 * (unless a synchronous warm-up measured the speeds). With --h-ramp N the
 * H of a round starting at global step t < N is 2 + (H - 2) t / N
 * (rt_rounds_h): short rounds first.
 *
 * Learning rate: warm-up then cosine over the global step counter (the
 * loop in rt_loop.c says which t each step uses).
 *
 * Inner state (--inner-state): kept per worker (default), zeroed, or
 * averaged over the workers at every round end with the combine's weights
 * normalized to sum 1 (_rounds_average_inner), so every worker starts the
 * next round with the same momentum as well as the same weights.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/rt_internal.h"

double rt_rounds_lr(const nodeox_rt_config_t *cfg, double t)
{
	if (cfg->warmup_steps > 0 && t < (double)cfg->warmup_steps)
		return cfg->lr * (t + 1) / (double)cfg->warmup_steps;
	double span = (double)(cfg->total_steps - cfg->warmup_steps);
	double progress = span > 0 ? (t - (double)cfg->warmup_steps) / span : 1.0;
	if (progress > 1)
		progress = 1;
	if (progress < 0)
		progress = 0;
	double lo = cfg->lr * cfg->lr_min_ratio;
	return lo + (cfg->lr - lo) * 0.5 * (1 + cos(M_PI * progress));
}

int rt_rounds_h(const nodeox_rt_config_t *cfg, long t)
{
	int H = cfg->local_steps;
	if (cfg->h_ramp_steps <= 0 || t >= cfg->h_ramp_steps || H <= 2)
		return H;
	return 2 + (int)((double)(H - 2) * (double)t / (double)cfg->h_ramp_steps);
}

void rt_rounds_plan(const nodeox_rt_config_t *cfg, int world, const double *step_ms, long cap, int *tau)
{
	double fastest = 0; /* smallest step time */
	int known = 1;
	for (int i = 0; i < world; i++) {
		if (!(step_ms[i] > 0))
			known = 0;
		else if (fastest == 0 || step_ms[i] < fastest)
			fastest = step_ms[i];
	}
	for (int i = 0; i < world; i++) {
		double t;
		if (!known || cfg->plan == NODEOX_PLAN_FIXED)
			t = cfg->local_steps;
		else if (cfg->plan == NODEOX_PLAN_TIME)
			t = floor(cfg->round_ms / step_ms[i]);
		else /* s_i / max s = fastest / step_ms_i; a quarter step of slack
              * absorbs timing noise, so a ratio measured as 0.502 still
              * gives H/2 and not H/2 + 1 (and emulated runs repeat exactly) */
			t = ceil((double)cfg->local_steps * fastest / step_ms[i] - 0.25);
		if (t < 1)
			t = 1;
		if (t > (double)cap)
			t = (double)cap;
		if (t > 1e9)
			t = 1e9;
		tau[i] = (int)t;
	}
}

/* Replace each worker's inner state (SGD momentum; AdamW's two moments) by
 * sum_i u_i state_i, u_i = w_i / sum_j w_j over the kept workers: one more
 * all-reduce of the state per round. A dropped worker (w_i = 0) contributes
 * zeros and receives the average, which replaces its poisoned state. */
static void _rounds_average_inner(nodeox_rt_t *rt, int finite, const double *wts)
{
	const nodeox_backend_t *be = rt->be;
	double sum = 0;
	for (int i = 0; i < rt->env.world; i++)
		sum += wts[i];
	if (!(sum > 0))
		return;
	float *state[2] = { rt->inner_m, rt->inner_v };
	for (int s = 0; s < 2 && state[s]; s++) {
		if (finite)
			be->scale(state[s], (float)(wts[rt->env.rank] / sum), rt->n);
		else
			be->zero(state[s], rt->n * sizeof(float));
		rt_comm_allreduce_sum(rt->comm, state[s], rt->n, __FILE__, __LINE__);
	}
}

/* Delta = theta - theta_i, weighted, summed over workers; outer step. */
void rt_rounds_combine(nodeox_rt_t *rt, nodeox_workload_t *w, rt_worker_info_t *mine, rt_worker_info_t *all)
{
	const nodeox_backend_t *be = rt->be;
	int world = rt->env.world, rank = rt->env.rank;
	be->delta(rt->delta, rt->global, w->params, rt->n);
	if (rank == rt->cfg.inject_nan_rank && rt->round + 1 == rt->cfg.inject_nan_round) {
		float nan = NAN;
		be->copy_h2d(rt->delta, &nan, sizeof nan);
	}
	mine->finite = be->count_nonfinite(rt->delta, rt->n) == 0;
	mine->op = RT_OP_ROUND_END;
	rt_comm_allgather(rt->comm, mine, all, sizeof *mine, __FILE__, __LINE__);
	rt_agree_check(rt, all, RT_OP_ROUND_END);

	double wts[NODEOX_RT_MAX_WORKERS];
	/* FedNova's momentum-corrected a_i assumes the momentum buffer starts
     * each round at zero. With inner state kept across rounds (default) the
     * buffer is already warm, every step moves ~1/(1-rho) of a gradient and
     * a_i is proportional to tau_i: plain a_i = tau_i is the right ratio. */
	double rho = rt->cfg.inner == NODEOX_INNER_SGD && rt->cfg.reset_inner_state ? rt->cfg.momentum : 0;
	int kept = rt_combine_weights(rt->cfg.combine, world, all, rho, wts);
	for (int i = 0; i < world; i++)
		if (!all[i].finite) {
			rt->dropped++;
			if (rank == 0 || rank == i) /* once, and on the worker concerned */
				rt_log_warn(rt,
					    "round %ld: worker %d's pseudo-gradient is not finite; dropped "
					    "from this round's combine (%d of %d kept)",
					    rt->round + 1, i, kept, world);
		}
	/* A dropped worker contributes zeros (0 * NaN would still be NaN). */
	if (mine->finite)
		be->scale(rt->delta, (float)wts[rank], rt->n);
	else
		be->zero(rt->delta, rt->n * sizeof(float));
	rt_comm_allreduce_sum(rt->comm, rt->delta, rt->n, __FILE__, __LINE__);
	if (kept > 0)
		be->nesterov_step(rt->global, rt->delta, rt->outer_m, rt->n, (float)rt->cfg.outer_lr,
				  (float)rt->cfg.outer_momentum);
	be->copy_d2d(w->params, rt->global, rt->n * sizeof(float));
	if (rt->cfg.average_inner_state && kept > 0) {
		_rounds_average_inner(rt, mine->finite != 0, wts);
		return;
	}
	/* Inner state that produced a non-finite update is poisoned: restart it. */
	if (!mine->finite || rt->cfg.reset_inner_state)
		rt_inner_reset(rt);
}
