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
 * matrix product in GFLOP/s at the MLP's shapes.
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
static const char *kernel_name[K_COUNT] = {"sgd_step", "adamw_step", "nesterov_step", "delta",
                                           "axpy", "scale", "count_nonfinite"};
static const int kernel_floats[K_COUNT] = {5, 7, 5, 3, 3, 2, 1}; /* floats moved per element */

static void bench_run(const nodeox_backend_t *be, int k, float **v, size_t n, int64_t step)
{
    switch (k) {
    case K_SGD: be->sgd_step(v[0], v[1], v[2], n, 1e-3f, 0.9f, 1e-4f); break;
    case K_ADAMW: be->adamw_step(v[0], v[1], v[2], v[3], n, 1e-4f, 0.9f, 0.95f, 1e-8f, 0.1f, step); break;
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
    bench_run(be, k, v, n, 1);   /* warm-up: page faults, JIT, cuBLAS init */
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
            printf("%-16s %10.3f %10.1f %9.1f%%\n", kernel_name[k], t * 1e3, gbs, 100.0 * gbs / peak_gbs);
        else
            printf("%-16s %10.3f %10.1f\n", kernel_name[k], t * 1e3, gbs);
    }

    /* the MLP's matrix products (batch 64, 784 -> 256 layer): forward, dW, dX */
    int shapes[3][5] = {{0, 1, 64, 256, 784}, {1, 0, 256, 784, 64}, {0, 0, 64, 784, 256}};
    for (int s = 0; s < 3; s++) {
        int ta = shapes[s][0], tb = shapes[s][1], m = shapes[s][2], nn = shapes[s][3], kk = shapes[s][4];
        be->sgemm(ta, tb, m, nn, kk, 1.0f, v[0], v[1], 0.0f, v[2]);
        be->sync();
        int reps = be->on_device ? 200 : 20;
        double t = bench_now();
        for (int r = 0; r < reps; r++)
            be->sgemm(ta, tb, m, nn, kk, 1.0f, v[0], v[1], 0.0f, v[2]);
        be->sync();
        t = (bench_now() - t) / reps;
        printf("sgemm %c%c %dx%dx%-4d %8.3f ms %8.1f GFLOP/s\n", ta ? 'T' : 'N', tb ? 'T' : 'N',
               m, nn, kk, t * 1e3, 2.0 * m * nn * kk / t / 1e9);
    }
    for (int i = 0; i < 4; i++)
        be->free(v[i]);
    free(host);
}

int main(int argc, char **argv)
{
    size_t n = 1u << 24;   /* 64 MB per vector: beyond any cache */
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
    if (cpu_only)
        return 0;

    char err[256];
    const nodeox_backend_t *gpu = backend_cuda(0, err, sizeof(err));
    if (!gpu) {
        printf("\nCUDA backend: %s (GPU part skipped)\n", err);
        return 0;
    }
    double peak = 0.0;
#ifdef HAVE_CUDA
    int clock_khz = 0, bus_bits = 0;
    struct cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, gpu->device);
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, gpu->device);
    cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, gpu->device);
    peak = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    printf("\ndevice %d: %s, %d SMs, memory clock %.0f MHz x %d-bit bus: peak %.0f GB/s\n",
           gpu->device, prop.name, prop.multiProcessorCount, clock_khz / 1e3, bus_bits, peak);
#endif
    /* 4 vectors of n floats must fit: use 4x more elements on a GPU when they do */
    bench_backend(gpu, n * 4, peak);
    return 0;
}
