/*
 * attention_cuda.cu: CUDA twins of attention_cpu.c.  One thread per
 * (batch, position, head) does the whole row, as the C loops do: simple and
 * right for the small contexts nodeox trains (a flash-attention kernel is
 * the upgrade once contexts grow).  In the backward pass the key and value
 * gradients of position t2 receive contributions from every t >= t2, i.e.
 * from other threads, so they are added with atomics; the query gradient
 * and the score rows belong to one thread.
 */
#include <math.h>

#include "kernels/kernels.h"
#include "kernels/cuda_common.h"

__global__ static void attention_forward_kernel(float *out, float *preatt, float *att,
                                                const float *qkv, int B, int T, int C, int NH)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * T * NH)
        return;
    int h = idx % NH, t = (idx / NH) % T, b = idx / (NH * T);
    int hs = C / NH, C3 = 3 * C;
    float scale = 1.0f / sqrtf((float)hs);
    const float *q = qkv + ((size_t)b * T + t) * C3 + h * hs;
    float *pre = preatt + (((size_t)b * NH + h) * T + t) * T;
    float *a = att + (((size_t)b * NH + h) * T + t) * T;
    float mx = -INFINITY;
    for (int t2 = 0; t2 <= t; t2++) {
        const float *k = qkv + ((size_t)b * T + t2) * C3 + C + h * hs;
        float dot = 0.0f;
        for (int i = 0; i < hs; i++)
            dot += q[i] * k[i];
        dot *= scale;
        pre[t2] = dot;
        mx = fmaxf(mx, dot);
    }
    float sum = 0.0f;
    for (int t2 = 0; t2 <= t; t2++) {
        float e = expf(pre[t2] - mx);
        a[t2] = e;
        sum += e;
    }
    float inv = 1.0f / sum;
    for (int t2 = 0; t2 < T; t2++) {
        if (t2 <= t) {
            a[t2] *= inv;
        } else {
            a[t2] = 0.0f;
            pre[t2] = 0.0f;
        }
    }
    float *o = out + ((size_t)b * T + t) * C + h * hs;
    for (int i = 0; i < hs; i++) {
        float s = 0.0f;
        for (int t2 = 0; t2 <= t; t2++)
            s += a[t2] * qkv[((size_t)b * T + t2) * C3 + 2 * C + h * hs + i];
        o[i] = s;
    }
}

__global__ static void attention_backward_kernel(float *dqkv, float *dpreatt, float *datt,
                                                 const float *dout, const float *qkv,
                                                 const float *att, int B, int T, int C, int NH)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * T * NH)
        return;
    int h = idx % NH, t = (idx / NH) % T, b = idx / (NH * T);
    int hs = C / NH, C3 = 3 * C;
    float scale = 1.0f / sqrtf((float)hs);
    const float *a = att + (((size_t)b * NH + h) * T + t) * T;
    float *da = datt + (((size_t)b * NH + h) * T + t) * T;
    float *dpre = dpreatt + (((size_t)b * NH + h) * T + t) * T;
    const float *d = dout + ((size_t)b * T + t) * C + h * hs;
    const float *q = qkv + ((size_t)b * T + t) * C3 + h * hs;
    float *dq = dqkv + ((size_t)b * T + t) * C3 + h * hs;
    float dot = 0.0f;
    for (int t2 = 0; t2 <= t; t2++) {
        const float *v = qkv + ((size_t)b * T + t2) * C3 + 2 * C + h * hs;
        float *dv = dqkv + ((size_t)b * T + t2) * C3 + 2 * C + h * hs;
        float s = 0.0f;
        for (int i = 0; i < hs; i++) {
            s += v[i] * d[i];
            atomicAdd(&dv[i], a[t2] * d[i]);
        }
        da[t2] = s;
        dot += a[t2] * s;
    }
    for (int t2 = 0; t2 < T; t2++) {
        if (t2 <= t) {
            dpre[t2] = a[t2] * (da[t2] - dot);
        } else {
            dpre[t2] = 0.0f;
            da[t2] = 0.0f;
        }
    }
    for (int t2 = 0; t2 <= t; t2++) {
        const float *k = qkv + ((size_t)b * T + t2) * C3 + C + h * hs;
        float *dk = dqkv + ((size_t)b * T + t2) * C3 + C + h * hs;
        float g = dpre[t2] * scale;
        for (int i = 0; i < hs; i++) {
            dq[i] += k[i] * g;
            atomicAdd(&dk[i], q[i] * g);
        }
    }
}

extern "C" void attention_forward_cuda(float *out, float *preatt, float *att, const float *qkv,
                                       int B, int T, int C, int NH)
{
    int n = B * T * NH;
    if (n <= 0)
        return;
    attention_forward_kernel<<<(n + 127) / 128, 128>>>(out, preatt, att, qkv, B, T, C, NH);
    cudaCheckLaunch();
}

extern "C" void attention_backward_cuda(float *dqkv, float *dpreatt, float *datt,
                                        const float *dout, const float *qkv, const float *att,
                                        int B, int T, int C, int NH)
{
    int n = B * T * NH;
    if (n <= 0)
        return;
    attention_backward_kernel<<<(n + 127) / 128, 128>>>(dqkv, dpreatt, datt, dout, qkv, att,
                                                        B, T, C, NH);
    cudaCheckLaunch();
}
