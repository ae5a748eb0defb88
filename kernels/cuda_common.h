/*
 * cuda_common.h: what every kernels/..._cuda.cu file shares: error checks that
 * name file and line and stop (llm.c's cudaCheck, cublasCheck), the launch
 * geometry of the element-wise kernels (grid-stride loops over n elements),
 * warp reductions, and the process's cuBLAS handle (matmul_cuda.cu owns it).
 */
#ifndef NODEOX_CUDA_COMMON_H
#define NODEOX_CUDA_COMMON_H

#include <stdio.h>
#include <stdlib.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

static inline void cuda_check_at(cudaError_t e, const char *file, int line)
{
	if (e != cudaSuccess) {
		fprintf(stderr, "[CUDA ERROR] at %s:%d: %s\n", file, line, cudaGetErrorString(e));
		exit(EXIT_FAILURE);
	}
}
#define cudaCheck(expr) cuda_check_at((expr), __FILE__, __LINE__)
/* after a kernel launch: launch errors now, execution errors at the next sync */
#define cudaCheckLaunch() cuda_check_at(cudaGetLastError(), __FILE__, __LINE__)

static inline void cublas_check_at(cublasStatus_t s, const char *file, int line)
{
	if (s != CUBLAS_STATUS_SUCCESS) {
		fprintf(stderr, "[cuBLAS ERROR] at %s:%d: status %d\n", file, line, (int)s);
		exit(EXIT_FAILURE);
	}
}
#define cublasCheck(expr) cublas_check_at((expr), __FILE__, __LINE__)

/* The one cuBLAS handle of the process (default math mode: FP32, no TF32),
 * created on first use; defined in matmul_cuda.cu. */
extern "C" cublasHandle_t matmul_cuda_handle(void);

#define KERNELS_BLOCK 256

/* Enough blocks to fill the device a few times over for a grid-stride loop,
 * never more than the work needs. */
static inline unsigned cuda_grid_for(size_t n)
{
	static int sms;
	if (!sms) {
		int dev = 0;
		cudaCheck(cudaGetDevice(&dev));
		cudaCheck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
		if (sms <= 0)
			sms = 1;
	}
	size_t need = (n + KERNELS_BLOCK - 1) / KERNELS_BLOCK;
	size_t cap = (size_t)sms * 8;
	if (need < 1)
		need = 1;
	return (unsigned)(need < cap ? need : cap);
}

/* Sum and maximum over the 32 lanes of a warp; every lane gets the result
 * (all 32 lanes must call). */
__device__ static inline float warp_sum(float v)
{
	for (int o = 16; o > 0; o /= 2)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

__device__ static inline float warp_max(float v)
{
	for (int o = 16; o > 0; o /= 2)
		v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
	return v;
}

#endif /* NODEOX_CUDA_COMMON_H */
