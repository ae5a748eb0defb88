/*
 * policy_estimate.c: Broaden=when-faster's two finishes (nodeox_estimate_make).
 *
 * From the cluster state the caller hands over (nodeox_cluster_t: free GPUs
 * per node, running jobs' GPUs per node with their expected ends, sorted, and
 * the GPUs pending jobs ahead want per type), it finds the first time the job
 * fits on its requested type ("kept") and on all its eligible types
 * ("broadened"), walking the running jobs' expected ends in order as GPUs
 * come back, and adds the time limit: as asked when kept, scaled by the speed
 * of the slowest type that could serve it then when broadened.
 *
 * The model, and what it leaves out (doc/nodeox.conf.5, WhenFasterMargin):
 * pending jobs ahead take GPUs of their type first, in the order they come
 * back (an untyped or already broadened one takes GPUs of any type), so
 * their demand is paid from the free GPUs before the job can count them;
 * where they want more than all running jobs give back, the side's GPUs are
 * taken to keep coming back at the rate they did (est_extrapolate);
 * the one backfill case modelled is the job as asked fitting now in a hole
 * (est_hole): on idle GPUs of its type, with its limit ending before the
 * jobs ahead could take them; otherwise backfill letting a job pass ahead of
 * others, reservations, CPUs and memory are not modelled; running jobs end
 * at their limits (most end sooner).
 *
 * Both walks run together over one pass of the running jobs and stop as soon
 * as the comparison is decided. Work in all: two passes over the nodes (the
 * set-up, and est_slowest once the broadened side fits) and at most two over
 * the running jobs (that walk, and est_hole's when the job as asked fits
 * idle GPUs now); the per-node state lives in cl->scratch. For `nodeox why`
 * it also says what decided each side (est_by: at most NODEOX_ESTIMATE_BY_SCAN
 * holdings looked at again per side).
 */
#include <math.h>
#include <string.h>

#include "policy/policy_internal.h"

/* Reverse a[0..n). */
static void est_reverse(nodeox_running_t *a, size_t n)
{
	for (size_t i = 0, j = n; i + 1 < j; i++, j--) {
		nodeox_running_t x = a[i];

		a[i] = a[j - 1];
		a[j - 1] = x;
	}
}

/*
 * Merge the sorted runs a[0..m) and a[m..n) in place, stably, without a
 * buffer (libstdc++'s __merge_without_buffer): cut the longer run at its
 * middle, find where that entry goes in the other (the first entry not
 * before it when cutting the left run, the first after it when cutting the
 * right, so equal ends keep their order), rotate the two middle pieces
 * (three reversals) and merge the two halves so made. O(n log n) moves,
 * recursion depth O(log n).
 */
static void est_merge(nodeox_running_t *a, size_t m, size_t n)
{
	size_t cut1, cut2, lo, hi;

	if (!m || m == n)
		return;
	if (n == 2) {
		if (a[1].end < a[0].end)
			est_reverse(a, 2);
		return;
	}
	if (m > n - m) {
		cut1 = m / 2;
		for (lo = m, hi = n; lo < hi;) { /* first in a[m..n) not before a[cut1] */
			size_t mid = lo + (hi - lo) / 2;

			if (a[mid].end < a[cut1].end)
				lo = mid + 1;
			else
				hi = mid;
		}
		cut2 = lo;
	} else {
		cut2 = m + (n - m) / 2;
		for (lo = 0, hi = m; lo < hi;) { /* first in a[0..m) after a[cut2] */
			size_t mid = lo + (hi - lo) / 2;

			if (a[mid].end <= a[cut2].end)
				lo = mid + 1;
			else
				hi = mid;
		}
		cut1 = lo;
	}
	/* a[cut1..m) a[m..cut2) -> a[m..cut2) a[cut1..m) */
	est_reverse(a + cut1, m - cut1);
	est_reverse(a + m, cut2 - m);
	est_reverse(a + cut1, cut2 - cut1);
	est_merge(a, cut1, cut1 + (cut2 - m));
	est_merge(a + cut1 + (cut2 - m), m - cut1, n - cut1 - (cut2 - m));
}

/* Without scratch: a bottom-up merge sort merging in place, stable, so the
 * order among equal ends is the one the radix sort gives, whatever qsort
 * the C library has (glibc's is a merge sort only while it can allocate). */
static void est_sort_in_place(nodeox_running_t *a, size_t n)
{
	for (size_t w = 1; w < n; w *= 2)
		for (size_t lo = 0; lo + w < n; lo += 2 * w)
			est_merge(a + lo, w, n - lo < 2 * w ? n - lo : 2 * w);
}

/* A holding's sort key: its end less the smallest end, as unsigned (two's
 * complement: exact for any pair of int64 ends). */
#define EST_KEY(r, min) ((uint64_t)(r)->end - (uint64_t)(min))

/*
 * Stable by end, ascending. With tmp (n entries): an LSD radix sort on the
 * end less the smallest end, one byte a pass, over only as many bytes as the
 * ends' range needs (two for ends within 18 hours of each other, three
 * within 194 days) and skipping a byte that every key shares: one pass to
 * find the range (returning at once when already sorted), one to count
 * every byte's values, one scatter per byte that varies. Being stable, it
 * leaves equal ends in the order given. Without tmp (the feeders' fallback
 * when their allocation fails): est_sort_in_place, as stable, so the order,
 * and with it the decision, is the same either way.
 */
void nodeox_running_sort(nodeox_running_t *running, size_t n, nodeox_running_t *tmp)
{
	size_t count[8][256], i, pos, c;
	nodeox_running_t *src = running, *dst = tmp, *swap;
	int64_t min, max;
	uint64_t range;
	bool sorted = true;
	int nbytes, d;

	if (!running || n < 2)
		return;
	min = max = running[0].end;
	for (i = 1; i < n; i++) {
		int64_t e = running[i].end;

		sorted = sorted && e >= running[i - 1].end;
		min = e < min ? e : min;
		max = e > max ? e : max;
	}
	if (sorted)
		return;
	if (!tmp) {
		est_sort_in_place(running, n);
		return;
	}
	range = (uint64_t)max - (uint64_t)min;
	for (nbytes = 1; nbytes < 8 && range >> (8 * nbytes); nbytes++)
		;
	memset(count, 0, sizeof(count[0]) * (size_t)nbytes);
	for (i = 0; i < n; i++) {
		uint64_t key = EST_KEY(&running[i], min);

		for (d = 0; d < nbytes; d++)
			count[d][(key >> (8 * d)) & 0xff]++;
	}
	for (d = 0; d < nbytes; d++) {
		int shift = 8 * d;

		/* a byte every key shares leaves the order as it is */
		if (count[d][(EST_KEY(&src[0], min) >> shift) & 0xff] == n)
			continue;
		for (c = 0, pos = 0; c < 256; c++) {
			size_t k = count[d][c];

			count[d][c] = pos;
			pos += k;
		}
		for (i = 0; i < n; i++)
			dst[count[d][(EST_KEY(&src[i], min) >> shift) & 0xff]++] = src[i];
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != running)
		memcpy(running, src, n * sizeof(*running));
}

void nodeox_demand_add(nodeox_demand_t *d, uint64_t gpus, uint32_t priority, uint32_t id)
{
	if (!gpus)
		return;
	if (!d->gpus || priority > d->first_prio || (priority == d->first_prio && id < d->first_id)) {
		d->first = gpus;
		d->first_prio = priority;
		d->first_id = id;
	}
	d->gpus = gpus > UINT64_MAX - d->gpus ? UINT64_MAX : d->gpus + gpus;
}

/* One side of the comparison: free GPUs on its nodes and how they fit. */
typedef struct {
	uint32_t *free;                   /* per node, every EST_STRIDE entries
					     (nodes not on this side stay 0) */
	uint64_t debt[NODEOX_MAX_TYPES];  /* demand ahead for each type not yet paid */
	uint64_t debt_any;                /* untyped demand ahead: paid from any type */
	uint64_t fit;                     /* nodes with at least shape->per_node free */
	uint64_t sum;                     /* free GPUs over this side's nodes */
	uint64_t sum_t[NODEOX_MAX_TYPES]; /* sum, per type */
	uint64_t given[NODEOX_MAX_TYPES]; /* GPUs of each type it was given: idle
					     * ones and those coming back */
	int64_t start;                    /* when it fits, -1 until then */
	uint64_t can_hold;                /* nodes big enough for shape->per_node at all */
} est_side_t;

#define EST_NONE 0xffffffffu /* scratch class: the node serves neither side */

/* The scratch per node, side by side so that the walk over the running jobs
 * reads one cache line a holding: kept's free GPUs, broadened's, the node's
 * class (its eligible type, or EST_NONE) and its GPUs in all. */
#define EST_STRIDE 4
#define EST_KEPT 0
#define EST_BROAD 1
#define EST_CLASS 2
#define EST_TOTAL 3
#define EST_AT(p, i) ((p)[EST_STRIDE * (size_t)(i)])

/* Node i, of type t and `total` GPUs, gets `gpus` GPUs back (or starts with
 * them): pay the side's demand ahead for that type first, then its untyped
 * demand, then count what is left, never more than the node has (a feeder's
 * state may hold more, e.g. a job's GPUs spread evenly over its nodes). */
static inline __attribute__((always_inline)) void est_give(est_side_t *sd, const nodeox_shape_t *shape,
							   size_t i, int t, uint64_t gpus, uint32_t total)
{
	uint64_t old = EST_AT(sd->free, i), now, pay;

	sd->given[t] += gpus;
	if (sd->debt[t] | sd->debt_any) {
		pay = gpus < sd->debt[t] ? gpus : sd->debt[t];
		sd->debt[t] -= pay;
		gpus -= pay;
		pay = gpus < sd->debt_any ? gpus : sd->debt_any;
		sd->debt_any -= pay;
		gpus -= pay;
	}
	now = old + gpus;
	if (now > total)
		now = total;
	EST_AT(sd->free, i) = (uint32_t)now;
	sd->sum += now - old;
	sd->sum_t[t] += now - old;
	if (old < shape->per_node && now >= shape->per_node)
		sd->fit++;
}

static bool est_fits(const est_side_t *sd, const nodeox_shape_t *shape)
{
	return sd->fit >= shape->nodes && sd->sum > 0 && (!shape->total || sd->sum >= shape->total);
}

/* The GPUs the jobs ahead want, per type of the side (types[0..ntypes)) and
 * untyped; demand for other types is not this side's. */
static void est_demand(const nodeox_conf_t *conf, const nodeox_cluster_t *cl, const int *types, int ntypes,
		       est_side_t *sd, uint64_t *mask, uint64_t *want)
{
	size_t i;
	int k;

	for (i = 0; i < cl->nahead; i++) {
		const nodeox_demand_t *d = &cl->ahead[i];
		uint64_t *to = NULL;

		if (!d->type || !*d->type)
			to = &sd->debt_any;
		for (k = 0; k < ntypes && !to; k++)
			if (nodeox_util_eq(d->type, strlen(d->type), conf->types[types[k]].name))
				to = &sd->debt[types[k]];
		if (!to)
			continue;
		*to = d->gpus > UINT64_MAX - *to ? UINT64_MAX : *to + d->gpus;
		*want = d->gpus > UINT64_MAX - *want ? UINT64_MAX : *want + d->gpus;
		if (i < 64)
			*mask |= (uint64_t)1 << i;
	}
}

/*
 * The running jobs that decided a side starting at `start` (> 0 only: a side
 * that fits now waits for none): from the holding at which it fitted, back
 * over those ending at the same time, the ones on the side's nodes (kept:
 * class req; broadened: any eligible class), at most NODEOX_ESTIMATE_BY of
 * them within NODEOX_ESTIMATE_BY_SCAN holdings.
 */
static int est_by(const nodeox_cluster_t *cl, const uint32_t *cls, size_t at, int64_t start, int req,
		  uint32_t *by)
{
	size_t j, seen = 0;
	int n = 0;

	if (start <= 0 || at >= cl->nrunning)
		return 0;
	for (j = at + 1; j-- > 0 && seen < NODEOX_ESTIMATE_BY_SCAN && n < NODEOX_ESTIMATE_BY; seen++) {
		const nodeox_running_t *r = &cl->running[j];
		uint32_t c;

		if ((r->end > 0 ? r->end : 0) != start)
			break;
		if (r->node >= cl->nnodes || !r->gpus || (c = EST_AT(cls, r->node)) == EST_NONE ||
		    (req >= 0 && c != (uint32_t)req))
			continue;
		by[n++] = (uint32_t)j;
	}
	return n;
}

/* The last running job ending at start (> 0), for est_by; SIZE_MAX if none
 * does (the map's start after a reservation, or at a rounded end). */
static size_t est_last_at(const nodeox_cluster_t *cl, int64_t start)
{
	size_t lo = 0, hi = cl->nrunning;

	while (lo < hi) { /* first ending after start */
		size_t mid = lo + (hi - lo) / 2;

		if (cl->running[mid].end <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && cl->running[lo - 1].end == start ? lo - 1 : SIZE_MAX;
}

/* The slowest type among the broadened side's nodes that could take the job
 * now (its speed as the factor's denominator). */
static int est_slowest(const nodeox_conf_t *conf, const nodeox_cluster_t *cl, const uint32_t *cls,
		       const est_side_t *b, const nodeox_shape_t *shape)
{
	int slow = -1;
	size_t i;

	for (i = 0; i < cl->nnodes; i++) {
		if (EST_AT(cls, i) == EST_NONE || EST_AT(b->free, i) < shape->per_node || !EST_AT(b->free, i))
			continue;
		if (slow < 0 || shape->speed[EST_AT(cls, i)] < shape->speed[slow])
			slow = (int)EST_AT(cls, i);
	}
	return slow;
}

/* No finish is later than this: a Speed= ratio (Speed= takes up to 1e300)
 * or a running job's end far out would not fit an int64_t otherwise. */
#define EST_FOREVER (INT64_MAX / 4)

/* t plus limit_s seconds scaled by factor (>= 1), rounded up, saturating at
 * EST_FOREVER, as decide_time caps the scaled limit it writes. */
static int64_t est_finish(int64_t t, int64_t limit_s, double factor)
{
	double f = ceil((double)limit_s * factor - 1e-9);

	if (!(f < (double)EST_FOREVER) || t >= EST_FOREVER - (int64_t)f)
		return EST_FOREVER;
	return t + (int64_t)f;
}

/* The broadened side fits at t: the slowest type it could land on sets the
 * factor on its time limit. */
static void est_broad_found(const nodeox_conf_t *conf, const nodeox_cluster_t *cl, const uint32_t *cls,
			    const est_side_t *b, const nodeox_shape_t *shape, int req, int64_t t,
			    int64_t limit_s, nodeox_estimate_t *est)
{
	int slow = est_slowest(conf, cl, cls, b, shape);

	est->broad_slowest = slow;
	est->broad_factor = 1.0;
	if (slow >= 0 && shape->speed[slow] < shape->speed[req])
		est->broad_factor = shape->speed[req] / shape->speed[slow];
	est->broad_finish = est_finish(t, limit_s, est->broad_factor);
}

/*
 * A side that the running jobs known do not free enough for (the jobs ahead
 * want more): each of its types is taken to keep giving GPUs back at the rate
 * it did so far (given over horizon seconds), first to the demand ahead for
 * that type, and the job starts once what is left over all its types covers
 * its need and the untyped demand (found by bisection: the cover grows with
 * time). -1 when nothing came back to measure a rate by, or when fewer
 * nodes than the job needs could ever hold its per-node count.
 */
static int64_t est_extrapolate(const est_side_t *sd, const nodeox_shape_t *shape, const int *types,
			       int ntypes, int64_t horizon)
{
	uint64_t all = nodeox_mul_sat(shape->nodes, shape->per_node);
	double need = (double)(shape->total > all ? shape->total : all), lo = 0, hi = 1e9, any = 0;
	int it, k;

	need += (double)sd->debt_any;
	for (k = 0; k < ntypes; k++)
		any += (double)sd->given[types[k]];
	if (horizon <= 0 || any <= 0 || sd->can_hold < shape->nodes)
		return -1;
	for (it = 0; it < 48 && hi - lo > 0.5; it++) {
		double mid = (lo + hi) / 2, cover = 0;

		for (k = 0; k < ntypes; k++) {
			int t = types[k];
			double c = (double)sd->sum_t[t] - (double)sd->debt[t] +
				   (double)sd->given[t] * mid / (double)horizon;

			cover += c > 0 ? c : 0;
		}
		if (cover >= need)
			hi = mid;
		else
			lo = mid;
	}
	return hi >= 1e9 ? -1 : est_finish(horizon, (int64_t)ceil(hi), 1.0);
}

/*
 * Backfill's hole for the job as asked, which fits now on the idle GPUs of
 * its type but not after the demand ahead is paid: Slurm's backfill starts it
 * at once if it ends before any job ahead could start on those GPUs
 * (src/plugins/sched/backfill/backfill.c: a job may start early only where
 * it delays no reservation). The jobs ahead of that type (or untyped) cannot
 * start before the GPUs of the type given back reach what the first of them
 * wants (the job backfill reserves for first, nodeox_demand_t.first): walk
 * the running jobs' ends up to limit_s to find that time. A first that the
 * idle GPUs would already cover waits behind a reservation of its own, not
 * for GPUs, so it does not end the hole. Returns true when the jobs ahead
 * could start within limit_s (no hole for the job). Bounded by one pass
 * over the running jobs.
 */
static bool est_hole(const nodeox_conf_t *conf, const nodeox_cluster_t *cl, const uint32_t *cls, int req,
		     uint64_t idle, int64_t limit_s)
{
	uint64_t dmin = UINT64_MAX, given = idle;
	size_t i;

	for (i = 0; i < cl->nahead; i++) {
		const nodeox_demand_t *d = &cl->ahead[i];
		uint64_t one = d->first && d->first < d->gpus ? d->first : d->gpus;

		if (one > idle && one < dmin &&
		    (!d->type || !*d->type ||
		     nodeox_util_eq(d->type, strlen(d->type), conf->types[req].name)))
			dmin = one;
	}
	for (i = 0; i < cl->nrunning && dmin != UINT64_MAX; i++) {
		const nodeox_running_t *r = &cl->running[i];
		int64_t t = r->end > 0 ? r->end : 0;

		if (t >= limit_s)
			return false;
		if (r->node < cl->nnodes && EST_AT(cls, r->node) == (uint32_t)req)
			given += r->gpus;
		if (given >= dmin && (i + 1 == cl->nrunning || cl->running[i + 1].end > r->end))
			return true;
	}
	return false;
}

/*
 * When the walk can stop: once kept is known, a broadened start after
 * (1 - margin)(kept finish) - limit cannot win even on the fastest type;
 * once broadened is known, a kept start after broadened finish / (1 - margin)
 * - limit cannot stop it from winning. Integer seconds, rounded so as to
 * walk on rather than stop early.
 */
static int64_t est_stop(const est_side_t *k, const est_side_t *b, const nodeox_estimate_t *est, double m,
			int64_t limit_s)
{
	double s = 9e18;

	if (k->start >= 0 && b->start < 0)
		s = floor((1.0 - m) * (double)(k->start + limit_s)) - (double)limit_s + 1;
	else if (b->start >= 0 && k->start < 0)
		s = ceil((double)est->broad_finish / (1.0 - m)) - (double)limit_s;
	return s >= 9e18 ? INT64_MAX : (int64_t)s;
}

static void est_choose(const nodeox_conf_t *conf, nodeox_estimate_t *est, const nodeox_shape_t *shape, int req,
		       const int *elig, int nelig, double m);

void nodeox_estimate_make(const nodeox_conf_t *conf, const nodeox_job_t *job, const nodeox_cluster_t *cl,
			  int req, const int *elig, int nelig, const nodeox_shape_t *shape, int64_t limit_s,
			  nodeox_estimate_t *est)
{
	est_side_t k = { .start = -1 }, b = { .start = -1 };
	nodeox_type_memo_t memo = { .n = 0 };
	const char *last_parts = NULL;
	bool last_in = false;
	int64_t stop = INT64_MAX;
	double m = conf->when_faster_margin;
	uint32_t *cls, *tot;
	const nodeox_running_t *run = cl ? cl->running : NULL;
	size_t n = cl ? cl->nrunning : 0;
	int64_t horizon = 0;
	bool k_given = false, b_given = false, k_open, b_open;
	size_t nn = cl ? cl->nnodes : 0;
	uint64_t idle_fit = 0, idle_sum = 0;        /* the requested type's idle GPUs, demand ahead unpaid */
	size_t i, k_at = SIZE_MAX, b_at = SIZE_MAX; /* the holdings at which each side fitted */
	uint64_t k_idle = 0, k_held = 0, b_idle = 0, b_held = 0; /* for est's, in locals as below */

	memset(est, 0, sizeof(*est));
	est->kept_start = est->kept_finish = est->broad_start = est->broad_finish = -1;
	est->broad_factor = 1.0;
	est->broad_slowest = -1;
	if (!cl || !cl->scratch || cl->state_cut || !shape->per_node || !shape->nodes)
		return;
	est->made = true;
	if (cl->map) {
		nodeox_map_make(conf, job, cl, req, elig, nelig, shape, limit_s, est);
		if (est->map_cut) {
			est->made = false;
			return;
		}
		k.start = est->kept_start;
		b.start = est->broad_start;
		cls = cl->scratch + EST_CLASS;
		if (k.start > 0)
			k_at = est_last_at(cl, k.start);
		if (b.start > 0)
			b_at = est_last_at(cl, b.start);
		est->broad_finish = b.start >= 0 ? est_finish(b.start, limit_s, est->broad_factor) : -1;
		goto done;
	}
	k.free = cl->scratch + EST_KEPT;
	b.free = cl->scratch + EST_BROAD;
	cls = cl->scratch + EST_CLASS;
	tot = cl->scratch + EST_TOTAL;
	est_demand(conf, cl, &req, 1, &k, &est->kept_ahead_mask, &est->kept_ahead);
	est_demand(conf, cl, elig, nelig, &b, &est->broad_ahead_mask, &est->broad_ahead);
	for (i = 0; i < cl->nnodes; i++) {
		const nodeox_node_t *nd = &cl->nodes[i];
		int t = -1;

		EST_AT(k.free, i) = EST_AT(b.free, i) = 0;
		EST_AT(tot, i) = nd->gpus_total;
		EST_AT(cls, i) = EST_NONE;
		if (!nd->usable)
			continue;
		/* nodes of one partition share its name (and in the plugin its
		 * pointer): test the partitions again only when they change */
		if (!last_parts || (nd->partitions != last_parts &&
				    strcmp(nd->partitions ? nd->partitions : "", last_parts))) {
			last_parts = nd->partitions ? nd->partitions : "";
			last_in = nodeox_node_in_parts(nd, job->partition);
		}
		if (!last_in || (t = nodeox_node_type(conf, nd, elig, nelig, &memo)) < 0)
			continue;
		EST_AT(cls, i) = (uint32_t)t;
		{
			uint32_t idle = nd->gpus_idle < nd->gpus_total ? nd->gpus_idle : nd->gpus_total;

			if (t == req) {
				k_idle += idle;
				k_held += nd->gpus_total - idle;
			}
			b_idle += idle;
			b_held += nd->gpus_total - idle;
		}
		if (nd->gpus_total >= shape->per_node) {
			k.can_hold += t == req;
			b.can_hold++;
		}
		if (nd->gpus_idle) {
			if (t == req) {
				idle_fit += nd->gpus_idle >= shape->per_node;
				idle_sum += nd->gpus_idle < nd->gpus_total ? nd->gpus_idle : nd->gpus_total;
				est_give(&k, shape, i, t, nd->gpus_idle, nd->gpus_total);
			}
			est_give(&b, shape, i, t, nd->gpus_idle, nd->gpus_total);
		}
	}
	est->kept_idle = k_idle;
	est->kept_held = k_held;
	est->broad_idle = b_idle;
	est->broad_held = b_held;
	if (est_fits(&k, shape))
		k.start = 0;
	else if (idle_sum && idle_fit >= shape->nodes && (!shape->total || idle_sum >= shape->total)) {
		if (!est_hole(conf, cl, cls, req, k.given[req], limit_s)) {
			k.start = 0;
			est->kept_backfill = true;
		}
	}
	if (est_fits(&b, shape)) {
		b.start = 0;
		est_broad_found(conf, cl, cls, &b, shape, req, 0, limit_s, est);
	}
	stop = est_stop(&k, &b, est, m, limit_s);
	/* the walk's state in locals: the sides' counts are written through
	 * pointers of their own type, which would make the compiler read
	 * anything of that type back from memory on every holding */
	k_open = k.start < 0;
	b_open = b.start < 0;
	for (i = 0; i < n && (k_open || b_open); i++) {
		const nodeox_running_t *r = &run[i];
		int64_t t = r->end > 0 ? r->end : 0;
		uint32_t node = r->node, c;

		/* decided already? kept cannot be beaten once even the fastest
		 * broadened finish from now on misses the margin; broadened
		 * wins once kept could not finish in time any more */
		horizon = t;
		if (t > stop)
			break;
		if (node < nn && (c = EST_AT(cls, node)) != EST_NONE && r->gpus) {
			if (c == (uint32_t)req && k_open) {
				est_give(&k, shape, node, req, r->gpus, EST_AT(tot, node));
				k_given = true;
			}
			if (b_open) {
				est_give(&b, shape, node, (int)c, r->gpus, EST_AT(tot, node));
				b_given = true;
			}
		}
		/* all the GPUs coming back at t count before the fit is tested,
		 * and only a side given some since it last did not fit can fit */
		if (i + 1 < n && run[i + 1].end <= t)
			continue;
		if (k_given && est_fits(&k, shape)) {
			k.start = t;
			k_at = i;
			k_open = false;
			stop = est_stop(&k, &b, est, m, limit_s);
		}
		if (b_given && est_fits(&b, shape)) {
			b.start = t;
			b_at = i;
			b_open = false;
			est_broad_found(conf, cl, cls, &b, shape, req, t, limit_s, est);
			stop = est_stop(&k, &b, est, m, limit_s);
		}
		k_given = b_given = false;
	}
	est->horizon = horizon;
	if (i == n && (k.start < 0 || b.start < 0)) {
		if (k.start < 0)
			k.start = est_extrapolate(&k, shape, &req, 1, est->horizon);
		if (b.start < 0 && (b.start = est_extrapolate(&b, shape, elig, nelig, est->horizon)) >= 0) {
			est_broad_found(conf, cl, cls, &b, shape, req, b.start, limit_s, est);
			est->broad_slowest = -1; /* where it lands is beyond what is known: */
			est->broad_factor = 1.0; /* the slowest eligible type's factor */
			for (i = 0; i < (size_t)nelig; i++)
				if (shape->speed[elig[i]] * est->broad_factor < shape->speed[req]) {
					est->broad_factor = shape->speed[req] / shape->speed[elig[i]];
					est->broad_slowest = elig[i];
				}
			est->broad_finish = est_finish(b.start, limit_s, est->broad_factor);
		}
		est->extrapolated = true;
	}
done:
	est->nkept_by = est_by(cl, cls, k_at, k.start, req, est->kept_by);
	est->nbroad_by = est_by(cl, cls, b_at, b.start, -1, est->broad_by);
	est->kept_start = k.start;
	est->kept_finish = k.start >= 0 ? est_finish(k.start, limit_s, 1.0) : -1;
	est->broad_start = b.start;
	if (b.start < 0)
		est->broad_finish = -1;
	est_choose(conf, est, shape, req, elig, nelig, m);
}

/* The choice, whichever estimate made the starts (this file's or the
 * backfill map's): broaden when only the broadened side fits, or it
 * finishes sooner by the margin. When no eligible type is slower than the
 * one asked for (no run time to lose, no limit scaled):
 *   - with running jobs' ends from their users' history (RunTimeHistory=yes,
 *     the default), broaden only when the broadened finish is sooner by more
 *     than backfill's resolution (NODEOX_MAP_RESOLUTION): on a tie the job
 *     gains nothing, and the other type's GPUs it would take go to the jobs
 *     behind it that asked for that type (bigahead's real replays with
 *     history: 8 l40s jobs per run broadened onto a100 at an estimated tie,
 *     and untagged jobs waited 24.7% longer than without the plugin);
 *   - with every end at its limit (RunTimeHistory=no), as soon is enough: a
 *     tie broadens, for the job then starts on whichever type frees first,
 *     and running jobs mostly end before the limits the estimate counts
 *     (keeping ties without history was tried on real replays and did worse
 *     for tagged jobs on all three traces: admin guide, Broaden=when-faster).
 * Neither side fitting: kept, nothing says broadening is sooner. */
static void est_choose(const nodeox_conf_t *conf, nodeox_estimate_t *est, const nodeox_shape_t *shape, int req,
		       const int *elig, int nelig, double m)
{
	bool slower = false;
	int i;

	for (i = 0; i < nelig; i++)
		slower = slower || shape->speed[elig[i]] < shape->speed[req];
	if (!slower && conf->run_time_history) {
		est->broaden = est->broad_start >= 0 &&
			       (est->kept_start < 0 || est->broad_finish + NODEOX_MAP_RESOLUTION < est->kept_finish);
		est->tie_kept = !est->broaden && est->broad_start >= 0 && est->kept_start >= 0 &&
				est->broad_finish < est->kept_finish;
	}
	else if (!slower)
		est->broaden = est->broad_start >= 0 &&
			       (est->kept_start < 0 || est->broad_finish <= est->kept_finish);
	else
		est->broaden =
			est->broad_start >= 0 &&
			(est->kept_start < 0 || (est->broad_finish < est->kept_finish &&
					 (double)est->broad_finish <= (1.0 - m) * (double)est->kept_finish));
}
