/*
 * optim_cpu.c: C references of the optimizer steps (inner SGD-momentum and
 * AdamW, outer Nesterov SGD).  Formulas in kernels.h; each is one fused pass
 * over the vectors, like its CUDA twin in optim_cuda.cu.
 */
#include <math.h>

#include "kernels/kernels.h"

void optim_sgd_step_cpu(float *param, const float *grad, float *mom, size_t n, float lr, float mu, float wd)
{
	for (size_t i = 0; i < n; i++) {
		float g = grad[i] + wd * param[i];
		float b = mu * mom[i] + g;
		mom[i] = b;
		param[i] -= lr * b;
	}
}

void optim_adamw_step_cpu(float *param, const float *grad, float *m, float *v, const float *decay, size_t n,
			  float lr, float b1, float b2, float eps, float wd, int64_t step)
{
	/* bias corrections in double: b^step underflows gracefully, and the CUDA
     * twin computes them on the host the same way */
	float c1 = (float)(1.0 - pow((double)b1, (double)step));
	float c2 = (float)(1.0 - pow((double)b2, (double)step));
	float lrwd = lr * wd;
	for (size_t i = 0; i < n; i++) {
		float keep = decay ? 1.0f - lrwd * decay[i] : 1.0f - lrwd;
		float g = grad[i];
		float mi = b1 * m[i] + (1.0f - b1) * g;
		float vi = b2 * v[i] + (1.0f - b2) * g * g;
		m[i] = mi;
		v[i] = vi;
		float mhat = mi / c1;
		float vhat = vi / c2;
		param[i] = param[i] * keep - lr * mhat / (sqrtf(vhat) + eps);
	}
}

void optim_nesterov_step_cpu(float *param, const float *delta, float *mom, size_t n, float lr, float mu)
{
	for (size_t i = 0; i < n; i++) {
		float d = delta[i];
		float b = mu * mom[i] + d;
		mom[i] = b;
		param[i] -= lr * (d + mu * b);
	}
}
