/*
 * test_kernels_cuda.c: every CUDA kernel against its C reference, on random
 * inputs, within float tolerance (llm.c's validate_result, for nodeox).
 *
 * Both sides are reached through their backend tables (kernels/backend.h),
 * so this also checks that backend_cuda() wires each op to its twin.  Sizes
 * are chosen to hit the float4 body and the scalar tail of the element-wise
 * kernels, an unaligned pointer (scalar path only), all four transpose
 * combinations of the matrix product, and more classes than a warp has
 * lanes in the softmax.  Exits 77 (skip) where nodeox was built without
 * CUDA or no device answers.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "kernels/backend.h"

static const nodeox_backend_t *cpu, *gpu;
static int failures, checks;

static float frand(uint64_t *s)   /* uniform in [-1, 1) */
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static float *host_random(size_t n, uint64_t seed, float lo, float hi)
{
    float *h = malloc(n * sizeof(float));
    if (!h) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++)
        h[i] = lo + (hi - lo) * 0.5f * (frand(&seed) + 1.0f);
    return h;
}

/* A device copy of a host array (the CPU side just uses the host array). */
static float *to_gpu(const float *h, size_t n)
{
    float *d = gpu->alloc(n * sizeof(float));
    if (!d) {
        fprintf(stderr, "cudaMalloc of %zu floats failed\n", n);
        exit(1);
    }
    gpu->copy_h2d(d, h, n * sizeof(float));
    return d;
}

/* Compare the CPU result with the device result; tolerance atol + rtol*|ref|. */
static void compare(const char *what, const float *ref, const float *dev, size_t n,
                    double atol, double rtol)
{
    float *got = malloc(n * sizeof(float));
    gpu->copy_d2h(got, dev, n * sizeof(float));
    size_t bad = 0, worst_i = 0;
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        double err = fabs((double)got[i] - (double)ref[i]);
        double tol = atol + rtol * fabs((double)ref[i]);
        if (!(err <= tol) && !(isnan(ref[i]) && isnan(got[i]))) {
            if (bad++ == 0 || err > worst) {
                worst = err;
                worst_i = i;
            }
        }
    }
    checks++;
    if (bad) {
        failures++;
        printf("FAIL %-34s %zu of %zu differ; worst at %zu: cpu %.9g cuda %.9g\n", what, bad, n,
               worst_i, ref[worst_i], got[worst_i]);
    } else {
        printf("ok   %-34s n=%zu\n", what, n);
    }
    free(got);
}

static void compare_scalar(const char *what, double ref, double got, double rtol)
{
    checks++;
    if (fabs(ref - got) <= rtol * fabs(ref) + 1e-12) {
        printf("ok   %-34s cpu %.12g cuda %.12g\n", what, ref, got);
    } else {
        failures++;
        printf("FAIL %-34s cpu %.12g cuda %.12g\n", what, ref, got);
    }
}

/* ------------------------------------------------------------ vector kernels */

static void check_vectors(size_t n, size_t off, const char *tag)
{
    char what[96];
    /* off floats into each buffer: off = 1 makes the pointers unaligned */
    size_t N = n + off;
    float *p = host_random(N, 1, -1, 1), *g = host_random(N, 2, -1, 1);
    float *m = host_random(N, 3, -0.1f, 0.1f), *v = host_random(N, 4, 0, 0.01f);
    float *dp = to_gpu(p, N), *dg = to_gpu(g, N), *dm = to_gpu(m, N), *dv = to_gpu(v, N);

    cpu->sgd_step(p + off, g + off, m + off, n, 0.05f, 0.9f, 1e-4f);
    gpu->sgd_step(dp + off, dg + off, dm + off, n, 0.05f, 0.9f, 1e-4f);
    snprintf(what, sizeof(what), "sgd_step param %s", tag);
    compare(what, p, dp, N, 1e-6, 1e-5);
    snprintf(what, sizeof(what), "sgd_step momentum %s", tag);
    compare(what, m, dm, N, 1e-6, 1e-5);

    for (int64_t step = 1; step <= 7; step += 6) {
        cpu->adamw_step(p + off, g + off, m + off, v + off, n, 1e-3f, 0.9f, 0.95f, 1e-8f, 0.1f, step);
        gpu->adamw_step(dp + off, dg + off, dm + off, dv + off, n, 1e-3f, 0.9f, 0.95f, 1e-8f, 0.1f, step);
        snprintf(what, sizeof(what), "adamw_step(%d) param %s", (int)step, tag);
        compare(what, p, dp, N, 1e-6, 1e-5);
        snprintf(what, sizeof(what), "adamw_step(%d) m,v %s", (int)step, tag);
        compare(what, m, dm, N, 1e-7, 1e-5);
        compare(what, v, dv, N, 1e-9, 1e-5);
    }

    cpu->nesterov_step(p + off, g + off, m + off, n, 0.7f, 0.9f);
    gpu->nesterov_step(dp + off, dg + off, dm + off, n, 0.7f, 0.9f);
    snprintf(what, sizeof(what), "nesterov_step param %s", tag);
    compare(what, p, dp, N, 1e-6, 1e-5);
    compare(what, m, dm, N, 1e-6, 1e-5);

    cpu->delta(v + off, p + off, g + off, n);
    gpu->delta(dv + off, dp + off, dg + off, n);
    snprintf(what, sizeof(what), "delta %s", tag);
    compare(what, v, dv, N, 1e-6, 1e-6);
    cpu->delta(p + off, p + off, g + off, n);     /* aliasing global */
    gpu->delta(dp + off, dp + off, dg + off, n);
    snprintf(what, sizeof(what), "delta in place %s", tag);
    compare(what, p, dp, N, 1e-6, 1e-6);

    cpu->axpy(m + off, g + off, -0.37f, n);
    gpu->axpy(dm + off, dg + off, -0.37f, n);
    snprintf(what, sizeof(what), "axpy %s", tag);
    compare(what, m, dm, N, 1e-6, 1e-6);
    cpu->scale(m + off, 1.7f, n);
    gpu->scale(dm + off, 1.7f, n);
    snprintf(what, sizeof(what), "scale %s", tag);
    compare(what, m, dm, N, 1e-6, 1e-6);

    cpu->relu_forward(v + off, g + off, n);
    gpu->relu_forward(dv + off, dg + off, n);
    snprintf(what, sizeof(what), "relu_forward %s", tag);
    compare(what, v, dv, N, 0, 0);
    cpu->relu_backward(m + off, p + off, v + off, n);
    gpu->relu_backward(dm + off, dp + off, dv + off, n);
    snprintf(what, sizeof(what), "relu_backward %s", tag);
    compare(what, m, dm, N, 1e-6, 1e-5);   /* dy = p carries earlier rounding */

    snprintf(what, sizeof(what), "sumsq %s", tag);
    compare_scalar(what, cpu->sumsq(p + off, n), gpu->sumsq(dp + off, n), 1e-9);
    snprintf(what, sizeof(what), "count_nonfinite (0) %s", tag);
    compare_scalar(what, (double)cpu->count_nonfinite(p + off, n),
                   (double)gpu->count_nonfinite(dp + off, n), 0);
    size_t spots[4] = {off, off + n / 3, off + n / 2, N - 1};
    float bad[4] = {NAN, INFINITY, -INFINITY, NAN};
    for (int i = 0; i < 4; i++)
        p[spots[i]] = bad[i];
    gpu->copy_h2d(dp, p, N * sizeof(float));
    snprintf(what, sizeof(what), "count_nonfinite (4) %s", tag);
    size_t c = cpu->count_nonfinite(p + off, n), d = gpu->count_nonfinite(dp + off, n);
    compare_scalar(what, (double)c, (double)d, 0);
    if (c != 4) {
        failures++;
        printf("FAIL count_nonfinite reference found %zu of 4 injected\n", c);
    }

    free(p); free(g); free(m); free(v);
    gpu->free(dp); gpu->free(dg); gpu->free(dm); gpu->free(dv);
}

/* ------------------------------------------------------------ matrix product */

static void check_sgemm(int m, int n, int k)
{
    char what[96];
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            float *A = host_random((size_t)m * k, 10 + ta, -1, 1);
            float *B = host_random((size_t)k * n, 20 + tb, -1, 1);
            float *C = host_random((size_t)m * n, 30, -1, 1);
            float *dA = to_gpu(A, (size_t)m * k), *dB = to_gpu(B, (size_t)k * n);
            float *dC = to_gpu(C, (size_t)m * n);
            cpu->sgemm(ta, tb, m, n, k, 0.75f, A, B, 0.5f, C);
            gpu->sgemm(ta, tb, m, n, k, 0.75f, dA, dB, 0.5f, dC);
            snprintf(what, sizeof(what), "sgemm %c%c %dx%dx%d", ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k);
            /* error of a k-term float sum of O(1) terms grows like sqrt(k) ulps */
            compare(what, C, dC, (size_t)m * n, 1e-5 * sqrt((double)k), 1e-5);
            free(A); free(B); free(C);
            gpu->free(dA); gpu->free(dB); gpu->free(dC);
        }
}

/* ------------------------------------------------------------ model kernels */

static void check_model(int rows, int cols)
{
    char what[96];
    size_t n = (size_t)rows * cols;
    float *y = host_random(n, 40, -2, 2), *b = host_random((size_t)cols, 41, -1, 1);
    float *db = malloc((size_t)cols * sizeof(float)), *losses = malloc((size_t)rows * sizeof(float));
    int *lab = malloc((size_t)rows * sizeof(int));
    uint64_t s = 99;
    for (int r = 0; r < rows; r++)
        lab[r] = (int)((frand(&s) + 1.0f) * 0.5f * cols) % cols;
    float *dy = to_gpu(y, n), *dbias = to_gpu(b, (size_t)cols), *ddb = to_gpu(b, (size_t)cols);
    float *dlosses = to_gpu(losses, (size_t)rows);
    int *dlab = gpu->alloc((size_t)rows * sizeof(int));
    gpu->copy_h2d(dlab, lab, (size_t)rows * sizeof(int));

    cpu->bias_add(y, b, rows, cols);
    gpu->bias_add(dy, dbias, rows, cols);
    snprintf(what, sizeof(what), "bias_add %dx%d", rows, cols);
    compare(what, y, dy, n, 1e-6, 1e-6);
    cpu->bias_grad(db, y, rows, cols);
    gpu->bias_grad(ddb, dy, rows, cols);
    snprintf(what, sizeof(what), "bias_grad %dx%d", rows, cols);
    compare(what, db, ddb, (size_t)cols, 1e-5, 1e-5);

    int want = cpu->argmax_correct(y, lab, rows, cols);
    int got = gpu->argmax_correct(dy, dlab, rows, cols);
    snprintf(what, sizeof(what), "argmax_correct %dx%d", rows, cols);
    compare_scalar(what, want, got, 0);

    cpu->softmax_xent_forward(y, losses, y, lab, rows, cols);    /* in place */
    gpu->softmax_xent_forward(dy, dlosses, dy, dlab, rows, cols);
    snprintf(what, sizeof(what), "softmax_xent_forward probs %dx%d", rows, cols);
    compare(what, y, dy, n, 1e-7, 1e-5);
    snprintf(what, sizeof(what), "softmax_xent_forward loss %dx%d", rows, cols);
    compare(what, losses, dlosses, (size_t)rows, 1e-6, 1e-5);
    cpu->softmax_xent_backward(y, y, lab, rows, cols, 1.0f / rows);
    gpu->softmax_xent_backward(dy, dy, dlab, rows, cols, 1.0f / rows);
    snprintf(what, sizeof(what), "softmax_xent_backward %dx%d", rows, cols);
    compare(what, y, dy, n, 1e-9, 1e-5);

    free(y); free(b); free(db); free(losses); free(lab);
    gpu->free(dy); gpu->free(dbias); gpu->free(ddb); gpu->free(dlosses); gpu->free(dlab);
}

int main(void)
{
    char err[256] = "";
    cpu = backend_cpu();
    gpu = backend_cuda(0, err, sizeof(err));
    if (!gpu) {
        if (strncmp(err, "nodeox was built without CUDA", 29) == 0)
            printf("nodeox built without CUDA: skipping C-vs-CUDA kernel comparison\n");
        else if (strncmp(err, "no CUDA device", 14) == 0)
            printf("no CUDA device: skipping C-vs-CUDA kernel comparison (%s)\n", err);
        else {
            printf("FAIL: a CUDA device is present but the backend did not start: %s\n", err);
            return 1;
        }
        return 77;
    }
    printf("comparing CUDA kernels (device %d) with the C references\n", gpu->device);

    check_vectors((1u << 20) + 3, 0, "aligned");
    check_vectors(1001, 1, "unaligned");
    check_vectors(3, 0, "tiny");
    check_sgemm(64, 256, 784);
    check_sgemm(33, 17, 65);
    check_sgemm(1, 10, 100);
    check_model(1000, 10);
    check_model(77, 100);

    printf("%d of %d comparisons agree\n", checks - failures, checks);
    return failures ? 1 : 0;
}
