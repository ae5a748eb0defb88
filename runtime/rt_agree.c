/*
 * rt_agree.c: that every rank is in the same engine collective. MPI pairs
 * collectives by their order alone, so a rank that asks for the summary
 * while another ends a round would pair an all-gather of 8 bytes with one
 * of worker records and fail deep in MPI (MPI_ERR_TRUNCATE) or hang. Every
 * collective that a caller could reach out of step -- the round end, the
 * run's result, the host all-reduce and broadcast, finalize -- therefore starts with the
 * same fixed-size record all-gathered (the round end's worker record, whose
 * op says which call the rank is in). All ranks receive the same records,
 * so when they differ every rank sees it at once and stops, and the message
 * names both calls in the caller's own terms (nodeox.torch's Python API, or
 * the C API's functions).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "runtime/rt_internal.h"

static const char *_agree_name(const nodeox_rt_t *rt, int op)
{
	int py = rt->cfg.api != NULL;
	switch (op) {
	case RT_OP_ROUND_END: return py ? "step() (its round end)" : "a round end";
	case RT_OP_RESULT: return py ? "summary()" : "nodeox_rt_result()";
	case RT_OP_ALLREDUCE: return py ? "all_reduce()" : "nodeox_rt_allreduce_host()";
	case RT_OP_FINALIZE: return py ? "finalize() (or the interpreter's exit)" : "nodeox_rt_finalize()";
	case RT_OP_BCAST: return py ? "broadcast() (Rounds' start)" : "nodeox_rt_bcast_host()";
	}
	return "an unknown call";
}

void rt_agree_check(const nodeox_rt_t *rt, const rt_worker_info_t *all, int op)
{
	int world = rt->env.world, other = -1;
	(void)op; /* this rank's own record carries it */
	for (int i = 1; i < world && other < 0; i++)
		if (all[i].op != all[0].op)
			other = i;
	if (other < 0)
		return;
	/* every rank has the same records: rank 0 explains, the others point there */
	const char *a = _agree_name(rt, (int)all[0].op), *b = _agree_name(rt, (int)all[other].op);
	char msg[1400];
	if (rt->env.rank != 0)
		snprintf(msg, sizeof msg,
			 "ranks out of step: rank 0 called %s while rank %d called %s (rank 0 "
			 "says more)",
			 a, other, b);
	else if (rt->cfg.api != NULL)
		snprintf(
			msg, sizeof msg,
			"ranks out of step: rank 0 called %s while rank %d called %s. These are collectives: "
			"every rank makes the same calls in the same order (summary(), all_reduce() and "
			"finalize() on every rank, not under `if ctx.rank == 0`). A loop over a fixed number "
			"of "
			"batches per rank (an epoch) falls out of step in rounds, where a faster rank takes "
			"more "
			"steps per round: give total_steps and loop while not opt.done (or while "
			"tr.global_step < total_steps), which ends every rank at the same round end",
			a, other, b);
	else
		snprintf(
			msg, sizeof msg,
			"ranks out of step: rank 0 is in %s while rank %d is in %s (every rank must make the "
			"engine's collective calls in the same order)",
			a, other, b);
	rt_util_die(rt, NODEOX_RT_EXIT_USAGE, msg);
}

void rt_agree(nodeox_rt_t *rt, int op)
{
	rt_worker_info_t mine, all[NODEOX_RT_MAX_WORKERS];
	memset(&mine, 0, sizeof mine);
	mine.op = op;
	rt_comm_allgather(rt->comm, &mine, all, sizeof mine, __FILE__, __LINE__);
	rt_agree_check(rt, all, op);
}
