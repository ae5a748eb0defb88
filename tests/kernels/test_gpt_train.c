/*
 * test_gpt_train.c: the transformer workload actually learns real text.
 *
 * Single process, no rounds engine: train_batch, global-norm clipping
 * (sumsq + scale) and the AdamW kernel on the chosen backend, on the
 * fortunes corpus (skips, 77, without it).  The validation loss starts at
 * about ln 256 = 5.55 nats per byte (uniform guess) and must fall by at
 * least NEED_DROP nats: a byte-level model that has learnt English letter
 * statistics is below 3.3 (the unigram entropy of English text is about
 * 4.1 bits = 2.9 nats per character).  As a tool: `test_gpt_train --steps N
 * [--backend cuda] [--corpus NAME|PATH]` prints the validation loss every 50
 * steps and the training speed in tokens per second.
 */
#include <math.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/backend.h"
#include "runtime/workload_gpt.h"
#include "tests/kernels/workload_test.h"

#define NEED_DROP 2.2

int main(int argc, char **argv)
{
	long steps = 300;
	const char *backend = "cpu", *corpus = "fortunes";
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc)
			steps = atol(argv[++i]);
		else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc)
			backend = argv[++i];
		else if (strcmp(argv[i], "--corpus") == 0 && i + 1 < argc)
			corpus = argv[++i];
		else {
			fprintf(stderr, "usage: %s [--steps N] [--backend cpu|cuda] [--corpus NAME|PATH]\n",
				argv[0]);
			return 2;
		}
	}
	const nodeox_backend_t *be = backend_or_skip(backend);
	workload_gpt_opts_t o;
	workload_gpt_opts_default(&o);
	o.max_eval_items = 200;
	o.corpus = corpus;
	nodeox_workload_t *w = gpt_create_or_exit(&o, be);
	printf("%s on %s: %zu parameters, %zu validation windows\n", w->name, be->name, w->nparams,
	       w->eval_items);
	float *m = be->alloc(w->nparams * sizeof(float)), *v = be->alloc(w->nparams * sizeof(float));
	if (!m || !v) {
		fprintf(stderr, "FAIL: out of memory\n");
		return 1;
	}
	double before = w->evaluate(w), after = before, train_s = 0;
	struct timespec t0, t1;
	printf("step 0 validation loss %.4f\n", before);
	for (long s = 1; s <= steps; s++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		float loss = w->train_batch(w);
		double norm = sqrt(be->sumsq(w->grads, w->nparams));
		if (norm > 1.0)
			be->scale(w->grads, (float)(1.0 / norm), w->nparams);
		be->adamw_step(w->params, w->grads, m, v, w->decay_mask, w->nparams, 3e-3f, 0.9f, 0.95f,
			       1e-8f, 0.1f, s);
		be->sync();
		clock_gettime(CLOCK_MONOTONIC, &t1);
		train_s += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
		if (s % 50 == 0 || s == steps) {
			after = w->evaluate(w);
			printf("step %ld train loss %.4f validation loss %.4f\n", s, loss, after);
		}
	}
	printf("training: %.0f tokens/s (%ld steps of %d x %zu tokens in %.2f s, evaluation excluded)\n",
	       (double)steps * w->batch_size * (double)w->eval_item_tokens / train_s, steps, w->batch_size,
	       (size_t)w->eval_item_tokens, train_s);
	be->free(m);
	be->free(v);
	w->destroy(w);
	if (!(before - after >= NEED_DROP)) {
		printf("FAIL: validation loss fell by %.3f (from %.3f to %.3f), less than %.1f\n",
		       before - after, before, after, NEED_DROP);
		return 1;
	}
	printf("PASS: validation loss fell by %.3f (from %.3f to %.3f)\n", before - after, before, after);
	return 0;
}
