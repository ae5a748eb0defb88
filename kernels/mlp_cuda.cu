/*
 * mlp_cuda.cu: CUDA twins of mlp_cpu.c (bias add, bias gradient, ReLU
 * forward/backward).  The bias gradient is one thread per column summing
 * down the rows (adjacent threads read adjacent columns: coalesced), which
 * matches the C reference's summation order exactly.
 */
#include "kernels/kernels.h"
#include "kernels/elementwise_cuda.cuh"

__global__ static void bias_add_kernel(float *y, const float *b, int rows, int cols)
{
	size_t n = (size_t)rows * cols;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		y[i] += b[i % cols];
}

__global__ static void bias_grad_kernel(float *db, const float *dy, int rows, int cols)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	if (c >= cols)
		return;
	float s = 0.0f;
	for (int r = 0; r < rows; r++)
		s += dy[(size_t)r * cols + c];
	db[c] = s;
}

struct relu_fwd_op {
	__device__ void operator()(float *e) const
	{
		e[0] = e[1] > 0.0f ? e[1] : 0.0f;
	} /* y, x */
};
struct relu_bwd_op {
	__device__ void operator()(float *e) const
	{
		e[0] = e[2] > 0.0f ? e[1] : 0.0f;
	} /* dx, dy, y */
};

extern "C" void mlp_bias_add_cuda(float *y, const float *b, int rows, int cols)
{
	size_t n = (size_t)rows * cols;
	if (n == 0)
		return;
	bias_add_kernel<<<cuda_grid_for(n), KERNELS_BLOCK>>>(y, b, rows, cols);
	cudaCheckLaunch();
}

extern "C" void mlp_bias_grad_cuda(float *db, const float *dy, int rows, int cols)
{
	if (cols <= 0)
		return;
	bias_grad_kernel<<<(cols + KERNELS_BLOCK - 1) / KERNELS_BLOCK, KERNELS_BLOCK>>>(db, dy, rows, cols);
	cudaCheckLaunch();
}

extern "C" void mlp_relu_forward_cuda(float *y, const float *x, size_t n)
{
	ew_launch<0x1u, 0x2u>(n, relu_fwd_op{}, (const float *)y, x);
}

extern "C" void mlp_relu_backward_cuda(float *dx, const float *dy, const float *y, size_t n)
{
	ew_launch<0x1u, 0x6u>(n, relu_bwd_op{}, (const float *)dx, dy, y);
}
