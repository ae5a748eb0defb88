/*
 * embed_cuda.cu: CUDA twins of embed_cpu.c.  Forward is one thread per
 * output float.
 *
 * Backward, token table: a row of dwte receives the dout rows of every
 * position holding its token.  The B x T positions are sorted by token
 * (CUB's radix sort of (token, position) pairs, which is stable: equal
 * tokens keep their positions in order); then one thread per (run of equal
 * tokens, channel) adds its run's dout values to its dwte entry one after
 * another, in position order.  That is the C reference's order of additions,
 * so the sums match it bit for bit, repeated tokens included, with no
 * atomics; runs and channels run in parallel, and only a run's own
 * additions are serial.  Position table: one thread per (t, c) sums over the
 * batch (coalesced, in the reference's order too).
 *
 * The sort's keys, positions and temporary storage live in one device
 * buffer, grown as needed and kept for the process (the backend has no
 * teardown hook; like the cuBLAS handle, it is released at exit).
 */
#include <cub/cub.cuh>

#include "kernels/kernels.h"
#include "kernels/cuda_common.h"

__global__ static void embed_forward_kernel(float *out, const int *tokens, const float *wte, const float *wpe,
					    int B, int T, int C)
{
	size_t n = (size_t)B * T * C;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		size_t bt = i / C;
		int c = (int)(i % C), t = (int)(bt % T);
		out[i] = wte[(size_t)tokens[bt] * C + c] + wpe[(size_t)t * C + c];
	}
}

__global__ static void embed_positions_kernel(int *pos, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		pos[i] = i;
}

/* key: the n tokens sorted; pos: their positions, in order within a token.
 * Blocks stride over the sorted index i (blockIdx.x), threads over channels. */
__global__ static void embed_backward_wte_kernel(float *dwte, const float *dout, const int *key,
						 const int *pos, int n, int C)
{
	int c = blockIdx.y * blockDim.x + threadIdx.x;
	if (c >= C)
		return;
	for (int i = blockIdx.x; i < n; i += gridDim.x) {
		int tok = key[i];
		if (i > 0 && key[i - 1] == tok)
			continue; /* not the first of its run */
		/* the run's end: the first index past i whose key differs (keys sorted) */
		int lo = i + 1, hi = n;
		while (lo < hi) {
			int mid = lo + (hi - lo) / 2;
			if (key[mid] == tok)
				lo = mid + 1;
			else
				hi = mid;
		}
		int end = lo;
		float *w = dwte + (size_t)tok * C + c;
		float s = *w;
		/* loads 8 ahead of the additions, which stay one by one in order */
		for (int j = i; j < end; j += 8) {
			float x[8];
#pragma unroll
			for (int u = 0; u < 8; u++)
				x[u] = j + u < end ? dout[(size_t)pos[j + u] * C + c] : 0.0f;
#pragma unroll
			for (int u = 0; u < 8; u++)
				if (j + u < end)
					s += x[u];
		}
		*w = s;
	}
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

extern "C" void embed_forward_cuda(float *out, const int *tokens, const float *wte, const float *wpe, int B,
				   int T, int C)
{
	size_t n = (size_t)B * T * C;
	if (n == 0)
		return;
	embed_forward_kernel<<<cuda_grid_for(n), KERNELS_BLOCK>>>(out, tokens, wte, wpe, B, T, C);
	cudaCheckLaunch();
}

/* The scratch of embed_backward_cuda, at least `bytes` long. */
static void *embed_scratch(size_t bytes)
{
	static void *buf;
	static size_t cap;
	if (bytes > cap) {
		if (buf)
			cudaCheck(cudaFree(buf));
		buf = NULL;
		cap = 0;
		cudaCheck(cudaMalloc(&buf, bytes));
		cap = bytes;
	}
	return buf;
}

extern "C" void embed_backward_cuda(float *dwte, float *dwpe, const float *dout, const int *tokens, int B,
				    int T, int C)
{
	if ((size_t)B * T * C == 0)
		return;
	int n = B * T;
	/* three arrays of n ints, each 256-byte aligned, then CUB's storage */
	size_t ints = ((size_t)n * sizeof(int) + 255) / 256 * 256, sort_bytes = 0;
	cudaCheck(cub::DeviceRadixSort::SortPairs(NULL, sort_bytes, tokens, (int *)NULL, (const int *)NULL,
						  (int *)NULL, n));
	char *scratch = (char *)embed_scratch(3 * ints + sort_bytes);
	int *pos = (int *)scratch, *key = (int *)(scratch + ints);
	int *sorted_pos = (int *)(scratch + 2 * ints);
	embed_positions_kernel<<<(n + KERNELS_BLOCK - 1) / KERNELS_BLOCK, KERNELS_BLOCK>>>(pos, n);
	cudaCheckLaunch();
	cudaCheck(cub::DeviceRadixSort::SortPairs(scratch + 3 * ints, sort_bytes, tokens, key, pos,
						  sorted_pos, n));
	dim3 grid(cuda_grid_for((size_t)n * KERNELS_BLOCK), (C + 127) / 128);
	embed_backward_wte_kernel<<<grid, 128>>>(dwte, dout, key, sorted_pos, n, C);
	cudaCheckLaunch();
	size_t tc = (size_t)T * C;
	embed_backward_wpe_kernel<<<(unsigned)((tc + KERNELS_BLOCK - 1) / KERNELS_BLOCK), KERNELS_BLOCK>>>(
		dwpe, dout, B, T, C);
	cudaCheckLaunch();
}
