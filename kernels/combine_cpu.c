/*
 * combine_cpu.c: C references of the vector kernels that turn local weights
 * into pseudo-gradients and combine them (delta, axpy, scale), plus two
 * reductions: the non-finite count the rounds engine checks pseudo-gradients
 * with, and the sum of squares behind --grad-clip's global gradient norm
 * (rt_engine_inner_step, which then scales with combine_scale).  CUDA twins
 * in combine_cuda.cu.
 */
#include <math.h>

#include "kernels/kernels.h"

void combine_delta_cpu(float *delta, const float *global, const float *local, size_t n)
{
	for (size_t i = 0; i < n; i++)
		delta[i] = global[i] - local[i];
}

void combine_axpy_cpu(float *out, const float *x, float w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] += w * x[i];
}

void combine_scale_cpu(float *x, float a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		x[i] *= a;
}

size_t combine_count_nonfinite_cpu(const float *x, size_t n)
{
	size_t bad = 0;
	for (size_t i = 0; i < n; i++)
		bad += !isfinite(x[i]);
	return bad;
}

double combine_sumsq_cpu(const float *x, size_t n)
{
	double s = 0.0;
	for (size_t i = 0; i < n; i++)
		s += (double)x[i] * (double)x[i];
	return s;
}
