/*
 * loss_cuda.cu: CUDA twins of loss_cpu.c.  Softmax cross-entropy runs one
 * warp per row (lanes stride over the C classes, max and sum by warp
 * shuffles); the backward pass and the argmax count are one thread per
 * element / row, the count summed with one atomic per correct row into a
 * device word the host reads back (so argmax_correct synchronizes).
 */
#include <math.h>

#include "kernels/kernels.h"
#include "kernels/cuda_common.h"

static __device__ int loss_correct;

__global__ static void xent_forward_kernel(float *probs, float *losses, const float *logits,
					   const int *labels, int B, int C)
{
	int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
	int lane = threadIdx.x % 32;
	if (row >= B)
		return;
	const float *z = logits + (size_t)row * C;
	float *p = probs + (size_t)row * C;
	float mx = -INFINITY;
	for (int c = lane; c < C; c += 32)
		mx = fmaxf(mx, z[c]);
	for (int o = 16; o > 0; o /= 2)
		mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
	float zl = z[labels[row]] - mx; /* every lane reads it before p overwrites z */
	__syncwarp();
	float sum = 0.0f;
	for (int c = lane; c < C; c += 32) {
		float e = expf(z[c] - mx);
		p[c] = e;
		sum += e;
	}
	for (int o = 16; o > 0; o /= 2)
		sum += __shfl_xor_sync(0xffffffffu, sum, o);
	float inv = 1.0f / sum;
	for (int c = lane; c < C; c += 32)
		p[c] *= inv;
	if (lane == 0)
		losses[row] = logf(sum) - zl;
}

__global__ static void xent_backward_kernel(float *dlogits, const float *probs, const int *labels, int B,
					    int C, float scale)
{
	size_t n = (size_t)B * C;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		int b = (int)(i / C), c = (int)(i % C);
		dlogits[i] = scale * (probs[i] - (c == labels[b] ? 1.0f : 0.0f));
	}
}

__global__ static void argmax_kernel(const float *logits, const int *labels, int B, int C)
{
	int b = blockIdx.x * blockDim.x + threadIdx.x;
	if (b >= B)
		return;
	const float *z = logits + (size_t)b * C;
	int best = 0;
	for (int c = 1; c < C; c++)
		if (z[c] > z[best])
			best = c;
	if (best == labels[b])
		atomicAdd(&loss_correct, 1);
}

extern "C" void loss_softmax_xent_forward_cuda(float *probs, float *losses, const float *logits,
					       const int *labels, int B, int C)
{
	if (B <= 0)
		return;
	int warps_per_block = KERNELS_BLOCK / 32;
	xent_forward_kernel<<<(B + warps_per_block - 1) / warps_per_block, KERNELS_BLOCK>>>(
		probs, losses, logits, labels, B, C);
	cudaCheckLaunch();
}

extern "C" void loss_softmax_xent_backward_cuda(float *dlogits, const float *probs, const int *labels, int B,
						int C, float scale)
{
	size_t n = (size_t)B * C;
	if (n == 0)
		return;
	xent_backward_kernel<<<cuda_grid_for(n), KERNELS_BLOCK>>>(dlogits, probs, labels, B, C, scale);
	cudaCheckLaunch();
}

extern "C" int loss_argmax_correct_cuda(const float *logits, const int *labels, int B, int C)
{
	int zero = 0, correct = 0;
	if (B <= 0)
		return 0;
	cudaCheck(cudaMemcpyToSymbol(loss_correct, &zero, sizeof(zero)));
	argmax_kernel<<<(B + KERNELS_BLOCK - 1) / KERNELS_BLOCK, KERNELS_BLOCK>>>(logits, labels, B, C);
	cudaCheckLaunch();
	cudaCheck(cudaMemcpyFromSymbol(&correct, loss_correct, sizeof(correct)));
	return correct;
}
