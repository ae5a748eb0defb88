/*
 * layernorm_cuda.cu: CUDA twins of layernorm_cpu.c.  Forward and the input
 * gradient run one warp per row (lanes stride over C, sums by shuffles);
 * the weight and bias gradients are one thread per column summing down the
 * rows (coalesced, no atomics, deterministic).
 */
#include "kernels/kernels.h"
#include "kernels/cuda_common.h"

__device__ static float warp_sum(float v)
{
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__global__ static void layernorm_forward_kernel(float *out, float *mean, float *rstd,
                                                const float *inp, const float *weight,
                                                const float *bias, int N, int C)
{
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (row >= N)
        return;
    const float *x = inp + (size_t)row * C;
    float s = 0.0f;
    for (int c = lane; c < C; c += 32)
        s += x[c];
    float m = warp_sum(s) / C;
    float v = 0.0f;
    for (int c = lane; c < C; c += 32)
        v += (x[c] - m) * (x[c] - m);
    float r = rsqrtf(warp_sum(v) / C + (float)LAYERNORM_EPS);
    float *o = out + (size_t)row * C;
    for (int c = lane; c < C; c += 32)
        o[c] = ((x[c] - m) * r) * weight[c] + bias[c];
    if (lane == 0) {
        mean[row] = m;
        rstd[row] = r;
    }
}

__global__ static void layernorm_backward_input_kernel(float *dinp, const float *dout,
                                                       const float *inp, const float *weight,
                                                       const float *mean, const float *rstd,
                                                       int N, int C)
{
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (row >= N)
        return;
    const float *d = dout + (size_t)row * C, *x = inp + (size_t)row * C;
    float m = mean[row], r = rstd[row], a = 0.0f, b = 0.0f;
    for (int c = lane; c < C; c += 32) {
        float norm = (x[c] - m) * r, dnorm = weight[c] * d[c];
        a += dnorm;
        b += dnorm * norm;
    }
    a = warp_sum(a) / C;
    b = warp_sum(b) / C;
    float *dx = dinp + (size_t)row * C;
    for (int c = lane; c < C; c += 32) {
        float norm = (x[c] - m) * r, dnorm = weight[c] * d[c];
        dx[c] += r * (dnorm - a - norm * b);
    }
}

__global__ static void layernorm_backward_params_kernel(float *dweight, float *dbias,
                                                        const float *dout, const float *inp,
                                                        const float *mean, const float *rstd,
                                                        int N, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= C)
        return;
    float dw = dweight[c], db = dbias[c];
    for (int i = 0; i < N; i++) {
        float d = dout[(size_t)i * C + c];
        db += d;
        dw += (inp[(size_t)i * C + c] - mean[i]) * rstd[i] * d;
    }
    dweight[c] = dw;
    dbias[c] = db;
}

extern "C" void layernorm_forward_cuda(float *out, float *mean, float *rstd, const float *inp,
                                       const float *weight, const float *bias, int N, int C)
{
    if (N <= 0)
        return;
    int warps = KERNELS_BLOCK / 32;
    layernorm_forward_kernel<<<(N + warps - 1) / warps, KERNELS_BLOCK>>>(out, mean, rstd, inp,
                                                                         weight, bias, N, C);
    cudaCheckLaunch();
}

extern "C" void layernorm_backward_cuda(float *dinp, float *dweight, float *dbias,
                                        const float *dout, const float *inp, const float *weight,
                                        const float *mean, const float *rstd, int N, int C)
{
    if (N <= 0)
        return;
    int warps = KERNELS_BLOCK / 32;
    layernorm_backward_input_kernel<<<(N + warps - 1) / warps, KERNELS_BLOCK>>>(
        dinp, dout, inp, weight, mean, rstd, N, C);
    cudaCheckLaunch();
    layernorm_backward_params_kernel<<<(C + KERNELS_BLOCK - 1) / KERNELS_BLOCK, KERNELS_BLOCK>>>(
        dweight, dbias, dout, inp, mean, rstd, N, C);
    cudaCheckLaunch();
}
