/*
 * layernorm_cpu.c: LayerNorm over the last dimension, C reference.
 * Forward keeps each row's mean and 1/std for the backward pass (as llm.c
 * does), so the backward pass needs no second reduction over the input.
 * Statistics are accumulated in double: the reference should be the
 * accurate side of the CUDA comparison.
 */
#include <math.h>

#include "kernels/kernels.h"

void layernorm_forward_cpu(float *out, float *mean, float *rstd, const float *inp, const float *weight,
			   const float *bias, int N, int C)
{
	for (int i = 0; i < N; i++) {
		const float *x = inp + (size_t)i * C;
		float *o = out + (size_t)i * C;
		double m = 0, v = 0;
		for (int c = 0; c < C; c++)
			m += x[c];
		m /= C;
		for (int c = 0; c < C; c++)
			v += (x[c] - m) * (x[c] - m);
		v /= C;
		float s = (float)(1.0 / sqrt(v + LAYERNORM_EPS));
		for (int c = 0; c < C; c++)
			o[c] = ((x[c] - (float)m) * s) * weight[c] + bias[c];
		mean[i] = (float)m;
		rstd[i] = s;
	}
}

void layernorm_backward_cpu(float *dinp, float *dweight, float *dbias, const float *dout, const float *inp,
			    const float *weight, const float *mean, const float *rstd, int N, int C)
{
	for (int i = 0; i < N; i++) {
		const float *d = dout + (size_t)i * C, *x = inp + (size_t)i * C;
		float *dx = dinp + (size_t)i * C;
		float m = mean[i], s = rstd[i];
		double dnorm_mean = 0, dnorm_norm_mean = 0;
		for (int c = 0; c < C; c++) {
			float norm = (x[c] - m) * s;
			float dnorm = weight[c] * d[c];
			dnorm_mean += dnorm;
			dnorm_norm_mean += (double)dnorm * norm;
		}
		dnorm_mean /= C;
		dnorm_norm_mean /= C;
		for (int c = 0; c < C; c++) {
			float norm = (x[c] - m) * s;
			float dnorm = weight[c] * d[c];
			dbias[c] += d[c];
			dweight[c] += norm * d[c];
			dx[c] += s * (dnorm - (float)dnorm_mean - norm * (float)dnorm_norm_mean);
		}
	}
}
