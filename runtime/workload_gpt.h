/*
 * workload_gpt.h: the built-in language-model workload, a GPT-style
 * decoder-only transformer over bytes (vocabulary 256, no tokenizer files).
 *
 * Token and position embeddings; `layers` pre-LayerNorm blocks of causal
 * multi-head self-attention and a GELU MLP (4x wide), each with a residual
 * connection; a final LayerNorm; the LM head is the token embedding
 * transposed (tied weights).  Loss: cross-entropy of the next byte, mean
 * over the batch's B x T predictions.
 *
 * Data: a corpus of runtime/data_text.h, split by document (every 10th
 * document is validation).  Worker `rank` of `world` trains on the training
 * documents j with j % world == rank, concatenated with a 0 byte after each;
 * a training sample is a window of context + 1 bytes at a position drawn
 * from (seed, rank, sample number), so the sample number alone (data_pos)
 * determines the next batch.  Validation: the validation documents, joined
 * the same way, cut into consecutive windows (items) of `context`
 * predictions.  Weights: GPT-2's initialization, N(0, 0.02), residual
 * projections N(0, 0.02 / sqrt(2 layers)), biases 0, LayerNorm gains 1,
 * drawn from `seed` only, so all ranks start equal.
 */
#ifndef NODEOX_WORKLOAD_GPT_H
#define NODEOX_WORKLOAD_GPT_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WORKLOAD_GPT_VOCAB 256

typedef struct workload_gpt_opts {
	const char *corpus;    /* data_text.h name or path (default "fortunes") */
	int layers;            /* default 2 */
	int channels;          /* model width C (default 64) */
	int heads;             /* default 4; must divide channels */
	int context;           /* T, bytes per window (default 64) */
	int batch_size;        /* windows per batch (default 8) */
	uint64_t seed;         /* default 1 */
	size_t max_docs;       /* read only the corpus's first max_docs documents (0: all) */
	size_t max_eval_items; /* evaluate on the first max_eval_items windows (0: all) */
} workload_gpt_opts_t;

void workload_gpt_opts_default(workload_gpt_opts_t *opts);

/* Read the corpus, allocate on be, initialize.  NULL with a message naming
 * the file or the bad option in err on failure. */
nodeox_workload_t *workload_gpt_create(const workload_gpt_opts_t *opts, int rank, int world,
				       const nodeox_backend_t *be, char *err, size_t errlen);

/* Where tensor `name` of w (a transformer workload) lies in its flat
 * parameter vector, all layers together, in layout order: wte, wpe, ln1w,
 * ln1b, qkvw, qkvb, attprojw, attprojb, ln2w, ln2b, fcw, fcb, fcprojw,
 * fcprojb, lnfw, lnfb.  -1 for another name. */
int workload_gpt_tensor(const nodeox_workload_t *w, const char *name, size_t *offset, size_t *count);

#ifdef __cplusplus
}
#endif
#endif /* NODEOX_WORKLOAD_GPT_H */
