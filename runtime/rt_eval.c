/*
 * rt_eval.c: evaluation as its own job mode (nodeox-run --evaluate).
 *
 * The held-out set is a list of equal items (runtime/workload.h:
 * eval_loss_sums).  Rank i gets a contiguous run of n_i items with n_i
 * proportional to its speed s_i, so a mixed allocation finishes when the
 * fastest would (instead of every rank waiting for the slowest, as an
 * equal split would make it).  Speeds are the emulated ones when
 * --emulate-speeds is given, else measured: every rank times one batch of
 * items and the times are all-gathered (1 / time is the speed).
 *
 * Exactness: each rank writes its items' loss sums into a zeroed array of
 * all items and one all-reduce sums the arrays; every slot has one nonzero
 * contributor, so the result is bitwise the same array whatever the split,
 * and rank 0 then sums it in item order: the reported loss does not depend
 * on the number of ranks or their speeds.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt_internal.h"

void rt_eval_shares(size_t n, int world, const double *speeds, size_t *count, size_t *first)
{
	double total = 0;
	size_t given = 0;
	for (int i = 0; i < world; i++)
		total += speeds[i] > 0 ? speeds[i] : 0;
	double frac[NODEOX_RT_MAX_WORKERS];
	for (int i = 0; i < world; i++) {
		double exact =
			total > 0 ? (double)n * (speeds[i] > 0 ? speeds[i] : 0) / total : (double)n / world;
		count[i] = (size_t)floor(exact);
		frac[i] = exact - (double)count[i];
		given += count[i];
	}
	while (given < n) { /* largest remainder first, ties to the lower rank */
		int best = 0;
		for (int i = 1; i < world; i++)
			if (frac[i] > frac[best])
				best = i;
		count[best]++;
		frac[best] = -1;
		given++;
	}
	size_t at = 0;
	for (int i = 0; i < world; i++) {
		first[i] = at;
		at += count[i];
	}
}

/* Loss sums of count items from first, in batches, each batch one emulated
 * "step" (so an emulated slow rank takes proportionally longer). */
static void _eval_items(nodeox_rt_t *rt, nodeox_workload_t *w, size_t first, size_t count, double *sums)
{
	size_t batch = (size_t)w->batch_size;
	for (size_t done = 0; done < count; done += batch) {
		size_t k = count - done < batch ? count - done : batch;
		rt_emulate_step_begin(&rt->emu);
		w->eval_loss_sums(w, first + done, k, sums + done);
		rt_emulate_step_end(&rt->emu);
	}
}

int nodeox_rt_evaluate(nodeox_rt_t *rt, nodeox_workload_t *w, nodeox_rt_eval_result_t *res)
{
	const nodeox_rt_config_t *c = &rt->cfg;
	int world = rt->env.world, rank = rt->env.rank;
	double t0 = rt_util_clock_s();
	if (w->eval_items == 0 || w->eval_loss_sums == NULL) {
		char msg[256];
		snprintf(msg, sizeof msg,
			 "--evaluate: workload %s has no split evaluation (use --workload gpt)", w->name);
		rt_util_die(rt, NODEOX_RT_EXIT_USAGE, msg);
	}
	rt->n = w->nparams;
	rt->metric = w->metric;
	rt->metric_lower_is_better = w->metric_lower_is_better;
	if (c->init_model)
		rt_model_load(rt, w, c->init_model);
	size_t n = w->eval_items;
	double *sums = calloc(n, sizeof(double));
	double speeds[NODEOX_RT_MAX_WORKERS], times[NODEOX_RT_MAX_WORKERS];
	size_t count[NODEOX_RT_MAX_WORKERS], first[NODEOX_RT_MAX_WORKERS];
	if (sums == NULL)
		rt_util_die(rt, NODEOX_RT_EXIT_RESOURCES, "out of memory");

	rt_fault_relax(1);
	if (c->n_emulate_speeds > 0) {
		for (int i = 0; i < world; i++)
			speeds[i] = c->emulate_speeds[i];
	} else { /* measure: one batch of items, then all-gather the times */
		size_t k = n < (size_t)w->batch_size ? n : (size_t)w->batch_size;
		double s0 = rt_util_clock_s(), mine;
		w->eval_loss_sums(w, 0, k, sums);
		rt->be->sync();
		mine = rt_util_clock_s() - s0;
		memset(sums, 0, k * sizeof(double));
		rt_comm_allgather(rt->comm, &mine, times, sizeof mine, __FILE__, __LINE__);
		for (int i = 0; i < world; i++)
			speeds[i] = times[i] > 0 ? 1.0 / times[i] : 1.0;
	}
	rt_eval_shares(n, world, speeds, count, first);

	double s0 = rt_util_clock_s();
	_eval_items(rt, w, first[rank], count[rank], sums + first[rank]);
	double mine = rt_util_clock_s() - s0;
	rt_comm_allgather(rt->comm, &mine, times, sizeof mine, __FILE__, __LINE__);
	rt_comm_allreduce_host_double(rt->comm, sums, n, __FILE__, __LINE__);
	rt_fault_relax(0);

	double total = 0, slowest = 0;
	for (size_t i = 0; i < n; i++)
		total += sums[i];
	for (int i = 0; i < world; i++)
		if (times[i] > slowest)
			slowest = times[i];
	free(sums);
	memset(res, 0, sizeof *res);
	res->items = n;
	res->tokens = n * (size_t)w->eval_item_tokens;
	res->loss = total / (double)res->tokens;
	res->perplexity = exp(res->loss);
	res->wall_s = slowest;
	if (rank == 0) {
		printf("nodeox-run: evaluate: %s: loss %.9f perplexity %.6f over %zu windows (%zu tokens)\n",
		       w->name, res->loss, res->perplexity, res->items, res->tokens);
		printf("nodeox-run: evaluate: windows per rank");
		for (int i = 0; i < world; i++)
			printf("%s%zu", i ? "," : " ", count[i]);
		printf(", seconds per rank");
		for (int i = 0; i < world; i++)
			printf("%s%.2f", i ? "," : " ", times[i]);
		printf(", wall %.2f s\n", rt_util_clock_s() - t0);
		fflush(stdout);
		if (c->json_path && rt_log_eval_json(rt, res, count, times, c->json_path) != 0) {
			char msg[4200];
			snprintf(msg, sizeof msg, "cannot write the --json file %s", c->json_path);
			rt_util_die(rt, NODEOX_RT_EXIT_OUTPUT, msg);
		}
	}
	return 0;
}
