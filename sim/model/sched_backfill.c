/*
 * sched_backfill.c: the backfill pass of the scheduler model: reservations
 * for jobs that cannot start now (running jobs released at their expected
 * ends in Slurm's will-run batches, on the nodes no earlier reservation of
 * the pass holds then, rounded to bf_resolution on the wall clock), and the
 * pass, which picks the lower-priority jobs that delay no reservation for
 * the run to start (sched_backfill_next; requests the reservations stop are
 * remembered for the rest of the pass). A
 * per-node request's will-run test (one constraint group) is answered from
 * an index of the releases by node (sched_wr_fast_fit: per node the position
 * after which it fits, counts over positions); the walk (sched_will_run)
 * answers the rest, with the same answers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/free_all.h"
#include "sim/model/sched_internal.h"

/* ------------------------------------------------------------ state */

#define SCHED_BLOCKED_SLOTS 64 /* requests remembered as stopped per pass (a power of 2) */
#define SCHED_WR_SLOTS 4096    /* will-run answers' hash slots (a power of 2) */
#define SCHED_WR_ANSWERS 4096  /* will-run answers kept per epoch at most */
#define SCHED_WR_SHAPES 16     /* request shapes indexed per epoch (sched_wr_fast_fit) */
#define SCHED_WR_SEEK 64       /* entries sched_wr_seek looks at before the index */
/* Slurm's YEAR_SECONDS (slurm_protocol_defs.h): from 25.05.6, 25.11.1 and
 * 26.05 the will-run window stops doubling once it is past it
 * (_future_run_test: `if (time_window > YEAR_SECONDS) break;`), so it grows
 * to 30 s x 2^21 at most */
#define SCHED_WR_YEAR (365 * 86400)
#define SCHED_WR_YEAR_MAX (30 * (INT64_C(1) << 21))

typedef struct { /* one remembered will-run answer (of the epoch */
	/* sched_bf_t.wr_memo_epoch: every one before wr_memo_n) */
	uint64_t hash;    /* of the request's kind and the node set */
	const req_t *req; /* a request of the shape asked (sched_same_request) */
	int64_t when;     /* its answer, or while !exact a lower bound of it */
	uint64_t scanned; /* releases up to its fit (for releases_scanned) */
	bool exact;       /* when is the answer (sched_wr_memo_exact) */
	bool placed;      /* na and a hold sched_wr_place's answer */
	bool indexed;     /* answered by sched_wr_fast_fit: its scratch */
	int fit;          /* indexed: the position the need is met at */
	int upto;         /* view is the releases at positions <= upto */
	int na, acap;     /* a holds na of room for acap */
	alloc_t *a;
} wr_memo_t;

typedef struct { /* a release on one node, for the index below */
	int pos; /* the entry's position in sched_t.all */
	uint32_t gpus, cpus;
	uint64_t mem;
} wr_item_t;

typedef struct { /* one per-node request shape's nodes by the */
	/* position in sched_t.all after which they fit */
	uint64_t epoch; /* valid while == sched_bf_t.wr_epoch */
	uint32_t gpus_per_node, cpus_per_node;
	uint64_t mem_per_node;
	const uint64_t *bnodes; /* the nodes it may count (its elig's) */
	int32_t *fit;           /* per node of bnodes: that position, -1 now, */
	/* INT32_MAX never */
	uint64_t *rows; /* row i (nnwords words, i = 0 up to the 64-position */
	/* blocks used): the nodes of bnodes with fit < 64 i */
	uint64_t *set;      /* the nodes counted (nnwords words) */
	int32_t *cnt, *blk; /* nodes of set per position, per 64 positions */
	uint64_t *nz;       /* the positions whose cnt is not 0 (a bitmap) */
	int now, later;     /* nodes of set that fit now, and from some position */
} wr_shape_t;

typedef struct { /* running jobs' releases by node, rebuilt per */
	/* wr_epoch (sched_wr_fast_fit) */
	uint64_t epoch;
	int n, cap, icap; /* entries indexed (sched_t.all.n), room */
	int *off;         /* per node: where its releases start in item */
	wr_item_t *item;  /* per node, by position */
	int *ipos;        /* per item: its position times 2, plus 1 when the */
	/* entry has no other node (sched_wr_index_sync) */
	int *hits;     /* per position: its allocations on nodes of set */
	uint64_t *use; /* positions with hits > 0 (a bitmap) */
	int nuse;      /* how many */
	uint64_t *set; /* the nodes hits counts (nnwords words) */
	wr_shape_t shape[SCHED_WR_SHAPES];
	int next_shape;
	int hint; /* the shape last looked up */
} wr_index_t;

/* Backfill's own state: the pass's reservations, the will-run test's
 * scratch, its remembered answers and their index, the requests the pass
 * saw stopped, and the per-user and per-partition test counts. */
struct sched_bf {
	uint32_t pass;          /* the current (last) pass */
	sched_resv_t resv;      /* its reservations as placement reads them */
	struct resv_ivl {       /* this pass's reservations, node by node */
		int node, next; /* next: the node's previous one, -1 none */
		int64_t start, end;
	} * ivl;
	int *ivl_head; /* per node: its last reservation, -1 none */
	/* per node, its reservations that follow each other without a gap
	 * joined in one span; the spans by (start, node) and by (end, node),
	 * for sched_wr_nodes_advance; in span_by_end, gap is the time from a
	 * span's end to the start of the node's next one (INT32_MAX where
	 * there is none or it is farther: sched_wr_unhold) */
	struct resv_so {
		int64_t start, end;
		int node;
		int32_t gap;
	} * span_by_start, *span_by_end;
	size_t nspan;
	int64_t *ends; /* the reservations' ends, ascending, */
	size_t nends;  /* each once (where a try comes next) */
	/* the nodes a reservation's first try (from now) finds held, carried
	 * from one reservation to the next: those with a span starting by
	 * first_until (every span of the pass ends after now), the xor of
	 * their node_key, and per node its first span's start (INT64_MAX) */
	uint64_t *first_held, first_hash;
	int64_t first_until, *first_start;
	size_t nivl, capivl;
	uint32_t ivl_pass; /* the pass ivl belongs to */
	int nresv;
	uint64_t *wr_bits;           /* nodes a will-run test looks at (nnwords words) */
	uint64_t wr_hash;            /* the xor of their node_key (sched_wr_memo) */
	uint64_t *node_key;          /* per node: a fixed pseudo-random word */
	bool wr_changed;             /* sched_wr_hold changed them (sched_reserve) */
	uint64_t *wr_cnt;            /* those of them the job may use */
	uint32_t *wr_stamp, wr_call; /* wr_g/c/m[n] hold this test's view when */
	/* wr_stamp[n] == wr_call (sched_wr_load) */
	uint64_t wr_epoch;      /* bumped when a job starts or ends, and per pass */
	struct wr_slot {        /* SCHED_WR_SLOTS, allocated on first use: */
		uint32_t epoch; /* the answer last put in the slot, valid */
		uint32_t at;    /* while epoch == (uint32_t)wr_epoch */
	} * wr_slot;
	wr_memo_t *wr_memo;      /* this epoch's answers, in the order asked */
	uint64_t *wr_memo_nodes; /* per answer, the nodes its test looked at */
	/* (nnwords words each, at a place known from the answer's) */
	uint32_t wr_memo_n, wr_memo_cap; /* answers of wr_memo_epoch, room */
	uint64_t wr_memo_epoch;
	int64_t *wr_g, *wr_c, *wr_m; /* its scratch view of free resources */
	int wr_last;                 /* the walk's answer: the position in */
	/* sched_t.all of the release it took the start from */
	uint32_t *sel_stamp, sel_call; /* a reservation's nodes (sched_wr_relevant) */
	wr_index_t wx;                 /* releases by node, for sched_wr_fast_fit */
	struct blocked_slot {          /* requests that failed to start in this pass */
		const req_t *req;      /* (see sched_blocked_known), hashed by request */
		int64_t end;           /* the earliest planned end seen stopped */
				       /* (INT64_MIN: on the free nodes alone) */
		uint32_t pass;         /* valid while == pass */
	} blocked[SCHED_BLOCKED_SLOTS];
	int *uid, nusers;           /* per job: its user, numbered from 0 */
	struct bf_walk {            /* the pass under way (sched_backfill_next) */
		prio_iter_t it;     /* where it is in the priority order */
		uint32_t *deferred; /* the jobs it could not start, to reserve */
		int ndef;
		uint64_t *defbits; /* the classes they may use */
		int tested, max_test;
		bool limits; /* some bf_max_job_user/part limit is set */
	} walk;
	struct bf_count {      /* a pass's jobs tested per user, partition, */
		uint32_t pass; /* user and partition (valid while pass */
		int n;         /* == sched_bf_t.pass) */
	} * bf_user, *bf_part, *bf_user_part;
};

/* Run body for each bit n set in the words word (an expression of w_, the
 * word's index) of nw words, ascending. */
#define SCHED_FOR_WORD_BITS(word, nw, n, body)                                \
	for (size_t w_ = 0; w_ < (nw); w_++)                                  \
		for (uint64_t m_ = (word); m_; m_ &= m_ - 1) {                \
			int n = (int)(w_ * 64 + (size_t)__builtin_ctzll(m_)); \
			body;                                                 \
		}
/* ... for each node n in bitmap b; in a or b but not both (n's bit differs) */
#define SCHED_FOR_BITS(b, nw, n, body) SCHED_FOR_WORD_BITS((b)[w_], nw, n, body)
#define SCHED_FOR_BITS_XOR(a, b, nw, n, body) SCHED_FOR_WORD_BITS((a)[w_] ^ (b)[w_], nw, n, body)

/* t rounded down to a multiple of res on the wall clock, where the trace's
 * second 0 is at org (mod res) on it. */
static int64_t sched_floor_res(int64_t t, int64_t res, int64_t org)
{
	int64_t w = t + org;
	int64_t f = (w >= 0 ? w / res : -((-w + res - 1) / res)) * res;
	return f - org;
}

/* Do two requests need the same resources on the same nodes? */
static inline bool sched_same_request(const req_t *a, const req_t *b)
{
	return a->kind == b->kind && a->elig == b->elig && a->nodes == b->nodes &&
	       a->gpus_per_node == b->gpus_per_node && a->cpus_per_node == b->cpus_per_node &&
	       a->mem_per_node == b->mem_per_node && a->gpus == b->gpus &&
	       a->cpus_per_gpu == b->cpus_per_gpu && a->mem_per_gpu == b->mem_per_gpu &&
	       a->spread_mem_node == b->spread_mem_node;
}

/* A reservation of this pass holds node n from `when` on: Slurm takes a
 * reserved node out of the backfill map whole, from the reservation's
 * start, so a job that would still run then may not use even the node's
 * spare GPUs (backfill.c _add_reservation clears the node's bit in
 * avail_bitmap); the start-now test reads resv.start and the spare. */
static void sched_resv_hold(sched_t *s, int n, int64_t when)
{
	sched_bf_t *b = s->bf;
	if (b->resv.stamp[n] != b->pass) {
		b->resv.stamp[n] = b->pass;
		b->resv.start[n] = when;
		b->resv.spare_g[n] = b->resv.spare_c[n] = b->resv.spare_m[n] = 0;
		return;
	}
	b->resv.start[n] = MIN(b->resv.start[n], when);
	b->resv.spare_g[n] = MIN(b->resv.spare_g[n], 0);
	b->resv.spare_c[n] = MIN(b->resv.spare_c[n], 0);
	b->resv.spare_m[n] = MIN(b->resv.spare_m[n], 0);
}

/* Does a reservation made in this pass hold node n at some time in [a, b]
 * (its [start, end) meets the interval)? */
static bool sched_ivl_busy(const sched_t *s, int n, int64_t a, int64_t b)
{
	const struct resv_ivl *ivl = s->bf->ivl;
	for (int i = s->bf->ivl_head[n]; i >= 0; i = ivl[i].next)
		if (ivl[i].start <= b && ivl[i].end > a)
			return true;
	return false;
}

static void sched_wr_nodes_done(sched_t *s, const elig_t *e)
{
	sched_bf_t *b = s->bf;
	for (size_t w = 0; w < s->nnwords; w++)
		b->wr_cnt[w] = b->wr_bits[w] & e->bnodes[w];
}

/* Node n into (in) or out of the node set bits whose node_key xor is
 * *hash; whether that changed the set. */
static inline bool sched_nodes_put(const sched_bf_t *b, uint64_t *bits, uint64_t *hash, int n, bool in)
{
	uint64_t bit = 1ull << (n & 63);
	if (in == ((bits[n >> 6] & bit) != 0))
		return false;
	bits[n >> 6] ^= bit;
	*hash ^= b->node_key[n];
	return true;
}

/* A span on node n meets the try's interval: n leaves the test's nodes
 * (if it is there: they are among e->wnodes). */
static inline void sched_wr_hold(sched_t *s, int n)
{
	sched_bf_t *b = s->bf;
	b->wr_changed |= sched_nodes_put(b, b->wr_bits, &b->wr_hash, n, false);
}

/* Node n's span sp ended by the try's start (start_res): n is in the
 * test's nodes (if the test looks at it) when the node's next span starts
 * after the try's end_time. A node's spans neither meet nor touch, so the
 * next one is the first that could meet the interval; where it ended by
 * the start too, its own call comes later (the spans by end) and decides.
 * A saturated gap says only that the next span, if any, starts at least
 * INT32_MAX after sp: where the try ends later still (a limit of decades,
 * or such a bf_window), the node's reservations say. */
static inline void sched_wr_unhold(sched_t *s, const elig_t *e, const struct resv_so *sp, int64_t start_res,
				   int64_t end_time)
{
	sched_bf_t *b = s->bf;
	if (!bits_test(e->wnodes, sp->node))
		return;
	bool in = sp->end + sp->gap > end_time ||
		  (sp->gap == INT32_MAX && !sched_ivl_busy(s, sp->node, start_res, end_time));
	b->wr_changed |= sched_nodes_put(b, b->wr_bits, &b->wr_hash, sp->node, in);
}

/* How many of the n spans in so (by_start: ordered by start, else by end)
 * start (end) before (key, node) in that order; node -1: by t = key
 * alone, those starting (ending) by t. */
static size_t sched_span_count(const struct resv_so *so, size_t n, bool by_start, int64_t key, int node)
{
	/* branch-free: the spans' order is unpredictable to the branch unit */
	const struct resv_so *base = so;
	while (n > 0) {
		size_t half = n / 2;
		const struct resv_so *m = &base[half];
		int64_t k = by_start ? m->start : m->end;
		bool before = node < 0 ? k <= key : k < key || (k == key && m->node < node);
		base = before ? m + 1 : base;
		n = before ? n - half - 1 : half;
	}
	return (size_t)(base - so);
}

/* How many distinct reservation ends of the pass are at or before t. */
static size_t sched_ends_count(const sched_bf_t *b, int64_t t)
{
	const int64_t *base = b->ends;
	size_t n = b->nends;
	while (n > 0) {
		size_t half = n / 2;
		bool before = base[half] <= t;
		base = before ? base + half + 1 : base;
		n = before ? n - half - 1 : half;
	}
	return (size_t)(base - b->ends);
}

/* Where span (key, node) is in so, ordered by start (by_start) or end. */
static size_t sched_span_find(const sched_bf_t *b, bool by_start, int64_t key, int node)
{
	return sched_span_count(by_start ? b->span_by_start : b->span_by_end, b->nspan, by_start, key, node);
}

/* Move so's entry at i to where (key, node) goes in its order (one shift
 * of the entries in between, not a removal and an insertion), with the
 * span's new start and end. */
static void sched_span_move(sched_bf_t *b, bool by_start, size_t i, struct resv_so sp)
{
	struct resv_so *so = by_start ? b->span_by_start : b->span_by_end;
	int64_t key = by_start ? sp.start : sp.end;
	size_t at = sched_span_count(so, b->nspan, by_start, key, sp.node);
	if (at > i) { /* after i's removal, one place earlier */
		at--;
		memmove(&so[i], &so[i + 1], (at - i) * sizeof(struct resv_so));
	} else {
		memmove(&so[at + 1], &so[at], (i - at) * sizeof(struct resv_so));
	}
	so[at] = sp;
}

/* The first tries' held nodes for a try ending at end_time: the nodes of
 * the spans starting between the last such time and this one join, or
 * leave where the node has no span starting by end_time. Returns the
 * spans starting by end_time. */
static size_t sched_first_until(sched_bf_t *b, int64_t end_time)
{
	const struct resv_so *so = b->span_by_start;
	size_t was = sched_span_count(so, b->nspan, true, b->first_until, -1);
	size_t now = sched_span_count(so, b->nspan, true, end_time, -1);
	for (size_t k = was; k < now; k++)
		sched_nodes_put(b, b->first_held, &b->first_hash, so[k].node, true);
	for (size_t k = now; k < was; k++)
		sched_nodes_put(b, b->first_held, &b->first_hash, so[k].node,
				b->first_start[so[k].node] <= end_time);
	b->first_until = end_time;
	return now;
}

/* Insert the span sp into, or (add false) remove it from, both orders. */
static void sched_span_update(sched_bf_t *b, struct resv_so sp, bool add)
{
	struct resv_so *so[2] = { b->span_by_start, b->span_by_end };
	for (int k = 0; k < 2; k++) {
		size_t at = sched_span_count(so[k], b->nspan, k == 0, k == 0 ? sp.start : sp.end, sp.node);
		if (add) {
			memmove(&so[k][at + 1], &so[k][at], (b->nspan - at) * sizeof(struct resv_so));
			so[k][at] = sp;
		} else {
			memmove(&so[k][at], &so[k][at + 1], (b->nspan - at - 1) * sizeof(struct resv_so));
		}
	}
	b->nspan += add ? 1 : -1;
}

/* A reservation holds node n during [sr, er): its span joins those of the
 * node's reservations ending at sr and starting at er, if any (a will-run
 * test's interval meets the joined span where it meets one of them), and
 * er is a reservation end. */
static void sched_span_add(sched_bf_t *b, int n, int64_t sr, int64_t er)
{
	int64_t ls = sr, re = er;
	for (bool more = true; more;) {
		more = false;
		for (int i = b->ivl_head[n]; i >= 0; i = b->ivl[i].next) {
			if (b->ivl[i].end == ls && b->ivl[i].start < ls) {
				ls = b->ivl[i].start;
				more = true;
			}
			if (b->ivl[i].start == re && b->ivl[i].end > re) {
				re = b->ivl[i].end;
				more = true;
			}
		}
	}
	/* the end of the node's span before the joined one, the start of
	 * the one after */
	int64_t pe = INT64_MIN, ns = INT64_MAX;
	for (int i = b->ivl_head[n]; i >= 0; i = b->ivl[i].next) {
		if (b->ivl[i].end < ls)
			pe = MAX(pe, b->ivl[i].end);
		if (b->ivl[i].start > re)
			ns = MIN(ns, b->ivl[i].start);
	}
	struct resv_so sp = { ls, re, n, (int32_t)MIN(ns - re, INT32_MAX) };
	if (ls < sr && re > er) /* joining both: the left one grows over the right one */
		sched_span_update(b, (struct resv_so){ er, re, n, 0 }, false);
	if (ls < sr) { /* same start, later end */
		b->span_by_start[sched_span_find(b, true, ls, n)].end = re;
		sched_span_move(b, false, sched_span_find(b, false, sr, n), sp);
	} else if (re > er) { /* earlier start, same end */
		b->span_by_end[sched_span_find(b, false, re, n)].start = ls;
		sched_span_move(b, true, sched_span_find(b, true, er, n), sp);
	} else {
		sched_span_update(b, sp, true);
	}
	b->first_start[n] = MIN(b->first_start[n], sr);
	if (sr <= b->first_until)
		sched_nodes_put(b, b->first_held, &b->first_hash, n, true);
	if (ls == sr && pe != INT64_MIN) /* the span before now ends sr - pe before it */
		b->span_by_end[sched_span_find(b, false, pe, n)].gap = (int32_t)MIN(sr - pe, INT32_MAX);
	size_t at = sched_ends_count(b, er);
	if (at == 0 || b->ends[at - 1] != er) {
		memmove(&b->ends[at + 1], &b->ends[at], (b->nends - at) * sizeof(int64_t));
		b->ends[at] = er;
		b->nends++;
	}
}

/* Where a reservation's tries are in the pass's spans and ends: ps spans
 * start by the try's end_time, pe end by its start_res, as do pl ends. */
typedef struct {
	size_t ps, pe, pl;
} wr_cursor_t;

/* A reservation's next try, from a later start_res (and end_time no
 * earlier): instead of sched_wr_nodes again, the spans that begin to meet
 * the interval (start in (old end_time, end_time], end after start_res)
 * hold their nodes, and the spans that end in (old start_res, start_res]
 * give theirs back unless the node's next span meets it. */
static void sched_wr_nodes_advance(sched_t *s, const elig_t *e, int64_t start_res, int64_t end_time,
				   wr_cursor_t *cu)
{
	sched_bf_t *b = s->bf;
	for (; cu->ps < b->nspan && b->span_by_start[cu->ps].start <= end_time; cu->ps++)
		if (b->span_by_start[cu->ps].end > start_res)
			sched_wr_hold(s, b->span_by_start[cu->ps].node);
	for (; cu->pe < b->nspan && b->span_by_end[cu->pe].end <= start_res; cu->pe++)
		sched_wr_unhold(s, e, &b->span_by_end[cu->pe], start_res, end_time);
	while (cu->pl < b->nends && b->ends[cu->pl] <= start_res)
		cu->pl++;
	if (b->wr_changed) /* else wr_cnt is still wr_bits' */
		sched_wr_nodes_done(s, e);
}

/* The nodes a reservation's first try for e looks at, from now until
 * end_time (s->bf->wr_bits): the usable nodes of its partitions and
 * constraint that no reservation of this pass holds at any time in
 * between. Also sets up sched_wr_nodes_advance for its later tries. */
static void sched_wr_nodes(sched_t *s, elig_t *e, int64_t end_time, wr_cursor_t *cu)
{
	sched_bf_t *b = s->bf;
	const sim_cluster_t *c = s->c;
	size_t bytes = s->nnwords * sizeof(uint64_t);
	if (!e->wnodes) {
		e->wnodes = g_malloc0(bytes);
		e->bnodes = g_malloc0(bytes);
		for (int n = 0; n < c->nnodes; n++) {
			if (c->nodes[n].usable && bits_test(e->wbits, c->nodes[n].cls))
				e->wnodes[n >> 6] |= 1ull << (n & 63);
			if (bits_test(e->bits, c->nodes[n].cls))
				e->bnodes[n >> 6] |= 1ull << (n & 63);
		}
		SCHED_FOR_BITS(e->wnodes, s->nnwords, n, e->whash ^= b->node_key[n]);
	}
	/* from now: every span of the pass ends after it, so the nodes held
	 * are those with a span starting by end_time */
	cu->ps = sched_first_until(b, end_time);
	uint64_t outside = 0;
	for (size_t w = 0; w < s->nnwords; w++) {
		b->wr_bits[w] = e->wnodes[w] & ~b->first_held[w];
		outside |= b->first_held[w] & ~e->wnodes[w];
	}
	b->wr_hash = e->whash ^ b->first_hash;
	if (outside) /* held nodes the test does not look at: not in whash */
		SCHED_FOR_WORD_BITS(b->first_held[w_] & ~e->wnodes[w_], s->nnwords, n,
				    b->wr_hash ^= b->node_key[n]);
	/* every span and reservation end of the pass is after now */
	cu->pe = cu->pl = 0;
	sched_wr_nodes_done(s, e);
}

/* What node n of the will-run scratch view gives request r (0 unless the
 * test looks at it), added to have[] of each group its class is in. */
static void sched_wr_count(const sched_t *s, const req_t *r, int n, int sign, int64_t *have)
{
	const sched_bf_t *b = s->bf;
	const elig_t *e = r->elig;
	if (!bits_test(b->wr_cnt, n))
		return;
	int64_t v = sched_contrib(r, b->wr_g[n], b->wr_c[n], b->wr_m[n]) * sign;
	if (e->ngroups == 1) {
		have[0] += v;
		return;
	}
	int cl = s->c->nodes[n].cls;
	for (int g = 0; g < e->ngroups; g++)
		if (bits_test(e->gbits[g], cl))
			have[g] += v;
}

/* Node n's scratch for the current will-run test: loaded with its free
 * resources on first use. */
static inline void sched_wr_load(sched_t *s, int n)
{
	sched_bf_t *b = s->bf;
	if (b->wr_stamp[n] == b->wr_call)
		return;
	b->wr_stamp[n] = b->wr_call;
	b->wr_g[n] = s->free_g[n];
	b->wr_c[n] = s->free_c[n];
	b->wr_m[n] = s->free_m[n];
}

/* Release g GPUs, cpu CPUs and m memory on node n into the will-run scratch
 * view, where the test counts n for r (s->bf->wr_cnt; the placement reads no
 * other node's scratch). */
static inline void sched_wr_release(sched_t *s, const req_t *r, int n, uint32_t g, uint32_t cpu, uint64_t m,
				    int64_t *have)
{
	sched_bf_t *b = s->bf;
	if (!bits_test(b->wr_cnt, n))
		return;
	sched_wr_load(s, n);
	sched_wr_count(s, r, n, -1, have);
	b->wr_g[n] += g;
	b->wr_c[n] += cpu;
	b->wr_m[n] += (int64_t)m;
	sched_wr_count(s, r, n, 1, have);
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
 * nodes in s->bf->wr_bits: the job's start if it fits now (s->now), else the end
 * of the last job of the first batch of releases it fits after, -1 if none;
 * leaves the scratch view as of then. The batches: every running job of
 * the cluster in expected-end order; those on none of the nodes are
 * skipped, but the peek that ends a batch looks at the next job whatever
 * its nodes, so after a release followed by another job's end within the
 * window the next usable job goes too, however late it ends. The first
 * usable release sets the window's base (its end rounded up to the next
 * 30 s of the wall clock, a whole 30 s past one on the grid); a batch ends
 * when the next job ends past base plus the window, and the window then
 * doubles until it covers that job (from 25.05.6, 25.11.1 and 26.05 it
 * stops doubling once past a year, SCHED_WR_YEAR). The answer's release is
 * left in s->bf->wr_last. */
static int64_t sched_will_run(sched_t *s, const req_t *r)
{
	sched_bf_t *b = s->bf;
	int64_t have[SIM_MAX_TERMS] = { 0 };
	if (++b->wr_call == 0) { /* stamps wrapped: start them over */
		memset(b->wr_stamp, 0, sizeof(uint32_t) * (size_t)s->c->nnodes);
		b->wr_call = 1;
	}
	const elig_t *e = r->elig;
	int kmin = r->nodes ? (int)r->gpus_per_node : 1;
	if (kmin > 0 && r->gpus > 0) {
		/* only nodes with GPUs enough free offer the job anything now */
		for (int k = 0; k < e->nucls; k++) {
			int cl = e->ucls[k], kmax = sched_class_gpus(s, cl);
			for (int q = kmin; q <= kmax; q++) {
				int nb;
				const int *bn = sched_bucket(s, cl, q, &nb);
				for (int i = 0; i < nb; i++)
					if (bits_test(b->wr_cnt, bn[i])) {
						sched_wr_load(s, bn[i]);
						sched_wr_count(s, r, bn[i], 1, have);
					}
			}
		}
	} else {
		SCHED_FOR_BITS(b->wr_cnt, s->nnwords, n, {
			sched_wr_load(s, n);
			sched_wr_count(s, r, n, 1, have);
		});
	}
	if (sched_wr_fits(r, have))
		return s->now;
	const rellist_t *l = &s->all;
	size_t upto_fit = 0; /* releases up to the one the job first fits after */
	const release_t *ent = l->e, *stop = l->e + l->n;
	const uint64_t *bits = b->wr_bits;
	int64_t org = s->o->params.bf_origin_s, base = -1, window = 30;
	int64_t when = -1;
	bool more = true, year_cap = cluster_slurm_has(s->c, SIM_CHG_WR_YEAR_CAP);
	while (more) {
		const release_t *last = NULL, *next = NULL;
		for (;;) {
			if (ent >= stop) {
				more = false;
				break;
			}
			const release_t *h = ent++;
			if (h->node >= 0) { /* one node: all the entry needs */
				int n = h->node;
				if (!bits_test(bits, n))
					continue;
				sched_wr_release(s, r, n, h->gpus, h->cpus, h->mem, have);
			} else {
				const running_t *run = s->running[h->job];
				bool usable = false;
				for (int k = 0; k < run->na && !usable; k++)
					usable = bits_test(bits, run->a[k].node);
				if (!usable)
					continue;
				for (int k = 0; k < run->na; k++) {
					const alloc_t *a = &run->a[k];
					sched_wr_release(s, r, a->node, a->gpus, a->cpus, a->mem, have);
				}
			}
			if (base < 0)
				base = h->end + (30 - ((h->end + org) % 30 + 30) % 30);
			last = h;
			if (!upto_fit && sched_wr_fits(r, have))
				upto_fit = (size_t)(ent - l->e);
			next = ent < stop ? ent : NULL;
			if (!next) {
				more = false;
				break;
			}
			if (next->end > base + window)
				break;
		}
		if (!last)
			break;
		do {
			if (window > SCHED_WR_YEAR && year_cap)
				break;
			window *= 2;
		} while (next && next->end > base + window);
		if (sched_wr_fits(r, have)) {
			when = last->end > s->now ? last->end : s->now + 1;
			b->wr_last = (int)(last - l->e);
			break;
		}
	}
	s->run->releases_scanned += upto_fit ? upto_fit : l->n;
	return when;
}

/* ------------------------------------------------------------ will-run by index */

/* The first set bit of u (n bits) at or after i, n if none. */
static int sched_bits_next(const uint64_t *u, int n, int i)
{
	if (i >= n)
		return n;
	int w = i >> 6, nw = (n + 63) >> 6;
	uint64_t m = u[w] & (~0ull << (i & 63));
	while (!m && ++w < nw)
		m = u[w];
	return m ? MIN(w * 64 + __builtin_ctzll(m), n) : n;
}

/* The last set bit of u at or before i, -1 if none. */
static int sched_bits_prev(const uint64_t *u, int i)
{
	if (i < 0)
		return -1;
	int w = i >> 6;
	uint64_t m = u[w] & ((i & 63) == 63 ? ~0ull : (2ull << (i & 63)) - 1);
	while (!m && --w >= 0)
		m = u[w];
	return m ? w * 64 + 63 - __builtin_clzll(m) : -1;
}

/* The smallest position whose count with those before it reaches k
 * (1 <= k <= the total), from per-position counts, their sums per 64 and
 * the bitmap of the positions counted at all (the counts are sparse). */
static int sched_count_kth(const int32_t *cnt, const int32_t *blk, const uint64_t *nz, int k)
{
	int b = 0;
	while (blk[b] < k)
		k -= blk[b++];
	for (uint64_t w = nz[b];; w &= w - 1) { /* ends within the block */
		int p = b * 64 + __builtin_ctzll(w);
		if (cnt[p] >= k)
			return p;
		k -= cnt[p];
	}
}

static void sched_wr_index_free(wr_index_t *x)
{
	nodeox_g_free_all(x->off, x->item, x->ipos, x->hits, x->use, x->set);
	for (int k = 0; k < SCHED_WR_SHAPES; k++) {
		nodeox_g_free_all(x->shape[k].fit, x->shape[k].rows, x->shape[k].set, x->shape[k].cnt,
				  x->shape[k].blk, x->shape[k].nz);
	}
}

/* The index of the running jobs' releases by node as of this epoch: per
 * node, the positions in s->all of the entries that release something
 * there (and what), in order; nothing counted as usable yet. */
static void sched_wr_index_build(sched_t *s)
{
	sched_bf_t *b = s->bf;
	wr_index_t *x = &b->wx;
	const rellist_t *l = &s->all;
	int nn = s->c->nnodes, n = (int)l->n;
	if (!x->off) {
		x->off = g_new(int, nn + 2);
		x->set = g_new(uint64_t, s->nnwords + 1);
	}
	if (n > x->cap || !x->use) {
		x->cap = MAX(MAX(n, 2 * x->cap), 64);
		size_t nb = (size_t)(x->cap + 63) / 64;
		x->hits = g_renew(int, x->hits, x->cap);
		x->use = g_renew(uint64_t, x->use, nb);
		for (int k = 0; k < SCHED_WR_SHAPES; k++)
			if (x->shape[k].cnt) {
				x->shape[k].cnt = g_renew(int32_t, x->shape[k].cnt, nb * 64);
				x->shape[k].blk = g_renew(int32_t, x->shape[k].blk, nb);
				x->shape[k].nz = g_renew(uint64_t, x->shape[k].nz, nb);
				x->shape[k].rows = g_renew(uint64_t, x->shape[k].rows, (nb + 1) * s->nnwords);
			}
	}
	memset(x->off, 0, sizeof(int) * (size_t)(nn + 2));
	for (int p = 0; p < n; p++) {
		const release_t *h = &l->e[p];
		if (h->node >= 0) {
			x->off[h->node + 2]++;
			continue;
		}
		const running_t *run = s->running[h->job];
		for (int k = 0; k < run->na; k++)
			x->off[run->a[k].node + 2]++;
	}
	for (int v = 2; v < nn + 2; v++)
		x->off[v] += x->off[v - 1];
	int items = x->off[nn + 1];
	if (items > x->icap) {
		x->icap = MAX(items, 2 * x->icap);
		x->item = g_renew(wr_item_t, x->item, x->icap);
		x->ipos = g_renew(int, x->ipos, x->icap);
	}
	/* off[v + 1] is node v's next free slot while filling, its start after */
	for (int p = 0; p < n; p++) {
		const release_t *h = &l->e[p];
		if (h->node >= 0) {
			x->ipos[x->off[h->node + 1]] = 2 * p + 1;
			x->item[x->off[h->node + 1]++] = (wr_item_t){ p, h->gpus, h->cpus, h->mem };
			continue;
		}
		const running_t *run = s->running[h->job];
		for (int k = 0; k < run->na; k++) {
			const alloc_t *a = &run->a[k];
			x->ipos[x->off[a->node + 1]] = 2 * p;
			x->item[x->off[a->node + 1]++] = (wr_item_t){ p, a->gpus, a->cpus, a->mem };
		}
	}
	x->n = n;
	memset(x->hits, 0, sizeof(int) * (size_t)n);
	memset(x->use, 0, sizeof(uint64_t) * (size_t)((n + 63) / 64));
	memset(x->set, 0, sizeof(uint64_t) * s->nnwords);
	x->nuse = 0;
	x->epoch = b->wr_epoch;
}

/* Bring the index's usable positions to the nodes in s->bf->wr_bits: an entry
 * is usable while one of its nodes is there (as the walk skips it). */
static void sched_wr_index_sync(sched_t *s)
{
	sched_bf_t *b = s->bf;
	wr_index_t *x = &b->wx;
	if (x->epoch != b->wr_epoch || !x->off)
		sched_wr_index_build(s);
	SCHED_FOR_BITS_XOR(x->set, b->wr_bits, s->nnwords, v, {
		int in = bits_test(b->wr_bits, v) ? 1 : -1;
		x->set[v >> 6] ^= 1ull << (v & 63);
		for (int q = x->off[v]; q < x->off[v + 1]; q++) {
			int p = x->ipos[q] >> 1;
			if (x->ipos[q] & 1) { /* its only node: usable while v is */
				x->use[p >> 6] ^= 1ull << (p & 63);
				x->nuse += in;
				continue;
			}
			int before = x->hits[p];
			x->hits[p] += in;
			if ((before > 0) != (x->hits[p] > 0)) {
				x->use[p >> 6] ^= 1ull << (p & 63);
				x->nuse += in;
			}
		}
	});
}

/* Request r's shape in this epoch, its counts brought to the nodes in
 * s->bf->wr_cnt: per node, the first position of s->all after whose release
 * (and every one before it) the node fits the request. */
static wr_shape_t *sched_wr_shape_find(sched_t *s, const req_t *r)
{
	sched_bf_t *b = s->bf;
	for (int i = 0; i < SCHED_WR_SHAPES; i++) {
		int k = (b->wx.hint + i) % SCHED_WR_SHAPES; /* the last one found first */
		wr_shape_t *t = &b->wx.shape[k];
		if (t->epoch == b->wr_epoch && t->fit && t->bnodes == r->elig->bnodes &&
		    t->gpus_per_node == r->gpus_per_node && t->cpus_per_node == r->cpus_per_node &&
		    t->mem_per_node == r->mem_per_node) {
			b->wx.hint = k;
			return t;
		}
	}
	return NULL;
}

/* Node v joins (in 1) or leaves (in -1) the nodes shape sh counts. */
static inline void sched_wr_shape_count(wr_shape_t *sh, int v, int in)
{
	int f = sh->fit[v];
	if (f < 0) {
		sh->now += in;
	} else if (f != INT32_MAX) {
		bool was = sh->cnt[f] != 0;
		sh->cnt[f] += in;
		sh->nz[f >> 6] ^= (uint64_t)(was != (sh->cnt[f] != 0)) << (f & 63);
		sh->blk[f >> 6] += in;
		sh->later += in;
	}
}

static wr_shape_t *sched_wr_shape(sched_t *s, const req_t *r)
{
	sched_bf_t *b = s->bf;
	wr_index_t *x = &b->wx;
	const uint64_t *bn = r->elig->bnodes;
	wr_shape_t *sh = sched_wr_shape_find(s, r);
	if (!sh) {
		int nn = s->c->nnodes;
		sh = &x->shape[x->next_shape];
		x->next_shape = (x->next_shape + 1) % SCHED_WR_SHAPES;
		size_t nb = (size_t)(x->cap + 63) / 64;
		if (!sh->fit) {
			sh->fit = g_new(int32_t, nn);
			sh->set = g_new(uint64_t, s->nnwords + 1);
			sh->cnt = g_new(int32_t, nb * 64);
			sh->blk = g_new(int32_t, nb);
			sh->nz = g_new(uint64_t, nb);
			sh->rows = g_new(uint64_t, (nb + 1) * s->nnwords);
		}
		*sh = (wr_shape_t){ .epoch = b->wr_epoch,
				    .gpus_per_node = r->gpus_per_node,
				    .cpus_per_node = r->cpus_per_node,
				    .mem_per_node = r->mem_per_node,
				    .bnodes = bn,
				    .fit = sh->fit,
				    .rows = sh->rows,
				    .set = sh->set,
				    .cnt = sh->cnt,
				    .blk = sh->blk,
				    .nz = sh->nz };
		size_t used = (size_t)(x->n + 63) / 64, nw = s->nnwords;
		memset(sh->rows, 0, sizeof(uint64_t) * (used + 1) * nw);
		SCHED_FOR_BITS(bn, nw, v, {
			int64_t g = s->free_g[v];
			int64_t c = s->free_c[v];
			int64_t m = s->free_m[v];
			sh->fit[v] = -1;
			if (!sched_node_fits(r, g, c, m)) {
				sh->fit[v] = INT32_MAX;
				for (int q = x->off[v]; q < x->off[v + 1]; q++) {
					const wr_item_t *it = &x->item[q];
					g += it->gpus;
					c += it->cpus;
					m += (int64_t)it->mem;
					if (sched_node_fits(r, g, c, m)) {
						sh->fit[v] = it->pos;
						break;
					}
				}
			}
			if (sh->fit[v] != INT32_MAX) /* its first row */
				sh->rows[(sh->fit[v] < 0 ? 0 : (size_t)(sh->fit[v] >> 6) + 1) * nw +
					 (size_t)(v >> 6)] |= 1ull << (v & 63);
		});
		for (size_t i = 1; i <= used; i++)
			for (size_t w = 0; w < nw; w++)
				sh->rows[i * nw + w] |= sh->rows[(i - 1) * nw + w];
		memset(sh->set, 0, sizeof(uint64_t) * s->nnwords);
		memset(sh->cnt, 0, sizeof(int32_t) * used * 64);
		memset(sh->blk, 0, sizeof(int32_t) * used);
		memset(sh->nz, 0, sizeof(uint64_t) * used);
	}
	for (size_t w = 0; w < s->nnwords; w++) {
		uint64_t now = b->wr_cnt[w], was = sh->set[w];
		if (now == was)
			continue;
		sh->set[w] = now;
		for (uint64_t m = now & ~was; m; m &= m - 1)
			sched_wr_shape_count(sh, (int)(w * 64 + (size_t)__builtin_ctzll(m)), 1);
		for (uint64_t m = was & ~now; m; m &= m - 1)
			sched_wr_shape_count(sh, (int)(w * 64 + (size_t)__builtin_ctzll(m)), -1);
	}
	return sh;
}

/* sched_will_run's answer for a per-node request in one group, from the
 * index instead of the walk, in two steps. The walk's `have` reaches the
 * need at the release where the need-th node of s->bf->wr_cnt comes to fit
 * (have never falls): sched_wr_fast_fit finds that position (*fit; -1: it
 * fits now, INT32_MAX: never) from the shape's counts alone, adds the
 * releases up to it to releases_scanned and returns the answer when it
 * fits now or never, else a lower bound of it (that release's end: the
 * answer is the end of the batch that ends there or later), which is all
 * a try that the next reservation's end already beats needs. */
static int64_t sched_wr_fast_fit(sched_t *s, const req_t *r, int *fit)
{
	wr_index_t *x = &s->bf->wx;
	if (x->epoch != s->bf->wr_epoch || !x->off)
		sched_wr_index_build(s);
	const wr_shape_t *sh = sched_wr_shape(s, r);
	int64_t need = r->nodes;
	if (sh->now >= need) {
		*fit = -1;
		return s->now;
	}
	if (need - sh->now > sh->later) {
		*fit = INT32_MAX;
		s->run->releases_scanned += (uint64_t)x->n;
		return -1;
	}
	*fit = sched_count_kth(sh->cnt, sh->blk, sh->nz, (int)(need - sh->now));
	s->run->releases_scanned += (uint64_t)*fit + 1;
	int64_t end = s->all.e[*fit].end;
	return end > s->now ? end : s->now + 1;
}

/* Does entry p of s->all release something on a node of s->bf->wr_bits
 * (the walk applies it)? */
static inline bool sched_wr_usable(const sched_t *s, int p)
{
	const release_t *h = &s->all.e[p];
	if (h->node >= 0)
		return bits_test(s->bf->wr_bits, h->node);
	const running_t *run = s->running[h->job];
	for (int k = 0; k < run->na; k++)
		if (bits_test(s->bf->wr_bits, run->a[k].node))
			return true;
	return false;
}

/* The first usable entry at or after i (dir 1; s->all.n if none), or the
 * last at or before i (dir -1; -1 if none): the entries themselves for the
 * first SCHED_WR_SEEK, which is where a test's node set usually has one,
 * then the index's bitmap of them, synced to the node set. */
static int sched_wr_seek(sched_t *s, int i, int dir)
{
	int n = (int)s->all.n;
	for (int k = 0; k < SCHED_WR_SEEK && i >= 0 && i < n; k++, i += dir)
		if (sched_wr_usable(s, i))
			return i;
	if (i < 0 || i >= n)
		return dir > 0 ? n : -1;
	sched_wr_index_sync(s);
	return dir > 0 ? sched_bits_next(s->bf->wx.use, n, i) : sched_bits_prev(s->bf->wx.use, i);
}

/* The answer itself, from fit (0 <= fit < INT32_MAX) and the usable
 * entries on the nodes of s->bf->wr_bits: the batches' ends are found by
 * the window's bounds and the next usable entry. Leaves no scratch view:
 * sched_wr_index_view makes it from *upto, the position of the last
 * release it applies. */
static int64_t sched_wr_fast_when(sched_t *s, int fit, int *upto)
{
	int n = (int)s->all.n;
	const release_t *e = s->all.e;
	int p = sched_wr_seek(s, 0, 1); /* fit is usable: p <= fit */
	/* The batches' ends only grow, and the window of the batch that ends
	 * at or after fit is the first (of 30 s doubled) that reaches the
	 * entry after the last usable one before fit (a window the doubling
	 * skips ends its batch where the one before it did): the batch from
	 * there ends at the first usable entry at or after the last entry
	 * within it, which is fit or later. */
	int64_t org = s->o->params.bf_origin_s, window = 30;
	int64_t base = e[p].end + (30 - ((e[p].end + org) % 30 + 30) % 30);
	if (cluster_slurm_has(s->c, SIM_CHG_WR_YEAR_CAP) && e[fit].end > base + SCHED_WR_YEAR_MAX) {
		/* past the window's last size every usable release is a batch
		 * of its own (the next entry already lies beyond it) */
		*upto = fit;
		return e[fit].end > s->now ? e[fit].end : s->now + 1;
	}
	int u = sched_wr_seek(s, fit - 1, -1), lo = p;
	if (u >= p) {
		lo = u + 1; /* fit > u, so an entry */
		while (base + window < e[lo].end)
			window *= 2;
	}
	int64_t bound = base + window; /* e[lo].end is within it */
	int hi, step = 1;
	while (lo + step < n && e[lo + step].end <= bound) { /* gallop, then halve */
		lo += step;
		step *= 2;
	}
	hi = MIN(lo + step, n);
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (e[mid].end <= bound)
			lo = mid + 1;
		else
			hi = mid;
	}
	p = sched_wr_seek(s, MAX(lo - 1, p), 1);
	if (p == n) /* the list ends within this batch, past fit */
		p = sched_wr_seek(s, n - 1, -1);
	*upto = p;
	return e[p].end > s->now ? e[p].end : s->now + 1;
}

/* The will-run scratch view sched_wr_fast_when's answer leaves the nodes of
 * s->bf->wr_cnt in (the walk's): their free resources and every release at
 * positions up to upto. */
static void sched_wr_index_view(sched_t *s, int upto)
{
	sched_bf_t *b = s->bf;
	const wr_index_t *x = &b->wx;
	if (++b->wr_call == 0) { /* stamps wrapped: start them over */
		memset(b->wr_stamp, 0, sizeof(uint32_t) * (size_t)s->c->nnodes);
		b->wr_call = 1;
	}
	SCHED_FOR_BITS(b->wr_cnt, s->nnwords, v, {
		b->wr_stamp[v] = b->wr_call;
		b->wr_g[v] = s->free_g[v];
		b->wr_c[v] = s->free_c[v];
		b->wr_m[v] = s->free_m[v];
		for (int q = x->off[v]; q < x->off[v + 1] && x->item[q].pos <= upto; q++) {
			b->wr_g[v] += x->item[q].gpus;
			b->wr_c[v] += x->item[q].cpus;
			b->wr_m[v] += (int64_t)x->item[q].mem;
		}
	});
}

/* sched_wr_place for a per-node request in one group answered from the
 * index (its shape sh, releases up to upto): the nodes of s->bf->wr_cnt that
 * fit then are those whose position is at most upto, with their CPUs then. */
static int sched_wr_index_place(sched_t *s, const req_t *r, const wr_shape_t *sh, int upto)
{
	sched_bf_t *b = s->bf;
	const wr_index_t *x = &b->wx;
	int nl = 0;
	size_t nw = s->nnwords, full = (size_t)(upto + 1) >> 6; /* rows full and full + 1 */
	const uint64_t *in = &sh->rows[full * nw], *part = &sh->rows[(full + 1) * nw];
	/* the nodes with fit < 64 full, and those of the next block up to upto */
	SCHED_FOR_WORD_BITS(b->wr_cnt[w_] & (in[w_] | (upto >= 0 ? part[w_] : 0)), nw, v, {
		if (sh->fit[v] <= upto) {
			int64_t cpu = s->free_c[v];
			for (int q = x->off[v]; q < x->off[v + 1] && x->item[q].pos <= upto; q++)
				cpu += x->item[q].cpus;
			nl = sched_runs_add(s, r, v, cpu, nl);
		}
	});
	return sched_runs_choose(s, r, nl);
}

/* The nodes a reservation for r takes in the scratch view: as select/
 * cons_tres picks them (sched_runs_choose) for a per-node job, the first
 * that can give GPUs for a spreading one. Fills s->abuf; returns the count. */
static int sched_wr_place(sched_t *s, const req_t *r)
{
	sched_bf_t *b = s->bf;
	const sim_cluster_t *c = s->c;
	const elig_t *e = r->elig;
	for (int g = 0; g < e->ngroups; g++) {
		int nl = 0, found = 0;
		int64_t rem = r->gpus;
		/* the test's nodes of group g, ascending: within wr_cnt, since
		 * the group's classes are among the request's */
		for (size_t w = 0; w < s->nnwords; w++)
			for (uint64_t mb = b->wr_cnt[w]; mb; mb &= mb - 1) {
				int n = (int)(w * 64 + (size_t)__builtin_ctzll(mb));
				if (!bits_test(e->gbits[g], c->nodes[n].cls))
					continue;
				sched_wr_load(s, n);
				if (r->nodes) {
					if (sched_node_fits(r, b->wr_g[n], b->wr_c[n], b->wr_m[n])) {
						nl = sched_runs_add(s, r, n, b->wr_c[n], nl);
					}
					continue;
				}
				int64_t take =
					MIN(sched_spread_take(r, b->wr_g[n], b->wr_c[n], b->wr_m[n]), rem);
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

/* The will-run answer for request r on the nodes in s->bf->wr_bits, remembered
 * per request shape and node set while no job starts or ends (wr_epoch): a
 * deep queue asks the same question again and again within a pass, for jobs
 * of one shape and for one job's tries from later start times. *fresh: the
 * test was just run, so its scratch view is in s->bf->wr_g/c/m. */
static wr_memo_t *sched_wr_memo(sched_t *s, const req_t *r, bool *fresh)
{
	sched_bf_t *b = s->bf;
	uint64_t h = (r->kind * 0x9e3779b97f4a7c15ull ^ b->wr_hash) * 0x100000001b3ull;
	h ^= h >> 29;
	if (!b->wr_slot)
		b->wr_slot = g_new0(struct wr_slot, SCHED_WR_SLOTS);
	if (b->wr_memo_epoch != b->wr_epoch) { /* the last epoch's answers are void */
		b->wr_memo_epoch = b->wr_epoch;
		b->wr_memo_n = 0;
	}
	/* the slots are small enough to stay in cache; the answers of one
	 * epoch lie side by side, the recent ones (those asked again) too */
	struct wr_slot *sl = &b->wr_slot[h & (SCHED_WR_SLOTS - 1)];
	size_t bytes = s->nnwords * sizeof(uint64_t);
	if (sl->epoch == (uint32_t)b->wr_epoch && sl->at < b->wr_memo_n) {
		wr_memo_t *m = &b->wr_memo[sl->at];
		if (m->hash == h && sched_same_request(m->req, r) &&
		    !memcmp(&b->wr_memo_nodes[sl->at * s->nnwords], b->wr_bits, bytes)) {
			s->run->releases_scanned += m->scanned;
			*fresh = false;
			return m;
		}
	}
	if (b->wr_memo_n == b->wr_memo_cap) {
		if (b->wr_memo_cap < SCHED_WR_ANSWERS) {
			uint32_t cap = MAX(2 * b->wr_memo_cap, 64);
			b->wr_memo = g_renew(wr_memo_t, b->wr_memo, cap);
			memset(&b->wr_memo[b->wr_memo_cap], 0, sizeof(wr_memo_t) * (cap - b->wr_memo_cap));
			b->wr_memo_nodes = g_renew(uint64_t, b->wr_memo_nodes, (size_t)cap * s->nnwords);
			b->wr_memo_cap = cap;
		} else {
			/* full: start over from the first (a slot that still
			 * names one of those finds another key there) */
			b->wr_memo_n = 0;
		}
	}
	uint32_t at = b->wr_memo_n++;
	*sl = (struct wr_slot){ (uint32_t)b->wr_epoch, at };
	wr_memo_t *m = &b->wr_memo[at];
	uint64_t *nodes = &b->wr_memo_nodes[(size_t)at * s->nnwords];
	memcpy(nodes, b->wr_bits, bytes);
	uint64_t before = s->run->releases_scanned;
	/* a per-node request in one group: from the index (no scratch view) */
	bool fast = r->nodes && r->elig->ngroups == 1;
	b->wr_last = -1;
	m->when = fast ? sched_wr_fast_fit(s, r, &m->fit) : sched_will_run(s, r);
	m->exact = !fast || m->fit < 0 || m->fit == INT32_MAX;
	m->upto = fast ? -1 : b->wr_last;
	m->indexed = fast;
	m->scanned = s->run->releases_scanned - before;
	m->hash = h;
	m->req = r;
	m->placed = false;
	*fresh = !fast;
	return m;
}

/* The answer of the test m remembers, where it only has its lower bound:
 * m must be the test of the nodes now in s->bf->wr_bits. */
static int64_t sched_wr_memo_exact(sched_t *s, wr_memo_t *m)
{
	if (!m->exact) {
		m->when = sched_wr_fast_when(s, m->fit, &m->upto);
		m->exact = true;
	}
	return m->when;
}

/* sched_wr_place's answer for the test m remembers (run again, uncounted,
 * when only its start was remembered). */
static int sched_wr_memo_place(sched_t *s, const req_t *r, wr_memo_t *m, bool fresh)
{
	const wr_shape_t *sh;
	if (m->placed) {
		memcpy(s->abuf, m->a, sizeof(alloc_t) * m->na);
		return m->na;
	}
	if (m->indexed && r->elig->ngroups == 1 && (sh = sched_wr_shape_find(s, r))) {
		m->na = sched_wr_index_place(s, r, sh, m->upto);
	} else {
		if (m->indexed) {
			sched_wr_index_view(s, m->upto);
		} else if (!fresh) {
			uint64_t before = s->run->releases_scanned;
			sched_will_run(s, r);
			s->run->releases_scanned = before;
		}
		m->na = sched_wr_place(s, r);
	}
	if (m->na > m->acap) {
		m->acap = MAX(m->na, 2 * m->acap);
		m->a = g_renew(alloc_t, m->a, m->acap);
	}
	memcpy(m->a, s->abuf, sizeof(alloc_t) * m->na);
	m->placed = true;
	return m->na;
}

/* The start Slurm's will-run test gives from 25.05.1 (select/cons_tres
 * job_test.c, _future_run_test and _get_last_relevant_job; reverted before
 * 25.05.0, back in 25.05.1): not the last release of the batch the job fits
 * after, but the latest-ending job released so far (positions up to upto of
 * s->all, those the test's nodes had) that runs on one of the na nodes in
 * s->abuf the job was placed on (_is_job_relevant: any overlap of nodes).
 * A release of a job elsewhere in the batch no longer delays it. */
static int64_t sched_wr_relevant(sched_t *s, int upto, int na)
{
	sched_bf_t *b = s->bf;
	if (!b->sel_stamp)
		b->sel_stamp = g_new0(uint32_t, (size_t)MAX(s->c->nnodes, 1));
	if (++b->sel_call == 0) {
		memset(b->sel_stamp, 0, sizeof(uint32_t) * (size_t)s->c->nnodes);
		b->sel_call = 1;
	}
	for (int i = 0; i < na; i++)
		b->sel_stamp[s->abuf[i].node] = b->sel_call;
	for (int p = upto; p >= 0; p--) {
		const release_t *h = &s->all.e[p];
		bool on = false;
		if (h->node >= 0) {
			on = b->sel_stamp[h->node] == b->sel_call;
		} else {
			const running_t *run = s->running[h->job];
			for (int k = 0; k < run->na && !on; k++)
				on = b->sel_stamp[run->a[k].node] == b->sel_call;
		}
		if (on)
			return h->end > s->now ? h->end : s->now + 1;
	}
	return -1; /* cannot be: a release on its nodes made the job fit */
}

/* Job j's reservation, as Slurm's backfill makes it
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
static int64_t sched_reserve(sched_t *s, uint32_t j)
{
	sched_bf_t *b = s->bf;
	const sim_cluster_t *c = s->c;
	const req_t *r = &s->req[j];
	const elig_t *e = r->elig;
	if (b->ivl_pass != b->pass) {
		b->nivl = b->nspan = b->nends = 0;
		b->ivl_pass = b->pass;
		for (int n = 0; n < c->nnodes; n++) {
			b->ivl_head[n] = -1;
			b->first_start[n] = INT64_MAX;
		}
		memset(b->first_held, 0, sizeof(uint64_t) * s->nnwords);
		b->first_hash = 0;
		b->first_until = INT64_MIN;
	}
	int64_t res = s->o->params.bf_resolution_s, org = s->o->params.bf_origin_s;
	int64_t horizon = s->now + s->o->params.bf_window_min * 60;
	int64_t first = sched_floor_res(s->now, res, org);
	int64_t start_res = s->now;
	/* Each try starts later than the one before (at a reservation's end or
	 * at the start the last one found), so the loop ends by the horizon. */
	bool swept = false; /* the node set is set up for updates */
	wr_cursor_t cu = { 0, 0, 0 };
	wr_memo_t *m = NULL;
	while (start_res <= horizon) {
		int64_t end_time = r->plan == SCHED_INF ? horizon : start_res + r->plan;
		b->wr_changed = !swept;
		if (!swept)
			sched_wr_nodes(s, (elig_t *)e, end_time, &cu);
		else
			sched_wr_nodes_advance(s, e, start_res, end_time, &cu);
		swept = true;
		/* the first end of a reservation of this pass after start_res
		 * (SCHED_INF: none; cu.pl counts those at or before start_res): where
		 * Slurm's backfill tries the job again when the nodes free then
		 * might let it start earlier (TRY_LATER); no reservation is
		 * added while the tries last */
		int64_t later = cu.pl < b->nends ? b->ends[cu.pl] : SCHED_INF;
		bool fresh = false;
		if (b->wr_changed) {
			m = sched_wr_memo(s, r, &fresh);
		} else {
			/* the same nodes as the last try: its answer (what
			 * sched_wr_memo would find, the slot unchanged since) */
			s->run->releases_scanned += m->scanned;
		}
		/* a lower bound past the next reservation's end settles the
		 * try as the answer would (below) */
		if (!m->exact && later != SCHED_INF && m->when > later) {
			start_res = later;
			continue;
		}
		int64_t when = sched_wr_memo_exact(s, m);
		if (when < 0) {
			if (later == SCHED_INF)
				break;
			start_res = later;
			continue;
		}
		if (when > s->now && m->upto >= 0 && cluster_slurm_has(s->c, SIM_CHG_WR_RELEVANT_JOB)) {
			int na = sched_wr_memo_place(s, r, m, fresh);
			int64_t rel = na ? sched_wr_relevant(s, m->upto, na) : -1;
			if (rel >= 0)
				when = rel;
		}
		int64_t start = MAX(when, start_res);
		if (later != SCHED_INF && start > later) {
			start_res = later;
			continue;
		}
		if (start > horizon)
			break;
		int na = sched_wr_memo_place(s, r, m, fresh);
		if (!na)
			break;
		int64_t sr = MAX(sched_floor_res(start, res, org), first);
		/* the slot's end rounded up from 25.05 in the model
		 * (_set_slot_time: + backfill_resolution - 1; SchedMD's
		 * ff54a35851, 24.11.0, which the 24.11 model leaves out) */
		int64_t up = cluster_slurm_has(s->c, SIM_CHG_BF_END_ROUNDUP) ? res - 1 : 0;
		int64_t er = r->plan == SCHED_INF ? horizon : sched_floor_res(start + r->plan + up, res, org);
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
			if (b->nivl == b->capivl) {
				b->capivl = b->capivl ? 2 * b->capivl : 64;
				b->ivl = g_renew(struct resv_ivl, b->ivl, b->capivl);
				b->span_by_start = g_renew(struct resv_so, b->span_by_start, b->capivl);
				b->span_by_end = g_renew(struct resv_so, b->span_by_end, b->capivl);
				b->ends = g_renew(int64_t, b->ends, b->capivl);
			}
			sched_span_add(b, n, sr, er);
			b->ivl[b->nivl] = (struct resv_ivl){ n, b->ivl_head[n], sr, er };
			b->ivl_head[n] = (int)b->nivl;
			b->nivl++;
			sched_resv_hold(s, n, sr);
		}
		b->nresv++;
		s->run->reservations++;
		return sr;
	}
	return SCHED_INF;
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
 * holding a class that a selected job looks at: every class its will-run
 * test looks at (wbits: a reservation there takes nodes out of that test,
 * which changes which running jobs' ends count and so the selected job's
 * start). The rest share no node with any of them, so leaving them for
 * later changes no reservation. As soon as a reservation stops the candidate the rest wait too (in order), since the candidate
 * waits whatever they get. Returns how many stay deferred (kept in order in
 * deferred, their classes in defbits). */
static int sched_reserve_deferred(sched_t *s, uint32_t k, uint32_t *deferred, int ndef, uint64_t *defbits)
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
			bits_or(touch, d->wbits, s->nwords);
		}
	}
	int keep = 0;
	memset(defbits, 0, sizeof(uint64_t) * s->nwords);
	for (int q = 0; q < ndef; q++) {
		if (sel[q] && !stopped) {
			if (sched_reserve(s, deferred[q]) < end_k && !sched_fits_now(s, k, &s->bf->resv))
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

/* The slot of requests identical to r (sched_same_request) in s->bf->blocked. */
static struct blocked_slot *sched_blocked_slot(sched_t *s, const req_t *r)
{
	return &s->bf->blocked[r->kind & (SCHED_BLOCKED_SLOTS - 1)];
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
	return b->pass == s->bf->pass && sched_same_request(b->req, r) && sched_plan_end(s, r) >= b->end;
}

/* Job j failed to start with plan end `end` (INT64_MIN: on the free nodes
 * alone, whatever its end). */
static void sched_blocked_note(sched_t *s, uint32_t j, int64_t end)
{
	const req_t *r = &s->req[j];
	struct blocked_slot *b = sched_blocked_slot(s, r);
	if (b->pass == s->bf->pass && sched_same_request(b->req, r))
		b->end = MIN(b->end, end);
	else
		*b = (struct blocked_slot){ r, end, s->bf->pass };
}

/* Has job j's user, partition, or user in that partition had its
 * bf_max_job_user, bf_max_job_part or bf_max_job_user_part jobs tested in
 * this pass? Otherwise it counts towards each (Slurm 22.05 and 24.11,
 * backfill.c _job_exceeds_max_bf_param: checked user and partition
 * first, then partition, then user; a job over one limit counts towards
 * none, and not towards bf_max_job_test either). */
static bool sched_bf_limited(sched_t *s, uint32_t j)
{
	sched_bf_t *b = s->bf;
	const sim_sched_params_t *p = &s->o->params;
	int part = sched_job_part(s, j), u = b->uid[j];
	struct bf_count *c[3] = {
		p->bf_max_job_user_part ? &b->bf_user_part[(size_t)u * MAX(s->c->nparts, 1) + part] : NULL,
		p->bf_max_job_part ? &b->bf_part[part] : NULL,
		p->bf_max_job_user ? &b->bf_user[u] : NULL,
	};
	const int lim[3] = { p->bf_max_job_user_part, p->bf_max_job_part, p->bf_max_job_user };
	for (int k = 0; k < 3; k++) {
		if (!c[k])
			continue;
		if (c[k]->pass != b->pass)
			*c[k] = (struct bf_count){ b->pass, 0 };
		if (c[k]->n >= lim[k])
			return true;
	}
	for (int k = 0; k < 3; k++)
		if (c[k])
			c[k]->n++;
	return false;
}

/* Job j fits on the free resources: would it delay a reservation of the
 * jobs before it (computed here as far as j needs them)? Reservations made
 * so far already stop it? More would too: then the waiting jobs'
 * reservations are not computed for it. */
static bool sched_backfill_blocked(sched_t *s, uint32_t j, uint32_t *deferred, int *ndef, uint64_t *defbits)
{
	sched_bf_t *b = s->bf;
	bool blocked = b->nresv && !sched_fits_now(s, j, &b->resv);
	if (!blocked && *ndef && bits_meet(defbits, s->req[j].elig->bits, s->nwords)) {
		*ndef = sched_reserve_deferred(s, j, deferred, *ndef, defbits);
		blocked = b->nresv && !sched_fits_now(s, j, &b->resv);
	}
	return blocked;
}

/* The nodes job j starts on now, beside this pass's reservations: chosen
 * as select/cons_tres does, once the job is known to fit (sched_fits_now
 * only says whether). */
static int sched_backfill_place(sched_t *s, uint32_t j)
{
	sched_bf_t *b = s->bf;
	return sched_fit_now(s, j, b->nresv ? &b->resv : NULL);
}

/* Can job j start now without delaying a reservation of the jobs before it
 * (as the pass below asks)? Nodes in s->abuf, or 0. For a record Slurm
 * tests for a start now only: it is not deferred and notes nothing. */
static int sched_backfill_now(sched_t *s, uint32_t j, uint32_t *deferred, int *ndef, uint64_t *defbits)
{
	if (!sched_fits_now(s, j, NULL) || sched_backfill_blocked(s, j, deferred, ndef, defbits))
		return 0;
	return sched_backfill_place(s, j);
}

/* Job j starts on the nodes in s->abuf: what it takes on nodes reserved
 * later in the pass comes out of the spare left beside them. */
static void sched_backfill_taken(sched_t *s, uint32_t j, int na)
{
	sched_resv_t *v = &s->bf->resv;
	int64_t end = sched_plan_end(s, &s->req[j]);
	for (int i = 0; i < na; i++) {
		const alloc_t *a = &s->abuf[i];
		if (v->stamp[a->node] == v->pass && end >= v->start[a->node]) {
			v->spare_g[a->node] -= a->gpus;
			v->spare_c[a->node] -= a->cpus;
			v->spare_m[a->node] -= (int64_t)a->mem;
		}
	}
}

void sched_backfill_begin(sched_t *s)
{
	sched_bf_t *b = s->bf;
	struct bf_walk *w = &b->walk;
	const sim_sched_params_t *p = &s->o->params;
	s->run->bf_passes++;
	b->pass++;
	b->resv.pass = b->pass;
	b->wr_epoch++;
	b->nresv = 0;
	w->max_test = p->bf_max_job_test;
	w->deferred = g_new(uint32_t, w->max_test);
	w->ndef = 0;
	w->defbits = g_new0(uint64_t, s->nwords);
	w->tested = 0;
	w->limits = p->bf_max_job_part || p->bf_max_job_user || p->bf_max_job_user_part;
	sched_order_begin(s, &w->it);
}

/* The next job the pass starts, with its nodes (na of them) in s->abuf, or
 * -1 when the pass is over. The run starts it before calling again. */
int64_t sched_backfill_next(sched_t *s, int *na_out)
{
	sched_bf_t *b = s->bf;
	struct bf_walk *w = &b->walk;
	while (w->tested < w->max_test) {
		int64_t j = sched_order_next(s, &w->it);
		if (j < 0)
			break;
		if (w->limits && sched_bf_limited(s, (uint32_t)j))
			continue;
		w->tested++;
		if (sched_prefer_swap(s, (uint32_t)j)) {
			/* the prefer record: a start now only (sched_prefer.c) */
			int na = sched_backfill_now(s, (uint32_t)j, w->deferred, &w->ndef, w->defbits);
			sched_prefer_swap(s, (uint32_t)j);
			if (na) {
				sched_backfill_taken(s, (uint32_t)j, na);
				*na_out = na;
				return j;
			}
		}
		const elig_t *e = s->req[j].elig;
		bool known = sched_blocked_known(s, (uint32_t)j);
		if (known || !sched_fits_now(s, (uint32_t)j, NULL)) {
			if (!known)
				sched_blocked_note(s, (uint32_t)j, INT64_MIN);
			w->deferred[w->ndef++] = (uint32_t)j;
			bits_or(w->defbits, e->bits, s->nwords);
			continue;
		}
		if (sched_backfill_blocked(s, (uint32_t)j, w->deferred, &w->ndef, w->defbits)) {
			sched_blocked_note(s, (uint32_t)j, sched_plan_end(s, &s->req[j]));
			w->deferred[w->ndef++] = (uint32_t)j;
			bits_or(w->defbits, e->bits, s->nwords);
			continue;
		}
		int na = sched_backfill_place(s, (uint32_t)j);
		sched_backfill_taken(s, (uint32_t)j, na);
		*na_out = na;
		return j;
	}
	return -1;
}

void sched_backfill_end(sched_t *s)
{
	struct bf_walk *w = &s->bf->walk;
	sched_order_end(s);
	g_free(w->deferred);
	g_free(w->defbits);
	w->deferred = NULL;
	w->defbits = NULL;
}

/* ------------------------------------------------------------ state */

void sched_backfill_init(sched_t *s)
{
	const sim_cluster_t *c = s->c;
	size_t nj = s->t->njobs, nn = (size_t)c->nnodes;
	sched_bf_t *b = g_new0(sched_bf_t, 1);
	s->bf = b;
	b->resv.stamp = g_new0(uint32_t, nn);
	b->resv.start = g_new(int64_t, nn);
	b->resv.spare_g = g_new(int64_t, nn);
	b->resv.spare_c = g_new(int64_t, nn);
	b->resv.spare_m = g_new(int64_t, nn);
	/* users, numbered in order of first appearance (for bf_max_job_user*) */
	b->uid = g_new(int, nj ? nj : 1);
	GHashTable *users = g_hash_table_new(g_str_hash, g_str_equal);
	for (size_t j = 0; j < nj; j++) {
		const char *u = s->t->jobs[j].user ? s->t->jobs[j].user : "";
		gpointer v;
		if (!g_hash_table_lookup_extended(users, u, NULL, &v)) {
			v = GINT_TO_POINTER(b->nusers++);
			g_hash_table_insert(users, (gpointer)u, v);
		}
		b->uid[j] = GPOINTER_TO_INT(v);
	}
	g_hash_table_destroy(users);
	b->bf_user = g_new0(struct bf_count, MAX(b->nusers, 1));
	b->bf_part = g_new0(struct bf_count, MAX(c->nparts, 1));
	if (s->o->params.bf_max_job_user_part)
		b->bf_user_part = g_new0(struct bf_count, (size_t)MAX(b->nusers, 1) * MAX(c->nparts, 1));
	b->wr_stamp = g_new0(uint32_t, nn);
	b->wr_bits = g_new(uint64_t, s->nnwords + 1);
	b->node_key = g_new(uint64_t, nn ? nn : 1);
	for (size_t n = 0; n < nn; n++) { /* splitmix64 of n */
		uint64_t z = (n + 1) * 0x9e3779b97f4a7c15ull;
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		b->node_key[n] = z ^ (z >> 31);
	}
	b->wr_cnt = g_new(uint64_t, s->nnwords + 1);
	b->ivl_head = g_new(int, nn);
	b->first_start = g_new(int64_t, nn ? nn : 1);
	b->first_held = g_new0(uint64_t, s->nnwords + 1);
	b->wr_g = g_new(int64_t, nn);
	b->wr_c = g_new(int64_t, nn);
	b->wr_m = g_new(int64_t, nn);
}

void sched_backfill_free(sched_t *s)
{
	sched_bf_t *b = s->bf;
	if (!b)
		return;
	nodeox_g_free_all(b->ivl, b->ivl_head, b->span_by_start, b->span_by_end, b->ends, b->wr_stamp,
			  b->wr_g, b->wr_c, b->wr_m, b->wr_bits, b->wr_cnt, b->node_key, b->sel_stamp);
	for (uint32_t k = 0; k < b->wr_memo_cap; k++)
		g_free(b->wr_memo[k].a);
	g_free(b->wr_slot);
	g_free(b->wr_memo);
	g_free(b->wr_memo_nodes);
	sched_wr_index_free(&b->wx);
	nodeox_g_free_all(b->resv.stamp, b->resv.start, b->resv.spare_g, b->resv.spare_c, b->resv.spare_m,
			  b->uid, b->bf_user, b->bf_part, b->bf_user_part, b->first_start, b->first_held, b);
	s->bf = NULL;
}

void sched_backfill_forget(sched_t *s)
{
	s->bf->wr_epoch++;
}
