/*
 * tests/speeds/test_speeds_build.c: unit tests of cli/speeds_build.c, the
 * speed table `nodeox speeds` makes from the jobs' speed records: medians
 * of time per sample (step / batch) per type, the speed as their ratio, the
 * spread as the two types' (Q3 - Q1) / median summed, jobs counted once
 * when they ran on both types, entries with too few jobs or too wide a
 * spread left out and said, names a table cannot hold skipped, and the
 * table written read back by the policy library's reader (the plugin's).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/common/test_main.h"
#include "cli/speeds.h"

#define MAXJ 32

static sacct_job_t jobs[MAXJ];
static speedrec_t recs[MAXJ];
static size_t njobs;

static void reset(void)
{
	memset(jobs, 0, sizeof(jobs));
	memset(recs, 0, sizeof(recs));
	njobs = 0;
}

/* A job of user/account with one type measured (or two: type2 non-NULL). */
static void job(const char *workload, const char *user, const char *account, const char *type, double ms,
		long batch, const char *type2, double ms2)
{
	sacct_job_t *j = &jobs[njobs];
	speedrec_t *r = &recs[njobs];

	snprintf(r->workload, sizeof(r->workload), "%s", workload);
	snprintf(r->t[0].type, sizeof(r->t[0].type), "%s", type);
	r->t[0].step_ms = ms;
	r->t[0].ranks = 1;
	r->t[0].batch = batch;
	r->ntypes = 1;
	if (type2) {
		snprintf(r->t[1].type, sizeof(r->t[1].type), "%s", type2);
		r->t[1].step_ms = ms2;
		r->t[1].ranks = 1;
		r->t[1].batch = batch;
		r->ntypes = 2;
	}
	j->user = (char *)user;
	j->account = (char *)account;
	j->speeds = r;
	j->start = 1764547200 + (time_t)njobs * 3600; /* 2025-12-01 */
	j->end = j->start + 600;
	njobs++;
}

static const speeds_row_t *row(const speeds_result_t *r, nodeox_scope_t scope, const char *name,
			       const char *asked, const char *run)
{
	for (size_t i = 0; i < r->nrows; i++)
		if (r->rows[i].e.scope == scope && !strcmp(r->rows[i].e.name, name) &&
		    !strcmp(r->rows[i].e.asked, asked) && !strcmp(r->rows[i].e.run, run))
			return &r->rows[i];
	return NULL;
}

static const speeds_opts_t defaults = { .min_jobs = 3, .max_spread = 0.5 };

static void test_median_ratio_spread(void **state)
{
	speeds_result_t r;
	const speeds_row_t *w;
	(void)state;

	reset();
	/* a100: 10, 11, 9 ms per sample (batch 10); l40s 25, 24, 26 */
	job("bert", "alice", "nlp", "a100", 100, 10, NULL, 0);
	job("bert", "alice", "nlp", "a100", 110, 10, NULL, 0);
	job("bert", "alice", "nlp", "a100", 90, 10, NULL, 0);
	job("bert", "alice", "nlp", "l40s", 250, 10, NULL, 0);
	job("bert", "alice", "nlp", "l40s", 240, 10, NULL, 0);
	job("bert", "alice", "nlp", "l40s", 260, 10, NULL, 0);
	assert_int_equal(speeds_build(jobs, njobs, &defaults, &r), 0);
	/* two directions under each of the three scopes */
	assert_int_equal(r.nrows, 6);
	assert_int_equal(r.nkept, 6);
	assert_int_equal(r.with_record, 6);
	w = row(&r, NODEOX_SCOPE_WORKLOAD, "bert", "a100", "l40s");
	assert_non_null(w);
	assert_true(w->e.speed > 0.4 - 1e-12 && w->e.speed < 0.4 + 1e-12);
	assert_int_equal(w->e.jobs, 6);
	/* (10.5 - 9.5) / 10 + (25.5 - 24.5) / 25 */
	assert_true(w->e.spread > 0.14 - 1e-12 && w->e.spread < 0.14 + 1e-12);
	w = row(&r, NODEOX_SCOPE_USER, "alice", "l40s", "a100");
	assert_non_null(w);
	assert_true(w->e.speed > 2.5 - 1e-12 && w->e.speed < 2.5 + 1e-12);
	assert_non_null(row(&r, NODEOX_SCOPE_ACCOUNT, "nlp", "a100", "l40s"));
	assert_int_equal(r.first, jobs[0].start);
	assert_int_equal(r.last, jobs[5].end);
	speeds_result_free(&r);
}

/* time per sample, not per step: a type run with twice the batch */
static void test_batch(void **state)
{
	speeds_result_t r;
	const speeds_row_t *w;
	(void)state;

	reset();
	for (int i = 0; i < 3; i++) {
		job("gpt", "u", "a", "a100", 100, 64, NULL, 0);
		job("gpt", "u", "a", "v100", 100, 32, NULL, 0);
	}
	assert_int_equal(speeds_build(jobs, njobs, &defaults, &r), 0);
	w = row(&r, NODEOX_SCOPE_WORKLOAD, "gpt", "a100", "v100");
	assert_non_null(w);
	assert_true(w->e.speed > 0.5 - 1e-12 && w->e.speed < 0.5 + 1e-12);
	assert_true(w->e.spread == 0);
	speeds_result_free(&r);
	/* batch 0 (not known): the step time */
	reset();
	for (int i = 0; i < 3; i++) {
		job("gpt", "u", "a", "a100", 100, 0, NULL, 0);
		job("gpt", "u", "a", "v100", 300, 0, NULL, 0);
	}
	assert_int_equal(speeds_build(jobs, njobs, &defaults, &r), 0);
	w = row(&r, NODEOX_SCOPE_WORKLOAD, "gpt", "a100", "v100");
	assert_true(w->e.speed > 1.0 / 3 - 1e-12 && w->e.speed < 1.0 / 3 + 1e-12);
	speeds_result_free(&r);
}

/* a job that ran on both types counts once in jobs, on each in n_ */
static void test_mixed_counts_once(void **state)
{
	speeds_result_t r;
	const speeds_row_t *w;
	(void)state;

	reset();
	for (int i = 0; i < 3; i++)
		job("m", "u", "a", "a100", 10, 1, "l40s", 20);
	job("m", "u", "a", "l40s", 20, 1, NULL, 0);
	assert_int_equal(speeds_build(jobs, njobs, &defaults, &r), 0);
	w = row(&r, NODEOX_SCOPE_WORKLOAD, "m", "a100", "l40s");
	assert_int_equal(w->e.jobs, 4);
	assert_int_equal(w->n_asked, 3);
	assert_int_equal(w->n_run, 4);
	assert_int_equal(w->verdict, SPEEDS_KEPT);
	speeds_result_free(&r);
}

static void test_left_out(void **state)
{
	speeds_result_t r;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	(void)state;

	reset();
	for (int i = 0; i < 3; i++)
		job("w", "", "", "a100", 10, 1, NULL, 0);
	job("w", "", "", "v100", 20, 1, NULL, 0);
	job("w", "", "", "v100", 20, 1, NULL, 0);
	/* h100: 1, 5, 20: spread (12.5 - 3) / 5 = 1.9 */
	job("w", "", "", "h100", 1, 1, NULL, 0);
	job("w", "", "", "h100", 5, 1, NULL, 0);
	job("w", "", "", "h100", 20, 1, NULL, 0);
	assert_int_equal(speeds_build(jobs, njobs, &defaults, &r), 0);
	assert_int_equal(r.nrows, 6); /* workload scope only: no user, no account */
	assert_int_equal(r.nkept, 0);
	assert_int_equal(row(&r, NODEOX_SCOPE_WORKLOAD, "w", "a100", "v100")->verdict, SPEEDS_FEW_JOBS);
	assert_int_equal(row(&r, NODEOX_SCOPE_WORKLOAD, "w", "a100", "h100")->verdict, SPEEDS_WIDE);
	f = open_memstream(&text, &len);
	speeds_say_left_out(f, "nodeox speeds", &r, &defaults);
	fclose(f);
	assert_string_equal(text,
			    "nodeox speeds: left out workload w a100<->h100: spread 1.9 (a100 0 over 3 "
			    "jobs, h100 1.9 over 3) above --max-spread 0.5\n"
			    "nodeox speeds: left out workload w a100<->v100: 3 jobs measured on a100 and 2 "
			    "on v100, fewer than --min-jobs 3\n"
			    "nodeox speeds: left out workload w h100<->v100: 3 jobs measured on h100 and 2 "
			    "on v100, fewer than --min-jobs 3\n");
	free(text);
	speeds_result_free(&r);
	/* looser options keep them */
	speeds_opts_t loose = { .min_jobs = 2, .max_spread = 2 };
	assert_int_equal(speeds_build(jobs, njobs, &loose, &r), 0);
	assert_int_equal(r.nkept, 6);
	speeds_result_free(&r);
}

static void test_bad_names_and_none(void **state)
{
	speeds_result_t r;
	(void)state;

	reset();
	for (int i = 0; i < 3; i++) {
		job("has space", "u", "a", "a100", 10, 1, NULL, 0);
		job("ok", "u", "a", "a:100", 10, 1, NULL, 0);
	}
	assert_int_equal(speeds_build(jobs, njobs, &defaults, &r), 0);
	assert_int_equal(r.bad_names, 6);
	assert_int_equal(r.nrows, 0);  /* one good type per name only */
	assert_int_equal(r.single, 2); /* user u, account a: a100 alone */
	assert_string_equal(r.single_first, "user u (a100, 3 jobs)");
	speeds_result_free(&r);
	/* no job with a record */
	reset();
	jobs[0].user = "u";
	assert_int_equal(speeds_build(jobs, 1, &defaults, &r), 0);
	assert_int_equal(r.with_record, 0);
	assert_int_equal(r.nrows, 0);
	speeds_result_free(&r);
}

/* what is written, the plugin's reader reads: the kept entries only */
static void test_written_read_back(void **state)
{
	speeds_result_t r;
	nodeox_speeds_t *t;
	const nodeox_speed_t *e;
	char *text = NULL, err[256];
	size_t len = 0;
	FILE *f;
	(void)state;

	reset();
	for (int i = 0; i < 3; i++) {
		job("bert", "alice", "nlp", "a100", 10, 1, NULL, 0);
		job("bert", "alice", "nlp", "l40s", 41, 1, NULL, 0);
	}
	job("bert", "alice", "nlp", "v100", 20, 1, NULL, 0);
	assert_int_equal(speeds_build(jobs, njobs, &defaults, &r), 0);
	f = open_memstream(&text, &len);
	assert_int_equal(
		speeds_write(f, &r, "2026-12-05T00:00:00Z", "h.txt:2026-12-01..2026-12-02", "a note"), 0);
	assert_int_equal(speeds_write(f, &r, "two words", "x", NULL), -1);
	fclose(f);
	assert_int_equal(nodeox_speeds_parse_string(text, "t.speeds", &t, err, sizeof(err)), 0);
	assert_int_equal(nodeox_speeds_count(t), 6);
	assert_string_equal(nodeox_speeds_made(t), "2026-12-05T00:00:00Z");
	assert_string_equal(nodeox_speeds_from(t), "h.txt:2026-12-01..2026-12-02");
	e = nodeox_speeds_find(t, NODEOX_SCOPE_WORKLOAD, "bert", "a100", "l40s");
	assert_non_null(e);
	assert_true(e->speed > 10.0 / 41 - 1e-6 && e->speed < 10.0 / 41 + 1e-6);
	assert_int_equal(e->jobs, 6);
	assert_null(nodeox_speeds_find(t, NODEOX_SCOPE_WORKLOAD, "bert", "a100", "v100"));
	assert_non_null(strstr(text, "# a note\n"));
	nodeox_speeds_free(t);
	free(text);
	speeds_result_free(&r);
}

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_median_ratio_spread), cmocka_unit_test(test_batch),
		 cmocka_unit_test(test_mixed_counts_once), cmocka_unit_test(test_left_out),
		 cmocka_unit_test(test_bad_names_and_none), cmocka_unit_test(test_written_read_back))
