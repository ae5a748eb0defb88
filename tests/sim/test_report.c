/*
 * test_report.c: the statistics behind the table and --json: means and
 * percentiles (GSL's interpolation), the tagged subset, GPU-hours by type,
 * "ended later" against a baseline, utilisation and makespan; on a large
 * run too (the report sorts long arrays with its own radix sort). And
 * --price: parsing, its errors, and cost = GPU-hours x price by type.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <glib.h>

#include "tests/common/test_main.h"
#include "common/csv_write.h"
#include "sim/run/price.h"
#include "sim/run/report.h"
#include "tests/sim/sim_test.h"

static sim_run_t *make_run(const int64_t (*t)[3], const bool *tagged, size_t n)
{
	sim_run_t *r = g_new0(sim_run_t, 1);
	r->njobs = n + 1;
	r->jobs = g_new0(sim_result_t, n + 1);
	r->strings = g_string_chunk_new(64);
	for (size_t j = 0; j < n; j++) {
		r->jobs[j] = (sim_result_t){ .submit = t[j][0],
					     .start = t[j][1],
					     .end = t[j][2],
					     .status = SIM_JOB_DONE,
					     .tagged = tagged[j] };
		if (t[j][2] > r->last_end)
			r->last_end = t[j][2];
	}
	/* a rejected job counts nowhere */
	r->jobs[n] = (sim_result_t){
		.submit = 0, .start = -1, .end = -1, .status = SIM_JOB_REJECTED, .tagged = true
	};
	return r;
}

static void test_stats(void **state)
{
	(void)state;
	/* waits 0, 10, 20, 30, 40; run times 100 each */
	static const int64_t t[5][3] = {
		{ 0, 0, 100 }, { 0, 10, 110 }, { 0, 20, 120 }, { 0, 30, 130 }, { 0, 40, 140 },
	};
	static const bool tagged[5] = { false, true, false, true, false };
	sim_run_t *r = make_run(t, tagged, 5);
	r->gpu_seconds[0][0] = 3600 * 6;
	r->gpu_seconds[0][1] = 3600 * 2;
	r->gpu_seconds[1][1] = 3600 * 2;
	report_stats_t s;
	report_stats(r, NULL, false, 2, &s);
	assert_int_equal(s.jobs, 5);
	assert_true(s.wait_mean_s == 20);
	assert_true(s.wait_p50_s == 20);
	assert_true(fabs(s.wait_p95_s - 38) < 1e-9); /* 30 + 0.8 * (40 - 30) */
	assert_true(s.run_mean_s == 100);
	assert_true(s.turnaround_mean_s == 120);
	assert_true(s.gpu_hours == 8);
	assert_true(s.gpu_hours_type[1] == 2);
	assert_true(s.ended_later == -1);
	report_stats(r, NULL, true, 2, &s);
	assert_int_equal(s.jobs, 2);
	assert_true(s.wait_mean_s == 20);
	assert_true(s.wait_p50_s == 20); /* between 10 and 30 */
	assert_true(s.gpu_hours == 2);
	/* the untagged jobs: 0, 2 and 4 (waits 0, 20, 40); their GPU-hours all
	 * less the tagged ones' */
	report_stats(r, NULL, REPORT_GROUP_UNTAGGED, 2, &s);
	assert_int_equal(s.jobs, 3);
	assert_true(s.wait_mean_s == 20);
	assert_true(s.wait_p50_s == 20);
	assert_true(s.turnaround_mean_s == 120);
	assert_true(s.gpu_hours == 6);
	assert_true(s.gpu_hours_type[0] == 6 && s.gpu_hours_type[1] == 0);
	assert_true(report_makespan(r) == 140);
	sim_cluster_t c = { .ntypes = 2, .total_gpus = 10 };
	assert_true(fabs(report_utilization(&c, r) - 8.0 * 3600 / (140.0 * 10)) < 1e-12);
	/* against a baseline where jobs 1 and 4 ended sooner */
	static const int64_t b[5][3] = {
		{ 0, 0, 100 }, { 0, 0, 100 }, { 0, 20, 120 }, { 0, 30, 130 }, { 0, 0, 100 },
	};
	sim_run_t *base = make_run(b, tagged, 5);
	report_stats(r, base, false, 2, &s);
	assert_true(s.ended_later == 2);
	report_stats(r, base, true, 2, &s);
	assert_true(s.ended_later == 1);
	report_stats(r, base, REPORT_GROUP_UNTAGGED, 2, &s);
	assert_true(s.ended_later == 1); /* job 4 */
	sched_run_free(r);
	sched_run_free(base);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double quantile_sorted(const double *v, size_t n, double q)
{
	double h = (double)(n - 1) * q; /* GSL's formula, term for term */
	size_t i = (size_t)floor(h);
	double d = h - (double)i;
	return i + 1 < n ? (1 - d) * v[i] + d * v[i + 1] : v[i];
}

/* Percentiles on 20,000 jobs (the radix-sort path) equal those of qsort'ed
 * data with the same interpolation. */
static void test_stats_large(void **state)
{
	(void)state;
	enum { N = 20000 };
	int64_t(*t)[3] = g_malloc(sizeof(*t) * N);
	bool *tagged = g_new0(bool, N);
	double *w = g_new(double, N);
	uint64_t x = 12345;
	for (size_t j = 0; j < N; j++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		int64_t submit = (int64_t)(x >> 40) % 100000;
		int64_t wait = (int64_t)(x >> 20) % 5000000; /* spans several radix digits */
		if (j % 7 == 0)
			wait = 42; /* many equal values */
		t[j][0] = submit;
		t[j][1] = submit + wait;
		t[j][2] = submit + wait + 60;
		w[j] = (double)wait;
	}
	sim_run_t *r = make_run((const int64_t(*)[3])t, tagged, N);
	report_stats_t s;
	report_stats(r, NULL, false, 1, &s);
	qsort(w, N, sizeof(double), cmp_double);
	double sum = 0;
	for (size_t j = 0; j < N; j++)
		sum += w[j];
	assert_int_equal(s.jobs, N);
	assert_true(s.wait_p50_s == quantile_sorted(w, N, 0.50));
	assert_true(s.wait_p95_s == quantile_sorted(w, N, 0.95));
	assert_true(fabs(s.wait_mean_s - sum / N) < 1e-6 * (sum / N));
	assert_true(s.run_p95_s == 60);
	sched_run_free(r);
	g_free(t);
	g_free(tagged);
	g_free(w);
}

/* A cluster with a100, l40s and untyped GPUs (no gres.conf names l1's). */
static sim_cluster_t *price_cluster(void)
{
	static const char conf[] = "NodeName=a1 CPUs=8 Gres=gpu:a100:4\n"
				   "NodeName=l1 CPUs=8 Gres=gpu:4\n"
				   "NodeName=v1 CPUs=8 Gres=gpu:l40s:2\n"
				   "PartitionName=p Nodes=ALL Default=YES\n";
	sim_cluster_t *c = cluster_from_text(conf, "s.conf");
	assert_int_equal(c->ntypes, 3);
	return c;
}

/* Hand-checked: a100 4 GPUs x 2 h and 1 GPU x 0.5 h = 8.5 GPU-hours at 2.5;
 * l40s 2 GPUs x 3 h = 6 at 1.25; untyped 1 GPU x 1 h at 0. Cost 21.25 + 7.5
 * + 0 = 28.75, whatever order and grouping the prices come in. */
static void test_cost(void **state)
{
	(void)state;
	sim_cluster_t *c = price_cluster();
	int a = cluster_find_type(c, "a100"), l = cluster_find_type(c, "l40s");
	int u = cluster_find_type(c, "");
	assert_true(a >= 0 && l >= 0 && u >= 0);
	static const int64_t t[1][3] = { { 0, 0, 60 } };
	static const bool tagged[1] = { true };
	sim_run_t *r = make_run(t, tagged, 1);
	r->gpu_seconds[0][a] = 4 * 2 * 3600.0 + 1 * 1800.0;
	r->gpu_seconds[0][l] = 2 * 3 * 3600.0;
	r->gpu_seconds[0][u] = 3600.0;
	r->gpu_seconds[1][l] = 2 * 3 * 3600.0;
	const char *one[] = { "a100=2.5, (untyped)=0 ,l40s=1.25", NULL };
	const char *two[] = { "l40s=1.25", "(untyped)=0,a100=2.5", NULL };
	const char *const *specs[] = { one, two };
	for (int i = 0; i < 2; i++) {
		double price[SIM_MAX_TYPES], by[SIM_MAX_TYPES];
		char err[256];
		assert_int_equal(price_parse(c, specs[i], price, err, sizeof(err)), 0);
		assert_true(price[a] == 2.5 && price[l] == 1.25 && price[u] == 0);
		report_stats_t s;
		report_stats(r, NULL, false, c->ntypes, &s);
		assert_true(fabs(price_cost(price, s.gpu_hours_type, c->ntypes, by) - 28.75) < 1e-9);
		assert_true(fabs(by[a] - 21.25) < 1e-9);
		assert_true(fabs(by[l] - 7.5) < 1e-9);
		assert_true(by[u] == 0);
		report_stats(r, NULL, true, c->ntypes, &s);
		assert_true(fabs(price_cost(price, s.gpu_hours_type, c->ntypes, NULL) - 7.5) < 1e-9);
	}
	assert_string_equal(price_type_name(c, u), "(untyped)");
	sched_run_free(r);
	cluster_free(c);
}

static void test_price_errors(void **state)
{
	(void)state;
	static const struct {
		const char *spec, *expect;
	} bad[] = {
		{ "a100=1,l40s=1,x100=2,(untyped)=0", "--price: no GPU type 'x100' in the cluster "
						      "(it has a100, l40s, (untyped))" },
		{ "a100=1,l40s=abc,(untyped)=0", "--price: 'l40s=abc': 'abc' is not a price" },
		{ "a100=1,l40s=-1,(untyped)=0", "'-1' is not a price" },
		{ "a100=1,l40s=inf,(untyped)=0", "'inf' is not a price" },
		{ "a100=1,l40s=2x,(untyped)=0", "'2x' is not a price" },
		{ "a100=1,l40s=,(untyped)=0", "'' is not a price" },
		{ "a100=1,l40s,(untyped)=0", "--price: 'l40s': expected TYPE=COST" },
		{ "a100=1,,l40s=1,(untyped)=0", "--price: 'a100=1,,l40s=1,(untyped)=0': empty item" },
		{ "a100=1,l40s=1,a100=2,(untyped)=0", "--price: 'a100': priced twice" },
		{ "a100=1,(untyped)=0", "--price: no price for GPU type 'l40s'" },
		{ "A100=1,l40s=1,(untyped)=0", "no GPU type 'A100'" },
	};
	sim_cluster_t *c = price_cluster();
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		const char *items[] = { bad[i].spec, NULL };
		double price[SIM_MAX_TYPES];
		char err[256] = "";
		assert_int_equal(price_parse(c, items, price, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].expect))
			fail_msg("case %zu: got '%s', want '%s'", i, err, bad[i].expect);
	}
	cluster_free(c);
}

/* One CSV field (common/csv_write.h, shared with the sacct importer): quoted
 * only when it has to be, quotes doubled, read back by the trace reader. */
static void test_csv_field(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	csv_write_field(f, "plain", '|');
	csv_write_field(f, "a,b", '|');
	csv_write_field(f, "say \"hi\"", '|');
	csv_write_field(f, NULL, '|');
	csv_write_field(f, "two\nlines", 0);
	fclose(f);
	assert_string_equal(buf, "plain|\"a,b\"|\"say \"\"hi\"\"\"||\"two\nlines\"");
	free(buf);
}

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_csv_field), cmocka_unit_test(test_stats),
		 cmocka_unit_test(test_stats_large), cmocka_unit_test(test_cost),
		 cmocka_unit_test(test_price_errors))
