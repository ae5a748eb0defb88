/*
 * rt_ema.c: --eval-ema BETA, evaluation on an exponential moving average
 * of the global weights (Polyak averaging) instead of the last iterate.
 *
 * Training is untouched: the average is a separate vector, kept only on
 * rank 0 (the rank that evaluates), fed the global weights whenever they
 * are the same on every worker: after every all-reduced step (sync mode
 * and the --sync-warmup of rounds) and after every combine (end of a
 * round). Both modes must average over the same horizon, so BETA is the
 * decay per *sample*, expressed per world * batch samples (one synchronous
 * step): an update that follows S samples decays the average by
 * BETA^(S / (world * batch)). A sync step decays by BETA; a round at H 10
 * and speeds 1,1,0.5,0.5 (30 batches) by BETA^7.5.
 *
 * Bias: the average starts empty, not at the initial weights. With W =
 * 1 - prod(decays so far), the update is avg += a (x - avg), a = (1 - d) /
 * W, i.e. avg = (1 - a) avg + a x, which is the debiased EMA (Adam's bias
 * correction applied incrementally): the first update copies x, a constant
 * sequence keeps the average at that constant.
 *
 * Uses the backends' scale and axpy (CUDA twins exist), so no kernel of
 * its own. The average is not checkpointed: --resume restarts it empty at
 * the resumed weights (training and the weights stay bit-identical).
 */
#include "config.h"

#include <math.h>

#include "runtime/rt_internal.h"

int rt_ema_init(rt_ema_t *e, const nodeox_backend_t *be, size_t n, double beta, double ref_samples)
{
	e->be = be;
	e->n = n;
	e->beta = beta;
	e->ref_samples = ref_samples > 0 ? ref_samples : 1;
	e->weight = 0;
	e->updates = 0;
	e->avg = be->alloc(n * sizeof(float));
	return e->avg ? 0 : -1;
}

void rt_ema_update(rt_ema_t *e, const float *x, double samples)
{
	double d = pow(e->beta, samples / e->ref_samples);
	e->weight = 1 - (1 - e->weight) * d;
	double a = e->weight > 0 ? (1 - d) / e->weight : 1;
	if (e->updates == 0 || a >= 1) {
		e->be->copy_d2d(e->avg, x, e->n * sizeof(float));
	} else {
		e->be->scale(e->avg, (float)(1 - a), e->n);
		e->be->axpy(e->avg, x, (float)a, e->n);
	}
	e->updates++;
}

void rt_ema_free(rt_ema_t *e)
{
	if (e->avg)
		e->be->free(e->avg);
	e->avg = NULL;
}
