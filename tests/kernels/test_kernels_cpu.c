/*
 * test_kernels_cpu.c: the C reference kernels against values worked out by
 * hand (in the comments), an independent naive matrix product, and finite
 * differences of the loss.  The CUDA twins are then held to these
 * references by test_kernels_cuda.c.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/common/test_main.h"
#include "kernels/backend.h"
#include "kernels/kernels.h"

#define NEAR(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol))

static float frand(uint64_t *s) /* uniform in [-1, 1) */
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (float)((double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

/* ------------------------------------------------------------ optimizers */

static void test_sgd_momentum_two_steps(void **state)
{
	(void)state;
	float p[2] = { 1.0f, 2.0f }, g[2] = { 0.5f, -1.0f }, mom[2] = { 0.1f, 0.0f };
	/* step 1, lr 0.1, mu 0.9, wd 0.01:
     *   g0 = 0.5 + 0.01*1 = 0.51,   b0 = 0.9*0.1 + 0.51 = 0.6,   p0 = 1 - 0.06 = 0.94
     *   g1 = -1 + 0.01*2 = -0.98,   b1 = -0.98,                  p1 = 2 + 0.098 = 2.098 */
	optim_sgd_step_cpu(p, g, mom, 2, 0.1f, 0.9f, 0.01f);
	NEAR(mom[0], 0.6, 1e-6);
	NEAR(p[0], 0.94, 1e-6);
	NEAR(mom[1], -0.98, 1e-6);
	NEAR(p[1], 2.098, 1e-6);
	/* step 2, same grad: g0 = 0.5 + 0.0094 = 0.5094, b0 = 0.54 + 0.5094 = 1.0494,
     *   p0 = 0.94 - 0.10494 = 0.83506 */
	optim_sgd_step_cpu(p, g, mom, 2, 0.1f, 0.9f, 0.01f);
	NEAR(mom[0], 1.0494, 1e-5);
	NEAR(p[0], 0.83506, 1e-5);
}

static void test_adamw_bias_correction(void **state)
{
	(void)state;
	float p = 1.0f, m = 0.0f, v = 0.0f, g = 0.5f;
	/* step 1: decay 1 - 0.1*0.1 = 0.99; m = 0.05, v = 0.00025; bias-corrected
     * mhat = 0.5, vhat = 0.25, so the step is lr * 0.5/0.5 = 0.1: p = 0.99 - 0.1 */
	optim_adamw_step_cpu(&p, &g, &m, &v, NULL, 1, 0.1f, 0.9f, 0.999f, 1e-8f, 0.1f, 1);
	NEAR(m, 0.05, 1e-7);
	NEAR(v, 0.00025, 1e-8); /* 1 - 0.999f is 0.00099999 in float */
	NEAR(p, 0.89, 1e-6);
	/* step 2, g = -0.25: m = 0.045 - 0.025 = 0.02, v = 0.00024975 + 0.0000625 =
     * 0.00031225; mhat = 0.02/0.19, vhat = 0.00031225/0.001999;
     * p = 0.89*0.99 - 0.1*0.105263/0.395225 = 0.854466 */
	g = -0.25f;
	optim_adamw_step_cpu(&p, &g, &m, &v, NULL, 1, 0.1f, 0.9f, 0.999f, 1e-8f, 0.1f, 2);
	NEAR(m, 0.02, 1e-7);
	NEAR(v, 0.00031225, 1e-8);
	NEAR(p, 0.854466, 2e-5);
}

static void test_adamw_decay_mask(void **state)
{
	(void)state;
	/* the same parameter and gradient twice, decayed (mask 1) and not (mask
     * 0): as in test_adamw_bias_correction, step 1 moves each by lr = 0.1;
     * only the first is also shrunk by 1 - 0.1*0.1: 0.99 - 0.1 against
     * 1 - 0.1. Without a mask (NULL) both are decayed. */
	float p[2] = { 1.0f, 1.0f }, m[2] = { 0 }, v[2] = { 0 }, g[2] = { 0.5f, 0.5f };
	const float mask[2] = { 1.0f, 0.0f };
	optim_adamw_step_cpu(p, g, m, v, mask, 2, 0.1f, 0.9f, 0.999f, 1e-8f, 0.1f, 1);
	NEAR(p[0], 0.89, 1e-6);
	NEAR(p[1], 0.9, 1e-6);
	NEAR(m[1], 0.05, 1e-7); /* the moments do not depend on the mask */
	p[0] = p[1] = 1.0f;
	m[0] = m[1] = v[0] = v[1] = 0.0f;
	optim_adamw_step_cpu(p, g, m, v, NULL, 2, 0.1f, 0.9f, 0.999f, 1e-8f, 0.1f, 1);
	NEAR(p[0], 0.89, 1e-6);
	NEAR(p[1], 0.89, 1e-6);
}

static void test_adamw_step_counter_matters(void **state)
{
	(void)state;
	/* the same state at step 1 and at step 1000: bias correction differs */
	float p1 = 1.0f, m1 = 0.0f, v1 = 0.0f, p2 = 1.0f, m2 = 0.0f, v2 = 0.0f, g = 0.5f;
	optim_adamw_step_cpu(&p1, &g, &m1, &v1, NULL, 1, 0.1f, 0.9f, 0.999f, 1e-8f, 0.0f, 1);
	optim_adamw_step_cpu(&p2, &g, &m2, &v2, NULL, 1, 0.1f, 0.9f, 0.999f, 1e-8f, 0.0f, 1000);
	NEAR(p1, 0.9, 1e-6); /* full step lr * sign(g) */
	/* at step 1000: mhat = 0.05/(1-0.9^1000) = 0.05, vhat = 0.00025/(1-0.999^1000)
     * = 0.00025/0.632305 -> step 0.1*0.05/0.019884 = 0.251457 */
	NEAR(p2, 1.0 - 0.251457, 2e-5);
}

static void test_nesterov_outer_step(void **state)
{
	(void)state;
	float p[2] = { 1.0f, 1.0f }, d[2] = { 0.5f, -0.2f }, mom[2] = { 0.0f, 1.0f };
	/* lr 0.7, mu 0.9:
     *   b0 = 0.5,              p0 = 1 - 0.7*(0.5 + 0.45)   = 0.335
     *   b1 = 0.9 - 0.2 = 0.7,  p1 = 1 - 0.7*(-0.2 + 0.63) = 0.699 */
	optim_nesterov_step_cpu(p, d, mom, 2, OPTIM_OUTER_LR_DEFAULT, OPTIM_OUTER_MOMENTUM_DEFAULT);
	NEAR(mom[0], 0.5, 1e-6);
	NEAR(p[0], 0.335, 1e-6);
	NEAR(mom[1], 0.7, 1e-6);
	NEAR(p[1], 0.699, 1e-6);
}

static void test_nesterov_lr1_mu0_is_averaging(void **state)
{
	(void)state;
	/* global 2, two workers at 1 and 0: mean delta = (1 + 2)/2 = 1.5 -> 0.5 = mean of locals */
	float global = 2.0f, l1 = 1.0f, l2 = 0.0f, d1, d2, sum = 0.0f, mom = 0.0f;
	combine_delta_cpu(&d1, &global, &l1, 1);
	combine_delta_cpu(&d2, &global, &l2, 1);
	combine_axpy_cpu(&sum, &d1, 0.5f, 1);
	combine_axpy_cpu(&sum, &d2, 0.5f, 1);
	optim_nesterov_step_cpu(&global, &sum, &mom, 1, 1.0f, 0.0f);
	NEAR(global, 0.5, 1e-7);
}

/* ------------------------------------------------------------ combining */

static void test_delta_sign(void **state)
{
	(void)state;
	float g[3] = { 1.0f, 2.0f, -1.0f }, l[3] = { 0.5f, 3.0f, -1.0f }, d[3];
	combine_delta_cpu(d, g, l, 3);
	NEAR(d[0], 0.5, 0); /* global - local, not local - global */
	NEAR(d[1], -1.0, 0);
	NEAR(d[2], 0.0, 0);
	combine_delta_cpu(g, g, l, 3); /* aliasing the output with global */
	NEAR(g[0], 0.5, 0);
	NEAR(g[1], -1.0, 0);
}

static void test_axpy_scale(void **state)
{
	(void)state;
	float out[3] = { 1.0f, 0.0f, -2.0f }, x[3] = { 2.0f, 4.0f, 1.0f };
	combine_axpy_cpu(out, x, 0.25f, 3); /* 1.5, 1, -1.75 */
	NEAR(out[0], 1.5, 0);
	NEAR(out[1], 1.0, 0);
	NEAR(out[2], -1.75, 0);
	combine_scale_cpu(out, -2.0f, 3); /* -3, -2, 3.5 */
	NEAR(out[0], -3.0, 0);
	NEAR(out[1], -2.0, 0);
	NEAR(out[2], 3.5, 0);
}

static void test_nonfinite_and_sumsq(void **state)
{
	(void)state;
	float x[6] = { 1.0f, 2.0f, 3.0f, 0.0f, -2.0f, 0.5f };
	assert_int_equal(combine_count_nonfinite_cpu(x, 6), 0);
	NEAR(combine_sumsq_cpu(x, 6), 1 + 4 + 9 + 0 + 4 + 0.25, 1e-12);
	x[1] = NAN;
	x[3] = INFINITY;
	x[5] = -INFINITY;
	assert_int_equal(combine_count_nonfinite_cpu(x, 6), 3);
	assert_int_equal(combine_count_nonfinite_cpu(x, 1), 0);
}

/* ------------------------------------------------------------ matrix product */

static void test_sgemm_2x2_by_hand(void **state)
{
	(void)state;
	float A[4] = { 1, 2, 3, 4 }, B[4] = { 5, 6, 7, 8 }, C[4] = { 1, 1, 1, 1 };
	/* A B = [[19, 22], [43, 50]]; 2*AB + 0.5*C */
	matmul_sgemm_cpu(0, 0, 2, 2, 2, 2.0f, A, B, 0.5f, C);
	NEAR(C[0], 38.5, 0);
	NEAR(C[1], 44.5, 0);
	NEAR(C[2], 86.5, 0);
	NEAR(C[3], 100.5, 0);
	/* A^T B^T = (B A)^T; B A = [[23, 34], [31, 46]] */
	matmul_sgemm_cpu(1, 1, 2, 2, 2, 1.0f, A, B, 0.0f, C);
	NEAR(C[0], 23, 0);
	NEAR(C[1], 31, 0);
	NEAR(C[2], 34, 0);
	NEAR(C[3], 46, 0);
}

static void test_sgemm_vs_naive_all_transposes(void **state)
{
	(void)state;
	int shapes[][3] = { { 1, 1, 1 },    { 7, 19, 5 },    { 4, 16, 3 },
			    { 33, 17, 65 }, { 64, 10, 100 }, { 5, 3, 0 } };
	uint64_t s = 42;
	for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++) {
		int m = shapes[si][0], n = shapes[si][1], k = shapes[si][2];
		for (int ta = 0; ta < 2; ta++)
			for (int tb = 0; tb < 2; tb++) {
				float *A = malloc(sizeof(float) * (size_t)(m * k + 1));
				float *B = malloc(sizeof(float) * (size_t)(k * n + 1));
				float *C = malloc(sizeof(float) * (size_t)(m * n));
				float *C0 = malloc(sizeof(float) * (size_t)(m * n));
				for (int i = 0; i < m * k; i++)
					A[i] = frand(&s);
				for (int i = 0; i < k * n; i++)
					B[i] = frand(&s);
				for (int i = 0; i < m * n; i++)
					C[i] = C0[i] = frand(&s);
				float alpha = 1.5f, beta = -0.5f;
				matmul_sgemm_cpu(ta, tb, m, n, k, alpha, A, B, beta, C);
				for (int i = 0; i < m; i++)
					for (int j = 0; j < n; j++) {
						double acc = 0.0;
						for (int p = 0; p < k; p++) {
							double a = ta ? A[p * m + i] : A[i * k + p];
							double b = tb ? B[j * k + p] : B[p * n + j];
							acc += a * b;
						}
						double want = alpha * acc + beta * C0[i * n + j];
						NEAR(C[i * n + j], want, 1e-4 * (1 + fabs(want)));
					}
				free(A);
				free(B);
				free(C);
				free(C0);
			}
	}
}

static void test_sgemm_beta0_ignores_nan(void **state)
{
	(void)state;
	float A[2] = { 1, 2 }, B[2] = { 3, 4 }, C[1] = { NAN };
	matmul_sgemm_cpu(0, 0, 1, 1, 2, 1.0f, A, B, 0.0f, C); /* 1*3 + 2*4 */
	NEAR(C[0], 11, 0);
}

/* ------------------------------------------------------------ element-wise */

static void test_bias_and_relu(void **state)
{
	(void)state;
	float y[6] = { 1, -2, 3, -4, 5, -6 }, b[3] = { 0.5f, 1.0f, -1.0f }, db[3];
	mlp_bias_add_cpu(y, b, 2, 3); /* rows [1.5, -1, 2], [-3.5, 6, -7] */
	NEAR(y[0], 1.5, 0);
	NEAR(y[1], -1.0, 0);
	NEAR(y[2], 2.0, 0);
	NEAR(y[3], -3.5, 0);
	NEAR(y[4], 6.0, 0);
	NEAR(y[5], -7.0, 0);
	mlp_bias_grad_cpu(db, y, 2, 3); /* column sums: -2, 5, -5 */
	NEAR(db[0], -2.0, 0);
	NEAR(db[1], 5.0, 0);
	NEAR(db[2], -5.0, 0);
	float r[6], dx[6], dy[6] = { 10, 20, 30, 40, 50, 60 };
	mlp_relu_forward_cpu(r, y, 6); /* 1.5, 0, 2, 0, 6, 0 */
	NEAR(r[0], 1.5, 0);
	NEAR(r[1], 0.0, 0);
	NEAR(r[5], 0.0, 0);
	mlp_relu_backward_cpu(dx, dy, r, 6); /* gradient passes where output > 0 */
	NEAR(dx[0], 10, 0);
	NEAR(dx[1], 0, 0);
	NEAR(dx[2], 30, 0);
	NEAR(dx[3], 0, 0);
	NEAR(dx[4], 50, 0);
	mlp_relu_forward_cpu(y, y, 6); /* in place */
	NEAR(y[3], 0.0, 0);
	NEAR(y[4], 6.0, 0);
}

/* ------------------------------------------------------------ loss */

static void test_softmax_xent_by_hand(void **state)
{
	(void)state;
	/* row 0: logits [0, ln 3] -> probs [1/4, 3/4]; label 1: loss -ln(3/4)
     * row 1: logits [1000, 1000] (overflows a naive exp) -> [1/2, 1/2]; loss ln 2 */
	float z[4] = { 0.0f, logf(3.0f), 1000.0f, 1000.0f }, p[4], loss[2], d[4];
	int y[2] = { 1, 0 };
	loss_softmax_xent_forward_cpu(p, loss, z, y, 2, 2);
	NEAR(p[0], 0.25, 1e-6);
	NEAR(p[1], 0.75, 1e-6);
	NEAR(p[2], 0.5, 1e-6);
	NEAR(loss[0], -log(0.75), 1e-6);
	NEAR(loss[1], log(2.0), 1e-6);
	/* backward with scale 1/2: (p - onehot)/2 */
	loss_softmax_xent_backward_cpu(d, p, y, 2, 2, 0.5f);
	NEAR(d[0], 0.125, 1e-6);
	NEAR(d[1], -0.125, 1e-6);
	NEAR(d[2], -0.25, 1e-6);
	NEAR(d[3], 0.25, 1e-6);
	/* forward in place (probs aliasing logits) gives the same */
	loss_softmax_xent_forward_cpu(z, loss, z, y, 2, 2);
	NEAR(z[1], 0.75, 1e-6);
	NEAR(loss[0], -log(0.75), 1e-6);
}

static void test_softmax_xent_gradient_finite_difference(void **state)
{
	(void)state;
	enum { B = 3, C = 7 };
	float z[B * C], p[B * C], d[B * C], loss[B];
	int y[B] = { 2, 0, 6 };
	uint64_t s = 7;
	for (int i = 0; i < B * C; i++)
		z[i] = 3.0f * frand(&s);
	loss_softmax_xent_forward_cpu(p, loss, z, y, B, C);
	loss_softmax_xent_backward_cpu(d, p, y, B, C, 1.0f / B);
	for (int i = 0; i < B * C; i++) {
		double h = 1e-2, lp = 0, lm = 0;
		float keep = z[i];
		z[i] = keep + (float)h;
		loss_softmax_xent_forward_cpu(p, loss, z, y, B, C);
		for (int b = 0; b < B; b++)
			lp += loss[b] / B;
		z[i] = keep - (float)h;
		loss_softmax_xent_forward_cpu(p, loss, z, y, B, C);
		for (int b = 0; b < B; b++)
			lm += loss[b] / B;
		z[i] = keep;
		NEAR(d[i], (lp - lm) / (2 * h), 2e-4);
	}
}

static void test_argmax_correct(void **state)
{
	(void)state;
	float z[9] = { 0.1f,  0.9f,  0.0f,    /* argmax 1 */
		       5.0f,  5.0f,  1.0f,    /* tie: first maximum, 0 */
		       -3.0f, -2.0f, -1.0f }; /* argmax 2 */
	int right[3] = { 1, 0, 2 }, wrong[3] = { 0, 1, 2 };
	assert_int_equal(loss_argmax_correct_cpu(z, right, 3, 3), 3);
	assert_int_equal(loss_argmax_correct_cpu(z, wrong, 3, 3), 1);
}

/* ------------------------------------------------------------ the backend table */

/* ------------------------------------------------------------ transformer */

static void test_embed_by_hand(void **state)
{
	(void)state;
	/* V = 3, T = 2, C = 2: wte rows (1,2) (3,4) (5,6), wpe rows (10,20) (30,40) */
	float wte[6] = { 1, 2, 3, 4, 5, 6 }, wpe[4] = { 10, 20, 30, 40 }, out[8];
	int tokens[4] = { 2, 0, 2, 2 }; /* B = 2 */
	embed_forward_cpu(out, tokens, wte, wpe, 2, 2, 2);
	float want[8] = { 15, 26, 31, 42, 15, 26, 35, 46 };
	for (int i = 0; i < 8; i++)
		NEAR(out[i], want[i], 0);
	/* backward accumulates: token 2 appears three times, position 0 twice */
	float dwte[6] = { 0 }, dwpe[4] = { 100, 0, 0, 0 };
	float dout[8] = { 1, 1, 2, 2, 3, 3, 4, 4 };
	embed_backward_cpu(dwte, dwpe, dout, tokens, 2, 2, 2);
	float want_te[6] = { 2, 2, 0, 0, 8, 8 }, want_pe[4] = { 104, 4, 6, 6 };
	for (int i = 0; i < 6; i++)
		NEAR(dwte[i], want_te[i], 0);
	for (int i = 0; i < 4; i++)
		NEAR(dwpe[i], want_pe[i], 0);
}

static void test_layernorm_by_hand(void **state)
{
	(void)state;
	/* x = (1, 2, 3): mean 2, variance 2/3, rstd = 1/sqrt(2/3 + 1e-5) =
     * 1.2247357; with gain (1, 2, 1) and bias (0, 0, 5):
     * out = (-1.2247357, 0, 1.2247357 + 5) */
	float x[3] = { 1, 2, 3 }, w[3] = { 1, 2, 1 }, b[3] = { 0, 0, 5 }, out[3], mean, rstd;
	layernorm_forward_cpu(out, &mean, &rstd, x, w, b, 1, 3);
	NEAR(mean, 2, 1e-7);
	NEAR(rstd, 1.2247357, 1e-6);
	NEAR(out[0], -1.2247357, 1e-6);
	NEAR(out[1], 0, 1e-6);
	NEAR(out[2], 6.2247357, 1e-6);
	/* dout = (1, 0, 0), gain 1: dnorm = (1, 0, 0), its mean 1/3, mean of
     * dnorm * norm = -1.2247357 / 3; dx = rstd (dnorm - 1/3 + norm *
     * 1.2247357/3) = 1.2247357 (1/6, -1/3, 1/6) = (0.2041226, -0.4082452,
     * 0.2041226), added to what dx held; dweight += norm * dout, dbias += dout */
	float one[3] = { 1, 1, 1 }, dout[3] = { 1, 0, 0 }, dx[3] = { 10, 10, 10 }, dw[3] = { 0 },
	      db[3] = { 0 };
	layernorm_forward_cpu(out, &mean, &rstd, x, one, db, 1, 3);
	layernorm_backward_cpu(dx, dw, db, dout, x, one, &mean, &rstd, 1, 3);
	NEAR(dx[0], 10.2041226, 1e-5);
	NEAR(dx[1], 9.5917548, 1e-5);
	NEAR(dx[2], 10.2041226, 1e-5);
	NEAR(dw[0], -1.2247357, 1e-6);
	NEAR(dw[1], 0, 1e-7);
	NEAR(db[0], 1, 0);
	NEAR(db[2], 0, 0);
}

static void test_attention_by_hand(void **state)
{
	(void)state;
	/* B = 1, T = 2, C = 2, one head (hs = 2, scale 1/sqrt 2).  Position 0
     * sees only itself: out0 = v0.  Position 1: q1 = (1, 0), k0 = (0, 0),
     * k1 = (sqrt2 ln3, 0): scores (0, ln 3), softmax (1/4, 3/4); v0 = (4, 0),
     * v1 = (0, 8): out1 = (1, 6). */
	float k1 = (float)(sqrt(2.0) * log(3.0));
	float qkv[12] = { 0, 0, 0,  0, 4, 0,   /* q0 k0 v0 */
			  1, 0, k1, 0, 0, 8 }; /* q1 k1 v1 */
	float out[4], preatt[4], att[4];
	attention_forward_cpu(out, preatt, att, qkv, 1, 2, 2, 1);
	NEAR(att[0], 1, 1e-7);
	NEAR(att[1], 0, 0); /* the future is masked */
	NEAR(att[2], 0.25, 1e-6);
	NEAR(att[3], 0.75, 1e-6);
	NEAR(preatt[3], log(3.0), 1e-6);
	NEAR(out[0], 4, 1e-6);
	NEAR(out[1], 0, 1e-6);
	NEAR(out[2], 1, 1e-5);
	NEAR(out[3], 6, 1e-5);
	/* backward with dout1 = (0, 1), dout0 = 0: dv1 += 3/4 (0,1), dv0 += 1/4 (0,1);
     * datt1 = (v0.d, v1.d) = (0, 8); dpre = att (datt - 6) = (-1.5, 1.5);
     * dq1 = scale (dpre0 k0 + dpre1 k1) = (1.5 ln 3, 0); dk1 = scale 1.5 q1 */
	float dout[4] = { 0, 0, 0, 1 }, dqkv[12] = { 0 }, dpre[4], datt[4];
	attention_backward_cpu(dqkv, dpre, datt, dout, qkv, att, 1, 2, 2, 1);
	NEAR(datt[3], 8, 1e-5);
	NEAR(dpre[2], -1.5, 1e-5);
	NEAR(dpre[3], 1.5, 1e-5);
	NEAR(dqkv[5], 0.25, 1e-6);            /* dv0[1] */
	NEAR(dqkv[11], 0.75, 1e-6);           /* dv1[1] */
	NEAR(dqkv[6], 1.5 * log(3.0), 1e-5);  /* dq1[0] */
	NEAR(dqkv[8], 1.5 / sqrt(2.0), 1e-5); /* dk1[0] */
	NEAR(dqkv[0], 0, 0);                  /* dq0: one key, softmax gradient 0 */
}

static void test_gelu_and_residual_by_hand(void **state)
{
	(void)state;
	/* gelu(1) = 0.5 (1 + tanh(0.7978846 * 1.044715)) = 0.8411920;
     * gelu(-2) = -0.0454023; gelu'(1) = 1.0829641, gelu'(-2) = -0.0860993;
     * gelu(0) = 0, gelu'(0) = 1/2 */
	float x[3] = { 1, -2, 0 }, y[3], dx[3], dy[3] = { 1, 2, 4 };
	pointwise_gelu_forward_cpu(y, x, 3);
	NEAR(y[0], 0.8411920, 1e-6);
	NEAR(y[1], -0.0454023, 1e-6);
	NEAR(y[2], 0, 0);
	pointwise_gelu_backward_cpu(dx, x, dy, 3);
	NEAR(dx[0], 1.0829641, 1e-5);
	NEAR(dx[1], 2 * -0.0860993, 1e-5);
	NEAR(dx[2], 2, 1e-6);
	float a[2] = { 1, 2 }, b[2] = { 10, 20 }, r[2];
	pointwise_residual_forward_cpu(r, a, b, 2);
	NEAR(r[0], 11, 0);
	NEAR(r[1], 22, 0);
}

static void test_backend_cpu_table(void **state)
{
	(void)state;
	const nodeox_backend_t *be = backend_cpu();
	char err[256];
	assert_string_equal(be->name, "cpu");
	assert_ptr_equal(backend_by_name("cpu", 0, err, sizeof(err)), be);
	assert_null(backend_by_name("tpu", 0, err, sizeof(err)));
	assert_non_null(strstr(err, "tpu"));
	assert_ptr_equal(be->axpy, combine_axpy_cpu);
	assert_ptr_equal(be->sgemm, matmul_sgemm_cpu);
	assert_ptr_equal(be->attention_backward, attention_backward_cpu);
	assert_ptr_equal(be->residual_forward, pointwise_residual_forward_cpu);
	float *v = be->alloc(100 * sizeof(float));
	assert_non_null(v);
	assert_int_equal((uintptr_t)v % 64, 0);
	for (int i = 0; i < 100; i++)
		assert_true(v[i] == 0.0f); /* zero-filled */
	float host[3] = { 1, 2, 3 }, back[3];
	be->copy_h2d(v, host, sizeof(host));
	be->copy_d2h(back, v, sizeof(back));
	assert_memory_equal(host, back, sizeof(host));
	be->free(v);
}

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_sgd_momentum_two_steps),
		 cmocka_unit_test(test_adamw_bias_correction), cmocka_unit_test(test_adamw_decay_mask),
		 cmocka_unit_test(test_adamw_step_counter_matters),
		 cmocka_unit_test(test_nesterov_outer_step),
		 cmocka_unit_test(test_nesterov_lr1_mu0_is_averaging), cmocka_unit_test(test_delta_sign),
		 cmocka_unit_test(test_axpy_scale), cmocka_unit_test(test_nonfinite_and_sumsq),
		 cmocka_unit_test(test_sgemm_2x2_by_hand),
		 cmocka_unit_test(test_sgemm_vs_naive_all_transposes),
		 cmocka_unit_test(test_sgemm_beta0_ignores_nan), cmocka_unit_test(test_bias_and_relu),
		 cmocka_unit_test(test_softmax_xent_by_hand),
		 cmocka_unit_test(test_softmax_xent_gradient_finite_difference),
		 cmocka_unit_test(test_argmax_correct), cmocka_unit_test(test_embed_by_hand),
		 cmocka_unit_test(test_layernorm_by_hand), cmocka_unit_test(test_attention_by_hand),
		 cmocka_unit_test(test_gelu_and_residual_by_hand), cmocka_unit_test(test_backend_cpu_table))
