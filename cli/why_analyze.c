/*
 * why_analyze.c: why a pending job cannot use the idle GPUs (pure).
 *
 * Input: the job and the nodes as plain structs (why.h), and nodeox.conf.
 * Every idle GPU of the cluster is judged once, by the first check it fails,
 * in the order a scheduler would rule it out: node state, partition, node
 * list, GPU type, constraint, CPUs left, memory left, and finally whether the
 * node has enough such GPUs idle for a per-node count. So the idle GPUs split
 * exactly into "usable" and "excluded by cause", and the groups add up.
 *
 * The flexible view asks the policy library what the plugin would do with
 * the job tagged `nodeox:flex`, applies that rewrite to a copy of the job,
 * and runs the same check on it: the same code judges both requests.
 * No Slurm calls and no I/O here, so tests/why/test_why_analyze.c can feed
 * hand-built clusters.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/why.h"

static const struct {
	const char *name, *text;
} _causes[WHY_CAUSE_COUNT] = {
	[WHY_OK] = { "ok", "usable" },
	[WHY_CAUSE_NODE_DOWN] = { "node_down", "node down" },
	[WHY_CAUSE_NODE_DRAINED] = { "node_drained", "node drained" },
	[WHY_CAUSE_NODE_NOT_RESPONDING] = { "node_not_responding", "node not responding" },
	[WHY_CAUSE_NODE_UNAVAILABLE] = { "node_unavailable", "node not available" },
	[WHY_CAUSE_PARTITION] = { "partition", "not in the job's partition" },
	[WHY_CAUSE_NODELIST] = { "nodelist", "ruled out by --nodelist/--exclude" },
	[WHY_CAUSE_GPU_TYPE] = { "gpu_type", "wrong GPU type" },
	[WHY_CAUSE_FEATURE] = { "feature", "node lacks a --constraint feature" },
	[WHY_CAUSE_CPUS] = { "cpus", "not enough CPUs left" },
	[WHY_CAUSE_MEMORY] = { "memory", "not enough memory left" },
	[WHY_CAUSE_GPUS_PER_NODE] = { "gpus_per_node", "too few idle GPUs on the node" },
};

const char *why_cause_name(why_cause_t cause)
{
	return cause < WHY_CAUSE_COUNT ? _causes[cause].name : "unknown";
}

const char *why_cause_text(why_cause_t cause)
{
	return cause < WHY_CAUSE_COUNT ? _causes[cause].text : "unknown";
}

static uint32_t _max_u32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

/* "gres:gpu:N" in cpus_per_tres / mem_per_tres: N, or 0. */
static uint64_t _per_gpu(const char *tres)
{
	char type[WHY_NAME_MAX];
	uint32_t n = 0;
	bool more;

	if (why_gres_parse_job(tres, type, sizeof(type), &n, &more) != 1)
		return 0;
	return n;
}

int why_request_read(const why_job_t *job, why_request_t *req, char *err, size_t errlen)
{
	static const struct {
		why_per_t per;
		size_t off;
		const char *what;
	} forms[] = {
		{ WHY_PER_NODE, offsetof(why_job_t, tres_per_node), "TresPerNode" },
		{ WHY_PER_JOB, offsetof(why_job_t, tres_per_job), "TresPerJob" },
		{ WHY_PER_TASK, offsetof(why_job_t, tres_per_task), "TresPerTask" },
		{ WHY_PER_SOCKET, offsetof(why_job_t, tres_per_socket), "TresPerSocket" },
	};
	uint32_t tasks = job->num_tasks ? job->num_tasks : 1;
	uint64_t per_gpu_cpus, per_gpu_mem;

	memset(req, 0, sizeof(*req));
	req->nodes = job->num_nodes ? job->num_nodes : 1;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		const char *s = *(const char *const *)((const char *)job + forms[i].off);
		char type[WHY_NAME_MAX];
		uint32_t count = 0;
		bool more = false;
		int rc = why_gres_parse_job(s, type, sizeof(type), &count, &more);

		if (rc < 0) {
			snprintf(err, errlen, "job %u: cannot read %s=%s", job->job_id, forms[i].what, s);
			return -1;
		}
		if (rc == 0)
			continue;
		if (req->per != WHY_PER_NONE) {
			req->several = true;
			continue;
		}
		req->per = forms[i].per;
		snprintf(req->type, sizeof(req->type), "%s", type);
		req->count = count;
		req->several = more;
	}

	switch (req->per) {
	case WHY_PER_NODE:
	case WHY_PER_SOCKET:
		req->total = req->count * req->nodes;
		req->per_node_min = req->count;
		break;
	case WHY_PER_JOB:
		req->total = req->count;
		req->per_node_min = job->max_nodes == 1 ? req->count : 1;
		break;
	case WHY_PER_TASK:
		req->total = req->count * tasks;
		req->per_node_min = job->max_nodes == 1 ? req->total : req->count;
		break;
	case WHY_PER_NONE: break;
	}

	/* CPUs one node must still have: per task, per node, per GPU, or all
	 * of them when the job is held to one node. */
	req->cpus_per_node = _max_u32(_max_u32(job->pn_min_cpus, job->cpus_per_task), 1);
	if (job->max_nodes == 1)
		req->cpus_per_node = _max_u32(req->cpus_per_node, job->num_cpus);
	else if (job->max_nodes > 1)
		req->cpus_per_node =
			_max_u32(req->cpus_per_node, (job->num_cpus + job->max_nodes - 1) / job->max_nodes);
	per_gpu_cpus = _per_gpu(job->cpus_per_tres);
	if (per_gpu_cpus)
		req->cpus_per_node =
			_max_u32(req->cpus_per_node, (uint32_t)(per_gpu_cpus * req->per_node_min));

	/* Memory as cons_tres reckons it: --mem-per-gpu wins, then --mem, then
	 * --mem-per-cpu times the CPUs on the node. */
	per_gpu_mem = _per_gpu(job->mem_per_tres);
	if (per_gpu_mem)
		req->mem_per_node_mb = per_gpu_mem * req->per_node_min;
	else if (job->mem_per_node_mb)
		req->mem_per_node_mb = job->mem_per_node_mb;
	else if (job->mem_per_cpu_mb)
		req->mem_per_node_mb = job->mem_per_cpu_mb * req->cpus_per_node;
	return 0;
}

static why_cause_t _state_cause(why_node_state_t st)
{
	switch (st) {
	case WHY_NODE_UP: return WHY_OK;
	case WHY_NODE_DOWN: return WHY_CAUSE_NODE_DOWN;
	case WHY_NODE_DRAINED: return WHY_CAUSE_NODE_DRAINED;
	case WHY_NODE_NOT_RESPONDING: return WHY_CAUSE_NODE_NOT_RESPONDING;
	default: return WHY_CAUSE_NODE_UNAVAILABLE;
	}
}

static bool _in_partition(const why_job_t *job, const why_node_t *node)
{
	return !job->partition || !*job->partition ||
	       nodeox_util_lists_meet(job->partition, node->partitions);
}

why_cause_t why_node_check(const why_job_t *job, const why_request_t *req, const why_node_t *node,
			   const char *gpu_type, char *detail, size_t dlen)
{
	why_cause_t c = _state_cause(node->state);
	uint32_t cpus_left;
	uint64_t mem_left;

	if (c != WHY_OK) {
		snprintf(detail, dlen, "state %s%s%s", node->state_name ? node->state_name : "?",
			 node->state_reason ? ": " : "", node->state_reason ? node->state_reason : "");
		return c;
	}
	if (!_in_partition(job, node)) {
		snprintf(detail, dlen, "node in %s, job in %s",
			 node->partitions && *node->partitions ? node->partitions : "no partition",
			 job->partition);
		return WHY_CAUSE_PARTITION;
	}
	if (job->req_nodes && *job->req_nodes && !why_list_has(job->req_nodes, node->name)) {
		snprintf(detail, dlen, "not in --nodelist %s", job->req_nodes);
		return WHY_CAUSE_NODELIST;
	}
	if (job->exc_nodes && why_list_has(job->exc_nodes, node->name)) {
		snprintf(detail, dlen, "in --exclude %s", job->exc_nodes);
		return WHY_CAUSE_NODELIST;
	}
	if (req->type[0] && strcmp(req->type, gpu_type) != 0) {
		snprintf(detail, dlen, "job asks for %s, node has %s", req->type,
			 gpu_type[0] ? gpu_type : "untyped GPUs");
		return WHY_CAUSE_GPU_TYPE;
	}
	if (why_feature_match(job->features, node->features) == 0) {
		snprintf(detail, dlen, "constraint %s, node has %s", job->features,
			 node->features && *node->features ? node->features : "no features");
		return WHY_CAUSE_FEATURE;
	}
	cpus_left = node->cpus > node->cpus_alloc ? node->cpus - node->cpus_alloc : 0;
	if (cpus_left < req->cpus_per_node) {
		snprintf(detail, dlen, "needs %u CPUs, %u of %u left", req->cpus_per_node, cpus_left,
			 node->cpus);
		return WHY_CAUSE_CPUS;
	}
	mem_left = node->mem_mb > node->mem_alloc_mb ? node->mem_mb - node->mem_alloc_mb : 0;
	if (req->mem_per_node_mb && mem_left < req->mem_per_node_mb) {
		snprintf(detail, dlen, "needs %llu MB, %llu of %llu MB left",
			 (unsigned long long)req->mem_per_node_mb, (unsigned long long)mem_left,
			 (unsigned long long)node->mem_mb);
		return WHY_CAUSE_MEMORY;
	}
	if (!req->mem_per_node_mb && job->mem_tracked && node->mem_alloc_mb) {
		snprintf(detail, dlen, "job asks no memory, so it needs all %llu MB; %llu MB in use",
			 (unsigned long long)node->mem_mb, (unsigned long long)node->mem_alloc_mb);
		return WHY_CAUSE_MEMORY;
	}
	return WHY_OK;
}

/* Group verdicts by (cause, type) into fit->excluded. */
static void _fit_group(why_fit_t *fit)
{
	for (size_t i = 0; i < fit->nverdicts; i++) {
		const why_verdict_t *v = &fit->verdicts[i];
		why_excluded_t *g = NULL;

		if (v->cause == WHY_OK)
			continue;
		for (size_t k = 0; k < fit->nexcluded; k++) {
			if (fit->excluded[k].cause == v->cause &&
			    strcmp(fit->excluded[k].type, v->type) == 0) {
				g = &fit->excluded[k];
				break;
			}
		}
		if (!g) {
			if (fit->nexcluded == sizeof(fit->excluded) / sizeof(fit->excluded[0]))
				g = &fit->excluded[fit->nexcluded - 1]; /* last bucket takes the rest */
			else {
				g = &fit->excluded[fit->nexcluded++];
				memset(g, 0, sizeof(*g));
				g->cause = v->cause;
				snprintf(g->type, sizeof(g->type), "%s", v->type);
				snprintf(g->detail, sizeof(g->detail), "%s", v->detail);
			}
		}
		g->gpus += v->idle;
		if (!why_list_has(g->nodes, v->node->name))
			why_list_add(g->nodes, sizeof(g->nodes), v->node->name);
	}
}

static int _cmp_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Can the usable GPUs (per node, in usable[]) serve the request? */
static void _fit_decide(const why_job_t *job, why_fit_t *fit, uint32_t *usable, size_t n)
{
	const why_request_t *r = &fit->req;
	const char *t = r->type[0] ? r->type : "any-type";
	uint32_t room = 0;

	qsort(usable, n, sizeof(*usable), _cmp_desc);
	switch (r->per) {
	case WHY_PER_NODE:
	case WHY_PER_SOCKET:
		fit->could_start = fit->eligible_nodes >= r->nodes;
		if (!fit->could_start)
			snprintf(fit->shortfall, sizeof(fit->shortfall),
				 "needs %u node%s with %u idle %s GPUs each; %u node%s qualif%s", r->nodes,
				 r->nodes == 1 ? "" : "s", r->per_node_min, t, fit->eligible_nodes,
				 fit->eligible_nodes == 1 ? "" : "s", fit->eligible_nodes == 1 ? "ies" : "y");
		return;
	case WHY_PER_JOB:
		for (size_t i = 0; i < n && (job->max_nodes == 0 || i < job->max_nodes); i++)
			room += usable[i];
		fit->could_start = room >= r->total && fit->eligible_nodes >= r->nodes;
		if (!fit->could_start)
			snprintf(fit->shortfall, sizeof(fit->shortfall), "needs %u %s GPUs%s; %u usable%s",
				 r->total, t, job->max_nodes == 1 ? " on one node" : "", room,
				 job->max_nodes == 1 ? " on the best node" : "");
		return;
	case WHY_PER_TASK:
		for (size_t i = 0; i < n; i++)
			room += usable[i] / (r->count ? r->count : 1);
		if (job->max_nodes == 1)
			room = n ? (job->num_tasks ? job->num_tasks : 1) : 0;
		fit->could_start =
			room >= (job->num_tasks ? job->num_tasks : 1) && fit->eligible_nodes >= r->nodes;
		if (!fit->could_start)
			snprintf(fit->shortfall, sizeof(fit->shortfall),
				 "needs %u tasks with %u %s GPUs each; room for %u",
				 job->num_tasks ? job->num_tasks : 1, r->count, t, room);
		return;
	case WHY_PER_NONE:
		fit->could_start = false;
		snprintf(fit->shortfall, sizeof(fit->shortfall), "the job asks for no GPUs");
		return;
	}
}

void why_fit_compute(const why_job_t *job, const why_request_t *req, const why_node_t *nodes, size_t nnodes,
		     why_fit_t *fit)
{
	size_t nv = 0;
	uint32_t *usable;
	size_t nusable = 0;

	memset(fit, 0, sizeof(*fit));
	fit->req = *req;
	for (size_t i = 0; i < nnodes; i++)
		for (int g = 0; g < nodes[i].ngpus; g++)
			nv += nodes[i].gpus[g].used < nodes[i].gpus[g].total;
	fit->verdicts = calloc(nv ? nv : 1, sizeof(*fit->verdicts));
	usable = calloc(nnodes ? nnodes : 1, sizeof(*usable));
	if (!fit->verdicts || !usable) {
		free(usable);
		free(fit->verdicts);
		fit->verdicts = NULL;
		snprintf(fit->shortfall, sizeof(fit->shortfall), "out of memory");
		return;
	}

	for (size_t i = 0; i < nnodes; i++) {
		const why_node_t *node = &nodes[i];
		size_t first = fit->nverdicts;
		uint32_t ok_idle = 0;

		for (int g = 0; g < node->ngpus; g++) {
			const why_gpu_t *gpu = &node->gpus[g];
			why_verdict_t *v;

			if (gpu->used >= gpu->total)
				continue;
			v = &fit->verdicts[fit->nverdicts++];
			v->node = node;
			v->type = gpu->type;
			v->idle = gpu->total - gpu->used;
			fit->idle_gpus += v->idle;
			v->cause = why_node_check(job, req, node, gpu->type, v->detail, sizeof(v->detail));
			if (v->cause == WHY_OK)
				ok_idle += v->idle;
		}
		if (req->per == WHY_PER_NONE || ok_idle == 0)
			continue;
		if (ok_idle < req->per_node_min) {
			for (size_t k = first; k < fit->nverdicts; k++) {
				why_verdict_t *v = &fit->verdicts[k];

				if (v->cause != WHY_OK)
					continue;
				v->cause = WHY_CAUSE_GPUS_PER_NODE;
				snprintf(v->detail, sizeof(v->detail),
					 "needs %u idle on one node, %u idle here", req->per_node_min,
					 ok_idle);
			}
			continue;
		}
		fit->eligible_gpus += ok_idle;
		fit->eligible_nodes++;
		usable[nusable++] = ok_idle;
	}
	if (req->per == WHY_PER_NONE) {
		/* nothing asked: no idle GPU is "usable", none "excluded" */
		for (size_t k = 0; k < fit->nverdicts; k++)
			fit->verdicts[k].cause = WHY_OK;
	}
	_fit_group(fit);
	_fit_decide(job, fit, usable, nusable);
	free(usable);
}

void why_fit_free(why_fit_t *fit)
{
	free(fit->verdicts);
	fit->verdicts = NULL;
	fit->nverdicts = 0;
}

void why_result_free(why_result_t *res)
{
	why_fit_free(&res->fit);
	why_fit_free(&res->flex.fit);
}

/* -------------------------------------------------------------- flexible */

/* One policy node per (node, GPU type): the policy sees one type per node. */
static nodeox_node_t *_flex_cluster(const why_node_t *nodes, size_t nnodes, size_t *n)
{
	nodeox_node_t *pn;
	size_t k = 0;

	for (size_t i = 0; i < nnodes; i++)
		k += nodes[i].ngpus;
	pn = calloc(k ? k : 1, sizeof(*pn));
	if (!pn)
		return NULL;
	k = 0;
	for (size_t i = 0; i < nnodes; i++) {
		for (int g = 0; g < nodes[i].ngpus; g++) {
			nodeox_node_t *p = &pn[k++];

			p->name = nodes[i].name;
			p->features = nodes[i].features ? nodes[i].features : "";
			p->partitions = nodes[i].partitions ? nodes[i].partitions : "";
			p->gpu_type = nodes[i].gpus[g].type;
			p->gpus_total = nodes[i].gpus[g].total;
			p->gpus_idle = nodes[i].gpus[g].total - nodes[i].gpus[g].used;
			p->usable = nodes[i].state == WHY_NODE_UP;
		}
	}
	*n = k;
	return pn;
}

/* Is name a whole operand of the constraint string? */
static bool _constraint_names(const char *constraint, const char *name)
{
	size_t n = strlen(name);
	const char *p = constraint;

	if (!constraint || !n)
		return false;
	while ((p = strstr(p, name))) {
		bool left = p == constraint || strchr("&,|([ ", p[-1]);
		bool right = !p[n] || strchr("&,|)]* ", p[n]);

		if (left && right)
			return true;
		p += n;
	}
	return false;
}

/* The job as the plugin already rewrote it: read what it became eligible for. */
static void _flex_applied(const why_job_t *job, const nodeox_conf_t *conf, why_flex_t *fx)
{
	int req = -1;
	double slowest = 0;

	for (int t = 0; t < conf->ntypes; t++) {
		char pat[NODEOX_NAME_MAX + 8];

		if (!_constraint_names(job->features, conf->types[t].feature))
			continue;
		snprintf(fx->eligible_types[fx->neligible++], NODEOX_NAME_MAX, "%s", conf->types[t].name);
		if (slowest == 0 || conf->types[t].speed < slowest)
			slowest = conf->types[t].speed;
		snprintf(pat, sizeof(pat), "gpu:%s", conf->types[t].name);
		if (req < 0 && job->admin_comment && strstr(job->admin_comment, pat))
			req = t;
	}
	if (req >= 0 && slowest > 0 && conf->types[req].speed > slowest)
		fx->run_time_factor = conf->types[req].speed / slowest;
	else if (req >= 0)
		fx->run_time_factor = 1.0;
}

static void _flex_compute(const why_job_t *job, const why_node_t *nodes, size_t nnodes,
			  const why_cluster_t *state, const nodeox_conf_t *conf, const why_fit_t *fit,
			  why_flex_t *fx)
{
	why_state_t st = { 0 };
	nodeox_tag_t tag;
	nodeox_job_t pj = { 0 };
	nodeox_cluster_t cl = { 0 };
	nodeox_node_t *pn;
	nodeox_decision_t *d = &fx->decision;
	why_job_t fj;
	why_request_t freq;
	char err[NODEOX_ERR_MAX - 64];
	int rc;

	fx->conf_loaded = true;
	rc = nodeox_tag_parse(job->comment, conf, &tag, fx->tag_error, sizeof(fx->tag_error));
	fx->tagged = rc != 0;

	pj.job_id = job->job_id;
	pj.comment = fx->tagged ? job->comment : "nodeox:flex";
	pj.name = job->name; /* the workload, for the speed table */
	pj.tres_per_job = job->tres_per_job;
	pj.tres_per_node = job->tres_per_node;
	pj.tres_per_task = job->tres_per_task;
	pj.tres_per_socket = job->tres_per_socket;
	pj.features = job->features;
	pj.prefer = job->prefer;
	pj.partition = job->partition;
	pj.account = job->account;
	pj.user = job->user;
	pj.time_limit = job->time_limit;
	pj.min_nodes = job->num_nodes;
	pj.num_tasks = job->num_tasks;
	pn = _flex_cluster(nodes, nnodes, &cl.nnodes);
	cl.nodes = pn;
	if (pn && state && conf->broaden == NODEOX_BROADEN_WHEN_FASTER &&
	    why_state_fill(state, job, conf, pn, cl.nnodes, &st, &cl) < 0)
		cl.scratch = NULL; /* out of memory: decided without the estimate, as it says */
	nodeox_policy_decide(conf, &pj, pn ? &cl : NULL, d);
	if (d->estimate.made) {
		why_state_deciders(&st, conf, &cl, &d->estimate, &fx->plan);
		if (d->requested_type >= 0 && d->requested_type < conf->ntypes)
			snprintf(fx->plan.type, sizeof(fx->plan.type), "%s",
				 conf->types[d->requested_type].name);
	}
	why_state_free(&st);
	free(pn);

	/* Already rewritten by the plugin at submission? Then the job as it
	 * stands is the flexible request: read it rather than decide again. */
	if (d->action != NODEOX_REWRITE && fx->tagged && rc > 0 && fit->req.per != WHY_PER_NONE &&
	    !fit->req.type[0] && nodeox_record_present(job->admin_comment)) {
		fx->applied = true;
		_flex_applied(job, conf, fx);
		return;
	}
	for (int i = 0; i < d->neligible && d->eligible[i] >= 0 && d->eligible[i] < conf->ntypes; i++)
		snprintf(fx->eligible_types[fx->neligible++], NODEOX_NAME_MAX, "%s",
			 conf->types[d->eligible[i]].name);
	fx->run_time_factor = d->run_time_factor;
	if (d->action != NODEOX_REWRITE)
		return;

	fj = *job;
	if (d->tres_per_job_set)
		fj.tres_per_job = d->tres_per_job;
	if (d->tres_per_node_set)
		fj.tres_per_node = d->tres_per_node;
	if (d->tres_per_task_set)
		fj.tres_per_task = d->tres_per_task;
	if (d->tres_per_socket_set)
		fj.tres_per_socket = d->tres_per_socket;
	if (d->features_set)
		fj.features = d->features;
	if (d->prefer_set)
		fj.prefer = d->prefer;
	if (d->time_limit_set)
		fj.time_limit = d->time_limit;
	if (why_request_read(&fj, &freq, err, sizeof(err)) < 0) {
		snprintf(fx->tag_error, sizeof(fx->tag_error), "rewritten request unreadable: %s", err);
		return;
	}
	why_fit_compute(&fj, &freq, nodes, nnodes, &fx->fit);
	fx->analysed = true;
}

int why_analyze(const why_job_t *job, const why_node_t *nodes, size_t nnodes, const why_cluster_t *state,
		const nodeox_conf_t *conf, why_result_t *res, char *err, size_t errlen)
{
	why_request_t req;

	memset(res, 0, sizeof(*res));
	res->job = job;
	if (why_request_read(job, &req, err, errlen) < 0)
		return -1;
	why_fit_compute(job, &req, nodes, nnodes, &res->fit);
	if (!res->fit.verdicts) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (conf)
		_flex_compute(job, nodes, nnodes, state, conf, &res->fit, &res->flex);
	return 0;
}
