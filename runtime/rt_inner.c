/*
 * rt_inner.c: the built-in inner optimizer of nodeox-run's workloads (SGD
 * with momentum, or AdamW, with optional global-norm gradient clipping) on
 * the flat parameter vector, and its reset. A model driven from outside
 * (nodeox.torch) brings its own inner optimizer and never calls these.
 *
 * Inner optimizer state at round boundaries: kept (DiLoCo keeps AdamW's
 * moments across rounds); --reset-inner-state zeroes it every round, and a
 * worker whose pseudo-gradient was dropped as non-finite always restarts it
 * (rt_rounds.c), since the state that produced NaN would produce it again.
 */
#include "config.h"

#include <math.h>

#include "runtime/rt_internal.h"

void rt_inner_step(nodeox_rt_t *rt, nodeox_workload_t *w, double lr)
{
	const nodeox_rt_config_t *c = &rt->cfg;
	if (c->grad_clip > 0) { /* global-norm clipping, before the optimizer sees the gradient */
		double norm = sqrt(rt->be->sumsq(w->grads, rt->n));
		if (norm > c->grad_clip)
			rt->be->scale(w->grads, (float)(c->grad_clip / norm), rt->n);
	}
	if (c->inner == NODEOX_INNER_SGD) {
		rt->be->sgd_step(w->params, w->grads, rt->inner_m, rt->n, (float)lr, (float)c->momentum,
				 (float)c->weight_decay);
	} else {
		rt->adam_t++;
		rt->be->adamw_step(w->params, w->grads, rt->inner_m, rt->inner_v, w->decay_mask, rt->n,
				   (float)lr, (float)c->beta1, (float)c->beta2, (float)c->eps,
				   (float)c->weight_decay, rt->adam_t);
	}
}

void rt_inner_reset(nodeox_rt_t *rt)
{
	rt->be->zero(rt->inner_m, rt->n * sizeof(float));
	if (rt->inner_v)
		rt->be->zero(rt->inner_v, rt->n * sizeof(float));
	rt->adam_t = 0;
}
