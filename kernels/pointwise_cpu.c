/*
 * pointwise_cpu.c: the transformer's element-wise kernels, C reference:
 * GELU (the tanh approximation GPT-2 uses) forward and backward, and the
 * residual add.  The residual's backward pass needs no kernel of its own:
 * the gradient flows unchanged to both inputs (combine_axpy accumulates it).
 */
#include <math.h>

#include "kernels/kernels.h"

#define GELU_SCALE 0.7978845608028654f /* sqrt(2 / pi) */

void pointwise_gelu_forward_cpu(float *out, const float *inp, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		float x = inp[i];
		float cube = 0.044715f * x * x * x;
		out[i] = 0.5f * x * (1.0f + tanhf(GELU_SCALE * (x + cube)));
	}
}

void pointwise_gelu_backward_cpu(float *dinp, const float *inp, const float *dout, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		float x = inp[i];
		float cube = 0.044715f * x * x * x;
		float arg = GELU_SCALE * (x + cube);
		float th = tanhf(arg);
		float sech2 = 1.0f - th * th;
		float local = 0.5f * (1.0f + th) +
			      x * 0.5f * sech2 * GELU_SCALE * (1.0f + 3.0f * 0.044715f * x * x);
		dinp[i] = local * dout[i];
	}
}

void pointwise_residual_forward_cpu(float *out, const float *a, const float *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = a[i] + b[i];
}
