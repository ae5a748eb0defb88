/*
 * kernels.h: every numeric kernel nodeox runs, as pairs of twins.
 *
 * Each kernel exists twice with the SAME signature: `name_cpu` (plain C, the
 * reference, in kernels/<group>_cpu.c) and `name_cuda` (kernels/<group>_cuda.cu,
 * built only when configure found nvcc; all pointers are DEVICE pointers).
 * tests/kernels/test_kernels_cuda.c compares every CUDA twin with its C
 * reference; tests/kernels/test_kernels_cpu.c checks the references against
 * hand-computed values and finite differences.
 *
 * Conventions:
 *   - Vectors are flat float arrays of n elements (the model's parameters,
 *     gradients, optimizer state, pseudo-gradients are all such vectors).
 *   - Matrices are row-major and contiguous; an (m x k) matrix has m rows.
 *   - Labels are int class indices in [0, C).
 *   - In-place use is allowed where noted (same pointer for in and out).
 *   - CUDA twins run on the current device's default stream and are
 *     asynchronous unless they return a value (those synchronize).  They keep
 *     a little per-process state (cuBLAS handle, a result scratch word, the
 *     embedding gradient's sort buffer), so call them from one host thread
 *     per process.
 *
 * Groups (one file pair each):
 *   optim_*    inner and outer optimizer steps        optim_cpu.c   optim_cuda.cu
 *   combine_*  pseudo-gradients and weighted sums     combine_cpu.c combine_cuda.cu
 *   matmul_*   matrix product (C loops / cuBLAS)      matmul_cpu.c  matmul_cuda.cu
 *   mlp_*      element-wise model kernels             mlp_cpu.c     mlp_cuda.cu
 *   loss_*     softmax cross-entropy, accuracy        loss_cpu.c    loss_cuda.cu
 *   embed_*    token + position embeddings            embed_cpu.c   embed_cuda.cu
 *   layernorm_* LayerNorm                             layernorm_cpu.c layernorm_cuda.cu
 *   attention_* causal multi-head self-attention      attention_cpu.c attention_cuda.cu
 *   pointwise_* GELU, residual add                    pointwise_cpu.c pointwise_cuda.cu
 * The transformer (runtime/workload_gpt.c) also uses sgemm for its linear
 * layers, bias_add/bias_grad, the softmax cross-entropy over the 256-byte
 * vocabulary, and sumsq + scale for global-norm gradient clipping before
 * AdamW (the residual's backward pass needs no kernel: LayerNorm backward
 * adds into the residual stream's gradient).
 *
 * Backward kernels of the transformer ACCUMULATE into gradients (+=) where
 * noted, as llm.c's do: a gradient that arrives from two places (the tied
 * token embedding, the residual stream) is summed without a scratch copy.
 */
#ifndef NODEOX_KERNELS_H
#define NODEOX_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* DiLoCo's outer optimizer (Douillard et al. 2023): SGD, Nesterov, lr 0.7, mu 0.9. */
#define OPTIM_OUTER_LR_DEFAULT 0.7f
#define OPTIM_OUTER_MOMENTUM_DEFAULT 0.9f

/* ------------------------------------------------------------ optimizers */

/* SGD with momentum and (coupled, L2) weight decay, as PyTorch's SGD with
 * dampening 0, nesterov off:
 *   g = grad + wd * param;  mom = mu * mom + g;  param -= lr * mom          */
void optim_sgd_step_cpu(float *param, const float *grad, float *mom, size_t n, float lr, float mu, float wd);
void optim_sgd_step_cuda(float *param, const float *grad, float *mom, size_t n, float lr, float mu, float wd);

/* AdamW (decoupled weight decay, PyTorch order). step is the 1-based count of
 * updates applied so far including this one; it drives the bias correction.
 * decay (n floats, or NULL for 1 everywhere) scales the weight decay per
 * parameter: 1 for the matrices, 0 for biases and LayerNorm gains, which a
 * workload does not decay (workload.h, decay_mask):
 *   param *= 1 - (lr * wd) * decay
 *   m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2
 *   param -= lr * (m / (1 - b1^step)) / (sqrt(v / (1 - b2^step)) + eps)     */
void optim_adamw_step_cpu(float *param, const float *grad, float *m, float *v, const float *decay, size_t n,
			  float lr, float b1, float b2, float eps, float wd, int64_t step);
void optim_adamw_step_cuda(float *param, const float *grad, float *m, float *v, const float *decay, size_t n,
			   float lr, float b1, float b2, float eps, float wd, int64_t step);

/* Outer step: SGD with Nesterov momentum on the global weights, the combined
 * pseudo-gradient playing the gradient (PyTorch SGD nesterov=True):
 *   mom = mu * mom + delta;  param -= lr * (delta + mu * mom)
 * With mu = 0 and lr = 1 this is plain averaging: param -= delta.           */
void optim_nesterov_step_cpu(float *param, const float *delta, float *mom, size_t n, float lr, float mu);
void optim_nesterov_step_cuda(float *param, const float *delta, float *mom, size_t n, float lr, float mu);

/* ------------------------------------------------------------ combining */

/* Pseudo-gradient: delta = global - local (THIS sign: a descent direction
 * that the outer step subtracts).  delta may alias global or local.         */
void combine_delta_cpu(float *delta, const float *global, const float *local, size_t n);
void combine_delta_cuda(float *delta, const float *global, const float *local, size_t n);

/* Weighted accumulation: out += w * x.                                      */
void combine_axpy_cpu(float *out, const float *x, float w, size_t n);
void combine_axpy_cuda(float *out, const float *x, float w, size_t n);

/* Scaling in place: x *= a.                                                 */
void combine_scale_cpu(float *x, float a, size_t n);
void combine_scale_cuda(float *x, float a, size_t n);

/* Number of NaN or infinite elements of x (0: x may be combined).           */
size_t combine_count_nonfinite_cpu(const float *x, size_t n);
size_t combine_count_nonfinite_cuda(const float *x, size_t n);

/* Sum of squares of x, accumulated in double (the global gradient norm of
 * --grad-clip).                                                             */
double combine_sumsq_cpu(const float *x, size_t n);
double combine_sumsq_cuda(const float *x, size_t n);

/* ------------------------------------------------------------ matrix product */

/* Row-major SGEMM:  C = alpha * op(A) * op(B) + beta * C
 * op(A) is m x k (A stored m x k, or k x m when transa), op(B) is k x n
 * (B stored k x n, or n x k when transb), C is m x n.  beta == 0 ignores the
 * old contents of C (NaN included).                                         */
void matmul_sgemm_cpu(int transa, int transb, int m, int n, int k, float alpha, const float *A,
		      const float *B, float beta, float *C);
void matmul_sgemm_cuda(int transa, int transb, int m, int n, int k, float alpha, const float *A,
		       const float *B, float beta, float *C);

/* ------------------------------------------------------------ element-wise model kernels */

/* y[r][c] += b[c] for an (rows x cols) matrix y.                            */
void mlp_bias_add_cpu(float *y, const float *b, int rows, int cols);
void mlp_bias_add_cuda(float *y, const float *b, int rows, int cols);

/* db[c] = sum_r dy[r][c] (overwrites db).                                   */
void mlp_bias_grad_cpu(float *db, const float *dy, int rows, int cols);
void mlp_bias_grad_cuda(float *db, const float *dy, int rows, int cols);

/* y = max(x, 0); y may alias x.                                             */
void mlp_relu_forward_cpu(float *y, const float *x, size_t n);
void mlp_relu_forward_cuda(float *y, const float *x, size_t n);

/* dx = y > 0 ? dy : 0, y being the ReLU's output; dx may alias dy.          */
void mlp_relu_backward_cpu(float *dx, const float *dy, const float *y, size_t n);
void mlp_relu_backward_cuda(float *dx, const float *dy, const float *y, size_t n);

/* ------------------------------------------------------------ loss and accuracy */

/* Softmax cross-entropy forward over B rows of C logits:
 *   probs[b][c] = softmax(logits[b])[c]   (max-subtracted, stable)
 *   losses[b]   = -log probs[b][labels[b]]
 * probs may alias logits.                                                   */
void loss_softmax_xent_forward_cpu(float *probs, float *losses, const float *logits, const int *labels, int B,
				   int C);
void loss_softmax_xent_forward_cuda(float *probs, float *losses, const float *logits, const int *labels,
				    int B, int C);

/* Backward: dlogits = scale * (probs - onehot(labels)); scale = 1/B gives the
 * gradient of the mean loss.  dlogits may alias probs.                      */
void loss_softmax_xent_backward_cpu(float *dlogits, const float *probs, const int *labels, int B, int C,
				    float scale);
void loss_softmax_xent_backward_cuda(float *dlogits, const float *probs, const int *labels, int B, int C,
				     float scale);

/* Number of rows whose argmax (first maximum) equals the label.             */
int loss_argmax_correct_cpu(const float *logits, const int *labels, int B, int C);
int loss_argmax_correct_cuda(const float *logits, const int *labels, int B, int C);

/* ------------------------------------------------------------ transformer */

/* out[b][t][:] = wte[tokens[b][t]][:] + wpe[t][:]; out is (B*T) x C,
 * wte V x C, wpe (at least T) x C; tokens in [0, V).                        */
void embed_forward_cpu(float *out, const int *tokens, const float *wte, const float *wpe, int B, int T,
		       int C);
void embed_forward_cuda(float *out, const int *tokens, const float *wte, const float *wpe, int B, int T,
			int C);
/* ACCUMULATES: dwte[tokens[b][t]] += dout[b][t]; dwpe[t] += dout[b][t].    */
void embed_backward_cpu(float *dwte, float *dwpe, const float *dout, const int *tokens, int B, int T, int C);
void embed_backward_cuda(float *dwte, float *dwpe, const float *dout, const int *tokens, int B, int T, int C);

#define LAYERNORM_EPS 1e-5
/* Per row of N rows of C: out = (x - mean) * rstd * weight + bias, with
 * rstd = 1 / sqrt(var + 1e-5) (biased variance); mean and rstd (N each) are
 * written for the backward pass.                                            */
void layernorm_forward_cpu(float *out, float *mean, float *rstd, const float *inp, const float *weight,
			   const float *bias, int N, int C);
void layernorm_forward_cuda(float *out, float *mean, float *rstd, const float *inp, const float *weight,
			    const float *bias, int N, int C);
/* ACCUMULATES into dinp (N x C), dweight and dbias (C each).                */
void layernorm_backward_cpu(float *dinp, float *dweight, float *dbias, const float *dout, const float *inp,
			    const float *weight, const float *mean, const float *rstd, int N, int C);
void layernorm_backward_cuda(float *dinp, float *dweight, float *dbias, const float *dout, const float *inp,
			     const float *weight, const float *mean, const float *rstd, int N, int C);

/* Causal self-attention.  qkv: (B*T) x 3C, per row q | k | v, NH heads of
 * hs = C/NH floats each; preatt and att: B x NH x T x T (scores q.k/sqrt(hs)
 * and their softmax over t2 <= t; entries t2 > t are written as 0);
 * out: (B*T) x C, the heads side by side.  C must be a multiple of NH.     */
void attention_forward_cpu(float *out, float *preatt, float *att, const float *qkv, int B, int T, int C,
			   int NH);
void attention_forward_cuda(float *out, float *preatt, float *att, const float *qkv, int B, int T, int C,
			    int NH);
/* ACCUMULATES into dqkv; dpreatt and datt (B x NH x T x T) are scratch,
 * overwritten with the gradients of preatt and att.  att is as the forward
 * pass wrote it (0 beyond t: the CUDA twin's products read whole rows).     */
void attention_backward_cpu(float *dqkv, float *dpreatt, float *datt, const float *dout, const float *qkv,
			    const float *att, int B, int T, int C, int NH);
void attention_backward_cuda(float *dqkv, float *dpreatt, float *datt, const float *dout, const float *qkv,
			     const float *att, int B, int T, int C, int NH);

/* GELU, tanh approximation: out = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
 * out may alias inp.                                                        */
void pointwise_gelu_forward_cpu(float *out, const float *inp, size_t n);
void pointwise_gelu_forward_cuda(float *out, const float *inp, size_t n);
/* dinp = gelu'(inp) * dout (overwrites; dinp may alias dout).               */
void pointwise_gelu_backward_cpu(float *dinp, const float *inp, const float *dout, size_t n);
void pointwise_gelu_backward_cuda(float *dinp, const float *inp, const float *dout, size_t n);
/* out = a + b (out may alias either).                                       */
void pointwise_residual_forward_cpu(float *out, const float *a, const float *b, size_t n);
void pointwise_residual_forward_cuda(float *out, const float *a, const float *b, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* NODEOX_KERNELS_H */
