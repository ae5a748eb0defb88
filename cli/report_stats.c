/*
 * report_stats.c: the figures of `nodeox report` (report.h) from the jobs of
 * a history: the groups (by the plugin's record in AdminComment), wait, run
 * time and turnaround (mean, median, p95), GPU-hours by the type run on, end
 * states by type asked x type run with the substitute types' excess flagged
 * (one-sided Fisher exact test against the type run as asked), why kept jobs
 * were kept, and cost at --price.
 */
#include "cli/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const group_names[REPORT_NGROUPS] = { "broadened", "kept", "untagged", "record_lost" };
static const char *const state_names[REPORT_NSTATES] = { "COMPLETED", "FAILED",    "TIMEOUT", "OUT_OF_MEMORY",
							 "CANCELLED", "NODE_FAIL", "OTHER",   "REQUEUED" };

const char *report_group_name(report_group_t g)
{
	return g >= 0 && g < REPORT_NGROUPS ? group_names[g] : "?";
}

const char *report_state_name(report_state_t s)
{
	return s >= 0 && s < REPORT_NSTATES ? state_names[s] : "?";
}

report_state_t report_state_of(const char *state)
{
	for (int s = 0; s < REPORT_ST_OTHER; s++)
		if (!strcmp(state, state_names[s]))
			return (report_state_t)s;
	return REPORT_ST_OTHER;
}

report_group_t report_group_of(const sacct_job_t *job)
{
	if (job->record == SACCT_RECORD_REWRITE)
		return REPORT_BROADENED;
	if (!job->tagged)
		return REPORT_UNTAGGED;
	/* a tagged job asking any type was never broadened; one asking a type
	 * whose AdminComment is someone else's may have been (its request in
	 * accounting is then untyped): neither can be told apart from kept */
	if (job->record == SACCT_RECORD_FOREIGN)
		return REPORT_LOST;
	return REPORT_KEPT;
}

static const char *broaden_name(nodeox_broaden_t b)
{
	switch (b) {
	case NODEOX_BROADEN_WHEN_BLOCKED: return "when-blocked";
	case NODEOX_BROADEN_WHEN_FASTER: return "when-faster";
	case NODEOX_BROADEN_ALWAYS: break;
	}
	return "always";
}

/*
 * Why a tagged job was kept: a "nodeox dryrun: would change" text in its
 * AdminComment (the plugin logs its dryrun decisions and stores none; an
 * admin may have copied one there) says it would have been broadened; else
 * the policy's decision on the job as accounting shows it (Mode=dryrun in
 * the policy: not applied)
 * (without the cluster's state at submission, which accounting does not
 * keep: what Broaden=when-blocked or when-faster decided on is not known).
 */
const char *report_kept_reason(const sacct_job_t *job, const nodeox_conf_t *conf, char *buf, size_t len)
{
	nodeox_decision_t d;
	nodeox_job_t pj;
	char tres[SACCT_TYPE_MAX + 64];

	if (job->record == SACCT_RECORD_DRYRUN)
		return "Mode=dryrun: would have been broadened";
	if (!conf)
		return "not recorded (give --policy for the policy's reason)";
	if (!job->req_type[0])
		return "not broadened: asked for any GPU type";
	memset(&pj, 0, sizeof(pj));
	snprintf(tres, sizeof(tres), "gres:gpu:%s:%lld", job->req_type,
		 (long long)(job->nodes > 0 ? job->gpus / job->nodes : job->gpus));
	pj.comment = job->comment;
	if (job->nodes > 0)
		pj.tres_per_node = tres;
	else
		pj.tres_per_job = tres;
	pj.partition = *job->partition ? job->partition : NULL;
	pj.account = job->account;
	pj.user = job->user;
	pj.time_limit = job->time_limit > 0 ? (uint32_t)((job->time_limit + 59) / 60) : NODEOX_TIME_NONE;
	pj.min_nodes = job->nodes > 0 ? (uint32_t)job->nodes : 0;
	nodeox_policy_decide(conf, &pj, NULL, &d);
	if (d.action == NODEOX_REWRITE && !d.dryrun) {
		snprintf(buf, len,
			 "not broadened at submission (Broaden=%s decides on the cluster then), "
			 "or under another nodeox.conf",
			 broaden_name(conf->broaden));
		return buf;
	}
	if (d.action == NODEOX_REWRITE)
		return "Mode=dryrun: not applied (the policy would broaden it)";
	snprintf(buf, len, "%s", d.reason[0] ? d.reason : nodeox_action_name(d.action));
	return buf;
}

double report_percentile(const double *sorted, size_t n, double q)
{
	size_t rank;

	if (!n)
		return NAN;
	rank = (size_t)ceil(q * (double)n);
	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

double report_median(const double *sorted, size_t n)
{
	if (!n)
		return NAN;
	return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

/* log C(n, k) */
static double lchoose(long n, long k)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1);
}

double report_fisher_greater(long k, long n, long k0, long n0)
{
	long total = n + n0, in_state = k + k0, x, hi = n < in_state ? n : in_state;
	double p = 0, denom;

	if (!n || !n0)
		return 1;
	denom = lchoose(total, n);
	for (x = k; x <= hi; x++) {
		if (in_state - x > n0)
			continue;
		p += exp(lchoose(in_state, x) + lchoose(total - in_state, n - x) - denom);
	}
	return p > 1 ? 1 : p;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

report_dist_t report_dist_of(double *v, size_t n)
{
	report_dist_t d;
	double sum = 0;

	qsort(v, n, sizeof(*v), cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	d.mean = n ? sum / (double)n : NAN;
	d.median = report_median(v, n);
	d.p95 = report_percentile(v, n, 0.95);
	return d;
}

static const char *type_asked(const sacct_job_t *j)
{
	return j->req_type[0] ? j->req_type : "any";
}

static const char *type_ran(const sacct_job_t *j)
{
	return j->alloc_type[0] ? j->alloc_type : "unknown";
}

static report_cell_t *cell_get(report_t *r, const char *asked, const char *ran, size_t *cap)
{
	for (size_t i = 0; i < r->ncells; i++)
		if (!strcmp(r->cells[i].asked, asked) && !strcmp(r->cells[i].ran, ran))
			return &r->cells[i];
	if (r->ncells == *cap) {
		size_t nc = *cap ? 2 * *cap : 16;
		report_cell_t *g = realloc(r->cells, nc * sizeof(*g));

		if (!g)
			return NULL;
		r->cells = g;
		*cap = nc;
	}
	memset(&r->cells[r->ncells], 0, sizeof(r->cells[0]));
	r->cells[r->ncells].asked = asked;
	r->cells[r->ncells].ran = ran;
	return &r->cells[r->ncells++];
}

static report_use_t *use_get(report_t *r, report_group_t g, const sacct_job_t *j, size_t *cap)
{
	for (size_t i = 0; i < r->nuse; i++) {
		report_use_t *u = &r->use[i];

		if (u->group == g && !strcmp(u->asked, type_asked(j)) && !strcmp(u->ran, type_ran(j)) &&
		    !strcmp(u->account, j->account) && !strcmp(u->partition, j->partition))
			return u;
	}
	if (r->nuse == *cap) {
		size_t nc = *cap ? 2 * *cap : 16;
		report_use_t *n = realloc(r->use, nc * sizeof(*n));

		if (!n)
			return NULL;
		r->use = n;
		*cap = nc;
	}
	r->use[r->nuse] = (report_use_t){ g, type_asked(j), type_ran(j), j->account, j->partition, 0, 0 };
	return &r->use[r->nuse++];
}

/* Sum r->use into GPU-hours per (group, type run on). */
static int type_hours_build(report_t *r)
{
	r->type_hours = calloc(r->nuse ? r->nuse : 1, sizeof(*r->type_hours));
	if (!r->type_hours)
		return -1;
	for (size_t i = 0; i < r->nuse; i++) {
		const report_use_t *u = &r->use[i];
		size_t k;

		for (k = 0; k < r->ntype_hours; k++)
			if (r->type_hours[k].group == u->group && !strcmp(r->type_hours[k].ran, u->ran))
				break;
		if (k == r->ntype_hours)
			r->type_hours[r->ntype_hours++] = (report_type_hours_t){ u->group, u->ran, 0 };
		r->type_hours[k].gpu_hours += u->gpu_hours;
	}
	return 0;
}

static int reason_add(report_t *r, const char *reason, size_t *cap)
{
	for (size_t i = 0; i < r->nreasons; i++)
		if (!strcmp(r->reasons[i].reason, reason)) {
			r->reasons[i].jobs++;
			return 0;
		}
	if (r->nreasons == *cap) {
		size_t nc = *cap ? 2 * *cap : 8;
		report_reason_t *n = realloc(r->reasons, nc * sizeof(*n));

		if (!n)
			return -1;
		r->reasons = n;
		*cap = nc;
	}
	r->reasons[r->nreasons].reason = strdup(reason);
	if (!r->reasons[r->nreasons].reason)
		return -1;
	r->reasons[r->nreasons++].jobs = 1;
	return 0;
}

static int cmp_cell(const void *a, const void *b)
{
	const report_cell_t *x = a, *y = b;
	int c = strcmp(x->asked, y->asked);

	return c ? c : strcmp(x->ran, y->ran);
}

static int cmp_reason(const void *a, const void *b)
{
	const report_reason_t *x = a, *y = b;

	if (x->jobs != y->jobs)
		return x->jobs < y->jobs ? 1 : -1;
	return strcmp(x->reason, y->reason);
}

/* Each substitute cell's failure states against its type run as asked. */
static void cells_flag(report_t *r)
{
	for (size_t i = 0; i < r->ncells; i++) {
		report_cell_t *c = &r->cells[i];
		const report_cell_t *base = NULL;

		for (int s = 0; s < REPORT_NSTATES; s++)
			c->p[s] = 1;
		if (!strcmp(c->asked, c->ran) || !strcmp(c->asked, "any"))
			continue;
		for (size_t k = 0; k < r->ncells; k++)
			if (!strcmp(r->cells[k].asked, c->asked) && !strcmp(r->cells[k].ran, c->asked))
				base = &r->cells[k];
		if (!base)
			continue;
		c->base_jobs = base->jobs;
		for (int s = 0; s < REPORT_NSTATES; s++) {
			c->base_n[s] = base->n[s];
			if (s == REPORT_ST_COMPLETED)
				continue;
			c->p[s] = report_fisher_greater(c->n[s], c->jobs, base->n[s], base->jobs);
			c->flagged[s] =
				c->n[s] * base->jobs > base->n[s] * c->jobs && c->p[s] < REPORT_FLAG_P;
		}
	}
}

int report_build(const sacct_history_t *h, const nodeox_conf_t *conf, report_t *r)
{
	double *v[3][REPORT_NGROUPS];
	size_t nv[REPORT_NGROUPS] = { 0 }, ccap = 0, ucap = 0, rcap = 0, i;
	int rc = -1, g, m;
	char buf[NODEOX_ERR_MAX + 128];

	memset(v, 0, sizeof(v));
	for (m = 0; m < 3; m++)
		for (g = 0; g < REPORT_NGROUPS; g++)
			if (!(v[m][g] = calloc(h->njobs ? h->njobs : 1, sizeof(double))))
				goto out;
	r->lost_ids = calloc(h->njobs ? h->njobs : 1, sizeof(*r->lost_ids));
	if (!r->lost_ids)
		goto out;
	for (i = 0; i < h->njobs; i++) {
		const sacct_job_t *j = &h->jobs[i];
		report_group_t gr = report_group_of(j);
		report_cell_t *c = cell_get(r, type_asked(j), type_ran(j), &ccap);
		report_use_t *u = use_get(r, gr, j, &ucap);
		double hours = (double)j->gpu_seconds / 3600.0;

		if (!c || !u)
			goto out;
		r->jobs++;
		v[0][gr][nv[gr]] = (double)j->wait;
		v[1][gr][nv[gr]] = (double)j->run_time;
		v[2][gr][nv[gr]++] = (double)(j->end - j->submit);
		r->group[gr].gpu_hours += hours;
		c->jobs++;
		c->n[report_state_of(j->state)]++;
		c->n[REPORT_ST_REQUEUED] += j->requeues > 0;
		u->jobs++;
		u->gpu_hours += hours;
		if (gr == REPORT_BROADENED && strcmp(type_asked(j), type_ran(j)))
			r->idle_gpu_hours += hours;
		if (gr == REPORT_KEPT &&
		    reason_add(r, report_kept_reason(j, conf, buf, sizeof(buf)), &rcap) < 0)
			goto out;
		if (gr == REPORT_LOST)
			r->lost_ids[r->nlost++] = j->job_id;
	}
	for (g = 0; g < REPORT_NGROUPS; g++) {
		r->group[g].jobs = (long)nv[g];
		r->group[g].wait = report_dist_of(v[0][g], nv[g]);
		r->group[g].run = report_dist_of(v[1][g], nv[g]);
		r->group[g].turnaround = report_dist_of(v[2][g], nv[g]);
	}
	if (r->ncells)
		qsort(r->cells, r->ncells, sizeof(*r->cells), cmp_cell);
	if (r->nreasons)
		qsort(r->reasons, r->nreasons, sizeof(*r->reasons), cmp_reason);
	cells_flag(r);
	rc = type_hours_build(r);
out:
	for (m = 0; m < 3; m++)
		for (g = 0; g < REPORT_NGROUPS; g++)
			free(v[m][g]);
	return rc;
}

void report_free(report_t *r)
{
	for (size_t i = 0; i < r->nreasons; i++)
		free((char *)r->reasons[i].reason);
	free(r->reasons);
	free(r->cells);
	free(r->use);
	free(r->type_hours);
	free(r->lost_ids);
	free(r->prices);
	free(r->cf.jobs);
	memset(r, 0, sizeof(*r));
}

int report_price_parse(const char *s, report_price_t **out, size_t *n, char *err, size_t errlen)
{
	const char *p = s;

	*out = NULL;
	*n = 0;
	while (*p) {
		const char *comma = strchr(p, ','), *eq = strchr(p, '=');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		report_price_t *grown;
		char num[64], *end;

		if (!eq || eq >= p + len || eq == p || (size_t)(eq - p) >= SACCT_TYPE_MAX ||
		    len - (size_t)(eq - p) - 1 >= sizeof(num) || len - (size_t)(eq - p) - 1 == 0) {
			snprintf(err, errlen, "--price: '%.*s' is not TYPE=COST", (int)(len > 60 ? 60 : len),
				 p);
			goto bad;
		}
		memcpy(num, eq + 1, len - (size_t)(eq - p) - 1);
		num[len - (size_t)(eq - p) - 1] = '\0';
		double cost = strtod(num, &end);
		if (*end || !isfinite(cost) || cost < 0) {
			snprintf(err, errlen, "--price: '%s' is not a cost >= 0 (for %.*s)", num,
				 (int)(eq - p), p);
			goto bad;
		}
		for (size_t i = 0; i < *n; i++)
			if (!strncasecmp((*out)[i].type, p, (size_t)(eq - p)) && !(*out)[i].type[eq - p]) {
				snprintf(err, errlen, "--price: %.*s given twice", (int)(eq - p), p);
				goto bad;
			}
		grown = realloc(*out, (*n + 1) * sizeof(**out));
		if (!grown) {
			snprintf(err, errlen, "--price: out of memory");
			goto bad;
		}
		*out = grown;
		snprintf((*out)[*n].type, sizeof((*out)[*n].type), "%.*s", (int)(eq - p), p);
		(*out)[(*n)++].cost = cost;
		p += len + (comma ? 1 : 0);
		if (comma && !*p) {
			snprintf(err, errlen, "--price: ends with a comma");
			goto bad;
		}
	}
	if (!*n) {
		snprintf(err, errlen, "--price: empty");
		goto bad;
	}
	return 0;
bad:
	free(*out);
	*out = NULL;
	*n = 0;
	return -1;
}

double report_price_cost(const report_t *r, const char *type, double hours)
{
	for (size_t i = 0; i < r->nprices; i++)
		if (!strcasecmp(r->prices[i].type, type))
			return hours * r->prices[i].cost;
	return NAN;
}
