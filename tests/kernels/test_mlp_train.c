/*
 * test_mlp_train.c: the built-in MLP workload actually learns Fashion-MNIST.
 *
 * Single process, no rounds engine: train_batch + the SGD-momentum kernel on
 * the chosen backend for a short budget of steps, then evaluate on the 10k
 * test set and require at least 0.80 accuracy (the data set's README lists
 * 0.8833 for a fully trained 256-128-100 MLP).  Skips (77) when the data set
 * is not installed.  As a tool, `test_mlp_train --epochs 5 [--backend cuda]`
 * prints the accuracy after each epoch (the >= 0.85 sanity check).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/backend.h"
#include "runtime/workload_mlp.h"
#include "tests/kernels/workload_test.h"

int main(int argc, char **argv)
{
	double epochs = 1.0; /* test default: one pass over the data */
	double need = 0.80;
	const char *backend = "cpu";
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--epochs") == 0 && i + 1 < argc)
			epochs = atof(argv[++i]);
		else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc)
			backend = argv[++i];
		else {
			fprintf(stderr, "usage: %s [--epochs E] [--backend cpu|cuda]\n", argv[0]);
			return 2;
		}
	}

	char err[512];
	const nodeox_backend_t *be = backend_or_skip(backend);
	workload_mlp_opts_t o;
	workload_mlp_opts_default(&o);
	nodeox_workload_t *w = workload_mlp_create(&o, 0, 1, be, err, sizeof(err));
	if (!w) {
		if (strstr(err, "not found")) {
			printf("Fashion-MNIST missing (%s): skipping\n", err);
			return 77;
		}
		fprintf(stderr, "FAIL: %s\n", err);
		return 1;
	}
	printf("%s on %s: %zu parameters, %llu training samples, batch %d\n", w->name, be->name, w->nparams,
	       (unsigned long long)w->shard_samples, w->batch_size);

	float *mom = be->alloc(w->nparams * sizeof(float));
	if (!mom) {
		fprintf(stderr, "FAIL: out of memory\n");
		return 1;
	}
	double acc0 = w->evaluate(w);
	long steps_per_epoch = (long)(w->shard_samples / (uint64_t)w->batch_size);
	long total = (long)(epochs * steps_per_epoch);
	double loss_sum = 0.0, acc = acc0;
	for (long s = 1; s <= total; s++) {
		float loss = w->train_batch(w);
		be->sgd_step(w->params, w->grads, mom, w->nparams, 0.05f, 0.9f, 0.0f);
		loss_sum += loss;
		if (s % steps_per_epoch == 0 || s == total) {
			acc = w->evaluate(w);
			long n = s % steps_per_epoch ? s % steps_per_epoch : steps_per_epoch;
			printf("epoch %.2f  step %ld  train loss %.4f  test accuracy %.4f\n",
			       (double)s / steps_per_epoch, s, loss_sum / n, acc);
			loss_sum = 0.0;
		}
	}
	be->free(mom);
	w->destroy(w);
	if (!(acc0 < 0.3)) {
		fprintf(stderr, "FAIL: untrained accuracy %.4f, expected near chance (0.1)\n", acc0);
		return 1;
	}
	if (acc < need) {
		fprintf(stderr, "FAIL: test accuracy %.4f after %.2f epochs, need >= %.2f\n", acc, epochs,
			need);
		return 1;
	}
	printf("PASS: test accuracy %.4f >= %.2f (untrained %.4f)\n", acc, need, acc0);
	return 0;
}
