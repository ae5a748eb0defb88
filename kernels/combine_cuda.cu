/*
 * combine_cuda.cu: CUDA twins of combine_cpu.c.  delta/axpy/scale go through
 * the element-wise kernel; the two reductions (non-finite count, sum of
 * squares) reduce per block and add one atomic per block into a device word
 * that the host then reads (so they synchronize).
 */
#include <math.h>

#include "kernels/kernels.h"
#include "kernels/elementwise_cuda.cuh"

struct delta_op {
	__device__ void operator()(float *e) const
	{
		e[0] = e[1] - e[2];
	} /* delta, global, local */
};
struct axpy_op {
	float w;
	__device__ void operator()(float *e) const
	{
		e[0] += w * e[1];
	} /* out, x */
};
struct scale_op {
	float a;
	__device__ void operator()(float *e) const
	{
		e[0] *= a;
	}
};

extern "C" void combine_delta_cuda(float *delta, const float *global, const float *local, size_t n)
{
	ew_launch<0x1u, 0x6u>(n, delta_op{}, (const float *)delta, global, local);
}

extern "C" void combine_axpy_cuda(float *out, const float *x, float w, size_t n)
{
	ew_launch<0x1u>(n, axpy_op{ w }, (const float *)out, x);
}

extern "C" void combine_scale_cuda(float *x, float a, size_t n)
{
	ew_launch<0x1u>(n, scale_op{ a }, (const float *)x);
}

static __device__ unsigned long long combine_bad_count;
static __device__ double combine_sum;

/* Sum of v over the block (warp shuffles, then one word per warp); the result
 * is valid in thread 0.  Blocks are KERNELS_BLOCK threads. */
template <typename T> __device__ static T block_sum(T v)
{
	__shared__ T part[KERNELS_BLOCK / 32];
	for (int o = 16; o > 0; o /= 2)
		v += __shfl_down_sync(0xffffffffu, v, o);
	if (threadIdx.x % 32 == 0)
		part[threadIdx.x / 32] = v;
	__syncthreads();
	T t = 0;
	if (threadIdx.x == 0)
		for (int w = 0; w < KERNELS_BLOCK / 32; w++)
			t += part[w];
	return t;
}

__global__ static void count_nonfinite_kernel(const float *x, size_t n)
{
	unsigned long long bad = 0;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		bad += !isfinite(x[i]);
	bad = block_sum(bad);
	if (threadIdx.x == 0 && bad)
		atomicAdd(&combine_bad_count, bad);
}

__global__ static void sumsq_kernel(const float *x, size_t n)
{
	double s = 0.0;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		s += (double)x[i] * (double)x[i];
	s = block_sum(s);
	if (threadIdx.x == 0)
		atomicAdd(&combine_sum, s);
}

extern "C" size_t combine_count_nonfinite_cuda(const float *x, size_t n)
{
	unsigned long long zero = 0, bad = 0;
	if (n == 0)
		return 0;
	cudaCheck(cudaMemcpyToSymbol(combine_bad_count, &zero, sizeof(zero)));
	count_nonfinite_kernel<<<cuda_grid_for(n), KERNELS_BLOCK>>>(x, n);
	cudaCheckLaunch();
	cudaCheck(cudaMemcpyFromSymbol(&bad, combine_bad_count, sizeof(bad)));
	return (size_t)bad;
}

extern "C" double combine_sumsq_cuda(const float *x, size_t n)
{
	double zero = 0.0, s = 0.0;
	if (n == 0)
		return 0.0;
	cudaCheck(cudaMemcpyToSymbol(combine_sum, &zero, sizeof(zero)));
	sumsq_kernel<<<cuda_grid_for(n), KERNELS_BLOCK>>>(x, n);
	cudaCheckLaunch();
	cudaCheck(cudaMemcpyFromSymbol(&s, combine_sum, sizeof(s)));
	return s;
}
