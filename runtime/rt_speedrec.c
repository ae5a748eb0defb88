/*
 * rt_speedrec.c: the speed record at a job's end (contract in
 * rt_speedrec.h, format in common/speed_record.h).
 *
 * Why the Comment: sacct keeps it (with AccountingStoreFlags=job_comment,
 * sent with the job's completion, so an update while the job runs is what
 * sacct shows), and the job's owner may update it with scontrol, which no
 * other field sacct keeps allows (AdminComment is the operator's and
 * job_submit/nodeox's). squeue's %k prints it whole; `scontrol update`
 * takes it as one argument (no shell), at most 1024 bytes.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "policy/policy.h"
#include "runtime/rt_internal.h"
#include "runtime/rt_speedrec.h"

_Static_assert(sizeof(((nodeox_rt_t *)0)->speed_ms) == RT_SPEEDREC_SAMPLES * sizeof(double),
	       "rt_internal.h's speed_ms holds RT_SPEEDREC_SAMPLES");

void rt_speedrec_observe(nodeox_rt_t *rt, double step_ms)
{
	if (!(step_ms > 0))
		return;
	if (rt->speed_stride < 1)
		rt->speed_stride = 1;
	if (rt->speed_seen++ % rt->speed_stride)
		return;
	if (rt->speed_n == RT_SPEEDREC_SAMPLES) { /* keep every other, then every 2k-th */
		for (int i = 0; i < RT_SPEEDREC_SAMPLES / 2; i++)
			rt->speed_ms[i] = rt->speed_ms[2 * i];
		rt->speed_n = RT_SPEEDREC_SAMPLES / 2;
		rt->speed_stride *= 2;
		if ((rt->speed_seen - 1) % rt->speed_stride)
			return;
	}
	rt->speed_ms[rt->speed_n++] = step_ms;
}

static int _double_cmp(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return a < b ? -1 : a > b;
}

static double _median_sorted(const double *x, int n)
{
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

double rt_speedrec_median(const double *ms, int n)
{
	double s[RT_SPEEDREC_SAMPLES];
	int skip = n >= 2 ? (n / 10 > 1 ? n / 10 : 1) : 0, k = 0;
	for (int i = skip; i < n && k < RT_SPEEDREC_SAMPLES; i++)
		if (ms[i] > 0)
			s[k++] = ms[i];
	if (!k)
		return 0;
	qsort(s, (size_t)k, sizeof *s, _double_cmp);
	return _median_sorted(s, k);
}

int rt_speedrec_summarise(const rt_speedrec_rank_t *all, int world, speedrec_t *rec)
{
	double v[NODEOX_RT_MAX_WORKERS];
	memset(rec, 0, sizeof *rec);
	for (int i = 0; i < world; i++) {
		const rt_speedrec_rank_t *r = &all[i];
		int t, k = 0;
		if (!r->type[0] || !(r->median_ms > 0) || strnlen(r->type, sizeof r->type) >= sizeof r->type)
			continue;
		for (t = 0; t < rec->ntypes; t++)
			if (!strcmp(rec->t[t].type, r->type))
				break;
		if (t < rec->ntypes)
			continue; /* counted with the first rank of its type */
		if (rec->ntypes == SPEEDREC_TYPES)
			break;
		speedrec_type_t *ty = &rec->t[rec->ntypes++];
		snprintf(ty->type, sizeof ty->type, "%s", r->type);
		ty->batch = r->batch;
		for (int j = i; j < world; j++) {
			if (strcmp(all[j].type, r->type) || !(all[j].median_ms > 0))
				continue;
			v[k++] = all[j].median_ms;
			if (all[j].batch != ty->batch)
				ty->batch = 0;
		}
		qsort(v, (size_t)k, sizeof *v, _double_cmp);
		ty->step_ms = _median_sorted(v, k);
		ty->ranks = k;
		if (ty->batch < 0)
			ty->batch = 0;
	}
	return rec->ntypes;
}

int rt_speedrec_gather(nodeox_rt_t *rt, const rt_alloc_t *a, long batch, speedrec_t *rec)
{
	int world = rt->env.world, n = 0;
	rt_speedrec_rank_t mine, *all;
	memset(rec, 0, sizeof *rec);
	memset(&mine, 0, sizeof mine);
	if (rt->cfg.speed_record && a->active) {
		snprintf(mine.type, sizeof mine.type, "%s", a->gpu_type);
		mine.median_ms = rt_speedrec_median(rt->speed_ms, rt->speed_n);
		mine.batch = batch;
	}
	/* every rank takes part (the option and the allocation are the same
	 * everywhere; a rank with nothing sends an empty part) */
	if (!(all = calloc((size_t)world, sizeof *all))) {
		rt_log_warn(rt, "speed record not made: out of memory");
		return 0;
	}
	/* finalize's own agreement first (rt_agree.c): a rank still in another
	 * collective (summary() on rank 0 only) is named, not paired with this
	 * all-gather (MPI_ERR_TRUNCATE) */
	rt_agree(rt, RT_OP_FINALIZE);
	rt_comm_allgather(rt->comm, &mine, all, sizeof mine, __FILE__, __LINE__);
	if (rt->env.rank == 0 && rt->cfg.speed_record && a->active)
		n = rt_speedrec_summarise(all, world, rec);
	free(all);
	return n;
}

/* The job's name (tag workload= first) into rec->workload. */
static void _speedrec_workload(const char *comment, const char *job_name, speedrec_t *rec)
{
	nodeox_tag_t tag;
	char err[NODEOX_ERR_MAX];
	if (nodeox_tag_parse(comment, NULL, &tag, err, sizeof err) != 1)
		memset(&tag, 0, sizeof tag);
	nodeox_speeds_workload(&tag, job_name, rec->workload, sizeof rec->workload);
}

int rt_speedrec_comment(const char *comment, const char *job_name, speedrec_t *rec, char *out, size_t cap,
			char *err, size_t errlen)
{
	char line[SPEEDREC_MAX + 1];
	if (!comment || !strcmp(comment, "(null)"))
		comment = "";
	_speedrec_workload(comment, job_name, rec);
	if (speedrec_format(rec, line, sizeof line) < 0) {
		snprintf(err, errlen, "the record cannot be written (%d GPU types)", rec->ntypes);
		return -1;
	}
	if (cap > RT_SPEEDREC_COMMENT + 1)
		cap = RT_SPEEDREC_COMMENT + 1;
	if (speedrec_compose(comment, line, out, cap) < 0) {
		snprintf(err, errlen,
			 "the job's comment (%zu bytes) and the record (%zu) exceed Slurm's %d bytes",
			 strlen(comment), strlen(line), RT_SPEEDREC_COMMENT);
		return -1;
	}
	return 0;
}

/* Run argv (no shell) with a deadline; its stdout (up to cap-1 bytes,
 * newlines at the end cut) into out when out is not NULL, its first line
 * of stderr into err on failure. Returns 0 when it exited 0. */
static int _speedrec_run(char *const argv[], char *out, size_t cap, char *err, size_t errlen)
{
	int po[2], pe[2];
	char ebuf[512];
	size_t got = 0, egot = 0;
	if (pipe(po) != 0 || pipe(pe) != 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	time_t deadline = time(NULL) + RT_SPEEDREC_TIMEOUT_S;
	struct pollfd fds[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
	int open_fds = 2, timed_out = 0;
	while (open_fds > 0) {
		long left = (long)(deadline - time(NULL));
		if (left <= 0) {
			timed_out = 1;
			break;
		}
		int r = poll(fds, 2, (int)(left * 1000));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			timed_out = r == 0;
			break;
		}
		for (int i = 0; i < 2; i++) {
			char buf[512];
			if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t k = read(fds[i].fd, buf, sizeof buf);
			if (k <= 0) {
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
				continue;
			}
			char *dst = i == 0 ? out : ebuf;
			size_t dcap = i == 0 ? (out ? cap : 0) : sizeof ebuf, *dgot = i == 0 ? &got : &egot;
			for (ssize_t j = 0; j < k && dst && *dgot + 1 < dcap; j++)
				dst[(*dgot)++] = buf[j];
		}
	}
	for (int i = 0; i < 2; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
	if (timed_out)
		kill(pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
	}
	if (out) {
		out[got] = '\0';
		while (got && (out[got - 1] == '\n' || out[got - 1] == '\r'))
			out[--got] = '\0';
	}
	ebuf[egot] = '\0';
	ebuf[strcspn(ebuf, "\n")] = '\0';
	if (timed_out) {
		snprintf(err, errlen, "`%s` took more than %d s (killed)", argv[0], RT_SPEEDREC_TIMEOUT_S);
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(err, errlen, "`%s` failed (exit %d)%s%.300s", argv[0],
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1, ebuf[0] ? ": " : "", ebuf);
		return -1;
	}
	return 0;
}

int rt_speedrec_store(speedrec_t *rec, char *err, size_t errlen)
{
	const char *job = getenv("SLURM_JOB_ID"), *name = getenv("SLURM_JOB_NAME");
	char comment[4 * RT_SPEEDREC_COMMENT], composed[RT_SPEEDREC_COMMENT + 1], jobarg[64], carg[1100];
	if (!job || !*job || strspn(job, "0123456789") != strlen(job) || strlen(job) > 20) {
		snprintf(err, errlen, "SLURM_JOB_ID is not a job id");
		return -1;
	}
	char *const squeue[] = { "squeue", "-h", "-j", (char *)job, "-o", "%k", NULL };
	if (_speedrec_run(squeue, comment, sizeof comment, err, errlen) != 0)
		return -1;
	if (strlen(comment) + 1 >= sizeof comment) {
		snprintf(err, errlen, "the job's comment is longer than squeue's output kept");
		return -1;
	}
	if (rt_speedrec_comment(comment, name, rec, composed, sizeof composed, err, errlen) != 0)
		return -1;
	snprintf(jobarg, sizeof jobarg, "JobId=%s", job);
	snprintf(carg, sizeof carg, "Comment=%s", composed);
	char *const scontrol[] = { "scontrol", "update", jobarg, carg, NULL };
	return _speedrec_run(scontrol, NULL, 0, err, errlen);
}
