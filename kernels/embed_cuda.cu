/*
 * embed_cuda.cu: CUDA twins of embed_cpu.c.  Forward is one thread per
 * output float.  Backward avoids atomics: one thread per channel c walks the
 * B x T tokens in the C reference's order for the token table (so the sums
 * match it exactly, repeated tokens included), and one thread per (t, c)
 * sums over the batch for the position table.
 */
#include "kernels/kernels.h"
#include "kernels/cuda_common.h"

__global__ static void embed_forward_kernel(float *out, const int *tokens, const float *wte,
                                            const float *wpe, int B, int T, int C)
{
    size_t n = (size_t)B * T * C;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        size_t bt = i / C;
        int c = (int)(i % C), t = (int)(bt % T);
        out[i] = wte[(size_t)tokens[bt] * C + c] + wpe[(size_t)t * C + c];
    }
}

__global__ static void embed_backward_wte_kernel(float *dwte, const float *dout, const int *tokens,
                                                 int BT, int C)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= C)
        return;
    for (int bt = 0; bt < BT; bt++)
        dwte[(size_t)tokens[bt] * C + c] += dout[(size_t)bt * C + c];
}

__global__ static void embed_backward_wpe_kernel(float *dwpe, const float *dout, int B, int T, int C)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)T * C)
        return;
    float s = dwpe[i];
    for (int b = 0; b < B; b++)
        s += dout[(size_t)b * T * C + i];
    dwpe[i] = s;
}

extern "C" void embed_forward_cuda(float *out, const int *tokens, const float *wte,
                                   const float *wpe, int B, int T, int C)
{
    size_t n = (size_t)B * T * C;
    if (n == 0)
        return;
    embed_forward_kernel<<<cuda_grid_for(n), KERNELS_BLOCK>>>(out, tokens, wte, wpe, B, T, C);
    cudaCheckLaunch();
}

extern "C" void embed_backward_cuda(float *dwte, float *dwpe, const float *dout, const int *tokens,
                                    int B, int T, int C)
{
    if ((size_t)B * T * C == 0)
        return;
    embed_backward_wte_kernel<<<(C + 63) / 64, 64>>>(dwte, dout, tokens, B * T, C);
    cudaCheckLaunch();
    size_t tc = (size_t)T * C;
    embed_backward_wpe_kernel<<<(unsigned)((tc + KERNELS_BLOCK - 1) / KERNELS_BLOCK), KERNELS_BLOCK>>>(
        dwpe, dout, B, T, C);
    cudaCheckLaunch();
}
