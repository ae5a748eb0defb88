/*
 * test_sacct_import.c: cmocka unit tests of the sacct field parsers behind
 * nodeox-sacct-import (sim/sacct_import.c): time limits, times, TRES GPU
 * entries, and whole lines (steps, '|' inside a comment, `sacct -p` output),
 * and the AdminComment record of job_submit/nodeox (policy/policy_record.c)
 * as an interface: written by the real policy library, read back here; what
 * a job got per GPU where ReqTRES cannot say what it asked (sacct_per_gpu:
 * a --cpus-per-gpu=2 job reads ReqTRES cpu=1,mem=500M, AllocTRES
 * cpu=4,mem=2000M).
 */
#include <stdio.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/common/test_main.h"
#include "policy/policy.h"
#include "sim/sacct_import.h"

static void test_timelimit(void **state)
{
	static const struct {
		const char *s;
		int rc;
		int64_t secs;
	} cases[] = {
		{ "12:00:00", 0, 43200 },
		{ "1-00:00:00", 0, 86400 },
		{ "2-03:04:05", 0, 183845 },
		{ "00:30:00", 0, 1800 },
		{ "30:15", 0, 1815 },
		{ "45", 0, 2700 },
		{ "1-12", 0, 129600 },
		{ "1-12:30", 0, 131400 },
		{ "UNLIMITED", 1, 0 },
		{ "Partition_Limit", 1, 0 },
		{ "INFINITE", 1, 0 },
		{ "", 1, 0 },
		{ "00:00:00", 1, 0 },
		{ "0", 1, 0 },
		{ "12:7x:00", -1, 0 },
		{ "1-", -1, 0 },
		{ "-5", -1, 0 },
		{ "1:2:3:4", -1, 0 },
		{ "10:61:00", -1, 0 },
		{ "abc", -1, 0 },
		{ "12:00:00 ", -1, 0 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t secs = -7;
		int rc = sacct_parse_timelimit(cases[i].s, &secs);

		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, want %d", cases[i].s, rc, cases[i].rc);
		if (rc == 0 && secs != cases[i].secs)
			fail_msg("'%s': %lld s, want %lld", cases[i].s, (long long)secs,
				 (long long)cases[i].secs);
	}
}

static void test_time(void **state)
{
	time_t a, b;

	(void)state;
	assert_int_equal(sacct_parse_time("2026-11-02T08:59:12", &a), 0);
	assert_int_equal(sacct_parse_time("2026-11-03T09:00:13", &b), 0);
	assert_int_equal((long)(b - a), 86400 + 61);
	/* across the end of a month and a year */
	assert_int_equal(sacct_parse_time("2026-12-31T23:59:59", &a), 0);
	assert_int_equal(sacct_parse_time("2027-01-01T00:00:01", &b), 0);
	assert_int_equal((long)(b - a), 2);
	assert_int_equal(sacct_parse_time("Unknown", &a), 1);
	assert_int_equal(sacct_parse_time("None", &a), 1);
	assert_int_equal(sacct_parse_time("", &a), 1);
	assert_int_equal(sacct_parse_time("2026-13-02T08:59:12", &a), -1);
	assert_int_equal(sacct_parse_time("2026-11-02 08:59:12", &a), -1);
	assert_int_equal(sacct_parse_time("2026-11-02T08:59", &a), -1);
	assert_int_equal(sacct_parse_time("2026-11-02T08:59:12Z", &a), -1);
	assert_int_equal(sacct_parse_time("11/02-08:59:12", &a), -1);
}

static void test_tres(void **state)
{
	sacct_gpus_t g;
	char err[SACCT_ERR_MAX];

	(void)state;
	assert_int_equal(sacct_parse_tres_gpus("billing=16,cpu=16,gres/gpu:a100=4,gres/gpu=4,"
					       "mem=256000M,node=1",
					       &g, err, sizeof(err)),
			 0);
	assert_int_equal(g.total, 4);
	assert_string_equal(g.type, "a100");
	assert_int_equal(g.ntypes, 1);

	/* untyped request */
	assert_int_equal(sacct_parse_tres_gpus("cpu=8,gres/gpu=2,mem=8G", &g, err, sizeof(err)), 0);
	assert_int_equal(g.total, 2);
	assert_string_equal(g.type, "");

	/* typed entries only (AccountingStorageTRES without plain gres/gpu): summed */
	assert_int_equal(sacct_parse_tres_gpus("gres/gpu:v100=1,gres/gpu:a100=3", &g, err, sizeof(err)), 0);
	assert_int_equal(g.total, 4);
	assert_string_equal(g.type, "a100"); /* most GPUs */
	assert_int_equal(g.ntypes, 2);

	/* no GPU; other gres with similar names are not GPUs */
	assert_int_equal(
		sacct_parse_tres_gpus("cpu=4,mem=1G,gres/gpumem=40G,gres/mps=100", &g, err, sizeof(err)), 0);
	assert_int_equal(g.total, -1);
	assert_int_equal(sacct_parse_tres_gpus("", &g, err, sizeof(err)), 0);
	assert_int_equal(g.total, -1);

	/* errors name the entry */
	assert_int_equal(sacct_parse_tres_gpus("cpu=1,gres/gpu:a100=four", &g, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "gres/gpu:a100=four"));
	assert_int_equal(sacct_parse_tres_gpus("gres/gpu:=4", &g, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bad GPU type"));
	assert_int_equal(sacct_parse_tres_gpus("gres/gpu:a100", &g, err, sizeof(err)), -1);

	/* one count by name (the list walked as every comma list is) */
	assert_int_equal(sacct_parse_tres_count("billing=16,cpu=16,mem=2000G,node=2", "mem"), 2048000);
	assert_int_equal(sacct_parse_tres_count("billing=16,cpu=16,mem=2000G,node=2", "node"), 2);
	assert_int_equal(sacct_parse_tres_count(",,cpu=3,", "cpu"), 3);
	assert_int_equal(sacct_parse_tres_count("cpus=8,cpu=4", "cpu"), 4);
	assert_int_equal(sacct_parse_tres_count("billing=1,cpu", "cpu"), -1);
	assert_int_equal(sacct_parse_tres_count("", "cpu"), -1);
	assert_int_equal(sacct_parse_tres_count("cpu=4,mem=", "mem"), -2);
	assert_int_equal(sacct_parse_tres_count("cpu=4x,mem=1G", "cpu"), -2);
	assert_int_equal(sacct_parse_tres_count("mem=4Gx", "mem"), -2);
}

static const char *header = "JobIDRaw|User|Account|Partition|Submit|Start|End|Timelimit|ReqTRES|AllocTRES|"
			    "Comment|NNodes|State";

static void parse_header(sacct_header_t *h, const char *text)
{
	char buf[512], err[SACCT_ERR_MAX];

	snprintf(buf, sizeof(buf), "%s", text);
	assert_int_equal(sacct_parse_header(buf, NULL, h, err, sizeof(err)), 0);
}

static void test_line(void **state)
{
	sacct_header_t h;
	sacct_job_t job;
	char err[SACCT_ERR_MAX];
	char line[1024];

	(void)state;
	parse_header(&h, header);
	assert_int_equal(h.ncols, 13);

	/* a '|' inside the comment is glued back; CANCELLED by N -> CANCELLED */
	snprintf(line, sizeof(line), "%s",
		 "17|ann|lab|gpu|2026-11-02T10:00:00|2026-11-02T10:00:10|2026-11-02T10:01:10|"
		 "01:00:00|cpu=1,gres/gpu:l40s=2,gres/gpu=2|cpu=1,gres/gpu:l40s=2,gres/gpu=2|"
		 "a|b|c nodeox:flex|1|CANCELLED by 1000\n");
	assert_int_equal(sacct_parse_line(&h, line, &job, err, sizeof(err)), SACCT_LINE_JOB);
	assert_string_equal(job.comment, "a|b|c nodeox:flex");
	assert_string_equal(job.state, "CANCELLED");
	assert_string_equal(job.req_type, "l40s");
	assert_int_equal(job.gpus, 2);
	assert_int_equal(job.run_time, 60);
	assert_int_equal(job.time_limit, 3600);
	assert_int_equal(job.nodes, 1);
	sacct_job_clear(&job);

	/* steps are not jobs */
	snprintf(line, sizeof(line), "%s", "17.batch||||||||||||");
	assert_int_equal(sacct_parse_line(&h, line, &job, err, sizeof(err)), SACCT_LINE_STEP);

	/* allocated but never started: cancelled pending job */
	snprintf(line, sizeof(line), "%s",
		 "18|ann|lab|gpu|2026-11-02T10:00:00|2026-11-02T11:00:00|2026-11-02T11:00:00|"
		 "01:00:00|gres/gpu=1||x|1|CANCELLED by 5");
	assert_int_equal(sacct_parse_line(&h, line, &job, err, sizeof(err)), SACCT_LINE_UNSTARTED);

	/* too few fields: the count is in the message */
	snprintf(line, sizeof(line), "%s", "19|ann|lab");
	assert_int_equal(sacct_parse_line(&h, line, &job, err, sizeof(err)), SACCT_LINE_ERROR);
	assert_non_null(strstr(err, "3 fields, the header has 13"));

	/* `sacct -p`: trailing '|' on header and lines */
	char hp[512];
	snprintf(hp, sizeof(hp), "%s|", header);
	parse_header(&h, hp);
	assert_int_equal(h.ncols, 13);
	snprintf(line, sizeof(line), "%s",
		 "20|bo|lab|gpu|2026-11-02T10:00:00|2026-11-02T10:00:00|2026-11-02T12:00:00|"
		 "UNLIMITED|gres/gpu:a100=8|gres/gpu:a100=8||1|COMPLETED|\n");
	assert_int_equal(sacct_parse_line(&h, line, &job, err, sizeof(err)), SACCT_LINE_JOB);
	assert_int_equal(job.time_limit, -1);
	assert_int_equal(job.gpus, 8);
	assert_string_equal(job.comment, "");
	sacct_job_clear(&job);
}

/* sacct_per_gpu: cpus_per_gpu / mem_per_gpu from AllocTRES where ReqTRES
 * holds only slurmctld's count at submission. */
static void test_per_gpu(void **state)
{
	static const struct {
		const char *req, *alloc, *nnodes;
		int64_t nodes, cpus, mem, cpg, mpg; /* what the row gets */
	} cases[] = {
		/* the audit's --cpus-per-gpu=2 job of 2 GPUs (a real sacct, DefMemPerCPU=500) */
		{ "billing=1,cpu=1,gres/gpu=2,mem=500M,node=1", "billing=4,cpu=4,gres/gpu=2,mem=2000M,node=1",
		  "1", 1, -1, -1, 2, 1000 },
		/* got what it asked: as before */
		{ "cpu=4,gres/gpu=2,mem=16000M,node=1", "cpu=4,gres/gpu=2,mem=16000M,node=1", "1", 1, 4,
		  16000, 0, 0 },
		/* more, but not a whole number per GPU: as before */
		{ "cpu=1,gres/gpu=3,mem=500M,node=1", "cpu=4,gres/gpu=3,mem=2000M,node=1", "1", 1, 1, 500, 0,
		  0 },
		/* asked -c 4 (not one CPU per task): cpus kept; memory still per GPU */
		{ "cpu=4,gres/gpu=2,mem=2000M,node=1", "cpu=8,gres/gpu=2,mem=4000M,node=1", "1", 1, 4, -1, 0,
		  2000 },
		/* per node, -N 2: one CPU per task, 2 tasks */
		{ "cpu=2,gres/gpu=8,mem=1000M,node=2", "cpu=16,gres/gpu=8,mem=8000M,node=2", "2", 2, -1, -1,
		  2, 1000 },
		/* --gpus=6 without -N spread over 2 nodes: one task, per job */
		{ "cpu=1,gres/gpu=6,mem=500M,node=1", "cpu=12,gres/gpu=6,mem=6000M,node=2", "2", 0, -1, -1, 2,
		  1000 },
		/* no memory in ReqTRES (not counted): none asked per GPU */
		{ "cpu=1,gres/gpu=2,node=1", "cpu=4,gres/gpu=2,mem=2000M,node=1", "1", 1, -1, -1, 2, 0 },
	};
	sacct_header_t h;
	sacct_job_t job;
	char err[SACCT_ERR_MAX], line[1024];

	(void)state;
	parse_header(&h, header);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(line, sizeof(line),
			 "30|ann|lab|gpu|2026-11-02T10:00:00|2026-11-02T10:00:10|"
			 "2026-11-02T10:01:10|01:00:00|%s|%s||%s|COMPLETED",
			 cases[i].req, cases[i].alloc, cases[i].nnodes);
		assert_int_equal(sacct_parse_line(&h, line, &job, err, sizeof(err)), SACCT_LINE_JOB);
		if (job.nodes != cases[i].nodes || job.cpus != cases[i].cpus || job.mem_mb != cases[i].mem ||
		    job.cpus_per_gpu != cases[i].cpg || job.mem_per_gpu_mb != cases[i].mpg)
			fail_msg("case %zu: nodes %lld cpus %lld mem %lld cpus_per_gpu %lld "
				 "mem_per_gpu %lld",
				 i, (long long)job.nodes, (long long)job.cpus, (long long)job.mem_mb,
				 (long long)job.cpus_per_gpu, (long long)job.mem_per_gpu_mb);
		if (i == 0) { /* the row: asked per GPU, beside what it got */
			char *buf = NULL;
			size_t len = 0;
			FILE *f = open_memstream(&buf, &len);
			sacct_write_job(f, &job, job.submit);
			fclose(f);
			assert_non_null(strstr(buf, ",COMPLETED,,,,2,1000M,4,2000M,"));
			free(buf);
		}
		sacct_job_clear(&job);
	}
}

static void test_header(void **state)
{
	sacct_header_t h;
	char buf[256], err[SACCT_ERR_MAX];

	(void)state;
	/* JobID accepted for JobIDRaw; order free; unknown columns ignored */
	snprintf(buf, sizeof(buf), "%s", "State|JobID|Elapsed|Submit|Start|End|ReqTRES|AllocTRES");
	assert_int_equal(sacct_parse_header(buf, NULL, &h, err, sizeof(err)), 0);
	assert_int_equal(h.index[SACCT_COL_JOBID], 1);
	assert_int_equal(h.index[SACCT_COL_STATE], 0);
	assert_int_equal(h.index[SACCT_COL_COMMENT], -1);
	snprintf(buf, sizeof(buf), "%s", "JobIDRaw|Submit|Start|End|ReqTRES");
	assert_int_equal(sacct_parse_header(buf, NULL, &h, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "AllocTRES"));
}

/* The interface: what decide_admin_comment writes, nodeox_record_parse reads,
 * also after an admin's own text and with hostile bytes in the constraint. */
static void test_record_roundtrip(void **state)
{
	static const char conf_text[] = "GpuType=a100 Memory=80G Speed=1.0\n"
					"GpuType=l40s Memory=48G Speed=0.6\n"
					"Group=g Types=a100,l40s\n";
	nodeox_conf_t *conf;
	nodeox_decision_t *d = calloc(1, sizeof(*d));
	nodeox_job_t job = { .comment = "run 3 nodeox:flex:mem=40960M:uniform",
			     .tres_per_node = "gres:nic:1,gres:gpu:a100:2",
			     .tres_per_job = "gres:gpu:a100:4",
			     .features = "ib|x;y \"z\"\n|",
			     .time_limit = 60 };
	nodeox_record_t rec;
	char err[SACCT_ERR_MAX], ac[2 * NODEOX_STR_MAX];

	(void)state;
	assert_non_null(d);
	assert_int_equal(nodeox_conf_parse_string(conf_text, "t.conf", &conf, err, sizeof(err)), 0);
	job.features = "ib";
	nodeox_policy_decide(conf, &job, NULL, d);
	assert_int_equal(d->action, NODEOX_REWRITE);
	assert_null(strpbrk(d->admin_comment, "|;\n"));
	snprintf(ac, sizeof(ac), "moved by ops | ticket 12; %s", d->admin_comment);
	assert_int_equal(nodeox_record_parse(ac, &rec, err, sizeof(err)), 1);
	/* the marker the plugin writes is the one its readers look for */
	assert_true(nodeox_record_present(d->admin_comment));
	assert_true(nodeox_record_present(ac));
	assert_false(nodeox_record_present("moved by ops | ticket 12"));
	assert_false(nodeox_record_present(NULL));
	assert_int_equal(rec.version, 1);
	assert_false(rec.legacy);
	assert_string_equal(rec.type, "a100");
	assert_int_equal(rec.count[NODEOX_FORM_JOB], 4);
	assert_int_equal(rec.count[NODEOX_FORM_NODE], 2);
	assert_int_equal(rec.count[NODEOX_FORM_TASK], -1);
	assert_string_equal(rec.tag, "nodeox:flex:mem=40G:uniform");
	assert_int_equal(rec.time_limit_min, 60);

	/* a constraint with every delimiter in it: still one clean record */
	job.features = "ib|x;y \"z\"\n% %7C";
	nodeox_policy_decide(conf, &job, NULL, d);
	if (d->action == NODEOX_REWRITE) {
		assert_null(strpbrk(d->admin_comment, "|;\n\""));
		assert_int_equal(nodeox_record_parse(d->admin_comment, &rec, err, sizeof(err)), 1);
		assert_string_equal(rec.type, "a100");
	}
	nodeox_conf_free(conf);
	free(d);
}

static void test_record_forms(void **state)
{
	nodeox_record_t rec;
	char err[SACCT_ERR_MAX];

	(void)state;
	/* no record; the mark inside an admin's words is not one */
	assert_int_equal(nodeox_record_parse("", &rec, err, sizeof(err)), 0);
	assert_int_equal(nodeox_record_parse("see nodeox: changed v=1 type=a100", &rec, err, sizeof(err)), 0);
	/* two records (an update broadened again): the last gives the request, the
	 * last with time_limit= the original limit; unknown keys are skipped */
	assert_int_equal(nodeox_record_parse("nodeox: changed v=1 type=a100 gpus=node:4 "
					     "tag=nodeox:flex time_limit=30->60; nodeox: changed "
					     "v=1 type=h100 gpus=job:8 tag=nodeox:flex:types=h100%2Ba100 "
					     "future=x%20y",
					     &rec, err, sizeof(err)),
			 1);
	assert_string_equal(rec.type, "h100");
	assert_int_equal(rec.count[NODEOX_FORM_JOB], 8);
	assert_int_equal(rec.count[NODEOX_FORM_NODE], -1);
	assert_string_equal(rec.tag, "nodeox:flex:types=h100+a100");
	assert_int_equal(rec.time_limit_min, 30);
	/* a newer version: recognised, not read */
	assert_int_equal(nodeox_record_parse("nodeox: changed v=2 whatever", &rec, err, sizeof(err)), 2);
	assert_int_equal(rec.version, 2);
	/* before v=1: type, count and limit from the words; the tag's options unknown */
	assert_int_equal(nodeox_record_parse("nodeox: changed tres_per_job=gres:gpu:a100:4->gres:gpu:4 "
					     "features=(none)->a100|l40s time_limit=60->100",
					     &rec, err, sizeof(err)),
			 1);
	assert_true(rec.legacy);
	assert_string_equal(rec.type, "a100");
	assert_int_equal(rec.count[NODEOX_FORM_JOB], 4);
	assert_int_equal(rec.time_limit_min, 60);
	assert_string_equal(rec.tag, "nodeox:flex");
	/* its TRES words read by the policy library's TRES reader: every spelling */
	assert_int_equal(nodeox_record_parse("nodeox: changed tres_per_node=gres:nic:1,gres/gpu:l40s=2"
					     "->gres/gpu=2 features=(none)->a100|l40s",
					     &rec, err, sizeof(err)),
			 1);
	assert_string_equal(rec.type, "l40s");
	assert_int_equal(rec.count[NODEOX_FORM_NODE], 2);
	assert_int_equal(nodeox_record_parse("nodeox: changed tres_per_task=gres:gpu:4,gres:gpu:v100"
					     "->gres:gpu:1 features=(none)->v100",
					     &rec, err, sizeof(err)),
			 1);
	assert_string_equal(rec.type, "v100"); /* a type alone: one GPU */
	assert_int_equal(rec.count[NODEOX_FORM_TASK], 1);
	/* malformed: each names what */
	static const nodeox_test_case_t bad[] = {
		{ "nodeox: changed v=1 type=a100 gpus=node", "bad gpus=" },
		{ "nodeox: changed v=1 type=a100 gpus=rack:4", "bad gpus=" },
		{ "nodeox: changed v=1 type=a100 gpus=node:4,node:2", "bad gpus=" },
		{ "nodeox: changed v=1 type=a|b", "bad type=" },
		{ "nodeox: changed v=1 type=a100 tag=nodeox:flex%2", "bad tag=" },
		{ "nodeox: changed v=1 type=a100 tag=other", "bad tag=" },
		{ "nodeox: changed v=1 type=a100 tag=nodeox:flex%00", "bad tag=" },
		{ "nodeox: changed v=1 type=a100 time_limit=60", "bad time_limit=" },
		{ "nodeox: changed v=1 type=a100 features=%ZZ->a", "bad %XX escape in features=" },
		{ "nodeox: changed v=1 gpus=node:4", "no type=" },
		{ "nodeox: changed v=x", "bad version" },
		{ "nodeox: changed v=1 type=a100  gpus=node:4", "two blanks" },
		{ "nodeox: changed v=1 type=a100 junk", "not KEY=VALUE" },
		{ "nodeox: changed features=a->b", "before v=1" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (nodeox_record_parse(bad[i].in, &rec, err, sizeof(err)) != -1 || !strstr(err, bad[i].want))
			fail_msg("'%s': got '%s', want '%s'", bad[i].in, err, bad[i].want);
	}
	char buf[16];
	assert_int_equal(nodeox_record_decode("a%7Cb%20", 8, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "a|b ");
	assert_int_equal(nodeox_record_decode("abc%7", 5, buf, sizeof(buf)), -1);
	assert_int_equal(nodeox_record_decode("0123456789abcdef", 16, buf, sizeof(buf)), -1);
}

static const char *header_ac = "JobIDRaw|User|Account|Partition|Submit|Start|End|Timelimit|ReqTRES|AllocTRES|"
			       "NNodes|State|Comment|AdminComment";

/* A job the plugin rewrote comes back as submitted; '|' in the free text. */
static void test_line_recovery(void **state)
{
	sacct_header_t h;
	sacct_job_t job;
	char err[SACCT_ERR_MAX];
	char line[2048];

	(void)state;
	parse_header(&h, header_ac);
	assert_int_equal(h.index[SACCT_COL_ADMINCOMMENT], 13);
	/* rewritten: untyped request, scaled limit, got l40s; no job_comment */
	snprintf(line, sizeof(line), "%s",
		 "30|ann|lab|gpu|2026-11-02T10:00:00|2026-11-02T10:00:10|2026-11-02T10:01:10|"
		 "00:02:00|cpu=2,gres/gpu=4,node=2|cpu=2,gres/gpu:l40s=4,gres/gpu=4,node=2|2|COMPLETED||"
		 "nodeox: changed v=1 type=a100 gpus=node:2 tag=nodeox:flex:mem=40G time_limit=1->2 "
		 "tres_per_node=gres:gpu:a100:2->gres:gpu:2 features=->a100%7Cl40s");
	assert_int_equal(sacct_parse_line(&h, line, &job, err, sizeof(err)), SACCT_LINE_JOB);
	assert_true(job.recovered);
	assert_string_equal(job.req_type, "a100");
	assert_string_equal(job.alloc_type, "l40s");
	assert_int_equal(job.gpus, 4);
	assert_int_equal(job.nodes, 2);
	assert_int_equal(job.time_limit, 60);
	assert_string_equal(job.comment, "nodeox:flex:mem=40G");
	assert_false(job.had_comment);
	sacct_job_clear(&job);

	/* '|' in Comment and in an admin's text before the record, and an old
	 * record with '|' in it: the AdminComment starts at the record */
	snprintf(line, sizeof(line), "%s",
		 "31|ann|lab|gpu|2026-11-02T10:00:00|2026-11-02T10:00:10|2026-11-02T10:01:10|"
		 "00:02:00|gres/gpu=4|gres/gpu:l40s=4,gres/gpu=4|1|COMPLETED|a|b nodeox:flex:uniform|"
		 "nodeox: changed tres_per_job=gres:gpu:a100:4->gres:gpu:4 features=(none)->[a100|l40s] "
		 "time_limit=1->2");
	assert_int_equal(sacct_parse_line(&h, line, &job, err, sizeof(err)), SACCT_LINE_JOB);
	assert_string_equal(job.comment, "a|b nodeox:flex:uniform");
	assert_true(job.record_legacy);
	assert_string_equal(job.req_type, "a100");
	assert_int_equal(job.time_limit, 60);
	sacct_job_clear(&job);

	/* a record and no GPU TRES at all (no gres/gpu in AccountingStorageTRES):
	 * the count form gives the total */
	snprintf(line, sizeof(line), "%s",
		 "32|ann|lab|gpu|2026-11-02T10:00:00|2026-11-02T10:00:10|2026-11-02T10:01:10|"
		 "00:02:00|cpu=2,node=2|cpu=2,node=2|2|COMPLETED|x|"
		 "nodeox: changed v=1 type=a100 gpus=node:2 tag=nodeox:flex");
	assert_int_equal(sacct_parse_line(&h, line, &job, err, sizeof(err)), SACCT_LINE_JOB);
	assert_int_equal(job.gpus, 4);
	assert_string_equal(job.comment, "x nodeox:flex");
	sacct_job_clear(&job);
	snprintf(line, sizeof(line), "%s",
		 "33|ann|lab|gpu|2026-11-02T10:00:00|2026-11-02T10:00:10|2026-11-02T10:01:10|"
		 "00:02:00|cpu=2|cpu=2|1|COMPLETED||nodeox: changed v=1 type=a100 gpus=task:1");
	assert_int_equal(sacct_parse_line(&h, line, &job, err, sizeof(err)), SACCT_LINE_ERROR);
	assert_non_null(strstr(err, "AccountingStorageTRES must list gres/gpu"));
	/* a record counting 0 GPUs (the policy saw "gpu:a100:0") gives no total */
	snprintf(line, sizeof(line), "%s",
		 "37|ann|lab|gpu|2026-11-02T10:00:00|2026-11-02T10:00:10|2026-11-02T10:01:10|"
		 "00:02:00|cpu=2|cpu=2|1|COMPLETED||nodeox: changed v=1 type=a100 gpus=node:0");
	assert_int_equal(sacct_parse_line(&h, line, &job, err, sizeof(err)), SACCT_LINE_ERROR);
	assert_non_null(strstr(err, "counts no GPUs"));
	snprintf(line, sizeof(line), "%s",
		 "38|ann|lab|gpu|2026-11-02T10:00:00|2026-11-02T10:00:10|2026-11-02T10:01:10|"
		 "00:02:00|cpu=2|cpu=2|1|COMPLETED||nodeox: changed v=1 type=a100 gpus=job:99999999999");
	assert_int_equal(sacct_parse_line(&h, line, &job, err, sizeof(err)), SACCT_LINE_ERROR);
	assert_non_null(strstr(err, "gpus= job:99999999999 is not a plausible count"));
	/* a broken record is a line error naming the field */
	snprintf(line, sizeof(line), "%s",
		 "34|ann|lab|gpu|2026-11-02T10:00:00|2026-11-02T10:00:10|2026-11-02T10:01:10|"
		 "00:02:00|gres/gpu=4|gres/gpu=4|1|COMPLETED||nodeox: changed v=1 type=a100 gpus=x");
	assert_int_equal(sacct_parse_line(&h, line, &job, err, sizeof(err)), SACCT_LINE_ERROR);
	assert_non_null(strstr(err, "field AdminComment: nodeox record: bad gpus="));

	/* Comment and AdminComment apart (AdminComment added at the end of the
	 * old documented --format, the case), '|' in both: each way of
	 * placing the extra fields is tried, the one that parses wins */
	parse_header(&h, "JobIDRaw|User|Account|Partition|Submit|Start|End|Timelimit|ReqTRES|"
			 "AllocTRES|Comment|NNodes|State|AdminComment");
	snprintf(line, sizeof(line), "%s",
		 "35|ann|lab|gpu|2026-11-02T10:00:00|2026-11-02T10:00:10|2026-11-02T10:01:10|"
		 "00:02:00|gres/gpu=4|gres/gpu:l40s=4,gres/gpu=4|x|y nodeox:flex|1|COMPLETED|"
		 "nodeox: changed tres_per_job=gres:gpu:a100:4->gres:gpu:4 features=(none)->a100|l40s "
		 "time_limit=1->2");
	assert_int_equal(sacct_parse_line(&h, line, &job, err, sizeof(err)), SACCT_LINE_JOB);
	assert_string_equal(job.comment, "x|y nodeox:flex");
	assert_string_equal(job.req_type, "a100");
	assert_int_equal(job.time_limit, 60);
	assert_int_equal(job.nodes, 1);
	sacct_job_clear(&job);
	/* no placement parses: the first error, and the advice */
	snprintf(line, sizeof(line), "%s",
		 "36|ann|lab|gpu|soon|2026-11-02T10:00:10|2026-11-02T10:01:10|"
		 "00:02:00|gres/gpu=4|gres/gpu=4|x|y|1|COMPLETED|z");
	assert_int_equal(sacct_parse_line(&h, line, &job, err, sizeof(err)), SACCT_LINE_ERROR);
	assert_non_null(strstr(err, "field Submit"));
	assert_non_null(strstr(err, "use sacct --delimiter and -d"));
}

/* sacct --delimiter: any string; '|' is then plain text. */
static void test_delimiter(void **state)
{
	sacct_header_t h;
	sacct_job_t job;
	char err[SACCT_ERR_MAX], buf[512], line[1024];

	(void)state;
	snprintf(buf, sizeof(buf), "%s",
		 "JobIDRaw^^Submit^^Start^^End^^ReqTRES^^AllocTRES^^"
		 "Comment^^AdminComment");
	assert_int_equal(sacct_parse_header(buf, "^^", &h, err, sizeof(err)), 0);
	assert_int_equal(h.ncols, 8);
	snprintf(line, sizeof(line), "%s",
		 "40^^2026-11-02T10:00:00^^2026-11-02T10:00:10^^2026-11-02T10:01:10^^gres/gpu=4^^"
		 "gres/gpu:l40s=4,gres/gpu=4^^a|b^c^^ops|x; nodeox: changed features=(none)->a100|l40s "
		 "tres_per_node=gres:gpu:a100:4->gres:gpu:4");
	assert_int_equal(sacct_parse_line(&h, line, &job, err, sizeof(err)), SACCT_LINE_JOB);
	assert_string_equal(job.comment, "a|b^c nodeox:flex");
	assert_string_equal(job.req_type, "a100");
	assert_int_equal(job.gpus, 4);
	sacct_job_clear(&job);
}

/* sacct's times are read as local time: the cases are written for UTC. */
static int setup(void **state)
{
	(void)state;
	setenv("TZ", "UTC", 1);
	return 0;
}

NODEOX_TEST_MAIN(setup, NULL, cmocka_unit_test(test_timelimit), cmocka_unit_test(test_time),
		 cmocka_unit_test(test_tres), cmocka_unit_test(test_line), cmocka_unit_test(test_per_gpu),
		 cmocka_unit_test(test_header), cmocka_unit_test(test_record_roundtrip),
		 cmocka_unit_test(test_record_forms), cmocka_unit_test(test_line_recovery),
		 cmocka_unit_test(test_delimiter))
