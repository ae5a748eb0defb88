/*
 * why_never.c: can the job ever run in one of its partitions as they are
 * configured? (pure)
 *
 * Node states and other jobs do not count here: a down node may come back,
 * a running job ends. What counts is what no amount of waiting changes: the
 * partition's limits (MaxTime, MinNodes/MaxNodes, MaxCPUsPerNode,
 * MaxMemPerNode), the number of nodes it has, and the nodes' configured
 * CPUs, memory, GPUs and features against what one node must give. A
 * partition that fails gets one blocker with never = true naming the limit
 * and both values; when every partition of the job fails, the job can never
 * run as configured and p->never_runs says so.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/why.h"

static const why_part_t *_part_find(const why_cluster_t *cl, const char *name)
{
	for (size_t i = 0; i < cl->nparts; i++)
		if (cl->parts[i].name && strcmp(cl->parts[i].name, name) == 0)
			return &cl->parts[i];
	return NULL;
}

/* GPUs of the requested type (any type when "") a node has configured. */
static uint32_t _node_gpus(const why_node_t *n, const char *type)
{
	uint32_t sum = 0;

	for (int g = 0; g < n->ngpus; g++)
		if (!type[0] || strcmp(type, n->gpus[g].type) == 0)
			sum += n->gpus[g].total;
	return sum;
}

static void _fmt_minutes(uint32_t min, char *buf, size_t len)
{
	if (min == NODEOX_TIME_INFINITE)
		snprintf(buf, len, "UNLIMITED");
	else
		snprintf(buf, len, "%u", min);
}

/* Sets the compared values of a blocker. */
static void _values(why_blocker_t *b, const char *item, const char *job, const char *limit)
{
	snprintf(b->item, sizeof(b->item), "%s", item);
	snprintf(b->job_value, sizeof(b->job_value), "%s", job);
	snprintf(b->limit_value, sizeof(b->limit_value), "%s", limit);
}

/* A blocker no wait lifts: KIND, the values compared (ITEM: the job's and
 * the partition's or its nodes') and the detail. Returns false, the
 * callers' answer when a partition fails. */
__attribute__((format(printf, 6, 7))) static bool _never(why_pending_t *p, why_blk_kind_t kind,
							 const char *item, uint64_t job, uint64_t limit,
							 const char *fmt, ...)
{
	why_blocker_t *k = why_blockers_add(p, kind, true);
	char a[32], b[32];
	va_list ap;

	snprintf(a, sizeof(a), "%llu", (unsigned long long)job);
	snprintf(b, sizeof(b), "%llu", (unsigned long long)limit);
	_values(k, item, a, b);
	va_start(ap, fmt);
	vsnprintf(k->detail, sizeof(k->detail), fmt, ap);
	va_end(ap);
	return false;
}

/* The partition's own limits. Returns false (with a blocker) when one is
 * exceeded. */
static bool _part_limits(const why_job_t *job, const why_request_t *req, const why_part_t *pt,
			 uint32_t nnodes, why_pending_t *p)
{
	char a[32], b[32];
	why_blocker_t *k;

	if (pt->max_time != NODEOX_TIME_INFINITE && job->time_limit != NODEOX_TIME_NONE &&
	    (job->time_limit == NODEOX_TIME_INFINITE || job->time_limit > pt->max_time)) {
		_fmt_minutes(job->time_limit, a, sizeof(a));
		_fmt_minutes(pt->max_time, b, sizeof(b));
		k = why_blockers_add(p, WHY_BLK_PART_TIME, true);
		snprintf(k->detail, sizeof(k->detail),
			 "its time limit (%s min) is over partition %s's MaxTime (%s min): "
			 "lower it (scontrol update jobid=%u timelimit=%s) or use another partition",
			 a, pt->name, b, job->job_id, b);
		_values(k, "time_limit_min", a, b);
		return false;
	}
	if (pt->max_nodes && req->nodes > pt->max_nodes)
		return _never(p, WHY_BLK_PART_NODES, "max_nodes", req->nodes, pt->max_nodes,
			      "it asks for %u nodes; "
			      "partition %s allows at most %u per job (MaxNodes)",
			      req->nodes, pt->name, pt->max_nodes);
	if (pt->min_nodes > 1 && job->max_nodes && job->max_nodes < pt->min_nodes)
		return _never(p, WHY_BLK_PART_NODES, "min_nodes", job->max_nodes, pt->min_nodes,
			      "it allows at most %u nodes; "
			      "partition %s wants at least %u per job (MinNodes)",
			      job->max_nodes, pt->name, pt->min_nodes);
	if (req->nodes > nnodes)
		return _never(p, WHY_BLK_PART_NODES, "nodes", req->nodes, nnodes,
			      "it asks for %u nodes; partition %s has %u", req->nodes, pt->name, nnodes);
	if (pt->max_cpus_per_node && req->cpus_per_node > pt->max_cpus_per_node)
		return _never(p, WHY_BLK_PART_CPUS, "cpus_per_node", req->cpus_per_node,
			      pt->max_cpus_per_node,
			      "it needs %u CPUs on a node; "
			      "partition %s allows %u per node (MaxCPUsPerNode)",
			      req->cpus_per_node, pt->name, pt->max_cpus_per_node);
	if (pt->max_mem_per_node_mb && req->mem_per_node_mb > pt->max_mem_per_node_mb)
		return _never(p, WHY_BLK_PART_MEMORY, "mem_per_node_mb", req->mem_per_node_mb,
			      pt->max_mem_per_node_mb,
			      "it needs %llu MB on a node; "
			      "partition %s allows %llu MB per node (MaxMemPerNode)",
			      (unsigned long long)req->mem_per_node_mb, pt->name,
			      (unsigned long long)pt->max_mem_per_node_mb);
	return true;
}

/* The nodes as configured. Returns false (with a blocker) when too few of
 * them could ever hold the job. */
static bool _part_nodes(const why_job_t *job, const why_request_t *req, const why_part_t *pt,
			const why_cluster_t *cl, why_pending_t *p)
{
	uint32_t ok = 0, cpus_max = 0, gpus_max = 0, gpus_sum = 0, in_part = 0;
	uint32_t cpu_ok = 0, mem_ok = 0, gpu_ok = 0, feat_ok = 0;
	uint64_t mem_max = 0;
	const char *t = req->type[0] ? req->type : "", *sp = t[0] ? " " : "";

	for (size_t i = 0; i < cl->nnodes; i++) {
		const why_node_t *n = &cl->nodes[i];
		uint32_t g = _node_gpus(n, req->type);
		bool c, m, gp, f;

		if (!why_list_has(n->partitions, pt->name))
			continue;
		in_part++;
		c = n->cpus >= req->cpus_per_node;
		m = !req->mem_per_node_mb || n->mem_mb >= req->mem_per_node_mb;
		gp = req->per == WHY_PER_NONE || (g > 0 && g >= req->per_node_min);
		f = why_feature_match(job->features, n->features) != 0;
		cpu_ok += c;
		mem_ok += m;
		gpu_ok += gp;
		feat_ok += f;
		if (n->cpus > cpus_max)
			cpus_max = n->cpus;
		if (n->mem_mb > mem_max)
			mem_max = n->mem_mb;
		if (g > gpus_max)
			gpus_max = g;
		if (c && m && gp && f) {
			ok++;
			gpus_sum += g;
		}
	}
	if (!_part_limits(job, req, pt, in_part, p))
		return false;
	if (ok >= req->nodes && (req->per == WHY_PER_NONE || gpus_sum >= req->total))
		return true;

	if (cpu_ok < req->nodes)
		return _never(p, WHY_BLK_PART_CPUS, "cpus_per_node", req->cpus_per_node, cpus_max,
			      "it needs %u CPUs on a node; "
			      "the nodes of partition %s have at most %u",
			      req->cpus_per_node, pt->name, cpus_max);
	if (mem_ok < req->nodes)
		return _never(p, WHY_BLK_PART_MEMORY, "mem_per_node_mb", req->mem_per_node_mb, mem_max,
			      "it needs %llu MB on a node; "
			      "the nodes of partition %s have at most %llu MB",
			      (unsigned long long)req->mem_per_node_mb, pt->name,
			      (unsigned long long)mem_max);
	if (feat_ok < req->nodes && gpu_ok >= req->nodes)
		return _never(p, WHY_BLK_PART_FEATURE, "nodes_with_features", req->nodes, feat_ok,
			      "its constraint %s is met by %u node%s of partition %s; "
			      "it needs %u",
			      job->features, feat_ok, feat_ok == 1 ? "" : "s", pt->name, req->nodes);
	if (gpu_ok < req->nodes)
		return _never(p, WHY_BLK_PART_GPUS, "gpus_per_node", req->per_node_min, gpus_max,
			      "it needs %u %s%sGPUs on a node; "
			      "the nodes of partition %s have at most %u",
			      req->per_node_min, t, sp, pt->name, gpus_max);
	if (ok >= req->nodes && gpus_sum < req->total)
		return _never(p, WHY_BLK_PART_GPUS, "gpus", req->total, gpus_sum,
			      "it needs %u %s%sGPUs in all; "
			      "partition %s has %u on the nodes that fit it",
			      req->total, t, sp, pt->name, gpus_sum);
	return _never(p, WHY_BLK_PART_NODES, "nodes", req->nodes, ok,
		      "it needs %u nodes that each have its CPUs, memory, GPUs and features; "
		      "partition %s has %u such node%s",
		      req->nodes, pt->name, ok, ok == 1 ? "" : "s");
}

int why_never_check(const why_job_t *job, const why_request_t *req, const why_cluster_t *cl, why_pending_t *p)
{
	const char *s = job->partition, *it;
	size_t n;
	int can = 0, tried = 0;

	while (nodeox_util_list_next(&s, &it, &n)) {
		char name[NODEOX_NAME_MAX];
		const why_part_t *pt;

		snprintf(name, sizeof(name), "%.*s", (int)n, it);
		tried++;
		pt = _part_find(cl, name);
		if (!pt) {
			why_blocker_t *k = why_blockers_add(p, WHY_BLK_PART_UNKNOWN, true);

			snprintf(k->detail, sizeof(k->detail), "partition %s does not exist", name);
			_values(k, "partition", name, "");
			continue;
		}
		if (_part_nodes(job, req, pt, cl, p))
			can++;
	}
	p->never_runs = tried > 0 && can == 0;
	return can;
}
