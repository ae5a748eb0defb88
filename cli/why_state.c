/*
 * why_state.c: Broaden=when-faster's state for `nodeox why`, from the live
 * queue (why_cluster_t, loaded by why_load.c), so that the policy library
 * estimates from what job_submit/nodeox reads inside slurmctld
 * (plugin/job_submit_nodeox.c, _cluster_state): running jobs' GPUs per node
 * with their expected ends, sorted, and the GPUs pending jobs ahead want per
 * type. One difference, said in doc/why.md: libslurm gives a running job's
 * GPUs over all its nodes (tres_alloc_str, or where that does not count
 * GPUs its request), so they are spread evenly over its nodes here, where
 * slurmctld knows them per node. Running jobs' ends come from their users'
 * run-time history (RunTimeHistory=yes, policy_history.c) as the plugin's
 * do, but the history is only the ended jobs the loaded queue still holds
 * (MinJobAge), where the plugin remembers what its earlier walks saw.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/why.h"
#include "common/util.h"

typedef struct {
	const char *name;
	size_t idx;
} state_name_t;

/* A running entry with its job, sorted as nodeox_running_sort sorts
 * (stable by end: ties in the order given), so that ids follow entries. */
typedef struct {
	nodeox_running_t r;
	uint32_t id;
	size_t pos;
} state_run_t;

static int state_run_cmp(const void *a, const void *b)
{
	const state_run_t *x = a, *y = b;

	if (x->r.end != y->r.end)
		return x->r.end < y->r.end ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

static int state_name_cmp(const void *a, const void *b)
{
	const state_name_t *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* bsearch's test: the name alone (state_name_cmp, which sorts, also
 * orders equal names by index, so a key found only the entry of its own
 * index: a running job on any node but the first sorted of its name was
 * left out). */
static int state_name_key(const void *a, const void *b)
{
	return strcmp(((const state_name_t *)a)->name, ((const state_name_t *)b)->name);
}

/* GPUs of a TRES list and the type of its first typed entry (type[0] = 0
 * if none); per-node and per-socket counts times nodes, per-task times
 * tasks. Typed entries are counted when there are any: tres_alloc_str
 * holds "gres/gpu=4,gres/gpu:a100=4", the same GPUs twice. */
static uint64_t state_gpus(const char *const *field, int nfield, const uint64_t *mult, char *type, size_t cap)
{
	nodeox_tres_gpu_t e[NODEOX_TRES_MAX_GPU];
	uint64_t typed = 0, untyped = 0;
	int f, i, n;

	type[0] = '\0';
	for (f = 0; f < nfield; f++) {
		n = nodeox_tres_scan(field[f], e, NODEOX_TRES_MAX_GPU);
		for (i = 0; i < n && i < NODEOX_TRES_MAX_GPU; i++) {
			if (e[i].problem != NODEOX_TRES_OK)
				continue;
			if (e[i].type_len) {
				typed += e[i].count * mult[f];
				if (!type[0])
					nodeox_tres_type_copy(field[f], &e[i], type, cap);
			} else {
				untyped += e[i].count * mult[f];
			}
		}
	}
	return typed ? typed : untyped;
}

/* The policy node of that name holding that GPU type (the first one of the
 * name when the type is "" or not found), or -1. */
static long state_node(const state_name_t *idx, size_t n, const nodeox_node_t *nodes, const char *name,
		       size_t len, const char *type)
{
	char key[WHY_NAME_MAX];
	state_name_t k = { key, 0 }, *hit;
	size_t i;

	if (!len || len >= sizeof(key))
		return -1;
	memcpy(key, name, len);
	key[len] = '\0';
	hit = bsearch(&k, idx, n, sizeof(*idx), state_name_key);
	if (!hit)
		return -1;
	while (hit > idx && !strcmp(hit[-1].name, key))
		hit--;
	for (i = (size_t)(hit - idx); type[0] && i < n && !strcmp(idx[i].name, key); i++)
		if (nodes[idx[i].idx].gpu_type && !strcasecmp(nodes[idx[i].idx].gpu_type, type))
			return (long)idx[i].idx;
	return (long)hit->idx;
}

/* A pending job for the backfill map, with its priority, sorted as
 * slurmctld's backfill walks them (priority, then id). */
typedef struct {
	nodeox_pending_t p;
	uint32_t prio;
} state_pend_t;

static int state_pend_cmp(const void *a, const void *b)
{
	const state_pend_t *x = a, *y = b;

	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	return (x->p.id > y->p.id) - (x->p.id < y->p.id);
}

/* A pending job's limit for the map, seconds (0: none): its own, else the
 * MaxTime of the first of its partitions that has one, as the plugin reads
 * it (part_ptr). */
static int64_t state_limit(const why_cluster_t *cl, const why_qjob_t *q)
{
	const char *p = q->partition, *it;
	size_t n, k;

	if (q->time_limit != NODEOX_TIME_NONE && q->time_limit != NODEOX_TIME_INFINITE)
		return (int64_t)q->time_limit * 60;
	while (p && nodeox_util_list_next(&p, &it, &n))
		for (k = 0; k < cl->nparts; k++)
			if (cl->parts[k].name && strlen(cl->parts[k].name) == n && !strncmp(cl->parts[k].name, it, n))
				return cl->parts[k].max_time == NODEOX_TIME_INFINITE ||
						       cl->parts[k].max_time == NODEOX_TIME_NONE
					       ? 0
					       : (int64_t)cl->parts[k].max_time * 60;
	return 0;
}

/* The backfill map's list (as the plugin's _state_pending gives it): the
 * pending jobs into priority order, at most NODEOX_MAP_LIST, pending_more
 * past them. */
static int state_pending(state_pend_t *pend, size_t np, why_state_t *st, nodeox_cluster_t *out)
{
	size_t i, n = np < NODEOX_MAP_LIST ? np : NODEOX_MAP_LIST;

	qsort(pend, np, sizeof(*pend), state_pend_cmp);
	st->pending = calloc(n ? n : 1, sizeof(*st->pending));
	st->pending_prio = calloc(n ? n : 1, sizeof(*st->pending_prio));
	if (!st->pending || !st->pending_prio)
		return -1;
	for (i = 0; i < n; i++) {
		st->pending[i] = pend[i].p;
		st->pending_prio[i] = pend[i].prio;
	}
	out->map = true;
	out->pending = st->pending;
	out->npending = n;
	out->pending_more = np > n;
	return 0;
}

int why_state_fill(const why_cluster_t *cl, const why_job_t *job, const nodeox_conf_t *conf,
		   const nodeox_node_t *nodes, size_t nnodes, why_state_t *st, nodeox_cluster_t *out)
{
	state_name_t *idx;
	state_pend_t *pend;
	nodeox_history_t *hist = NULL;
	size_t nr = 0, cap = 0, i, np = 0;
	char type[NODEOX_NAME_MAX];

	memset(st, 0, sizeof(*st));
	/* the run-time history from the ended jobs the queue still holds */
	if (conf && conf->run_time_history && (hist = malloc(sizeof(*hist)))) {
		nodeox_history_init(hist);
		for (i = 0; i < cl->njobs; i++) {
			const why_qjob_t *q = &cl->jobs[i];

			if (q->ended_own && q->nodes && q->start_time > 0 && q->end_time >= q->start_time)
				(void)nodeox_history_record(hist, q->user_id, q->job_id, (int64_t)q->end_time,
							    (int64_t)(q->end_time - q->start_time));
		}
	}
	st->scratch = calloc(NODEOX_ESTIMATE_SCRATCH(nnodes ? nnodes : 1), sizeof(uint32_t));
	idx = calloc(nnodes ? nnodes : 1, sizeof(*idx));
	pend = calloc(cl->njobs ? cl->njobs : 1, sizeof(*pend));
	for (i = 0; i < cl->njobs; i++)
		if (cl->jobs[i].phase == WHY_PHASE_ACTIVE && cl->jobs[i].nodes)
			cap += cl->jobs[i].num_nodes ? cl->jobs[i].num_nodes : 1;
	st->running = calloc(cap ? cap : 1, sizeof(*st->running));
	st->running_id = calloc(cap ? cap : 1, sizeof(*st->running_id));
	if (!st->scratch || !idx || !pend || !st->running || !st->running_id) {
		free(hist);
		free(idx);
		free(pend);
		why_state_free(st);
		return -1;
	}
	for (i = 0; i < nnodes; i++)
		idx[i] = (state_name_t){ nodes[i].name ? nodes[i].name : "", i };
	qsort(idx, nnodes, sizeof(*idx), state_name_cmp);
	out->nahead = 0;
	for (i = 0; i < cl->njobs; i++) {
		const why_qjob_t *q = &cl->jobs[i];
		uint64_t one[4] = { 1, 1, 1, 1 };

		if (q->phase == WHY_PHASE_ACTIVE && q->nodes) {
			const char *f[1] = { q->tres_alloc }, *p = q->nodes;
			const char *req[4] = { q->tres_per_job, q->tres_per_node, q->tres_per_task,
					       q->tres_per_socket };
			uint32_t nn = q->num_nodes ? q->num_nodes : 1;
			uint64_t mult[4] = { 1, nn, q->num_tasks ? q->num_tasks : 1, nn };
			uint64_t gpus = state_gpus(f, 1, one, type, sizeof(type));

			/* tres_alloc_str names GPUs only where AccountingStorageTRES
			 * counts gres/gpu: else what the job asked is what it holds */
			if (!gpus)
				gpus = state_gpus(req, 4, mult, type, sizeof(type));

			const char *it;
			size_t n;
			int64_t end = nodeox_history_end(hist, q->user_id, (int64_t)q->start_time,
							 (int64_t)q->end_time, (int64_t)cl->now, NULL);

			while (gpus && nr < cap && nodeox_util_list_next(&p, &it, &n)) {
				long at = state_node(idx, nnodes, nodes, it, n, type);

				if (at >= 0) {
					st->running_id[nr] = q->job_id;
					st->running[nr++] =
						(nodeox_running_t){ (uint32_t)at,
								    (uint32_t)((gpus + nn - 1) / nn),
								    end - (int64_t)cl->now };
				}
			}
		} else if (q->phase == WHY_PHASE_PENDING && q->priority && q->job_id != job->job_id &&
			   (!q->partition || !job->partition ||
			    nodeox_util_lists_meet(q->partition, job->partition))) {
			const char *f[4] = { q->tres_per_job, q->tres_per_node, q->tres_per_task,
					     q->tres_per_socket };
			uint64_t nn = q->num_nodes ? q->num_nodes : 1;
			uint64_t mult[4] = { 1, nn, q->num_tasks ? q->num_tasks : 1, nn };
			uint64_t gpus = state_gpus(f, 4, mult, type, sizeof(type));
			size_t k;

			if (!gpus)
				continue;
			for (k = 0; k < out->nahead && strcasecmp(st->ahead_type[k], type); k++)
				;
			if (k == out->nahead) {
				if (k == NODEOX_MAX_TYPES + 1)
					continue; /* more types than nodeox.conf names: none of ours */
				memcpy(st->ahead_type[k], type, sizeof(type));
				st->ahead[k] = (nodeox_demand_t){ .type = st->ahead_type[k] };
				out->nahead++;
			}
			nodeox_demand_add(&st->ahead[k], gpus, q->priority, q->job_id);
			if (conf && nodeox_pending_types(conf, type, q->features, &pend[np].p.types)) {
				pend[np].p.gpus = gpus;
				pend[np].p.limit = state_limit(cl, q);
				pend[np].p.id = q->job_id;
				pend[np++].prio = q->priority;
			}
		}
	}
	free(idx);
	free(hist);
	if (conf && state_pending(pend, np, st, out) < 0) {
		free(pend);
		why_state_free(st);
		return -1;
	}
	free(pend);
	{
		/* sorted with their job ids, in the order nodeox_running_sort
		 * gives (stable by end), which then finds them sorted; without
		 * the memory, its own sort, and the ids are not named */
		state_run_t *tmp = nr > 1 ? malloc(nr * sizeof(*tmp)) : NULL;

		if (tmp) {
			for (i = 0; i < nr; i++)
				tmp[i] = (state_run_t){ st->running[i], st->running_id[i], i };
			qsort(tmp, nr, sizeof(*tmp), state_run_cmp);
			for (i = 0; i < nr; i++) {
				st->running[i] = tmp[i].r;
				st->running_id[i] = tmp[i].id;
			}
		} else if (nr > 1) {
			memset(st->running_id, 0, nr * sizeof(*st->running_id));
		}
		free(tmp);
		nodeox_running_sort(st->running, nr, NULL);
	}
	out->running = st->running;
	out->nrunning = nr;
	out->ahead = st->ahead;
	out->scratch = st->scratch;
	return 0;
}

/* The running jobs of a side (indexes into cl->running, as the estimate
 * names them) with their ends. */
static int state_by(const why_state_t *st, const nodeox_cluster_t *cl, const uint32_t *idx, int n,
		    why_by_t *by)
{
	int k, m = 0;

	for (k = 0; k < n && k < NODEOX_ESTIMATE_BY; k++)
		if (idx[k] < cl->nrunning)
			by[m++] = (why_by_t){ st->running_id[idx[k]], cl->running[idx[k]].end };
	return m;
}

void why_state_deciders(const why_state_t *st, const nodeox_conf_t *conf, const nodeox_cluster_t *cl,
			const nodeox_estimate_t *e, why_plan_t *plan)
{
	size_t i;

	plan->nkept_by = plan->nbroad_by = 0;
	plan->nahead = 0;
	if (!e->made || !st->running_id)
		return;
	plan->nkept_by = state_by(st, cl, e->kept_by, e->nkept_by, plan->kept_by);
	plan->nbroad_by = state_by(st, cl, e->broad_by, e->nbroad_by, plan->broad_by);
	if (cl->map) {
		/* the reservations of the jobs ahead that touch a side (the
		 * first 64, in priority order; the mask's bits), one by one:
		 * type "a|b" for a job that may use several, "" any */
		for (i = 0; i < cl->npending && i < 64 && plan->nahead < NODEOX_MAX_TYPES + 1; i++) {
			const nodeox_pending_t *p = &cl->pending[i];
			bool k = e->kept_ahead_mask >> i & 1, b = e->broad_ahead_mask >> i & 1;
			why_ahead_t *a;
			size_t len = 0;

			if (!k && !b)
				continue;
			a = &plan->ahead[plan->nahead++];
			a->type[0] = '\0';
			for (int t = 0; conf && t < conf->ntypes; t++)
				if (p->types >> t & 1 && len + 2 < sizeof(a->type))
					len += (size_t)snprintf(a->type + len, sizeof(a->type) - len, "%s%s",
								len ? "|" : "", conf->types[t].name);
			if (len >= sizeof(a->type))
				a->type[sizeof(a->type) - 1] = '\0';
			a->gpus = p->gpus;
			a->first_id = p->id;
			a->first_prio = st->pending_prio ? st->pending_prio[i] : 0;
			a->kept = k;
			a->broad = b;
		}
		return;
	}
	for (i = 0; i < cl->nahead && i < 64 && plan->nahead < NODEOX_MAX_TYPES + 1; i++) {
		const nodeox_demand_t *d = &cl->ahead[i];
		bool k = e->kept_ahead_mask >> i & 1, b = e->broad_ahead_mask >> i & 1;
		why_ahead_t *a;

		if (!k && !b)
			continue;
		a = &plan->ahead[plan->nahead++];
		snprintf(a->type, sizeof(a->type), "%s", d->type ? d->type : "");
		a->gpus = d->gpus;
		a->first_id = d->first_id;
		a->first_prio = d->first_prio;
		a->kept = k;
		a->broad = b;
	}
}

void why_state_free(why_state_t *st)
{
	free(st->pending);
	free(st->pending_prio);
	st->pending = NULL;
	st->pending_prio = NULL;
	free(st->running_id);
	st->running_id = NULL;
	free(st->running);
	free(st->scratch);
	st->running = NULL;
	st->scratch = NULL;
}
