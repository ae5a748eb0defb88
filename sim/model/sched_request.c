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

#include "common/free_all.h"
#include "policy/policy.h"
#include "sim/model/sched_internal.h"

/* Submission's own state: the policy's view of the nodes (every node; one
 * idle-less copy per class and the idle nodes, which the decisions scan),
 * Broaden=when-faster's state, and the eligibility of each request shape. */
struct sched_pol {
	nodeox_node_t *nodes;   /* the policy's view of every node */
	nodeox_node_t *compact; /* one idle-less copy per class + the idle nodes */
	int *pos, *node;        /* node -> compact slot (-1), slot -> node */
	nodeox_cluster_t view;  /* over compact: same decisions, less to scan */
	struct pol_state {      /* Broaden=when-faster's state (sched_policy_state) */
		nodeox_running_t *running;
		size_t cap;
		nodeox_demand_t ahead[NODEOX_MAX_TYPES + 1];
		nodeox_pending_t pending[NODEOX_MAP_LIST];
		uint32_t *scratch;
		size_t *cls_at; /* per class: where its allocations go */
		nodeox_history_t *hist; /* run times of the jobs ended so far
					 * (RunTimeHistory=yes; NULL: none) */
		GHashTable *uids;       /* user name -> its id in hist, + 1 */
	} state;
	GHashTable *elig_cache; /* key string -> elig_t* */
};

/* ------------------------------------------------------------ run-time history */

/* Does when-faster take running jobs' ends from their users' history
 * (Broaden=when-faster with RunTimeHistory=yes)? */
static bool sched_history_on(const sched_t *s)
{
	return s->o->policy && s->o->policy->broaden == NODEOX_BROADEN_WHEN_FASTER &&
	       s->o->policy->run_time_history;
}

/* The history's id of job j's user (interned in order of first sight), or
 * false where the trace names no user (its ends stay its limit's). */
static bool sched_history_uid(sched_t *s, uint32_t j, uint32_t *uid)
{
	struct pol_state *ps = &s->pol->state;
	const char *user = s->t->jobs[j].user;
	if (!user)
		return false;
	if (!ps->uids)
		ps->uids = g_hash_table_new(g_str_hash, g_str_equal);
	gpointer v = g_hash_table_lookup(ps->uids, user);
	if (!v) {
		v = GUINT_TO_POINTER(g_hash_table_size(ps->uids) + 1);
		g_hash_table_insert(ps->uids, (gpointer)user, v);
	}
	*uid = GPOINTER_TO_UINT(v) - 1;
	return true;
}

void sched_policy_job_end(sched_t *s, uint32_t j)
{
	struct pol_state *ps = &s->pol->state;
	const sim_result_t *res = &s->run->jobs[j];
	uint32_t uid;
	if (!sched_history_on(s) || !sched_history_uid(s, j, &uid))
		return;
	if (!ps->hist) {
		ps->hist = g_new(nodeox_history_t, 1);
		nodeox_history_init(ps->hist);
	}
	/* as the plugin reads a finished job's record: its end, and its end
	 * less its start (the trace's id is its job id) */
	(void)nodeox_history_record(ps->hist, uid, s->t->jobs[j].id, res->end, res->end - res->start);
}

/* ------------------------------------------------------------ eligibility */

static void sched_elig_free(gpointer p)
{
	elig_t *e = p;
	for (int g = 0; g < e->ngroups; g++) {
		g_free(e->cls[g]);
		g_free(e->gbits[g]);
	}
	nodeox_g_free_all(e->bits, e->wbits, e->wnodes, e->bnodes, e->ucls, e);
}

/* Classes a job of GPU type `type` (-1 any), partitions `parts` and
 * constraint `features` can use; interned, since a trace has few distinct
 * requests. */
static const elig_t *sched_elig(sched_t *s, int type, bool gpus, uint64_t parts, const char *features,
				const char **why)
{
	char key[NODEOX_STR_MAX + 64];
	snprintf(key, sizeof(key), "%d|%d|%" G_GINT64_MODIFIER "x|%s", type, gpus, parts,
		 features ? features : "");
	elig_t *e = g_hash_table_lookup(s->pol->elig_cache, key);
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
					     : "no node in the job's partitions matches its GPU type and "
					       "constraint";
	}
	g_hash_table_insert(s->pol->elig_cache, g_strdup(key), e);
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
				if (n->gpus >= r->gpus_per_node && n->cpus >= r->cpus_per_node &&
				    n->mem_mb >= r->mem_per_node)
					have += (uint64_t)k->nnodes;
			} else {
				uint64_t per = n->gpus;
				if (r->cpus_per_gpu && n->cpus / r->cpus_per_gpu < per)
					per = n->cpus / r->cpus_per_gpu;
				if (r->mem_per_gpu && n->mem_mb / r->mem_per_gpu < per)
					per = n->mem_mb / r->mem_per_gpu;
				if (n->mem_mb < r->spread_mem_node)
					per = 0;
				have += per * (uint64_t)k->nnodes;
			}
		}
		if (have >= (r->nodes ? r->nodes : r->gpus))
			return true;
	}
	return false;
}

/* ------------------------------------------------------------ policy */

/* Keep the compact policy view: a node is in it while it has idle GPUs. */
void sched_policy_idle(sched_t *s, int n, uint32_t idle)
{
	sched_pol_t *p = s->pol;
	p->nodes[n].gpus_idle = idle;
	int slot = p->pos[n];
	if (slot >= 0 && idle > 0) {
		p->compact[slot].gpus_idle = idle;
	} else if (slot >= 0) {
		int last = (int)--p->view.nnodes;
		p->compact[slot] = p->compact[last];
		p->node[slot] = p->node[last];
		p->pos[p->node[slot]] = slot;
		p->pos[n] = -1;
	} else if (idle > 0 && p->nodes[n].usable) {
		slot = (int)p->view.nnodes++;
		p->compact[slot] = p->nodes[n];
		p->node[slot] = n;
		p->pos[n] = slot;
	}
}

void sched_request_init(sched_t *s)
{
	const sim_cluster_t *c = s->c;
	size_t nn = (size_t)c->nnodes;
	sched_pol_t *p = g_new0(sched_pol_t, 1);
	s->pol = p;
	p->nodes = sched_policy_nodes(c);
	p->compact = g_new(nodeox_node_t, (size_t)c->nclasses + nn);
	p->node = g_new(int, (size_t)c->nclasses + nn);
	p->pos = g_new(int, nn);
	for (int k = 0; k < c->nclasses; k++) {
		p->compact[k] = p->nodes[c->classes[k].first];
		p->compact[k].gpus_idle = 0;
		p->node[k] = -1;
	}
	p->view.nodes = p->compact;
	p->view.nnodes = (size_t)c->nclasses;
	for (size_t n = 0; n < nn; n++) {
		p->pos[n] = -1;
		p->nodes[n].gpus_idle = 0;
		sched_policy_idle(s, (int)n, (uint32_t)s->free_g[n]);
	}
	p->elig_cache = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, sched_elig_free);
}

void sched_request_free(sched_t *s)
{
	sched_pol_t *p = s->pol;
	if (!p)
		return;
	sched_policy_nodes_free(p->nodes);
	nodeox_g_free_all(p->compact, p->node, p->pos, p->state.running, p->state.scratch, p->state.cls_at,
			  p->state.hist);
	if (p->state.uids)
		g_hash_table_destroy(p->state.uids);
	g_hash_table_destroy(p->elig_cache);
	g_free(p);
	s->pol = NULL;
}


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

/*
 * Broaden=when-faster's state, filled from the scheduler's as job_submit/nodeox
 * fills it from slurmctld's (plugin/job_submit_nodeox.c, _cluster_state):
 * every node with its free GPUs (pol_nodes), every running job's GPUs per
 * node with its expected end (the per-class release lists: start plus
 * limit), and each pending GPU job of the job's partitions in priority
 * order, with the GPUs it wants, the conf types of the classes it may use
 * (a broadened one: its set) and the duration backfill plans it with, for
 * the backfill map (policy/policy_map.c; also summed by type, "" for a
 * broadened one, as the older estimate read them): a new submission is
 * behind all of them. The one place the simulator feeds the estimate.
 */
static void sched_policy_state(sched_t *s, uint32_t j, nodeox_cluster_t *cl)
{
	const sim_cluster_t *c = s->c;
	const sim_job_t *job = &s->t->jobs[j];
	struct pol_state *ps = &s->pol->state;
	uint64_t parts = 0;
	size_t nr = 0, nahead = 0;

	if (!ps->scratch)
		ps->scratch = g_new0(uint32_t, NODEOX_ESTIMATE_SCRATCH(c->nnodes ? c->nnodes : 1));
	/* Every allocation with GPUs of every running job, class by class and
	 * within a class by (expected end, job, allocation): the order the
	 * policy's sort (by end) starts from, so that equal ends stay as they
	 * are. s->all holds the jobs by (end, job); a count per class places
	 * each allocation (a job's allocations are in their order). */
	size_t *at = ps->cls_at;
	if (!at)
		at = ps->cls_at = g_new(size_t, (size_t)c->nclasses + 1);
	memset(at, 0, sizeof(size_t) * ((size_t)c->nclasses + 1));
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			for (int k = 0; k < c->nclasses; k++)
				at[k + 1] += at[k];
			nr = at[c->nclasses];
			if (nr > ps->cap) {
				ps->cap = MAX(nr, 2 * ps->cap);
				ps->running = g_renew(nodeox_running_t, ps->running, ps->cap);
			}
		}
		for (size_t q = 0; q < s->all.n; q++) {
			const release_t *e = &s->all.e[q];
			const running_t *run = s->running[e->job];
			int64_t end = e->end;
			uint32_t uid;
			/* its user's history may expect it back sooner (the
			 * plugin's rule: policy_history.c); only jobs that
			 * ended so far are in it */
			if (pass == 1 && ps->hist && sched_history_uid(s, e->job, &uid))
				end = nodeox_history_end(ps->hist, uid, s->run->jobs[e->job].start, e->end,
							 s->now, NULL);
			for (int i = 0; i < run->na; i++) {
				const alloc_t *a = &run->a[i];
				if (!a->gpus)
					continue;
				if (pass == 0)
					at[a->cls + 1]++;
				else
					ps->running[at[a->cls]++] =
						(nodeox_running_t){ (uint32_t)a->node, a->gpus,
								    end - s->now };
			}
		}
	}
	nodeox_running_t *sort_tmp = g_new(nodeox_running_t, MAX(nr, 1)); /* radix scratch */
	nodeox_running_sort(ps->running, nr, sort_tmp);
	g_free(sort_tmp);
	if (job->partition) {
		gchar **names = g_strsplit(job->partition, ",", -1);
		for (gchar **n = names; *n; n++) {
			int p = cluster_find_partition(c, *n);
			parts |= p >= 0 ? 1ull << p : 0;
		}
		g_strfreev(names);
	} else if (c->default_part >= 0) {
		parts = 1ull << c->default_part;
	}
	/* the pending jobs in priority order, as the passes walk them: the
	 * first of each type is the one backfill reserves for first */
	prio_iter_t it;
	uint32_t order = 0;
	int64_t pj;
	size_t np = 0;
	bool more = false;
	sched_order_begin(s, &it);
	while ((pj = sched_order_next(s, &it)) >= 0) {
		const req_t *r = &s->req[pj];
		const char *type =
			s->run->jobs[pj].broadened || !s->t->jobs[pj].gpu_type ? "" : s->t->jobs[pj].gpu_type;
		size_t k;
		if (!r->gpus || (parts && !(r->parts & parts)))
			continue;
		/* the backfill map's list (policy_map.c): the first
		 * NODEOX_MAP_PENDING + 1 (one more than it walks: past them it
		 * makes no estimate), each with the conf types of the classes
		 * it may use (a broadened job: its set) and the duration
		 * backfill plans it with */
		if (r->elig) {
			uint32_t mask = 0;
			bool ours = false;
			for (int u = 0; u < r->elig->nucls; u++) {
				int t = c->nodes[c->classes[r->elig->ucls[u]].first].type;
				int ct = t >= 0 ? nodeox_conf_find_type(s->o->policy, c->types[t]) : -1;
				if (ct >= 0) {
					mask |= (uint32_t)1 << ct;
					ours = true;
				}
			}
			if (ours && np == NODEOX_MAP_LIST)
				more = true;
			else if (ours)
				ps->pending[np++] = (nodeox_pending_t){
					.types = mask,
					.gpus = r->gpus,
					.limit = r->plan == SCHED_INF ? 0 : r->plan,
					.id = s->t->jobs[pj].id,
				};
		}
		for (k = 0; k < nahead && g_ascii_strcasecmp(ps->ahead[k].type, type); k++)
			;
		if (k == nahead) {
			if (nahead == G_N_ELEMENTS(ps->ahead))
				continue;
			ps->ahead[nahead++] = (nodeox_demand_t){ .type = type };
		}
		nodeox_demand_add(&ps->ahead[k], r->gpus, 0, order++); /* position as id */
	}
	sched_order_end(s);
	*cl = (nodeox_cluster_t){ .nodes = s->pol->nodes,
				  .nnodes = (size_t)c->nnodes,
				  .running = ps->running,
				  .nrunning = nr,
				  .ahead = ps->ahead,
				  .nahead = nahead,
				  .scratch = ps->scratch,
				  .map = true,
				  .pending = ps->pending,
				  .npending = np,
				  .pending_more = more };
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

void sched_policy_job(const sim_cluster_t *c, const sim_job_t *job, const char *comment, char *tres,
		      size_t tres_len, nodeox_job_t *out)
{
	memset(out, 0, sizeof(*out));
	out->job_id = job->id;
	out->comment = comment;
	out->name = job->class_name; /* the workload, for the speed table */
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
	out->time_limit =
		job->time_limit == SIM_TIME_NONE ? NODEOX_TIME_NONE : (uint32_t)((job->time_limit + 59) / 60);
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

/* A partition's setting, else the cluster's (job_mgr.c: part_ptr's
 * def_mem_per_cpu / max_mem_per_cpu when set, else slurm_conf's; for the
 * GPU ones, job_test.c _set_gpu_defaults). */
#define SCHED_DEF(pd, cd, f) ((pd)->f ? (pd)->f : (cd)->f)

/* The CPUs and memory of request r (r->nodes and r->gpus set) as slurmctld
 * fills what the job's sbatch line leaves out (doc/traces.md, "Defaults"):
 *  - tasks: one per node with -N (sbatch's opt.ntasks = min_nodes), else
 *    one; CPUs per task: the trace's cpus over the tasks (-c), else 1;
 *  - the CPU count of the job-size priority factor: tasks x CPUs per task,
 *    sbatch's job_desc->min_cpus (slurm_opt.c), which
 *    priority_multifactor.c counts while the job pends (total_cpus is 0, or
 *    the will-run guess MAX(min_cpus, min_nodes)): --cpus-per-gpu does not
 *    enter it in 22.05, in 24.11 it does (times the GPUs);
 *  - CPUs allocated per node: the tasks' CPUs, or --cpus-per-gpu (else, with
 *    no -c, DefCpuPerGPU) times its GPUs there, whichever is more; a job
 *    without -N whose GPUs spread takes at least one CPU on each node;
 *  - memory, where SelectTypeParameters counts it: mem (--mem), else
 *    --mem-per-gpu or DefMemPerGPU times the GPUs on a node (cons_common
 *    job_test.c: GRES memory when the job set none), else DefMemPerCPU times
 *    its CPUs there or DefMemPerNode (job_mgr.c _validate_job_desc);
 *    MaxMemPerNode refuses a larger --mem, MaxMemPerCPU raises the CPUs per
 *    node to fit it (_valid_pn_min_mem).
 * Returns NULL, or why Slurm refuses the job. */
static const char *sched_request_resources(const sim_cluster_t *c, const sim_job_t *job,
					   const sim_job_defaults_t *pd, req_t *r)
{
	const sim_job_defaults_t *cd = &c->defs;
	const uint32_t gpus = r->gpus, tasks = r->nodes ? r->nodes : 1;
	const uint32_t cpt = job->cpus ? (job->cpus + tasks - 1) / tasks : 1;
	const uint32_t cpg = job->cpus_per_gpu    ? job->cpus_per_gpu
			     : gpus && !job->cpus ? SCHED_DEF(pd, cd, def_cpu_per_gpu)
						  : 0;
	r->size_cpus = tasks * cpt;
	/* 24.05 on raise min_cpus at submission to --cpus-per-gpu times the GPUs
	 * (interfaces/gres.c, gres_job_state_validate: cpus_per_gres x
	 * total_gres), which the job-size factor then counts; 22.05 does not
	 * (its ReqTRES shows cpu=1 for such a job, 24.11's cpu=4:
	 * tests/traces/test_sacct_roundtrip.sh) */
	if (cluster_slurm_has(c, SIM_CHG_MIN_CPUS_PER_GRES) && job->cpus_per_gpu)
		r->size_cpus = MAX(r->size_cpus, job->cpus_per_gpu * gpus);
	if (r->nodes) {
		r->gpus_per_node = gpus / r->nodes;
		r->cpus_per_node = MAX(cpt, cpg * r->gpus_per_node);
	} else {
		/* one task of -c CPUs spread with its GPUs, as before; 0: one
		 * CPU on each node used */
		r->cpus_per_gpu = job->cpus ? (job->cpus + gpus - 1) / gpus : cpg;
	}
	if (!c->mem_counted)
		return NULL;
	bool per_cpu = pd->def_mem ? pd->def_mem_per_cpu : cd->def_mem_per_cpu;
	uint64_t def = SCHED_DEF(pd, cd, def_mem);
	uint64_t mpg = job->mem_per_gpu_mb ? job->mem_per_gpu_mb : SCHED_DEF(pd, cd, def_mem_per_gpu);
	if (job->mem_mb) {
		if (r->nodes)
			r->mem_per_node = (job->mem_mb + r->nodes - 1) / r->nodes;
		else
			r->mem_per_gpu = (job->mem_mb + gpus - 1) / gpus;
	} else if (gpus && mpg) {
		if (r->nodes)
			r->mem_per_node = mpg * r->gpus_per_node;
		else
			r->mem_per_gpu = mpg;
	} else if (def && per_cpu) {
		if (r->nodes)
			r->mem_per_node = def * r->cpus_per_node;
		else if (r->cpus_per_gpu)
			r->mem_per_gpu = def * r->cpus_per_gpu;
		else
			r->spread_mem_node = def;
	} else if (def) {
		if (r->nodes)
			r->mem_per_node = def;
		else
			r->spread_mem_node = def;
	}
	uint64_t max = SCHED_DEF(pd, cd, max_mem);
	bool max_per_cpu = pd->max_mem ? pd->max_mem_per_cpu : cd->max_mem_per_cpu;
	if (max && job->mem_mb && r->nodes) {
		if (!max_per_cpu && r->mem_per_node > max)
			return "memory per node above MaxMemPerNode (Slurm refuses it: Memory "
			       "required by task is not available)";
		if (max_per_cpu && r->mem_per_node > max * r->cpus_per_node)
			r->cpus_per_node = (uint32_t)((r->mem_per_node + max - 1) / max);
	}
	return NULL;
}

/* Job j's --prefer record (sched_prefer.c): its request with the prefer
 * features as constraint. slurmctld tests a new job with them
 * (job_allocate: set_job_features_use) and refuses one they can never
 * serve (ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE, 22.05 and 24.11 without
 * SchedulerParameters=ignore_prefer_validation, not modelled). Returns 0,
 * or -1 when rejected. */
static int sched_submit_prefer(sched_t *s, uint32_t j, int type, bool gpus, const char *prefer)
{
	const char *why = NULL;
	const elig_t *pe = sched_elig(s, type, gpus, s->req[j].parts, prefer, &why);
	if (!why) {
		sched_prefer_set(s, j, pe);
		if (sched_capacity_ok(s, &s->preq[j]))
			return 0;
		why = "more resources than the nodes with its --prefer features have";
		s->preq[j].elig = NULL;
	}
	char msg[NODEOX_STR_MAX + NODEOX_ERR_MAX + 128];
	snprintf(msg, sizeof(msg),
		 "--prefer=%s: %s (Slurm refuses it: Requested node "
		 "configuration is not available)",
		 prefer, why);
	sched_reject(s, j, SIM_JOB_REJECTED, msg);
	return -1;
}

bool sched_submit(sched_t *s, uint32_t j)
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
		const char *comment =
			job->comment && strstr(job->comment, "nodeox:flex") ? job->comment : "nodeox:flex";
		nodeox_cluster_t state;
		const nodeox_cluster_t *view = &s->pol->view;
		sched_policy_job(s->c, job, comment, tres, sizeof(tres), &pj);
		if (s->o->policy->broaden == NODEOX_BROADEN_WHEN_FASTER) {
			sched_policy_state(s, j, &state);
			view = &state;
		}
		nodeox_policy_decide(s->o->policy, &pj, view, &d);
		if (s->o->on_decide) {
			nodeox_cluster_t all = { .nodes = s->pol->nodes, .nnodes = (size_t)c->nnodes };
			s->o->on_decide(s->o->decide_arg, j, &pj, &all, &d);
		}
		if (d.action == NODEOX_REJECT) {
			sched_reject(s, j, SIM_JOB_REJECTED, d.reason);
			return false;
		}
		if (d.action != NODEOX_PASS)
			res->reason = g_string_chunk_insert_const(s->run->strings, d.reason);
		if (d.action == NODEOX_REWRITE && !d.dryrun) {
			uint32_t cnt;
			res->broadened = true;
			if (d.tres_per_node_set &&
			    sched_tres_gpu(d.tres_per_node, type_buf, sizeof(type_buf), &cnt)) {
				nodes = nodes ? nodes : 1;
				gpus = cnt * nodes;
				type_name = type_buf[0] ? type_buf : NULL;
			} else if (d.tres_per_job_set &&
				   sched_tres_gpu(d.tres_per_job, type_buf, sizeof(type_buf), &cnt)) {
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
	int first_part = c->default_part; /* whose defaults the job gets */
	if (job->partition) {
		gchar **names = g_strsplit(job->partition, ",", -1);
		for (gchar **p = names; *p; p++) {
			int pi = cluster_find_partition(c, *p);
			if (pi < 0) {
				char why[128];
				snprintf(why, sizeof(why), "invalid partition '%s'", *p);
				g_strfreev(names);
				sched_reject(s, j, SIM_JOB_REJECTED, why);
				return false;
			}
			if (!parts)
				first_part = pi;
			parts |= 1ull << pi;
		}
		g_strfreev(names);
	} else if (c->default_part >= 0) {
		parts = 1ull << c->default_part;
	} else {
		sched_reject(s, j, SIM_JOB_REJECTED, "no partition given and none is Default=YES");
		return false;
	}
	int type = -1;
	if (type_name) {
		type = cluster_find_type(c, type_name);
		if (type < 0) {
			char why[128];
			snprintf(why, sizeof(why), "no node has GPU type '%s'", type_name);
			sched_reject(s, j, SIM_JOB_REJECTED, why);
			return false;
		}
	}
	r->req_type = job->gpu_type ? cluster_find_type(c, job->gpu_type) : -1;
	const char *why = NULL;
	r->elig = sched_elig(s, type, gpus > 0, parts, features, &why);
	if (why) {
		sched_reject(s, j, SIM_JOB_REJECTED, why);
		return false;
	}
	r->gpus = gpus;
	r->parts = parts;
	r->nodes = gpus == 0 && nodes == 0 ? 1 : nodes;
	const char *mem_why = sched_request_resources(c, job, &c->parts[first_part].defs, r);
	if (mem_why) {
		sched_reject(s, j, SIM_JOB_REJECTED, mem_why);
		return false;
	}
	if (limit == SIM_TIME_NONE) {
		limit = sched_part_default_time(s, parts);
	} else {
		limit = (limit + 59) / 60 * 60; /* Slurm keeps limits in whole minutes */
		/* Slurm (EnforcePartLimits=NO, the default) accepts a job whose
		 * limit exceeds every requested partition's MaxTime, e.g. after
		 * the policy scaled it, and leaves it pending for ever
		 * (Reason=PartitionTimeLimit). */
		bool fits_one = false;
		for (int p = 0; p < c->nparts; p++)
			if ((parts >> p & 1) &&
			    (c->parts[p].max_time == SIM_TIME_NONE || limit <= c->parts[p].max_time))
				fits_one = true;
		if (!fits_one) {
			sched_reject(s, j, SIM_JOB_NEVER,
				     "time limit above the partition's MaxTime "
				     "(Slurm leaves it pending: PartitionTimeLimit)");
			return false;
		}
	}
	r->limit = limit == SIM_TIME_NONE ? SCHED_INF : limit;
	if (r->limit != SCHED_INF) {
		r->plan = r->limit;
	} else {
		double worst = 1; /* oracle: real run time on the slowest eligible type */
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
		return false;
	}
	if (prefer && sched_submit_prefer(s, j, type, gpus > 0, prefer) < 0)
		return false;
	bool any_up = false;
	for (int p = 0; p < c->nparts; p++)
		any_up = any_up || ((parts >> p & 1) && c->parts[p].up);
	if (!any_up) {
		sched_reject(s, j, SIM_JOB_NEVER, "partition is not up");
		return false;
	}
	r->kind = sched_request_kind(r);
	s->req[j].fail_epoch = UINT64_MAX;
	return true;
}
