/*
 * rt_loop.c: the one training loop of both modes, as a step machine that
 * nodeox-run's loop (rt_loop_run) and a model driven from outside
 * (nodeox.torch, through nodeox_rt_step_* in rt_engine.c) both run, so the
 * two give the same rounds on the same model and data.
 *
 * Training is a sequence of intervals ("rounds" in the log). Each interval
 * is planned when it opens, and the plan is the only thing that differs
 * between the modes:
 *   rounds           tau_i local steps per worker (rt_rounds_plan, sized to
 *                    speed), gradients stay local; the interval ends with the
 *                    pseudo-gradients combined and the outer step
 *                    (rt_rounds_combine).
 *   sync, and the    the same number of steps everywhere (H, or what is left
 *   --sync-warmup    of the warm-up), gradients all-reduced every step so the
 *   of rounds        weights stay identical; the interval ends with the
 *                    workers' records exchanged (rt_sync_finish).
 * One step, whoever drives it:
 *   (clock started)  forward and backward: w->grads of this worker's batch
 *   rt_loop_grads    synchronous intervals: the step's compute ends here
 *                    (emulated duration), then the gradient all-reduce
 *   inner step       at rt_loop_lr(): rt_inner_step, or the caller's own
 *   rt_loop_end      rounds: the step's compute ends here; the last step of
 *                    the interval closes it (combine or exchange, global step
 *                    counter, bookkeeping: counters, evaluation, log line,
 *                    checkpoint, target) and opens the next; the clock of
 *                    the next step starts.
 * The --eval-ema average (rt_ema.c) is fed after every all-reduced step
 * and after every combine, whichever the interval had.
 *
 * Learning rate: one global step counter t for all workers, advanced by
 * T = max_i tau_i per interval; worker i's k-th step uses lr(t + k T /
 * tau_i), so slow and fast workers sweep the same part of the schedule in
 * the same wall time (with equal tau, as in sync, that is lr(t + k)).
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runtime/rt_internal.h"

static void _loop_plan(const nodeox_rt_t *rt, rt_interval_t *p)
{
	const nodeox_rt_config_t *c = &rt->cfg;
	int world = rt->env.world;
	long left = c->total_steps - rt->global_step;
	p->allreduce = c->mode == NODEOX_MODE_SYNC || rt->global_step < c->sync_warmup_steps;
	if (p->allreduce) {
		long n = c->mode == NODEOX_MODE_SYNC ? (left < c->local_steps ? left : c->local_steps)
						     : c->sync_warmup_steps - rt->global_step;
		if (n > left)
			n = left;
		for (int i = 0; i < world; i++)
			p->tau[i] = (int)n;
	} else {
		nodeox_rt_config_t now = *c;
		now.local_steps = rt_rounds_h(c, rt->global_step);
		rt_rounds_plan(&now, world, rt->last_step_ms, left, p->tau);
	}
	p->T = 0;
	for (int i = 0; i < world; i++)
		if (p->tau[i] > p->T)
			p->T = p->tau[i];
}

/* Test hooks --inject-exit / --inject-hang at the start of round r. */
static void _loop_inject(nodeox_rt_t *rt, long r)
{
	const nodeox_rt_config_t *c = &rt->cfg;
	if (rt->env.rank == c->inject_exit_rank && r == c->inject_exit_round) {
		rt_util_say(rt->env.rank, "--inject-exit: killing myself (SIGKILL) at round %ld", r);
		raise(SIGKILL);
		_exit(NODEOX_RT_EXIT_INJECTED);
	}
	if (rt->env.rank == c->inject_hang_rank && r == c->inject_hang_round) {
		rt_util_say(rt->env.rank, "--inject-hang: stopping at round %ld", r);
		for (;;)
			pause();
	}
}

int rt_loop_reached(const nodeox_rt_t *rt, double metric)
{
	const nodeox_rt_config_t *c = &rt->cfg;
	if (rt->metric_lower_is_better)
		return c->target_loss > 0 && metric <= c->target_loss;
	return c->target_acc > 0 && metric >= c->target_acc;
}

double rt_loop_evaluate(nodeox_rt_t *rt, nodeox_workload_t *w)
{
	double t0 = rt_util_clock_s();
	double acc = 0;
	if (w->evaluate == NULL)
		return -1; /* a model driven from outside evaluates itself */
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
	rt_fault_observe_round(rt_util_clock_s() - t0);
	return acc;
}

/* After an interval: observe its time, evaluate if due, log, checkpoint.
 * Returns 1 when training should stop (target reached and stop_at_target). */
static int _loop_end_round(nodeox_rt_t *rt, nodeox_workload_t *w, const rt_worker_info_t *all, double round_s)
{
	const nodeox_rt_config_t *c = &rt->cfg;
	for (int i = 0; i < rt->env.world; i++) {
		rt->steps_per_worker[i] += (long)all[i].steps;
		if (all[i].step_ms > 0)
			rt->last_step_ms[i] = all[i].step_ms;
	}
	rt->local_steps_total += (long)all[rt->env.rank].steps;
	rt->round++;
	rt->train_s += round_s;
	double slowest = 0;
	for (int i = 0; i < rt->env.world; i++)
		if (all[i].steps * all[i].step_ms > slowest)
			slowest = all[i].steps * all[i].step_ms;
	rt->critical_s += slowest / 1000.0;
	if (round_s > rt->longest_round_s)
		rt->longest_round_s = round_s;
	rt_fault_observe_round(round_s);

	double acc = -1;
	int last = rt->global_step >= c->total_steps;
	if (c->eval_every > 0 && w->evaluate && (rt->round % c->eval_every == 0 || last)) {
		acc = rt_loop_evaluate(rt, w);
		rt->last_metric = acc;
		if (rt_loop_reached(rt, acc) && rt->time_to_target_s < 0) {
			rt->time_to_target_s = rt->train_s;
			rt->critical_to_target_s = rt->critical_s;
		}
	}
	rt_log_round(rt, all, acc);
	int stop = c->stop_at_target && rt->time_to_target_s >= 0;
	if (rt_loop_checkpoint_due(rt, rt->round, last || stop)) {
		rt_fault_relax(1);
		rt_checkpoint_save(rt, w);
		rt_fault_relax(0);
	}
	return stop;
}

int rt_loop_checkpoint_due(const nodeox_rt_t *rt, long round, int last)
{
	const nodeox_rt_config_t *c = &rt->cfg;
	return c->checkpoint_dir && c->checkpoint_every > 0 && (round % c->checkpoint_every == 0 || last);
}

void rt_loop_open(nodeox_rt_t *rt)
{
	rt_interval_t *iv = &rt->iv;
	_loop_inject(rt, rt->round + 1);
	memset(iv, 0, sizeof *iv);
	iv->t0 = rt_util_clock_s();
	_loop_plan(rt, iv);
	iv->open = 1;
	rt_emulate_step_begin(&rt->emu);
}

double rt_loop_lr(const nodeox_rt_t *rt)
{
	const rt_interval_t *iv = &rt->iv;
	int tau = iv->tau[rt->env.rank];
	return rt_rounds_lr(&rt->cfg, (double)rt->global_step + (double)iv->k * iv->T / (tau > 0 ? tau : 1));
}

void rt_loop_grads(nodeox_rt_t *rt, nodeox_workload_t *w)
{
	rt_interval_t *iv = &rt->iv;
	if (!iv->allreduce)
		return;
	/* The measured (and emulated) time is this worker's compute; the
     * all-reduce is where it waits for the slowest. */
	rt->be->sync();
	iv->ms_sum += rt_emulate_step_end(&rt->emu);
	rt_sync_reduce_grads(rt, w);
}

int rt_loop_end(nodeox_rt_t *rt, nodeox_workload_t *w, double loss)
{
	rt_interval_t *iv = &rt->iv;
	rt_worker_info_t mine, all[NODEOX_RT_MAX_WORKERS];
	if (iv->allreduce) {
		if (rt->ema.avg) /* the same weights everywhere after every step */
			rt_ema_update(&rt->ema, w->params, rt->sync_samples);
	} else {
		rt->be->sync();
		iv->ms_sum += rt_emulate_step_end(&rt->emu);
	}
	iv->loss_sum += loss;
	int tau = iv->tau[rt->env.rank];
	if (++iv->k < tau) {
		rt_emulate_step_begin(&rt->emu);
		return 0;
	}
	memset(&mine, 0, sizeof mine);
	mine.steps = tau;
	mine.samples = (double)tau * w->batch_size;
	mine.shard = (double)w->shard_samples;
	mine.loss = tau > 0 ? iv->loss_sum / tau : 0;
	mine.step_ms = tau > 0 ? iv->ms_sum / tau : 0;
	rt_speedrec_observe(rt, mine.step_ms);
	if (iv->allreduce)
		rt_sync_finish(rt, w, &mine, all);
	else {
		rt_rounds_combine(rt, w, &mine, all);
		if (rt->ema.avg) { /* the weights agree once a round is combined */
			double samples = 0;
			for (int i = 0; i < rt->env.world; i++)
				samples += all[i].samples;
			rt_ema_update(&rt->ema, rt->global, samples);
		}
	}
	rt->last_finite = mine.finite != 0;
	rt->global_step += iv->T;
	iv->open = 0;
	int stop = _loop_end_round(rt, w, all, rt_util_clock_s() - iv->t0);
	if (stop || rt->global_step >= rt->cfg.total_steps)
		return 2;
	rt_loop_open(rt);
	return 1;
}

int rt_loop_run(nodeox_rt_t *rt, nodeox_workload_t *w)
{
	if (rt->global_step >= rt->cfg.total_steps)
		return 0;
	if (!rt->iv.open)
		rt_loop_open(rt);
	for (;;) {
		double loss = w->train_batch(w);
		rt_loop_grads(rt, w);
		rt_inner_step(rt, w, rt_loop_lr(rt));
		if (rt_loop_end(rt, w, loss) == 2)
			break;
	}
	return 0;
}
