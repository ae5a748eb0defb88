/*
 * policy_map.c: Broaden=when-faster's two starts as Slurm's backfill would
 * plan them (nodeox_map_make), for the plugin and nodeox-sim alike.
 *
 * Backfill (src/plugins/sched/backfill/backfill.c) walks the pending jobs in
 * priority order over a map of when resources come free (node_space): each
 * job starts at once if it fits now and ends before every reservation made
 * so far on what it would use, else it gets a reservation at the earliest
 * time its whole time limit fits, and later jobs plan around it. Here:
 *   - the map is a free-GPU profile per GPU type over time (map_t: steps
 *     t[0] = 0 < t[1] < ..., free GPUs of each type during each step), made
 *     from the idle GPUs of the usable nodes of the job's partitions and the
 *     running jobs' GPUs coming back at their expected ends (map_running);
 *   - each pending job ahead (cl->pending, in priority order) reserves its
 *     GPUs on the types it can use (a broadened one: all of its set) at the
 *     earliest step where its limit fits (map_place, map_reserve);
 *   - then the job itself is placed twice, as asked on its type with its
 *     limit, and broadened on its eligible types with the limit backfill
 *     will plan it with (scaled to the slowest eligible type, as
 *     decide_time writes it): it starts in a hole only where that limit
 *     fits the hole, else after the reservations. Its broadened finish
 *     counts its limit scaled to the slowest type it took GPUs of.
 *
 * Where this differs from Slurm's backfill (and from nodeox-sim's own
 * backfill pass, sim/model/sched_backfill.c, which places on nodes):
 *   - GPUs are counted per type, not per node: a job that needs whole nodes
 *     (8 GPUs on two 4-GPU nodes) fits wherever the type has 8 free GPUs;
 *     CPUs, memory, sockets and node sharing are not modelled;
 *   - the job is taken to come after every pending job the feeder gave
 *     (a new submission has no priority yet);
 *   - past NODEOX_MAP_RUN_STEPS/2 distinct ends, ends are rounded up to a
 *     resolution that starts at 60 s (Slurm's bf_resolution) and doubles
 *     every 8 steps, and past NODEOX_MAP_RUN_STEPS all later GPUs come back
 *     at the last end: the map then frees GPUs later than they do, never
 *     sooner;
 *   - running jobs end where the feeder says: at their limits, or sooner
 *     from their users' recent run times (RunTimeHistory=yes,
 *     policy_history.c); the map reads the ends as given;
 *   - past NODEOX_MAP_PENDING pending jobs, NODEOX_MAP_STEPS steps or
 *     NODEOX_MAP_WORK (step, type) looks, or where the feeder gave only part
 *     of the jobs ahead (cl->pending_more), it makes no estimate (map_cut):
 *     the decision goes as Broaden=when-blocked and says which bound.
 *
 * Work: one pass over the nodes, one over the running jobs, and per pending
 * job a placement of at most NODEOX_MAP_STEPS^2 (step, type) looks, all
 * counted against NODEOX_MAP_WORK. The map lives on the stack (~52 KB); no
 * allocation. A feeder that keeps cl->map_base between decisions (the
 * plugin) saves most of it: the node pass (its string tests; for the same
 * job shape, all of it), the running part, and the map with the pending
 * jobs' reservations, which a decision then copies and places the job on
 * alone (map_kept, map_run_kept, map_job_same); the work counted and the
 * decision are the same as without it (tests/fuzz/fuzz_decide.c decides
 * each map input both ways).
 */
#include <math.h>
#include <string.h>

#include "policy/policy_internal.h"

#define MAP_FOREVER (INT64_MAX / 4) /* no end: a limit of none, or too far */
#define MAP_NONE 0xffffffffu        /* scratch: a node the map does not hold */
#define MAP_FREE(m, i, d) ((m)->fr[(size_t)(i) * (size_t)(m)->nt + (size_t)(d)])
#define MAP_ROW(m, i) (&(m)->fr[(size_t)(i) * (size_t)(m)->nt])
#define MAP_ROWSZ(m) (sizeof((m)->fr[0]) * (size_t)(m)->nt)

typedef struct {
	int nt;                          /* types on the job's usable nodes */
	int conf_of[NODEOX_MAX_TYPES];   /* map type -> conf index */
	int dense_of[NODEOX_MAX_TYPES];  /* conf index -> map type, -1 */
	uint64_t cap[NODEOX_MAX_TYPES];  /* GPUs of each type */
	uint64_t hold[NODEOX_MAX_TYPES]; /* nodes of each type with >= per_node GPUs */
	int n;                           /* steps */
	int64_t t[NODEOX_MAP_STEPS];     /* step i: [t[i], t[i+1]); the last: on for good */
	uint32_t fr[NODEOX_MAP_STEPS * NODEOX_MAX_TYPES]; /* free GPUs: row i of nt */
	int64_t work;
	const char *cut; /* a bound reached: which (no estimate) */
} map_t;

bool nodeox_pending_types(const nodeox_conf_t *conf, const char *type, const char *features, uint32_t *mask)
{
	size_t i = 0, j;
	int k;

	*mask = 0;
	if (type && *type) {
		k = nodeox_conf_find_type(conf, type);
		if (k < 0)
			return false;
		*mask = (uint32_t)1 << k;
		return true;
	}
	/* the constraint's words ([A-Za-z0-9_.@-] runs) that name a type's feature */
	while (features && i < NODEOX_STR_MAX && features[i]) {
		for (j = i; j < NODEOX_STR_MAX && features[j] && nodeox_util_name_ok(features + j, 1); j++)
			;
		for (k = 0; j > i && k < conf->ntypes; k++)
			if (nodeox_util_eq(features + i, j - i, conf->types[k].feature))
				*mask |= (uint32_t)1 << k;
		i = j > i ? j : j + 1;
	}
	return true;
}

/* The step starting at x, made by splitting the one holding it; -1 when
 * the map has no room (m->cut). */
static int map_split(map_t *m, int64_t x)
{
	int lo = 0, hi = m->n;

	while (lo < hi) { /* first step starting after x */
		int mid = lo + (hi - lo) / 2;

		if (m->t[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && m->t[lo - 1] == x)
		return lo - 1;
	if (m->n >= NODEOX_MAP_STEPS) {
		m->cut = "when-faster, as when-blocked: more steps than the backfill map holds (NODEOX_MAP_STEPS)";
		return -1;
	}
	memmove(&m->t[lo + 1], &m->t[lo], sizeof(m->t[0]) * (size_t)(m->n - lo));
	memmove(MAP_ROW(m, lo + 1), MAP_ROW(m, lo), MAP_ROWSZ(m) * (size_t)(m->n - lo));
	m->t[lo] = x;
	memcpy(MAP_ROW(m, lo), MAP_ROW(m, lo - 1), MAP_ROWSZ(m)); /* lo > 0: t[0] = 0 <= x */
	m->n++;
	m->work += m->n - lo;
	return lo;
}

/* The first step at which g GPUs of the map types in mask stay free for
 * len seconds (MAP_FOREVER: for good), and what to take of each type
 * (types in the order given, the first as much as it can; order NULL: the
 * type with the most left first, as backfill would take whole nodes of one
 * type rather than pieces of two); -1 when none
 * (never, or m->cut). A window fails at the step where the sum over types
 * of their least free GPUs since its start drops below g; where that
 * step alone has fewer than g, no window holding it fits either, and the
 * next start looked at is the step after it. */
static int map_place(map_t *m, uint32_t mask, const int *order, int norder, uint64_t g, int64_t len,
		     uint32_t *take)
{
	uint32_t low[NODEOX_MAX_TYPES];
	int s, e, d, k, in[NODEOX_MAX_TYPES], nin = 0;
	int64_t work = 0;

	for (d = 0; d < m->nt; d++)
		if (mask >> d & 1)
			in[nin++] = d;
	for (s = 0; s < m->n; s++) {
		int64_t end = len >= MAP_FOREVER - m->t[s] ? MAP_FOREVER : m->t[s] + len;
		uint64_t sum = 0;

		for (d = 0; d < m->nt; d++)
			low[d] = UINT32_MAX;
		for (e = s; e < m->n && m->t[e] < end; e++) {
			const uint32_t *row = MAP_ROW(m, e);
			uint64_t here = 0;

			sum = 0;
			for (k = 0; k < nin; k++) {
				d = in[k];
				if (row[d] < low[d])
					low[d] = row[d];
				sum += low[d];
				here += row[d];
			}
			work += nin;
			if (sum < g) {
				if (here < g)
					s = e; /* then s + 1 */
				break;
			}
		}
		m->work += work;
		work = 0;
		if (m->work > NODEOX_MAP_WORK) {
			m->cut = "when-faster, as when-blocked: more work than the backfill map may do (NODEOX_MAP_WORK)";
			return -1;
		}
		if (sum < g)
			continue;
		for (d = 0; d < m->nt; d++)
			take[d] = 0;
		for (k = 0; k < (order ? norder : m->nt) && g; k++) {
			if (order) {
				d = order[k];
			} else { /* the type with the most GPUs left first: whole nodes */
				int best = -1;

				for (d = 0; d < m->nt; d++)
					if ((mask >> d & 1) && !take[d] && low[d] && (best < 0 || low[d] > low[best]))
						best = d;
				if (best < 0)
					break;
				d = best;
			}
			if (mask >> d & 1) {
				uint64_t x = low[d] < g ? low[d] : g;

				take[d] = (uint32_t)x;
				g -= x;
			}
		}
		return s;
	}
	return -1;
}

/* Hold take[] from step s for len seconds: split the map where it ends.
 * A reservation that starts later than now holds its nodes from its start
 * rounded down to bf_resolution (backfill.c: the slot's start), here taken
 * as NODEOX_MAP_RESOLUTION earlier (the wall clock's phase is not known),
 * of what is free then. Returns false when the map has no room (m->cut). */
static bool map_reserve(map_t *m, int s, int64_t len, const uint32_t *take)
{
	int64_t start = m->t[s], end = len < MAP_FOREVER - start ? start + len : MAP_FOREVER;
	int64_t from = start > NODEOX_MAP_RESOLUTION ? start - NODEOX_MAP_RESOLUTION : 0;
	int e = m->n, s0, i, d;

	if (end < MAP_FOREVER && (e = map_split(m, end)) < 0)
		return false;
	if ((s0 = map_split(m, from)) < 0)
		return false;
	s = map_split(m, start); /* (exists: found, not made) */
	e = end < MAP_FOREVER ? map_split(m, end) : m->n;
	for (i = s0; i < e; i++)
		for (d = 0; d < m->nt; d++) {
			uint32_t *f = &MAP_FREE(m, i, d);

			*f -= i >= s ? take[d] : take[d] < *f ? take[d] : *f;
		}
	m->work += (int64_t)(e - s0) * m->nt;
	return true;
}

/* The profile of the running jobs: step 0 none (the caller adds the idle
 * GPUs and caps each type at its GPUs: map_profile), then each distinct
 * end (rounded as the top of this file says) a step with the GPUs given
 * back so far. */
static void map_running(map_t *m, const nodeox_cluster_t *cl, const uint32_t *dense_node)
{
	int64_t res = 1;
	size_t i;

	m->work += (int64_t)cl->nrunning;
	for (i = 0; i < cl->nrunning; i++) {
		const nodeox_running_t *r = &cl->running[i];
		int64_t t = r->end > 0 ? r->end : 0;
		uint32_t d;
		uint64_t f;

		if (r->node >= cl->nnodes || !r->gpus || (d = dense_node[4 * (size_t)r->node]) == MAP_NONE)
			continue;
		/* (sorted: an end not after the last step's start goes into it,
		 * as late as or later than it is; only a later one is rounded) */
		if (t > m->t[m->n - 1] && res > 1)
			t = t >= MAP_FOREVER - res ? MAP_FOREVER : (t + res - 1) / res * res;
		if (t > m->t[m->n - 1]) {
			if (m->n < NODEOX_MAP_RUN_STEPS) {
				m->t[m->n] = t;
				memcpy(MAP_ROW(m, m->n), MAP_ROW(m, m->n - 1), MAP_ROWSZ(m));
				m->n++;
				if (m->n >= NODEOX_MAP_RUN_STEPS / 2 && (m->n - NODEOX_MAP_RUN_STEPS / 2) % 8 == 0)
					res = res < 60 ? 60 : res < MAP_FOREVER / 2 ? 2 * res : res;
			} else {
				m->t[m->n - 1] = t; /* the last step moves later: all come back then */
			}
		}
		f = (uint64_t)MAP_FREE(m, m->n - 1, d) + r->gpus;
		MAP_FREE(m, m->n - 1, d) = (uint32_t)(f < UINT32_MAX ? f : UINT32_MAX);
	}
}

/* May the kept running part serve (map_profile's test)? */
static bool map_run_kept(const nodeox_map_base_t *b, const nodeox_cluster_t *cl, int nt)
{
	return b && b->valid && b->running == cl->running && b->nrunning == cl->nrunning &&
	       b->nnodes == cl->nnodes && b->nt == nt;
}

/* The map from the running jobs (map_running), or from the copy a feeder
 * keeps of it (cl->map_base) while it is for the same running jobs and
 * nodes; then each step's GPUs plus the idle ones, at most the type's.
 * Returns the work of reading the running jobs (0: the copy served). */
static int64_t map_profile(map_t *m, const nodeox_cluster_t *cl, const uint32_t *sc, const uint32_t *idle0)
{
	nodeox_map_base_t *b = cl->map_base;
	int64_t run = 0;
	int i, d;

	if (map_run_kept(b, cl, m->nt)) {
		m->n = b->n;
		memcpy(m->t, b->t, sizeof(m->t[0]) * (size_t)b->n);
		memcpy(m->fr, b->back, MAP_ROWSZ(m) * (size_t)b->n);
	} else {
		for (d = 0; d < m->nt; d++)
			MAP_FREE(m, 0, d) = 0;
		run = m->work;
		map_running(m, cl, sc);
		run = m->work - run;
		if (b) {
			b->valid = true;
			b->pn = 0; /* the reservations were for the old running part */
			b->running = cl->running;
			b->nrunning = cl->nrunning;
			b->nnodes = cl->nnodes;
			b->nt = m->nt;
			b->n = m->n;
			memcpy(b->t, m->t, sizeof(m->t[0]) * (size_t)m->n);
			memcpy(b->back, m->fr, MAP_ROWSZ(m) * (size_t)m->n);
		}
	}
	for (i = 0; i < m->n; i++)
		for (d = 0; d < m->nt; d++) {
			uint64_t f = (uint64_t)MAP_FREE(m, i, d) + idle0[d];

			MAP_FREE(m, i, d) = (uint32_t)(f < m->cap[d] ? f : m->cap[d]);
		}
	m->work += (int64_t)m->n * m->nt;
	return run;
}

/* The map types of a conf types mask (0: all). */
static uint32_t map_mask(const map_t *m, uint32_t types)
{
	uint32_t out = 0;
	int d;

	for (d = 0; d < m->nt; d++)
		if (!types || (types >> m->conf_of[d] & 1))
			out |= (uint32_t)1 << d;
	return out;
}

/* The limit backfill plans the broadened job with, in seconds: limit_s
 * scaled by the slowest eligible type's speed, never past the job's cap
 * (decide_time's rule: the limit the decision writes). */
static int64_t map_broad_limit(const nodeox_conf_t *conf, const nodeox_job_t *job, const nodeox_shape_t *shape,
			       int req, const int *elig, int nelig, int64_t limit_s)
{
	double slow = shape->speed[req], f;
	int64_t min = limit_s / 60, scaled;
	int i;

	for (i = 0; i < nelig; i++)
		if (shape->speed[elig[i]] < slow)
			slow = shape->speed[elig[i]];
	f = shape->speed[req] / slow;
	if (!conf->scale_time_limit || !(f > 1.0))
		return limit_s;
	f = ceil((double)min * f - 1e-9);
	scaled = f >= (double)(NODEOX_TIME_NONE - 1) ? NODEOX_TIME_NONE - 1 : (int64_t)f;
	if (job->time_cap && scaled > (int64_t)job->time_cap)
		scaled = job->time_cap <= min ? min : (int64_t)job->time_cap;
	return scaled * 60;
}

/* The reservation (cl->pending index) ending at start on a map type of
 * mask: the one the job starts after; -1 if none. */
static int map_after(const int64_t *rend, const uint32_t *rmask, const int *rwho, int nr, int64_t start,
		     uint32_t mask)
{
	int i;

	for (i = 0; start > 0 && i < nr; i++)
		if (rend[i] == start && (rmask[i] & mask))
			return rwho[i];
	return -1;
}

/* The reservations of the jobs ahead, as far as they got. */
typedef struct {
	int nr;
	int64_t rend[NODEOX_MAP_PENDING];
	uint32_t rmask[NODEOX_MAP_PENDING];
	int rwho[NODEOX_MAP_PENDING];
} map_resv_t;

/* The nodes of the job's partitions (usable, with GPUs of a conf type):
 * scratch per node [0] its map type, [2] its class for est_by in
 * policy_estimate.c (an eligible conf type, or MAP_NONE), [3] its GPUs;
 * each type's GPUs (cap), idle GPUs (idle0) and nodes that can hold the
 * job's per-node count (hold), and est's idle and held counts. One string
 * test per distinct partition list and node type string. */
static void map_nodes(map_t *m, const nodeox_conf_t *conf, const nodeox_job_t *job, const nodeox_cluster_t *cl,
		      int req, const int *elig, int nelig, const nodeox_shape_t *shape, uint32_t *idle0,
		      nodeox_estimate_t *est)
{
	nodeox_type_memo_t memo = { .n = 0 };
	const char *last_parts = NULL;
	bool last_in = false;
	uint32_t *sc = cl->scratch;
	size_t k;

	for (k = 0; k < cl->nnodes; k++) {
		const nodeox_node_t *nd = &cl->nodes[k];
		int t = -1, j, d;
		uint32_t idle;

		sc[4 * k] = sc[4 * k + 2] = MAP_NONE;
		sc[4 * k + 3] = nd->gpus_total;
		if (!nd->usable || !nd->gpus_total)
			continue;
		if (!last_parts || (nd->partitions != last_parts &&
				    strcmp(nd->partitions ? nd->partitions : "", last_parts))) {
			last_parts = nd->partitions ? nd->partitions : "";
			last_in = nodeox_node_in_parts(nd, job->partition);
		}
		if (!last_in)
			continue;
		if ((t = nodeox_node_type(conf, nd, NULL, conf->ntypes, &memo)) < 0)
			continue;
		d = t;
		sc[4 * k] = (uint32_t)d;
		idle = nd->gpus_idle < nd->gpus_total ? nd->gpus_idle : nd->gpus_total;
		m->cap[d] += nd->gpus_total;
		idle0[d] += idle;
		m->hold[d] += nd->gpus_total >= shape->per_node;
		for (j = 0; j < nelig; j++)
			if (elig[j] == t) {
				sc[4 * k + 2] = (uint32_t)t;
				est->broad_idle += idle;
				est->broad_held += nd->gpus_total - idle;
				if (t == req) {
					est->kept_idle += idle;
					est->kept_held += nd->gpus_total - idle;
				}
			}
	}
}

/* map_nodes again from what it left in the scratch ([0], [3]) and the kept
 * caps and idle GPUs (cl->map_base placed): what depends on the job (its
 * eligible types, per-node count) without the string tests. */
static void map_nodes_kept(map_t *m, const nodeox_map_base_t *b, const nodeox_cluster_t *cl, int req,
			   const int *elig, int nelig, const nodeox_shape_t *shape, uint32_t *idle0,
			   nodeox_estimate_t *est)
{
	uint32_t *sc = cl->scratch;
	size_t k;
	int d, j;

	for (d = 0; d < m->nt; d++) {
		m->cap[d] = b->cap[d];
		idle0[d] = b->idle0[d];
	}
	for (k = 0; k < cl->nnodes; k++) {
		uint32_t t = sc[4 * k], total = sc[4 * k + 3], idle;

		sc[4 * k + 2] = MAP_NONE;
		if (t == MAP_NONE)
			continue;
		idle = cl->nodes[k].gpus_idle < total ? cl->nodes[k].gpus_idle : total;
		m->hold[t] += total >= shape->per_node;
		for (j = 0; j < nelig; j++)
			if (elig[j] == (int)t) {
				sc[4 * k + 2] = t;
				est->broad_idle += idle;
				est->broad_held += total - idle;
				if ((int)t == req) {
					est->kept_idle += idle;
					est->kept_held += total - idle;
				}
			}
	}
}

/* May the kept node pass serve (cl->map_base placed, for the same nodes,
 * conf, scratch and partitions)? */
static bool map_kept(const nodeox_map_base_t *b, const nodeox_conf_t *conf, const nodeox_job_t *job,
		     const nodeox_cluster_t *cl)
{
	return b && b->placed && b->pnodes == cl->nnodes && b->conf == conf && b->nodes == cl->nodes &&
	       b->scratch == cl->scratch && b->parts_set == (job->partition != NULL) &&
	       (!job->partition || !strcmp(b->parts, job->partition));
}

/* Was the last node pass (kept) for a job of the same type, eligible types
 * and per-node count? Its answers then serve whole (map_nodes_again). */
static bool map_job_same(const nodeox_map_base_t *b, int req, const int *elig, int nelig, uint64_t per_node)
{
	int i;

	if (!b->jset || b->jreq != req || b->jnelig != nelig || b->jper_node != per_node)
		return false;
	for (i = 0; i < nelig; i++)
		if (b->jelig[i] != elig[i])
			return false;
	return true;
}

/* map_nodes' answers for the same job again (the classes are in the
 * scratch already). */
static void map_nodes_again(map_t *m, const nodeox_map_base_t *b, uint32_t *idle0, nodeox_estimate_t *est)
{
	int d;

	for (d = 0; d < m->nt; d++) {
		m->cap[d] = b->cap[d];
		idle0[d] = b->idle0[d];
		m->hold[d] = b->jhold[d];
	}
	est->kept_idle = b->jkept_idle;
	est->kept_held = b->jkept_held;
	est->broad_idle = b->jbroad_idle;
	est->broad_held = b->jbroad_held;
}

/* Keep the node pass's answers for the job (map_job_same). */
static void map_keep_job(nodeox_map_base_t *b, int req, const int *elig, int nelig, uint64_t per_node,
			 const map_t *m, const nodeox_estimate_t *est)
{
	int i;

	b->jreq = req;
	b->jnelig = nelig;
	for (i = 0; i < nelig; i++)
		b->jelig[i] = elig[i];
	b->jper_node = per_node;
	for (i = 0; i < m->nt; i++)
		b->jhold[i] = m->hold[i];
	b->jkept_idle = est->kept_idle;
	b->jkept_held = est->kept_held;
	b->jbroad_idle = est->broad_idle;
	b->jbroad_held = est->broad_held;
	b->jset = true;
}

static bool map_pending_eq(const nodeox_pending_t *a, const nodeox_pending_t *b)
{
	return a->types == b->types && a->gpus == b->gpus && a->limit == b->limit && a->id == b->id;
}

/* Keep the node pass (after map_profile, which drops it with the running
 * part); a partition list too long to copy is not kept. */
static void map_keep_nodes(nodeox_map_base_t *b, const nodeox_conf_t *conf, const nodeox_job_t *job,
			   const nodeox_cluster_t *cl, const map_t *m, const uint32_t *idle0)
{
	int d;

	b->placed = false;
	b->jset = false;
	b->pn = 0;
	if (job->partition && strlen(job->partition) >= sizeof(b->parts))
		return;
	b->conf = conf;
	b->nodes = cl->nodes;
	b->pnodes = cl->nnodes;
	b->scratch = cl->scratch;
	b->parts_set = job->partition != NULL;
	if (job->partition)
		strcpy(b->parts, job->partition);
	for (d = 0; d < m->nt; d++) {
		b->cap[d] = m->cap[d];
		b->idle0[d] = idle0[d];
	}
	b->placed = true;
}

/* The reservations of the jobs ahead cl->pending[from..), in priority
 * order, onto m (as far as r got already). */
static void map_reserve_ahead(map_t *m, const nodeox_conf_t *conf, const nodeox_cluster_t *cl, size_t from,
			      map_resv_t *r)
{
	uint32_t take[NODEOX_MAX_TYPES];
	size_t k;
	int s, d;

	for (k = from; k < cl->npending && !m->cut; k++) {
		const nodeox_pending_t *p = &cl->pending[k];
		uint32_t known = (uint32_t)(((uint64_t)1 << conf->ntypes) - 1), mask;
		uint64_t room = 0;
		int64_t len = p->limit > 0 ? p->limit : MAP_FOREVER;

		if (p->types && !(p->types & known))
			continue; /* types beyond the conf's: none of the map's */
		mask = map_mask(m, p->types & known);
		for (d = 0; d < m->nt; d++)
			room += (mask >> d & 1) ? m->cap[d] : 0;
		if (!mask || !p->gpus || p->gpus > room)
			continue; /* never on these nodes: backfill reserves nothing here */
		if (r->nr >= NODEOX_MAP_PENDING) {
			m->cut = "when-faster, as when-blocked: more pending jobs ahead than the backfill map walks "
				 "(NODEOX_MAP_PENDING)";
			break;
		}
		if ((s = map_place(m, mask, NULL, 0, p->gpus, len, take)) < 0)
			continue; /* never fits for good (or m->cut, seen by the loop) */
		r->rend[r->nr] = len < MAP_FOREVER - m->t[s] ? m->t[s] + len : MAP_FOREVER;
		if (!map_reserve(m, s, len, take)) /* (moves the steps: s is stale after) */
			break;
		r->rmask[r->nr] = mask;
		r->rwho[r->nr++] = (int)k;
	}
}

void nodeox_map_make(const nodeox_conf_t *conf, const nodeox_job_t *job, const nodeox_cluster_t *cl, int req,
		     const int *elig, int nelig, const nodeox_shape_t *shape, int64_t limit_s,
		     nodeox_estimate_t *est)
{
	map_t m;
	nodeox_map_base_t *b = cl->map_base;
	uint32_t kmask, bmask, take[NODEOX_MAX_TYPES], idle0[NODEOX_MAX_TYPES];
	int order[NODEOX_MAX_TYPES], norder = 0, i, s, d;
	map_resv_t r;
	uint64_t g = nodeox_mul_sat(shape->nodes, shape->per_node), bhold = 0;
	int64_t run_work = 0;
	size_t k, from = 0;
	bool kept, listed;

	if (shape->total > g)
		g = shape->total;
	/* a map type per conf type (one without nodes here has no GPUs) */
	m.nt = conf->ntypes;
	m.n = 1;
	m.t[0] = 0;
	m.work = 0;
	m.cut = NULL;
	r.nr = 0;
	for (i = 0; i < NODEOX_MAX_TYPES; i++) {
		m.dense_of[i] = i < m.nt ? i : -1;
		m.conf_of[i] = i;
		m.cap[i] = m.hold[i] = 0;
		idle0[i] = 0;
	}
	est->map = true;
	est->kept_after = est->broad_after = -1;
	kept = map_kept(b, conf, job, cl);
	if (kept && map_job_same(b, req, elig, nelig, shape->per_node))
		map_nodes_again(&m, b, idle0, est);
	else if (kept)
		map_nodes_kept(&m, b, cl, req, elig, nelig, shape, idle0, est);
	else
		map_nodes(&m, conf, job, cl, req, elig, nelig, shape, idle0, est);
	listed = !cl->pending_more && cl->npending <= NODEOX_MAP_LIST;
	if (kept && listed && map_run_kept(b, cl, m.nt) && b->pn > 0 && b->npending <= cl->npending) {
		/* the kept reservations serve where the list starts as theirs */
		for (k = 0; k < b->npending && map_pending_eq(&b->pending[k], &cl->pending[k]); k++)
			;
		if (k == b->npending) {
			m.n = b->pn;
			memcpy(m.t, b->pt, sizeof(m.t[0]) * (size_t)m.n);
			memcpy(m.fr, b->pfr, MAP_ROWSZ(&m) * (size_t)m.n);
			m.work = b->work;
			m.cut = b->cut;
			r.nr = b->nr;
			memcpy(r.rend, b->rend, sizeof(r.rend[0]) * (size_t)r.nr);
			memcpy(r.rmask, b->rmask, sizeof(r.rmask[0]) * (size_t)r.nr);
			memcpy(r.rwho, b->rwho, sizeof(r.rwho[0]) * (size_t)r.nr);
			from = b->npending;
		}
	}
	if (!from) {
		run_work = map_profile(&m, cl, cl->scratch, idle0);
		if (b && !kept)
			map_keep_nodes(b, conf, job, cl, &m, idle0);
	}
	if (b && b->placed)
		map_keep_job(b, req, elig, nelig, shape->per_node, &m, est);
	kmask = req >= 0 && m.dense_of[req] >= 0 ? (uint32_t)1 << m.dense_of[req] : 0;
	bmask = 0;
	for (i = 0; i < nelig; i++)
		if ((d = m.dense_of[elig[i]]) >= 0) {
			bmask |= (uint32_t)1 << d;
			order[norder++] = d; /* the requested type first */
			bhold += m.hold[d];
		}
	if (cl->pending_more)
		m.cut = "when-faster, as when-blocked: more pending jobs ahead than the state keeps for the backfill map";
	else if (cl->npending > NODEOX_MAP_LIST)
		m.cut = "when-faster, as when-blocked: more pending jobs ahead than the backfill map walks (NODEOX_MAP_LIST)";
	/* the reservations of the jobs ahead, in priority order */
	if (!m.cut)
		map_reserve_ahead(&m, conf, cl, from, &r);
	/* kept for the next decision (not where reading the running jobs
	 * here made a bound's difference: the next would not count it) */
	if (b && b->placed && listed && (from < cl->npending || !b->pn) && !(run_work && m.cut)) {
		b->pn = m.n;
		memcpy(b->pt, m.t, sizeof(m.t[0]) * (size_t)m.n);
		memcpy(b->pfr, m.fr, MAP_ROWSZ(&m) * (size_t)m.n);
		b->work = m.work - run_work;
		b->cut = m.cut;
		for (k = from; k < cl->npending; k++)
			b->pending[k] = cl->pending[k];
		b->npending = cl->npending;
		b->nr = r.nr;
		memcpy(b->rend, r.rend, sizeof(r.rend[0]) * (size_t)r.nr);
		memcpy(b->rmask, r.rmask, sizeof(r.rmask[0]) * (size_t)r.nr);
		memcpy(b->rwho, r.rwho, sizeof(r.rwho[0]) * (size_t)r.nr);
	}
	for (i = 0; i < r.nr; i++) {
		const nodeox_pending_t *p = &cl->pending[r.rwho[i]];

		k = (size_t)r.rwho[i];
		est->map_reserved++;
		if (r.rmask[i] & kmask) {
			est->kept_ahead += p->gpus;
			est->kept_ahead_mask |= k < 64 ? (uint64_t)1 << k : 0;
		}
		if (r.rmask[i] & bmask) {
			est->broad_ahead += p->gpus;
			est->broad_ahead_mask |= k < 64 ? (uint64_t)1 << k : 0;
		}
	}
	est->broad_limit = map_broad_limit(conf, job, shape, req, elig, nelig, limit_s);
	/* the job itself: as asked, then broadened */
	if (!m.cut && kmask && m.hold[m.dense_of[req]] >= shape->nodes &&
	    (s = map_place(&m, kmask, order, norder, g, limit_s, take)) >= 0) {
		est->kept_start = m.t[s];
		est->kept_after = map_after(r.rend, r.rmask, r.rwho, r.nr, m.t[s], kmask);
		est->kept_backfill = m.t[s] == 0 && est->kept_ahead > 0;
	}
	if (!m.cut && bmask && bhold >= shape->nodes &&
	    (s = map_place(&m, bmask, order, norder, g, est->broad_limit, take)) >= 0) {
		est->broad_start = m.t[s];
		est->broad_after = map_after(r.rend, r.rmask, r.rwho, r.nr, m.t[s], bmask);
		est->broad_slowest = -1;
		est->broad_factor = 1.0;
		for (d = 0; d < m.nt; d++) {
			int t = m.conf_of[d];

			if (!take[d] || (est->broad_slowest >= 0 && shape->speed[t] >= shape->speed[est->broad_slowest]))
				continue;
			est->broad_slowest = t;
		}
		if (est->broad_slowest >= 0 && shape->speed[est->broad_slowest] < shape->speed[req])
			est->broad_factor = shape->speed[req] / shape->speed[est->broad_slowest];
	}
	est->horizon = m.t[m.n - 1];
	if (m.cut) {
		est->map_cut = true;
		est->map_cut_what = m.cut;
		est->kept_start = est->broad_start = -1;
	}
}
