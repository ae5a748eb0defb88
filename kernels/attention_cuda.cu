/*
 * attention_cuda.cu: CUDA twins of attention_cpu.c, as llm.c's
 * attention_forward/backward: the matrix products are cuBLAS strided-batched
 * SGEMMs (FP32, the process's handle from matmul_cuda.cu), and two small
 * kernels, one warp per score row, do the causal softmax and its gradient.
 *
 * Layout.  For batch b and head h, with hs = C / NH:
 *   Q, K, V  T x hs, row t at qkv + (b T + t) 3C + {0, C, 2C} + h hs (row stride 3C)
 *   out, dout  T x hs, row t at out + (b T + t) C + h hs (row stride C)
 *   preatt, att, dpreatt, datt  T x T, contiguous at ((b NH + h) T) T
 * The products read and write those matrices in place through cuBLAS's
 * leading dimensions, so nothing is permuted and no scratch is needed.
 * (b, h) is not one stride apart in qkv, so each product is one strided
 * batch per head over b (or per b over heads, whichever loop is shorter).
 * cuBLAS is column-major: a row-major r x c matrix with row stride ld is,
 * to cuBLAS, its c x r transpose with leading dimension ld.
 *
 * Forward:  preatt = scale Q K^T (all T x T), then the softmax kernel writes
 *           att over t2 <= t and 0 in both arrays beyond; out = att V.
 * Backward: datt = dout V^T; the softmax gradient kernel writes
 *           dpreatt = att (datt - sum att datt) over t2 <= t and 0 beyond in
 *           both; then dV += att^T dout, dQ += scale dpreatt K,
 *           dK += scale dpreatt^T Q (beta 1: dqkv accumulates).  The dV
 *           product takes att whole, so att must be what the forward pass
 *           wrote (0 beyond t), as everywhere nodeox calls it.
 */
#include <math.h>

#include "kernels/kernels.h"
#include "kernels/cuda_common.h"

/* One row-major matrix of every (b, h) pair: base pointer, row stride, and
 * the distance between consecutive b and between consecutive h. */
typedef struct {
	const float *p;
	int ld;
	long long sb, sh;
} attention_mat_t;

/* For every (b, h): C = alpha op(A) op(B) + beta C, row-major, where op(A)
 * is m x k, op(B) k x n and C m x n (ta, tb: 1 to transpose).  As in
 * matmul_cuda.cu, the column-major C^T = op(B)^T op(A)^T: swap the operands
 * and m/n, keep the flags. */
static void attention_gemm(int ta, int tb, int m, int n, int k, float alpha, attention_mat_t A,
			   attention_mat_t Bm, float beta, attention_mat_t Cm, int B, int NH)
{
	cublasHandle_t handle = matmul_cuda_handle();
	cublasOperation_t opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
	float *c = (float *)Cm.p;
	if (NH <= B) { /* one batch of B per head */
		for (int h = 0; h < NH; h++)
			cublasCheck(cublasSgemmStridedBatched(
				handle, opb, opa, n, m, k, &alpha, Bm.p + h * Bm.sh, Bm.ld, Bm.sb,
				A.p + h * A.sh, A.ld, A.sb, &beta, c + h * Cm.sh, Cm.ld, Cm.sb, B));
	} else { /* one batch of NH per b */
		for (int b = 0; b < B; b++)
			cublasCheck(cublasSgemmStridedBatched(
				handle, opb, opa, n, m, k, &alpha, Bm.p + b * Bm.sb, Bm.ld, Bm.sh,
				A.p + b * A.sb, A.ld, A.sh, &beta, c + b * Cm.sb, Cm.ld, Cm.sh, NH));
	}
}

/* Row r = (b NH + h) T + t of the B NH T score rows: softmax over t2 <= t of
 * preatt, into att; entries t2 > t of both set to 0.  One warp per row. */
__global__ static void attention_softmax_kernel(float *att, float *preatt, int rows, int T)
{
	int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
	if (row >= rows)
		return; /* the whole warp: row is the same for its 32 lanes */
	int t = row % T;
	float *pre = preatt + (size_t)row * T, *a = att + (size_t)row * T;
	float mx = -INFINITY;
	for (int t2 = lane; t2 <= t; t2 += 32)
		mx = fmaxf(mx, pre[t2]);
	mx = warp_max(mx);
	float sum = 0.0f;
	for (int t2 = lane; t2 <= t; t2 += 32)
		sum += expf(pre[t2] - mx);
	float inv = 1.0f / warp_sum(sum);
	for (int t2 = lane; t2 < T; t2 += 32) {
		if (t2 <= t) {
			a[t2] = expf(pre[t2] - mx) * inv;
		} else {
			a[t2] = 0.0f;
			pre[t2] = 0.0f;
		}
	}
}

/* Row r as above: dpreatt = att (datt - sum_t2<=t att datt) over t2 <= t;
 * entries t2 > t of dpreatt and datt set to 0.  One warp per row. */
__global__ static void attention_softmax_backward_kernel(float *dpreatt, float *datt, const float *att,
							 int rows, int T)
{
	int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
	if (row >= rows)
		return;
	int t = row % T;
	const float *a = att + (size_t)row * T;
	float *da = datt + (size_t)row * T, *dpre = dpreatt + (size_t)row * T;
	float dot = 0.0f;
	for (int t2 = lane; t2 <= t; t2 += 32)
		dot += a[t2] * da[t2];
	dot = warp_sum(dot);
	for (int t2 = lane; t2 < T; t2 += 32) {
		if (t2 <= t) {
			dpre[t2] = a[t2] * (da[t2] - dot);
		} else {
			dpre[t2] = 0.0f;
			da[t2] = 0.0f;
		}
	}
}

/* Blocks for one warp per row over `rows` rows. */
static unsigned attention_row_blocks(int rows)
{
	int warps = KERNELS_BLOCK / 32;
	return (unsigned)((rows + warps - 1) / warps);
}

/* The (b, h) matrices of qkv's part `part` (0 Q, 1 K, 2 V), of an out-like
 * (B T) x C array, and of a B x NH x T x T score array. */
static attention_mat_t attention_qkv(const float *qkv, int part, int T, int C, int NH)
{
	attention_mat_t m = { qkv + (size_t)part * C, 3 * C, (long long)T * 3 * C, C / NH };
	return m;
}
static attention_mat_t attention_heads(const float *x, int T, int C, int NH)
{
	attention_mat_t m = { x, C, (long long)T * C, C / NH };
	return m;
}
static attention_mat_t attention_scores(const float *s, int T, int NH)
{
	attention_mat_t m = { s, T, (long long)NH * T * T, (long long)T * T };
	return m;
}

extern "C" void attention_forward_cuda(float *out, float *preatt, float *att, const float *qkv, int B, int T,
				       int C, int NH)
{
	if (B <= 0 || T <= 0 || NH <= 0 || C <= 0)
		return;
	int hs = C / NH, rows = B * NH * T;
	float scale = 1.0f / sqrtf((float)hs);
	attention_mat_t q = attention_qkv(qkv, 0, T, C, NH), k = attention_qkv(qkv, 1, T, C, NH);
	attention_mat_t v = attention_qkv(qkv, 2, T, C, NH);
	attention_mat_t pre = attention_scores(preatt, T, NH), a = attention_scores(att, T, NH);
	/* preatt (T x T) = scale Q K^T */
	attention_gemm(0, 1, T, T, hs, scale, q, k, 0.0f, pre, B, NH);
	attention_softmax_kernel<<<attention_row_blocks(rows), KERNELS_BLOCK>>>(att, preatt, rows, T);
	cudaCheckLaunch();
	/* out (T x hs) = att V */
	attention_gemm(0, 0, T, hs, T, 1.0f, a, v, 0.0f, attention_heads(out, T, C, NH), B, NH);
}

extern "C" void attention_backward_cuda(float *dqkv, float *dpreatt, float *datt, const float *dout,
					const float *qkv, const float *att, int B, int T, int C, int NH)
{
	if (B <= 0 || T <= 0 || NH <= 0 || C <= 0)
		return;
	int hs = C / NH, rows = B * NH * T;
	float scale = 1.0f / sqrtf((float)hs);
	attention_mat_t q = attention_qkv(qkv, 0, T, C, NH), k = attention_qkv(qkv, 1, T, C, NH);
	attention_mat_t v = attention_qkv(qkv, 2, T, C, NH);
	attention_mat_t dq = attention_qkv(dqkv, 0, T, C, NH), dk = attention_qkv(dqkv, 1, T, C, NH);
	attention_mat_t dv = attention_qkv(dqkv, 2, T, C, NH);
	attention_mat_t d = attention_heads(dout, T, C, NH), a = attention_scores(att, T, NH);
	attention_mat_t dpre = attention_scores(dpreatt, T, NH), da = attention_scores(datt, T, NH);
	/* datt (T x T) = dout V^T */
	attention_gemm(0, 1, T, T, hs, 1.0f, d, v, 0.0f, da, B, NH);
	attention_softmax_backward_kernel<<<attention_row_blocks(rows), KERNELS_BLOCK>>>(dpreatt, datt, att,
											 rows, T);
	cudaCheckLaunch();
	/* dV (T x hs) += att^T dout; dQ += scale dpreatt K; dK += scale dpreatt^T Q */
	attention_gemm(1, 0, T, hs, T, 1.0f, a, d, 1.0f, dv, B, NH);
	attention_gemm(0, 0, T, hs, T, scale, dpre, k, 1.0f, dq, B, NH);
	attention_gemm(1, 0, T, hs, T, scale, dpre, q, 1.0f, dk, B, NH);
}
