/*
 * sched_internal.h: what the scheduler model's files share (sim/model/sched.c and
 * the files it is split into; none of this is seen outside sim/sched*.c):
 * the run's shared state (sched_t: cluster, trace, options, the clock, free
 * resources and their buckets, jobs' requests and priority lists, running
 * jobs by expected end), a job's request as scheduled, running jobs and
 * their allocations, the small inline helpers the hot loops use, and the
 * functions one file calls in another. Each file keeps its own state in a
 * struct only it sees, reached through one pointer in sched_t and made and
 * freed by its sched_<file>_init/_free:
 *
 *   sched.c           the run: events, priority order, main pass, start/end
 *   sched_request.c   submission: the policy's decision turned into a request,
 *                     eligible node classes, limits, rejections
 *                     (sched_pol_t: the policy's node view, eligibility cache)
 *   sched_place.c     placement: free-GPU buckets, node choice
 *                     (sched_place_t: candidate runs and their scratch)
 *   sched_backfill.c  backfill: reservations (Slurm's will-run batches over
 *                     the backfill map, bf_resolution) and the backfill pass
 *                     (sched_bf_t: reservations, will-run memo and index,
 *                     per-pass limits)
 *   sched_prefer.c    --prefer: the job's prefer record, tried first
 *   sched_socket.c    GPUs bound to sockets (sched_sock_t: free cores and
 *                     GPUs per socket)
 *   sched_fair.c      fair-share usage and factors (sched_fair_t: the
 *                     association tree, each job's association)
 */
#ifndef SIM_SCHED_INTERNAL_H
#define SIM_SCHED_INTERNAL_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim/model/prio.h"
#include "sim/model/queue.h"
#include "sim/model/sched.h"

#define SCHED_INF INT64_MAX
#define SCHED_TIMEOUT_CHECK_S 30 /* slurmctld's PERIODIC_TIMEOUT (slurmctld.h) */

/* where a job pends: submitted since the last priority recalculation (age
 * 0); ageing; age capped */
enum { SCHED_GONE = 0, SCHED_FRESH, SCHED_YOUNG, SCHED_OLD };

typedef struct {     /* where a job may run: classes per OR term */
	int ngroups; /* 1, or the constraint's terms when matching */
	int *cls[SIM_MAX_TERMS];
	int ncls[SIM_MAX_TERMS];
	uint64_t *gbits[SIM_MAX_TERMS]; /* class bitset of each group */
	uint64_t *bits;                 /* union of the groups */
	uint64_t *wbits;                /* classes in its partitions matching its */
	/* constraint, whatever their GPUs: the nodes */
	/* Slurm's will-run test looks at */
	uint64_t *wnodes; /* the usable nodes of wbits' classes, and */
	uint64_t *bnodes; /* those of bits' (node bitmaps, made by */
	/* sched_backfill.c on first use) */
	uint64_t whash;      /* the xor of wnodes' per-node keys (ditto) */
	int *ucls, nucls;    /* the classes of bits, ascending */
	const char *why_not; /* non-NULL: no node can ever serve */
	int kmax;            /* most GPUs a node of these classes has */
} elig_t;

typedef struct { /* a job's request as scheduled */
	const elig_t *elig;
	uint64_t fail_epoch;    /* release epoch it last failed to fit in */
	int64_t limit;          /* kill limit, seconds, SCHED_INF = none */
	int64_t plan;           /* duration backfill plans with */
	uint32_t nodes;         /* 0: GPUs may spread over nodes */
	uint32_t gpus_per_node; /* per node, when nodes > 0 */
	uint32_t cpus_per_node;
	uint64_t mem_per_node;
	uint32_t gpus;         /* total */
	uint64_t parts;        /* partitions asked for */
	uint32_t cpus_per_gpu; /* per GPU, when spreading (0: one CPU per node) */
	uint64_t mem_per_gpu;
	uint64_t spread_mem_node; /* spreading: memory on each node used */
	uint32_t size_cpus;       /* CPUs the job-size priority factor counts */
	int req_type;             /* cluster type the run time was measured on */
	uint32_t kind;            /* hash of what sched_same_request compares */
} req_t;

typedef struct {
	int node;
	int cls; /* the node's class, kept here for backfill */
	uint32_t gpus, cpus;
	uint64_t mem;
} alloc_t;

typedef struct { /* what one allocation holds per socket */
	uint16_t c[SIM_MAX_SOCKETS];
	uint8_t g[SIM_MAX_SOCKETS];
} sock_take_t;

typedef struct { /* a running job */
	alloc_t *a;
	sock_take_t *st; /* per allocation, where s->sockets (else NULL) */
	int na;
	int64_t expected_end; /* start + limit (or real run time) */
	bool soft;            /* ended, its nodes not yet handed on (sched_soft_end) */
} running_t;

typedef struct {     /* a running job in release order */
	int64_t end; /* its expected end */
	uint32_t job;
	int32_t node;        /* its only node, -1: several (see s->running) */
	uint32_t gpus, cpus; /* what it holds there (node >= 0) */
	uint64_t mem;
} release_t;

typedef struct {      /* running jobs by (end, job) */
	release_t *e; /* the n entries, at head in the room for cap */
	size_t n, cap, head;
} rellist_t;

typedef struct { /* a backfill pass's reservations as placement */
	/* reads them (written by sched_backfill.c) */
	uint32_t pass; /* a node's entries hold while stamp == pass */
	uint32_t *stamp;
	int64_t *start;                       /* its earliest reservation's start */
	int64_t *spare_g, *spare_c, *spare_m; /* what is left beside them */
} sched_resv_t;

typedef struct sched_bf sched_bf_t;               /* backfill's own state (sched_backfill.c) */
typedef struct sched_place_scratch sched_place_t; /* placement's scratch (sched_place.c) */
typedef struct sched_pol sched_pol_t;             /* submission's policy view (sched_request.c) */
typedef struct sched_sock sched_sock_t;           /* free cores and GPUs by socket (sched_socket.c) */
typedef struct sched_fair sched_fair_t;           /* fair-share's own (sched_fair.c) */

typedef struct { /* the run's state, which every file reads */
	const sim_cluster_t *c;
	const sim_trace_t *t;
	const sim_sched_opts_t *o;
	sim_run_t *run;
	int64_t now;
	size_t nwords; /* class bitset words */

	/* node state */
	int32_t *free_g, *free_c;
	int64_t *free_m;
	int64_t *class_free_g;
	int64_t total_free_g;
	int *bucket; /* nodes by class and free GPUs (see sched_bucket; */
	/* made and moved by sched_place.c) */
	int *bucket_off;  /* per bucket: where its nodes start in bucket */
	int *bucket_n;    /* per bucket: how many */
	int *bucket_base; /* per class: bucket id of k = 0 */
	int *bpos;        /* per node: position in its bucket */

	/* jobs */
	req_t *req;
	req_t *preq; /* the --prefer record (elig NULL: none); */
	/* sched_prefer_swap puts it in req[j] */
	bool *tagged;
	uint8_t *where; /* SCHED_FRESH, _YOUNG, _OLD while pending */
	double *key;
	double *qos_w; /* per job: its QOS factor times PriorityWeightQOS */
	running_t **running;
	uint64_t release_epoch;
	int64_t *node_end; /* per node: the second its last job gave it back */
	size_t npending, ended;

	prio_list_t fresh, young, old; /* pending, by priority: age 0; ageing; capped */
	int64_t prio_time;             /* last priority recalculation (ages as of then) */
	int64_t next_recalc;           /* the next one, SCHED_INF without an age weight */
	rellist_t all;                 /* every running job by expected end, for */
	/* Slurm's will-run batches */
	size_t nnwords; /* node bitmap words */
	sim_queue_t events;
	/* with a policy: the ends its view sees before the nodes go back */
	sim_queue_t soft;
	int32_t *soft_g; /* per node: GPUs of such ended jobs */


	alloc_t *abuf; /* a placement's answer (sched_place, or */
	/* backfill's remembered ones), for sched_start */
	int *part_tested; /* main pass: jobs tested per partition */
	uint32_t gpus_by_type[SIM_MAX_TYPES];

	sched_bf_t *bf;       /* backfill's own (sched_backfill.c) */
	sched_place_t *place; /* placement's (sched_place.c) */
	sched_pol_t *pol;     /* submission's (sched_request.c) */
	sched_sock_t *sock;   /* sockets' (sched_socket.c); NULL: no node */
			      /* binds GPUs to sockets */
	sched_fair_t *fair;   /* fair-share's (sched_fair.c); NULL: its */
			      /* weight is 0 */
} sched_t;


typedef struct {
	prio_pos_t f, y, o; /* in the fresh, young and old lists */
} prio_iter_t;

/* When a job starting now is expected to end, for backfill's planning. */
static inline int64_t sched_plan_end(const sched_t *s, const req_t *r)
{
	return r->plan == SCHED_INF ? SCHED_INF : s->now + r->plan;
}

/* A hash of the fields two identical requests share (elig and the
 * resources asked for: see sched_same_request), set at submission. */
static inline uint32_t sched_request_kind(const req_t *r)
{
	uint64_t h = (uint64_t)(uintptr_t)r->elig;
	const uint64_t f[] = { r->nodes, r->gpus_per_node, r->cpus_per_node, r->mem_per_node,
			       r->gpus,  r->cpus_per_gpu,  r->mem_per_gpu,   r->spread_mem_node };
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		h = (h ^ f[i]) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> 32);
}

/* The partition job j is counted in by the per-partition limits: its
 * first (Slurm queues a job of several partitions once per partition;
 * the model once, under the first). */
static inline int sched_job_part(const sched_t *s, uint32_t j)
{
	uint64_t parts = s->req[j].parts;
	return parts ? __builtin_ctzll(parts) : 0;
}

static inline bool bits_test(const uint64_t *b, int i)
{
	return (b[i >> 6] >> (i & 63)) & 1;
}

/* GPUs node can give a spreading job (limited by CPUs and memory per GPU). */
static inline int64_t sched_spread_take(const req_t *r, int64_t g, int64_t cpu, int64_t m)
{
	if (r->cpus_per_gpu)
		g = MIN(g, cpu / (int64_t)r->cpus_per_gpu);
	else if (cpu < 1)
		g = 0;
	if (r->mem_per_gpu)
		g = MIN(g, m / (int64_t)r->mem_per_gpu);
	if (m < (int64_t)r->spread_mem_node)
		g = 0;
	return g > 0 ? g : 0;
}

/* What a spreading job takes on node n (class cls) with `take` GPUs there. */
static inline alloc_t sched_spread_alloc(const req_t *r, int n, int cls, int64_t take)
{
	return (alloc_t){ n, cls, (uint32_t)take, r->cpus_per_gpu ? (uint32_t)(take * r->cpus_per_gpu) : 1,
			  (uint64_t)take * r->mem_per_gpu + r->spread_mem_node };
}

static inline bool sched_node_fits(const req_t *r, int64_t g, int64_t cpu, int64_t m)
{
	return g >= r->gpus_per_node && cpu >= r->cpus_per_node && m >= (int64_t)r->mem_per_node;
}

/* What node offers a job towards its need: 1 node, or GPUs when spreading. */
static inline int64_t sched_contrib(const req_t *r, int64_t g, int64_t cpu, int64_t m)
{
	if (r->nodes)
		return sched_node_fits(r, g, cpu, m) ? 1 : 0;
	return sched_spread_take(r, g, cpu, m);
}

/* A node's scheduling weight as select/cons_tres orders node runs:
 * slurm.conf's Weight above, 0xff less the GPUs it has next to free cores
 * (at most the job's per-node count) in the low byte. */
static inline uint64_t sched_run_weight(uint32_t weight, uint32_t near_gpus)
{
	return ((uint64_t)weight << 8) | (0xffu - MIN(near_gpus, 0xffu));
}

/* GPUs per node of class cl (its buckets run 0..gpus): from the compact
 * bucket table rather than the node records, which the placement loops
 * would otherwise read once per class and bucket. */
static inline int sched_class_gpus(const sched_t *s, int cl)
{
	return s->bucket_base[cl + 1] - s->bucket_base[cl] - 1;
}

/* Nodes of class cl with exactly k free GPUs: buckets let a placement skip
 * the nodes that cannot serve it and try the fullest that can first. */
static inline const int *sched_bucket(const sched_t *s, int cl, int k, int *n)
{
	int b = s->bucket_base[cl] + k;
	*n = s->bucket_n[b];
	return &s->bucket[s->bucket_off[b]];
}

/* The pending jobs in priority order (the main and backfill passes' walk). */

/* Begin a walk in priority order; the lists keep it valid while the pass
 * starts (removes) the jobs it returns. End it with sched_order_end. */
static inline void sched_order_begin(sched_t *s, prio_iter_t *it)
{
	it->f = (prio_pos_t){ 0, 0 };
	it->y = (prio_pos_t){ 0, 0 };
	it->o = (prio_pos_t){ 0, 0 };
	s->fresh.track = &it->f;
	s->young.track = &it->y;
	s->old.track = &it->o;
}

static inline void sched_order_end(sched_t *s)
{
	s->fresh.track = s->young.track = s->old.track = NULL;
}

/* Next pending job in priority order (advancing past it), or -1: the head of
 * the three lists with the highest priority as of the last recalculation
 * (ties to the earlier job, as Slurm's queue sort: submit time, then id). */
static inline int64_t sched_order_next(const sched_t *s, prio_iter_t *it)
{
	const prio_ent_t *f = prio_list_at(&s->fresh, &it->f), *y = prio_list_at(&s->young, &it->y),
			 *o = prio_list_at(&s->old, &it->o);
	prio_pos_t *pos = NULL;
	const prio_ent_t *best = NULL;
	double best_prio = 0;
	if (y) {
		best = y;
		pos = &it->y;
		best_prio = y->key;
	}
	if (o && (!best || o->key > best_prio || (o->key == best_prio && o->job < best->job))) {
		best = o;
		pos = &it->o;
		best_prio = o->key;
	}
	if (f && (!best || f->key > best_prio || (f->key == best_prio && f->job < best->job))) {
		best = f;
		pos = &it->f;
	}
	if (!best)
		return -1;
	pos->p++;
	return best->job;
}

static inline bool release_before(const release_t *a, int64_t end, uint32_t job)
{
	return a->end < end || (a->end == end && a->job < job);
}

/* Where (end, job) is or would go in list l. */
static inline size_t sched_release_find(const rellist_t *l, int64_t end, uint32_t job)
{
	size_t lo = 0, hi = l->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (release_before(&l->e[mid], end, job))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The calls run one way: sched.c (the run) calls every other file; the
 * backfill pass calls placement and --prefer, submission --prefer,
 * placement sockets; none calls the run. */

/* sched_request.c */
void sched_request_init(sched_t *s);
void sched_request_free(sched_t *s);
/* Job j's submission: its request, or its rejection; true: it pends (the
 * run adds it to the pending jobs). */
bool sched_submit(sched_t *s, uint32_t j);
void sched_reject(sched_t *s, uint32_t j, sim_job_status_t st, const char *why);
/* Node n now has idle GPUs free: the policy's view follows. */
void sched_policy_idle(sched_t *s, int n, uint32_t idle);
/* Job j ended: its run time goes into when-faster's run-time history
 * (policy_history.c), which expects running jobs' ends from it. */
void sched_policy_job_end(sched_t *s, uint32_t j);

/* sched_backfill.c */
void sched_backfill_init(sched_t *s);
void sched_backfill_free(sched_t *s);
/* Free resources changed (a job started or ended): no remembered answers. */
void sched_backfill_forget(sched_t *s);
/* One backfill pass, as a walk: begin it, take the jobs it would start
 * (each with its na nodes in s->abuf, to be started before the next call)
 * until -1, end it. */
void sched_backfill_begin(sched_t *s);
int64_t sched_backfill_next(sched_t *s, int *na);
void sched_backfill_end(sched_t *s);

/* sched_place.c */
void sched_place_init(sched_t *s);
void sched_place_free(sched_t *s);
void sched_bucket_move(sched_t *s, int n, int from, int to);
/* Nodes for job j now (in s->abuf), or 0; resv: beside those reservations
 * (NULL: on the free resources alone). */
int sched_fit_now(sched_t *s, uint32_t j, const sched_resv_t *resv);
/* Whether sched_fit_now would find nodes, without choosing them as
 * select/cons_tres does (s->abuf is left with some nodes that fit). */
bool sched_fits_now(sched_t *s, uint32_t j, const sched_resv_t *resv);
/* Node n, with cpu CPUs free, as the nl-th candidate for per-node request r
 * of sched_runs_choose; returns nl + 1. */
int sched_runs_add(sched_t *s, const req_t *r, int n, int64_t cpu, int nl);
int sched_runs_choose(sched_t *s, const req_t *r, int nl);

/* sched_prefer.c */
void sched_prefer_set(sched_t *s, uint32_t j, const elig_t *pe);
/* Swap job j's prefer request with its request; false (nothing done) when
 * it has none. Called again, it swaps them back. */
bool sched_prefer_swap(sched_t *s, uint32_t j);
/* Does a prefer record's failure in the main pass leave its partition open
 * (25.11.1, 26.05)? */
bool sched_prefer_keeps_part(const sched_t *s);

/* sched_socket.c: GPUs bound to sockets (nodes with sockets > 1) */
void sched_socket_init(sched_t *s);
void sched_socket_free(sched_t *s);
int64_t sched_socket_first_pass(const sched_t *s, int n, uint32_t gpus, uint32_t cpus, int *near);
void sched_socket_take(sched_t *s, const alloc_t *a, sock_take_t *t);
void sched_socket_release(sched_t *s, const alloc_t *a, const sock_take_t *t);

/* sched_fair.c: fair-share (params.weight_fs > 0; else s->fair stays NULL) */
void sched_fair_init(sched_t *s);
void sched_fair_free(sched_t *s);
/* The decay thread's fair-share work at its pass at `at`, before it
 * recalculates the pending jobs' priorities. */
void sched_fair_pass(sched_t *s, int64_t at);
/* Job j's usage at its end (priority_p_job_end). */
void sched_fair_end(sched_t *s, uint32_t j);
/* Job j's fair-share factor, 0 to 1 (0 without fair-share). */
double sched_fair_factor(const sched_t *s, uint32_t j);

#endif
