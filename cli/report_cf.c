/*
 * report_cf.c: the counterfactual of `nodeox report --cluster DIR` (report.h):
 * the history's jobs as their users submitted them, written as the
 * importer's trace (sacct_write_job: the same rows nodeox-sacct-import
 * writes), replayed by nodeox-sim itself (a child process: the simulator as
 * admins run it, with its own defaults) under DIR's slurm.conf and gres.conf
 * and the policy, plugin off and on, with --replicas; its --json read back
 * (medians and ranges) beside what happened, per group: broadened, kept,
 * record_lost and untagged (what accounting says happened to each job,
 * report_group_of, handed to nodeox-sim as its --labels: with the plugin off
 * nothing is broadened, so the model's own tags cannot tell the broadened jobs
 * from the kept ones; the simulator only counts by the label it is given),
 * and all jobs: whether the plugin made them finish sooner, later or within
 * noise (the on and off ranges apart or not), and whether the model's
 * plugin-on prediction holds what happened (inside its range or not).
 */
#include "cli/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const cf_keys[REPORT_CF_NKEYS] = { "wait_mean_s",      "wait_p50_s",
						      "wait_p95_s",       "turnaround_mean_s",
						      "turnaround_p50_s", "turnaround_p95_s" };

const char *report_cf_key_name(int k)
{
	return k >= 0 && k < REPORT_CF_NKEYS ? cf_keys[k] : "?";
}

const char *report_cf_group_name(int g)
{
	return g == REPORT_CF_ALL ? "all" : report_group_name((report_group_t)g);
}

/* The number after "key": inside [from, to), or -1. */
static int cf_number(const char *from, const char *to, const char *key, double *out)
{
	char pat[64];
	const char *p;
	char *end;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(from, pat);
	if (!p || p >= to)
		return -1;
	*out = strtod(p + strlen(pat), &end);
	return end == p + strlen(pat) ? -1 : 0;
}

/* The object "name": {...} (flat: nodeox-sim writes its groups so without
 * --price) inside [from, to): its start and end, or -1. */
static int cf_object(const char *from, const char *to, const char *name, const char **start, const char **end)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\": {", name);
	p = strstr(from, pat);
	if (!p || p >= to)
		return -1;
	*start = p + strlen(pat);
	*end = strchr(*start, '}');
	return *end && *end <= to ? 0 : -1;
}

/* The end of the object whose '{' is at open (nodeox-sim writes no brace
 * inside a string of its groups), or NULL. */
static const char *cf_close(const char *open)
{
	int depth = 0;

	for (const char *p = open; *p; p++)
		if (*p == '{')
			depth++;
		else if (*p == '}' && --depth == 0)
			return p;
	return NULL;
}

/* nodeox-sim's figures of one run ("baseline", "nodeox") and counterfactual
 * group: its "all", or its --labels label of that name (absent when no job
 * had it: the side has no job). -1 when the JSON lacks what must be there. */
static int cf_read_group(const char *doc, const char *run, int group, report_cf_side_t *side)
{
	const char *rs, *re, *gs, *ge;
	char key[64];
	double v;

	memset(side, 0, sizeof(*side));
	rs = strstr(doc, run[0] == 'b' ? "\"baseline\": {" : "\"nodeox\": {");
	if (!rs || !(re = cf_close(strchr(rs, '{'))))
		return -1;
	if (group != REPORT_CF_ALL) {
		const char *ls = strstr(rs, "\"labels\": {"), *le;

		if (!ls || ls > re || !(le = cf_close(strchr(ls, '{'))))
			return -1;
		rs = ls;
		re = le;
	}
	if (cf_object(rs, re, report_cf_group_name(group), &gs, &ge) < 0) {
		if (group == REPORT_CF_ALL)
			return -1;
		for (int k = 0; k < REPORT_CF_NKEYS; k++)
			side->v[k].med = side->v[k].lo = side->v[k].hi = NAN;
		return 0;
	}
	if (cf_number(gs, ge, "jobs", &v) < 0)
		return -1;
	side->jobs = (long)v;
	for (int k = 0; k < REPORT_CF_NKEYS; k++) {
		if (cf_number(gs, ge, cf_keys[k], &side->v[k].med) < 0)
			return -1;
		snprintf(key, sizeof(key), "%s_lo", cf_keys[k]);
		if (cf_number(gs, ge, key, &side->v[k].lo) < 0)
			side->v[k].lo = side->v[k].med; /* --replicas 1: no range */
		snprintf(key, sizeof(key), "%s_hi", cf_keys[k]);
		if (cf_number(gs, ge, key, &side->v[k].hi) < 0)
			side->v[k].hi = side->v[k].med;
		if (!side->jobs) /* nodeox-sim writes 0 for a group with no job */
			side->v[k].med = side->v[k].lo = side->v[k].hi = NAN;
	}
	return 0;
}

/* The q-quantile of n sorted values as nodeox-sim computes it (GSL's:
 * linear between order statistics), so that what happened and the model
 * are measured alike; NaN with none. */
static double cf_quantile(const double *v, size_t n, double q)
{
	double at;
	size_t i;

	if (!n)
		return NAN;
	at = q * (double)(n - 1);
	i = (size_t)at;
	return i + 1 < n ? v[i] + (at - (double)i) * (v[i + 1] - v[i]) : v[i];
}

/* What happened to the jobs of one counterfactual group (REPORT_CF_*). */
static void cf_actual(const sacct_history_t *h, int group, report_cf_group_t *g)
{
	double *w = calloc(h->njobs ? h->njobs : 1, sizeof(double));
	double *t = calloc(h->njobs ? h->njobs : 1, sizeof(double));
	size_t n = 0;

	if (!w || !t) {
		free(w);
		free(t);
		return;
	}
	for (size_t i = 0; i < h->njobs; i++) {
		const sacct_job_t *j = &h->jobs[i];

		if (group != REPORT_CF_ALL && report_group_of(j) != (report_group_t)group)
			continue;
		w[n] = (double)j->wait;
		t[n++] = (double)(j->end - j->submit);
	}
	report_dist_t dw = report_dist_of(w, n), dt = report_dist_of(t, n); /* sorts w and t */
	g->actual_jobs = (long)n;
	g->actual[0] = dw.mean;
	g->actual[1] = dw.median;
	g->actual[2] = cf_quantile(w, n, 0.95);
	g->actual[3] = dt.mean;
	g->actual[4] = dt.median;
	g->actual[5] = cf_quantile(t, n, 0.95);
	free(w);
	free(t);
}

/* Sooner, later or within noise: the plugin-on range against the off one. */
static void cf_judge(report_cf_group_t *g)
{
	for (int k = 0; k < REPORT_CF_NKEYS; k++) {
		const report_range_t *on = &g->on.v[k], *off = &g->off.v[k];

		g->effect[k] = !g->on.jobs || !g->off.jobs ? REPORT_CF_EMPTY
			       : on->hi < off->lo          ? REPORT_CF_SOONER
			       : on->lo > off->hi          ? REPORT_CF_LATER
							   : REPORT_CF_NOISE;
		g->model_off[k] = !isnan(g->actual[k]) && g->on.jobs &&
				  (g->actual[k] < on->lo || g->actual[k] > on->hi);
	}
	g->verdict = g->effect[REPORT_CF_TURNAROUND_MEAN];
}

const char *report_cf_effect_name(report_cf_effect_t e)
{
	switch (e) {
	case REPORT_CF_SOONER: return "sooner";
	case REPORT_CF_LATER: return "later";
	case REPORT_CF_EMPTY: return "no jobs";
	case REPORT_CF_NOISE: break;
	}
	return "within noise";
}

/* The jobs as their users submitted them: the importer's trace rows; or
 * (labels) nodeox-sim's --labels file: each job's group, as accounting
 * tells it (report_group_of: the one rule, here as in the report's table). */
static int cf_write_jobs(const sacct_history_t *h, int labels, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (labels)
		fputs("job_id,label\n", f);
	else
		sacct_write_header(f);
	for (size_t i = 0; i < h->njobs; i++)
		if (labels)
			fprintf(f, "%s,%s\n", h->jobs[i].job_id,
				report_group_name(report_group_of(&h->jobs[i])));
		else
			sacct_write_job(f, &h->jobs[i], h->jobs[0].submit);
	if (fclose(f) != 0) {
		snprintf(err, errlen, "%s: write error", path);
		return -1;
	}
	return 0;
}

int report_tmpdir(char *dir, size_t len, char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, len, "%s/nodeox-report.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(dir))
		return 0;
	snprintf(err, errlen, "mkdtemp %s: %s", dir, strerror(errno));
	return -1;
}

int report_spawn(char *const argv[], const char *errpath, char *err, size_t errlen)
{
	pid_t pid = fork();
	int st;

	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout) || (errpath && !freopen(errpath, "w", stderr)))
			_exit(126);
		execvp(argv[0], argv);
		fprintf(stderr, "nodeox report: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			snprintf(err, errlen, "waitpid: %s", strerror(errno));
			return -1;
		}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static char *cf_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, len = 0, got;

	if (!f)
		return NULL;
	do {
		if (cap - len < 4096) {
			char *g = realloc(buf, cap + 65536);

			if (!g) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = g;
			cap += 65536;
		}
		got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
	} while (got > 0);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

/* nodeox-sim's --jobs rows (policy,job_id,submit,start,end,wait,...,status,
 * ...): the jobs that ran, with their wait and turnaround. The first eight
 * fields never hold a comma. */
static int cf_read_jobs(const char *path, report_cf_t *cf)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, jcap = 0;
	int rc = 0;

	if (!f)
		return -1;
	if (getline(&line, &cap, f) < 0)
		rc = -1;
	while (rc == 0 && getline(&line, &cap, f) != -1) {
		char *fld[8], *p = line;
		int n;

		for (n = 0; n < 8 && p; n++) {
			fld[n] = p;
			p = strchr(p, ',');
			if (p)
				*p++ = '\0';
		}
		if (n < 8 || strcmp(fld[7], "done"))
			continue;
		if (cf->njobs == jcap) {
			report_cf_job_t *g = realloc(cf->jobs, (jcap ? 2 * jcap : 256) * sizeof(*g));

			if (!g) {
				rc = -1;
				break;
			}
			cf->jobs = g;
			jcap = jcap ? 2 * jcap : 256;
		}
		report_cf_job_t *j = &cf->jobs[cf->njobs++];
		snprintf(j->job_id, sizeof(j->job_id), "%s", fld[1]);
		j->on = !strcmp(fld[0], "nodeox");
		j->wait = strtod(fld[5], NULL);
		j->turnaround = strtod(fld[4], NULL) - strtod(fld[2], NULL);
	}
	free(line);
	fclose(f);
	return rc;
}

int report_cf_run(const sacct_history_t *h, const report_cf_opts_t *o, report_cf_t *cf, char *err,
		  size_t errlen)
{
	char dirbuf[4096], tpath[4200], jpath[4200], rpath[4200], lpath[4200], reps[32];
	char *doc = NULL;
	int rc = -1, st;

	memset(cf, 0, sizeof(*cf));
	if (!h->njobs) {
		snprintf(err, errlen, "no job to replay");
		return -1;
	}
	if (report_tmpdir(dirbuf, sizeof(dirbuf), err, errlen) < 0)
		return -1;
	snprintf(tpath, sizeof(tpath), "%s/trace.csv", dirbuf);
	snprintf(jpath, sizeof(jpath), "%s/sim.json", dirbuf);
	snprintf(rpath, sizeof(rpath), "%s/jobs.csv", dirbuf);
	snprintf(lpath, sizeof(lpath), "%s/labels.csv", dirbuf);
	if (o->trace) /* every column the importer wrote, time limits and CPUs too */
		snprintf(tpath, sizeof(tpath), "%s", o->trace);
	else if (cf_write_jobs(h, 0, tpath, err, errlen) < 0)
		goto out;
	if (cf_write_jobs(h, 1, lpath, err, errlen) < 0)
		goto out;
	snprintf(reps, sizeof(reps), "--replicas=%d", o->replicas);
	char *argv[] = { (char *)o->sim,
			 "-q",
			 "--cluster",
			 (char *)o->cluster,
			 "--policy",
			 (char *)o->policy,
			 reps,
			 "--labels",
			 lpath,
			 "--json",
			 jpath,
			 o->jobs ? "--jobs" : tpath,
			 o->jobs ? rpath : NULL,
			 o->jobs ? tpath : NULL,
			 NULL };
	st = report_spawn(argv, NULL, err, errlen);
	if (st != 0) {
		if (st > 0)
			snprintf(err, errlen, "%s exited with status %d (its message above)", o->sim, st);
		goto out;
	}
	if (o->jobs && cf_read_jobs(rpath, cf) < 0) {
		snprintf(err, errlen, "%s: cannot read nodeox-sim's jobs", rpath);
		goto out;
	}
	doc = cf_slurp(jpath);
	if (!doc) {
		snprintf(err, errlen, "%s: cannot read nodeox-sim's JSON", jpath);
		goto out;
	}
	for (int g = 0; g < REPORT_CF_NGROUPS; g++) {
		if (cf_read_group(doc, "nodeox", g, &cf->group[g].on) < 0 ||
		    cf_read_group(doc, "baseline", g, &cf->group[g].off) < 0) {
			snprintf(err, errlen, "%s: no %s figures in nodeox-sim's JSON", jpath,
				 report_cf_group_name(g));
			goto out;
		}
		cf_actual(h, g, &cf->group[g]);
		cf_judge(&cf->group[g]);
	}
	cf->replicas = o->replicas;
	cf->made = 1;
	rc = 0;
out:
	free(doc);
	if (!o->trace)
		unlink(tpath);
	unlink(jpath);
	unlink(rpath);
	unlink(lpath);
	rmdir(dirbuf);
	return rc;
}
