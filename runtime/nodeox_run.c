/*
 * nodeox_run.c: the nodeox-run launcher. One process per GPU (or CPU
 * worker), started by srun or mpirun: parse options, start the runtime,
 * build the Fashion-MNIST MLP workload on this rank's shard, train, report.
 * See doc/nodeox-run.1 and doc/runtime.md.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "runtime/nodeox_rt.h"
#include "runtime/rt_alloc.h"
#include "runtime/workload_mlp.h"

int main(int argc, char **argv)
{
    char err[512];
    nodeox_rt_config_t cfg;
    nodeox_rt_config_defaults(&cfg);
    int rc = nodeox_rt_config_parse(&cfg, argc, argv, err, sizeof err);
    if (rc > 0) return 0;
    if (rc < 0) {
        fprintf(stderr, "nodeox-run: %s\n", err);
        return NODEOX_RT_EXIT_USAGE;
    }
    workload_mlp_opts_t opts;
    workload_mlp_opts_default(&opts);
    if (workload_mlp_parse_hidden(&opts, cfg.hidden, err, sizeof err) != 0) {
        fprintf(stderr, "nodeox-run: --hidden: %s\n", err);
        return NODEOX_RT_EXIT_USAGE;
    }
    opts.data_dir = cfg.data_dir;
    opts.batch_size = cfg.batch;
    opts.seed = cfg.seed;
    opts.max_train = (size_t)cfg.max_train;

    rt_alloc_t alloc; /* GPU type and speed from the Slurm allocation (rt_alloc.c) */
    rt_alloc_probe(&alloc, &cfg);
    nodeox_rt_t *rt = nodeox_rt_init(&argc, &argv, &cfg);
    rt_alloc_apply(rt, &alloc);
    int rank = nodeox_rt_rank(rt);
    nodeox_workload_t *w = workload_mlp_create(&opts, rank, nodeox_rt_world(rt),
                                               nodeox_rt_backend(rt), err, sizeof err);
    if (w == NULL) {
        fprintf(stderr, "nodeox-run: rank %d: %s\n", rank, err);
        return NODEOX_RT_EXIT_USAGE;
    }
    nodeox_rt_result_t res;
    nodeox_rt_run(rt, w, &res);
    if (rank == 0)
        printf("nodeox-run: done: test accuracy %.4f after %ld rounds, %ld global steps, "
               "train %.2f s, wall %.2f s, %ld dropped, %.0f bytes communicated\n",
               res.test_accuracy, res.rounds, res.global_steps, res.train_s, res.wall_s,
               res.dropped, res.bytes_communicated);
    w->destroy(w);
    nodeox_rt_finalize(rt);
    return 0;
}
