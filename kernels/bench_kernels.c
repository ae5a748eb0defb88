/*
 * bench_kernels.c: memory bandwidth of the optimizer and combine kernels
 * (`make bench-kernels`; a benchmark, never a test).
 *
 * For each kernel it counts the bytes the kernel must move (each float read
 * or written once: e.g. AdamW reads param, grad, m, v and writes param, m,
 * v: 7 x 4 bytes per element), times repeated calls on vectors much larger
 * than the caches, and reports GB/s on the CPU backend and, where a CUDA
 * device answers, on the GPU with the fraction of the device's theoretical
 * peak (2 x memory clock x bus width, from cudaDeviceGetAttribute), and the
 * matrix product in GFLOP/s at the MLP's shapes; then the transformer's
 * kernels at a training shape (B x T tokens of C channels): the
 * memory-bound ones in GB/s (bytes they must move) and attention in GFLOP/s
 * (causal: half the T x T scores), with the fraction of the device's FP32
 * peak (SMs x 128 lanes x 2 x clock: sm_80/sm_90 parts).
 *
 *   bench_kernels [--n FLOATS] [--cpu-only]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "kernels/backend.h"

#ifdef HAVE_CUDA
#include <cuda_runtime.h>
#endif

static double bench_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

enum { K_SGD, K_ADAMW, K_NESTEROV, K_DELTA, K_AXPY, K_SCALE, K_NONFINITE, K_COUNT };
static const char *kernel_name[K_COUNT] = { "sgd_step", "adamw_step", "nesterov_step",  "delta",
					    "axpy",     "scale",      "count_nonfinite" };
static const int kernel_floats[K_COUNT] = { 5, 7, 5, 3, 3, 2, 1 }; /* floats moved per element */

static void bench_run(const nodeox_backend_t *be, int k, float **v, size_t n, int64_t step)
{
	switch (k) {
	case K_SGD: be->sgd_step(v[0], v[1], v[2], n, 1e-3f, 0.9f, 1e-4f); break;
	case K_ADAMW:
		be->adamw_step(v[0], v[1], v[2], v[3], NULL, n, 1e-4f, 0.9f, 0.95f, 1e-8f, 0.1f, step);
		break;
	case K_NESTEROV: be->nesterov_step(v[0], v[1], v[2], n, 0.7f, 0.9f); break;
	case K_DELTA: be->delta(v[0], v[1], v[2], n); break;
	case K_AXPY: be->axpy(v[0], v[1], 0.25f, n); break;
	case K_SCALE: be->scale(v[0], 0.999f, n); break;
	case K_NONFINITE: (void)be->count_nonfinite(v[0], n); break;
	}
}

/* Seconds per call of kernel k (median-free: best of a few timed batches). */
static double bench_time(const nodeox_backend_t *be, int k, float **v, size_t n)
{
	bench_run(be, k, v, n, 1); /* warm-up: page faults, JIT, cuBLAS init */
	be->sync();
	int reps = be->on_device ? 50 : 3;
	double best = 1e30;
	for (int trial = 0; trial < 3; trial++) {
		double t = bench_now();
		for (int r = 0; r < reps; r++)
			bench_run(be, k, v, n, 2 + r);
		be->sync();
		t = (bench_now() - t) / reps;
		best = t < best ? t : best;
	}
	return best;
}

static void bench_backend(const nodeox_backend_t *be, size_t n, double peak_gbs)
{
	float *v[4];
	float *host = malloc(n * sizeof(float));
	for (size_t i = 0; i < n; i++)
		host[i] = 1e-3f * (float)(i % 1000);
	for (int i = 0; i < 4; i++) {
		v[i] = be->alloc(n * sizeof(float));
		if (!v[i]) {
			fprintf(stderr, "bench_kernels: out of %s memory for %zu floats\n", be->name, n);
			exit(1);
		}
		be->copy_h2d(v[i], host, n * sizeof(float));
	}
	printf("\n%s backend, n = %zu floats (%.0f MB per vector)\n", be->name, n, n * 4.0 / 1e6);
	printf("%-16s %10s %10s%s\n", "kernel", "time_ms", "GB/s", peak_gbs > 0 ? "   of_peak" : "");
	for (int k = 0; k < K_COUNT; k++) {
		double t = bench_time(be, k, v, n);
		double gbs = (double)kernel_floats[k] * 4.0 * (double)n / t / 1e9;
		if (peak_gbs > 0)
			printf("%-16s %10.3f %10.1f %9.1f%%\n", kernel_name[k], t * 1e3, gbs,
			       100.0 * gbs / peak_gbs);
		else
			printf("%-16s %10.3f %10.1f\n", kernel_name[k], t * 1e3, gbs);
	}

	/* the MLP's matrix products (batch 64, 784 -> 256 layer): forward, dW, dX */
	int shapes[3][5] = { { 0, 1, 64, 256, 784 }, { 1, 0, 256, 784, 64 }, { 0, 0, 64, 784, 256 } };
	for (int s = 0; s < 3; s++) {
		int ta = shapes[s][0], tb = shapes[s][1], m = shapes[s][2], nn = shapes[s][3],
		    kk = shapes[s][4];
		be->sgemm(ta, tb, m, nn, kk, 1.0f, v[0], v[1], 0.0f, v[2]);
		be->sync();
		int reps = be->on_device ? 200 : 20;
		double t = bench_now();
		for (int r = 0; r < reps; r++)
			be->sgemm(ta, tb, m, nn, kk, 1.0f, v[0], v[1], 0.0f, v[2]);
		be->sync();
		t = (bench_now() - t) / reps;
		printf("sgemm %c%c %dx%dx%-4d %8.3f ms %8.1f GFLOP/s\n", ta ? 'T' : 'N', tb ? 'T' : 'N', m,
		       nn, kk, t * 1e3, 2.0 * m * nn * kk / t / 1e9);
	}
	for (int i = 0; i < 4; i++)
		be->free(v[i]);
	free(host);
}

/* ------------------------------------------------------------ transformer kernels */

enum { T_EMBED_F, T_EMBED_B, T_LN_F, T_LN_B, T_ATT_F, T_ATT_B, T_GELU_F, T_GELU_B, T_RESID, T_COUNT };
static const char *tkernel_name[T_COUNT] = { "embed_forward",      "embed_backward",    "layernorm_forward",
					     "layernorm_backward", "attention_forward", "attention_backward",
					     "gelu_forward",       "gelu_backward",     "residual_forward" };

typedef struct tbufs {
	int B, T, C, NH;
	float *wte, *wpe, *x, *y, *dy, *mean, *rstd, *w, *b, *dw, *db, *qkv, *dqkv, *pre, *att, *d1, *d2, *h4,
		*g4;
	int *tok;
} tbufs_t;

static void tbench_run(const nodeox_backend_t *be, int k, tbufs_t *t)
{
	int B = t->B, T = t->T, C = t->C, NH = t->NH, N = B * T;
	size_t n4 = (size_t)N * 4 * C;
	switch (k) {
	case T_EMBED_F: be->embed_forward(t->x, t->tok, t->wte, t->wpe, B, T, C); break;
	case T_EMBED_B: be->embed_backward(t->wte, t->wpe, t->dy, t->tok, B, T, C); break;
	case T_LN_F: be->layernorm_forward(t->y, t->mean, t->rstd, t->x, t->w, t->b, N, C); break;
	case T_LN_B:
		be->layernorm_backward(t->x, t->dw, t->db, t->dy, t->y, t->w, t->mean, t->rstd, N, C);
		break;
	case T_ATT_F: be->attention_forward(t->y, t->pre, t->att, t->qkv, B, T, C, NH); break;
	case T_ATT_B:
		be->attention_backward(t->dqkv, t->d1, t->d2, t->dy, t->qkv, t->att, B, T, C, NH);
		break;
	case T_GELU_F: be->gelu_forward(t->g4, t->h4, n4); break;
	case T_GELU_B: be->gelu_backward(t->g4, t->h4, t->g4, n4); break;
	case T_RESID: be->residual_forward(t->y, t->x, t->dy, (size_t)N * C); break;
	}
}

static void bench_transformer(const nodeox_backend_t *be, int B, int T, int C, int NH, double peak_gbs,
			      double peak_gflops)
{
	tbufs_t t;
	memset(&t, 0, sizeof(t));
	t.B = B;
	t.T = T;
	t.C = C;
	t.NH = NH;
	size_t N = (size_t)B * T, att_n = (size_t)B * NH * T * T;
	struct {
		float **p;
		size_t n;
	} want[] = { { &t.wte, 256 * (size_t)C },
		     { &t.wpe, (size_t)T * C },
		     { &t.x, N * C },
		     { &t.y, N * C },
		     { &t.dy, N * C },
		     { &t.mean, N },
		     { &t.rstd, N },
		     { &t.w, (size_t)C },
		     { &t.b, (size_t)C },
		     { &t.dw, (size_t)C },
		     { &t.db, (size_t)C },
		     { &t.qkv, 3 * N * C },
		     { &t.dqkv, 3 * N * C },
		     { &t.pre, att_n },
		     { &t.att, att_n },
		     { &t.d1, att_n },
		     { &t.d2, att_n },
		     { &t.h4, 4 * N * C },
		     { &t.g4, 4 * N * C } };
	size_t most = 4 * N * C > att_n ? 4 * N * C : att_n;
	float *host = malloc(most * sizeof(float));
	int *tok = malloc(N * sizeof(int));
	for (size_t i = 0; i < most; i++)
		host[i] = 0.25f * (float)((i * 2654435761u) % 1000) / 1000.0f;
	for (size_t i = 0; i < N; i++)
		tok[i] = (int)((i * 2654435761u) % 256);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		*want[i].p = be->alloc(want[i].n * sizeof(float));
		if (!*want[i].p) {
			fprintf(stderr, "bench_kernels: out of %s memory\n", be->name);
			exit(1);
		}
		be->copy_h2d(*want[i].p, host, want[i].n * sizeof(float));
	}
	t.tok = be->alloc(N * sizeof(int));
	be->copy_h2d(t.tok, tok, N * sizeof(int));
	be->attention_forward(t.y, t.pre, t.att, t.qkv, B, T, C, NH); /* a real softmax in att */
	double hs = (double)C / NH;
	/* floats each kernel must move, and attention's flops (causal: T(T+1)/2 scores) */
	double moved[T_COUNT] = { 3.0 * N * C, 5.0 * N * C, 2.0 * N * C,  6.0 * N * C, 0,
				  0,           8.0 * N * C, 12.0 * N * C, 3.0 * N * C };
	double pairs = (double)B * NH * T * (T + 1) / 2.0;
	double flops[T_COUNT] = { 0, 0, 0, 0, 4.0 * pairs * hs, 8.0 * pairs * hs, 0, 0, 0 };
	printf("\n%s backend, transformer kernels at B %d, T %d, C %d, %d heads\n", be->name, B, T, C, NH);
	printf("%-20s %10s %12s%s\n", "kernel", "time_ms", "GB/s|GFLOP/s", peak_gbs > 0 ? "   of_peak" : "");
	for (int k = 0; k < T_COUNT; k++) {
		tbench_run(be, k, &t);
		be->sync();
		int reps = be->on_device ? 50 : 3;
		double best = 1e30;
		for (int trial = 0; trial < 3; trial++) {
			double t0 = bench_now();
			for (int r = 0; r < reps; r++)
				tbench_run(be, k, &t);
			be->sync();
			double s = (bench_now() - t0) / reps;
			best = s < best ? s : best;
		}
		double rate = flops[k] > 0 ? flops[k] / best / 1e9 : moved[k] * 4.0 / best / 1e9;
		double peak = flops[k] > 0 ? peak_gflops : peak_gbs;
		if (peak > 0)
			printf("%-20s %10.3f %12.1f %9.1f%%\n", tkernel_name[k], best * 1e3, rate,
			       100.0 * rate / peak);
		else
			printf("%-20s %10.3f %12.1f\n", tkernel_name[k], best * 1e3, rate);
	}
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		be->free(*want[i].p);
	be->free(t.tok);
	free(host);
	free(tok);
}

int main(int argc, char **argv)
{
	size_t n = 1u << 24; /* 64 MB per vector: beyond any cache */
	int cpu_only = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--n") == 0 && i + 1 < argc)
			n = (size_t)strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--cpu-only") == 0)
			cpu_only = 1;
		else {
			fprintf(stderr, "usage: %s [--n FLOATS] [--cpu-only]\n", argv[0]);
			return 2;
		}
	}
	if (n < 1u << 20) {
		fprintf(stderr, "bench_kernels: --n must be at least 1048576 (sgemm operands)\n");
		return 2;
	}
	bench_backend(backend_cpu(), n, 0.0);
	bench_transformer(backend_cpu(), 8, 64, 64, 4, 0.0, 0.0); /* nodeox-run's default model */
	if (cpu_only)
		return 0;

	char err[256];
	const nodeox_backend_t *gpu = backend_cuda(0, err, sizeof(err));
	if (!gpu) {
		printf("\nCUDA backend: %s (GPU part skipped)\n", err);
		return 0;
	}
	double peak = 0.0, peak_gflops = 0.0;
#ifdef HAVE_CUDA
	int clock_khz = 0, bus_bits = 0;
	struct cudaDeviceProp prop;
	cudaGetDeviceProperties(&prop, gpu->device);
	cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, gpu->device);
	cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, gpu->device);
	peak = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
	printf("\ndevice %d: %s, %d SMs, memory clock %.0f MHz x %d-bit bus: peak %.0f GB/s\n", gpu->device,
	       prop.name, prop.multiProcessorCount, clock_khz / 1e3, bus_bits, peak);
	int sm_khz = 0;
	cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, gpu->device);
	peak_gflops = prop.multiProcessorCount * 128.0 * 2.0 * sm_khz * 1e3 / 1e9;
	printf("FP32 peak %.0f GFLOP/s (%d SMs x 128 lanes x 2 x %.0f MHz)\n", peak_gflops,
	       prop.multiProcessorCount, sm_khz / 1e3);
#endif
	/* 4 vectors of n floats must fit: use 4x more elements on a GPU when they do */
	bench_backend(gpu, n * 4, peak);
	bench_transformer(gpu, 8, 64, 64, 4, peak, peak_gflops);     /* the default model */
	bench_transformer(gpu, 32, 512, 768, 12, peak, peak_gflops); /* a GPT-2-small layer */
	return 0;
}
