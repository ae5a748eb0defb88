/*
 * sched_backfill.c: the backfill pass of the scheduler model: reservations
 * for jobs that cannot start now (running jobs released at their expected
 * ends in Slurm's will-run batches, rounded to bf_resolution on the wall
 * clock, resumable searches shared by identical requests), and the pass that
 * starts lower-priority jobs only where they delay no reservation (requests
 * the reservations stop are remembered for the rest of the pass).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sched_internal.h"

/* t rounded down to a multiple of res on the wall clock, where the trace's
 * second 0 is at org (mod res) on it. */
static int64_t sched_floor_res(int64_t t, int64_t res, int64_t org)
{
	int64_t w = t + org;
	int64_t f = (w >= 0 ? w / res : -((-w + res - 1) / res)) * res;
	return f - org;
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
static inline bool sched_same_request(const req_t *a, const req_t *b)
{
	return a->kind == b->kind && a->elig == b->elig && a->nodes == b->nodes && a->gpus_per_node == b->gpus_per_node &&
	       a->cpus_per_node == b->cpus_per_node && a->mem_per_node == b->mem_per_node && a->gpus == b->gpus &&
	       a->cpus_per_gpu == b->cpus_per_gpu && a->mem_per_gpu == b->mem_per_gpu &&
	       a->spread_mem_node == b->spread_mem_node;
}

/* Add what node n (class cl) now offers search srch's job to its fit state. */
static inline void sched_fit_node(search_t *srch, int n, int cl, int64_t before)
{
	const req_t *r = srch->req;
	int64_t after = sched_contrib(r, srch->nd[n].g, srch->nd[n].c, srch->nd[n].m);
	if (after > 0 && srch->nd[n].fstamp != srch->gen) {
		srch->nd[n].fstamp = srch->gen;
		srch->nd[n].fpos = srch->nfit;
		srch->fitlist[srch->nfit++] = n;
	} else if (after > 0 && srch->nd[n].fpos < srch->lo) {
		srch->lo = srch->nd[n].fpos;
	}
	if (after == before)
		return;
	if (r->elig->ngroups == 1) {
		srch->fit.have[0] += after - before;
		return;
	}
	for (int g = 0; g < r->elig->ngroups; g++)
		if (bits_test(r->elig->gbits[g], cl))
			srch->fit.have[g] += after - before;
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

/* Put the head h of class cl's list into a merge's heads[0..n) (room for
 * one more), kept from the last release to the first by (end, job, idx):
 * the walk takes heads[n - 1], and the next release of the same list
 * mostly goes back at the end after a comparison or two, instead of a look
 * at every list. Returns n + 1. */
static inline int sched_merge_insert(struct merge_head *heads, int n, const release_t *h, int cl)
{
	int at = n;
	while (at > 0 && release_before(heads[at - 1].h, h->end, h->job, h->idx)) {
		heads[at] = heads[at - 1];
		at--;
	}
	heads[at] = (struct merge_head){ h, cl };
	return n + 1;
}

/* Apply the release at h (class cl) to search srch's scratch and counts. */
static inline void sched_walk_apply(sched_t *s, search_t *srch, const release_t *h, int cl)
{
	int n = h->node;
	sched_scratch_load(s, srch, n);
	int64_t before = sched_contrib(srch->req, srch->nd[n].g, srch->nd[n].c, srch->nd[n].m);
	srch->nd[n].g += h->gpus;
	srch->nd[n].c += h->cpus;
	srch->nd[n].m += (int64_t)h->mem;
	sched_fit_node(srch, n, cl, before);
}

/* Search srch's walk when its job may use one class: that class's releases in
 * order (a job's allocations lie together) until the job fits after one of
 * them; returns that release's expected end, or -1 (none by horizon). With
 * extend, it goes on to horizon regardless, releasing at most *extend more
 * jobs, and returns the last expected end released (-1: none). */
#define SCHED_BATCH_APPLY 4

/* The last expected end at or before stop of a running job on the classes
 * e may use (-1: none). Identical requests ask for the same batch end
 * again and again: each class keeps its last answer while no job starts or
 * ends (srch_epoch). */
static int64_t sched_last_end_by(sched_t *s, const elig_t *e, int64_t stop)
{
	int64_t last = -1;
	for (int k = 0; k < e->nucls; k++) {
		struct last_end_memo *memo = &s->last_end_memo[e->ucls[k]];
		if (memo->epoch != s->srch_epoch || memo->stop != stop) {
			const rellist_t *l = &s->rel[e->ucls[k]];
			size_t at = sched_release_find(l, stop + 1, 0, 0);
			while (at > 0 && l->e[at - 1].dead)
				at--;
			*memo = (struct last_end_memo){ s->srch_epoch, stop, at > 0 ? l->e[at - 1].end : -1 };
		}
		last = MAX(last, memo->last);
	}
	return last;
}

/* How many releases ahead a walk asks for the node scratch it will touch:
 * the walk is bound by those random reads, not by its arithmetic. */
#define SCHED_WALK_PREFETCH 4

static int64_t sched_walk_one(sched_t *s, search_t *srch, int cl, int64_t horizon, int *extend)
{
	const rellist_t *l = &s->rel[cl];
	size_t p = srch->pos[cl];
	int64_t end = -1, when = -1;
	uint32_t job = 0;
	bool open = false;               /* a job's allocations are being applied */
	for (; p < l->n; p++) {
		const release_t *h = &l->e[p];
		if (p + SCHED_WALK_PREFETCH < l->n)   /* the scratch of a node a few releases on */
			__builtin_prefetch(&srch->nd[l->e[p + SCHED_WALK_PREFETCH].node]);
		if (h->dead)
			continue;
		if (!open || h->end != end || h->job != job) {
			if (open && !extend && sched_fit_done(srch->req, &srch->fit))
				break;
			if (h->end > horizon || (extend && (*extend)-- <= 0))
				break;      /* open: the last job released stays `end` */
			end = h->end;
			job = h->job;
			open = true;
			if (srch->first_end < 0)
				srch->first_end = end;
			s->run->releases_scanned++;
		}
		sched_walk_apply(s, srch, h, cl);
	}
	srch->pos[cl] = p;
	if (open && (extend || sched_fit_done(srch->req, &srch->fit)))
		when = end;
	return when;
}

/* The same over several classes: their lists merged by (end, job, idx), so
 * a job's allocations come together and in their own order. */
static int64_t sched_walk_merge(sched_t *s, search_t *srch, int64_t horizon, int *extend)
{
	const int *ucls = srch->req->elig->ucls;
	int nl = srch->req->elig->nucls, nh = 0;
	struct merge_head *heads = s->merge_heads;
	for (int k = 0; k < nl; k++) {
		const release_t *h = sched_release_live(s, srch->pos, ucls[k]);
		if (h)
			nh = sched_merge_insert(heads, nh, h, ucls[k]);
	}
	int64_t last = -1;
	while (nh && heads[nh - 1].h->end <= horizon && (!extend || (*extend)-- > 0)) {
		int64_t end = heads[nh - 1].h->end;
		uint32_t job = heads[nh - 1].h->job;
		if (srch->first_end < 0)
			srch->first_end = end;
		s->run->releases_scanned++;
		while (nh && heads[nh - 1].h->end == end && heads[nh - 1].h->job == job) {
			const release_t *h = heads[--nh].h;
			int cl = heads[nh].cl;
			const rellist_t *l = &s->rel[cl];
			if (srch->pos[cl] + SCHED_WALK_PREFETCH < l->n)
				__builtin_prefetch(&srch->nd[l->e[srch->pos[cl] + SCHED_WALK_PREFETCH].node]);
			srch->pos[cl]++;
			sched_walk_apply(s, srch, h, cl);
			const release_t *next = sched_release_live(s, srch->pos, cl);
			if (next)
				nh = sched_merge_insert(heads, nh, next, cl);
		}
		last = end;
		if (!extend && sched_fit_done(srch->req, &srch->fit))
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

/* A reservation of this pass holds node n from `when` on: Slurm takes a
 * reserved node out of the backfill map whole, from the reservation's
 * start, so a job that would still run then may not use even the node's
 * spare GPUs (backfill.c _add_reservation clears the node's bit in
 * avail_bitmap); the start-now test reads resv_start and the spare. */
static void sched_resv_hold(sched_t *s, int n, int64_t when)
{
	if (s->resv_stamp[n] != s->pass) {
		s->resv_stamp[n] = s->pass;
		s->resv_start[n] = when;
		s->resv_g[n] = s->resv_c[n] = s->resv_m[n] = 0;
		s->spare_g[n] = s->spare_c[n] = s->spare_m[n] = 0;
		return;
	}
	s->resv_start[n] = MIN(s->resv_start[n], when);
	s->spare_g[n] = MIN(s->spare_g[n], 0);
	s->spare_c[n] = MIN(s->spare_c[n], 0);
	s->spare_m[n] = MIN(s->spare_m[n], 0);
}

/* ------------------------------------------------ exact reservations */

/* Does a reservation made in this pass hold node n at some time in [a, b]
 * (its [start, end) meets the interval)? */
static bool sched_ivl_busy(const sched_t *s, int n, int64_t a, int64_t b)
{
	for (int i = s->ivl_head[n]; i >= 0; i = s->ivl[i].next)
		if (s->ivl[i].start <= b && s->ivl[i].end > a)
			return true;
	return false;
}

/* The first end of a reservation of this pass after t (SCHED_INF: none):
 * where Slurm's backfill tries a job again when the nodes free then might
 * let it start earlier (TRY_LATER). */
static int64_t sched_ivl_next_end(const sched_t *s, int64_t t)
{
	int64_t next = SCHED_INF;
	for (size_t i = 0; i < s->nivl; i++)
		if (s->ivl[i].end > t && s->ivl[i].end < next)
			next = s->ivl[i].end;
	return next;
}

/* What node n of the will-run scratch view gives request r (0 unless the
 * test looks at it), added to have[] of each group its class is in. */
static void sched_wr_count(const sched_t *s, const req_t *r, int n, int sign, int64_t *have)
{
	const elig_t *e = r->elig;
	int cl = s->c->nodes[n].cls;
	if (!s->wr_node[n] || !bits_test(e->bits, cl))
		return;
	int64_t v = sched_contrib(r, s->wr_g[n], s->wr_c[n], s->wr_m[n]) * sign;
	for (int g = 0; g < e->ngroups; g++)
		if (bits_test(e->gbits[g], cl))
			have[g] += v;
}

/* Does request r fit, given what each group's nodes give (have[])? */
static bool sched_wr_fits(const req_t *r, const int64_t *have)
{
	int64_t need = r->nodes ? r->nodes : r->gpus;
	for (int g = 0; g < r->elig->ngroups; g++)
		if (have[g] >= need)
			return true;
	return false;
}

/* Slurm's will-run test (select/cons_common _will_run_test, 22.05) on the
 * nodes in s->wr_node: the job's start if it fits now (s->now), else the end
 * of the last job of the first batch of releases it fits after, -1 if none;
 * leaves the scratch view as of then. The batches: every running job of
 * the cluster in expected-end order; those on none of the nodes are
 * skipped, but the peek that ends a batch looks at the next job whatever
 * its nodes, so after a release followed by another job's end within the
 * window the next usable job goes too, however late it ends. The first
 * usable release sets the window's base (its end rounded up to the next
 * 30 s of the wall clock, a whole 30 s past one on the grid); a batch ends
 * when the next job ends past base plus the window, and the window then
 * doubles until it covers that job. */
static int64_t sched_will_run(sched_t *s, const req_t *r)
{
	const sim_cluster_t *c = s->c;
	int64_t have[SIM_MAX_TERMS] = { 0 };
	for (int n = 0; n < c->nnodes; n++) {
		s->wr_g[n] = s->free_g[n];
		s->wr_c[n] = s->free_c[n];
		s->wr_m[n] = s->free_m[n];
		sched_wr_count(s, r, n, 1, have);
	}
	if (sched_wr_fits(r, have))
		return s->now;
	const rellist_t *l = &s->all;
	int64_t org = s->o->params.bf_origin_s, base = -1, window = 30;
	size_t i = 0;
	bool more = true;
	while (more) {
		const release_t *last = NULL, *next = NULL;
		for (;;) {
			if (i >= l->n) {
				more = false;
				break;
			}
			const release_t *h = &l->e[i++];
			const running_t *run = s->running[h->job];
			bool usable = false;
			for (int k = 0; k < run->na && !usable; k++)
				usable = s->wr_node[run->a[k].node];
			if (!usable)
				continue;
			if (base < 0)
				base = h->end + (30 - ((h->end + org) % 30 + 30) % 30);
			last = h;
			for (int k = 0; k < run->na; k++) {
				const alloc_t *a = &run->a[k];
				sched_wr_count(s, r, a->node, -1, have);
				s->wr_g[a->node] += a->gpus;
				s->wr_c[a->node] += a->cpus;
				s->wr_m[a->node] += (int64_t)a->mem;
				sched_wr_count(s, r, a->node, 1, have);
			}
			s->run->releases_scanned++;
			next = i < l->n ? &l->e[i] : NULL;
			if (!next) {
				more = false;
				break;
			}
			if (next->end > base + window)
				break;
		}
		if (!last)
			break;
		do
			window *= 2;
		while (next && next->end > base + window);
		if (sched_wr_fits(r, have))
			return last->end > s->now ? last->end : s->now + 1;
	}
	return -1;
}

/* The nodes a reservation for r takes in the scratch view: as select/
 * cons_tres picks them (sched_runs_choose) for a per-node job, the first
 * that can give GPUs for a spreading one. Fills s->abuf; returns the count. */
static int sched_wr_place(sched_t *s, const req_t *r)
{
	const sim_cluster_t *c = s->c;
	const elig_t *e = r->elig;
	for (int g = 0; g < e->ngroups; g++) {
		int nl = 0, found = 0;
		int64_t rem = r->gpus;
		for (int n = 0; n < c->nnodes; n++) {
			if (!s->wr_node[n] || !bits_test(e->gbits[g], c->nodes[n].cls))
				continue;
			if (r->nodes) {
				if (sched_node_fits(r, s->wr_g[n], s->wr_c[n], s->wr_m[n])) {
					s->run_node[nl] = n;
					s->run_cpu[nl] = s->wr_c[n];
					s->run_weight[nl++] = sched_run_weight(c->nodes[n].weight,
									       r->gpus_per_node);
				}
				continue;
			}
			int64_t take = MIN(sched_spread_take(r, s->wr_g[n], s->wr_c[n], s->wr_m[n]), rem);
			if (take <= 0 || rem == 0)
				continue;
			s->abuf[found++] = sched_spread_alloc(r, n, c->nodes[n].cls, take);
			rem -= take;
		}
		if (r->nodes) {
			int na = sched_runs_choose(s, r, nl);
			if (na)
				return na;
		} else if (rem == 0) {
			return found;
		}
	}
	return 0;
}

/* Job j's reservation on a small cluster, as Slurm's backfill makes it
 * (backfill.c, _attempt_backfill; 22.05): from start_res = now, the nodes it
 * may look at are those of its partitions and constraint that no
 * reservation of this pass holds at any time in [start_res, start_res +
 * limit] (the backfill map's slices); the will-run test on them gives a
 * start; if that is after the next end of a reservation, or the nodes it
 * would take are reserved during [start, end), it tries again from there
 * (TRY_LATER). The reservation holds the nodes whole from its start rounded
 * down to bf_resolution until its end rounded down (at least one
 * bf_resolution); after that they are free again for later jobs. Returns
 * the reservation's start, or SCHED_INF. */
static int64_t sched_reserve_exact(sched_t *s, uint32_t j)
{
	const sim_cluster_t *c = s->c;
	const req_t *r = &s->req[j];
	const elig_t *e = r->elig;
	if (s->ivl_pass != s->pass) {
		s->nivl = 0;
		s->ivl_pass = s->pass;
		for (int n = 0; n < c->nnodes; n++)
			s->ivl_head[n] = -1;
	}
	int64_t res = s->o->params.bf_resolution_s, org = s->o->params.bf_origin_s;
	int64_t horizon = s->now + s->o->params.bf_window_min * 60;
	int64_t first = sched_floor_res(s->now, res, org);
	int64_t start_res = s->now;
	for (int tries = 0; tries < 4 * SCHED_EXACT_NODES && start_res <= horizon; tries++) {
		int64_t end_time = r->plan == SCHED_INF ? horizon : start_res + r->plan;
		int64_t later = sched_ivl_next_end(s, start_res);
		for (int n = 0; n < c->nnodes; n++)
			s->wr_node[n] = c->nodes[n].usable && bits_test(e->wbits, c->nodes[n].cls) &&
					!sched_ivl_busy(s, n, start_res, end_time);
		int64_t when = sched_will_run(s, r);
		if (when < 0) {
			if (later == SCHED_INF)
				break;
			start_res = later;
			continue;
		}
		int64_t start = MAX(when, start_res);
		if (later != SCHED_INF && start > later) {
			start_res = later;
			continue;
		}
		if (start > horizon)
			break;
		int na = sched_wr_place(s, r);
		if (!na)
			break;
		int64_t sr = MAX(sched_floor_res(start, res, org), first);
		int64_t er = r->plan == SCHED_INF ? horizon : sched_floor_res(start + r->plan, res, org);
		if (er < sr + res)
			er = sr + res;
		bool overlap = false;
		for (int i = 0; i < na && !overlap; i++)
			overlap = sched_ivl_busy(s, s->abuf[i].node, sr, er - 1);
		if (overlap && start > start_res) {
			start_res = start;
			continue;
		}
		if (overlap)
			break;
		for (int i = 0; i < na; i++) {
			int n = s->abuf[i].node;
			if (s->nivl == s->capivl) {
				s->capivl = s->capivl ? 2 * s->capivl : 64;
				s->ivl = g_renew(struct resv_ivl, s->ivl, s->capivl);
			}
			s->ivl[s->nivl] = (struct resv_ivl){ n, s->ivl_head[n], sr, er };
			s->ivl_head[n] = (int)s->nivl++;
			sched_resv_hold(s, n, sr);
		}
		s->nresv++;
		s->run->reservations++;
		return sr;
	}
	return SCHED_INF;
}

/* The live search for a request identical to r, or a new one. */
static search_t *sched_search_get(sched_t *s, const req_t *r, bool *resumed)
{
	for (int k = 0; k < s->nsrch; k++)
		if (s->srch[k].epoch == s->srch_epoch && sched_same_request(s->srch[k].req, r)) {
			*resumed = true;
			return &s->srch[k];
		}
	search_t *srch;
	if (s->nsrch > 0 && s->srch[0].epoch != s->srch_epoch)
		s->nsrch = 0;                /* all from an earlier epoch: start over */
	if (s->nsrch < SCHED_MAX_SEARCH) {
		srch = &s->srch[s->nsrch++];
	} else {
		srch = &s->srch[s->srch_evict];
		s->srch_evict = (s->srch_evict + 1) % SCHED_MAX_SEARCH;
	}
	srch->req = r;
	srch->epoch = s->srch_epoch;
	srch->gen = ++s->test;
	srch->none = false;
	srch->first_end = -1;
	srch->nfit = 0;
	srch->lo = 0;
	memset(&srch->fit, 0, sizeof(srch->fit));
	*resumed = false;
	return srch;
}

/* A reservation took alloc a: every live search that has looked at its node
 * sees that much less there from now on (its fit counts follow). */
static void sched_search_reserved(sched_t *s, const alloc_t *a)
{
	int n = a->node;
	for (int k = 0; k < s->nsrch; k++) {
		search_t *srch = &s->srch[k];
		if (srch->epoch != s->srch_epoch || srch->nd[n].stamp != srch->gen)
			continue;
		int64_t before = sched_contrib(srch->req, srch->nd[n].g, srch->nd[n].c, srch->nd[n].m);
		srch->nd[n].g -= a->gpus;
		srch->nd[n].c -= a->cpus;
		srch->nd[n].m -= (int64_t)a->mem;
		sched_fit_node(srch, n, a->cls, before);
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
	if (s->exact)
		return sched_reserve_exact(s, j);
	const req_t *r = &s->req[j];
	const elig_t *e = r->elig;
	bool resumed;
	search_t *srch = sched_search_get(s, r, &resumed);
	s->cur = srch;
	if (resumed) {
		if (srch->none)
			return SCHED_INF;        /* the same found nothing within bf_window */
	} else {
		srch->when = s->now;
		for (int k = 0; k < e->nucls; k++)
			srch->pos[e->ucls[k]] = 0;
		/* Nodes with fewer free GPUs than the job needs per node (or none,
		 * for a spreading job) cannot count now: start above those buckets. */
		int kmin = r->nodes ? (int)r->gpus_per_node : (r->gpus ? 1 : 0);
		for (int w = 0; w < (int)s->nwords; w++)
			for (uint64_t b = e->bits[w]; b; b &= b - 1) {
				int cl = w * 64 + __builtin_ctzll(b);
				int kmax = sched_class_gpus(s, cl);
				for (int k = kmin; k <= kmax; k++) {
					int nb;
					const int *bn = sched_bucket(s, cl, k, &nb);
					for (int q = 0; q < nb; q++) {
						sched_scratch_load(s, srch, bn[q]);
						sched_fit_node(srch, bn[q], cl, 0);
					}
				}
			}
	}
	int64_t horizon = s->now + s->o->params.bf_window_min * 60;
	if (!sched_fit_done(r, &srch->fit)) {
		/* release running jobs in expected-end order until the job fits */
		int64_t when = e->nucls == 1 ? sched_walk_one(s, srch, e->ucls[0], horizon, NULL)
					     : sched_walk_merge(s, srch, horizon, NULL);
		if (when < 0) {
			srch->none = true;          /* not within bf_window: no reservation */
			return SCHED_INF;
		}
		/* The rest of Slurm's batch goes too; its last expected end is the
		 * start. The scratch view takes in at most SCHED_BATCH_APPLY more
		 * jobs of it (the nodes the reservation may choose from; all of it
		 * on small clusters), the start time is exact. */
		int64_t stop = MIN(sched_batch_end(s, srch->first_end, when), horizon);
		int budget = SCHED_BATCH_APPLY;
		int64_t more = e->nucls == 1 ? sched_walk_one(s, srch, e->ucls[0], stop, &budget)
					     : sched_walk_merge(s, srch, stop, &budget);
		when = MAX(when, more);
		if (budget < 0)          /* stopped short of stop: look the batch's end up */
			when = MAX(when, sched_last_end_by(s, e, stop));
		srch->when = when;
	}
	/* Slurm rounds the reservation's start down to bf_resolution on the
	 * wall clock (backfill.c: start_time / backfill_resolution *
	 * backfill_resolution), not before the pass's own rounded start. */
	int64_t res = s->o->params.bf_resolution_s, org = s->o->params.bf_origin_s;
	int64_t when = sched_floor_res(srch->when, res, org), first = sched_floor_res(s->now, res, org);
	when = MAX(when, first);
	int na = sched_place(s, r, AV_SCRATCH, 0);
	for (int i = 0; i < na; i++) {
		const alloc_t *a = &s->abuf[i];
		int n = a->node;
		sched_resv_hold(s, n, when);
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

static void bits_or(uint64_t *a, const uint64_t *b, size_t nwords)
{
	for (size_t w = 0; w < nwords; w++)
		a[w] |= b[w];
}

/* Reserve, in priority order, for the waiting jobs that could hold nodes the
 * candidate k might take: those sharing a class with it, closed under
 * holding a class that a selected job looks at: its own classes, or on
 * small clusters (exact mode) every class its will-run test looks at
 * (wbits: a reservation there takes nodes out of that test, which changes
 * which running jobs' ends count and so the selected job's start). The rest
 * share no node with any of them, so leaving them for later changes no
 * reservation. As soon as a reservation
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
			bits_or(touch, s->exact ? d->wbits : d->bits, s->nwords);
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
		bits_or(defbits, s->req[deferred[q]].elig->bits, s->nwords);
	}
	g_free(sel);
	g_free(touch);
	return keep;
}

/* The slot of requests identical to r (sched_same_request) in s->blocked. */
static struct blocked_slot *sched_blocked_slot(sched_t *s, const req_t *r)
{
	return &s->blocked[r->kind & (SCHED_BLOCKED_SLOTS - 1)];
}

/* Does a request identical to job j's, planned to end no later, already
 * fail to start in this pass (on the free nodes, or beside its
 * reservations)? Within a pass what a job may use now only shrinks (jobs
 * start, reservations are added, none ends), and a later end meets more
 * reservations, so j cannot start either: the queue's many identical jobs
 * are told so without placing each. */
static bool sched_blocked_known(sched_t *s, uint32_t j)
{
	const req_t *r = &s->req[j];
	const struct blocked_slot *b = sched_blocked_slot(s, r);
	return b->pass == s->pass && sched_same_request(b->req, r) && sched_plan_end(s, r) >= b->end;
}

/* Job j failed to start with plan end `end` (INT64_MIN: on the free nodes
 * alone, whatever its end). */
static void sched_blocked_note(sched_t *s, uint32_t j, int64_t end)
{
	const req_t *r = &s->req[j];
	struct blocked_slot *b = sched_blocked_slot(s, r);
	if (b->pass == s->pass && sched_same_request(b->req, r))
		b->end = MIN(b->end, end);
	else
		*b = (struct blocked_slot){ r, end, s->pass };
}

/* Can job j start now without delaying a reservation of the jobs before it
 * (computed here as far as j needs them, as the pass below does)? Nodes in
 * s->abuf, or 0. For a record Slurm tests for a start now only: it is not
 * deferred and notes nothing. */
static int sched_backfill_now(sched_t *s, uint32_t j, uint32_t *deferred, int *ndef,
			      uint64_t *defbits)
{
	int na = sched_fit_now(s, j, false);
	if (!na)
		return 0;
	bool blocked = s->nresv && !(na = sched_fit_now(s, j, true));
	if (!blocked && *ndef && bits_meet(defbits, s->req[j].elig->bits, s->nwords)) {
		*ndef = sched_reserve_deferred(s, j, deferred, *ndef, defbits);
		blocked = s->nresv && !(na = sched_fit_now(s, j, true));
	}
	return blocked ? 0 : na;
}

int sched_backfill_pass(sched_t *s)
{
	int started = 0;
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
	sched_order_begin(s, &it);
	for (int tested = 0; tested < max_test; tested++) {
		int64_t j = sched_order_next(s, &it);
		if (j < 0)
			break;
		if (sched_prefer_swap(s, (uint32_t)j)) {
			/* the prefer record: a start now only (sched_prefer.c) */
			int na = sched_backfill_now(s, (uint32_t)j, deferred, &ndef, defbits);
			sched_prefer_swap(s, (uint32_t)j);
			if (na) {
				sched_start(s, (uint32_t)j, na);
				started++;
				continue;
			}
		}
		const elig_t *e = s->req[j].elig;
		int na = 0;
		bool known = sched_blocked_known(s, (uint32_t)j);
		if (known || !(na = sched_fit_now(s, (uint32_t)j, false))) {
			if (!known)
				sched_blocked_note(s, (uint32_t)j, INT64_MIN);
			deferred[ndef++] = (uint32_t)j;
			bits_or(defbits, e->bits, s->nwords);
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
			sched_blocked_note(s, (uint32_t)j, sched_plan_end(s, &s->req[j]));
			deferred[ndef++] = (uint32_t)j;
			bits_or(defbits, e->bits, s->nwords);
			continue;
		}
		sched_start(s, (uint32_t)j, na);
		started++;
	}
	sched_order_end(s);
	g_free(deferred);
	g_free(defbits);
	s->in_backfill = false;
	return started;
}

