/*
 * gpt_create.h: the transformer tests' way to build their workload: on
 * success the workload; without the corpus the test skips (exit 77), on
 * any other error it fails (exit 1) with the workload's message.
 */
#ifndef NODEOX_TESTS_GPT_CREATE_H
#define NODEOX_TESTS_GPT_CREATE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/workload_gpt.h"

static nodeox_workload_t *gpt_create_or_exit(const workload_gpt_opts_t *o,
                                             const nodeox_backend_t *be)
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

#endif /* NODEOX_TESTS_GPT_CREATE_H */
