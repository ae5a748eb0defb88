/*
 * test_report_stats.c: cmocka unit tests of `nodeox report`'s figures
 * (cli/report_stats.c) on real files and histories: the history reader
 * (sim/sacct/sacct_history.c: bad lines named and skipped, sacct -D runs of a
 * requeued job merged, foreign AdminComments counted, among them one that
 * Slurm 25.11's `scancel --admin-comment` replaced), the groups, the
 * distributions, the end-state cells and their flags (Fisher's exact test,
 * values checked against Python's math.comb), the reasons of kept jobs from
 * the policy library, and --price.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/test_main.h"
#include "cli/report.h"

#define HDR                                                                                                  \
	"JobIDRaw|User|Account|Partition|Submit|Start|End|Timelimit|ReqTRES|AllocTRES|NNodes|State|Comment|" \
	"AdminComment\n"

static int read_text(const char *text, sacct_history_t *h)
{
	sacct_history_opts_t o = { .prog = "test", .skip_bad = 1 };
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int rc;

	assert_non_null(in);
	rc = sacct_history_read(in, "text", &o, h);
	fclose(in);
	return rc;
}

static int read_data(sacct_history_t *h)
{
	const char *src = getenv("top_srcdir");
	char path[1024];
	sacct_history_opts_t o = { .prog = "test", .skip_bad = 1 };
	FILE *in;
	int rc;

	snprintf(path, sizeof(path), "%s/tests/report/data/history.txt", src ? src : ".");
	in = fopen(path, "r");
	assert_non_null(in);
	rc = sacct_history_read(in, path, &o, h);
	fclose(in);
	return rc;
}

static const sacct_job_t *job_by_id(const sacct_history_t *h, const char *id)
{
	for (size_t i = 0; i < h->njobs; i++)
		if (!strcmp(h->jobs[i].job_id, id))
			return &h->jobs[i];
	fail_msg("job %s not read", id);
	return NULL;
}

/* the file: 9 jobs, a step, a bad time, a line cut short, a requeue, a foreign record */
static void test_history_file(void **state)
{
	sacct_history_t h;
	const sacct_job_t *j;

	(void)state;
	assert_int_equal(read_data(&h), 0);
	assert_int_equal(h.njobs, 9);
	assert_int_equal(h.n_bad, 2);
	assert_int_equal(h.n_step, 1);
	assert_int_equal(h.n_requeued, 1);
	assert_int_equal(h.n_foreign, 1);
	assert_string_equal(h.foreign_ids, "107");
	assert_non_null(strstr(h.first_bad, ":13: field Start:"));
	j = job_by_id(&h, "100");
	assert_int_equal(j->record, SACCT_RECORD_REWRITE);
	assert_string_equal(j->req_type, "a100");
	assert_string_equal(j->alloc_type, "l40s");
	assert_int_equal(j->wait, 10);
	assert_int_equal(j->gpu_seconds, 3600);
	/* two runs: submitted when the first was, waited until the first
	 * started, the second's state and run time, the GPU time of both */
	j = job_by_id(&h, "106");
	assert_int_equal(j->requeues, 1);
	assert_int_equal(j->wait, 5);
	assert_int_equal(j->run_time, 1800);
	assert_int_equal(j->end - j->submit, 2420);
	assert_int_equal(j->gpu_seconds, 2400);
	assert_string_equal(j->state, "COMPLETED");
	j = job_by_id(&h, "105");
	assert_string_equal(j->state, "CANCELLED");
	j = job_by_id(&h, "107");
	assert_int_equal(j->record, SACCT_RECORD_FOREIGN);
	assert_string_equal(j->req_type, ""); /* not made typed */
	sacct_history_free(&h);
}

static void test_groups(void **state)
{
	sacct_history_t h;
	report_t r;
	const report_group_stats_t *b;

	(void)state;
	assert_int_equal(read_data(&h), 0);
	memset(&r, 0, sizeof(r));
	assert_int_equal(report_build(&h, NULL, &r), 0);
	b = &r.group[REPORT_BROADENED];
	assert_int_equal(b->jobs, 3);
	assert_int_equal(r.group[REPORT_KEPT].jobs, 1);
	assert_int_equal(r.group[REPORT_UNTAGGED].jobs, 4);
	assert_int_equal(r.group[REPORT_LOST].jobs, 1);
	assert_float_equal(b->wait.mean, 100.0 / 3, 1e-9); /* 10, 30, 60 */
	assert_float_equal(b->wait.median, 30, 1e-9);
	assert_float_equal(b->wait.p95, 60, 1e-9);
	assert_float_equal(b->turnaround.mean, (3610.0 + 7230 + 1860) / 3, 1e-9);
	assert_float_equal(b->gpu_hours, 1 + 4 + 0.5, 1e-9);
	assert_float_equal(r.idle_gpu_hours, 5, 1e-9); /* 100 and 101 on l40s */
	assert_float_equal(r.group[REPORT_UNTAGGED].wait.median, (5.0 + 60) / 2, 1e-9);
	assert_int_equal(r.nlost, 1);
	assert_string_equal(r.lost_ids[0], "107");
	/* cells: a100 asked on a100 (102 broadened, 103 kept, 104, 105) */
	assert_int_equal(r.ncells, 4);
	assert_string_equal(r.cells[0].asked, "a100");
	assert_string_equal(r.cells[0].ran, "a100");
	assert_int_equal(r.cells[0].jobs, 4);
	assert_int_equal(r.cells[0].n[REPORT_ST_FAILED], 1);
	assert_int_equal(r.cells[0].n[REPORT_ST_CANCELLED], 1);
	assert_string_equal(r.cells[1].ran, "l40s");
	assert_int_equal(r.cells[1].n[REPORT_ST_TIMEOUT], 1);
	assert_int_equal(r.cells[1].base_jobs, 4);
	assert_false(r.cells[1].flagged[REPORT_ST_TIMEOUT]); /* 1 of 2 against 0 of 4: p 0.33 */
	assert_float_equal(r.cells[1].p[REPORT_ST_TIMEOUT], 1.0 / 3, 1e-9);
	assert_string_equal(r.cells[2].asked, "any");
	assert_int_equal(r.cells[2].n[REPORT_ST_OUT_OF_MEMORY], 1);
	assert_int_equal(r.cells[3].n[REPORT_ST_REQUEUED], 1);
	report_free(&r);
	sacct_history_free(&h);
}

static void test_fisher(void **state)
{
	(void)state;
	/* math.comb sums of the hypergeometric tail */
	assert_float_equal(report_fisher_greater(5, 10, 0, 20), 0.0017683465959328027, 1e-12);
	assert_float_equal(report_fisher_greater(1, 10, 0, 20), 1.0 / 3, 1e-12);
	assert_float_equal(report_fisher_greater(3, 10, 1, 10), 0.29102167182662536, 1e-12);
	assert_float_equal(report_fisher_greater(1, 1, 0, 1), 0.5, 1e-12);
	assert_float_equal(report_fisher_greater(0, 5, 3, 5), 1, 1e-12);
	assert_float_equal(report_fisher_greater(2, 5, 0, 0), 1, 1e-12); /* no comparison */
}

/* n jobs asked TYPE_A, ran on RAN, the first k of them in STATE */
static void add_jobs(char *buf, size_t cap, int *id, const char *ran, int n, int k, const char *st)
{
	for (int i = 0; i < n; i++) {
		size_t used = strlen(buf);

		snprintf(buf + used, cap - used,
			 "%d|u|acct|gpu|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T09:00:00|02:00:00|"
			 "gres/gpu=1|gres/gpu:%s=1,gres/gpu=1|1|%s|nodeox:flex|nodeox: changed v=1 type=a100 "
			 "gpus=node:1 tag=nodeox:flex\n",
			 (*id)++, ran, i < k ? st : "COMPLETED");
	}
}

/* 5 of 10 TIMEOUT on l40s against 0 of 20 on a100 is flagged; 1 of 10 on
 * h100 is not; nor COMPLETED, nor the asked type itself */
static void test_flag(void **state)
{
	static char text[64 * 1024];
	sacct_history_t h;
	report_t r;
	int id = 1;

	(void)state;
	snprintf(text, sizeof(text), "%s", HDR);
	add_jobs(text, sizeof(text), &id, "a100", 20, 0, "TIMEOUT");
	add_jobs(text, sizeof(text), &id, "l40s", 10, 5, "TIMEOUT");
	add_jobs(text, sizeof(text), &id, "h100", 10, 1, "TIMEOUT");
	assert_int_equal(read_text(text, &h), 0);
	memset(&r, 0, sizeof(r));
	assert_int_equal(report_build(&h, NULL, &r), 0);
	assert_int_equal(r.ncells, 3);
	assert_string_equal(r.cells[1].ran, "h100");
	assert_false(r.cells[1].flagged[REPORT_ST_TIMEOUT]);
	assert_string_equal(r.cells[2].ran, "l40s");
	assert_true(r.cells[2].flagged[REPORT_ST_TIMEOUT]);
	assert_float_equal(r.cells[2].p[REPORT_ST_TIMEOUT], 0.0017683465959328027, 1e-12);
	for (int s = 0; s < REPORT_NSTATES; s++) {
		assert_false(r.cells[0].flagged[s]);
		if (s != REPORT_ST_TIMEOUT)
			assert_false(r.cells[2].flagged[s]);
	}
	assert_int_equal(r.group[REPORT_BROADENED].jobs, 40);
	assert_float_equal(r.idle_gpu_hours, 20, 1e-9);
	report_free(&r);
	sacct_history_free(&h);
}

/* a dryrun record and the policy's own reason for a kept job */
static void test_kept_reasons(void **state)
{
	static const char text[] =
		HDR "1|u|a|gpu|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T09:00:00|01:00:00|"
		    "gres/gpu:a100=1,gres/gpu=1|gres/gpu:a100=1,gres/gpu=1|1|COMPLETED|nodeox:flex|"
		    "nodeox dryrun: would change v=1 type=a100 gpus=node:1 tag=nodeox:flex\n"
		    "2|u|a|gpu|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T09:00:00|01:00:00|"
		    "gres/gpu:a100=1,gres/gpu=1|gres/gpu:a100=1,gres/gpu=1|1|COMPLETED|nodeox:flex:mem=80G|\n"
		    "3|u|a|gpu|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T09:00:00|01:00:00|"
		    "gres/gpu:a100=1,gres/gpu=1|gres/gpu:a100=1,gres/gpu=1|1|COMPLETED|nodeox:flex|\n";
	static const char conf_text[] =
		"GpuType=a100 Memory=80G Speed=1.0\nGpuType=l40s Memory=48G Speed=0.5\n"
		"Group=g Types=a100,l40s\n";
	nodeox_conf_t *conf;
	sacct_history_t h;
	report_t r;
	char err[256];

	(void)state;
	assert_int_equal(nodeox_conf_parse_string(conf_text, "test.conf", &conf, err, sizeof(err)), 0);
	assert_int_equal(read_text(text, &h), 0);
	assert_int_equal(h.njobs, 3);
	assert_int_equal(h.jobs[0].record, SACCT_RECORD_DRYRUN);
	memset(&r, 0, sizeof(r));
	assert_int_equal(report_build(&h, conf, &r), 0);
	assert_int_equal(r.group[REPORT_KEPT].jobs, 3);
	assert_int_equal(r.nreasons, 3);
	for (size_t i = 0; i < r.nreasons; i++)
		assert_int_equal(r.reasons[i].jobs, 1);
	int seen = 0;
	for (size_t i = 0; i < r.nreasons; i++) {
		seen |= !strcmp(r.reasons[i].reason, "Mode=dryrun: would have been broadened");
		seen |= (strstr(r.reasons[i].reason, "l40s too little memory") != NULL) << 1;
		seen |= (strstr(r.reasons[i].reason, "not broadened at submission (Broaden=always") != NULL)
			<< 2;
	}
	assert_int_equal(seen, 7);
	report_free(&r);
	sacct_history_free(&h);
	nodeox_conf_free(conf);
}

static void test_percentiles(void **state)
{
	static const double v[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

	(void)state;
	assert_float_equal(report_median(v, 10), 5.5, 1e-12);
	assert_float_equal(report_median(v, 9), 5, 1e-12);
	assert_float_equal(report_percentile(v, 10, 0.95), 10, 1e-12); /* rank ceil(9.5) = 10 */
	assert_float_equal(report_percentile(v, 20 / 2, 0.5), 5, 1e-12);
	assert_true(isnan(report_median(v, 0)));
}

static void test_price(void **state)
{
	static const nodeox_test_case_t bad[] = {
		{ "a100", "'a100' is not TYPE=COST" },
		{ "a100=x", "'x' is not a cost" },
		{ "a100=-1", "is not a cost >= 0" },
		{ "a100=1,A100=2", "A100 given twice" },
		{ "a100=1,", "ends with a comma" },
		{ "=3", "is not TYPE=COST" },
		{ "", "--price: empty" },
	};
	report_price_t *p;
	size_t n;
	char err[256];
	report_t r;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(report_price_parse(bad[i].in, &p, &n, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].want))
			fail_msg("'%s': %s, want %s", bad[i].in, err, bad[i].want);
	}
	assert_int_equal(report_price_parse("a100=2.5,l40s=1", &p, &n, err, sizeof(err)), 0);
	memset(&r, 0, sizeof(r));
	r.prices = p;
	r.nprices = n;
	assert_float_equal(report_price_cost(&r, "a100", 2), 5, 1e-12);
	assert_float_equal(report_price_cost(&r, "L40S", 3), 3, 1e-12);
	assert_true(isnan(report_price_cost(&r, "h100", 1)));
	free(p);
}

/* Slurm 25.11's `scancel --admin-comment=TEXT` sets the job's AdminComment
 * to TEXT, replacing what was there (src/slurmctld/job_mgr.c of 25.11.7:
 * xfree(job_ptr->admin_comment) then xstrdup of the kill message's), so a
 * broadened job cancelled so loses the plugin's record. The host cluster is
 * 22.05 (no such option), so these are sacct rows as 25.11 writes them: 201
 * broadened, then cancelled with an admin comment while running (its
 * request in accounting untyped, as the plugin rewrote it): record lost,
 * counted and named; 202 tagged, cancelled so while pending: never started,
 * not a GPU job of the report, not counted; 203 untagged, cancelled so:
 * counted by the reader (an AdminComment that is not nodeox's) but untagged
 * in the report; 204 broadened and cancelled without one: broadened. */
static void test_admin_comment_replaced(void **state)
{
	static const char text[] = HDR
		"201|ann|nlp|gpu|2026-11-02T08:00:00|2026-11-02T08:00:05|2026-11-02T08:10:05|01:00:00|"
		"billing=1,cpu=1,gres/gpu=1,mem=500M,node=1|billing=1,cpu=1,gres/gpu:l40s=1,gres/"
		"gpu=1,mem=500M,"
		"node=1|1|CANCELLED by 0|nodeox:flex|drained for maintenance\n"
		"202|ann|nlp|gpu|2026-11-02T08:01:00|Unknown|2026-11-02T08:05:00|01:00:00|"
		"billing=1,cpu=1,gres/gpu:a100=1,gres/gpu=1,mem=500M,node=1||0|CANCELLED by 0|nodeox:flex|"
		"drained for maintenance\n"
		"203|bea|vision|gpu|2026-11-02T08:02:00|2026-11-02T08:02:01|2026-11-02T08:10:05|01:00:00|"
		"billing=1,cpu=1,gres/gpu:a100=1,gres/gpu=1,mem=500M,node=1|billing=1,cpu=1,gres/gpu:a100=1,"
		"gres/gpu=1,mem=500M,node=1|1|CANCELLED by 0||drained for maintenance\n"
		"204|ann|nlp|gpu|2026-11-02T08:03:00|2026-11-02T08:03:02|2026-11-02T08:10:05|01:00:00|"
		"billing=1,cpu=1,gres/gpu=1,mem=500M,node=1|billing=1,cpu=1,gres/gpu:l40s=1,gres/"
		"gpu=1,mem=500M,"
		"node=1|1|CANCELLED by 1000|nodeox:flex|nodeox: changed v=1 type=a100 gpus=node:1 "
		"tag=nodeox:flex\n";
	sacct_history_t h;
	report_t r;

	(void)state;
	memset(&h, 0, sizeof(h));
	assert_int_equal(read_text(text, &h), 0);
	assert_int_equal(h.njobs, 3);
	assert_int_equal(h.n_unstarted, 1); /* 202 */
	assert_int_equal(h.n_foreign, 2);
	assert_string_equal(h.foreign_ids, "201 203");
	assert_int_equal(job_by_id(&h, "201")->record, SACCT_RECORD_FOREIGN);
	assert_int_equal(report_group_of(job_by_id(&h, "201")), REPORT_LOST);
	assert_int_equal(report_group_of(job_by_id(&h, "203")), REPORT_UNTAGGED);
	assert_int_equal(report_group_of(job_by_id(&h, "204")), REPORT_BROADENED);
	memset(&r, 0, sizeof(r));
	assert_int_equal(report_build(&h, NULL, &r), 0);
	assert_int_equal(r.group[REPORT_LOST].jobs, 1);
	assert_int_equal(r.nlost, 1);
	assert_string_equal(r.lost_ids[0], "201");
	assert_int_equal(r.group[REPORT_BROADENED].jobs, 1);
	assert_int_equal(r.group[REPORT_UNTAGGED].jobs, 1);
	assert_int_equal(report_state_of(job_by_id(&h, "201")->state), REPORT_ST_CANCELLED);
	report_free(&r);
	sacct_history_free(&h);
}

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_history_file), cmocka_unit_test(test_groups),
		 cmocka_unit_test(test_fisher), cmocka_unit_test(test_flag),
		 cmocka_unit_test(test_kept_reasons), cmocka_unit_test(test_percentiles),
		 cmocka_unit_test(test_price), cmocka_unit_test(test_admin_comment_replaced))
