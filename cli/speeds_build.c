/*
 * speeds_build.c: the speed table's entries from the jobs' speed records
 * (the rules in speeds.h), its writing through the policy library's writer
 * (so the plugin reads what is written), and the lines saying what was
 * left out and why. Pure C over an array of jobs: tests/speeds/ test it
 * on hand-made jobs.
 */
#include "cli/speeds.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One job's time per sample on one type, under one scope's name. */
typedef struct {
	nodeox_scope_t scope;
	const char *name, *type;
	double v;
	size_t job;
} speeds_sample_t;

/* A type's jobs under one name: samples[first .. first + n). */
typedef struct {
	const char *type;
	size_t first, n;
	double median, spread;
} speeds_type_t;

/* What the speed table takes as a name (nodeox.conf(5), SPEED TABLE). */
static int speeds_name_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!n || n >= NODEOX_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-' || c == '@'))
			return 0;
	}
	return 1;
}

static int sample_cmp(const void *pa, const void *pb)
{
	const speeds_sample_t *a = pa, *b = pb;
	int c;

	if (a->scope != b->scope)
		return (int)a->scope - (int)b->scope;
	if ((c = strcmp(a->name, b->name)))
		return c;
	if ((c = strcasecmp(a->type, b->type)))
		return c;
	return a->job < b->job ? -1 : a->job > b->job;
}

static int double_cmp(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

/* Quantile q of n sorted values, linear between order statistics. */
static double quantile(const double *x, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t i = (size_t)pos;

	if (i + 1 >= n)
		return x[n - 1];
	return x[i] + (pos - (double)i) * (x[i + 1] - x[i]);
}

/* Median and relative spread (Q3 - Q1) / median of a type's samples. */
static void summarise(const speeds_sample_t *s, speeds_type_t *t, double *scratch)
{
	for (size_t i = 0; i < t->n; i++)
		scratch[i] = s[t->first + i].v;
	qsort(scratch, t->n, sizeof(*scratch), double_cmp);
	t->median = quantile(scratch, t->n, 0.5);
	t->spread = t->median > 0
			    ? (quantile(scratch, t->n, 0.75) - quantile(scratch, t->n, 0.25)) / t->median
			    : INFINITY;
}

/* Jobs measured on a or b (each list sorted by job). */
static size_t union_jobs(const speeds_sample_t *s, const speeds_type_t *a, const speeds_type_t *b)
{
	size_t i = 0, j = 0, n = 0;

	while (i < a->n || j < b->n) {
		if (j == b->n || (i < a->n && s[a->first + i].job < s[b->first + j].job))
			i++;
		else if (i == a->n || s[b->first + j].job < s[a->first + i].job)
			j++;
		else
			i++, j++;
		n++;
	}
	return n;
}

static int add_row(speeds_result_t *r, size_t *cap, const speeds_row_t *row)
{
	if (r->nrows == *cap) {
		size_t ncap = *cap ? 2 * *cap : 64;
		speeds_row_t *g = realloc(r->rows, ncap * sizeof(*g));

		if (!g)
			return -1;
		r->rows = g;
		*cap = ncap;
	}
	r->rows[r->nrows++] = *row;
	r->nkept += row->verdict == SPEEDS_KEPT;
	return 0;
}

/* The rows of one name: every ordered pair of its types. */
static int name_rows(speeds_result_t *r, size_t *cap, const speeds_sample_t *s, const speeds_type_t *t,
		     size_t nt, const speeds_opts_t *o)
{
	for (size_t a = 0; a < nt; a++)
		for (size_t b = 0; b < nt; b++) {
			speeds_row_t row;

			if (a == b)
				continue;
			memset(&row, 0, sizeof(row));
			row.e.scope = s[t[a].first].scope;
			snprintf(row.e.name, sizeof(row.e.name), "%s", s[t[a].first].name);
			snprintf(row.e.asked, sizeof(row.e.asked), "%s", t[a].type);
			snprintf(row.e.run, sizeof(row.e.run), "%s", t[b].type);
			row.e.speed = t[b].median > 0 ? t[a].median / t[b].median : INFINITY;
			row.e.spread = t[a].spread + t[b].spread;
			size_t jobs = union_jobs(s, &t[a], &t[b]);
			row.e.jobs = jobs > NODEOX_SPEEDS_JOBS_MAX ? NODEOX_SPEEDS_JOBS_MAX : (uint32_t)jobs;
			row.n_asked = (int)t[a].n;
			row.n_run = (int)t[b].n;
			row.spread_asked = t[a].spread;
			row.spread_run = t[b].spread;
			if ((int)t[a].n < o->min_jobs || (int)t[b].n < o->min_jobs)
				row.verdict = SPEEDS_FEW_JOBS;
			else if (!(row.e.spread <= o->max_spread))
				row.verdict = SPEEDS_WIDE;
			else if (!(row.e.speed > 0 && row.e.speed <= NODEOX_SPEEDS_SPEED_MAX) ||
				 !(row.e.spread <= NODEOX_SPEEDS_SPEED_MAX))
				row.verdict = SPEEDS_RANGE;
			if (add_row(r, cap, &row))
				return -1;
		}
	return 0;
}

int speeds_build(const sacct_job_t *jobs, size_t n, const speeds_opts_t *o, speeds_result_t *r)
{
	speeds_sample_t *s = NULL;
	speeds_type_t *t = NULL;
	double *scratch = NULL;
	size_t ns = 0, scap = 0, cap = 0, i, j;
	int rc = -1, span = 0;

	memset(r, 0, sizeof(*r));
	r->jobs = (long)n;
	for (i = 0; i < n; i++) {
		const speedrec_t *rec = jobs[i].speeds;
		const char *names[NODEOX_NSCOPES];
		int counted = 0;

		if (!rec)
			continue;
		r->with_record++;
		names[NODEOX_SCOPE_WORKLOAD] = rec->workload;
		names[NODEOX_SCOPE_USER] = jobs[i].user;
		names[NODEOX_SCOPE_ACCOUNT] = jobs[i].account;
		for (int k = 0; k < rec->ntypes; k++) {
			const speedrec_type_t *ty = &rec->t[k];

			if (!speeds_name_ok(ty->type)) {
				r->bad_names++;
				continue;
			}
			for (int sc = 0; sc < NODEOX_NSCOPES; sc++) {
				if (!names[sc] || !*names[sc])
					continue;
				if (!speeds_name_ok(names[sc])) {
					r->bad_names += k == 0;
					continue;
				}
				if (ns == scap) {
					size_t ncap = scap ? 2 * scap : 256;
					speeds_sample_t *g = realloc(s, ncap * sizeof(*g));

					if (!g)
						goto out;
					s = g;
					scap = ncap;
				}
				s[ns++] = (speeds_sample_t){ .scope = (nodeox_scope_t)sc,
							     .name = names[sc],
							     .type = ty->type,
							     .v = ty->step_ms /
								  (ty->batch > 0 ? (double)ty->batch : 1.0),
							     .job = i };
				counted = 1;
			}
		}
		if (counted) {
			if (!span++ || jobs[i].start < r->first)
				r->first = jobs[i].start;
			if (span == 1 || jobs[i].end > r->last)
				r->last = jobs[i].end;
		}
	}
	rc = 0;
	if (!ns)
		goto out;
	rc = -1;
	qsort(s, ns, sizeof(*s), sample_cmp);
	if (!(t = malloc(ns * sizeof(*t))) || !(scratch = malloc(ns * sizeof(*scratch))))
		goto out;
	for (i = 0; i < ns; i = j) {
		size_t nt = 0;

		/* one (scope, name): its types */
		for (j = i; j < ns && s[j].scope == s[i].scope && !strcmp(s[j].name, s[i].name); j++) {
			if (nt && !strcasecmp(t[nt - 1].type, s[j].type)) {
				t[nt - 1].n++;
				continue;
			}
			t[nt++] = (speeds_type_t){ .type = s[j].type, .first = j, .n = 1 };
		}
		if (nt == 1 && !r->single++)
			snprintf(r->single_first, sizeof(r->single_first), "%s %s (%s, %zu jobs)",
				 nodeox_scope_name(s[i].scope), s[i].name, t[0].type, t[0].n);
		for (size_t k = 0; k < nt; k++)
			summarise(s, &t[k], scratch);
		if (name_rows(r, &cap, s, t, nt, o))
			goto out;
	}
	rc = 0;
out:
	free(s);
	free(t);
	free(scratch);
	if (rc)
		speeds_result_free(r);
	return rc;
}

void speeds_result_free(speeds_result_t *r)
{
	free(r->rows);
	r->rows = NULL;
	r->nrows = r->nkept = 0;
}

int speeds_write(FILE *out, const speeds_result_t *r, const char *made, const char *from, const char *comment)
{
	char line[1024];

	if (nodeox_speeds_format_header(made, from, line, sizeof(line)) < 0)
		return -1;
	fputs(line, out);
	if (comment)
		fprintf(out, "# %s\n", comment);
	fprintf(out, "# scope name asked run speed jobs spread\n");
	for (size_t i = 0; i < r->nrows; i++)
		if (r->rows[i].verdict == SPEEDS_KEPT &&
		    nodeox_speeds_format_entry(&r->rows[i].e, line, sizeof(line)) >= 0)
			fputs(line, out);
	return 0;
}

void speeds_say_left_out(FILE *err, const char *prog, const speeds_result_t *r, const speeds_opts_t *o)
{
	for (size_t i = 0; i < r->nrows; i++) {
		const speeds_row_t *w = &r->rows[i];

		/* a pair's two directions share their jobs and spread: said once */
		if (w->verdict == SPEEDS_KEPT || strcasecmp(w->e.asked, w->e.run) > 0)
			continue;
		fprintf(err, "%s: left out %s %s %s<->%s: ", prog, nodeox_scope_name(w->e.scope), w->e.name,
			w->e.asked, w->e.run);
		switch (w->verdict) {
		case SPEEDS_FEW_JOBS:
			fprintf(err, "%d jobs measured on %s and %d on %s, fewer than --min-jobs %d\n",
				w->n_asked, w->e.asked, w->n_run, w->e.run, o->min_jobs);
			break;
		case SPEEDS_WIDE:
			fprintf(err,
				"spread %.3g (%s %.3g over %d jobs, %s %.3g over %d) above --max-spread %g\n",
				w->e.spread, w->e.asked, w->spread_asked, w->n_asked, w->e.run, w->spread_run,
				w->n_run, o->max_spread);
			break;
		default:
			fprintf(err, "speed %.3g or spread %.3g outside what a speed table holds\n",
				w->e.speed, w->e.spread);
			break;
		}
	}
}
