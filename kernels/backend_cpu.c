/*
 * backend_cpu.c: the CPU backend, host memory and the `_cpu` kernels.
 * Always available; the reference the CUDA backend is compared with.
 */
#include <stdlib.h>
#include <string.h>

#include "kernels/backend.h"
#include "kernels/kernels.h"

static void *_cpu_alloc(size_t bytes)
{
	size_t rounded = ((bytes ? bytes : 1) + 63) / 64 * 64; /* aligned_alloc wants a multiple */
	void *p = aligned_alloc(64, rounded);
	if (p)
		memset(p, 0, rounded);
	return p;
}

static void _cpu_free(void *p)
{
	free(p);
}
static void _cpu_zero(void *p, size_t bytes)
{
	memset(p, 0, bytes);
}
static void _cpu_copy(void *dst, const void *src, size_t bytes)
{
	if (bytes)
		memmove(dst, src, bytes);
}
static void _cpu_sync(void)
{
}

static const nodeox_backend_t cpu_backend = {
	.name = "cpu",
	.on_device = 0,
	.device = -1,
	.alloc = _cpu_alloc,
	.free = _cpu_free,
	.zero = _cpu_zero,
	.copy_h2d = _cpu_copy,
	.copy_d2h = _cpu_copy,
	.copy_d2d = _cpu_copy,
	.sync = _cpu_sync,
	.sgd_step = optim_sgd_step_cpu,
	.adamw_step = optim_adamw_step_cpu,
	.nesterov_step = optim_nesterov_step_cpu,
	.delta = combine_delta_cpu,
	.axpy = combine_axpy_cpu,
	.scale = combine_scale_cpu,
	.count_nonfinite = combine_count_nonfinite_cpu,
	.sumsq = combine_sumsq_cpu,
	.sgemm = matmul_sgemm_cpu,
	.bias_add = mlp_bias_add_cpu,
	.bias_grad = mlp_bias_grad_cpu,
	.relu_forward = mlp_relu_forward_cpu,
	.relu_backward = mlp_relu_backward_cpu,
	.softmax_xent_forward = loss_softmax_xent_forward_cpu,
	.softmax_xent_backward = loss_softmax_xent_backward_cpu,
	.argmax_correct = loss_argmax_correct_cpu,
	.embed_forward = embed_forward_cpu,
	.embed_backward = embed_backward_cpu,
	.layernorm_forward = layernorm_forward_cpu,
	.layernorm_backward = layernorm_backward_cpu,
	.attention_forward = attention_forward_cpu,
	.attention_backward = attention_backward_cpu,
	.gelu_forward = pointwise_gelu_forward_cpu,
	.gelu_backward = pointwise_gelu_backward_cpu,
	.residual_forward = pointwise_residual_forward_cpu,
};

const nodeox_backend_t *backend_cpu(void)
{
	return &cpu_backend;
}
