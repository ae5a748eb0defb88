/*
 * elementwise_cuda.cuh: one generic grid-stride kernel for the element-wise
 * twins (optimizer steps, combine, ReLU).  An op is a functor applied to K
 * floats at the same index of K arrays; WMASK says which arrays it writes,
 * RMASK which it reads (an output-only array is not loaded: on a
 * memory-bound kernel that read would cost a third more time).
 * When every pointer is 16-byte aligned the loop moves float4s (the kernels
 * are memory-bound, and 128-bit accesses get closer to peak bandwidth), then
 * finishes the tail one float at a time.  In-place aliasing is safe: each
 * element is read before it is written, by the same thread.
 */
#ifndef NODEOX_ELEMENTWISE_CUDA_CUH
#define NODEOX_ELEMENTWISE_CUDA_CUH

#include <stdint.h>

#include "kernels/cuda_common.h"

template <int K> struct ew_ptrs {
	float *p[K];
};

template <int K, unsigned WMASK, unsigned RMASK, class Op>
__global__ void ew_kernel(ew_ptrs<K> a, size_t n, size_t n4, Op op)
{
	size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t v = tid; v < n4; v += stride) {
		float4 x[K];
#pragma unroll
		for (int k = 0; k < K; k++)
			x[k] = (RMASK & (1u << k)) ? reinterpret_cast<const float4 *>(a.p[k])[v]
						   : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
		float e[K];
		/* the four lanes of one float4, each through op (kept as written) */
		// clang-format off
#define EW_LANE(c)                                                   \
		_Pragma("unroll") for (int k = 0; k < K; k++) e[k] = x[k].c; \
		op(e);                                                       \
		_Pragma("unroll") for (int k = 0; k < K; k++) x[k].c = e[k];
		EW_LANE(x) EW_LANE(y) EW_LANE(z) EW_LANE(w)
#undef EW_LANE
#pragma unroll
		for (int k = 0; k < K; k++)
			if (WMASK & (1u << k))
				reinterpret_cast<float4 *>(a.p[k])[v] = x[k];
		// clang-format on
	}
	for (size_t i = n4 * 4 + tid; i < n; i += stride) {
		float e[K];
#pragma unroll
		for (int k = 0; k < K; k++)
			e[k] = (RMASK & (1u << k)) ? a.p[k][i] : 0.0f;
		op(e);
#pragma unroll
		for (int k = 0; k < K; k++)
			if (WMASK & (1u << k))
				a.p[k][i] = e[k];
	}
}

/* Launch op over n elements of the K arrays (default: op reads all). */
template <unsigned WMASK, unsigned RMASK = ~0u, class Op, class... P>
static void ew_launch(size_t n, Op op, P... ptrs)
{
	if (n == 0)
		return;
	constexpr int K = sizeof...(P);
	ew_ptrs<K> a = { { const_cast<float *>(ptrs)... } };
	int aligned = 1;
	for (int k = 0; k < K; k++)
		aligned &= ((uintptr_t)a.p[k] % 16) == 0;
	size_t n4 = aligned ? n / 4 : 0;
	ew_kernel<K, WMASK, RMASK, Op>
		<<<cuda_grid_for(aligned ? (n + 3) / 4 : n), KERNELS_BLOCK>>>(a, n, n4, op);
	cudaCheckLaunch();
}

#endif /* NODEOX_ELEMENTWISE_CUDA_CUH */
