/*
 * test_kernels_cuda.c: every CUDA kernel against its C reference, on random
 * inputs, within float tolerance (llm.c's validate_result, for nodeox).
 *
 * Both sides are reached through their backend tables (kernels/backend.h),
 * so this also checks that backend_cuda() wires each op to its twin.  Sizes
 * are chosen to hit the float4 body and the scalar tail of the element-wise
 * kernels, an unaligned pointer (scalar path only), all four transpose
 * combinations of the matrix product, and more classes than a warp has
 * lanes in the softmax.  The transformer's kernels are compared on shapes
 * with a context longer than a warp and channels that are not a multiple
 * of 32, and the whole transformer workload (loss and every gradient of one
 * batch) on both backends.
 *
 * Exits 77 (skip) only where nodeox was built without CUDA or the machine
 * has no GPU device node (/dev/nvidia0, ...): on a machine with a GPU any
 * CUDA error is a FAILURE, printed with CUDA's own text where CUDA gives one
 * (an allocation that fails reaches the workload as "out of memory"), never
 * a skip. That classification is itself checked first, on every machine,
 * with a device backend whose allocations fail (check_error_is_failure).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glob.h>
#include <unistd.h>

#include "config.h"
#include "kernels/backend.h"
#include "runtime/workload_gpt.h"

static const nodeox_backend_t *cpu, *gpu;
static int failures, checks;

static float frand(uint64_t *s) /* uniform in [-1, 1) */
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
static void compare(const char *what, const float *ref, const float *dev, size_t n, double atol, double rtol)
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

	/* step 1 decays everything (no mask); step 7 with a 0/1 decay mask */
	float *mask = host_random(N, 5, -1, 1);
	for (size_t i = 0; i < N; i++)
		mask[i] = mask[i] > 0 ? 1.0f : 0.0f;
	float *dmask = to_gpu(mask, N);
	for (int64_t step = 1; step <= 7; step += 6) {
		cpu->adamw_step(p + off, g + off, m + off, v + off, step > 1 ? mask + off : NULL, n, 1e-3f,
				0.9f, 0.95f, 1e-8f, 0.1f, step);
		gpu->adamw_step(dp + off, dg + off, dm + off, dv + off, step > 1 ? dmask + off : NULL, n,
				1e-3f, 0.9f, 0.95f, 1e-8f, 0.1f, step);
		snprintf(what, sizeof(what), "adamw_step(%d%s) param %s", (int)step, step > 1 ? ", mask" : "",
			 tag);
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
	cpu->delta(p + off, p + off, g + off, n); /* aliasing global */
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
	compare(what, m, dm, N, 1e-6, 1e-5); /* dy = p carries earlier rounding */

	/* the reductions read one identical vector: p as the CPU has it (the
     * device's copy differs by the rounding compared above) */
	gpu->copy_h2d(dp, p, N * sizeof(float));
	snprintf(what, sizeof(what), "sumsq %s", tag);
	compare_scalar(what, cpu->sumsq(p + off, n), gpu->sumsq(dp + off, n), 1e-9);
	snprintf(what, sizeof(what), "count_nonfinite (0) %s", tag);
	compare_scalar(what, (double)cpu->count_nonfinite(p + off, n),
		       (double)gpu->count_nonfinite(dp + off, n), 0);
	/* up to 4 non-finite values on distinct places inside [off, off + n),
     * first and last included */
	float bad[4] = { NAN, INFINITY, -INFINITY, NAN };
	size_t want = n < 4 ? n : 4;
	for (size_t i = 0; i < want; i++)
		p[off + (want > 1 ? i * (n - 1) / (want - 1) : 0)] = bad[i];
	gpu->copy_h2d(dp, p, N * sizeof(float));
	snprintf(what, sizeof(what), "count_nonfinite (%zu) %s", want, tag);
	size_t c = cpu->count_nonfinite(p + off, n), d = gpu->count_nonfinite(dp + off, n);
	compare_scalar(what, (double)c, (double)d, 0);
	if (c != want) {
		failures++;
		printf("FAIL count_nonfinite %s: reference found %zu of %zu injected\n", tag, c, want);
	}

	free(p);
	free(g);
	free(m);
	free(v);
	free(mask);
	gpu->free(dp);
	gpu->free(dg);
	gpu->free(dm);
	gpu->free(dv);
	gpu->free(dmask);
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
			snprintf(what, sizeof(what), "sgemm %c%c %dx%dx%d", ta ? 'T' : 'N', tb ? 'T' : 'N', m,
				 n, k);
			/* error of a k-term float sum of O(1) terms grows like sqrt(k) ulps */
			compare(what, C, dC, (size_t)m * n, 1e-5 * sqrt((double)k), 1e-5);
			free(A);
			free(B);
			free(C);
			gpu->free(dA);
			gpu->free(dB);
			gpu->free(dC);
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

	cpu->softmax_xent_forward(y, losses, y, lab, rows, cols); /* in place */
	gpu->softmax_xent_forward(dy, dlosses, dy, dlab, rows, cols);
	snprintf(what, sizeof(what), "softmax_xent_forward probs %dx%d", rows, cols);
	compare(what, y, dy, n, 1e-7, 1e-5);
	snprintf(what, sizeof(what), "softmax_xent_forward loss %dx%d", rows, cols);
	compare(what, losses, dlosses, (size_t)rows, 1e-6, 1e-5);
	cpu->softmax_xent_backward(y, y, lab, rows, cols, 1.0f / rows);
	gpu->softmax_xent_backward(dy, dy, dlab, rows, cols, 1.0f / rows);
	snprintf(what, sizeof(what), "softmax_xent_backward %dx%d", rows, cols);
	compare(what, y, dy, n, 1e-9, 1e-5);

	free(y);
	free(b);
	free(db);
	free(losses);
	free(lab);
	gpu->free(dy);
	gpu->free(dbias);
	gpu->free(ddb);
	gpu->free(dlosses);
	gpu->free(dlab);
}

/* ------------------------------------------------------------ transformer kernels */

static int *to_gpu_int(const int *h, size_t n)
{
	int *d = gpu->alloc(n * sizeof(int));
	if (!d) {
		fprintf(stderr, "cudaMalloc of %zu ints failed\n", n);
		exit(1);
	}
	gpu->copy_h2d(d, h, n * sizeof(int));
	return d;
}

static void check_transformer(int B, int T, int C, int NH)
{
	char what[96];
	int BT = B * T, V = 256;
	size_t btc = (size_t)BT * C, att_n = (size_t)B * NH * T * T;
	int *tok = malloc((size_t)BT * sizeof(int));
	uint64_t s = 5;
	for (int i = 0; i < BT; i++) /* few distinct tokens: repeats in the backward sums */
		tok[i] = (int)((frand(&s) + 1.0f) * 4.0f) % 8 * 31;
	int *dtok = to_gpu_int(tok, (size_t)BT);

	/* embedding */
	float *wte = host_random((size_t)V * C, 50, -1, 1), *wpe = host_random((size_t)T * C, 51, -1, 1);
	float *x = host_random(btc, 52, -1, 1);
	float *dwte = to_gpu(wte, (size_t)V * C), *dwpe = to_gpu(wpe, (size_t)T * C), *dx = to_gpu(x, btc);
	cpu->embed_forward(x, tok, wte, wpe, B, T, C);
	gpu->embed_forward(dx, dtok, dwte, dwpe, B, T, C);
	snprintf(what, sizeof(what), "embed_forward B%d T%d C%d", B, T, C);
	compare(what, x, dx, btc, 0, 0);
	float *dout = host_random(btc, 53, -1, 1), *ddout = to_gpu(dout, btc);
	cpu->embed_backward(wte, wpe, dout, tok, B, T, C);
	gpu->embed_backward(dwte, dwpe, ddout, dtok, B, T, C);
	snprintf(what, sizeof(what), "embed_backward wte B%d T%d C%d", B, T, C);
	compare(what, wte, dwte, (size_t)V * C, 1e-6, 1e-6);
	snprintf(what, sizeof(what), "embed_backward wpe B%d T%d C%d", B, T, C);
	compare(what, wpe, dwpe, (size_t)T * C, 1e-5, 1e-5);

	/* LayerNorm (x now holds embeddings: rows of nonzero mean) */
	float *lw = host_random((size_t)C, 54, 0.5f, 1.5f), *lb = host_random((size_t)C, 55, -1, 1);
	float *ln = malloc(btc * sizeof(float)), *mean = malloc((size_t)BT * sizeof(float));
	float *rstd = malloc((size_t)BT * sizeof(float));
	float *dlw = to_gpu(lw, (size_t)C), *dlb = to_gpu(lb, (size_t)C), *dln = to_gpu(x, btc);
	float *dmean = to_gpu(mean, (size_t)BT), *drstd = to_gpu(rstd, (size_t)BT);
	cpu->layernorm_forward(ln, mean, rstd, x, lw, lb, BT, C);
	gpu->layernorm_forward(dln, dmean, drstd, dx, dlw, dlb, BT, C);
	snprintf(what, sizeof(what), "layernorm_forward out N%d C%d", BT, C);
	compare(what, ln, dln, btc, 1e-5, 1e-5);
	compare("layernorm_forward mean", mean, dmean, (size_t)BT, 1e-6, 1e-5);
	compare("layernorm_forward rstd", rstd, drstd, (size_t)BT, 1e-6, 1e-5);
	float *gw = host_random((size_t)C, 56, -1, 1), *gb = host_random((size_t)C, 57, -1, 1);
	float *gx = host_random(btc, 58, -1, 1);
	float *dgw = to_gpu(gw, (size_t)C), *dgb = to_gpu(gb, (size_t)C), *dgx = to_gpu(gx, btc);
	cpu->layernorm_backward(gx, gw, gb, dout, x, lw, mean, rstd, BT, C);
	gpu->layernorm_backward(dgx, dgw, dgb, ddout, dx, dlw, dmean, drstd, BT, C);
	snprintf(what, sizeof(what), "layernorm_backward dinp N%d C%d", BT, C);
	compare(what, gx, dgx, btc, 1e-5, 1e-4);
	compare("layernorm_backward dweight", gw, dgw, (size_t)C, 1e-4, 1e-4);
	compare("layernorm_backward dbias", gb, dgb, (size_t)C, 1e-4, 1e-4);

	/* attention */
	size_t nqkv = 3 * btc;
	float *qkv = host_random(nqkv, 59, -2, 2), *dqkv_in = to_gpu(qkv, nqkv);
	float *out = malloc(btc * sizeof(float)), *pre = malloc(att_n * sizeof(float));
	float *att = malloc(att_n * sizeof(float));
	float *dout_att = to_gpu(x, btc), *dpre = gpu->alloc(att_n * sizeof(float));
	float *datt = gpu->alloc(att_n * sizeof(float));
	cpu->attention_forward(out, pre, att, qkv, B, T, C, NH);
	gpu->attention_forward(dout_att, dpre, datt, dqkv_in, B, T, C, NH);
	snprintf(what, sizeof(what), "attention_forward out B%d T%d C%d NH%d", B, T, C, NH);
	compare(what, out, dout_att, btc, 1e-5, 1e-4);
	compare("attention_forward preatt", pre, dpre, att_n, 1e-5, 1e-5);
	compare("attention_forward att", att, datt, att_n, 1e-6, 1e-4);
	float *gq = host_random(nqkv, 60, -1, 1), *dgq = to_gpu(gq, nqkv);
	float *gpre = malloc(att_n * sizeof(float)), *gatt = malloc(att_n * sizeof(float));
	float *dgpre = gpu->alloc(att_n * sizeof(float)), *dgatt = gpu->alloc(att_n * sizeof(float));
	cpu->attention_backward(gq, gpre, gatt, dout, qkv, att, B, T, C, NH);
	gpu->attention_backward(dgq, dgpre, dgatt, ddout, dqkv_in, datt, B, T, C, NH);
	snprintf(what, sizeof(what), "attention_backward dqkv B%d T%d C%d NH%d", B, T, C, NH);
	compare(what, gq, dgq, nqkv, 1e-4, 1e-4);
	compare("attention_backward dpreatt", gpre, dgpre, att_n, 1e-5, 1e-4);
	compare("attention_backward datt", gatt, dgatt, att_n, 1e-5, 1e-4);

	/* GELU and residual, on 4C-wide rows (the MLP's hidden layer) */
	size_t n4 = 4 * btc;
	float *h = host_random(n4, 61, -4, 4), *hg = malloc(n4 * sizeof(float));
	float *hd = host_random(n4, 62, -1, 1);
	float *dh = to_gpu(h, n4), *dhg = to_gpu(h, n4), *dhd = to_gpu(hd, n4);
	cpu->gelu_forward(hg, h, n4);
	gpu->gelu_forward(dhg, dh, n4);
	compare("gelu_forward", hg, dhg, n4, 1e-6, 1e-5);
	cpu->gelu_backward(hd, h, hd, n4); /* in place, as the workload does */
	gpu->gelu_backward(dhd, dh, dhd, n4);
	compare("gelu_backward", hd, dhd, n4, 1e-6, 1e-5);
	cpu->residual_forward(hg + 1, h + 1, hd + 1, n4 - 1); /* unaligned */
	gpu->residual_forward(dhg + 1, dh + 1, dhd + 1, n4 - 1);
	compare("residual_forward", hg, dhg, n4, 1e-6, 1e-6);

	free(tok);
	free(wte);
	free(wpe);
	free(x);
	free(dout);
	free(lw);
	free(lb);
	free(ln);
	free(mean);
	free(rstd);
	free(gw);
	free(gb);
	free(gx);
	free(qkv);
	free(out);
	free(pre);
	free(att);
	free(gq);
	free(gpre);
	free(gatt);
	free(h);
	free(hg);
	free(hd);
	float *dev[] = { dwte, dwpe,    dx,       ddout, dlw,  dlb, dln,   dmean, drstd, dgw, dgb,
			 dgx,  dqkv_in, dout_att, dpre,  datt, dgq, dgpre, dgatt, dh,    dhg, dhd };
	for (size_t i = 0; i < sizeof(dev) / sizeof(dev[0]); i++)
		gpu->free(dev[i]);
	gpu->free(dtok);
}

/* What became of the whole-transformer comparison (check_gpt_workload). */
enum gpt_outcome { GPT_COMPARED, GPT_HOST_FAILED, GPT_DEVICE_FAILED };

/* The whole transformer: one batch's loss and gradient on host (the C
 * reference) and dev, on the fortunes corpus, else on the repository's doc/
 * files ($top_srcdir). A workload either side cannot make (a CUDA error in
 * dev's allocations, an unreadable corpus) is a FAILURE, never a skip. */
static enum gpt_outcome check_gpt_workload(const nodeox_backend_t *host, const nodeox_backend_t *dev)
{
	char err[512] = "", docs[4096];
	workload_gpt_opts_t o;
	workload_gpt_opts_default(&o);
	o.max_docs = 500;
	if (access("/usr/share/games/fortunes", R_OK) != 0) {
		const char *top = getenv("top_srcdir");
		snprintf(docs, sizeof(docs), "%s/doc", top && *top ? top : ".");
		o.corpus = docs;
	}
	nodeox_workload_t *wc = workload_gpt_create(&o, 0, 1, host, err, sizeof(err));
	nodeox_workload_t *wg = wc ? workload_gpt_create(&o, 0, 1, dev, err, sizeof(err)) : NULL;
	if (!wc || !wg) {
		checks++;
		failures++;
		printf("FAIL gpt workload on %s: %s\n", wc ? dev->name : host->name, err);
		if (wc)
			wc->destroy(wc);
		return wc ? GPT_DEVICE_FAILED : GPT_HOST_FAILED;
	}
	double lc = wc->train_batch(wc), lg = wg->train_batch(wg);
	compare_scalar("gpt train_batch loss", lc, lg, 1e-5);
	compare("gpt train_batch gradient", wc->grads, wg->grads, wc->nparams, 1e-5, 1e-3);
	compare_scalar("gpt evaluate (validation loss)", wc->evaluate(wc), wg->evaluate(wg), 1e-5);
	wc->destroy(wc);
	wg->destroy(wg);
	return GPT_COMPARED;
}

/* A device backend whose every allocation fails, as cudaMalloc's errors
 * reach the workload (backend_cuda.cu: NULL, never an exit). */
static void *alloc_fails(size_t bytes)
{
	(void)bytes;
	return NULL;
}

/* The classification itself, on every machine (a GPU or none): a device
 * workload that cannot be made counts as a failure, not a skip. */
static int check_error_is_failure(void)
{
	nodeox_backend_t broken = *cpu;
	int f0 = failures, c0 = checks;
	broken.name = "self-check";
	printf("self-check: a device whose every allocation fails (the FAIL below is expected)\n");
	broken.alloc = alloc_fails;
	enum gpt_outcome got = check_gpt_workload(cpu, &broken);
	int ok = got == GPT_DEVICE_FAILED && failures == f0 + 1;
	failures = f0;
	checks = c0;
	printf("%s a device error in the transformer comparison counts as a failure (outcome %d, want %d)\n",
	       ok ? "ok  " : "FAIL", (int)got, (int)GPT_DEVICE_FAILED);
	return ok;
}

/* A GPU device node: the driver has a device to offer this machine. */
static int device_node_present(void)
{
	glob_t g;
	int found = glob("/dev/nvidia[0-9]*", 0, NULL, &g) == 0 && g.gl_pathc > 0;
	globfree(&g);
	return found;
}

int main(void)
{
	char err[256] = "";
	cpu = backend_cpu();
	if (!check_error_is_failure())
		return 1;
	if (!device_node_present()) {
		printf("no GPU device node (/dev/nvidia0 ...): skipping C-vs-CUDA kernel comparison\n");
		return 77;
	}
	gpu = backend_cuda(0, err, sizeof(err));
	if (!gpu) {
		if (strncmp(err, "nodeox was built without CUDA", 29) == 0) {
			printf("a GPU is present but nodeox was built without CUDA: skipping (%s)\n", err);
			return 77;
		}
		printf("FAIL: a GPU device node is present but the CUDA backend did not start: %s\n", err);
		return 1;
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
	check_model(512, 256); /* the transformer's vocabulary */
	check_transformer(2, 64, 64, 4);
	check_transformer(3, 37, 48, 3); /* T over a warp, C not a multiple of 32 */
	check_gpt_workload(cpu, gpu);

	printf("%d of %d comparisons agree\n", checks - failures, checks);
	return failures ? 1 : 0;
}
