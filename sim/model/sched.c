/*
 * sched.c: the scheduler model of nodeox-sim: the run (events, priority
 * order, the main pass, job start and end). Submission is in
 * sched_request.c, placement in sched_place.c, backfill in sched_backfill.c;
 * what they share (sched_t) in sched_internal.h, and each keeps its own
 * state to itself. The run calls them; they do not call the run (the
 * backfill pass hands the run the jobs it starts, sched_backfill_next).
 *
 * Events (job ends from a binary heap, submissions from the sorted trace)
 * drive two kinds of passes, as in slurmctld:
 *  - the main pass, after job ends, for submissions once batch_sched_delay
 *    has passed since slurmctld's background loop last ran one, and over the
 *    whole queue every sched_interval: pending jobs in priority order, at
 *    most default_queue_depth of them, each started if it fits now; the
 *    first job that does not fit blocks the rest of its partition;
 *  - the backfill pass, every bf_interval seconds when something changed (a
 *    submit, an end, new priorities, or the last pass started a job): up
 *    to bf_max_job_test jobs in priority order; a job that cannot start now
 *    gets a reservation at its earliest expected start (found by releasing
 *    running jobs at their expected ends, within bf_window, at bf_resolution),
 *    and a lower-priority job starts now only if it leaves every reservation
 *    on the nodes it takes intact.
 * Priority is Slurm's multifactor subset (age, job size, partition; sim/model/prio.c
 * computes the factors and the integer Slurm stores), computed at
 * submission (age 0) and again for every pending job each
 * PriorityCalcPeriod from slurmctld's start (the decay thread; only with an
 * age weight, which Slurm honours only with slurmdbd). Pending jobs sit in
 * three ordered lists (submitted since the last recalculation, still
 * ageing, capped; sim/model/prio.c) merged on the fly: no re-sorting per pass,
 * one per recalculation.
 *
 * Costs are bounded per pass, never by the queue length: nodes are indexed
 * by class (GPU type, shape, features, partitions) and, within a class, kept
 * in buckets by free GPUs, so a placement visits only nodes that can serve
 * it; a job that failed to fit is not re-tried until some job has ended (a
 * release epoch); running jobs sit in one array by expected end, which
 * Slurm's will-run test walks over a node bitmap, or reads from an index
 * of it by node, rebuilt when a job starts or ends (sched_backfill.c); its
 * answers are remembered per request shape and node set until a job starts
 * or ends; reservations are computed lazily, only when a lower-priority job
 * could start now on classes they might use. The same model runs at every
 * cluster size. Where this differs from Slurm is in doc/simulator.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/free_all.h"
#include "sim/model/bf_phase.h"
#include "sim/model/sched_internal.h"

/* ------------------------------------------------------------ priority */

/* Slurm's priority for job j, as it stores it, with `age_s` seconds of age
 * (negative: none accrued yet): priority_multifactor.c,
 * _get_priority_internal and set_priority_factors (22.05 to 26.05). Each
 * factor times its weight, summed in Slurm's order (age, fair-share as the
 * last decay pass left it (sched_fair.c), job size, partition, then QOS
 * (qos.c: the job's QOS of qos.conf, "normal" where the trace gives none);
 * the association and TRES factors are not modelled and count 0, as do
 * site factor and nice), then stored as an
 * integer (prio_store: truncated, at least 1). The job-size factor counts
 * the job's minimum node count and the CPUs slurmctld counts while it
 * pends (tasks x CPUs per task, not what it is allocated;
 * sched_request.c); GPUs do not count. The partition factor is the
 * partition's PriorityJobFactor over the highest one (norm_priority), or
 * the factor itself with PriorityFlags=NO_NORMAL_PART. Slurm orders the
 * queue by partition PriorityTier first (sort_job_queue2): the tier sits
 * above the 32-bit priority in the key. A job asking for several
 * partitions gets one queue entry per partition there; here it has one,
 * at the highest tier among them and, within it, its highest priority. */
#define SCHED_TIER_STEP 4294967296.0
static double sched_key(const sched_t *s, uint32_t j, int64_t age_s)
{
	const sim_sched_params_t *p = &s->o->params;
	const req_t *r = &s->req[j];
	double age = 0, fs = 0, js = 0;
	if (p->weight_age > 0 && age_s >= 0)
		age = prio_age_factor(age_s, p->max_age_s) * p->weight_age;
	if (p->weight_fs > 0)
		fs = sched_fair_factor(s, j) * p->weight_fs;
	if (p->weight_job_size > 0) {
		uint32_t limit_min = r->limit == SCHED_INF ? UINT32_MAX : (uint32_t)(r->limit / 60);
		js = prio_size_factor(r->nodes ? r->nodes : 1, r->size_cpus, (uint32_t)s->c->nnodes,
				      (uint32_t)s->c->total_cpus, p->favor_small, p->size_relative,
				      limit_min) *
		     p->weight_job_size;
	}
	double best = -1;
	for (int q = 0; q < s->c->nparts; q++) {
		const sim_part_t *part = &s->c->parts[q];
		if (!(r->parts >> q & 1))
			continue;
		double pf = 0;
		if (p->weight_partition > 0 && part->job_factor)
			pf = (p->no_normal_part ? part->job_factor : part->norm_job) * p->weight_partition;
		double k = part->tier * SCHED_TIER_STEP + prio_store(age + fs + js + pf + s->qos_w[j]);
		best = MAX(best, k);
	}
	return best >= 0 ? best : prio_store(age + fs + js + s->qos_w[j]);
}

/* A new job's priority has no age yet (Slurm sets it at submission, before
 * the job accrues any): it waits in the fresh list until the next
 * recalculation. Without an age weight priorities never change and every
 * job goes straight to the young list. */
static void sched_pending_add(sched_t *s, uint32_t j)
{
	s->key[j] = sched_key(s, j, -1);
	if (s->o->params.weight_age > 0) {
		s->where[j] = SCHED_FRESH;
		prio_list_insert(&s->fresh, s->key[j], j);
	} else {
		s->where[j] = SCHED_YOUNG;
		prio_list_insert(&s->young, s->key[j], j);
	}
	if (++s->npending > s->run->max_pending)
		s->run->max_pending = s->npending;
}

static prio_list_t *sched_list_of(sched_t *s, uint32_t j)
{
	return s->where[j] == SCHED_OLD ? &s->old : s->where[j] == SCHED_FRESH ? &s->fresh : &s->young;
}

static int sched_ent_cmp(const void *a, const void *b)
{
	const prio_ent_t *x = a, *y = b;
	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return (x->job > y->job) - (x->job < y->job);
}

/* The decay thread's recalculation at time `at` (slurmctld runs it every
 * PriorityCalcPeriod from its own start, sched_recalc_last;
 * decay_apply_weighted_factors): every pending job's priority is computed
 * again with its age as of then (at - submit, capped at PriorityMaxAge).
 * The stored priority is an integer, so two jobs whose ages differ by less
 * than a point tie now and part later: the order of the ageing jobs is
 * computed anew each time (the work Slurm's decay thread does too). Jobs
 * past the cap move to the capped list, whose priorities no longer change
 * (but with fair-share, whose factor each pass changes: sched_fair.c). */
static void sched_recalc(sched_t *s, int64_t at)
{
	const sim_sched_params_t *p = &s->o->params;
	sched_fair_pass(s, at); /* usage and factors first (fair_tree_decay) */
	size_t n = s->fresh.n + s->young.n, k = 0;
	prio_ent_t *all = g_new(prio_ent_t, MAX(n, 1));
	prio_list_t *from[] = { &s->fresh, &s->young };
	for (int l = 0; l < 2; l++) {
		prio_pos_t pos = { 0, 0 };
		const prio_ent_t *e;
		while ((e = prio_list_at(from[l], &pos))) {
			all[k++] = *e;
			pos.p++;
		}
		prio_list_free(from[l]);
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t j = all[i].job;
		int64_t age = at - s->t->jobs[j].submit;
		all[i].key = s->key[j] = sched_key(s, j, age);
		/* with fair-share no priority stops changing */
		s->where[j] = age >= p->max_age_s && !s->fair ? SCHED_OLD : SCHED_YOUNG;
	}
	qsort(all, n, sizeof(prio_ent_t), sched_ent_cmp);
	for (size_t i = 0; i < n; i++) /* in order: each goes to its list's end */
		prio_list_insert(s->where[all[i].job] == SCHED_OLD ? &s->old : &s->young, all[i].key,
				 all[i].job);
	g_free(all);
	s->prio_time = at;
}

/* The last second at or before t on the grid of every `period` seconds
 * through org. */
static int64_t sched_grid_last(int64_t org, int64_t period, int64_t t)
{
	return t - (((t - org) % period) + period) % period;
}

/* The last second at or before t of a clock slurmctld runs every `period`
 * seconds from its start (limit_origin_s): the time-limit checks, the
 * full-queue passes and the decay thread all keep such a grid. */
static int64_t sched_ctld_tick(const sim_sched_params_t *p, int64_t period, int64_t t)
{
	return sched_grid_last(p->limit_origin_s, period, t);
}

/* The last second at or before `now` at which the decay thread recalculates.
 * _decay_thread (22.05, priority_multifactor.c) takes its timer from the
 * clock when slurmctld starts it and adds PriorityCalcPeriod to that
 * absolute time after each pass (slurm_cond_timedwait), so its passes fall
 * at slurmctld's start plus whole periods, whatever the trace does. */
static int64_t sched_recalc_last(const sim_sched_params_t *p, int64_t now)
{
	return sched_ctld_tick(p, p->calc_period_s, now);
}

/* ------------------------------------------------------------ start / end */

/* The seconds job j's nodes stay taken after its last second.
 *
 * With a real run's backfill pass phases (params.bf_phase): slurmctld
 * starts almost every job from a backfill pass, so the job starts at its
 * second's pass phase, ends end_overhead_s after its run time (measured:
 * 0.075 s, the median over 465 jobs), and its nodes go to the next job at
 * the first pass after that end: in the same second if the pass there comes
 * later, else the next (the pass timer repeats every bf_interval plus the
 * pass's own run time, so its phase drifts and the table is interpolated).
 * A job killed at its time limit frees its nodes at the check itself (the
 * main scheduler started the next job 29 ms after "Time limit exhausted").
 *
 * Without: the whole part of end_latency_s, plus one for a share of the
 * jobs equal to its fraction, chosen by a hash of the job's trace id and
 * latency_seed (the same job gets the same latency in both modes of a run;
 * another seed picks other jobs, a sample of the second-level noise a real
 * cluster has). */
static int64_t sched_end_latency(const sched_t *s, uint32_t j)
{
	const sim_bf_phase_t *ph = s->o->params.bf_phase;
	if (ph) {
		const sim_result_t *res = &s->run->jobs[j];
		if (res->status == SIM_JOB_TIMEOUT)
			return 0;
		double end = (double)res->end + bf_phase_at(ph, res->start) + s->o->params.end_overhead_s;
		int64_t second = (int64_t)floor(end);
		return second - res->end + (end - (double)second >= bf_phase_at(ph, second) ? 1 : 0);
	}
	double l = s->o->params.end_latency_s, whole = floor(l);
	uint32_t h = (s->t->jobs[j].id ^ (s->o->params.latency_seed * 0x9e3779b9u)) * 2654435761u;
	h ^= h >> 16;
	return (int64_t)whole + ((double)(h & 0xffff) / 65536.0 < l - whole ? 1 : 0);
}

/* Running job j goes into the list of running jobs by expected end (where
 * backfill's will-run test walks them); an ended one leaves it. The
 * entries before the place or those after it move, whichever are fewer
 * (jobs mostly end before their expected end, near the list's start), so
 * the list keeps room on both sides and is centred in it when one side
 * runs out. */
static void sched_release_add(sched_t *s, uint32_t j, const running_t *run)
{
	rellist_t *l = &s->all;
	size_t at = sched_release_find(l, run->expected_end, j);
	if (at < l->n / 2 && l->head > 0) {
		l->e--;
		l->head--;
		memmove(&l->e[0], &l->e[1], at * sizeof(release_t));
	} else {
		if (l->head + l->n == l->cap) {
			release_t *base = l->e ? l->e - l->head : NULL;
			if (2 * (l->n + 1) > l->cap) {
				l->cap = MAX(2 * l->cap, 256);
				base = g_renew(release_t, base, l->cap);
			}
			size_t head = (l->cap - l->n) / 2;
			memmove(&base[head], &base[l->head], l->n * sizeof(release_t));
			l->head = head;
			l->e = base + head;
		}
		memmove(&l->e[at + 1], &l->e[at], (l->n - at) * sizeof(release_t));
	}
	l->e[at] = (release_t){ .end = run->expected_end, .job = j, .node = -1 };
	if (run->na == 1)
		l->e[at] = (release_t){ .end = run->expected_end,
					.job = j,
					.node = run->a[0].node,
					.gpus = run->a[0].gpus,
					.cpus = run->a[0].cpus,
					.mem = run->a[0].mem };
	l->n++;
}

static void sched_release_drop(sched_t *s, uint32_t j, const running_t *run)
{
	rellist_t *l = &s->all;
	size_t at = sched_release_find(l, run->expected_end, j);
	if (at < l->n / 2) {
		memmove(&l->e[1], &l->e[0], at * sizeof(release_t));
		l->e++;
		l->head++;
	} else {
		memmove(&l->e[at], &l->e[at + 1], (l->n - at - 1) * sizeof(release_t));
	}
	l->n--;
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
		sched_policy_idle(s, n, (uint32_t)(s->free_g[n] + s->soft_g[n]));
	}
}

/* The policy's view of a job's end (Broaden=when-blocked counts idle GPUs).
 * slurmctld frees a job's GPUs when it records its end (22.05: job_mgr.c
 * _job_complete, deallocate_nodes, select/cons_common's select_p_job_fini,
 * job_res_rm_job, gres_ctld_job_dealloc, which lowers the node's
 * gres_cnt_alloc that job_submit/nodeox reads), but starts the
 * next job there only at its next pass: the model hands the nodes on in that
 * pass's second (sched_end_latency). A submission in between sees the GPUs
 * idle. So the job's real end, its last second plus its start's sub-second
 * (the pass phase; 0 without --bf-phase) plus end_overhead_s, is pushed as
 * a soft end to the first second whose submissions (at submit_phase_s into
 * it) come after it, if that is not after the hand-on's second (whose
 * submissions come before the hand-on); at that second, before its
 * submissions, the job's GPUs join the policy's view (not the scheduler's)
 * until the hand-on. A job killed at its limit hands its nodes on at the
 * check itself and has none. Measured on the six plugin-on runs of mffair,
 * mfdbd and mflarge: the idle GPUs rebuilt from each run's starts and ends
 * (GPUs freed at the end slurmctld logged) give the plugin's logged
 * decision for 3,337 of 3,352 submissions. */
static void sched_soft_plan(sched_t *s, uint32_t j, int64_t handed_on)
{
	const sim_result_t *res = &s->run->jobs[j];
	const sim_bf_phase_t *ph = s->o->params.bf_phase;
	if (!s->o->policy || res->status == SIM_JOB_TIMEOUT)
		return;
	double end = (double)res->end + (ph ? bf_phase_at(ph, res->start) : 0) + s->o->params.end_overhead_s;
	int64_t seen = (int64_t)floor(end - s->o->params.submit_phase_s) + 1;
	if (seen <= handed_on) /* its submissions come before the hand-on */
		sim_queue_push(&s->soft, seen, SIM_EV_END, j);
}

/* The soft ends due by now (sched_soft_plan), before this second's
 * submissions. */
static void sched_soft_end(sched_t *s)
{
	const sim_event_t *ev;
	sim_event_t e;
	while ((ev = sim_queue_peek(&s->soft)) && ev->time <= s->now) {
		sim_queue_pop(&s->soft, &e);
		running_t *run = s->running[e.job];
		if (!run || run->soft)
			continue;
		run->soft = true;
		for (int i = 0; i < run->na; i++) {
			int n = run->a[i].node;
			s->soft_g[n] += (int32_t)run->a[i].gpus;
			sched_policy_idle(s, n, (uint32_t)(s->free_g[n] + s->soft_g[n]));
		}
	}
}

static void sched_start(sched_t *s, uint32_t j, int na)
{
	const sim_cluster_t *c = s->c;
	const sim_job_t *job = &s->t->jobs[j];
	req_t *r = &s->req[j];
	running_t *run = g_new0(running_t, 1);
	sched_backfill_forget(s); /* free resources change: no remembered answers */
	run->a = g_memdup2(s->abuf, sizeof(alloc_t) * na);
	run->na = na;
	if (s->sock) {
		run->st = g_new(sock_take_t, na);
		for (int i = 0; i < na; i++)
			sched_socket_take(s, &run->a[i], &run->st[i]);
	}
	memset(s->gpus_by_type, 0, sizeof(s->gpus_by_type));
	for (int i = 0; i < na; i++) {
		const alloc_t *a = &run->a[i];
		sched_take(s, a, 1);
		int t = c->nodes[a->node].type;
		if (t >= 0)
			s->gpus_by_type[t] += a->gpus;
	}
	int64_t dur = runtime_model_duration(s->o->runtime, job, r->req_type, s->gpus_by_type);
	sim_result_t *res = &s->run->jobs[j];
	res->status = SIM_JOB_DONE;
	if (r->limit != SCHED_INF && dur > r->limit) {
		/* slurmctld looks for jobs past their limit every PERIODIC_TIMEOUT
		 * (30 s, from its start: trace second limit_origin_s): the job
		 * runs on until that check. */
		int64_t kill = sched_ctld_tick(&s->o->params, SCHED_TIMEOUT_CHECK_S, s->now + r->limit - 1) +
			       SCHED_TIMEOUT_CHECK_S; /* the first check at or after the limit */
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
			len += (size_t)snprintf(types + len, sizeof(types) - len, "%s%s:%u", len ? "+" : "",
						c->types[t], s->gpus_by_type[t]);
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
	/* The nodes go back a little after the job's end: slurmctld records the
	 * end a fraction of a second after the job's last second and starts the
	 * next job at its next pass (measured in the fidelity replays: 0.37 s
	 * and 0.53 s on average). The job's own times stay as they are. */
	int64_t handed_on = res->end + sched_end_latency(s, j);
	sim_queue_push(&s->events, handed_on, SIM_EV_END, j);
	sched_soft_plan(s, j, handed_on);
	prio_list_remove(sched_list_of(s, j), s->key[j], j);
	s->where[j] = SCHED_GONE;
	s->npending--;
}

static void sched_end(sched_t *s, uint32_t j)
{
	sched_fair_end(s, j); /* before its allocation goes */
	sched_policy_job_end(s, j);
	running_t *run = s->running[j];
	const sim_result_t *res = &s->run->jobs[j];
	int64_t dur = res->end - res->start;
	for (int i = 0; i < run->na; i++) {
		const alloc_t *a = &run->a[i];
		if (run->soft)
			s->soft_g[a->node] -= (int32_t)a->gpus; /* sched_take shows the rest */
		sched_take(s, a, -1);
		s->node_end[a->node] = s->now;
		if (run->st)
			sched_socket_release(s, a, &run->st[i]);
		int t = s->c->nodes[a->node].type;
		if (t >= 0) {
			s->run->gpu_seconds[0][t] += (double)a->gpus * (double)dur;
			if (res->tagged)
				s->run->gpu_seconds[1][t] += (double)a->gpus * (double)dur;
		}
	}
	sched_release_drop(s, j, run);
	sched_backfill_forget(s);
	nodeox_g_free_all(run->a, run->st, run);
	s->running[j] = NULL;
	s->release_epoch++;
	s->ended++;
	if (res->end > s->run->last_end)
		s->run->last_end = res->end;
}

/* ------------------------------------------------------------ passes */

/* One backfill pass (sched_backfill.c decides, the run starts the jobs it
 * picks); returns how many jobs it started. */
static int sched_backfill(sched_t *s)
{
	int started = 0, na;
	int64_t j;
	sched_backfill_begin(s);
	while ((j = sched_backfill_next(s, &na)) >= 0) {
		sched_start(s, (uint32_t)j, na);
		started++;
	}
	sched_backfill_end(s);
	return started;
}

/* Are all the nodes elig may use in a partition that failed this pass?
 * Slurm's main pass takes a failed job's partition's nodes away from every
 * later job (job_scheduler.c: bit_and_not(avail_node_bitmap,
 * part_ptr->node_bitmap)), whatever partition that job asked for. */
static bool sched_nodes_blocked(const sched_t *s, const elig_t *e, uint64_t failed_parts)
{
	for (int k = 0; k < e->nucls; k++)
		if (!(s->c->nodes[s->c->classes[e->ucls[k]].first].partitions & failed_parts))
			return false;
	return true;
}

/* Is a node the job's test would look at completing, that is, did a job
 * give it back this second (nodeox-sim's stand-in for slurmctld's COMPLETING
 * nodes, which it has no state for)? Such a node must be one of the job's
 * partitions and constraint (elig's wbits, whatever their GPUs) and not
 * taken away by a failed partition. slurmctld 22.05 tests a job whose GPU
 * nodes all lie in failed partitions on what is left (select_nodes,
 * _pick_best_nodes): with a completing node among them it answers
 * ESLURM_NODES_BUSY and _schedule fails the job's partition too
 * (fail_by_part); without, ESLURM_NODE_NOT_AVAIL, which leaves the
 * partition open. Seen on tests/fidelity/large: a `short` l40s job behind a
 * failed `gpu` job stops the t4 jobs behind it until the next full pass. */
static bool sched_test_nodes_completing(const sched_t *s, const elig_t *e, uint64_t failed_parts)
{
	const sim_cluster_t *c = s->c;
	for (size_t w = 0; w < s->nwords; w++)
		for (uint64_t b = e->wbits[w]; b; b &= b - 1) {
			const sim_class_t *cl = &c->classes[w * 64 + (size_t)__builtin_ctzll(b)];
			if (c->nodes[cl->first].partitions & failed_parts)
				continue;
			for (int i = 0; i < cl->nnodes; i++)
				if (s->node_end[cl->nodes[i]] == s->now)
					return true;
		}
	return false;
}

/* One main pass; full: the whole queue (every sched_interval, slurmctld's
 * background loop: controller.c, schedule(full_queue)), else at most
 * default_queue_depth jobs (the passes events trigger). Returns the jobs it
 * started. */
static int sched_main_pass(sched_t *s, bool full)
{
	s->run->main_passes++;
	uint64_t failed_parts = 0,
		 all_parts = (s->c->nparts >= 64) ? UINT64_MAX : ((1ull << s->c->nparts) - 1);
	prio_iter_t it;
	sched_order_begin(s, &it);
	const sim_sched_params_t *p = &s->o->params;
	int depth = p->default_queue_depth, started = 0;
	if (p->partition_job_depth)
		memset(s->part_tested, 0, sizeof(int) * (size_t)MAX(s->c->nparts, 1));
	for (int tested = 0;;) {
		int64_t j = sched_order_next(s, &it);
		if (j < 0)
			break;
		/* Slurm 22.05 and 24.11 (job_scheduler.c _schedule) in this
		 * order: sched_max_job_start ends the pass; a partition past
		 * partition_job_depth skips the job without counting it
		 * towards default_queue_depth; that depth ends the pass. */
		if (p->sched_max_job_start && started >= p->sched_max_job_start)
			break;
		if (p->partition_job_depth &&
		    s->part_tested[sched_job_part(s, (uint32_t)j)]++ >= p->partition_job_depth)
			continue;
		if (tested++ >= depth && !full)
			break;
		uint64_t jp = s->req[j].parts;
		if (!(jp & ~failed_parts))
			continue;
		/* A job with --prefer is tried with its prefer record: should
		 * that not fit, its partition fails and its second record is
		 * skipped with the rest (sched_prefer.c); from 25.11.1 and
		 * 26.05 the partition stays open and the second record is
		 * tried next (sched_prefer_keeps_part). */
		bool pref = sched_prefer_swap(s, (uint32_t)j);
		for (;;) {
			bool fail = false;
			int na = 0;
			if (failed_parts && sched_nodes_blocked(s, s->req[j].elig, failed_parts))
				fail = sched_test_nodes_completing(s, s->req[j].elig, failed_parts);
			else if (!(na = sched_fit_now(s, (uint32_t)j, NULL)))
				fail = true;
			if (pref)
				sched_prefer_swap(s, (uint32_t)j);
			if (na) {
				sched_start(s, (uint32_t)j, na);
				started++;
			} else if (pref && sched_prefer_keeps_part(s)) {
				pref = false;
				continue;
			} else if (fail) {
				failed_parts |= jp;
			}
			break;
		}
		if ((failed_parts & all_parts) == all_parts)
			break;
	}
	sched_order_end(s);
	return started;
}

/* The first second after `after` on the grid of the main passes over the
 * whole queue: every sched_interval from org (sched_full_origin). */
static int64_t sched_next_full(const sim_sched_params_t *p, int64_t org, int64_t after)
{
	return after < org ? org : sched_grid_last(org, p->sched_interval_s, after) + p->sched_interval_s;
}

/* Is limit_origin_s slurmctld's start (not after the trace's first
 * submission), rather than only the phase of a long-running one's clocks? */
static bool sched_ctld_start_known(const sim_sched_params_t *p, int64_t first_submit)
{
	return p->limit_origin_s <= first_submit;
}

/* Where the background loop's passes over the whole queue start. It runs
 * one once sched_interval has passed since the last (from its own start),
 * but it reads sched_interval in the first schedule() (job_scheduler.c
 * _schedule, 22.05 and 24.11), so until then it waits Slurm's built-in 60 s;
 * that first schedule() is the batched one for the first submission
 * (sched_run), and the next tick finds the interval passed. Where
 * slurmctld's start is not before the trace (limit_origin_s only sets the
 * phase of its clock), a long-running slurmctld: the grid from that origin. */
static int64_t sched_full_origin(const sim_sched_params_t *p, int64_t first_submit)
{
	int64_t ctld = p->limit_origin_s, per = p->sched_interval_s;
	if (!sched_ctld_start_known(p, first_submit))
		return sched_ctld_tick(p, per, first_submit - 1) + per;
	int64_t first = MAX(first_submit, ctld + p->batch_sched_delay_s);
	if (per == 60 || first >= ctld + 60)
		return ctld + 60;
	return MAX(first + 1, ctld + per);
}

/* ------------------------------------------------------------ the run */

static void sched_state_init(sched_t *s)
{
	const sim_cluster_t *c = s->c;
	size_t nj = s->t->njobs, nn = (size_t)c->nnodes;
	s->nwords = ((size_t)c->nclasses + 63) / 64;
	s->free_g = g_new(int32_t, nn);
	s->node_end = g_new(int64_t, nn);
	for (size_t n = 0; n < nn; n++)
		s->node_end[n] = INT64_MIN;
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
	sched_place_init(s); /* buckets by the free GPUs above */
	sched_request_init(s);
	s->req = g_new0(req_t, nj);
	s->preq = g_new0(req_t, nj);
	s->tagged = g_new(bool, nj);
	for (size_t j = 0; j < nj; j++)
		s->tagged[j] = s->o->tagged ? s->o->tagged[j] : s->t->jobs[j].tagged;
	s->where = g_new0(uint8_t, nj);
	s->key = g_new0(double, nj);
	s->qos_w = g_new0(double, nj);
	if (s->o->params.weight_qos > 0)
		for (size_t j = 0; j < nj; j++)
			s->qos_w[j] = qos_factor(&c->qos, qos_find(&c->qos, s->t->jobs[j].qos),
						 s->o->params.no_normal_qos) *
				      s->o->params.weight_qos;
	s->running = g_new0(running_t *, nj);
	prio_list_init(&s->fresh);
	prio_list_init(&s->young);
	prio_list_init(&s->old);
	s->prio_time = 0;
	sched_fair_init(s);
	/* the decay thread's passes change priorities by age and by usage */
	s->next_recalc = s->o->params.weight_age > 0 || s->fair ? 0 : SCHED_INF;
	sim_queue_init(&s->events);
	sim_queue_init(&s->soft);
	s->soft_g = g_new0(int32_t, nn);
	s->abuf = g_new(alloc_t, nn + 1);
	s->part_tested = g_new0(int, MAX(c->nparts, 1));
	sched_socket_init(s);
	s->nnwords = (nn + 63) / 64;
	sched_backfill_init(s);
}

static void sched_state_free(sched_t *s)
{
	for (size_t j = 0; j < s->t->njobs; j++)
		if (s->running[j]) {
			nodeox_g_free_all(s->running[j]->a, s->running[j]->st, s->running[j]);
		}
	nodeox_g_free_all(s->free_g, s->free_c, s->free_m, s->class_free_g, s->node_end);
	sched_request_free(s);
	nodeox_g_free_all(s->req, s->preq, s->tagged, s->where, s->key, s->qos_w, s->running);
	prio_list_free(&s->fresh);
	prio_list_free(&s->young);
	prio_list_free(&s->old);
	sched_fair_free(s);
	if (s->all.e)
		g_free(s->all.e - s->all.head);
	sched_backfill_free(s);
	sim_queue_free(&s->events);
	sim_queue_free(&s->soft);
	g_free(s->soft_g);
	g_free(s->part_tested);
	g_free(s->abuf);
	sched_place_free(s);
	sched_socket_free(s);
}

/* The inputs a run needs to make sense, whoever filled them (slurm.conf,
 * the command line, a test): 0, or -1 with err naming what is wrong. The
 * limit on the times keeps now + window and the like far from overflow. */
#define SCHED_PARAM_MAX (1ll << 30)
static int sched_inputs_check(const sim_cluster_t *c, const sim_trace_t *t, const sim_sched_opts_t *o,
			      char *err, size_t errlen)
{
	const sim_sched_params_t *p = &o->params;
	const struct {
		const char *name, *unit;
		int64_t v;
	} lim[] = {
		{ "bf_window", " minutes", p->bf_window_min },
		{ "bf_resolution", " s", p->bf_resolution_s },
		{ "bf_interval", " s", p->bf_interval_s },
		{ "bf_max_job_test", "", p->bf_max_job_test },
		{ "default_queue_depth", "", p->default_queue_depth },
		{ "sched_interval", " s", p->sched_interval_s },
		{ "PriorityCalcPeriod", " s", p->calc_period_s },
		{ "PriorityMaxAge", " s", p->max_age_s },
	};
	for (size_t i = 0; i < sizeof(lim) / sizeof(lim[0]); i++)
		if (lim[i].v < 1 || lim[i].v > SCHED_PARAM_MAX) {
			snprintf(err, errlen,
				 "scheduler parameter %s=%" G_GINT64_FORMAT "%s: out of range "
				 "(1 to %lld)",
				 lim[i].name, lim[i].v, lim[i].unit, SCHED_PARAM_MAX);
			return -1;
		}
	if (p->batch_sched_delay_s < 0 || p->batch_sched_delay_s > SCHED_PARAM_MAX) {
		snprintf(err, errlen,
			 "scheduler parameter batch_sched_delay=%" G_GINT64_FORMAT " s: out of range "
			 "(0 to %lld)",
			 p->batch_sched_delay_s, SCHED_PARAM_MAX);
		return -1;
	}
	if (!o->runtime) {
		snprintf(err, errlen, "scheduler: no run-time model given");
		return -1;
	}
	if (c->nparts > 64) {
		snprintf(err, errlen, "%s: %d partitions: at most 64 are modelled",
			 c->dir ? c->dir : "cluster", c->nparts);
		return -1;
	}
	if (t->njobs >= UINT32_MAX) {
		snprintf(err, errlen, "%s: %zu jobs: at most %u are modelled", t->path ? t->path : "trace",
			 t->njobs, UINT32_MAX - 1);
		return -1;
	}
	for (size_t j = 1; j < t->njobs; j++)
		if (t->jobs[j].submit < t->jobs[j - 1].submit) {
			snprintf(err, errlen,
				 "%s: job %" G_GUINT64_FORMAT " is submitted before the job "
				 "ahead of it (the scheduler needs jobs in submit order)",
				 t->path ? t->path : "trace", (guint64)t->jobs[j].id);
			return -1;
		}
	return 0;
}

int sched_run(const sim_cluster_t *c, const sim_trace_t *t, const sim_sched_opts_t *o, sim_run_t **out,
	      char *err, size_t errlen)
{
	*out = NULL;
	if (sched_inputs_check(c, t, o, err, errlen) < 0)
		return -1;
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
	/* A batch job's submission only counts (queue_job_scheduler bumps
	 * job_sched_cnt): slurmctld's background loop runs schedule() for it
	 * once batch_sched_delay has passed since the loop's last pass, full or
	 * not (controller.c, 22.05 and 24.11); it counts that from its own start */
	const int64_t batch_delay = o->params.batch_sched_delay_s;
	const int64_t full_org = sched_full_origin(&o->params, run->first_submit);
	int64_t next_full = sched_next_full(&o->params, full_org, run->first_submit - 1);
	int64_t last_bg = sched_ctld_start_known(&o->params, run->first_submit) ? o->params.limit_origin_s
										: -SCHED_PARAM_MAX;
	bool sched_cnt = false; /* submissions since the loop's last pass */
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
		/* the decay thread's passes; with fair-share they count usage
		 * while jobs run, whether any pend or not */
		if ((s.npending || (s.fair && s.all.n)) && s.next_recalc < tn)
			tn = s.next_recalc;
		if (s.npending && next_full < tn)
			tn = next_full;
		if (s.npending && sched_cnt && last_bg + batch_delay < tn)
			tn = MAX(last_bg + batch_delay, s.now + 1);
		if (tn == SCHED_INF)
			break;
		s.now = tn;
		if (next_full < s.now) /* passed over an empty queue */
			next_full = sched_next_full(&o->params, full_org, s.now - 1);
		bool changed = false, submitted = false;
		if (s.now >= s.next_recalc) {
			int64_t at = sched_recalc_last(&o->params, s.now);
			sched_recalc(&s, at);
			s.next_recalc = at + o->params.calc_period_s;
			changed = s.npending > 0; /* new priorities: Slurm's next passes see them */
		}
		sim_event_t e;
		/* Jobs submitted in this second are looked at before the jobs
		 * ending in it give their nodes back: slurmctld records a job's
		 * end a fraction of a second after its last second (the script's
		 * exit, slurmd's report), after the pass that took the new jobs. */
		if (next_submit < t->njobs && t->jobs[next_submit].submit == s.now)
			sched_soft_end(&s);
		while (next_submit < t->njobs && t->jobs[next_submit].submit == s.now) {
			if (sched_submit(&s, (uint32_t)next_submit))
				sched_pending_add(&s, (uint32_t)next_submit);
			next_submit++;
			submitted = true;
		}
		/* the loop's pass for them, before the second's ends (as the
		 * full pass would be, but that runs below, after them) */
		sched_cnt = sched_cnt || submitted;
		if (s.now != next_full && sched_cnt && s.now - last_bg >= batch_delay) {
			if (s.npending)
				sched_main_pass(&s, false);
			last_bg = s.now;
			sched_cnt = false;
		}
		bool ended = false;
		while ((ev = sim_queue_peek(&s.events)) && ev->time == s.now) {
			sim_queue_pop(&s.events, &e);
			sched_end(&s, e.job);
			ended = true;
		}
		/* a job's end runs schedule() at once (its epilog's completion,
		 * proc_req.c); backfill looks again after new events, or after
		 * a pass over the whole queue that started jobs (last_job_update) */
		bool bf_more = (changed || ended || submitted) && s.npending;
		if ((changed || ended) && s.npending)
			sched_main_pass(&s, false);
		if (s.now == next_full) {
			if (s.npending && sched_main_pass(&s, true) > 0)
				bf_more = true;
			next_full = sched_next_full(&o->params, full_org, s.now);
			last_bg = s.now;
			sched_cnt = false;
		}
		if (bf_more && !bf_dirty) {
			bf_dirty = true;
			next_bf = ((s.now + bf_iv - 1) / bf_iv) * bf_iv;
		}
		if (bf_dirty && s.now >= next_bf) {
			/* A pass that started jobs runs again an interval later:
			 * _start_job sets last_job_update, so backfill's
			 * _more_work() says yes, and the jobs tested before those
			 * starts now see them running (22.05, backfill.c). */
			bf_dirty = s.npending && sched_backfill(&s) > 0;
			next_bf = bf_dirty ? s.now + bf_iv : SCHED_INF;
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


/* ------------------------------------------------------------ several runs */

typedef struct {
	const sim_cluster_t *c;
	const sim_trace_t *t;
	const sim_sched_opts_t *o;
	sim_run_t *out;
	int rc;
	char err[1024];
} sched_job_t;

static gpointer sched_thread(gpointer arg)
{
	sched_job_t *w = arg;
	w->rc = sched_run(w->c, w->t, w->o, &w->out, w->err, sizeof(w->err));
	return NULL;
}

/* Runs share nothing they write (each has its own state, strings and
 * results; the cluster, trace, policy and run-time model are read only),
 * so they run at once, one thread each: compare mode's two policies take
 * the time of the slower one on a machine with two cores. */
int sched_run_all(const sim_cluster_t *c, const sim_trace_t *t, const sim_sched_opts_t *o, int n,
		  sim_run_t **out, char *err, size_t errlen)
{
	sched_job_t *w = g_new0(sched_job_t, n);
	GThread **th = g_new0(GThread *, n);
	for (int i = 0; i < n; i++) {
		w[i] = (sched_job_t){ .c = c, .t = t, .o = &o[i] };
		th[i] = n > 1 ? g_thread_new("nodeox-sim", sched_thread, &w[i]) : NULL;
		if (!th[i])
			sched_thread(&w[i]);
	}
	int rc = 0;
	for (int i = 0; i < n; i++) {
		if (th[i])
			g_thread_join(th[i]);
		out[i] = w[i].out;
		if (w[i].rc < 0 && rc == 0) {
			g_strlcpy(err, w[i].err, errlen);
			rc = -1;
		}
	}
	g_free(th);
	g_free(w);
	return rc;
}
