/*
 * optim_cuda.cu: CUDA twins of optim_cpu.c (SGD-momentum, AdamW, outer
 * Nesterov step), each one fused pass through elementwise_cuda.cuh.  Same
 * formulas and float operation order as the C references.
 */
#include <math.h>

#include "kernels/kernels.h"
#include "kernels/elementwise_cuda.cuh"

struct sgd_op {
	float lr, mu, wd;
	__device__ void operator()(float *e) const /* param, grad, mom */
	{
		float g = e[1] + wd * e[0];
		float b = mu * e[2] + g;
		e[2] = b;
		e[0] -= lr * b;
	}
};

template <bool MASKED> struct adamw_op {
	float lr, b1, b2, eps, c1, c2, lrwd;
	__device__ void operator()(float *e) const /* param, grad, m, v[, decay] */
	{
		float keep = MASKED ? 1.0f - lrwd * e[MASKED ? 4 : 0] : 1.0f - lrwd;
		float g = e[1];
		float mi = b1 * e[2] + (1.0f - b1) * g;
		float vi = b2 * e[3] + (1.0f - b2) * g * g;
		e[2] = mi;
		e[3] = vi;
		float mhat = mi / c1;
		float vhat = vi / c2;
		e[0] = e[0] * keep - lr * mhat / (sqrtf(vhat) + eps);
	}
};

struct nesterov_op {
	float lr, mu;
	__device__ void operator()(float *e) const /* param, delta, mom */
	{
		float d = e[1];
		float b = mu * e[2] + d;
		e[2] = b;
		e[0] -= lr * (d + mu * b);
	}
};

extern "C" void optim_sgd_step_cuda(float *param, const float *grad, float *mom, size_t n, float lr, float mu,
				    float wd)
{
	ew_launch<0x5u>(n, sgd_op{ lr, mu, wd }, (const float *)param, grad, (const float *)mom);
}

extern "C" void optim_adamw_step_cuda(float *param, const float *grad, float *m, float *v, const float *decay,
				      size_t n, float lr, float b1, float b2, float eps, float wd,
				      int64_t step)
{
	float c1 = (float)(1.0 - pow((double)b1, (double)step));
	float c2 = (float)(1.0 - pow((double)b2, (double)step));
	float lrwd = lr * wd;
	if (decay) /* the mask is read, never written */
		ew_launch<0xDu>(n, adamw_op<true>{ lr, b1, b2, eps, c1, c2, lrwd }, (const float *)param,
				grad, (const float *)m, (const float *)v, decay);
	else
		ew_launch<0xDu>(n, adamw_op<false>{ lr, b1, b2, eps, c1, c2, lrwd }, (const float *)param,
				grad, (const float *)m, (const float *)v);
}

extern "C" void optim_nesterov_step_cuda(float *param, const float *delta, float *mom, size_t n, float lr,
					 float mu)
{
	ew_launch<0x5u>(n, nesterov_op{ lr, mu }, (const float *)param, delta, (const float *)mom);
}
