/*
 * workload_mlp.h: the built-in workload, an MLP classifier on Fashion-MNIST.
 *
 * 784 inputs -> hidden layers (ReLU) -> 10 logits, softmax cross-entropy.
 * Data: the gzip IDX files of Debian's dataset-fashion-mnist (read by
 * runtime/data_idx.c).  Worker `rank` of `world` trains on the samples i with
 * i % world == rank of the (optionally truncated) 60k training set, in an
 * order reshuffled each epoch from (seed, rank, epoch); evaluation uses the
 * 10k test set.  Weights start from He-uniform init drawn from `seed` only,
 * so all ranks start equal.
 */
#ifndef NODEOX_WORKLOAD_MLP_H
#define NODEOX_WORKLOAD_MLP_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WORKLOAD_MLP_MAX_HIDDEN 8
#define WORKLOAD_MLP_DEFAULT_DIR "/usr/share/datasets/fashion-mnist"

typedef struct workload_mlp_opts {
	const char *data_dir;                /* NULL: $FASHION_MNIST_DIR, else WORKLOAD_MLP_DEFAULT_DIR */
	int nhidden;                         /* number of hidden layers (default 3) */
	int hidden[WORKLOAD_MLP_MAX_HIDDEN]; /* sizes (default 256,128,100: the
                                            data set README's MLP reference) */
	int batch_size;                      /* default 64 */
	uint64_t seed;                       /* default 1 */
	size_t max_train;                    /* use only the first max_train training samples (0: all) */
	size_t max_test;                     /* evaluate on the first max_test test samples (0: all) */
} workload_mlp_opts_t;

/* Fill opts with the defaults above. */
void workload_mlp_opts_default(workload_mlp_opts_t *opts);

/* Parse hidden sizes "256,128,100" or "256-128-100" into opts. Returns 0, or
 * -1 with a message naming the bad item in err. */
int workload_mlp_parse_hidden(workload_mlp_opts_t *opts, const char *spec, char *err, size_t errlen);

/* Read the data, allocate parameters on be, initialize them. Returns NULL with
 * a message (naming the file and what is wrong) in err on failure. */
nodeox_workload_t *workload_mlp_create(const workload_mlp_opts_t *opts, int rank, int world,
				       const nodeox_backend_t *be, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* NODEOX_WORKLOAD_MLP_H */
