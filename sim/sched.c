/*
 * sched.c: the scheduler model of nodeox-sim.
 *
 * Events (job ends from a binary heap, submissions from the sorted trace)
 * drive two kinds of passes, as in slurmctld:
 *  - the main pass, after every batch of events: pending jobs in priority
 *    order, at most default_queue_depth of them, each started if it fits now;
 *    the first job that does not fit blocks the rest of its partition;
 *  - the backfill pass, every bf_interval seconds when something changed: up
 *    to bf_max_job_test jobs in priority order; a job that cannot start now
 *    gets a reservation at its earliest expected start (found by releasing
 *    running jobs at their expected ends, within bf_window, at bf_resolution),
 *    and a lower-priority job starts now only if it leaves every reservation
 *    on the nodes it takes intact.
 * Priority is Slurm's multifactor subset: PriorityWeightAge * min(age,
 * PriorityMaxAge)/PriorityMaxAge + PriorityWeightJobSize * (GPUs / cluster
 * GPUs). Below the age cap the order of two jobs never changes, so pending
 * jobs sit in two ordered lists (still ageing, capped; sim/prio.c) merged on
 * the fly: no re-sorting per pass.
 *
 * Costs are bounded per pass, never by the queue length: nodes are indexed
 * by class (GPU type, shape, features, partitions) and, within a class, kept
 * in buckets by free GPUs, so a placement visits only nodes that can serve
 * it; a job that failed to fit is not re-tried until some job has ended (a
 * release epoch); running jobs' allocations sit in one flat array per class
 * by expected end, which backfill walks, merging the classes a job may use;
 * reservations are computed lazily, only when a lower-priority job could
 * start now on classes they might use, and identical requests in one pass
 * resume one search. Where this differs from Slurm is in doc/simulator.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/prio.h"
#include "sim/queue.h"
#include "sim/sched.h"

#define SCHED_INF INT64_MAX
#define SCHED_TIMEOUT_CHECK_S 30   /* slurmctld's PERIODIC_TIMEOUT (slurmctld.h) */

enum { SCHED_GONE = 0, SCHED_YOUNG, SCHED_OLD };   /* where a job pends */

typedef struct {                 /* where a job may run: classes per OR term */
	int ngroups;                 /* 1, or the constraint's terms when matching */
	int *cls[SIM_MAX_TERMS];
	int ncls[SIM_MAX_TERMS];
	uint64_t *gbits[SIM_MAX_TERMS];   /* class bitset of each group */
	uint64_t *bits;              /* union of the groups */
	int *ucls, nucls;            /* the classes of bits, ascending */
	const char *why_not;         /* non-NULL: no node can ever serve */
} elig_t;

typedef struct {                 /* a job's request as scheduled */
	const elig_t *elig;
	uint64_t fail_epoch;         /* release epoch it last failed to fit in */
	int64_t limit;               /* kill limit, seconds, SCHED_INF = none */
	int64_t plan;                /* duration backfill plans with */
	uint32_t nodes;              /* 0: GPUs may spread over nodes */
	uint32_t gpn, cpn;           /* per node, when nodes > 0 */
	uint64_t mpn;
	uint32_t gpus;               /* total */
	uint64_t parts;              /* partitions asked for */
	uint32_t cpg;                /* per GPU, when spreading */
	uint64_t mpg;
	int req_type;                /* cluster type the run time was measured on */
} req_t;

/* Per-group fit state while releasing running jobs for one reservation:
 * nodes that fit (per-node jobs) or GPUs usable (spreading jobs). */
typedef struct {
	int64_t have[SIM_MAX_TERMS];
} fit_t;

typedef struct {
	int node;
	int cls;                     /* the node's class, kept here for backfill */
	uint32_t gpus, cpus;
	uint64_t mem;
} alloc_t;

typedef struct {                 /* a running job */
	alloc_t *a;
	int na;
	int64_t expected_end;        /* start + limit (or real run time) */
} running_t;

typedef struct {                 /* one allocation of a running job, in release order */
	int64_t end;                 /* the job's expected end */
	uint32_t job;
	uint32_t idx;                /* which of the job's allocations */
	int32_t node;
	uint32_t gpus, cpus;
	uint32_t dead;               /* the job has ended (a tombstone) */
	uint64_t mem;
} release_t;

typedef struct {                 /* one class's allocations by (end, job, idx) */
	release_t *e;
	size_t n, cap, ndead;
} rellist_t;

/* A resumable reservation search (see sched_reserve): the release walk for
 * one request, its scratch view of the nodes it has looked at (free now, less
 * the reservations made so far, plus what the walk released), the nodes that
 * could serve the request (in the order they came to) and the fit counts. */
typedef struct {
	const req_t *req;            /* the request; any identical one resumes it */
	uint64_t epoch;              /* live while == sched_t.srch_epoch */
	uint32_t gen;                /* per-node stamps below are valid when == gen */
	bool none;                   /* found nothing within bf_window */
	int64_t when;                /* expected end the last applied release stands for */
	int64_t first_end;           /* expected end of the walk's first release, -1 none yet */
	fit_t fit;
	size_t *pos;                 /* per class: next release to apply */
	struct search_node {         /* per node, together for locality: */
		uint32_t stamp;      /* == gen: scratch loaded */
		uint32_t fstamp;     /* == gen: in fitlist, at fpos */
		int fpos;
		int64_t g, c, m;     /* scratch */
	} *nd;
	int *fitlist;
	int nfit;
	int lo;                      /* fitlist nodes before lo offer the job nothing */
} search_t;

#define SCHED_MAX_SEARCH 32      /* live searches per pass (more: the oldest is redone) */

typedef struct {
	const sim_cluster_t *c;
	const sim_trace_t *t;
	const sim_sched_opts_t *o;
	sim_run_t *run;
	int64_t now;
	size_t nwords;               /* class bitset words */

	/* node state */
	int32_t *free_g, *free_c;
	int64_t *free_m;
	int64_t *class_free_g;
	int64_t total_free_g;
	int *bucket;                 /* nodes by class and free GPUs (see sched_bucket) */
	int *bucket_off;             /* per bucket: where its nodes start in bucket */
	int *bucket_n;               /* per bucket: how many */
	int *bucket_base;            /* per class: bucket id of k = 0 */
	int *bpos;                   /* per node: position in its bucket */
	nodeox_node_t *pol_nodes;    /* the policy's view of every node */
	nodeox_node_t *pol_compact;  /* one idle-less copy per class + the idle nodes */
	int *pol_pos, *pol_node;     /* node -> compact slot (-1), slot -> node */
	nodeox_cluster_t pol_view;   /* over pol_compact: same decisions, less to scan */

	/* jobs */
	req_t *req;
	bool *tagged;
	uint8_t *where;              /* SCHED_YOUNG, SCHED_OLD while pending */
	double *key;
	running_t **running;
	uint64_t release_epoch;
	size_t npending, age_cursor, ended;

	prio_list_t young, old;      /* pending, by priority: still ageing; capped */
	rellist_t *rel;              /* per class: running jobs' allocations there by */
				     /* expected end; flat arrays, since backfill walks */
				     /* them far more often than jobs start or end, and a */
				     /* walk visits only the classes the job may use */
	sim_queue_t events;
	GHashTable *elig_cache;      /* key string -> elig_t* */

	/* backfill pass state, valid while stamp == pass */
	uint32_t pass;
	uint32_t *resv_stamp;
	int64_t *resv_start, *resv_g, *resv_c, *resv_m;
	int64_t *spare_g, *spare_c, *spare_m;
	uint32_t test;               /* generation of the last search begun */
	search_t srch[SCHED_MAX_SEARCH];
	int nsrch, srch_evict;       /* slots in use this epoch; next to redo */
	uint64_t srch_epoch;         /* bumped when free resources or the pass change */
	search_t *cur;               /* the search placing a reservation */
	bool in_backfill;
	int nresv;

	alloc_t *abuf;               /* scratch for placements */
	uint32_t gpus_by_type[SIM_MAX_TYPES];
} sched_t;

/* When a job starting now is expected to end, for backfill's planning. */
static int64_t sched_plan_end(const sched_t *s, const req_t *r)
{
	return r->plan == SCHED_INF ? SCHED_INF : s->now + r->plan;
}

/* t rounded down to a multiple of res on the wall clock, where the trace's
 * second 0 is at org (mod res) on it. */
static int64_t sched_floor_res(int64_t t, int64_t res, int64_t org)
{
	int64_t w = t + org;
	int64_t f = (w >= 0 ? w / res : -((-w + res - 1) / res)) * res;
	return f - org;
}

/* ------------------------------------------------------------ eligibility */

static void elig_free(gpointer p)
{
	elig_t *e = p;
	for (int g = 0; g < e->ngroups; g++) {
		g_free(e->cls[g]);
		g_free(e->gbits[g]);
	}
	g_free(e->bits);
	g_free(e->ucls);
	g_free(e);
}

static inline bool bits_test(const uint64_t *b, int i)
{
	return (b[i >> 6] >> (i & 63)) & 1;
}

/* Put the classes whose nodes have the --prefer features first (stable),
 * so placements try them first, as Slurm tries preferred nodes first. */
static void sched_elig_prefer(const sim_cluster_t *c, elig_t *e, const char *prefer)
{
	sim_constraint_t k;
	char err[NODEOX_ERR_MAX];
	if (!prefer || constraint_parse(prefer, c, &k, err, sizeof(err)) < 0 || k.empty)
		return;
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
			if (bits_test(e->bits, cl))
				e->ucls[e->nucls++] = cl;
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
				if (n->gpus >= r->gpn && n->cpus >= r->cpn && n->mem_mb >= r->mpn)
					have += (uint64_t)k->nnodes;
			} else {
				uint64_t per = n->gpus;
				if (r->cpg && n->cpus / r->cpg < per)
					per = n->cpus / r->cpg;
				if (r->mpg && n->mem_mb / r->mpg < per)
					per = n->mem_mb / r->mpg;
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

void sched_policy_job(const sim_job_t *job, const char *comment, char *tres, size_t tres_len,
		      nodeox_job_t *out)
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
	out->min_nodes = job->nodes;
}

/* The GPU entry of a TRES list: "gres:gpu[:type]:N" (or gres/gpu). */
static bool sched_tres_gpu(const char *tres, char *type, size_t tlen, uint32_t *count)
{
	if (!tres)
		return false;
	gchar **items = g_strsplit(tres, ",", -1);
	bool found = false;
	for (gchar **it = items; *it && !found; it++) {
		const char *p = *it;
		if (g_str_has_prefix(p, "gres:gpu") || g_str_has_prefix(p, "gres/gpu"))
			p += 8;
		else if (g_str_has_prefix(p, "gpu"))
			p += 3;
		else
			continue;
		if (*p != ':' && *p != '=' && *p)
			continue;
		gchar **f = g_strsplit_set(*p ? p + 1 : p, ":=", -1);
		guint nf = g_strv_length(f);
		type[0] = '\0';
		*count = 1;
		if (nf >= 2) {
			g_strlcpy(type, f[0], tlen);
			*count = (uint32_t)strtoul(f[1], NULL, 10);
		} else if (nf == 1 && *f[0]) {
			*count = (uint32_t)strtoul(f[0], NULL, 10);
		}
		g_strfreev(f);
		found = true;
	}
	g_strfreev(items);
	return found;
}

/* ------------------------------------------------------------ priority */

static double sched_size_factor(const sched_t *s, uint32_t gpus)
{
	const sim_sched_params_t *p = &s->o->params;
	if (p->weight_job_size == 0 || s->c->total_gpus == 0)
		return 0;
	double f = (double)gpus / (double)s->c->total_gpus;
	if (f > 1)
		f = 1;
	return p->weight_job_size * (p->favor_small ? 1.0 - f : f);
}

static void sched_pending_add(sched_t *s, uint32_t j)
{
	const sim_sched_params_t *p = &s->o->params;
	s->key[j] = sched_size_factor(s, s->req[j].gpus) -
		p->weight_age * (double)s->t->jobs[j].submit / (double)p->max_age_s;
	s->where[j] = SCHED_YOUNG;
	prio_list_insert(&s->young, s->key[j], j);
	s->npending++;
}

/* Jobs whose age reached PriorityMaxAge move to the capped sequence. */
static void sched_age(sched_t *s, size_t submitted)
{
	const sim_sched_params_t *p = &s->o->params;
	if (p->weight_age == 0)
		return;
	while (s->age_cursor < submitted &&
	       s->t->jobs[s->age_cursor].submit + p->max_age_s <= s->now) {
		uint32_t j = (uint32_t)s->age_cursor++;
		if (s->where[j] != SCHED_YOUNG)
			continue;
		prio_list_remove(&s->young, s->key[j], j);
		s->key[j] = sched_size_factor(s, s->req[j].gpus) + p->weight_age;
		s->where[j] = SCHED_OLD;
		prio_list_insert(&s->old, s->key[j], j);
	}
}

typedef struct {
	prio_pos_t y, o;
} prio_iter_t;

/* Begin a walk in priority order; the lists keep it valid while the pass
 * starts (removes) the jobs it returns. End it with prio_end. */
static void prio_begin(sched_t *s, prio_iter_t *it)
{
	it->y = (prio_pos_t){ 0, 0 };
	it->o = (prio_pos_t){ 0, 0 };
	s->young.track = &it->y;
	s->old.track = &it->o;
}

static void prio_end(sched_t *s)
{
	s->young.track = s->old.track = NULL;
}

/* Next pending job in priority order (advancing past it), or -1. */
static int64_t prio_next(const sched_t *s, prio_iter_t *it)
{
	const prio_ent_t *y = prio_list_at(&s->young, &it->y), *o = prio_list_at(&s->old, &it->o);
	if (!y && !o)
		return -1;
	bool take_y = y;
	if (y && o) {
		const sim_sched_params_t *p = &s->o->params;
		double py = y->key + p->weight_age * (double)s->now / (double)p->max_age_s;
		take_y = py > o->key || (py == o->key && y->job < o->job);
	}
	if (take_y) {
		it->y.p++;
		return y->job;
	}
	it->o.p++;
	return o->job;
}

/* ------------------------------------------------------------ resources */

/* What node n offers a job that would hold it until `end`: free now, and in
 * a backfill pass no more than the spare left beside later reservations. */
static void sched_avail_now(const sched_t *s, int n, int64_t end, bool resv, int64_t *g,
			    int64_t *cpu, int64_t *m)
{
	*g = s->free_g[n];
	*cpu = s->free_c[n];
	*m = s->free_m[n];
	if (resv && s->resv_stamp[n] == s->pass && end >= s->resv_start[n]) {
		*g = MIN(*g, s->spare_g[n]);
		*cpu = MIN(*cpu, s->spare_c[n]);
		*m = MIN(*m, s->spare_m[n]);
	}
}

static inline void sched_scratch_load(sched_t *s, search_t *S, int n)
{
	if (S->nd[n].stamp == S->gen)
		return;
	S->nd[n].stamp = S->gen;
	S->nd[n].g = s->free_g[n];
	S->nd[n].c = s->free_c[n];
	S->nd[n].m = s->free_m[n];
	if (s->resv_stamp[n] == s->pass) {
		S->nd[n].g -= s->resv_g[n];
		S->nd[n].c -= s->resv_c[n];
		S->nd[n].m -= s->resv_m[n];
	}
}

typedef enum { AV_FREE, AV_RESV, AV_SCRATCH } avail_mode_t;

static void sched_avail(sched_t *s, avail_mode_t mode, int n, int64_t end, int64_t *g,
			int64_t *cpu, int64_t *m)
{
	if (mode == AV_SCRATCH) {
		search_t *S = s->cur;
		sched_scratch_load(s, S, n);
		*g = S->nd[n].g;
		*cpu = S->nd[n].c;
		*m = S->nd[n].m;
	} else {
		sched_avail_now(s, n, end, mode == AV_RESV, g, cpu, m);
	}
}

/* GPUs node can give a spreading job (limited by CPUs and memory per GPU). */
static int64_t sched_spread_take(const req_t *r, int64_t g, int64_t cpu, int64_t m)
{
	if (r->cpg)
		g = MIN(g, cpu / (int64_t)r->cpg);
	if (r->mpg)
		g = MIN(g, m / (int64_t)r->mpg);
	return g > 0 ? g : 0;
}

static bool sched_node_fits(const req_t *r, int64_t g, int64_t cpu, int64_t m)
{
	return g >= r->gpn && cpu >= r->cpn && m >= (int64_t)r->mpn;
}

/* What node offers a job towards its need: 1 node, or GPUs when spreading. */
static int64_t sched_contrib(const req_t *r, int64_t g, int64_t cpu, int64_t m)
{
	if (r->nodes)
		return sched_node_fits(r, g, cpu, m) ? 1 : 0;
	return sched_spread_take(r, g, cpu, m);
}

/* Nodes of class cl with exactly k free GPUs: buckets let a placement skip
 * the nodes that cannot serve it and try the fullest that can first. */
static inline const int *sched_bucket(const sched_t *s, int cl, int k, int *n)
{
	int b = s->bucket_base[cl] + k;
	*n = s->bucket_n[b];
	return &s->bucket[s->bucket_off[b]];
}

/* Move node n between its class's buckets, keeping each bucket in node
 * order: among equally fitting nodes a placement takes the first in
 * slurm.conf order, as select/cons_tres does on ties. */
static void sched_bucket_move(sched_t *s, int n, int from, int to)
{
	int cl = s->c->nodes[n].cls;
	int bf = s->bucket_base[cl] + from, bt = s->bucket_base[cl] + to;
	int *src = &s->bucket[s->bucket_off[bf]];
	int cnt = --s->bucket_n[bf];
	for (int q = s->bpos[n]; q < cnt; q++) {
		src[q] = src[q + 1];
		s->bpos[src[q]] = q;
	}
	int *dst = &s->bucket[s->bucket_off[bt]];
	int lo = 0, hi = s->bucket_n[bt]++;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (dst[mid] < n)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int q = s->bucket_n[bt] - 1; q > lo; q--) {
		dst[q] = dst[q - 1];
		s->bpos[dst[q]] = q;
	}
	dst[lo] = n;
	s->bpos[n] = lo;
}

/* Offer node n to the placement being built; returns true when complete. */
typedef struct {
	const req_t *r;
	int found;
	int64_t rem;                 /* spreading: GPUs still to place */
	bool single;                 /* spreading, first try: the whole job on one node */
} place_t;

static bool sched_offer(sched_t *s, place_t *p, int n, int64_t g, int64_t cpu, int64_t m)
{
	const req_t *r = p->r;
	if (r->nodes) {
		if (!sched_node_fits(r, g, cpu, m))
			return false;
		s->abuf[p->found++] = (alloc_t){ n, s->c->nodes[n].cls, r->gpn, r->cpn, r->mpn };
		return p->found == (int)r->nodes;
	}
	int64_t take = sched_spread_take(r, g, cpu, m);
	if (p->single ? take < p->rem : take == 0)
		return false;
	take = MIN(take, p->rem);
	s->abuf[p->found++] = (alloc_t){ n, s->c->nodes[n].cls, (uint32_t)take,
					 (uint32_t)(take * r->cpg), (uint64_t)take * r->mpg };
	p->rem -= take;
	return p->rem == 0;
}

/* A reservation's nodes for per-node request r, among those its search
 * found to fit (group bits gbits): the r->nodes first in slurm.conf order,
 * as select/cons_tres picks among equally free nodes in its will-run test.
 * Fills s->abuf; returns r->nodes, or 0 when too few fit. */
static int sched_place_first(sched_t *s, const req_t *r, const uint64_t *gbits)
{
	search_t *S = s->cur;
	int found = 0, prev = -1;
	while (found < (int)r->nodes) {
		int best = -1;
		for (int q = S->lo; q < S->nfit; q++) {
			int n = S->fitlist[q];
			if (n <= prev || (best >= 0 && n >= best) ||
			    !bits_test(gbits, s->c->nodes[n].cls))
				continue;
			sched_scratch_load(s, S, n);
			if (sched_node_fits(r, S->nd[n].g, S->nd[n].c, S->nd[n].m))
				best = n;
		}
		if (best < 0)
			return 0;
		s->abuf[found++] = (alloc_t){ best, s->c->nodes[best].cls, r->gpn, r->cpn, r->mpn };
		prev = best;
	}
	return found;
}

/* Choose nodes for job r; fills s->abuf, returns the count or 0. Now (modes
 * AV_FREE, AV_RESV) nodes come from the free-GPU buckets, fullest fitting node
 * first (best fit); a spreading job takes one node if one can hold it, else
 * the emptiest nodes first. In AV_SCRATCH (a reservation) they come from the
 * fit list that sched_reserve built. */
static int sched_place(sched_t *s, const req_t *r, avail_mode_t mode, int64_t end)
{
	const sim_cluster_t *c = s->c;
	const elig_t *e = r->elig;
	int64_t g, cpu, m;
	for (int grp = 0; grp < e->ngroups; grp++) {
		if (mode != AV_SCRATCH) {
			int64_t sum = 0;
			for (int i = 0; i < e->ncls[grp]; i++)
				sum += s->class_free_g[e->cls[grp][i]];
			if (sum < (int64_t)(r->nodes ? (uint64_t)r->nodes * r->gpn : r->gpus))
				continue;
		}
		for (int pass = r->nodes ? 1 : 0; pass < 2; pass++) {
			place_t p = { .r = r, .rem = r->gpus, .single = pass == 0 };
			if (mode == AV_SCRATCH) {
				search_t *S = s->cur;
				while (S->lo < S->nfit) {   /* skip what offers nothing */
					const struct search_node *sn = &S->nd[S->fitlist[S->lo]];
					if (sched_contrib(r, sn->g, sn->c, sn->m) > 0)
						break;
					S->lo++;
				}
				if (r->nodes) {     /* the first nodes in slurm.conf order */
					int na = sched_place_first(s, r, e->gbits[grp]);
					if (na)
						return na;
					continue;
				}
				for (int q = S->lo; q < S->nfit; q++) {
					int n = S->fitlist[q];
					if (!bits_test(e->gbits[grp], c->nodes[n].cls))
						continue;
					sched_avail(s, mode, n, end, &g, &cpu, &m);
					if (sched_offer(s, &p, n, g, cpu, m))
						return p.found;
				}
				continue;
			}
			int kmin = r->nodes ? (int)r->gpn : pass == 0 ? (int)r->gpus : 1;
			for (int i = 0; i < e->ncls[grp]; i++) {
				int cl = e->cls[grp][i];
				int kmax = (int)c->nodes[c->classes[cl].first].gpus;
				if (kmin > kmax || s->class_free_g[cl] < kmin)
					continue;
				for (int step = 0; step <= kmax - kmin; step++) {
					/* fullest fitting first; spreading: emptiest first */
					int k = r->nodes || pass == 0 ? kmin + step : kmax - step;
					int nb;
					const int *bn = sched_bucket(s, cl, k, &nb);
					for (int q = 0; q < nb; q++) {
						sched_avail(s, mode, bn[q], end, &g, &cpu, &m);
						if (sched_offer(s, &p, bn[q], g, cpu, m))
							return p.found;
					}
				}
			}
		}
	}
	return 0;
}

/* ------------------------------------------------------------ start / end */

static inline bool release_before(const release_t *a, int64_t end, uint32_t job, uint32_t idx)
{
	return a->end < end || (a->end == end && (a->job < job || (a->job == job && a->idx < idx)));
}

/* Where (end, job, idx) is or would go in list l. */
static size_t sched_release_find(const rellist_t *l, int64_t end, uint32_t job, uint32_t idx)
{
	size_t lo = 0, hi = l->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (release_before(&l->e[mid], end, job, idx))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Put running job j's allocations into their classes' release lists. */
static void sched_release_add(sched_t *s, uint32_t j, const running_t *run)
{
	for (int i = 0; i < run->na; i++) {
		const alloc_t *a = &run->a[i];
		rellist_t *l = &s->rel[a->cls];
		size_t at = sched_release_find(l, run->expected_end, j, (uint32_t)i);
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 256;
			l->e = g_renew(release_t, l->e, l->cap);
		}
		memmove(&l->e[at + 1], &l->e[at], (l->n - at) * sizeof(release_t));
		l->e[at] = (release_t){ .end = run->expected_end, .job = j, .idx = (uint32_t)i,
					.node = a->node, .gpus = a->gpus, .cpus = a->cpus,
					.mem = a->mem };
		l->n++;
	}
}

/* Leave tombstones for ended job j; squeeze them out of a list when they
 * are a sixteenth of it (every walk steps over them; squeezing costs a
 * sixteen moves per end, amortised). */
static void sched_release_drop(sched_t *s, uint32_t j, const running_t *run)
{
	for (int i = 0; i < run->na; i++) {
		rellist_t *l = &s->rel[run->a[i].cls];
		l->e[sched_release_find(l, run->expected_end, j, (uint32_t)i)].dead = 1;
		if (++l->ndead > 16 && 16 * l->ndead > l->n) {
			size_t k = 0;
			for (size_t q = 0; q < l->n; q++)
				if (!l->e[q].dead)
					l->e[k++] = l->e[q];
			l->n = k;
			l->ndead = 0;
		}
	}
}

/* Keep the compact policy view: a node is in it while it has idle GPUs. */
static void sched_policy_idle(sched_t *s, int n, uint32_t idle)
{
	s->pol_nodes[n].gpus_idle = idle;
	int slot = s->pol_pos[n];
	if (slot >= 0 && idle > 0) {
		s->pol_compact[slot].gpus_idle = idle;
	} else if (slot >= 0) {
		int last = (int)--s->pol_view.nnodes;
		s->pol_compact[slot] = s->pol_compact[last];
		s->pol_node[slot] = s->pol_node[last];
		s->pol_pos[s->pol_node[slot]] = slot;
		s->pol_pos[n] = -1;
	} else if (idle > 0 && s->pol_nodes[n].usable) {
		slot = (int)s->pol_view.nnodes++;
		s->pol_compact[slot] = s->pol_nodes[n];
		s->pol_node[slot] = n;
		s->pol_pos[n] = slot;
	}
}

static void sched_take(sched_t *s, const alloc_t *a, int sign)
{
	int n = a->node;
	int32_t before = s->free_g[n];
	s->free_g[n] -= sign * (int32_t)a->gpus;
	s->free_c[n] -= sign * (int32_t)a->cpus;
	s->free_m[n] -= sign * (int64_t)a->mem;
	s->class_free_g[s->c->nodes[n].cls] -= sign * (int64_t)a->gpus;
	s->total_free_g -= sign * (int64_t)a->gpus;
	if (s->free_g[n] != before) {
		sched_bucket_move(s, n, before, s->free_g[n]);
		sched_policy_idle(s, n, (uint32_t)s->free_g[n]);
	}
}

static void sched_start(sched_t *s, uint32_t j, int na)
{
	const sim_cluster_t *c = s->c;
	const sim_job_t *job = &s->t->jobs[j];
	req_t *r = &s->req[j];
	running_t *run = g_new0(running_t, 1);
	s->srch_epoch++;                /* free resources change: no resuming */
	run->a = g_memdup2(s->abuf, sizeof(alloc_t) * na);
	run->na = na;
	memset(s->gpus_by_type, 0, sizeof(s->gpus_by_type));
	for (int i = 0; i < na; i++) {
		const alloc_t *a = &run->a[i];
		sched_take(s, a, 1);
		int t = c->nodes[a->node].type;
		if (t >= 0)
			s->gpus_by_type[t] += a->gpus;
		if (s->in_backfill && s->resv_stamp[a->node] == s->pass &&
		    sched_plan_end(s, r) >= s->resv_start[a->node]) {
			s->spare_g[a->node] -= a->gpus;
			s->spare_c[a->node] -= a->cpus;
			s->spare_m[a->node] -= (int64_t)a->mem;
		}
	}
	int64_t dur = runtime_model_duration(s->o->runtime, job, r->req_type, s->gpus_by_type);
	sim_result_t *res = &s->run->jobs[j];
	res->status = SIM_JOB_DONE;
	if (r->limit != SCHED_INF && dur > r->limit) {
		/* slurmctld looks for jobs past their limit every PERIODIC_TIMEOUT
		 * (30 s, from its start): the job runs on until that check. */
		int64_t kill = s->now + r->limit;
		kill = (kill + SCHED_TIMEOUT_CHECK_S - 1) / SCHED_TIMEOUT_CHECK_S * SCHED_TIMEOUT_CHECK_S;
		if (s->now + dur > kill) {
			dur = kill - s->now;
			res->status = SIM_JOB_TIMEOUT;
		}
	}
	res->start = s->now;
	res->end = s->now + dur;
	run->expected_end = s->now + (r->limit != SCHED_INF ? r->limit : dur);

	char types[256] = "";
	size_t len = 0;
	for (int t = 0; t < c->ntypes; t++)
		if (s->gpus_by_type[t] && len < sizeof(types))
			len += (size_t)snprintf(types + len, sizeof(types) - len, "%s%s:%u",
						len ? "+" : "", c->types[t], s->gpus_by_type[t]);
	res->types = g_string_chunk_insert_const(s->run->strings, types);
	if (s->o->record_nodes) {
		GString *nl = g_string_new(NULL);
		for (int i = 0; i < na; i++)
			g_string_append_printf(nl, "%s%s", i ? "," : "", c->nodes[run->a[i].node].name);
		res->nodes = g_string_chunk_insert(s->run->strings, nl->str);
		g_string_free(nl, TRUE);
	}

	s->running[j] = run;
	sched_release_add(s, j, run);
	sim_queue_push(&s->events, res->end, SIM_EV_END, j);
	prio_list_remove(s->where[j] == SCHED_OLD ? &s->old : &s->young, s->key[j], j);
	s->where[j] = SCHED_GONE;
	s->npending--;
}

static void sched_end(sched_t *s, uint32_t j)
{
	running_t *run = s->running[j];
	const sim_result_t *res = &s->run->jobs[j];
	int64_t dur = res->end - res->start;
	for (int i = 0; i < run->na; i++) {
		const alloc_t *a = &run->a[i];
		sched_take(s, a, -1);
		int t = s->c->nodes[a->node].type;
		if (t >= 0) {
			s->run->gpu_seconds[0][t] += (double)a->gpus * (double)dur;
			if (res->tagged)
				s->run->gpu_seconds[1][t] += (double)a->gpus * (double)dur;
		}
	}
	sched_release_drop(s, j, run);
	s->srch_epoch++;
	g_free(run->a);
	g_free(run);
	s->running[j] = NULL;
	s->release_epoch++;
	s->ended++;
	if (res->end > s->run->last_end)
		s->run->last_end = res->end;
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

static void sched_reject(sched_t *s, uint32_t j, sim_job_status_t st, const char *why)
{
	sim_result_t *res = &s->run->jobs[j];
	res->status = (uint8_t)st;
	res->reason = g_string_chunk_insert_const(s->run->strings, why);
	if (st == SIM_JOB_REJECTED)
		s->run->rejected++;
	else
		s->run->never++;
}

static void sched_submit(sched_t *s, uint32_t j)
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
		sched_policy_job(job, comment, tres, sizeof(tres), &pj);
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
		r->gpn = gpus / r->nodes;
		r->cpn = (cpus + r->nodes - 1) / r->nodes;
		r->mpn = (job->mem_mb + r->nodes - 1) / r->nodes;
	} else {
		r->cpg = (cpus + gpus - 1) / gpus;
		r->mpg = (job->mem_mb + gpus - 1) / gpus;
	}
	if (limit == SIM_TIME_NONE)
		limit = sched_part_default_time(s, parts);
	else
		limit = (limit + 59) / 60 * 60;     /* Slurm keeps limits in whole minutes */
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
	s->req[j].fail_epoch = UINT64_MAX;
	sched_pending_add(s, j);
}

/* ------------------------------------------------------------ passes */

/* Nodes for job j now (in s->abuf), or 0. A job that did not fit without
 * reservations is not tried again until some job has ended. */
static int sched_fit_now(sched_t *s, uint32_t j, bool with_resv)
{
	req_t *r = &s->req[j];
	if (s->req[j].fail_epoch == s->release_epoch)
		return 0;
	int na = sched_place(s, r, with_resv ? AV_RESV : AV_FREE, sched_plan_end(s, r));
	if (!na && !with_resv)
		s->req[j].fail_epoch = s->release_epoch;
	return na;
}

static void sched_main_pass(sched_t *s)
{
	s->run->main_passes++;
	uint64_t failed_parts = 0, all_parts = (s->c->nparts >= 64) ? UINT64_MAX
		: ((1ull << s->c->nparts) - 1);
	prio_iter_t it;
	prio_begin(s, &it);
	int depth = s->o->params.default_queue_depth;
	for (int tested = 0; tested < depth; tested++) {
		int64_t j = prio_next(s, &it);
		if (j < 0)
			break;
		uint64_t jp = s->req[j].parts;
		if (!(jp & ~failed_parts))
			continue;
		int na = sched_fit_now(s, (uint32_t)j, false);
		if (na) {
			sched_start(s, (uint32_t)j, na);
		} else {
			failed_parts |= jp;
			if ((failed_parts & all_parts) == all_parts)
				break;
		}
	}
	prio_end(s);
}


static bool sched_fit_done(const req_t *r, const fit_t *f)
{
	int64_t need = r->nodes ? r->nodes : r->gpus;
	for (int g = 0; g < r->elig->ngroups; g++)
		if (f->have[g] >= need)
			return true;
	return false;
}

/* Do two requests need the same resources on the same nodes? */
static bool sched_same_request(const req_t *a, const req_t *b)
{
	return a->elig == b->elig && a->nodes == b->nodes && a->gpn == b->gpn &&
	       a->cpn == b->cpn && a->mpn == b->mpn && a->gpus == b->gpus &&
	       a->cpg == b->cpg && a->mpg == b->mpg;
}

/* Add what node n (class cl) now offers search S's job to its fit state. */
static inline void sched_fit_node(search_t *S, int n, int cl, int64_t before)
{
	const req_t *r = S->req;
	int64_t after = sched_contrib(r, S->nd[n].g, S->nd[n].c, S->nd[n].m);
	if (after > 0 && S->nd[n].fstamp != S->gen) {
		S->nd[n].fstamp = S->gen;
		S->nd[n].fpos = S->nfit;
		S->fitlist[S->nfit++] = n;
	} else if (after > 0 && S->nd[n].fpos < S->lo) {
		S->lo = S->nd[n].fpos;
	}
	if (after == before)
		return;
	if (r->elig->ngroups == 1) {
		S->fit.have[0] += after - before;
		return;
	}
	for (int g = 0; g < r->elig->ngroups; g++)
		if (bits_test(r->elig->gbits[g], cl))
			S->fit.have[g] += after - before;
}

/* The next live release in list c from position pos[c] (advanced past
 * tombstones), or NULL. */
static inline const release_t *sched_release_live(const sched_t *s, size_t *pos, int c)
{
	const rellist_t *l = &s->rel[c];
	size_t p = pos[c];
	while (p < l->n && l->e[p].dead)
		p++;
	pos[c] = p;
	return p < l->n ? &l->e[p] : NULL;
}

/* The next live release in the lists of classes ucls by (end, job, idx),
 * from positions pos; its class in *cl. The caller consumes it by advancing
 * pos[*cl]. *cl (-1 at first) and *lim (the smallest head of the other
 * lists) carry the merge over calls: while the current list's head stays
 * below *lim, no other list is looked at. NULL: none left. */
static inline const release_t *sched_release_next(const sched_t *s, size_t *pos,
						  const int *ucls, int nl, int *cl,
						  const release_t **lim)
{
	if (*cl >= 0) {
		const release_t *h = sched_release_live(s, pos, *cl);
		if (h && (!*lim || release_before(h, (*lim)->end, (*lim)->job, (*lim)->idx)))
			return h;
	}
	const release_t *best = NULL, *second = NULL;
	for (int k = 0; k < nl; k++) {
		const release_t *h = sched_release_live(s, pos, ucls[k]);
		if (!h)
			continue;
		if (!best || release_before(h, best->end, best->job, best->idx)) {
			second = best;
			best = h;
			*cl = ucls[k];
		} else if (!second || release_before(h, second->end, second->job, second->idx)) {
			second = h;
		}
	}
	*lim = second;
	return best;
}

/* Apply the release at h (class cl) to search S's scratch and counts. */
static inline void sched_walk_apply(sched_t *s, search_t *S, const release_t *h, int cl)
{
	int n = h->node;
	sched_scratch_load(s, S, n);
	int64_t before = sched_contrib(S->req, S->nd[n].g, S->nd[n].c, S->nd[n].m);
	S->nd[n].g += h->gpus;
	S->nd[n].c += h->cpus;
	S->nd[n].m += (int64_t)h->mem;
	sched_fit_node(S, n, cl, before);
}

/* Search S's walk when its job may use one class: that class's releases in
 * order (a job's allocations lie together) until the job fits after one of
 * them; returns that release's expected end, or -1 (none by horizon). */
static int64_t sched_walk_one(sched_t *s, search_t *S, int cl, int64_t horizon, bool extend)
{
	const rellist_t *l = &s->rel[cl];
	size_t p = S->pos[cl];
	int64_t end = -1, when = -1;
	uint32_t job = 0;
	bool open = false;               /* a job's allocations are being applied */
	for (; p < l->n; p++) {
		const release_t *h = &l->e[p];
		if (h->dead)
			continue;
		if (!open || h->end != end || h->job != job) {
			if (open && !extend && sched_fit_done(S->req, &S->fit))
				break;
			open = false;
			if (h->end > horizon)
				break;
			end = h->end;
			job = h->job;
			open = true;
			if (S->first_end < 0)
				S->first_end = end;
			s->run->releases_scanned++;
		}
		sched_walk_apply(s, S, h, cl);
	}
	S->pos[cl] = p;
	if (open && (extend || sched_fit_done(S->req, &S->fit)))
		when = end;
	return when;
}

/* The same over several classes: their lists merged by (end, job, idx), so
 * a job's allocations come together and in their own order. */
static int64_t sched_walk_merge(sched_t *s, search_t *S, int64_t horizon, bool extend)
{
	const int *ucls = S->req->elig->ucls;
	int nl = S->req->elig->nucls, cl = -1;
	const release_t *lim = NULL;
	const release_t *h = sched_release_next(s, S->pos, ucls, nl, &cl, &lim);
	int64_t last = -1;
	while (h && h->end <= horizon) {
		int64_t end = h->end;
		uint32_t job = h->job;
		if (S->first_end < 0)
			S->first_end = end;
		s->run->releases_scanned++;
		for (; h && h->end == end && h->job == job;
		     h = sched_release_next(s, S->pos, ucls, nl, &cl, &lim)) {
			S->pos[cl]++;
			sched_walk_apply(s, S, h, cl);
		}
		last = end;
		if (!extend && sched_fit_done(S->req, &S->fit))
			return end;
	}
	return extend ? last : -1;
}

/* Slurm's will-run test (select/cons_tres _will_run_test) releases running
 * jobs in batches, not one by one: the first batch holds every job ending by
 * the first end rounded up to the next 30 s of the wall clock, plus 30 s;
 * later batches end 60, 120, 240 ... s after that rounded end. The job's
 * expected start is the end of the last job of the batch it first fits in.
 * The end of that batch for a fit found at `when`, the walk's first release
 * having been at `first`. */
static int64_t sched_batch_end(const sched_t *s, int64_t first, int64_t when)
{
	int64_t org = s->o->params.bf_origin_s, w = 30;
	int64_t delta = ((first + org) % 30 + 30) % 30;
	int64_t base = first + (30 - delta);
	while (base + w < when)
		w *= 2;
	return base + w;
}

/* The live search for a request identical to r, or a new one. */
static search_t *sched_search_get(sched_t *s, const req_t *r, bool *resumed)
{
	for (int k = 0; k < s->nsrch; k++)
		if (s->srch[k].epoch == s->srch_epoch && sched_same_request(s->srch[k].req, r)) {
			*resumed = true;
			return &s->srch[k];
		}
	search_t *S;
	if (s->nsrch > 0 && s->srch[0].epoch != s->srch_epoch)
		s->nsrch = 0;                /* all from an earlier epoch: start over */
	if (s->nsrch < SCHED_MAX_SEARCH) {
		S = &s->srch[s->nsrch++];
	} else {
		S = &s->srch[s->srch_evict];
		s->srch_evict = (s->srch_evict + 1) % SCHED_MAX_SEARCH;
	}
	S->req = r;
	S->epoch = s->srch_epoch;
	S->gen = ++s->test;
	S->none = false;
	S->first_end = -1;
	S->nfit = 0;
	S->lo = 0;
	memset(&S->fit, 0, sizeof(S->fit));
	*resumed = false;
	return S;
}

/* A reservation took alloc a: every live search that has looked at its node
 * sees that much less there from now on (its fit counts follow). */
static void sched_search_reserved(sched_t *s, const alloc_t *a)
{
	int n = a->node;
	for (int k = 0; k < s->nsrch; k++) {
		search_t *S = &s->srch[k];
		if (S->epoch != s->srch_epoch || S->nd[n].stamp != S->gen)
			continue;
		int64_t before = sched_contrib(S->req, S->nd[n].g, S->nd[n].c, S->nd[n].m);
		S->nd[n].g -= a->gpus;
		S->nd[n].c -= a->cpus;
		S->nd[n].m -= (int64_t)a->mem;
		sched_fit_node(S, n, a->cls, before);
	}
}

/*
 * Earliest start of job j within bf_window given running jobs' expected
 * ends and earlier reservations; reserve its nodes from then on. Returns the
 * reservation's start, or SCHED_INF for none.
 *
 * Queues hold many identical requests. Within a pass (while no job starts)
 * what any job can use at any time only shrinks, so a job cannot fit before
 * an identical one reserved earlier in the pass did: its search resumes where
 * that one stopped, with every reservation made since taken out of the
 * search's counts (sched_search_reserved), instead of starting over: the same
 * start time for a fraction of the work. Nodes are chosen among those that fit
 * then, in the order the search found them.
 */
static int64_t sched_reserve(sched_t *s, uint32_t j)
{
	const sim_cluster_t *c = s->c;
	const req_t *r = &s->req[j];
	const elig_t *e = r->elig;
	bool resumed;
	search_t *S = sched_search_get(s, r, &resumed);
	s->cur = S;
	if (resumed) {
		if (S->none)
			return SCHED_INF;        /* the same found nothing within bf_window */
	} else {
		S->when = s->now;
		for (int k = 0; k < e->nucls; k++)
			S->pos[e->ucls[k]] = 0;
		/* Nodes with fewer free GPUs than the job needs per node (or none,
		 * for a spreading job) cannot count now: start above those buckets. */
		int kmin = r->nodes ? (int)r->gpn : (r->gpus ? 1 : 0);
		for (int w = 0; w < (int)s->nwords; w++)
			for (uint64_t b = e->bits[w]; b; b &= b - 1) {
				int cl = w * 64 + __builtin_ctzll(b);
				int kmax = (int)c->nodes[c->classes[cl].first].gpus;
				for (int k = kmin; k <= kmax; k++) {
					int nb;
					const int *bn = sched_bucket(s, cl, k, &nb);
					for (int q = 0; q < nb; q++) {
						sched_scratch_load(s, S, bn[q]);
						sched_fit_node(S, bn[q], cl, 0);
					}
				}
			}
	}
	int64_t horizon = s->now + s->o->params.bf_window_min * 60;
	if (!sched_fit_done(r, &S->fit)) {
		/* release running jobs in expected-end order until the job fits */
		int64_t when = e->nucls == 1 ? sched_walk_one(s, S, e->ucls[0], horizon, false)
					     : sched_walk_merge(s, S, horizon, false);
		if (when < 0) {
			S->none = true;          /* not within bf_window: no reservation */
			return SCHED_INF;
		}
		/* the rest of Slurm's batch goes too; the last of it is the start */
		int64_t stop = MIN(sched_batch_end(s, S->first_end, when), horizon);
		int64_t more = e->nucls == 1 ? sched_walk_one(s, S, e->ucls[0], stop, true)
					     : sched_walk_merge(s, S, stop, true);
		when = MAX(when, more);
		S->when = when;
	}
	/* Slurm rounds the reservation's start down to bf_resolution on the
	 * wall clock (backfill.c: start_time / backfill_resolution *
	 * backfill_resolution), not before the pass's own rounded start. */
	int64_t res = s->o->params.bf_resolution_s, org = s->o->params.bf_origin_s;
	int64_t when = sched_floor_res(S->when, res, org), first = sched_floor_res(s->now, res, org);
	when = MAX(when, first);
	int na = sched_place(s, r, AV_SCRATCH, 0);
	for (int i = 0; i < na; i++) {
		const alloc_t *a = &s->abuf[i];
		int n = a->node;
		/* Slurm takes a reserved node out of the backfill map whole, from
		 * the reservation's start: a job that would still run then may
		 * not use even the node's spare GPUs (backfill.c _add_reservation
		 * clears the node's bit in avail_bitmap). */
		int64_t sg = 0, sc = 0, sm = 0;
		if (s->resv_stamp[n] != s->pass) {
			s->resv_stamp[n] = s->pass;
			s->resv_start[n] = when;
			s->resv_g[n] = s->resv_c[n] = s->resv_m[n] = 0;
			s->spare_g[n] = sg;
			s->spare_c[n] = sc;
			s->spare_m[n] = sm;
		} else {
			s->resv_start[n] = MIN(s->resv_start[n], when);
			s->spare_g[n] = MIN(s->spare_g[n], sg);
			s->spare_c[n] = MIN(s->spare_c[n], sc);
			s->spare_m[n] = MIN(s->spare_m[n], sm);
		}
		s->resv_g[n] += a->gpus;
		s->resv_c[n] += a->cpus;
		s->resv_m[n] += (int64_t)a->mem;
		sched_search_reserved(s, a);
	}
	s->nresv++;
	s->run->reservations++;
	return when;
}

static bool bits_meet(const uint64_t *a, const uint64_t *b, size_t nwords)
{
	for (size_t w = 0; w < nwords; w++)
		if (a[w] & b[w])
			return true;
	return false;
}

/* Reserve, in priority order, for the waiting jobs that could hold nodes the
 * candidate k might take: those sharing a class with it, closed under
 * sharing a class with each other. The rest share no node with any of them,
 * so leaving them for later changes no reservation. As soon as a reservation
 * stops the candidate the rest wait too (in order), since the candidate
 * waits whatever they get. Returns how many stay deferred (kept in order in
 * deferred, their classes in defbits). */
static int sched_reserve_deferred(sched_t *s, uint32_t k, uint32_t *deferred, int ndef,
				  uint64_t *defbits)
{
	const elig_t *e = s->req[k].elig;
	int64_t end_k = sched_plan_end(s, &s->req[k]);
	bool stopped = false;
	uint64_t *touch = g_memdup2(e->bits, sizeof(uint64_t) * s->nwords);
	bool *sel = g_new0(bool, ndef);
	for (bool grew = true; grew;) {
		grew = false;
		for (int q = 0; q < ndef; q++) {
			const elig_t *d = s->req[deferred[q]].elig;
			if (sel[q] || !bits_meet(d->bits, touch, s->nwords))
				continue;
			sel[q] = grew = true;
			for (size_t w = 0; w < s->nwords; w++)
				touch[w] |= d->bits[w];
		}
	}
	int keep = 0;
	memset(defbits, 0, sizeof(uint64_t) * s->nwords);
	for (int q = 0; q < ndef; q++) {
		if (sel[q] && !stopped) {
			if (sched_reserve(s, deferred[q]) < end_k && !sched_fit_now(s, k, true))
				stopped = true;
			continue;
		}
		deferred[keep++] = deferred[q];
		const elig_t *d = s->req[deferred[q]].elig;
		for (size_t w = 0; w < s->nwords; w++)
			defbits[w] |= d->bits[w];
	}
	g_free(sel);
	g_free(touch);
	return keep;
}

static void sched_backfill_pass(sched_t *s)
{
	s->run->bf_passes++;
	s->pass++;
	s->srch_epoch++;
	s->in_backfill = true;
	s->nresv = 0;
	int max_test = s->o->params.bf_max_job_test;
	uint32_t *deferred = g_new(uint32_t, max_test);
	int ndef = 0;
	uint64_t *defbits = g_new0(uint64_t, s->nwords);
	prio_iter_t it;
	prio_begin(s, &it);
	for (int tested = 0; tested < max_test; tested++) {
		int64_t j = prio_next(s, &it);
		if (j < 0)
			break;
		const elig_t *e = s->req[j].elig;
		int na = sched_fit_now(s, (uint32_t)j, false);
		if (!na) {
			deferred[ndef++] = (uint32_t)j;
			for (int w = 0; w < (int)s->nwords; w++)
				defbits[w] |= e->bits[w];
			continue;
		}
		/* Reservations made so far already stop it? More would too: do not
		 * compute the waiting jobs' reservations for it. */
		bool blocked = s->nresv && !(na = sched_fit_now(s, (uint32_t)j, true));
		if (!blocked && ndef && bits_meet(defbits, e->bits, s->nwords)) {
			ndef = sched_reserve_deferred(s, (uint32_t)j, deferred, ndef, defbits);
			blocked = s->nresv && !(na = sched_fit_now(s, (uint32_t)j, true));
		}
		if (blocked) {
			deferred[ndef++] = (uint32_t)j;
			for (int w = 0; w < (int)s->nwords; w++)
				defbits[w] |= e->bits[w];
			continue;
		}
		sched_start(s, (uint32_t)j, na);
	}
	prio_end(s);
	g_free(deferred);
	g_free(defbits);
	s->in_backfill = false;
}

/* ------------------------------------------------------------ the run */

static void sched_state_init(sched_t *s)
{
	const sim_cluster_t *c = s->c;
	size_t nj = s->t->njobs, nn = (size_t)c->nnodes;
	s->nwords = ((size_t)c->nclasses + 63) / 64;
	s->free_g = g_new(int32_t, nn);
	s->free_c = g_new(int32_t, nn);
	s->free_m = g_new(int64_t, nn);
	s->class_free_g = g_new0(int64_t, c->nclasses);
	for (size_t n = 0; n < nn; n++) {
		const sim_node_t *nd = &c->nodes[n];
		s->free_g[n] = nd->usable ? (int32_t)nd->gpus : 0;
		s->free_c[n] = nd->usable ? (int32_t)nd->cpus : 0;
		s->free_m[n] = nd->usable ? (int64_t)nd->mem_mb : 0;
		s->class_free_g[nd->cls] += s->free_g[n];
		s->total_free_g += s->free_g[n];
	}
	s->bucket_base = g_new(int, c->nclasses + 1);
	int nb = 0;
	for (int k = 0; k < c->nclasses; k++) {
		s->bucket_base[k] = nb;
		nb += (int)c->nodes[c->classes[k].first].gpus + 1;
	}
	s->bucket_base[c->nclasses] = nb;
	s->bucket_off = g_new(int, nb);
	s->bucket_n = g_new0(int, nb);
	int off = 0;
	for (int k = 0; k < c->nclasses; k++)
		for (int b = s->bucket_base[k]; b < s->bucket_base[k + 1]; b++) {
			s->bucket_off[b] = off;
			off += c->classes[k].nnodes;
		}
	s->bucket = g_new(int, off + 1);
	s->bpos = g_new(int, nn);
	for (size_t n = 0; n < nn; n++) {
		int b = s->bucket_base[c->nodes[n].cls] + s->free_g[n];
		s->bpos[n] = s->bucket_n[b];
		s->bucket[s->bucket_off[b] + s->bucket_n[b]++] = (int)n;
	}
	s->pol_nodes = sched_policy_nodes(c);
	s->pol_compact = g_new(nodeox_node_t, (size_t)c->nclasses + nn);
	s->pol_node = g_new(int, (size_t)c->nclasses + nn);
	s->pol_pos = g_new(int, nn);
	for (int k = 0; k < c->nclasses; k++) {
		s->pol_compact[k] = s->pol_nodes[c->classes[k].first];
		s->pol_compact[k].gpus_idle = 0;
		s->pol_node[k] = -1;
	}
	s->pol_view.nodes = s->pol_compact;
	s->pol_view.nnodes = (size_t)c->nclasses;
	for (size_t n = 0; n < nn; n++) {
		s->pol_pos[n] = -1;
		s->pol_nodes[n].gpus_idle = 0;
		sched_policy_idle(s, (int)n, (uint32_t)s->free_g[n]);
	}
	for (int k = 0; k < SCHED_MAX_SEARCH; k++) {
		search_t *S = &s->srch[k];
		S->pos = g_new0(size_t, c->nclasses);
		S->nd = g_new0(struct search_node, nn);
		S->fitlist = g_new(int, nn + 1);
	}
	s->req = g_new0(req_t, nj);
	s->tagged = g_new(bool, nj);
	for (size_t j = 0; j < nj; j++)
		s->tagged[j] = s->o->tagged ? s->o->tagged[j] : s->t->jobs[j].tagged;
	s->where = g_new0(uint8_t, nj);
	s->key = g_new0(double, nj);
	s->running = g_new0(running_t *, nj);
	prio_list_init(&s->young);
	prio_list_init(&s->old);
	sim_queue_init(&s->events);
	s->elig_cache = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, elig_free);
	s->resv_stamp = g_new0(uint32_t, nn);
	s->resv_start = g_new(int64_t, nn);
	s->resv_g = g_new(int64_t, nn);
	s->resv_c = g_new(int64_t, nn);
	s->resv_m = g_new(int64_t, nn);
	s->spare_g = g_new(int64_t, nn);
	s->spare_c = g_new(int64_t, nn);
	s->spare_m = g_new(int64_t, nn);
	s->abuf = g_new(alloc_t, nn + 1);
	s->rel = g_new0(rellist_t, c->nclasses);
}

static void sched_state_free(sched_t *s)
{
	for (size_t j = 0; j < s->t->njobs; j++)
		if (s->running[j]) {
			g_free(s->running[j]->a);
			g_free(s->running[j]);
		}
	g_free(s->free_g); g_free(s->free_c); g_free(s->free_m); g_free(s->class_free_g);
	sched_policy_nodes_free(s->pol_nodes);
	g_free(s->pol_compact); g_free(s->pol_node); g_free(s->pol_pos);
	g_free(s->bucket); g_free(s->bucket_off); g_free(s->bucket_n); g_free(s->bucket_base);
	g_free(s->bpos);
	for (int k = 0; k < SCHED_MAX_SEARCH; k++) {
		search_t *S = &s->srch[k];
		g_free(S->pos); g_free(S->nd); g_free(S->fitlist);
	}
	g_free(s->req); g_free(s->tagged); g_free(s->where); g_free(s->key);
	g_free(s->running);
	prio_list_free(&s->young);
	prio_list_free(&s->old);
	for (int k = 0; k < s->c->nclasses; k++)
		g_free(s->rel[k].e);
	g_free(s->rel);
	sim_queue_free(&s->events);
	g_hash_table_destroy(s->elig_cache);
	g_free(s->resv_stamp); g_free(s->resv_start); g_free(s->resv_g); g_free(s->resv_c);
	g_free(s->resv_m); g_free(s->spare_g); g_free(s->spare_c); g_free(s->spare_m);
	g_free(s->abuf);
}

int sched_run(const sim_cluster_t *c, const sim_trace_t *t, const sim_sched_opts_t *o,
	      sim_run_t **out, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	sim_run_t *run = g_new0(sim_run_t, 1);
	run->njobs = t->njobs;
	run->jobs = g_new0(sim_result_t, t->njobs);
	run->strings = g_string_chunk_new(1 << 16);
	run->first_submit = t->njobs ? t->jobs[0].submit : 0;
	run->last_end = run->first_submit;
	sched_t s = { .c = c, .t = t, .o = o, .run = run };
	sched_state_init(&s);

	size_t next_submit = 0;
	const int64_t bf_iv = o->params.bf_interval_s;
	bool bf_dirty = false;
	int64_t next_bf = SCHED_INF;
	size_t progress_step = 1 << 16, progress_next = progress_step;
	for (;;) {
		int64_t tn = SCHED_INF;
		const sim_event_t *ev = sim_queue_peek(&s.events);
		if (ev)
			tn = ev->time;
		if (next_submit < t->njobs && t->jobs[next_submit].submit < tn)
			tn = t->jobs[next_submit].submit;
		if (s.npending && bf_dirty && next_bf < tn)
			tn = next_bf;
		if (tn == SCHED_INF)
			break;
		s.now = tn;
		bool changed = false;
		sim_event_t e;
		while ((ev = sim_queue_peek(&s.events)) && ev->time == s.now) {
			sim_queue_pop(&s.events, &e);
			sched_end(&s, e.job);
			changed = true;
		}
		while (next_submit < t->njobs && t->jobs[next_submit].submit == s.now) {
			sched_submit(&s, (uint32_t)next_submit++);
			changed = true;
		}
		sched_age(&s, next_submit);
		if (changed && s.npending) {
			sched_main_pass(&s);
			if (!bf_dirty) {
				bf_dirty = true;
				next_bf = ((s.now + bf_iv - 1) / bf_iv) * bf_iv;
			}
		}
		if (bf_dirty && s.now >= next_bf) {
			bf_dirty = false;
			if (s.npending)
				sched_backfill_pass(&s);
			next_bf = SCHED_INF;
		}
		if (o->progress && s.ended >= progress_next) {
			o->progress(o->progress_arg, o->label, s.ended, t->njobs);
			progress_next += progress_step;
		}
	}
	for (size_t j = 0; j < t->njobs; j++)
		if (s.where[j] != SCHED_GONE) {
			sched_reject(&s, (uint32_t)j, SIM_JOB_NEVER,
				     "still pending when nothing was left running");
			run->jobs[j].start = run->jobs[j].end = -1;
		}
	if (o->progress)
		o->progress(o->progress_arg, o->label, t->njobs, t->njobs);
	sched_state_free(&s);
	*out = run;
	return 0;
}

void sched_run_free(sim_run_t *r)
{
	if (!r)
		return;
	g_free(r->jobs);
	g_string_chunk_free(r->strings);
	g_free(r);
}
