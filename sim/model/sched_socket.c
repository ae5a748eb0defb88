/*
 * sched_socket.c: GPUs bound to sockets, on nodes that give Sockets=
 * (sim_node_t sockets > 1: the GPUs split evenly over the sockets in order,
 * each bound to its socket's cores, as gres.conf Cores= or AutoDetect give
 * on GPU nodes). Per node and socket it keeps the free cores (one per CPU) and
 * GPUs, and gives select/cons_tres's first, "picky" pass its two numbers
 * for a node (Slurm 22.05, cons_common/gres_select_filter.c
 * gres_select_filter_sock_core and gres_select_filter_remove_unusable):
 *
 *   - the CPUs the job may use there: the sockets are taken most free
 *     cores first (index order on ties); a socket without a free GPU loses
 *     its cores (down to what the job needs in all); the first sockets whose
 *     GPUs add up to the job's are the required ones, and only their cores
 *     count. So an empty node offers a 2-GPU job one socket's cores, not
 *     all of them, and best fit by CPUs no longer prefers a half-used node.
 *   - the GPUs near free cores, at most the job's per-node count: cons_tres
 *     puts 0xff less this in the low byte of the node's scheduling weight,
 *     so nodes with more of them come first (job_test.c, "Favor nodes with
 *     more co-located GPUs").
 *
 * A started job takes its GPUs and cores from the required sockets in index
 * order (cons_tres allocates cores socket by socket and GPUs next to them).
 * Checked on the private cluster: tools/replay's alloc column records each
 * job's CPU_IDs and GPU indices.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/model/sched_internal.h"

/* Free cores and GPUs per node and socket (SIM_MAX_SOCKETS each), and
 * per node the first pass's last answer, kept until the node's sockets
 * change: a start looks at every node that could take the job, most of
 * them unchanged since the start before and asked for the same shape. */
struct sched_sock {
	int32_t *sock_c;
	int32_t *sock_g;
	struct sock_seen {
		uint32_t gpus, cpus; /* what was asked (valid: gpus or cpus > 0) */
		int64_t avail;       /* sched_socket_first_pass's answer */
		int near;
	} * seen;
};

/* s->sock stays NULL unless some node binds GPUs to sockets. */
void sched_socket_init(sched_t *s)
{
	const sim_cluster_t *c = s->c;
	bool any = false;
	for (int n = 0; n < c->nnodes; n++)
		any |= c->nodes[n].sockets > 1;
	if (!any)
		return;
	sched_sock_t *k = g_new0(sched_sock_t, 1);
	s->sock = k;
	k->sock_c = g_new0(int32_t, (size_t)c->nnodes * SIM_MAX_SOCKETS);
	k->sock_g = g_new0(int32_t, (size_t)c->nnodes * SIM_MAX_SOCKETS);
	k->seen = g_new0(struct sock_seen, (size_t)c->nnodes);
	for (int n = 0; n < c->nnodes; n++) {
		const sim_node_t *nd = &c->nodes[n];
		if (!nd->usable)
			continue;
		for (uint32_t q = 0; q < nd->sockets; q++) {
			k->sock_c[n * SIM_MAX_SOCKETS + q] = (int32_t)(nd->cpus / nd->sockets);
			k->sock_g[n * SIM_MAX_SOCKETS + q] = (int32_t)(nd->gpus / nd->sockets);
		}
	}
}

/* The first pass on node n for a job wanting gpus GPUs and cpus CPUs there:
 * fills req[] (the required sockets), returns the CPUs it may use (-1: the
 * first pass finds no way), *near the co-located GPUs (capped at gpus). */
static int64_t sched_socket_pass(const sched_t *s, int n, uint32_t gpus, uint32_t cpus, int *near, bool *req)
{
	const sim_node_t *nd = &s->c->nodes[n];
	int S = (int)nd->sockets;
	int32_t fc[SIM_MAX_SOCKETS], fg[SIM_MAX_SOCKETS];
	if (gpus == 0) { /* no GPU asked: no GPU filter */
		int64_t all = 0;
		for (int k = 0; k < S; k++) {
			req[k] = true;
			all += s->sock->sock_c[n * SIM_MAX_SOCKETS + k];
		}
		*near = 0;
		return all >= (int64_t)cpus ? all : -1;
	}
	int order[SIM_MAX_SOCKETS];
	int64_t tot = 0, near_all = 0;
	for (int k = 0; k < S; k++) {
		fc[k] = s->sock->sock_c[n * SIM_MAX_SOCKETS + k];
		fg[k] = s->sock->sock_g[n * SIM_MAX_SOCKETS + k];
		tot += fc[k];
		if (fc[k] > 0)
			near_all += fg[k];
		req[k] = false;
		/* most free cores first, index order on ties (insertion sort) */
		int q = k;
		while (q > 0 && fc[order[q - 1]] < fc[k]) {
			order[q] = order[q - 1];
			q--;
		}
		order[q] = k;
	}
	*near = (int)MIN(near_all, (int64_t)gpus);
	int64_t total = 0;
	bool enough = false;
	for (int j = 0; j < S; j++) {
		int k = order[j];
		if (fg[k] == 0 && tot > (int64_t)cpus) { /* no GPU here: its cores go, */
			int32_t d = (int32_t)MIN((int64_t)fc[k], tot - (int64_t)cpus); /* down to cpus */
			fc[k] -= d;
			tot -= d;
		}
		if (fc[k] == 0)
			continue;
		total += fg[k];
		if (!enough)
			req[k] = true;
		if (total >= (int64_t)gpus)
			enough = true;
	}
	if (!enough)
		return -1;
	int64_t avail = 0;
	for (int k = 0; k < S; k++)
		if (req[k])
			avail += fc[k];
	return avail >= (int64_t)cpus ? avail : -1;
}

int64_t sched_socket_first_pass(const sched_t *s, int n, uint32_t gpus, uint32_t cpus, int *near)
{
	struct sock_seen *v = &s->sock->seen[n];
	if (v->gpus != gpus || v->cpus != cpus || (gpus | cpus) == 0) {
		bool req[SIM_MAX_SOCKETS];
		*v = (struct sock_seen){ gpus, cpus, 0, 0 };
		v->avail = sched_socket_pass(s, n, gpus, cpus, &v->near, req);
	}
	*near = v->near;
	return v->avail;
}

/* Take a's GPUs and CPUs from its node's sockets: the required ones first,
 * in index order, then any (a placement the first pass did not make, e.g.
 * a reservation's); records what each socket gave in *t. */
void sched_socket_take(sched_t *s, const alloc_t *a, sock_take_t *t)
{
	int n = a->node, S = (int)s->c->nodes[n].sockets, near;
	bool req[SIM_MAX_SOCKETS];
	memset(t, 0, sizeof(*t));
	if (S <= 1)
		return;
	s->sock->seen[n] = (struct sock_seen){ 0 };
	if (sched_socket_pass(s, n, a->gpus, a->cpus, &near, req) < 0)
		for (int k = 0; k < S; k++)
			req[k] = true;
	int64_t g = a->gpus, cpu = a->cpus;
	for (int round = 0; round < 2; round++)
		for (int k = 0; k < S; k++) {
			if (round == 0 && !req[k])
				continue;
			int32_t *fc = &s->sock->sock_c[n * SIM_MAX_SOCKETS + k];
			int32_t *fg = &s->sock->sock_g[n * SIM_MAX_SOCKETS + k];
			int64_t tg = MIN(g, (int64_t)MAX(*fg, 0)), tc = MIN(cpu, (int64_t)MAX(*fc, 0));
			*fg -= (int32_t)tg;
			*fc -= (int32_t)tc;
			t->g[k] += (uint8_t)tg;
			t->c[k] += (uint16_t)tc;
			g -= tg;
			cpu -= tc;
		}
}

void sched_socket_release(sched_t *s, const alloc_t *a, const sock_take_t *t)
{
	int n = a->node, S = (int)s->c->nodes[n].sockets;
	s->sock->seen[n] = (struct sock_seen){ 0 };
	for (int k = 0; k < S && S > 1; k++) {
		s->sock->sock_c[n * SIM_MAX_SOCKETS + k] += t->c[k];
		s->sock->sock_g[n * SIM_MAX_SOCKETS + k] += t->g[k];
	}
}

void sched_socket_free(sched_t *s)
{
	if (!s->sock)
		return;
	g_free(s->sock->sock_c);
	g_free(s->sock->sock_g);
	g_free(s->sock->seen);
	g_free(s->sock);
	s->sock = NULL;
}
