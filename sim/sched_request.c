/*
 * sched_request.c: a job's submission in the scheduler model: the policy's
 * decision (nodeox_policy_decide, as job_submit/nodeox would make it) turned
 * into the request the scheduler places: GPU type and count per node or per
 * job, CPUs and memory, partitions, the node classes it may use (constraint,
 * --prefer), its time limit and the duration backfill plans with; and the
 * rejections Slurm would make at submission.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/policy_internal.h"
#include "sim/sched_internal.h"

/* ------------------------------------------------------------ eligibility */

void sched_elig_free(gpointer p)
{
	elig_t *e = p;
	for (int g = 0; g < e->ngroups; g++) {
		g_free(e->cls[g]);
		g_free(e->gbits[g]);
	}
	g_free(e->bits);
	g_free(e->wbits);
	g_free(e->wnodes);
	g_free(e->bnodes);
	g_free(e->ucls);
	g_free(e);
}

/* Put the classes whose nodes have the --prefer features first (stable),
 * so placements try them first, as Slurm tries preferred nodes first. */
static void sched_elig_prefer(const sim_cluster_t *c, elig_t *e, const char *prefer)
{
	sim_constraint_t k;
	char err[NODEOX_ERR_MAX];
	if (!prefer || constraint_parse(prefer, c, &k, err, sizeof(err)) < 0 || k.empty)
		return;
	e->prefer = true;
	for (int g = 0; g < e->ngroups; g++) {
		int *tmp = g_new(int, e->ncls[g] + 1), n = 0;
		for (int pass = 0; pass < 2; pass++)
			for (int i = 0; i < e->ncls[g]; i++) {
				uint64_t f = c->nodes[c->classes[e->cls[g][i]].first].features;
				if ((constraint_match(&k, f) >= 0) == (pass == 0))
					tmp[n++] = e->cls[g][i];
			}
		memcpy(e->cls[g], tmp, sizeof(int) * (size_t)n);
		g_free(tmp);
	}
}

/* Classes a job of GPU type `type` (-1 any), partitions `parts` and
 * constraint `features` can use, those matching `prefer` first; interned,
 * since a trace has few distinct requests. */
static const elig_t *sched_elig(sched_t *s, int type, bool gpus, uint64_t parts,
				const char *features, const char *prefer, const char **why)
{
	char key[2 * NODEOX_STR_MAX + 64];
	snprintf(key, sizeof(key), "%d|%d|%" G_GINT64_MODIFIER "x|%s|%s", type, gpus, parts,
		 features ? features : "", prefer ? prefer : "");
	elig_t *e = g_hash_table_lookup(s->elig_cache, key);
	if (e) {
		*why = e->why_not;
		return e;
	}
	const sim_cluster_t *c = s->c;
	sim_constraint_t k;
	char err[NODEOX_ERR_MAX];
	e = g_new0(elig_t, 1);
	e->bits = g_new0(uint64_t, s->nwords);
	e->wbits = g_new0(uint64_t, s->nwords);
	if (constraint_parse(features, c, &k, err, sizeof(err)) < 0) {
		e->why_not = g_string_chunk_insert_const(s->run->strings, err);
		e->ngroups = 0;
	} else {
		e->ngroups = k.matching ? k.nalt : 1;
		for (int g = 0; g < e->ngroups; g++) {
			e->cls[g] = g_new(int, c->nclasses);
			e->gbits[g] = g_new0(uint64_t, s->nwords);
		}
		for (int cl = 0; cl < c->nclasses; cl++) {
			const sim_node_t *n = &c->nodes[c->classes[cl].first];
			if (!n->usable || !(n->partitions & parts))
				continue;
			for (int g = 0; g < e->ngroups; g++)
				if (constraint_match_alt(&k, n->features, k.matching ? g : -1))
					e->wbits[cl >> 6] |= 1ull << (cl & 63);
			if (gpus && (n->gpus == 0 || (type >= 0 && n->type != type)))
				continue;
			for (int g = 0; g < e->ngroups; g++) {
				if (!constraint_match_alt(&k, n->features, k.matching ? g : -1))
					continue;
				e->cls[g][e->ncls[g]++] = cl;
				e->gbits[g][cl >> 6] |= 1ull << (cl & 63);
				e->bits[cl >> 6] |= 1ull << (cl & 63);
			}
		}
		sched_elig_prefer(c, e, prefer);
		e->ucls = g_new(int, c->nclasses + 1);
		for (int cl = 0; cl < c->nclasses; cl++)
			if (bits_test(e->bits, cl)) {
				e->ucls[e->nucls++] = cl;
				e->kmax = MAX(e->kmax, (int)c->nodes[c->classes[cl].first].gpus);
			}
		bool any = false;
		for (int w = 0; w < (int)s->nwords; w++)
			any = any || e->bits[w];
		if (!any)
			e->why_not = k.never ? "constraint names a feature no node has"
				: "no node in the job's partitions matches its GPU type and constraint";
	}
	g_hash_table_insert(s->elig_cache, g_strdup(key), e);
	*why = e->why_not;
	return e;
}

/* Can the request ever be served, on an empty cluster? */
static bool sched_capacity_ok(const sched_t *s, const req_t *r)
{
	const sim_cluster_t *c = s->c;
	for (int g = 0; g < r->elig->ngroups; g++) {
		uint64_t have = 0;
		for (int i = 0; i < r->elig->ncls[g]; i++) {
			const sim_class_t *k = &c->classes[r->elig->cls[g][i]];
			const sim_node_t *n = &c->nodes[k->first];
			if (r->nodes) {
				if (n->gpus >= r->gpus_per_node && n->cpus >= r->cpus_per_node && n->mem_mb >= r->mem_per_node)
					have += (uint64_t)k->nnodes;
			} else {
				uint64_t per = n->gpus;
				if (r->cpus_per_gpu && n->cpus / r->cpus_per_gpu < per)
					per = n->cpus / r->cpus_per_gpu;
				if (r->mem_per_gpu && n->mem_mb / r->mem_per_gpu < per)
					per = n->mem_mb / r->mem_per_gpu;
				have += per * (uint64_t)k->nnodes;
			}
		}
		if (have >= (r->nodes ? r->nodes : r->gpus))
			return true;
	}
	return false;
}

/* ------------------------------------------------------------ policy */

nodeox_node_t *sched_policy_nodes(const sim_cluster_t *c)
{
	nodeox_node_t *v = g_new0(nodeox_node_t, c->nnodes);
	for (int i = 0; i < c->nnodes; i++) {
		const sim_node_t *n = &c->nodes[i];
		v[i].name = n->name;
		v[i].features = n->features_str;
		v[i].partitions = n->partitions_str;
		v[i].gpu_type = n->type >= 0 ? c->types[n->type] : "";
		v[i].gpus_total = n->gpus;
		v[i].gpus_idle = n->gpus;
		v[i].usable = n->usable;
	}
	return v;
}

void sched_policy_nodes_free(nodeox_node_t *nodes)
{
	g_free(nodes);
}

/* The smallest MaxTime (minutes) of the job's partitions; 0 when none has one. */
static uint32_t sched_time_cap(const sim_cluster_t *c, const char *parts)
{
	int64_t cap = SIM_TIME_NONE;

	if (!c)
		return 0;
	if (!parts || !*parts) {
		if (c->default_part >= 0)
			cap = c->parts[c->default_part].max_time;
	} else {
		gchar **names = g_strsplit(parts, ",", -1);
		for (gchar **n = names; *n; n++) {
			int p = cluster_find_partition(c, *n);
			if (p >= 0 && c->parts[p].max_time != SIM_TIME_NONE &&
			    (cap == SIM_TIME_NONE || c->parts[p].max_time < cap))
				cap = c->parts[p].max_time;
		}
		g_strfreev(names);
	}
	return cap == SIM_TIME_NONE ? 0 : (uint32_t)MAX(cap / 60, 1);
}

void sched_policy_job(const sim_cluster_t *c, const sim_job_t *job, const char *comment,
		      char *tres, size_t tres_len, nodeox_job_t *out)
{
	memset(out, 0, sizeof(*out));
	out->job_id = job->id;
	out->comment = comment;
	tres[0] = '\0';
	if (job->gpus > 0) {
		uint32_t n = job->nodes ? job->gpus / job->nodes : job->gpus;
		if (job->gpu_type)
			snprintf(tres, tres_len, "gres:gpu:%s:%u", job->gpu_type, n);
		else
			snprintf(tres, tres_len, "gres:gpu:%u", n);
		if (job->nodes)
			out->tres_per_node = tres;
		else
			out->tres_per_job = tres;
	}
	out->features = job->features;
	out->partition = job->partition;
	out->account = job->account;
	out->user = job->user;
	out->time_limit = job->time_limit == SIM_TIME_NONE ? NODEOX_TIME_NONE
		: (uint32_t)((job->time_limit + 59) / 60);
	out->time_cap = sched_time_cap(c, job->partition);
	out->time_cap_what = "MaxTime of the job's partition";
	out->min_nodes = job->nodes;
}

/* The first GPU entry of a TRES list ("gres:gpu[:type]:N", gres/gpu, or
 * bare gpu), read by the policy library's own scanner (the one the plugin
 * uses on Slurm's strings). */
static bool sched_tres_gpu(const char *tres, char *type, size_t tlen, uint32_t *count)
{
	nodeox_tres_gpu_t e;
	if (nodeox_tres_scan(tres, &e, 1) < 1)
		return false;
	size_t n = MIN(e.type_len, tlen - 1);
	memcpy(type, tres + e.type_off, n);
	type[n] = '\0';
	*count = (uint32_t)e.count;
	return true;
}

/* ------------------------------------------------------------ submission */

static int64_t sched_part_default_time(const sched_t *s, uint64_t parts)
{
	for (int p = 0; p < s->c->nparts; p++) {
		if (!(parts & (1ull << p)))
			continue;
		const sim_part_t *pt = &s->c->parts[p];
		if (pt->default_time != SIM_TIME_NONE)
			return pt->default_time;
		if (pt->max_time != SIM_TIME_NONE)
			return pt->max_time;
	}
	return SCHED_INF;
}

void sched_reject(sched_t *s, uint32_t j, sim_job_status_t st, const char *why)
{
	sim_result_t *res = &s->run->jobs[j];
	res->status = (uint8_t)st;
	res->reason = g_string_chunk_insert_const(s->run->strings, why);
	if (st == SIM_JOB_REJECTED)
		s->run->rejected++;
	else
		s->run->never++;
}

void sched_submit(sched_t *s, uint32_t j)
{
	const sim_cluster_t *c = s->c;
	const sim_job_t *job = &s->t->jobs[j];
	sim_result_t *res = &s->run->jobs[j];
	req_t *r = &s->req[j];
	res->submit = job->submit;
	res->start = res->end = -1;
	res->tagged = s->tagged[j];

	const char *type_name = job->gpu_type;
	const char *features = job->features;
	uint32_t gpus = job->gpus, nodes = job->nodes;
	int64_t limit = job->time_limit;
	char feat_buf[NODEOX_STR_MAX], type_buf[NODEOX_NAME_MAX], prefer_buf[NODEOX_STR_MAX];
	const char *prefer = NULL;

	if (s->o->policy && res->tagged) {
		char tres[NODEOX_STR_MAX];
		nodeox_job_t pj;
		nodeox_decision_t d;
		const char *comment = job->comment && strstr(job->comment, "nodeox:flex")
			? job->comment : "nodeox:flex";
		sched_policy_job(s->c, job, comment, tres, sizeof(tres), &pj);
		nodeox_policy_decide(s->o->policy, &pj, &s->pol_view, &d);
		if (s->o->on_decide) {
			nodeox_cluster_t all = { s->pol_nodes, (size_t)c->nnodes };
			s->o->on_decide(s->o->decide_arg, j, &pj, &all, &d);
		}
		if (d.action == NODEOX_REJECT) {
			sched_reject(s, j, SIM_JOB_REJECTED, d.reason);
			return;
		}
		if (d.action != NODEOX_PASS)
			res->reason = g_string_chunk_insert_const(s->run->strings, d.reason);
		if (d.action == NODEOX_REWRITE && !d.dryrun) {
			uint32_t cnt;
			res->broadened = true;
			if (d.tres_per_node_set && sched_tres_gpu(d.tres_per_node, type_buf,
								  sizeof(type_buf), &cnt)) {
				nodes = nodes ? nodes : 1;
				gpus = cnt * nodes;
				type_name = type_buf[0] ? type_buf : NULL;
			} else if (d.tres_per_job_set && sched_tres_gpu(d.tres_per_job, type_buf,
									sizeof(type_buf), &cnt)) {
				gpus = cnt;
				type_name = type_buf[0] ? type_buf : NULL;
			}
			if (d.features_set) {
				g_strlcpy(feat_buf, d.features, sizeof(feat_buf));
				features = feat_buf[0] ? feat_buf : NULL;
			}
			if (d.prefer_set && d.prefer[0]) {
				g_strlcpy(prefer_buf, d.prefer, sizeof(prefer_buf));
				prefer = prefer_buf;
			}
			if (d.time_limit_set)
				limit = d.time_limit >= NODEOX_TIME_NONE ? SIM_TIME_NONE
					: (int64_t)d.time_limit * 60;
		}
	}

	uint64_t parts = 0;
	if (job->partition) {
		gchar **names = g_strsplit(job->partition, ",", -1);
		for (gchar **p = names; *p; p++) {
			int pi = cluster_find_partition(c, *p);
			if (pi < 0) {
				char why[128];
				snprintf(why, sizeof(why), "invalid partition '%s'", *p);
				g_strfreev(names);
				sched_reject(s, j, SIM_JOB_REJECTED, why);
				return;
			}
			parts |= 1ull << pi;
		}
		g_strfreev(names);
	} else if (c->default_part >= 0) {
		parts = 1ull << c->default_part;
	} else {
		sched_reject(s, j, SIM_JOB_REJECTED, "no partition given and none is Default=YES");
		return;
	}
	int type = -1;
	if (type_name) {
		type = cluster_find_type(c, type_name);
		if (type < 0) {
			char why[128];
			snprintf(why, sizeof(why), "no node has GPU type '%s'", type_name);
			sched_reject(s, j, SIM_JOB_REJECTED, why);
			return;
		}
	}
	r->req_type = job->gpu_type ? cluster_find_type(c, job->gpu_type) : -1;
	const char *why = NULL;
	r->elig = sched_elig(s, type, gpus > 0, parts, features, prefer, &why);
	if (why) {
		sched_reject(s, j, SIM_JOB_REJECTED, why);
		return;
	}
	r->gpus = gpus;
	r->parts = parts;
	r->nodes = gpus == 0 && nodes == 0 ? 1 : nodes;
	uint32_t cpus = job->cpus ? job->cpus : (gpus ? gpus : 1);
	if (r->nodes) {
		r->gpus_per_node = gpus / r->nodes;
		r->cpus_per_node = (cpus + r->nodes - 1) / r->nodes;
		r->mem_per_node = (job->mem_mb + r->nodes - 1) / r->nodes;
	} else {
		r->cpus_per_gpu = (cpus + gpus - 1) / gpus;
		r->mem_per_gpu = (job->mem_mb + gpus - 1) / gpus;
	}
	if (limit == SIM_TIME_NONE) {
		limit = sched_part_default_time(s, parts);
	} else {
		limit = (limit + 59) / 60 * 60;     /* Slurm keeps limits in whole minutes */
		/* Slurm (EnforcePartLimits=NO, the default) accepts a job whose
		 * limit exceeds every requested partition's MaxTime, e.g. after
		 * the policy scaled it, and leaves it pending for ever
		 * (Reason=PartitionTimeLimit). */
		bool fits_one = false;
		for (int p = 0; p < c->nparts; p++)
			if ((parts >> p & 1) && (c->parts[p].max_time == SIM_TIME_NONE ||
						 limit <= c->parts[p].max_time))
				fits_one = true;
		if (!fits_one) {
			sched_reject(s, j, SIM_JOB_NEVER, "time limit above the partition's MaxTime "
				     "(Slurm leaves it pending: PartitionTimeLimit)");
			return;
		}
	}
	r->limit = limit == SIM_TIME_NONE ? SCHED_INF : limit;
	if (r->limit != SCHED_INF) {
		r->plan = r->limit;
	} else {
		double worst = 1;           /* oracle: real run time on the slowest eligible type */
		for (int i = 0; i < r->elig->nucls && r->req_type >= 0; i++) {
			int t = c->nodes[c->classes[r->elig->ucls[i]].first].type;
			if (t < 0)
				continue;
			double f = runtime_model_speed(s->o->runtime, job->class_name, r->req_type) /
				   runtime_model_speed(s->o->runtime, job->class_name, t);
			worst = f > worst ? f : worst;
		}
		r->plan = (int64_t)ceil((double)job->run_time * worst);
	}
	if (!sched_capacity_ok(s, r)) {
		sched_reject(s, j, SIM_JOB_REJECTED, "more resources than the eligible nodes have");
		return;
	}
	bool any_up = false;
	for (int p = 0; p < c->nparts; p++)
		any_up = any_up || ((parts >> p & 1) && c->parts[p].up);
	if (!any_up) {
		sched_reject(s, j, SIM_JOB_NEVER, "partition is not up");
		return;
	}
	r->kind = sched_request_kind(r);
	s->req[j].fail_epoch = UINT64_MAX;
	sched_pending_add(s, j);
}

