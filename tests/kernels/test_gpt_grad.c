/*
 * test_gpt_grad.c: the transformer's whole backward pass against finite
 * differences of its own loss (central, on the CPU backend, a small model
 * on real text from the fortunes corpus; skips, 77, without it).
 *
 * Checked: the derivative along the full gradient (does the gradient point
 * where the loss rises fastest, with the right length), along each
 * tensor's block of the gradient (catches a wrong block that a whole-model
 * check could average away), along a random +-1 direction in each tensor
 * (catches components wrong in sign), and the ten single largest
 * coordinates.  Each is a central difference with a step small enough that
 * curvature costs < 1e-3 relative and large enough that float rounding of
 * the loss does too.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/backend.h"
#include "runtime/workload_gpt.h"
#include "tests/kernels/workload_test.h"

static nodeox_workload_t *w;
static int failures, checks;

static double loss_at(const float *base, const float *dir, double h)
{
	size_t n = w->nparams;
	for (size_t i = 0; i < n; i++)
		w->params[i] = (float)((double)base[i] + h * dir[i]);
	w->data_seek(w, 0);
	return w->train_batch(w);
}

/* Directional derivative of the loss along dir (any length) vs grad . dir. */
static void check_direction(const char *what, const float *base, const float *grad, const float *dir,
			    double rtol)
{
	double norm = 0, analytic = 0;
	for (size_t i = 0; i < w->nparams; i++)
		norm += (double)dir[i] * dir[i];
	norm = sqrt(norm);
	if (norm == 0)
		return;
	for (size_t i = 0; i < w->nparams; i++)
		analytic += (double)grad[i] * dir[i] / norm;
	float *unit = malloc(w->nparams * sizeof(float));
	for (size_t i = 0; i < w->nparams; i++)
		unit[i] = (float)(dir[i] / norm);
	double h = 2e-3;
	double fd = (loss_at(base, unit, h) - loss_at(base, unit, -h)) / (2 * h);
	free(unit);
	double err = fabs(fd - analytic), tol = rtol * fabs(analytic) + 2e-4;
	checks++;
	if (err <= tol) {
		printf("ok   %-34s analytic %+.6e  finite difference %+.6e\n", what, analytic, fd);
	} else {
		failures++;
		printf("FAIL %-34s analytic %+.6e  finite difference %+.6e (tolerance %.1e)\n", what,
		       analytic, fd, tol);
	}
}

int main(void)
{
	workload_gpt_opts_t o;
	gpt_small_opts(&o);
	o.layers = 2;
	o.batch_size = 3;
	o.seed = 7;
	w = gpt_create_or_exit(&o, backend_cpu());
	size_t n = w->nparams;
	printf("%s: %zu parameters\n", w->name, n);
	float *base = malloc(n * sizeof(float)), *grad = malloc(n * sizeof(float));
	float *dir = calloc(n, sizeof(float));
	/* away from the initialization's symmetric point: scale weights up (x2, plus noise) so
     * attention is not uniform and LayerNorm gains are not all 1 */
	uint64_t s = 12345;
	for (size_t i = 0; i < n; i++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		double u = (double)(s >> 11) / 9007199254740992.0 - 0.5;
		w->params[i] = w->params[i] * 2.0f + (float)(0.02 * u);
	}
	/* queries and keys large enough that attention is far from uniform */
	size_t c = (size_t)o.channels, nl = (size_t)o.layers;
	size_t qkvw_off = 256 * c + (size_t)o.context * c + 2 * nl * c; /* after wte wpe ln1w ln1b */
	for (size_t i = qkvw_off; i < qkvw_off + nl * 3 * c * c; i++)
		w->params[i] *= 8.0f;
	memcpy(base, w->params, n * sizeof(float));
	w->data_seek(w, 0);
	double loss0 = w->train_batch(w);
	memcpy(grad, w->grads, n * sizeof(float));
	printf("loss %.6f\n", loss0);

	check_direction("whole gradient", base, grad, grad, 1e-2);

	/* tensor boundaries: recovered from the layout of workload_gpt.c */
	static const char *names[] = { "wte",      "wpe",      "ln1w", "ln1b", "qkvw", "qkvb",
				       "attprojw", "attprojb", "ln2w", "ln2b", "fcw",  "fcb",
				       "fcprojw",  "fcprojb",  "lnfw", "lnfb" };
	size_t L = (size_t)o.layers, C = (size_t)o.channels, T = (size_t)o.context;
	size_t sizes[16] = { 256 * C,       T * C, L * C, L * C, L * 3 * C * C, L * 3 * C,
			     L * C * C,     L * C, L * C, L * C, L * 4 * C * C, L * 4 * C,
			     L * 4 * C * C, L * C, C,     C };
	size_t off = 0;
	for (int t = 0; t < 16; t++) {
		char what[64];
		memset(dir, 0, n * sizeof(float));
		memcpy(dir + off, grad + off, sizes[t] * sizeof(float));
		snprintf(what, sizeof(what), "%s block of the gradient", names[t]);
		check_direction(what, base, grad, dir, 2e-2);
		memset(dir, 0, n * sizeof(float));
		for (size_t i = off; i < off + sizes[t]; i++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			dir[i] = (s >> 63) ? 1.0f : -1.0f;
		}
		snprintf(what, sizeof(what), "%s random +-1 direction", names[t]);
		check_direction(what, base, grad, dir, 3e-2);
		off += sizes[t];
	}
	if (off != n) {
		printf("FAIL layout: tensors add up to %zu, the workload has %zu\n", off, n);
		return 1;
	}
	for (int k = 0; k < 10; k++) {
		size_t best = 0;
		for (size_t i = 0; i < n; i++)
			if (fabsf(grad[i]) > fabsf(grad[best]))
				best = i;
		memset(dir, 0, n * sizeof(float));
		dir[best] = 1.0f;
		char what[64];
		snprintf(what, sizeof(what), "coordinate %zu", best);
		check_direction(what, base, grad, dir, 2e-2);
		grad[best] = 0.0f; /* the next largest next time */
	}
	printf("%d of %d checks failed\n", failures, checks);
	w->destroy(w);
	free(base);
	free(grad);
	free(dir);
	return failures ? 1 : 0;
}
