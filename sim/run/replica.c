/*
 * replica.c: replicas of a run under Slurm's timing noise and the workers
 * that run them.
 *
 * The noise is what the fidelity work measured between identical replays
 * on a real slurmctld (doc/simulator.md, Fidelity and Replicas): which jobs
 * hand their nodes on a whole second late (--latency-seed), where trace
 * second 0 falls on the wall clock that backfill rounds reservations to
 * (--bf-origin, within bf_resolution), and when slurmctld started
 * (--limit-check-origin), which sets where its 30-second time-limit checks,
 * its sched_interval passes over the whole queue and its decay thread's
 * priority recalculations fall, and, where backfill passes
 * come every second (bf_interval=1, as on the cluster the fidelity runs
 * used), the sub-second phase of those passes (--bf-phase). Replica 0 is
 * the command line's own run; the others spread the two clock phases
 * evenly over their range (stratified, slurmctld's start in a permuted
 * order so that the two do not move together, and over the whole cycle of
 * the clocks it sets, replica_ctld_cycle), so that 8 replicas already
 * cover both ranges; with bf_interval=1 the odd ones hand nodes over at the
 * passes of a synthetic phase table (a start and a drift spread over what
 * the real runs' logs showed) instead of by latency seed.
 *
 * Workers are forked processes, not threads, so they need no locking at
 * all. A lone run (--replicas 1, no worker) runs its two modes on two
 * threads instead (sched_run_all): the scheduler and the policy library keep
 * per-run state in structs of their own with no mutable globals, glib's
 * allocator and containers are thread-safe for separate instances, and a
 * run uses no GSL (only whatif.c's tagging, before any run, does). The pool
 * forks only while this process runs no thread, so a child's glib is in a
 * consistent state. Each worker writes its figures (plain doubles) to a
 * pipe and exits; the parent polls the pipes and starts the next task as
 * one ends. Results are placed by task index, so the output does not depend on
 * which worker finished first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <math.h>

#include <glib.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "sim/model/bf_phase.h"
#include "sim/run/replica.h"

/* slurmctld checks time limits every 30 s (PERIODIC_TIMEOUT, controller.c) */
#define REPLICA_LIMIT_PERIOD_S 30

static int64_t replica_gcd(int64_t a, int64_t b)
{
	while (b) {
		int64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

/* A multiplier coprime with n near n * 0.38, so that k -> k * m mod n visits
 * every stratum in an order unlike k's own. */
static int replica_stride(int n)
{
	int best = 1;
	for (int m = 1; m < n; m++)
		if (replica_gcd(m, n) == 1 && abs(m * 100 - n * 38) < abs(best * 100 - n * 38))
			best = m;
	return best;
}

/* Measured on the 55 real runs whose slurmctld log gave the backfill
 * passes' sub-second phase (tests/fidelity/, real-*.csv; tools/fidelity-compare
 * --pass-drift): from any start, the phase drifts by 1.0 to 58.2 ms a second
 * (median 5.3): a pass comes a second after the last one ended
 * (backfill_agent's _my_sleep, 22.05 backfill.c), so each cycle is the
 * pass's own run time longer, and that grows with the slurmctld's load
 * (1.0-5.3 ms/s on the 25 runs recorded first, 2.7-58.2 on the 30 recorded
 * later, whose passes took longer). Spread over that range evenly in its
 * logarithm, as the measured drifts are. */
#define REPLICA_DRIFT_LO 0.0010
#define REPLICA_DRIFT_HI 0.0582

/* The fractional part of k times an irrational: well spread for every n. */
static double replica_spread(int k, double a)
{
	double x = (double)k * a;
	return x - floor(x);
}

/* Longer than any site's periods (PriorityCalcPeriod is whole minutes,
 * sched_interval seconds): a bound that keeps the product below overflow. */
#define REPLICA_CYCLE_MAX (1ll << 31)

/* How often every clock that slurmctld's start sets comes back to the same
 * phase, in seconds: the least common multiple of the time-limit checks'
 * 30 s (PERIODIC_TIMEOUT), sched_interval (both timed from the background
 * loop's start, controller.c _slurmctld_background) and, where priorities
 * are recalculated (an age or fair-share weight), PriorityCalcPeriod (the decay thread,
 * timed from its own start; priority_multifactor.c _decay_thread). */
static int64_t replica_ctld_cycle(const sim_sched_params_t *p)
{
	int64_t per[2] = { p->sched_interval_s, p->weight_age > 0 || p->weight_fs > 0 ? p->calc_period_s : 1 };
	int64_t l = REPLICA_LIMIT_PERIOD_S;
	for (int i = 0; i < 2; i++) {
		int64_t v = per[i] > 0 ? per[i] : 1;
		int64_t m = l / replica_gcd(l, v) * v;
		l = m > REPLICA_CYCLE_MAX ? l : m;
	}
	return l;
}

void replica_params(const sim_sched_params_t *base, int k, int n, sim_sched_params_t *out)
{
	*out = *base;
	if (k <= 0 || n <= 1)
		return;
	out->latency_seed = base->latency_seed + (uint32_t)k;
	out->bf_origin_s = base->bf_origin_s + (int64_t)k * base->bf_resolution_s / n;
	/* slurmctld's start: stratified over the 30 s of the time-limit
	 * checks as kk / n (in the permuted order), and moved by whole 30 s
	 * windows so that the longer clocks it also sets (the full-queue
	 * passes, the decay thread) fall over their whole cycle: the windows
	 * in turn, or evenly spread where there are more than replicas. */
	int kk = (int)(((int64_t)k * replica_stride(n)) % n);
	int64_t windows = replica_ctld_cycle(base) / REPLICA_LIMIT_PERIOD_S;
	int64_t w = windows <= n ? k % windows : (int64_t)k * windows / n;
	out->limit_origin_s =
		base->limit_origin_s - (int64_t)kk * REPLICA_LIMIT_PERIOD_S / n - w * REPLICA_LIMIT_PERIOD_S;
}

bool replica_pass_phase(const sim_sched_params_t *base, int k, int n, sim_bf_phase_t *ph, int64_t sec[2],
			double phase[2])
{
	if (k <= 0 || n <= 1 || k % 2 == 0 || base->bf_phase || base->bf_interval_s != 1)
		return false;
	double p0 = replica_spread(k, 0.6180339887498949);
	double drift = REPLICA_DRIFT_LO *
		       pow(REPLICA_DRIFT_HI / REPLICA_DRIFT_LO, replica_spread(k, 0.4142135623730950));
	sec[0] = 0;
	sec[1] = REPLICA_PHASE_SPAN_S;
	phase[0] = p0;
	phase[1] = p0 + drift * (double)REPLICA_PHASE_SPAN_S;
	*ph = (sim_bf_phase_t){ .n = 2, .sec = sec, .phase = phase };
	return true;
}

int replica_run(const replica_setting_t *s, int k, int n, report_figures_t figs[2], sim_run_t *runs[2],
		char *err, size_t errlen)
{
	sim_run_t *r[2] = { NULL, NULL };
	sim_sched_params_t p;
	sim_bf_phase_t ph;
	int64_t sec[2];
	double phase[2];
	replica_params(&s->params, k, n, &p);
	if (replica_pass_phase(&s->params, k, n, &ph, sec, phase))
		p.bf_phase = &ph;
	memset(figs, 0, 2 * sizeof(*figs));
	sim_sched_opts_t so[2];
	int mode[2], nr = 0;
	for (int i = 0; i < 2; i++) {
		if ((i == 0 && !s->run_base) || (i == 1 && !s->run_nodeox))
			continue;
		mode[nr] = i;
		so[nr++] = (sim_sched_opts_t){
			.params = p,
			.policy = i ? s->conf : NULL,
			.runtime = s->model,
			.tagged = s->tagged,
			.record_nodes = s->record_nodes,
			.progress = s->progress,
			.label = i ? "nodeox" : "baseline",
		};
	}
	/* A lone run (modes_at_once) has the cores to itself: its two modes
	 * run at once, one thread each (sched_run_all). Among the pool's
	 * workers, which already keep every core busy, one after the other. */
	sim_run_t *got[2] = { NULL, NULL };
	int rc = 0;
	if (s->modes_at_once)
		rc = sched_run_all(s->c, s->t, so, nr, got, err, errlen);
	else
		for (int i = 0; i < nr && rc == 0; i++)
			rc = sched_run_all(s->c, s->t, &so[i], 1, &got[i], err, errlen);
	for (int i = 0; i < nr; i++)
		r[mode[i]] = got[i];
	for (int i = 0; i < 2 && rc == 0; i++)
		if (r[i])
			report_figures(s->c, r[i], i == 1 ? r[0] : NULL, s->price, s->labels, &figs[i]);
	if (runs && rc == 0) {
		runs[0] = r[0];
		runs[1] = r[1];
	} else {
		sched_run_free(r[0]);
		sched_run_free(r[1]);
	}
	return rc;
}

/* ------------------------------------------------------------ pool */

typedef struct {
	int rc;
	char err[512];
} replica_head_t;

typedef struct {
	pid_t pid;
	int fd, task;
	GByteArray *got;
} replica_worker_t;

static int replica_cpus(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

static int replica_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* In the child: run the task, write head and figures, exit. */
static void replica_child(int fd, int task, int nfig, replica_task_fn fn, void *arg)
{
	replica_head_t h = { 0 };
	report_figures_t *figs = g_new0(report_figures_t, nfig);
	h.rc = fn(arg, task, figs, h.err, sizeof(h.err));
	int bad = replica_write_all(fd, &h, sizeof(h)) ||
		  replica_write_all(fd, figs, sizeof(*figs) * (size_t)nfig);
	g_free(figs);
	_exit(bad ? 3 : 0);
}

static int replica_start(replica_worker_t *w, int task, int nfig, replica_task_fn fn, void *arg, char *err,
			 size_t errlen)
{
	int p[2];
	if (pipe(p) < 0) {
		snprintf(err, errlen, "replicas: pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "replicas: fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		replica_child(p[1], task, nfig, fn, arg);
	}
	close(p[1]);
	w->pid = pid;
	w->fd = p[0];
	w->task = task;
	w->got = g_byte_array_new();
	return 0;
}

/* The worker's pipe reached EOF: reap it, check and place its figures. */
static int replica_finish(replica_worker_t *w, int nfig, report_figures_t *out, char *err, size_t errlen)
{
	int status = 0, rc = -1;
	close(w->fd);
	while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
		;
	size_t want = sizeof(replica_head_t) + sizeof(report_figures_t) * (size_t)nfig;
	replica_head_t h;
	if (WIFSIGNALED(status))
		snprintf(err, errlen, "replica %d: worker killed by signal %d", w->task, WTERMSIG(status));
	else if (w->got->len != want)
		snprintf(err, errlen, "replica %d: worker ended without its results (status %d)", w->task,
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	else {
		memcpy(&h, w->got->data, sizeof(h));
		if (h.rc < 0) {
			h.err[sizeof(h.err) - 1] = '\0';
			snprintf(err, errlen, "%s", h.err);
		} else {
			memcpy(out + (size_t)w->task * (size_t)nfig, w->got->data + sizeof(h),
			       sizeof(report_figures_t) * (size_t)nfig);
			rc = 0;
		}
	}
	g_byte_array_free(w->got, TRUE);
	w->pid = 0;
	return rc;
}

int replica_pool(int first, int ntasks, int nfig, replica_task_fn fn, void *arg, report_figures_t *out,
		 int (*own)(void *own_arg, char *err, size_t errlen), void *own_arg, char *err, size_t errlen)
{
	int nw = replica_cpus();
	if (nw > ntasks - first)
		nw = ntasks - first > 0 ? ntasks - first : 0;
	replica_worker_t *w = g_new0(replica_worker_t, nw ? nw : 1);
	struct pollfd *pfd = g_new0(struct pollfd, nw ? nw : 1);
	int next = first, running = 0, rc = 0;
	char werr[512] = "";
	for (int i = 0; i < nw && rc == 0; i++, next++) {
		rc = replica_start(&w[i], next, nfig, fn, arg, err, errlen);
		running += rc == 0;
	}
	if (rc == 0 && own)
		rc = own(own_arg, err, errlen);
	while (running > 0) {
		int np = 0;
		for (int i = 0; i < nw; i++)
			if (w[i].pid) {
				pfd[np].fd = w[i].fd;
				pfd[np].events = POLLIN;
				pfd[np].revents = 0;
				np++;
			}
		if (poll(pfd, (nfds_t)np, -1) < 0) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "replicas: poll: %s", strerror(errno));
			rc = -1;
			break;
		}
		for (int i = 0, q = 0; i < nw; i++) {
			if (!w[i].pid)
				continue;
			short ev = pfd[q++].revents;
			if (!ev)
				continue;
			guint8 buf[8192];
			ssize_t n = read(w[i].fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n > 0) {
				g_byte_array_append(w[i].got, buf, (guint)n);
				continue;
			}
			running--;
			if (replica_finish(&w[i], nfig, out, werr, sizeof(werr)) < 0 && rc == 0) {
				snprintf(err, errlen, "%s", werr);
				rc = -1;
			}
			if (rc == 0 && next < ntasks) {
				rc = replica_start(&w[i], next++, nfig, fn, arg, err, errlen);
				running += rc == 0;
			}
		}
	}
	g_free(w);
	g_free(pfd);
	return rc;
}

/* ------------------------------------------------------------ combine */

void replica_combine(const report_figures_t *figs, int n, int stride, report_figures_t *med,
		     report_figures_t *lo, report_figures_t *hi)
{
	double *v = g_new(double, n > 0 ? n : 1);
	double *m = (double *)med, *l = (double *)lo, *h = (double *)hi;
	for (size_t f = 0; f < REPORT_FIGURES_N; f++) {
		for (int i = 0; i < n; i++)
			memcpy(&v[i], (const char *)&figs[(size_t)i * (size_t)stride] + f * sizeof(double),
			       sizeof(double));
		gsl_sort(v, 1, (size_t)n);
		m[f] = gsl_stats_median_from_sorted_data(v, 1, (size_t)n);
		l[f] = v[0];
		h[f] = v[n - 1];
	}
	g_free(v);
}
