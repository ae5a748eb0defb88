/*
 * backend_cuda.cu: the CUDA backend, device memory and the `_cuda` kernels.
 *
 * backend_cuda(device) checks that a device answers (cudaGetDeviceCount),
 * selects it, creates the cuBLAS handle, and returns the table; every
 * failure is a NULL with a message, never an exit, so a caller can fall back
 * or skip.  Memory ops use the default stream; copies to and from the host
 * are synchronous (cudaMemcpy), which is what the rounds engine wants before
 * handing a buffer to MPI.
 */
#include <stdio.h>

#include "kernels/backend.h"
#include "kernels/kernels.h"
#include "kernels/cuda_common.h"

extern "C" int matmul_cuda_init(void);

static void *_cuda_alloc(size_t bytes)
{
	void *p = NULL;
	if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) {
		(void)cudaGetLastError(); /* clear the sticky-free error: caller sees NULL */
		return NULL;
	}
	cudaCheck(cudaMemset(p, 0, bytes));
	return p;
}

static void _cuda_free(void *p)
{
	if (p)
		cudaCheck(cudaFree(p));
}

static void _cuda_zero(void *p, size_t bytes)
{
	cudaCheck(cudaMemsetAsync(p, 0, bytes));
}
static void _cuda_h2d(void *dst, const void *src, size_t bytes)
{
	cudaCheck(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}
static void _cuda_d2h(void *dst, const void *src, size_t bytes)
{
	cudaCheck(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}
static void _cuda_d2d(void *dst, const void *src, size_t bytes)
{
	cudaCheck(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice));
}
static void _cuda_sync(void)
{
	cudaCheck(cudaDeviceSynchronize());
}

static nodeox_backend_t cuda_backend = {
	"cuda",
	1,
	0,
	_cuda_alloc,
	_cuda_free,
	_cuda_zero,
	_cuda_h2d,
	_cuda_d2h,
	_cuda_d2d,
	_cuda_sync,
	optim_sgd_step_cuda,
	optim_adamw_step_cuda,
	optim_nesterov_step_cuda,
	combine_delta_cuda,
	combine_axpy_cuda,
	combine_scale_cuda,
	combine_count_nonfinite_cuda,
	combine_sumsq_cuda,
	matmul_sgemm_cuda,
	mlp_bias_add_cuda,
	mlp_bias_grad_cuda,
	mlp_relu_forward_cuda,
	mlp_relu_backward_cuda,
	loss_softmax_xent_forward_cuda,
	loss_softmax_xent_backward_cuda,
	loss_argmax_correct_cuda,
	embed_forward_cuda,
	embed_backward_cuda,
	layernorm_forward_cuda,
	layernorm_backward_cuda,
	attention_forward_cuda,
	attention_backward_cuda,
	pointwise_gelu_forward_cuda,
	pointwise_gelu_backward_cuda,
	pointwise_residual_forward_cuda,
};

extern "C" const nodeox_backend_t *backend_cuda(int device, char *err, size_t errlen)
{
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess) {
		snprintf(err, errlen, "no CUDA device: cudaGetDeviceCount: %s", cudaGetErrorString(e));
		return NULL;
	}
	if (count <= 0) {
		snprintf(err, errlen, "no CUDA device: cudaGetDeviceCount found 0 devices");
		return NULL;
	}
	if (device < 0 || device >= count) {
		snprintf(err, errlen, "CUDA device %d requested, but only %d present (0..%d)", device, count,
			 count - 1);
		return NULL;
	}
	e = cudaSetDevice(device);
	if (e != cudaSuccess) {
		snprintf(err, errlen, "cudaSetDevice(%d): %s", device, cudaGetErrorString(e));
		return NULL;
	}
	if (matmul_cuda_init() != 0) {
		snprintf(err, errlen, "cuBLAS: cublasCreate failed on CUDA device %d", device);
		return NULL;
	}
	cuda_backend.device = device;
	return &cuda_backend;
}
