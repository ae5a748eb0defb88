/*
 * sched_place.c: placement in the scheduler model: what each node offers a
 * job now (free, or beside the backfill pass's reservations), nodes kept in
 * buckets by class and free
 * GPUs in slurm.conf order, and the choice of nodes for a request.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/free_all.h"
#include "sim/model/sched_internal.h"

/* Placement's scratch: the candidates of sched_place_runs and their runs
 * (sched_runs_choose), their socket view (sched_runs_sockets), the class
 * merge's positions and the candidate bitmap. */
struct sched_place_scratch {
	int *run_node, *run_first;   /* usable nodes; per run: the first, */
	int64_t *run_cpu, *run_cpus; /* their CPUs; per run: CPUs, */
	int *run_nodes;              /* nodes */
	uint64_t *run_weight;        /* their scheduling weights (sched_runs_choose) */
	int64_t *sock_cpu;           /* sched_runs_sockets: CPUs, */
	int *sock_near;              /* co-located GPUs per candidate */
	int *class_pos;              /* per class: the merge's position in it */
	uint64_t *cand;              /* nodes with GPUs enough (a bitmap of */
				     /* nnwords, clear between calls) */
};

void sched_place_init(sched_t *s)
{
	size_t nn = (size_t)s->c->nnodes;
	sched_place_t *p = g_new0(sched_place_t, 1);
	s->place = p;
	p->run_node = g_new(int, nn + 1);
	p->run_cpu = g_new(int64_t, nn + 1);
	p->run_weight = g_new(uint64_t, nn + 1);
	p->run_first = g_new(int, nn + 2);
	p->run_cpus = g_new(int64_t, nn + 1);
	p->run_nodes = g_new(int, nn + 1);
	p->class_pos = g_new(int, s->c->nclasses + 1);
	p->sock_cpu = g_new(int64_t, nn + 1);
	p->sock_near = g_new(int, nn + 1);
	p->cand = g_new0(uint64_t, (nn + 63) / 64 + 1);
	/* every node in the bucket of its class and free GPUs */
	const sim_cluster_t *c = s->c;
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
}

void sched_place_free(sched_t *s)
{
	sched_place_t *p = s->place;
	if (!p)
		return;
	nodeox_g_free_all(p->run_node, p->run_cpu, p->run_first, p->run_weight, p->run_cpus, p->run_nodes,
			  p->class_pos, p->sock_cpu, p->sock_near, p->cand, s->bucket, s->bucket_off,
			  s->bucket_n, s->bucket_base, s->bpos, p);
	s->place = NULL;
}

static inline int sched_runs_push(sched_t *s, const req_t *r, int n, int64_t cpu, int nl)
{
	sched_place_t *p = s->place;
	p->run_node[nl] = n;
	p->run_cpu[nl] = cpu;
	p->run_weight[nl] = sched_run_weight(s->c->nodes[n].weight, r->gpus_per_node);
	return nl + 1;
}

int sched_runs_add(sched_t *s, const req_t *r, int n, int64_t cpu, int nl)
{
	return sched_runs_push(s, r, n, cpu, nl);
}

/* ------------------------------------------------------------ resources */

/* What node n offers a job that would hold it until `end`: free now, and in
 * a backfill pass no more than the spare left beside later reservations. */
static void sched_avail_now(const sched_t *s, int n, int64_t end, const sched_resv_t *resv, int64_t *g,
			    int64_t *cpu, int64_t *m)
{
	*g = s->free_g[n];
	*cpu = s->free_c[n];
	*m = s->free_m[n];
	if (resv && resv->stamp[n] == resv->pass && end >= resv->start[n]) {
		*g = MIN(*g, resv->spare_g[n]);
		*cpu = MIN(*cpu, resv->spare_c[n]);
		*m = MIN(*m, resv->spare_m[n]);
	}
}

static void sched_avail(sched_t *s, const sched_resv_t *resv, int n, int64_t end, int64_t *g, int64_t *cpu,
			int64_t *m)
{
	sched_avail_now(s, n, end, resv, g, cpu, m);
}

/* Move node n between its class's buckets, keeping each bucket in node
 * order: among equally fitting nodes a placement takes the first in
 * slurm.conf order, as select/cons_tres does on ties. */
void sched_bucket_move(sched_t *s, int n, int from, int to)
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
	int64_t rem; /* spreading: GPUs still to place */
	bool single; /* spreading, first try: the whole job on one node */
} place_t;

static bool sched_offer(sched_t *s, place_t *p, int n, int64_t g, int64_t cpu, int64_t m)
{
	const req_t *r = p->r;
	if (r->nodes) {
		if (!sched_node_fits(r, g, cpu, m))
			return false;
		s->abuf[p->found++] = (alloc_t){ n, s->c->nodes[n].cls, r->gpus_per_node, r->cpus_per_node,
						 r->mem_per_node };
		return p->found == (int)r->nodes;
	}
	int64_t take = sched_spread_take(r, g, cpu, m);
	if (p->single ? take < p->rem : take == 0)
		return false;
	take = MIN(take, p->rem);
	s->abuf[p->found++] = sched_spread_alloc(r, n, s->c->nodes[n].cls, take);
	p->rem -= take;
	return p->rem == 0;
}

/* 26.05's choice for a one-node job (select/cons_tres job_test.c,
 * _get_one_res, used where the job's max_nodes is 1 and the topology allows
 * it, as topology/flat does): the candidates sorted by scheduling weight,
 * which node_scheduler.c sets to Weight << 8 | 0xff for every node before
 * the test (the co-located GPU byte is written only as nodes are tried), so
 * by Weight, in node order on ties (glibc's qsort is a merge sort again
 * since 2.39), and the first that can take the job: first fit, not the
 * fullest node of the tightest run. */
static int sched_runs_first_fit(sched_t *s, const req_t *r, int nl)
{
	const sim_cluster_t *c = s->c;
	const sched_place_t *ps = s->place;
	int best = -1;
	for (int q = 0; q < nl; q++) /* CPUs: those sched_runs_sockets left it */
		if (ps->run_cpu[q] >= (int64_t)r->cpus_per_node &&
		    (best < 0 || c->nodes[ps->run_node[q]].weight < c->nodes[ps->run_node[best]].weight))
			best = q;
	if (best < 0)
		return 0;
	int n = ps->run_node[best];
	s->abuf[0] = (alloc_t){ n, c->nodes[n].cls, r->gpus_per_node, r->cpus_per_node, r->mem_per_node };
	return 1;
}

/* select/cons_tres's choice (sched_place_runs) among the nl nodes that can
 * take per-node request r, in s->place->run_node (ascending) with their free CPUs
 * in s->place->run_cpu and scheduling weights in s->place->run_weight (slurm.conf's
 * Weight, shifted left 8 bits, and cons_tres's co-located GPU byte):
 * runs of consecutive nodes of one weight, the lowest weight
 * first (whether or not it suffices), then the tightest sufficient run, and
 * so on (_eval_nodes' consec_weight). Fills s->abuf; returns r->nodes, or 0. */
int sched_runs_choose(sched_t *s, const req_t *r, int nl)
{
	sched_place_t *ps = s->place;
	const sim_cluster_t *c = s->c;
	if (r->nodes == 1 && nl > 0 && cluster_slurm_has(c, SIM_CHG_ONE_NODE_FIRST_FIT))
		return sched_runs_first_fit(s, r, nl);
	int nrun = 0;
	for (int q = 0; q < nl; q++) {
		if (q == 0 || ps->run_node[q] != ps->run_node[q - 1] + 1 ||
		    ps->run_weight[q] != ps->run_weight[q - 1]) {
			ps->run_first[nrun] = q;
			ps->run_cpus[nrun] = 0;
			ps->run_nodes[nrun] = 0;
			nrun++;
		}
		ps->run_cpus[nrun - 1] += ps->run_cpu[q];
		ps->run_nodes[nrun - 1]++;
	}
	ps->run_first[nrun] = nl;
	int found = 0, rem_nodes = (int)r->nodes;
	int64_t rem_cpus = (int64_t)r->cpus_per_node * r->nodes;
	while (rem_nodes > 0) {
		int best = -1;
		bool best_enough = false;
		for (int i = 0; i < nrun; i++) {
			if (!ps->run_nodes[i])
				continue;
			bool enough = ps->run_cpus[i] >= rem_cpus && ps->run_nodes[i] >= rem_nodes;
			uint64_t w = ps->run_weight[ps->run_first[i]];
			uint64_t bw = best < 0 ? 0 : ps->run_weight[ps->run_first[best]];
			if (best < 0 || w < bw ||
			    (w == bw &&
			     ((enough && !best_enough) || (enough && ps->run_cpus[i] < ps->run_cpus[best]) ||
			      (!enough && ps->run_cpus[i] > ps->run_cpus[best])))) {
				best = i;
				best_enough = enough;
			}
		}
		if (best < 0)
			break;
		int first = ps->run_first[best], last = ps->run_first[best + 1], only = -1;
		if (rem_nodes <= 1)
			for (int q = first; q < last; q++)
				if (ps->run_cpu[q] >= rem_cpus &&
				    (only < 0 || ps->run_cpu[q] < ps->run_cpu[only]))
					only = q;
		for (int q = first; q < last && rem_nodes > 0; q++) {
			if (only >= 0 && q != only)
				continue;
			if (rem_nodes == 1 && ps->run_cpu[q] < rem_cpus)
				continue;
			int n = ps->run_node[q];
			s->abuf[found++] = (alloc_t){ n, c->nodes[n].cls, r->gpus_per_node, r->cpus_per_node,
						      r->mem_per_node };
			rem_nodes--;
			rem_cpus -= ps->run_cpu[q];
		}
		ps->run_nodes[best] = 0;
		ps->run_cpus[best] = 0;
	}
	return rem_nodes == 0 ? found : 0;
}

/* On nodes that bind GPUs to sockets, select/cons_tres's first pass
 * (sched_socket.c) replaces the nl candidates' CPUs and weights: the CPUs
 * of the sockets the job's GPUs need, and the node's weight with 0xff less
 * its co-located GPUs in the low byte; a node that pass rejects drops out
 * unless it rejects them all (then Slurm's later pass takes them as they
 * are). Returns the candidates left, in order. */
static int sched_runs_sockets(sched_t *s, const req_t *r, int nl)
{
	sched_place_t *ps = s->place;
	const sim_cluster_t *c = s->c;
	int64_t *cpus = ps->sock_cpu;
	int *near = ps->sock_near, kept = 0;
	for (int q = 0; q < nl; q++) {
		int n = ps->run_node[q];
		cpus[q] = c->nodes[n].sockets > 1 ? sched_socket_first_pass(s, n, r->gpus_per_node,
									    r->cpus_per_node, &near[q])
						  : ps->run_cpu[q];
		kept += cpus[q] >= 0;
	}
	if (!kept)
		return nl;
	int out = 0;
	for (int q = 0; q < nl; q++) {
		int n = ps->run_node[q];
		if (cpus[q] < 0)
			continue;
		if (c->nodes[n].sockets > 1) {
			ps->run_cpu[q] = MIN(ps->run_cpu[q], cpus[q]);
			ps->run_weight[q] = sched_run_weight(c->nodes[n].weight, (uint32_t)near[q]);
		}
		ps->run_node[out] = n;
		ps->run_cpu[out] = ps->run_cpu[q];
		ps->run_weight[out++] = ps->run_weight[q];
	}
	return out;
}

/* Node n as a candidate of sched_place_runs: appended to s->place->run_node (with
 * its CPUs and weight) if it can take r now; returns the new count. */
static int sched_runs_offer(sched_t *s, const req_t *r, const sched_resv_t *resv, int64_t end, int n, int nl)
{
	int64_t g, cpu, m;
	sched_avail(s, resv, n, end, &g, &cpu, &m);
	if (!sched_node_fits(r, g, cpu, m))
		return nl;
	return sched_runs_push(s, r, n, cpu, nl);
}

/* Nodes for per-node request r now (free, or beside reservations resv) among classes
 * cls, as select/cons_tres's _eval_nodes (22.05, job_test.c) picks them
 * without node weights or topology: the nodes that can take the job form
 * runs of consecutive nodes (slurm.conf order; any node that cannot breaks
 * a run). The run taken is the first sufficient one (enough nodes and CPUs
 * for what is left), replaced by a later sufficient one with fewer CPUs, or,
 * as Slurm's test reads, by any insufficient one with more; from it a job
 * needing one more node takes the node with the fewest free CPUs (first on
 * ties), one needing more takes the run's nodes in order; then the next run,
 * until the job has its nodes. So a 2-node job takes l1,l2 (a run of two)
 * over a1 and l1 when a2 between them is full, and a 1-node job the fullest
 * node of the tightest run, not the fullest node overall. Visits every node
 * of the classes with GPUs enough (merged in node order). Fills s->abuf;
 * returns r->nodes, or 0. */
static int sched_place_runs(sched_t *s, const req_t *r, const int *cls, int ncls, const sched_resv_t *resv,
			    int64_t end)
{
	sched_place_t *ps = s->place;
	const sim_cluster_t *c = s->c;
	int nl = 0;
	if (r->gpus_per_node > 0) {
		/* Only nodes with GPUs enough free can take the job: from the
		 * free-GPU buckets, then in node order (the same candidates,
		 * in the same order, as the merge below, without the visit to
		 * every full node). */
		uint64_t *cand = ps->cand; /* a node bitmap, all clear between calls */
		size_t lo = s->nnwords, hi = 0;
		for (int i = 0; i < ncls; i++) {
			int cl = cls[i], kmax = sched_class_gpus(s, cl);
			if (s->class_free_g[cl] < (int64_t)r->gpus_per_node)
				continue;
			for (int k = (int)r->gpus_per_node; k <= kmax; k++) {
				int nb;
				const int *bn = sched_bucket(s, cl, k, &nb);
				for (int q = 0; q < nb; q++) {
					size_t w = (size_t)bn[q] >> 6;
					cand[w] |= 1ull << (bn[q] & 63);
					lo = MIN(lo, w);
					hi = MAX(hi, w + 1);
				}
			}
		}
		for (size_t w = lo; w < hi; w++)
			for (uint64_t b = cand[w]; b; b &= b - 1)
				nl = sched_runs_offer(s, r, resv, end,
						      (int)(w * 64 + (size_t)__builtin_ctzll(b)), nl);
		if (hi > lo)
			memset(&cand[lo], 0, (hi - lo) * sizeof(uint64_t));
	} else {
		for (int i = 0; i < ncls; i++)
			ps->class_pos[i] = 0;
		for (;;) { /* merge the classes' node lists in node order */
			int pick = -1, n = INT32_MAX;
			for (int i = 0; i < ncls; i++) {
				const sim_class_t *cl = &c->classes[cls[i]];
				if (ps->class_pos[i] < cl->nnodes && cl->nodes[ps->class_pos[i]] < n) {
					n = cl->nodes[ps->class_pos[i]];
					pick = i;
				}
			}
			if (pick < 0)
				break;
			ps->class_pos[pick]++;
			nl = sched_runs_offer(s, r, resv, end, n, nl);
		}
	}
	if (s->sock)
		nl = sched_runs_sockets(s, r, nl);
	return sched_runs_choose(s, r, nl);
}

/* The node for one-node request r now (free, or beside reservations resv) among
 * classes cls: select/cons_tres's best fit, the usable node with the fewest
 * free CPUs, the first in slurm.conf order on ties, among the first
 * SCHED_PLACE_WINDOW nodes that fit, fullest in GPUs first over all the
 * classes: a quick answer to whether any node fits, which sched_place then
 * replaces with select/cons_tres's own choice (sched_place_runs). -1: none. */
#define SCHED_PLACE_WINDOW 4
static int sched_place_one(sched_t *s, const req_t *r, const int *cls, int ncls, int kmax,
			   const sched_resv_t *resv, int64_t end)
{
	int best = -1, seen = 0;
	int64_t best_cpu = 0, g, cpu, m;
	for (int k = (int)r->gpus_per_node; k <= kmax && seen < SCHED_PLACE_WINDOW; k++)
		for (int i = 0; i < ncls && seen < SCHED_PLACE_WINDOW; i++) {
			int cl = cls[i], nb;
			if (k > sched_class_gpus(s, cl) || s->class_free_g[cl] < k)
				continue;
			const int *bn = sched_bucket(s, cl, k, &nb);
			for (int q = 0; q < nb && seen < SCHED_PLACE_WINDOW; q++) {
				int n = bn[q];
				sched_avail(s, resv, n, end, &g, &cpu, &m);
				if (!sched_node_fits(r, g, cpu, m))
					continue;
				seen++;
				if (best < 0 || s->free_c[n] < best_cpu ||
				    (s->free_c[n] == best_cpu && n < best)) {
					best = n;
					best_cpu = s->free_c[n];
				}
			}
		}
	return best;
}

/* Nodes for job r in group grp of its eligibility; fills s->abuf, returns
 * the count or 0. Nodes come from the free-GPU buckets, fullest fitting node
 * first (best fit); a spreading job takes one node if one can hold it, else
 * the emptiest nodes first. */
static int sched_place_group(sched_t *s, const req_t *r, int grp, const sched_resv_t *resv, int64_t end)
{
	const sim_cluster_t *c = s->c;
	const elig_t *e = r->elig;
	int64_t g, cpu, m;
	{
		int64_t sum = 0;
		for (int i = 0; i < e->ncls[grp]; i++)
			sum += s->class_free_g[e->cls[grp][i]];
		if (sum < (int64_t)(r->nodes ? (uint64_t)r->nodes * r->gpus_per_node : r->gpus))
			return 0;
		for (int pass = r->nodes ? 1 : 0; pass < 2; pass++) {
			place_t p = { .r = r, .rem = r->gpus, .single = pass == 0 };
			int kmin = r->nodes ? (int)r->gpus_per_node : pass == 0 ? (int)r->gpus : 1;
			if (r->nodes == 1) {
				int n = sched_place_one(s, r, e->cls[grp], e->ncls[grp], e->kmax, resv, end);
				if (n >= 0) {
					s->abuf[0] = (alloc_t){ n, c->nodes[n].cls, r->gpus_per_node,
								r->cpus_per_node, r->mem_per_node };
					return 1;
				}
				continue;
			}
			if ((r->nodes || pass == 0) && e->ncls[grp] > 1) {
				/* several classes (e.g. a100|l40s): the fullest node that
				 * fits over all of them, as select/cons_tres's best fit
				 * looks at every usable node, not class by class */
				for (int k = kmin; k <= e->kmax; k++)
					for (int i = 0; i < e->ncls[grp]; i++) {
						int cl = e->cls[grp][i], nb;
						if (k > sched_class_gpus(s, cl) || s->class_free_g[cl] < k)
							continue;
						const int *bn = sched_bucket(s, cl, k, &nb);
						for (int q = 0; q < nb; q++) {
							sched_avail(s, resv, bn[q], end, &g, &cpu, &m);
							if (sched_offer(s, &p, bn[q], g, cpu, m))
								return p.found;
						}
					}
				continue;
			}
			for (int i = 0; i < e->ncls[grp]; i++) {
				int cl = e->cls[grp][i];
				int kmax = sched_class_gpus(s, cl);
				if (kmin > kmax || s->class_free_g[cl] < kmin)
					continue;
				for (int step = 0; step <= kmax - kmin; step++) {
					/* fullest fitting first; spreading: emptiest first */
					int k = r->nodes || pass == 0 ? kmin + step : kmax - step;
					int nb;
					const int *bn = sched_bucket(s, cl, k, &nb);
					for (int q = 0; q < nb; q++) {
						sched_avail(s, resv, bn[q], end, &g, &cpu, &m);
						if (sched_offer(s, &p, bn[q], g, cpu, m))
							return p.found;
					}
				}
			}
		}
	}
	return 0;
}

/* Choose nodes for job r; fills s->abuf, returns the count or 0. The buckets
 * find quickly whether a group can take the job now; when one can and
 * choose is set, a per-node job's nodes are then chosen as select/cons_tres
 * does (sched_place_runs), which visits every node of the group's classes:
 * a cost paid per start, not per failed try. Without choose, whether the
 * job fits is the same answer, its nodes only the quick ones. */
static int sched_place(sched_t *s, const req_t *r, const sched_resv_t *resv, int64_t end, bool choose)
{
	const elig_t *e = r->elig;
	for (int grp = 0; grp < e->ngroups; grp++) {
		int na = sched_place_group(s, r, grp, resv, end);
		if (na && r->nodes && choose) {
			int nr = sched_place_runs(s, r, e->cls[grp], e->ncls[grp], resv, end);
			if (nr)
				na = nr;
		}
		if (na)
			return na;
	}
	return 0;
}

/* Job j now, with its nodes chosen or not. A job that did not fit without
 * reservations is not tried again until some job has ended. */
static int sched_fit(sched_t *s, uint32_t j, const sched_resv_t *resv, bool choose)
{
	req_t *r = &s->req[j];
	if (s->req[j].fail_epoch == s->release_epoch)
		return 0;
	int na = sched_place(s, r, resv, sched_plan_end(s, r), choose);
	if (!na && !resv)
		s->req[j].fail_epoch = s->release_epoch;
	return na;
}

int sched_fit_now(sched_t *s, uint32_t j, const sched_resv_t *resv)
{
	return sched_fit(s, j, resv, true);
}

bool sched_fits_now(sched_t *s, uint32_t j, const sched_resv_t *resv)
{
	return sched_fit(s, j, resv, false) > 0;
}
