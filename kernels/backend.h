/*
 * backend.h: one table of function pointers per place where numbers live.
 *
 * Code above the kernels (the MLP workload, the rounds engine) never calls a
 * `_cpu` or `_cuda` function by name: it holds a `const nodeox_backend_t *`
 * and calls `be->axpy(...)`, so the same training code runs on the CPU (CI)
 * and on a GPU.  Pointers handed to the ops are "backend memory": ordinary
 * host memory for the CPU backend, device memory for the CUDA backend; move
 * data in and out only with be->copy_h2d / copy_d2h.
 *
 *   backend_cpu()                      always available, never fails.
 *   backend_cuda(device, err, errlen)  the CUDA backend on `device` (the
 *       process's local rank, usually).  Returns NULL with a message in err
 *       when nodeox was built without CUDA or no device answers.  Selects the
 *       device (cudaSetDevice) as a side effect; call it once per process.
 *   backend_by_name("cpu"|"cuda", device, err, errlen)  the same, by name.
 *
 * Programs that may call backend_cuda link $(NODEOX_KERNELS_LIBS) (see
 * kernels/Makefile.inc), which adds the CUDA archive and libraries when built
 * with CUDA.
 */
#ifndef NODEOX_BACKEND_H
#define NODEOX_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nodeox_backend {
	const char *name; /* "cpu" or "cuda" */
	int on_device;    /* 1 when backend memory is GPU memory */
	int device;       /* CUDA device ordinal, -1 for the CPU */

	/* memory: alloc returns zero-filled memory (64-byte aligned on the CPU),
     * or NULL when out of memory; free(NULL) is a no-op. */
	void *(*alloc)(size_t bytes);
	void (*free)(void *p);
	void (*zero)(void *p, size_t bytes);
	void (*copy_h2d)(void *dst_backend, const void *src_host, size_t bytes);
	void (*copy_d2h)(void *dst_host, const void *src_backend, size_t bytes);
	void (*copy_d2d)(void *dst_backend, const void *src_backend, size_t bytes);
	void (*sync)(void); /* wait for queued work (before timing, MPI on host) */

	/* kernels: same meaning and arguments as in kernels/kernels.h */
	void (*sgd_step)(float *param, const float *grad, float *mom, size_t n, float lr, float mu, float wd);
	void (*adamw_step)(float *param, const float *grad, float *m, float *v, const float *decay, size_t n,
			   float lr, float b1, float b2, float eps, float wd, int64_t step);
	void (*nesterov_step)(float *param, const float *delta, float *mom, size_t n, float lr, float mu);
	void (*delta)(float *delta, const float *global, const float *local, size_t n);
	void (*axpy)(float *out, const float *x, float w, size_t n);
	void (*scale)(float *x, float a, size_t n);
	size_t (*count_nonfinite)(const float *x, size_t n);
	double (*sumsq)(const float *x, size_t n);
	void (*sgemm)(int transa, int transb, int m, int n, int k, float alpha, const float *A,
		      const float *B, float beta, float *C);
	void (*bias_add)(float *y, const float *b, int rows, int cols);
	void (*bias_grad)(float *db, const float *dy, int rows, int cols);
	void (*relu_forward)(float *y, const float *x, size_t n);
	void (*relu_backward)(float *dx, const float *dy, const float *y, size_t n);
	void (*softmax_xent_forward)(float *probs, float *losses, const float *logits, const int *labels,
				     int B, int C);
	void (*softmax_xent_backward)(float *dlogits, const float *probs, const int *labels, int B, int C,
				      float scale);
	int (*argmax_correct)(const float *logits, const int *labels, int B, int C);
	/* the transformer's kernels */
	void (*embed_forward)(float *out, const int *tokens, const float *wte, const float *wpe, int B, int T,
			      int C);
	void (*embed_backward)(float *dwte, float *dwpe, const float *dout, const int *tokens, int B, int T,
			       int C);
	void (*layernorm_forward)(float *out, float *mean, float *rstd, const float *inp, const float *weight,
				  const float *bias, int N, int C);
	void (*layernorm_backward)(float *dinp, float *dweight, float *dbias, const float *dout,
				   const float *inp, const float *weight, const float *mean,
				   const float *rstd, int N, int C);
	void (*attention_forward)(float *out, float *preatt, float *att, const float *qkv, int B, int T,
				  int C, int NH);
	void (*attention_backward)(float *dqkv, float *dpreatt, float *datt, const float *dout,
				   const float *qkv, const float *att, int B, int T, int C, int NH);
	void (*gelu_forward)(float *out, const float *inp, size_t n);
	void (*gelu_backward)(float *dinp, const float *inp, const float *dout, size_t n);
	void (*residual_forward)(float *out, const float *a, const float *b, size_t n);
} nodeox_backend_t;

const nodeox_backend_t *backend_cpu(void);
const nodeox_backend_t *backend_cuda(int device, char *err, size_t errlen);
const nodeox_backend_t *backend_by_name(const char *name, int device, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* NODEOX_BACKEND_H */
