/*
 * test_gpt_decay.c: AdamW's weight decay in the transformer shrinks the
 * matrices only (doc/workload.md): every LayerNorm gain and bias and every
 * bias vector must come out of a decaying step untouched.
 *
 * A small transformer on the CPU backend (fortunes corpus; skips, 77,
 * without it) with every parameter set to 1 and a zero gradient: one AdamW
 * step with the workload's decay mask then moves nothing but the decay, so
 * a decayed parameter becomes exactly 1 - lr * wd and any other stays 1.
 * Each tensor is checked by name (workload_gpt_tensor), and the tensors
 * must cover the whole vector.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/backend.h"
#include "runtime/workload_gpt.h"
#include "tests/kernels/workload_test.h"

int main(void)
{
	static const struct {
		const char *name;
		int decayed;
	} tensors[] = {
		{ "wte", 1 },     { "wpe", 1 },     { "ln1w", 0 },     { "ln1b", 0 },
		{ "qkvw", 1 },    { "qkvb", 0 },    { "attprojw", 1 }, { "attprojb", 0 },
		{ "ln2w", 0 },    { "ln2b", 0 },    { "fcw", 1 },      { "fcb", 0 },
		{ "fcprojw", 1 }, { "fcprojb", 0 }, { "lnfw", 0 },     { "lnfb", 0 },
	};
	workload_gpt_opts_t o;
	gpt_small_opts(&o);
	const nodeox_backend_t *be = backend_cpu();
	nodeox_workload_t *w = gpt_create_or_exit(&o, be);
	size_t n = w->nparams;
	float *m = calloc(n, sizeof(float)), *v = calloc(n, sizeof(float));
	if (!m || !v || !w->decay_mask) {
		fprintf(stderr, "FAIL: %s\n",
			w->decay_mask ? "out of memory" : "the workload has no decay mask");
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		w->params[i] = 1.0f;
		w->grads[i] = 0.0f;
	}
	const float lr = 0.1f, wd = 0.5f, decayed = 1.0f - lr * wd;
	be->adamw_step(w->params, w->grads, m, v, w->decay_mask, n, lr, 0.9f, 0.95f, 1e-8f, wd, 1);

	int failures = 0;
	size_t covered = 0;
	for (size_t t = 0; t < sizeof(tensors) / sizeof(tensors[0]); t++) {
		size_t off, cnt, wrong = 0;
		if (workload_gpt_tensor(w, tensors[t].name, &off, &cnt) != 0) {
			printf("FAIL %-9s no such tensor\n", tensors[t].name);
			failures++;
			continue;
		}
		float want = tensors[t].decayed ? decayed : 1.0f;
		for (size_t i = off; i < off + cnt; i++)
			if (w->params[i] != want)
				wrong++;
		covered += cnt;
		printf("%s %-9s %6zu parameters %s%s\n", wrong ? "FAIL" : "ok  ", tensors[t].name, cnt,
		       tensors[t].decayed ? "decayed to " : "kept at ", tensors[t].decayed ? "0.95" : "1");
		if (wrong) {
			printf("     %zu of them are not %g\n", wrong, want);
			failures++;
		}
	}
	if (covered != n) {
		printf("FAIL the tensors cover %zu of %zu parameters\n", covered, n);
		failures++;
	}
	free(m);
	free(v);
	w->destroy(w);
	printf("%s\n", failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}
