/*
 * layernorm_cuda.cu: CUDA twins of layernorm_cpu.c.  Forward runs one warp
 * per row (lanes stride over C, sums by shuffles).  Backward is llm.c's
 * layernorm_backward_kernel2: one warp per row computes the row's two sums
 * and the input gradient, and adds the row's weight and bias gradients into
 * a block-wide copy in shared memory; once its warps have walked their rows
 * (grid-stride), each block adds that copy into dweight and dbias with one
 * atomic per column.  Where 2 C floats do not fit in shared memory the
 * weight and bias gradients are instead one thread per column summing down
 * the rows.
 */
#include "kernels/kernels.h"
#include "kernels/cuda_common.h"

/* C up to this many floats keeps its dweight and dbias copies in shared memory
 * (2 x 6144 floats = 48 KiB, the limit without an opt-in) */
#define LAYERNORM_SHARED_C 6144

__global__ static void layernorm_forward_kernel(float *out, float *mean, float *rstd, const float *inp,
						const float *weight, const float *bias, int N, int C)
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

/* One row's input gradient, by the 32 lanes of a warp; where db and dw
 * (shared memory) are not NULL, the row's bias and weight gradients are
 * added there too. */
__device__ static void layernorm_backward_row(float *dx, float *db, float *dw, const float *d, const float *x,
					      const float *weight, float m, float r, int C)
{
	int lane = threadIdx.x % 32;
	float a = 0.0f, b = 0.0f;
	for (int c = lane; c < C; c += 32) {
		float norm = (x[c] - m) * r, dnorm = weight[c] * d[c];
		a += dnorm;
		b += dnorm * norm;
	}
	a = warp_sum(a) / C;
	b = warp_sum(b) / C;
	for (int c = lane; c < C; c += 32) {
		float norm = (x[c] - m) * r, dnorm = weight[c] * d[c];
		if (db) {
			atomicAdd(&db[c], d[c]);
			atomicAdd(&dw[c], norm * d[c]);
		}
		dx[c] += r * (dnorm - a - norm * b);
	}
}

__global__ static void layernorm_backward_input_kernel(float *dinp, const float *dout, const float *inp,
						       const float *weight, const float *mean,
						       const float *rstd, int N, int C)
{
	int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
	if (row >= N)
		return;
	size_t off = (size_t)row * C;
	layernorm_backward_row(dinp + off, NULL, NULL, dout + off, inp + off, weight, mean[row], rstd[row],
			       C);
}

__global__ static void layernorm_backward_kernel(float *dinp, float *dweight, float *dbias, const float *dout,
						 const float *inp, const float *weight, const float *mean,
						 const float *rstd, int N, int C)
{
	extern __shared__ float shared[]; /* dbias then dweight, C each */
	float *db_sh = shared, *dw_sh = shared + C;
	for (int c = threadIdx.x; c < 2 * C; c += blockDim.x)
		shared[c] = 0.0f;
	__syncthreads();
	int warps = blockDim.x / 32;
	/* row is the same for the 32 lanes of a warp: the shuffles see all lanes */
	for (int row = blockIdx.x * warps + threadIdx.x / 32; row < N; row += gridDim.x * warps) {
		size_t off = (size_t)row * C;
		layernorm_backward_row(dinp + off, db_sh, dw_sh, dout + off, inp + off, weight, mean[row],
				       rstd[row], C);
	}
	__syncthreads();
	for (int c = threadIdx.x; c < C; c += blockDim.x) {
		atomicAdd(&dbias[c], db_sh[c]);
		atomicAdd(&dweight[c], dw_sh[c]);
	}
}

/* the fallback for wide rows: one thread per column, down the N rows */
__global__ static void layernorm_backward_params_kernel(float *dweight, float *dbias, const float *dout,
							const float *inp, const float *mean,
							const float *rstd, int N, int C)
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
	layernorm_forward_kernel<<<(N + warps - 1) / warps, KERNELS_BLOCK>>>(out, mean, rstd, inp, weight,
									     bias, N, C);
	cudaCheckLaunch();
}

extern "C" void layernorm_backward_cuda(float *dinp, float *dweight, float *dbias, const float *dout,
					const float *inp, const float *weight, const float *mean,
					const float *rstd, int N, int C)
{
	if (N <= 0 || C <= 0)
		return;
	if (C <= LAYERNORM_SHARED_C) {
		/* a warp per row: N rows are N x 32 threads; cuda_grid_for caps the
         * blocks at a few per SM, so each block sums many rows before its
         * C atomics per column */
		size_t shared = 2 * (size_t)C * sizeof(float);
		layernorm_backward_kernel<<<cuda_grid_for((size_t)N * 32), KERNELS_BLOCK, shared>>>(
			dinp, dweight, dbias, dout, inp, weight, mean, rstd, N, C);
		cudaCheckLaunch();
		return;
	}
	int warps = KERNELS_BLOCK / 32;
	layernorm_backward_input_kernel<<<(N + warps - 1) / warps, KERNELS_BLOCK>>>(dinp, dout, inp, weight,
										    mean, rstd, N, C);
	cudaCheckLaunch();
	layernorm_backward_params_kernel<<<(C + KERNELS_BLOCK - 1) / KERNELS_BLOCK, KERNELS_BLOCK>>>(
		dweight, dbias, dout, inp, mean, rstd, N, C);
	cudaCheckLaunch();
}
