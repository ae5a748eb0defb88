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
    __device__ void operator()(float *e) const   /* param, grad, mom */
    {
        float g = e[1] + wd * e[0];
        float b = mu * e[2] + g;
        e[2] = b;
        e[0] -= lr * b;
    }
};

struct adamw_op {
    float lr, b1, b2, eps, c1, c2, decay;
    __device__ void operator()(float *e) const   /* param, grad, m, v */
    {
        float g = e[1];
        float mi = b1 * e[2] + (1.0f - b1) * g;
        float vi = b2 * e[3] + (1.0f - b2) * g * g;
        e[2] = mi;
        e[3] = vi;
        float mhat = mi / c1;
        float vhat = vi / c2;
        e[0] = e[0] * decay - lr * mhat / (sqrtf(vhat) + eps);
    }
};

struct nesterov_op {
    float lr, mu;
    __device__ void operator()(float *e) const   /* param, delta, mom */
    {
        float d = e[1];
        float b = mu * e[2] + d;
        e[2] = b;
        e[0] -= lr * (d + mu * b);
    }
};

extern "C" void optim_sgd_step_cuda(float *param, const float *grad, float *mom,
                                    size_t n, float lr, float mu, float wd)
{
    ew_launch<0x5u>(n, sgd_op{lr, mu, wd}, (const float *)param, grad, (const float *)mom);
}

extern "C" void optim_adamw_step_cuda(float *param, const float *grad, float *m,
                                      float *v, size_t n, float lr, float b1,
                                      float b2, float eps, float wd, int64_t step)
{
    adamw_op op;
    op.lr = lr; op.b1 = b1; op.b2 = b2; op.eps = eps;
    op.c1 = (float)(1.0 - pow((double)b1, (double)step));
    op.c2 = (float)(1.0 - pow((double)b2, (double)step));
    op.decay = 1.0f - lr * wd;
    ew_launch<0xDu>(n, op, (const float *)param, grad, (const float *)m, (const float *)v);
}

extern "C" void optim_nesterov_step_cuda(float *param, const float *delta, float *mom,
                                         size_t n, float lr, float mu)
{
    ew_launch<0x5u>(n, nesterov_op{lr, mu}, (const float *)param, delta, (const float *)mom);
}
