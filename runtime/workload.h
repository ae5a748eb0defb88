/*
 * workload.h: what the rounds engine needs from a model, and nothing more.
 *
 * A workload owns a model whose parameters and gradients are ONE flat float
 * vector each, in backend memory (w->be: CPU or CUDA, see kernels/backend.h).
 * The engine treats them as opaque vectors: it runs the optimizer kernels on
 * them, computes pseudo-gradients, and all-reduces them; it never needs the
 * layer structure.  A user plugs in a model by filling this struct (see
 * doc/workload.md); the built-in ones are the Fashion-MNIST MLP of
 * runtime/workload_mlp.h and the byte-level transformer of
 * runtime/workload_gpt.h.
 *
 * Contract:
 *   - params/grads each hold nparams floats of backend memory owned by the
 *     workload; the engine may read and write params between calls (e.g.
 *     replace them with the new global weights after a round).
 *   - After creation, params are identical on every rank for the same seed
 *     (the initialization does not depend on rank), so rank 0 need not
 *     broadcast; data order does depend on rank.
 *   - train_batch: takes the next batch of THIS worker's shard, runs forward
 *     and backward at the current params, OVERWRITES grads with the gradient
 *     of the batch's mean loss, and returns that mean loss.  It does not
 *     change params (the optimizer is the engine's).  Batches are always
 *     full (batch_size samples); the order of samples is a function of (seed,
 *     rank, position) (the MLP reshuffles its shard each epoch, the
 *     transformer draws window positions).
 *   - evaluate: the quality of the current params on the held-out set (the
 *     same set on every rank): test accuracy in [0, 1] for the MLP
 *     (metric "accuracy", higher is better), mean validation loss in nats
 *     per token for the transformer (metric "loss", lower is better).  It
 *     does not touch grads or data position.
 *   - eval_loss_sums (optional, NULL when eval_items is 0): the held-out set
 *     as eval_items equal items of eval_item_tokens predictions; writes each
 *     item's summed loss for items first .. first+count-1.  An item's number
 *     does not depend on which call (or rank) computes it, so nodeox-run
 *     --evaluate can split the items across ranks by speed and still sum
 *     exactly what one rank would.
 *   - data_pos / data_seek: position in this worker's sample stream (number
 *     of samples consumed since creation), for checkpoints: after
 *     data_seek(w, p) the next batches equal those a fresh workload would
 *     give after consuming p samples.
 *   - destroy frees everything, including the struct.
 * All calls come from one host thread.
 */
#ifndef NODEOX_WORKLOAD_H
#define NODEOX_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nodeox_workload {
	const char *name;           /* e.g. "mlp-784-256-128-100-10" */
	size_t nparams;             /* floats in params and in grads */
	float *params;              /* backend memory */
	float *grads;               /* backend memory */
	const nodeox_backend_t *be; /* where params/grads live */
	int batch_size;             /* samples per train_batch call */
	uint64_t shard_samples;     /* training samples in this worker's shard */

	float (*train_batch)(struct nodeox_workload *w);
	double (*evaluate)(struct nodeox_workload *w);
	uint64_t (*data_pos)(struct nodeox_workload *w);
	void (*data_seek)(struct nodeox_workload *w, uint64_t pos);
	void (*destroy)(struct nodeox_workload *w);

	const char *metric;         /* "accuracy" or "loss": what evaluate returns */
	int metric_lower_is_better; /* 1 for a loss */
	size_t eval_items;          /* items of the held-out set (0: no split evaluation) */
	int eval_item_tokens;       /* predictions per item */
	void (*eval_loss_sums)(struct nodeox_workload *w, size_t first, size_t count, double *sums);

	/* which parameters AdamW's decoupled weight decay shrinks: nparams floats
     * of backend memory, 1 decayed, 0 not (the transformer: matrices and
     * embedding tables 1, biases and LayerNorm gains 0); NULL decays all */
	const float *decay_mask;

	void *impl; /* the workload's private state */
} nodeox_workload_t;

#ifdef __cplusplus
}
#endif
#endif /* NODEOX_WORKLOAD_H */
