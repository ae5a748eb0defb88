/*
 * sched_fair.c: fair-share in the scheduler model: each job's association
 * (the trace's account and user), the usage running jobs add and the decay
 * thread decays, and the Fair Tree factor a job's priority takes, as Slurm
 * 22.05's priority/multifactor keeps them (priority_multifactor.c:
 * _decay_thread, _apply_decay, _apply_new_usage, priority_p_job_end;
 * fair_tree.c: fair_tree_decay; acct_policy.c, _adjust_limit_usage). The tree and the ranking are
 * sim/model/fairshare.c's.
 */
#include <float.h>
#include <stdio.h>
#include <math.h>

#include "sim/model/fairshare.h"
#include "sim/model/sched_internal.h"

struct sched_fair {
	fs_tree_t *tree;
	int *assoc;          /* per job: its user association, -1 none */
	bool *done;          /* per job: its usage is all added */
	double decay_factor; /* per second: 1 - 0.693 / half-life (1: none) */
	int64_t last_ran;    /* the decay thread's last pass (g_last_ran) */
	bool ran;            /* ... 0 in Slurm until its first pass */
};

void sched_fair_init(sched_t *s)
{
	const sim_sched_params_t *p = &s->o->params;
	if (p->weight_fs <= 0)
		return;
	sched_fair_t *f = g_new0(sched_fair_t, 1);
	f->tree = fs_tree_new(&s->c->accounts);
	f->assoc = g_new(int, MAX(s->t->njobs, 1));
	f->done = g_new0(bool, MAX(s->t->njobs, 1));
	/* every association exists before the first pass (sacctmgr made
	 * them), so that the user associations' count is whole from the
	 * start */
	for (size_t j = 0; j < s->t->njobs; j++)
		f->assoc[j] = fs_tree_assoc(f->tree, s->t->jobs[j].account, s->t->jobs[j].user);
	/* _decay_thread: decay_factor = 1 - (0.693 / decay_hl), the first
	 * terms of e^(ln(1/2) / decay_hl); no decay for a half-life of 0 */
	f->decay_factor = p->decay_hl_s > 0 ? 1 - (0.693 / (double)p->decay_hl_s) : 1;
	s->fair = f;
}

void sched_fair_free(sched_t *s)
{
	sched_fair_t *f = s->fair;
	if (!f)
		return;
	fs_tree_free(f->tree);
	g_free(f->assoc);
	g_free(f->done);
	g_free(f);
	s->fair = NULL;
}

/* _apply_new_usage for job j from start_period to end_period: the seconds
 * since the later of start_period and the job's start, decayed as one slice
 * (run_delta * decay_factor^run_delta), times its billable TRES (its
 * allocated CPUs: no TRESBillingWeights, calc_job_billable_tres), added to
 * its association and each parent up to root. */
static void sched_fair_apply(sched_t *s, uint32_t j, int64_t start_period, bool from_start,
			     int64_t end_period)
{
	sched_fair_t *f = s->fair;
	const sim_result_t *res = &s->run->jobs[j];
	const running_t *run = s->running[j];
	if (f->assoc[j] < 0 || !run)
		return;
	if (from_start || res->start > start_period)
		start_period = res->start;
	double run_delta = (double)(end_period - start_period);
	if (run_delta < 0)
		run_delta = 0;
	double run_decay = run_delta * pow(f->decay_factor, run_delta);
	uint64_t cpus = 0;
	for (int i = 0; i < run->na; i++)
		cpus += run->a[i].cpus;
	fs_tree_add(f->tree, f->assoc[j], run_decay * (double)cpus);
}

void sched_fair_end(sched_t *s, uint32_t j)
{
	sched_fair_t *f = s->fair;
	if (!f || f->done[j])
		return;
	/* priority_p_job_end: from the last pass to the job's end; 22.05 calls
	 * it (acct_policy_job_fini, _adjust_limit_usage) only when
	 * AccountingStorageEnforce has limits: otherwise a job's usage is
	 * what the passes it ran through added, and one that started and
	 * ended between two passes adds none */
	if (s->o->params.enforce_limits)
		sched_fair_apply(s, j, f->last_ran, !f->ran, s->run->jobs[j].end);
	f->done[j] = true;
}

void sched_fair_pass(sched_t *s, int64_t at)
{
	sched_fair_t *f = s->fair;
	if (!f)
		return;
	/* a job whose last second is past has ended in slurmctld (its nodes
	 * come back here a little later) and added its usage then, before
	 * this pass's decay */
	for (size_t j = 0; j < s->t->njobs; j++)
		if (s->running[j] && !f->done[j] && s->run->jobs[j].end < at)
			sched_fair_end(s, (uint32_t)j);
	/* _decay_thread: every association's usage decayed over the seconds
	 * since the last pass (none at the first) */
	if (f->ran && at > f->last_ran) {
		double real_decay = pow(f->decay_factor, (double)(at - f->last_ran));
		if (real_decay < DBL_MIN)
			real_decay = DBL_MIN;
		if (real_decay != 1)
			fs_tree_decay(f->tree, real_decay);
	}
	/* fair_tree_decay: each running job's usage since the last pass
	 * (decay_apply_new_usage) */
	for (size_t j = 0; j < s->t->njobs; j++)
		if (s->running[j] && !f->done[j])
			sched_fair_apply(s, (uint32_t)j, f->last_ran, !f->ran, at);
	/* then every user association's factor (_apply_priority_fs) */
	fs_tree_rank(f->tree);
	f->last_ran = at;
	f->ran = true;
}

double sched_fair_factor(const sched_t *s, uint32_t j)
{
	return s->fair ? fs_tree_factor(s->fair->tree, s->fair->assoc[j]) : 0;
}
