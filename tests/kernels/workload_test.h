/*
 * workload_test.h: what the workload tests share: the backend they are asked
 * for (a skip, exit 77, when it is not there: no GPU), the transformer built
 * or the test ended (a skip without the corpus, a failure, exit 1, with the
 * workload's message on any other error), and the small transformer the
 * gradient and decay checks run on.
 */
#ifndef NODEOX_TESTS_WORKLOAD_TEST_H
#define NODEOX_TESTS_WORKLOAD_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/backend.h"
#include "runtime/workload_gpt.h"

static inline const nodeox_backend_t *backend_or_skip(const char *name)
{
	char err[512];
	const nodeox_backend_t *be = backend_by_name(name, 0, err, sizeof(err));
	if (be)
		return be;
	printf("%s: skipping\n", err);
	exit(77);
}

static inline nodeox_workload_t *gpt_create_or_exit(const workload_gpt_opts_t *o, const nodeox_backend_t *be)
{
	char err[512];
	nodeox_workload_t *w = workload_gpt_create(o, 0, 1, be, err, sizeof(err));
	if (w)
		return w;
	if (strstr(err, "not found")) {
		printf("%s: skipping\n", err);
		exit(77);
	}
	fprintf(stderr, "FAIL: %s\n", err);
	exit(1);
}

/* The small transformer: the defaults at 16 channels, 2 heads, 8 bytes of
 * context, on the corpus's first 200 documents. */
static inline void gpt_small_opts(workload_gpt_opts_t *o)
{
	workload_gpt_opts_default(o);
	o->channels = 16;
	o->heads = 2;
	o->context = 8;
	o->max_docs = 200;
}

#endif /* NODEOX_TESTS_WORKLOAD_TEST_H */
