/*
 * nodeox_run.c: the nodeox-run launcher. One process per GPU (or CPU
 * worker), started by srun or mpirun: parse options, start the runtime,
 * build the chosen workload (the Fashion-MNIST MLP or the byte-level
 * transformer) on this rank's shard, then train (rounds or synchronous) or
 * evaluate, and report. See doc/nodeox-run.1 and doc/runtime.md.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/nodeox_rt.h"
#include "runtime/rt_alloc.h"
#include "runtime/rt_speedrec.h"
#include "runtime/workload_gpt.h"
#include "runtime/workload_mlp.h"

/* Exit status for a workload that could not be built: its data, or memory. */
static int _run_create_status(const char *err)
{
	return strstr(err, "out of memory") ? NODEOX_RT_EXIT_RESOURCES : NODEOX_RT_EXIT_DATA;
}

static nodeox_workload_t *_run_workload(const nodeox_rt_config_t *cfg, nodeox_rt_t *rt, char *err,
					size_t errlen)
{
	int rank = nodeox_rt_rank(rt), world = nodeox_rt_world(rt);
	if (cfg->workload == NODEOX_WORKLOAD_GPT) {
		workload_gpt_opts_t o;
		workload_gpt_opts_default(&o);
		o.corpus = cfg->corpus;
		o.layers = cfg->layers;
		o.channels = cfg->channels;
		o.heads = cfg->heads;
		o.context = cfg->context;
		if (cfg->batch > 0)
			o.batch_size = cfg->batch;
		o.batch_size = nodeox_rt_batch(rt, o.batch_size);
		o.seed = cfg->seed;
		o.max_docs = (size_t)cfg->max_docs;
		o.max_eval_items = (size_t)cfg->eval_windows;
		return workload_gpt_create(&o, rank, world, nodeox_rt_backend(rt), err, errlen);
	}
	workload_mlp_opts_t o;
	workload_mlp_opts_default(&o);
	if (workload_mlp_parse_hidden(&o, cfg->hidden, err, errlen) != 0)
		return NULL;
	o.data_dir = cfg->data_dir;
	if (cfg->batch > 0)
		o.batch_size = cfg->batch;
	o.batch_size = nodeox_rt_batch(rt, o.batch_size);
	o.seed = cfg->seed;
	o.max_train = (size_t)cfg->max_train;
	return workload_mlp_create(&o, rank, world, nodeox_rt_backend(rt), err, errlen);
}

int main(int argc, char **argv)
{
	char err[512];
	nodeox_rt_config_t cfg;
	nodeox_rt_config_defaults(&cfg);
	int rc = nodeox_rt_config_parse(&cfg, argc, argv, err, sizeof err);
	if (rc > 0)
		return 0;
	if (rc < 0) {
		fprintf(stderr, "nodeox-run: %s\n", err);
		return NODEOX_RT_EXIT_USAGE;
	}
	if (cfg.workload == NODEOX_WORKLOAD_MLP) { /* the option is checked before MPI starts */
		workload_mlp_opts_t o;
		if (workload_mlp_parse_hidden(&o, cfg.hidden, err, sizeof err) != 0) {
			fprintf(stderr, "nodeox-run: --hidden: %s\n", err);
			return NODEOX_RT_EXIT_USAGE;
		}
	}

	rt_alloc_t alloc; /* GPU type and speed from the Slurm allocation (rt_alloc.c) */
	rt_alloc_probe(&alloc, &cfg);
	nodeox_rt_t *rt = nodeox_rt_init(&argc, &argv, &cfg);
	rt_alloc_apply(rt, &alloc);
	int rank = nodeox_rt_rank(rt);
	nodeox_workload_t *w = _run_workload(&cfg, rt, err, sizeof err);
	if (w == NULL) {
		fprintf(stderr, "nodeox-run: rank %d: %s\n", rank, err);
		return _run_create_status(err);
	}
	if (cfg.mode == NODEOX_MODE_EVALUATE) {
		nodeox_rt_eval_result_t ev;
		nodeox_rt_evaluate(rt, w, &ev);
	} else {
		nodeox_rt_result_t res;
		nodeox_rt_run(rt, w, &res);
		if (rank == 0 && res.val_loss >= 0)
			printf("nodeox-run: done: validation loss %.4f (perplexity %.3f) after %ld rounds, "
			       "%ld global steps, train %.2f s, wall %.2f s, %ld dropped, %.0f bytes "
			       "communicated\n",
			       res.val_loss, exp(res.val_loss), res.rounds, res.global_steps, res.train_s,
			       res.wall_s, res.dropped, res.bytes_communicated);
		else if (rank == 0)
			printf("nodeox-run: done: test accuracy %.4f after %ld rounds, %ld global steps, "
			       "train %.2f s, wall %.2f s, %ld dropped, %.0f bytes communicated\n",
			       res.test_accuracy, res.rounds, res.global_steps, res.train_s, res.wall_s,
			       res.dropped, res.bytes_communicated);
	}
	/* the speed record (rt_speedrec.h): gathered while MPI runs, stored by
	 * rank 0 after it (a fork beside MPI upsets some transports); a
	 * failure is a warning, never the job's exit status */
	speedrec_t rec;
	int record = cfg.mode != NODEOX_MODE_EVALUATE &&
		     rt_speedrec_gather(rt, &alloc, (long)w->batch_size, &rec) > 0;
	w->destroy(w);
	nodeox_rt_finalize(rt);
	if (record) {
		if (rt_speedrec_store(&rec, err, sizeof err) != 0)
			fprintf(stderr,
				"nodeox-run: warning: speed record not stored in job %s's Comment: %s\n",
				getenv("SLURM_JOB_ID"), err);
		else if (!cfg.quiet)
			printf("nodeox-run: speed record stored in job %s's Comment\n",
			       getenv("SLURM_JOB_ID"));
	}
	return 0;
}
