/*
 * matmul_cuda.cu: CUDA twin of matmul_cpu.c through cuBLAS.
 *
 * cuBLAS is column-major; a row-major matrix is its column-major transpose,
 * so the row-major C = op(A) op(B) is computed as the column-major
 * C^T = op(B)^T op(A)^T: swap the operands and m/n, keep the transpose flags.
 * FP32 throughout (default cuBLAS math mode: no TF32 unless the user sets
 * NVIDIA_TF32_OVERRIDE), so results stay within float rounding of the C
 * reference.  One handle per process, created on first use, which
 * attention_cuda.cu borrows through matmul_cuda_handle().
 */
#include <cublas_v2.h>

#include "kernels/kernels.h"
#include "kernels/cuda_common.h"

static cublasHandle_t matmul_handle;

/* Create the handle now (backend_cuda calls this to fail early and clearly). */
extern "C" int matmul_cuda_init(void)
{
	if (!matmul_handle && cublasCreate(&matmul_handle) != CUBLAS_STATUS_SUCCESS) {
		matmul_handle = NULL;
		return -1;
	}
	return 0;
}

/* The handle, for the other kernels that call cuBLAS (attention_cuda.cu). */
extern "C" cublasHandle_t matmul_cuda_handle(void)
{
	if (!matmul_handle)
		cublasCheck(cublasCreate(&matmul_handle));
	return matmul_handle;
}

extern "C" void matmul_sgemm_cuda(int transa, int transb, int m, int n, int k, float alpha, const float *A,
				  const float *B, float beta, float *C)
{
	if (m <= 0 || n <= 0)
		return;
	if (!matmul_handle)
		cublasCheck(cublasCreate(&matmul_handle));
	if (k <= 0) { /* cuBLAS would scale C by beta; keep the beta == 0 contract */
		if (beta == 0.0f)
			cudaCheck(cudaMemsetAsync(C, 0, (size_t)m * n * sizeof(float)));
		else
			cublasCheck(cublasSscal(matmul_handle, m * n, &beta, C, 1));
		return;
	}
	int lda = transa ? m : k; /* row length of A as stored */
	int ldb = transb ? k : n;
	cublasCheck(cublasSgemm(matmul_handle, transb ? CUBLAS_OP_T : CUBLAS_OP_N,
				transa ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &alpha, B, ldb, A, lda, &beta, C,
				n));
}
