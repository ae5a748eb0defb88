/*
 * test_decide.c: cmocka tests of nodeox_policy_decide (policy/policy_decide.c)
 * on job_desc-like inputs: every GPU request form (22.05 "gres:gpu:T:N",
 * 23.11+ "gres/gpu:T:N" and "gres/gpu:T=N", bare "gpu:T:N"; per job, node,
 * task, socket), lists with other entries, the constraint and prefer built,
 * time limit scaling, MinSpeed, tag mem= and types=, scope, when-blocked and
 * feature filtering on a small cluster, dryrun and each KEEP reason;
 * Broaden=when-faster and the sort of its running holdings.
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
#include "policy/policy.h"

static const char *base_conf = "GpuType=a100 Memory=80G Speed=1.0\n"
			       "GpuType=h100 Memory=80G Speed=2.0\n"
			       "GpuType=l40s Feature=gpu_l40s Memory=48G Speed=0.5\n"
			       "GpuType=v100 Memory=32G Speed=0.25\n"
			       "GpuType=t4 Memory=16G Speed=0.2\n"
			       "Group=big Types=a100,h100,l40s,v100\n";

#define ALL_FEATURES "a100|h100|gpu_l40s|v100"

/* The base policy plus extra lines. */
static nodeox_conf_t *conf_with(const char *extra)
{
	char text[4096], err[NODEOX_ERR_MAX];
	nodeox_conf_t *c;

	snprintf(text, sizeof(text), "%s%s", base_conf, extra);
	if (nodeox_conf_parse_string(text, "test.conf", &c, err, sizeof(err)))
		fail_msg("conf: %s", err);
	return c;
}

static nodeox_decision_t d;

/* Decide with the base policy plus extra, without a cluster. */
static void decide(const char *extra, const nodeox_job_t *job)
{
	nodeox_conf_t *c = conf_with(extra);

	nodeox_policy_decide(c, job, NULL, &d);
	nodeox_conf_free(c);
}

static void assert_keep(const char *why)
{
	if (d.action != NODEOX_KEEP || !strstr(d.reason, why))
		fail_msg("want KEEP \"%s\", got %s \"%s\"", why, nodeox_action_name(d.action), d.reason);
	assert_false(d.tres_per_job_set || d.tres_per_node_set || d.tres_per_task_set ||
		     d.tres_per_socket_set || d.features_set || d.prefer_set || d.time_limit_set);
}

static void assert_rewrite(void)
{
	if (d.action != NODEOX_REWRITE)
		fail_msg("want REWRITE, got %s \"%s\"", nodeox_action_name(d.action), d.reason);
}

static void test_untagged_and_off(void **state)
{
	nodeox_job_t job = { .comment = "plain job", .tres_per_node = "gres:gpu:a100:4", .time_limit = 60 };

	(void)state;
	decide("", &job);
	assert_int_equal(d.action, NODEOX_PASS);
	assert_false(d.tres_per_node_set || d.features_set);
	assert_int_equal(d.reason[0], '\0');
	job.comment = NULL;
	decide("", &job);
	assert_int_equal(d.action, NODEOX_PASS);
	job.comment = "nodeox:flex";
	decide("Mode=off\n", &job);
	assert_int_equal(d.action, NODEOX_PASS);
	nodeox_policy_decide(NULL, &job, NULL, &d);
	assert_int_equal(d.action, NODEOX_PASS);
}

/* Each field and each spelling loses its type and keeps its form. */
static void test_request_forms(void **state)
{
	static const struct {
		int field; /* 0 job, 1 node, 2 task, 3 socket */
		const char *in, *out;
	} cases[] = {
		{ 0, "gres:gpu:a100:4", "gres:gpu:4" }, /* --gpus=a100:4 */
		{ 1, "gres:gpu:a100:4", "gres:gpu:4" }, /* --gres / --gpus-per-node */
		{ 2, "gres:gpu:a100:1", "gres:gpu:1" }, /* --gpus-per-task */
		{ 3, "gres:gpu:a100:2", "gres:gpu:2" }, /* --gpus-per-socket */
		{ 1, "gres:gpu:a100", "gres:gpu:1" },   /* --gres=gpu:a100 */
		{ 1, "gres/gpu:a100:4", "gres/gpu:4" }, /* 23.11+ */
		{ 0, "gres/gpu:a100=4", "gres/gpu=4" }, /* 23.11+ */
		{ 1, "gpu:a100:8", "gpu:8" },           /* simulator traces */
		{ 1, "gres:nvme:1,gres:gpu:a100:2,gres:shard:l40s:3",
		  "gres:nvme:1,gres:gpu:2,gres:shard:l40s:3" }, /* other entries intact */
		{ 1, "gres:gpu:A100:4,gres:mps:100", "gres:gpu:4,gres:mps:100" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		nodeox_job_t job = { .comment = "nodeox:flex", .time_limit = 60 };
		const char **in[4] = { &job.tres_per_job, &job.tres_per_node, &job.tres_per_task,
				       &job.tres_per_socket };
		const bool *set[4] = { &d.tres_per_job_set, &d.tres_per_node_set, &d.tres_per_task_set,
				       &d.tres_per_socket_set };
		const char *got[4] = { d.tres_per_job, d.tres_per_node, d.tres_per_task, d.tres_per_socket };
		int f;

		*in[cases[i].field] = cases[i].in;
		decide("", &job);
		assert_rewrite();
		for (f = 0; f < 4; f++)
			if (*set[f] != (f == cases[i].field))
				fail_msg("case %zu: field %d set=%d", i, f, *set[f]);
		if (strcmp(got[cases[i].field], cases[i].out))
			fail_msg("case %zu: %s -> \"%s\", want \"%s\"", i, cases[i].in, got[cases[i].field],
				 cases[i].out);
		assert_string_equal(d.features, ALL_FEATURES);
		assert_int_equal(d.requested_type, 0);
		assert_int_equal(d.neligible, 4);
		assert_int_equal(d.eligible[0], 0); /* requested first */
	}
}

/* --gpus and --gpus-per-node of the same type together: both rewritten. */
static void test_two_fields_same_type(void **state)
{
	nodeox_job_t job = { .comment = "nodeox:flex",
			     .tres_per_job = "gres:gpu:a100:8",
			     .tres_per_node = "gres:nvme:1,gres:gpu:a100:4",
			     .tres_per_task = "gres:gpu:1" };

	(void)state;
	decide("", &job);
	assert_rewrite();
	assert_string_equal(d.tres_per_job, "gres:gpu:8");
	assert_string_equal(d.tres_per_node, "gres:nvme:1,gres:gpu:4");
	assert_false(d.tres_per_task_set); /* already untyped: left alone */
}

static void test_constraint(void **state)
{
	static const struct {
		const char *user, *tag, *want;
	} cases[] = {
		{ NULL, "nodeox:flex", ALL_FEATURES },
		{ "", "nodeox:flex", ALL_FEATURES },
		{ "ib", "nodeox:flex", "ib&(" ALL_FEATURES ")" },
		{ "ib&rack1", "nodeox:flex", "ib&rack1&(" ALL_FEATURES ")" },
		{ "ib|eth", "nodeox:flex", "(ib|eth)&(" ALL_FEATURES ")" },
		{ "(ib|eth)&big", "nodeox:flex", "(ib|eth)&big&(" ALL_FEATURES ")" },
		{ NULL, "nodeox:flex:uniform", "[" ALL_FEATURES "]" },
		{ "ib", "nodeox:flex:uniform", "ib&[" ALL_FEATURES "]" },
		{ "ib|eth", "nodeox:flex:uniform", "(ib|eth)&[" ALL_FEATURES "]" },
		{ NULL, "nodeox:flex:types=l40s", "a100|gpu_l40s" },
		/* terms naming only GPU type features are replaced, not stacked */
		{ "a100", "nodeox:flex", ALL_FEATURES },
		{ "a100|gpu_l40s", "nodeox:flex", ALL_FEATURES },
		{ "ib&(" ALL_FEATURES ")", "nodeox:flex", "ib&(" ALL_FEATURES ")" },
		{ "[a100|h100],ib", "nodeox:flex:uniform", "ib&[" ALL_FEATURES "]" },
		{ "a100|ib", "nodeox:flex", "(a100|ib)&(" ALL_FEATURES ")" },
		{ "(a100|fast)&ib", "nodeox:flex", "(a100|fast)&ib&(" ALL_FEATURES ")" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		nodeox_job_t job = { .comment = cases[i].tag,
				     .tres_per_node = "gres:gpu:a100:2",
				     .features = cases[i].user };

		decide("", &job);
		assert_rewrite();
		assert_true(d.features_set);
		if (strcmp(d.features, cases[i].want))
			fail_msg("case %zu: \"%s\", want \"%s\"", i, d.features, cases[i].want);
	}
}

/* job with the constraint features is kept, for the reason why. */
static void keep_features(nodeox_job_t *job, const char *features, const char *why)
{
	job->features = features;
	decide("", job);
	assert_keep(why);
}

static void test_constraint_keep(void **state)
{
	nodeox_job_t job = { .comment = "nodeox:flex:uniform",
			     .tres_per_node = "gres:gpu:a100:2",
			     .features = "[r1|r2]" };
	char long_features[1100];

	(void)state;
	decide("", &job);
	assert_keep("already has a [...] set");
	job.comment = "nodeox:flex";
	keep_features(&job, "[r1|r2]|x", "mixes '|' with");
	memset(long_features, 'f', 1010);
	long_features[1010] = '\0';
	keep_features(&job, long_features, "would exceed 1023 characters");
	/* A node count binds the job to the counted features alone: Slurm would
	 * ignore an AND-ed type term, so the job could run on any type. */
	keep_features(&job, "a100*2&ib", "counts nodes (*N)");
	keep_features(&job, "ib*1", "counts nodes (*N)");
	/* Syntax nodeox does not reason about: kept, and a control character
	 * never reaches the reason raw. */
	keep_features(&job, "ib\nforged", "character nodeox does not reason about ('?')");
	keep_features(&job, "!h100", "('!')");
	/* Malformed: an open bracket would swallow the type term (fuzz_decide). */
	{
		static const char *const bad[] = { "(ib&|eth", "ib&", "|ib",     "(ib",    "ib)",
						   "[ib)",     "()",  "ib&&eth", "ib(eth)" };
		size_t k;

		for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
			keep_features(&job, bad[k], "not well formed");
	}
	/* A GPU count that is not a number would be copied into the untyped
	 * entry as it is: kept instead (found by fuzz_decide). */
	job.features = NULL;
	job.tres_per_node = "gres:gpu:a100:2\x05";
	decide("", &job);
	assert_keep("GPU entry 'gres:gpu:a100:2?' in tres_per_node has a count that is not a number");
	job.tres_per_node = "gres:gpu:a100:2k";
	decide("", &job);
	assert_rewrite();
	/* entries Slurm refuses are kept for Slurm to refuse, not made valid */
	{
		static const char *const refused[][2] = {
			{ "gres:gpu:a100:", "GPU entry 'gres:gpu:a100:' in tres_per_node has no "
					    "count where one belongs" },
			{ "gres:gpu:a100:1,gres:gpu::1", "has an empty GPU type" },
			{ "gres:gpu:a100:8g", "has a count over 4294967295" },
		};

		for (size_t k = 0; k < sizeof(refused) / sizeof(refused[0]); k++) {
			job.tres_per_node = refused[k][0];
			decide("", &job);
			assert_keep(refused[k][1]);
		}
	}
}

/* The scaled time limit never exceeds the job's cap (partition MaxTime). */
static void test_time_cap(void **state)
{
	nodeox_job_t job = { .comment = "nodeox:flex",
			     .tres_per_node = "gres:gpu:a100:1",
			     .time_limit = 60,
			     .time_cap = 90,
			     .time_cap_what = "MaxTime of partition short" };

	(void)state;
	decide("", &job);
	assert_rewrite();
	assert_true(d.time_limit_set);
	assert_int_equal(d.time_limit, 90);
	assert_true(d.time_capped);
	assert_true(d.time_scaled > 90);
	assert_non_null(strstr(d.reason, "capped by MaxTime of partition short"));
	job.time_limit = 90;
	decide("", &job);
	assert_rewrite();
	assert_false(d.time_limit_set);
	assert_int_equal(d.time_limit, 90);
	assert_non_null(strstr(d.reason, "time limit not scaled"));
	job.time_limit = 120; /* above the cap already: never lowered */
	decide("", &job);
	assert_false(d.time_limit_set);
	assert_int_equal(d.time_limit, 120);
	job.time_limit = 30; /* scaled stays under the cap: no note */
	job.time_cap = 1000;
	decide("", &job);
	assert_true(d.time_limit_set);
	assert_false(d.time_capped);
	assert_null(strstr(d.reason, "capped"));
}

static void test_prefer(void **state)
{
	nodeox_job_t job = { .comment = "nodeox:flex", .tres_per_job = "gres:gpu:l40s:2" };

	(void)state;
	decide("PreferRequested=yes\n", &job);
	assert_rewrite();
	assert_true(d.prefer_set);
	assert_string_equal(d.prefer, "gpu_l40s"); /* the type's feature, not its name */
	assert_string_equal(d.features, "gpu_l40s|a100|h100|v100");
	job.prefer = "fastdisk";
	decide("PreferRequested=yes\n", &job);
	assert_rewrite();
	assert_false(d.prefer_set); /* the user's own prefer wins */
	job.prefer = NULL;
	decide("PreferRequested=no\n", &job);
	assert_false(d.prefer_set);
}

static void test_time_scaling(void **state)
{
	nodeox_job_t job = { .comment = "nodeox:flex", .tres_per_node = "gres:gpu:a100:4", .time_limit = 60 };

	(void)state;
	decide("", &job); /* slowest eligible v100: 1.0 / 0.25 */
	assert_rewrite();
	assert_true(d.run_time_factor == 4.0);
	assert_true(d.time_limit_set);
	assert_int_equal(d.time_limit, 240);
	decide("MinSpeed=0.5\n", &job); /* v100 out, slowest l40s */
	assert_true(d.run_time_factor == 2.0);
	assert_int_equal(d.time_limit, 120);
	assert_int_equal(d.neligible, 3);
	decide("ScaleTimeLimit=no\n", &job);
	assert_rewrite();
	assert_false(d.time_limit_set);
	assert_true(d.run_time_factor == 4.0);
	job.time_limit = NODEOX_TIME_NONE;
	decide("", &job);
	assert_false(d.time_limit_set);
	job.time_limit = NODEOX_TIME_INFINITE;
	decide("", &job);
	assert_false(d.time_limit_set);
	job.time_limit = 7; /* rounds up */
	job.tres_per_node = "gres:gpu:a100:1";
	decide("MinSpeed=0.4\nGpuType=x1 Speed=0.6\nGroup=g2 Types=a100,x1\n", &job);
	assert_int_equal(d.time_limit, 14);    /* l40s 0.5 is slowest: 7*2 */
	job.tres_per_node = "gres:gpu:h100:1"; /* fastest type asked: factor 8 */
	decide("", &job);
	assert_int_equal(d.time_limit, 56);
}

static void test_min_speed(void **state)
{
	nodeox_job_t job = { .comment = "nodeox:flex", .tres_per_node = "gres:gpu:h100:1" };

	(void)state;
	decide("MinSpeed=0.5\n", &job); /* h100 speed 2: a100 (1.0) is the floor */
	assert_rewrite();
	assert_int_equal(d.neligible, 2);
	assert_string_equal(d.features, "h100|a100");
	decide("MinSpeed=0.6\n", &job);
	assert_keep("no type eligible beyond h100");
	assert_non_null(strstr(d.reason, "a100 below MinSpeed"));
}

static void test_tag_mem_and_types(void **state)
{
	nodeox_job_t job = { .comment = "nodeox:flex:mem=40G", .tres_per_node = "gres:gpu:a100:1" };

	(void)state;
	decide("", &job);
	assert_rewrite();
	assert_string_equal(d.features, "a100|h100|gpu_l40s"); /* v100 has 32G */
	job.comment = "nodeox:flex:mem=64G";
	decide("", &job);
	assert_string_equal(d.features, "a100|h100");
	job.comment = "nodeox:flex:mem=100G";
	decide("", &job);
	assert_keep("no type eligible beyond a100");
	assert_non_null(strstr(d.reason, "h100 too little memory"));
	job.comment = "nodeox:flex:mem=10G"; /* unknown memory is not enough */
	decide("GpuType=nomem Speed=1\nGroup=g2 Types=a100,nomem\n", &job);
	assert_rewrite();
	assert_int_equal(d.neligible, 4);
	assert_null(strstr(d.features, "nomem"));
	job.comment = "nodeox:flex:types=v100+h100";
	decide("", &job);
	assert_string_equal(d.features, "a100|h100|v100");
	job.comment = "nodeox:flex:types=t4"; /* t4 is not in a100's group */
	decide("", &job);
	assert_keep("no type eligible beyond a100");
}

static void test_scope(void **state)
{
	nodeox_job_t job = { .comment = "nodeox:flex",
			     .tres_per_node = "gres:gpu:a100:1",
			     .partition = "gpu",
			     .account = "phys",
			     .user = "alice" };

	(void)state;
	decide("Partitions=gpu,long\n", &job);
	assert_rewrite();
	job.partition = "gpu,long";
	decide("Partitions=gpu,long\n", &job);
	assert_rewrite();
	job.partition = "gpu,debug";
	decide("Partitions=gpu,long\n", &job);
	assert_keep("partition debug is not in Partitions=");
	/* empty items are no partition (slurmctld's strtok_r skips them): in
	 * scope, where the comma walk of its own KEEPed "partition  is not in" */
	job.partition = "gpu,,long";
	decide("Partitions=gpu,long\n", &job);
	assert_rewrite();
	job.partition = ",gpu,";
	decide("Partitions=gpu,long\n", &job);
	assert_rewrite();
	job.partition = NULL;
	decide("Partitions=gpu\n", &job);
	assert_keep("names no partition");
	job.partition = ",";
	decide("Partitions=gpu\n", &job);
	assert_keep("names no partition");
	job.partition = "gpu";
	decide("DenyAccounts=guest,phys\n", &job);
	assert_keep("account phys is denied");
	decide("AllowAccounts=chem\n", &job);
	assert_keep("account phys is not allowed");
	decide("AllowAccounts=chem,phys DenyUsers=bob\n", &job);
	assert_rewrite();
	decide("AllowUsers=bob\n", &job);
	assert_keep("user alice is not allowed");
	decide("DenyUsers=alice\n", &job);
	assert_keep("user alice is denied");
	job.user = NULL;
	decide("AllowUsers=alice\n", &job);
	assert_keep("user (none) is not allowed");
	job.account = NULL;
	decide("DenyAccounts=phys\n", &job);
	assert_rewrite();
}

static void test_keep_reasons(void **state)
{
	static const struct {
		const char *job, *node, *task, *why;
	} cases[] = {
		{ NULL, "gres:gpu:t4:1", NULL, "GPU type t4 is in no Group=" },
		{ NULL, "gres:gpu:p100:1", NULL, "GPU type p100 is not in nodeox.conf" },
		{ "gres:gpu:a100:2", "gres:gpu:l40s:1", NULL,
		  "two GPU types in one request (a100 and l40s)" },
		{ NULL, "gres:gpu:a100:1,gres:gpu:v100:1", NULL, "two GPU types" },
		{ "gres:gpu:4", NULL, "gres:gpu:1", "names no type" },
		{ NULL, "gres:nvme:1", NULL, "requests no GPUs" },
		{ NULL, NULL, NULL, "requests no GPUs" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		nodeox_job_t job = { .comment = "nodeox:flex",
				     .tres_per_job = cases[i].job,
				     .tres_per_node = cases[i].node,
				     .tres_per_task = cases[i].task };

		decide("", &job);
		assert_keep(cases[i].why);
		assert_string_equal(d.admin_comment, "");
	}
}

static void test_reject(void **state)
{
	nodeox_job_t job = { .comment = "nodeox:flex:mem=lots", .tres_per_node = "gres:gpu:a100:1" };

	(void)state;
	decide("", &job);
	assert_int_equal(d.action, NODEOX_REJECT);
	assert_non_null(strstr(d.reason, "bad size 'mem=lots'"));
	assert_false(d.tres_per_node_set || d.features_set);
}

static void test_dryrun_and_admin_comment(void **state)
{
	nodeox_job_t job = { .comment = "nodeox:flex",
			     .tres_per_node = "gres:gpu:a100:2",
			     .features = "ib",
			     .time_limit = 30 };

	(void)state;
	decide("Mode=dryrun\nMinSpeed=0.5\n", &job);
	assert_rewrite();
	assert_true(d.dryrun);
	assert_non_null(strstr(d.reason, "dryrun"));
	assert_string_equal(d.tres_per_node, "gres:gpu:2"); /* computed all the same */
	assert_non_null(strstr(d.admin_comment, "would change"));
	decide("MinSpeed=0.5\n", &job);
	assert_false(d.dryrun);
	assert_string_equal(d.admin_comment, "nodeox: changed v=1 type=a100 gpus=node:2 tag=nodeox:flex "
					     "time_limit=30->60 tres_per_node=gres:gpu:a100:2->gres:gpu:2 "
					     "features=ib->ib&(a100%7Ch100%7Cgpu_l40s)");
	assert_string_equal(d.reason, "GPU type a100 broadened to a100|h100|l40s, "
				      "time limit 30 -> 60 min");
}

/* No byte of the record may break `sacct -P` or a log line: no '|', ';',
 * blank inside a value, '>' outside the arrows, quote, backslash, control. */
static void assert_record_clean(const char *rec)
{
	const char *p;

	for (p = rec; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c < 0x20 || c >= 0x7f || strchr("|;\"'`", c))
			fail_msg("byte 0x%02x at %d in record '%s'", c, (int)(p - rec), rec);
		if (c == '>' && (p == rec || p[-1] != '-'))
			fail_msg("'>' outside an arrow at %d in '%s'", (int)(p - rec), rec);
		if (c == ' ' && (p[1] == ' ' || !p[1]))
			fail_msg("empty word at %d in '%s'", (int)(p - rec), rec);
	}
}

/* The admin_comment record, interface of nodeox-sacct-import (nodeox.conf(5),
 * ADMIN COMMENT RECORD): every key, each count form, canonical tag. */
/* User text (the constraint) with every reserved byte, and one so long that
 * its word cannot fit: the record stays one clean line, the long key is left
 * out whole and named in cut=, the keys the importer needs are all there. */
static void test_admin_comment_hostile(void **state)
{
	static const char hostile[] = ";x\"y'\\z%7C\tq\n2026 fake log line\r>";
	char longc[NODEOX_STR_MAX], tres[256];
	nodeox_job_t job = { .comment = "nodeox:flex", .tres_per_node = tres, .time_limit = 60 };

	(void)state;
	/* Such bytes in the constraint make the decision KEEP (test_constraint_keep);
	 * a non-GPU TRES entry is copied as the user wrote it, so they reach the
	 * record there, and must come out encoded. */
	snprintf(tres, sizeof(tres), "gres:gpu:a100:4,gres:nic%s", hostile);
	decide("", &job);
	assert_rewrite();
	assert_record_clean(d.admin_comment);
	assert_non_null(strstr(d.admin_comment, "gres:nic%3Bx%22y%27%5Cz%257C%09q%0A2026%20"
						"fake%20log%20line%0D%3E->"));
	assert_null(strstr(d.admin_comment, "cut="));

	memset(longc, 0, sizeof(longc));
	memset(longc, 'f', 401); /* 401 bytes, kept; twice in features=FROM->TO */
	for (int i = 1; i < 400; i += 2)
		longc[i] = '|'; /* each '|' is 3 bytes encoded: "f|f|...|f" */
	job.tres_per_node = "gres:gpu:a100:4";
	job.features = longc;
	decide("", &job);
	assert_rewrite();
	assert_record_clean(d.admin_comment);
	assert_true(strlen(d.admin_comment) < sizeof(d.admin_comment));
	assert_non_null(strstr(d.admin_comment, "nodeox: changed v=1 type=a100 gpus=node:4 "
						"tag=nodeox:flex time_limit=60->"));
	assert_non_null(strstr(d.admin_comment, " tres_per_node=gres:gpu:a100:4->gres:gpu:4"));
	assert_null(strstr(d.admin_comment, " features="));
	assert_non_null(strstr(d.admin_comment, " cut=features"));
}

static void test_admin_comment_record(void **state)
{
	nodeox_job_t job = { .comment = "sweep nodeox:flex:uniform:mem=40960M:types=l40s+a100",
			     .tres_per_job = "gres:gpu:a100:8",
			     .tres_per_task = "gres/gpu:a100=1",
			     .time_limit = NODEOX_TIME_NONE };

	(void)state;
	decide("PreferRequested=yes\n", &job);
	assert_rewrite();
	assert_string_equal(d.admin_comment, "nodeox: changed v=1 type=a100 gpus=job:8,task:1 "
					     "tag=nodeox:flex:mem=40G:types=l40s+a100:uniform "
					     "tres_per_job=gres:gpu:a100:8->gres:gpu:8 "
					     "tres_per_task=gres/gpu:a100=1->gres/gpu=1 "
					     "features=->[a100%7Cgpu_l40s] prefer=->a100");
	assert_record_clean(d.admin_comment);
	job.comment = "nodeox:flex:mem=1500M";
	job.tres_per_job = NULL;
	job.tres_per_task = NULL;
	job.tres_per_socket = "gres:gpu:a100:2";
	job.time_limit = 90;
	decide("", &job);
	assert_rewrite();
	assert_non_null(strstr(d.admin_comment, " gpus=socket:2 tag=nodeox:flex:mem=1500M "
						"time_limit=90->"));
	assert_record_clean(d.admin_comment);
}

/*
 * A small cluster: a1 (a100, 2 of 4 idle), a2 (a100, 0 idle), l1 (l40s, all
 * 4 idle), h1 (h100, drained), v1 (v100, only in partition "old").
 */
static const nodeox_node_t nodes[] = {
	{ "a1", "a100,ib", "gpu", "a100", 4, 2, true },      { "a2", "a100,ib", "gpu", "a100", 4, 0, true },
	{ "l1", "gpu_l40s", "gpu,old", "l40s", 4, 4, true }, { "h1", "h100", "gpu", "h100", 8, 8, false },
	{ "v1", "v100", "old", "v100", 4, 4, true },
};
static const nodeox_cluster_t cluster = { nodes, sizeof(nodes) / sizeof(nodes[0]) };

static void decide_cl(const char *extra, const nodeox_job_t *job)
{
	nodeox_conf_t *c = conf_with(extra);

	nodeox_policy_decide(c, job, &cluster, &d);
	nodeox_conf_free(c);
}

/* A partition list past the bound is kept with the reason, before any
 * per-node work (the plugin asks nodeox_policy_parts_ok before it reads a
 * node); one within it is decided as usual. */
static void test_partition_bound(void **state)
{
	char parts[2 * NODEOX_STR_MAX];
	nodeox_job_t job = { .comment = "nodeox:flex", .tres_per_node = "gres:gpu:a100:4" };
	char why[NODEOX_ERR_MAX];
	int i;

	(void)state;
	parts[0] = '\0';
	for (i = 0; i < NODEOX_MAX_JOB_PARTS; i++)
		snprintf(parts + strlen(parts), sizeof(parts) - strlen(parts), "%sp%d", i ? "," : "", i);
	job.partition = parts; /* 64 names, commas doubled or trailing: no matter */
	assert_true(nodeox_policy_parts_ok(parts, why, sizeof(why)));
	decide("", &job);
	assert_rewrite();
	strcat(parts, ",,p64"); /* a 65th */
	assert_false(nodeox_policy_parts_ok(parts, why, sizeof(why)));
	assert_string_equal(why, "not broadened: the job names more than 64 partitions");
	decide("", &job);
	assert_keep("not broadened: the job names more than 64 partitions");
	decide_cl("", &job);
	assert_keep("not broadened: the job names more than 64 partitions");
	memset(parts, 'p', NODEOX_STR_MAX); /* one name of 1024 characters */
	parts[NODEOX_STR_MAX] = '\0';
	assert_false(nodeox_policy_parts_ok(parts, NULL, 0));
	decide_cl("Partitions=gpu\n", &job);
	assert_keep("not broadened: the job's partition list is 1024 characters or longer");
	parts[NODEOX_STR_MAX - 1] = '\0'; /* 1023: within */
	assert_true(nodeox_policy_parts_ok(parts, NULL, 0));
	assert_true(nodeox_policy_parts_ok(NULL, NULL, 0));
}

static void test_feature_filtering(void **state)
{
	nodeox_job_t job = { .comment = "nodeox:flex",
			     .tres_per_node = "gres:gpu:a100:4",
			     .partition = "gpu" };

	(void)state;
	decide_cl("", &job); /* h100 only on a drained node, v100 not in "gpu" */
	assert_rewrite();
	assert_string_equal(d.features, "a100|gpu_l40s");
	assert_int_equal(d.neligible, 2);
	job.partition = "gpu,old";
	decide_cl("", &job);
	assert_string_equal(d.features, "a100|gpu_l40s|v100");
	job.partition = NULL; /* any node */
	decide_cl("", &job);
	assert_string_equal(d.features, "a100|gpu_l40s|v100");
	job.partition = "old"; /* a100 itself absent: left out, no prefer */
	decide_cl("PreferRequested=yes\n", &job);
	assert_rewrite();
	assert_string_equal(d.features, "gpu_l40s|v100");
	assert_false(d.prefer_set);
	job.partition = "gpu";
	job.comment = "nodeox:flex:types=h100";
	decide_cl("", &job);
	assert_keep("h100 on no usable node");
}

static void test_when_blocked(void **state)
{
	nodeox_job_t job = { .comment = "nodeox:flex", .partition = "gpu" };

	(void)state;
	job.tres_per_node = "gres:gpu:a100:2"; /* a1 has 2 idle */
	decide_cl("Broaden=when-blocked\n", &job);
	assert_keep("a100 can serve the job now (Broaden=when-blocked)");
	decide_cl("Broaden=always\n", &job);
	assert_rewrite();
	job.tres_per_node = "gres:gpu:a100:3"; /* no node has 3 idle */
	decide_cl("Broaden=when-blocked\n", &job);
	assert_rewrite();
	job.tres_per_node = "gres:gpu:a100:1";
	job.min_nodes = 2; /* only one node with an idle a100 */
	decide_cl("Broaden=when-blocked\n", &job);
	assert_rewrite();
	job.min_nodes = 0;
	job.tres_per_node = NULL;
	job.tres_per_job = "gres:gpu:a100:2"; /* 2 idle in total */
	decide_cl("Broaden=when-blocked\n", &job);
	assert_keep("can serve the job now");
	job.tres_per_job = "gres:gpu:a100:3";
	decide_cl("Broaden=when-blocked\n", &job);
	assert_rewrite();
	job.tres_per_job = NULL;
	job.tres_per_task = "gres:gpu:a100:1";
	job.num_tasks = 2;
	decide_cl("Broaden=when-blocked\n", &job);
	assert_keep("can serve the job now");
	job.num_tasks = 3;
	decide_cl("Broaden=when-blocked\n", &job);
	assert_rewrite();
	job.tres_per_task = NULL; /* no cluster: acts as always */
	job.tres_per_node = "gres:gpu:a100:1";
	decide("Broaden=when-blocked\n", &job);
	assert_rewrite();
}

/*
 * Broaden=when-faster on a cluster of two a100 nodes (a1, a2) and two l40s
 * nodes (l1, l2), 4 GPUs each, all busy: the running jobs say when GPUs come
 * back. A 60-minute a100 job scaled to l40s (speed 0.5) needs 120 minutes.
 */
static void test_when_faster(void **state)
{
	static const nodeox_node_t nodes[] = {
		{ "a1", "a100", "gpu", "a100", 4, 0, true },
		{ "a2", "a100", "gpu", "a100", 4, 0, true },
		{ "l1", "gpu_l40s", "gpu", "l40s", 4, 0, true },
		{ "l2", "gpu_l40s", "gpu", "l40s", 4, 0, true },
	};
	nodeox_running_t run[4];
	nodeox_demand_t ahead[2];
	uint32_t scratch[NODEOX_ESTIMATE_SCRATCH(4)];
	nodeox_cluster_t cl = { nodes, 4, run, 4, NULL, 0, scratch, false, false, NULL, 0, false, NULL };
	nodeox_job_t job = { .comment = "nodeox:flex:types=a100+l40s",
			     .partition = "gpu",
			     .tres_per_node = "gres:gpu:a100:4",
			     .time_limit = 60 };
	nodeox_conf_t *c = conf_with("Broaden=when-faster\n");

	(void)state;
	/* a1 frees in 4 min, l1 in 1 min: kept finishes at 64, broadened at 121 */
	run[0] = (nodeox_running_t){ 2, 4, 60 };
	run[1] = (nodeox_running_t){ 0, 4, 240 };
	run[2] = (nodeox_running_t){ 1, 4, 7200 };
	run[3] = (nodeox_running_t){ 3, 4, 7200 };
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_keep("kept: a100 expected free in about 4 min, finishing there is sooner "
		    "(in about 64 min; broadened to a100|l40s: in about 121 min;");
	assert_true(d.estimate.made);
	assert_int_equal(d.estimate.kept_start, 240);
	assert_int_equal(d.estimate.kept_finish, 240 + 3600);
	assert_int_equal(d.estimate.broad_start, 60);
	assert_int_equal(d.estimate.broad_finish, 60 + 7200);
	assert_int_equal(d.estimate.broad_slowest, 2);

	/* the a100 nodes stay busy for 3 hours: broadened is sooner */
	run[0] = (nodeox_running_t){ 2, 4, 60 };
	run[1] = (nodeox_running_t){ 3, 4, 120 };
	run[2] = (nodeox_running_t){ 0, 4, 10800 };
	run[3] = (nodeox_running_t){ 1, 4, 10800 };
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_rewrite();
	assert_string_equal(d.features, "a100|gpu_l40s");
	if (!strstr(d.reason, "time limit 60 -> 120 min; broadened: a100 expected free in about "
			      "180 min at the earliest, l40s free in about 1 min: finishing in about "
			      "121 min (Broaden=when-faster)"))
		fail_msg("reason: %s", d.reason);

	/* pending jobs ahead want the l40s coming back: kept again */
	ahead[0] = (nodeox_demand_t){ .type = "l40s", .gpus = 8, .first = 4 };
	ahead[1] = (nodeox_demand_t){ .type = "h100", .gpus = 64, .first = 8 }; /* not on either side */
	cl.ahead = ahead;
	cl.nahead = 2;
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_keep("kept: a100 expected free in about 180 min, finishing in about 240 min; broadened "
		    "to a100|l40s it would finish no sooner");
	assert_int_equal(d.estimate.broad_start, 10800);
	/* an untyped one ahead takes the first GPUs of either side */
	ahead[0] = (nodeox_demand_t){ .type = "", .gpus = 4, .first = 4 };
	cl.nahead = 1;
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_rewrite();
	assert_int_equal(d.estimate.broad_start, 120);

	/* a broadened finish only a little sooner stays below the margin */
	cl.nahead = 0;
	run[2] = (nodeox_running_t){ 0, 4, 4200 }; /* kept: 4200+3600, broadened 60+7200 */
	run[3] = (nodeox_running_t){ 1, 4, 10800 };
	run[0] = (nodeox_running_t){ 2, 4, 60 };
	run[1] = (nodeox_running_t){ 3, 4, 120 };
	nodeox_conf_free(c);
	c = conf_with("Broaden=when-faster\nWhenFasterMargin=0.2\n");
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_keep("less than WhenFasterMargin=0.2 sooner");
	nodeox_conf_free(c);
	c = conf_with("Broaden=when-faster\nWhenFasterMargin=0\n");
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_rewrite();

	/* GPUs coming back at one time all count, and the fit is tested then,
	 * even when the last holding ending then is on a node of neither side
	 * (here a t4 node, not in the tag's types): a1 frees at 240 beside t1 */
	{
		static const nodeox_node_t five[] = {
			{ "a1", "a100", "gpu", "a100", 4, 0, true },
			{ "a2", "a100", "gpu", "a100", 4, 0, true },
			{ "l1", "gpu_l40s", "gpu", "l40s", 4, 0, true },
			{ "l2", "gpu_l40s", "gpu", "l40s", 4, 0, true },
			{ "t1", "t4", "gpu", "t4", 4, 0, true },
		};
		nodeox_running_t tie[5] = {
			{ 0, 4, 240 }, { 4, 4, 240 }, { 2, 4, 7200 }, { 3, 4, 7200 }, { 1, 4, 9000 }
		};
		uint32_t sc5[NODEOX_ESTIMATE_SCRATCH(5)];
		nodeox_cluster_t c5 = { five, 5, tie, 5, NULL, 0, sc5, false, false, NULL, 0, false, NULL };

		nodeox_policy_decide(c, &job, &c5, &d);
		assert_keep("kept: a100 expected free in about 4 min");
		assert_int_equal(d.estimate.kept_start, 240);
		assert_int_equal(d.estimate.broad_start, 240);
		/* overdue holdings (ends in the past) all come back now, together:
		 * broadened could land on l1's l40s as well as on a1 */
		tie[0] = (nodeox_running_t){ 0, 4, -30 };
		tie[1] = (nodeox_running_t){ 2, 4, -10 };
		tie[2] = (nodeox_running_t){ 4, 4, 0 };
		nodeox_policy_decide(c, &job, &c5, &d);
		assert_int_equal(d.estimate.kept_start, 0);
		assert_int_equal(d.estimate.broad_start, 0);
		assert_int_equal(d.estimate.broad_slowest, 2);
	}

	/* an l40s job whose only other type is faster (a100): no margin. With
	 * run-time history (the default) a tie keeps it, and an a100 freeing
	 * more than backfill's 60 s resolution sooner broadens it; with
	 * RunTimeHistory=no as soon is enough: a tie broadens it too (it starts
	 * on whichever frees first) */
	{
		nodeox_job_t lj = job;
		nodeox_conf_t *nh = conf_with("Broaden=when-faster\nRunTimeHistory=no\n");

		lj.tres_per_node = "gres:gpu:l40s:4";
		run[0] = (nodeox_running_t){ 0, 4, 240 };
		run[1] = (nodeox_running_t){ 2, 4, 240 };
		run[2] = (nodeox_running_t){ 1, 4, 10800 };
		run[3] = (nodeox_running_t){ 3, 4, 10800 };
		nodeox_policy_decide(c, &lj, &cl, &d);
		assert_keep("would finish no sooner");
		assert_int_equal(d.estimate.kept_finish, d.estimate.broad_finish);
		nodeox_policy_decide(nh, &lj, &cl, &d);
		assert_rewrite();
		assert_int_equal(d.estimate.kept_finish, d.estimate.broad_finish);
		run[0] = (nodeox_running_t){ 0, 4, 120 };
		nodeox_policy_decide(c, &lj, &cl, &d);
		assert_rewrite();
		assert_int_equal(d.estimate.broad_start, 120);
		nodeox_conf_free(nh);
	}

	/* free now on the requested type: kept, whatever the others do */
	run[0] = (nodeox_running_t){ 2, 4, 60 };
	cl.nrunning = 1;
	nodeox_node_t idle[4];
	memcpy(idle, nodes, sizeof(idle));
	idle[0].gpus_idle = 4;
	cl.nodes = idle;
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_keep("kept: a100 expected free now");

	/* backfill's hole: a1 idle, but a 4-GPU a100 job ahead waits for a2 (in
	 * 3 hours): the 60-minute job as asked ends before it could start, so
	 * backfill starts it now; with the job ahead able to start in 30 min
	 * (a2 freeing then), no hole: its demand is paid first (a1 and a2's
	 * first 4), and the job waits for a2's last holding, as before */
	job.time_limit = 60;
	cl.nodes = idle;
	cl.nrunning = 4;
	run[0] = (nodeox_running_t){ 2, 4, 60 };
	run[1] = (nodeox_running_t){ 3, 4, 120 };
	run[2] = (nodeox_running_t){ 1, 4, 10800 };
	run[3] = (nodeox_running_t){ 1, 4, 10800 }; /* a2 again: capped at its 4 */
	ahead[0] = (nodeox_demand_t){ .type = "a100", .gpus = 8, .first = 8 };
	ahead[1] = (nodeox_demand_t){ .type = "l40s", .gpus = 8, .first = 8 };
	cl.ahead = ahead;
	cl.nahead = 2;
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_keep("kept: a100 free now for its 60 min limit, which ends before the jobs ahead "
		    "can take those GPUs: backfill can start it as asked (Broaden=when-faster)");
	assert_true(d.estimate.kept_backfill);
	assert_int_equal(d.estimate.kept_start, 0);
	assert_int_equal(d.estimate.kept_finish, 3600);
	run[2] = (nodeox_running_t){ 1, 4, 1800 };
	run[3] = (nodeox_running_t){ 1, 4, 10800 };
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_false(d.estimate.kept_backfill);
	assert_int_equal(d.estimate.kept_start, 10800);
	assert_keep("kept: a100 expected free in about 180 min");
	/* the first untyped job ahead wants 4, which a1's idle GPUs would cover:
	 * it waits behind a reservation, not for GPUs, and does not end the
	 * hole; the first a100 one wanting 8 does, once a2 frees in 30 min */
	ahead[0] = (nodeox_demand_t){ .type = "", .gpus = 12, .first = 4 };
	ahead[1] = (nodeox_demand_t){ .type = "a100", .gpus = 8, .first = 8 };
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_false(d.estimate.kept_backfill);
	run[2] = (nodeox_running_t){ 1, 4, 10800 };
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_true(d.estimate.kept_backfill);
	/* a first the idle GPUs do not cover (5) ends it as soon as a2 frees */
	ahead[0].first = 5;
	run[2] = (nodeox_running_t){ 1, 4, 1800 };
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_false(d.estimate.kept_backfill);
	cl.nahead = 0;
	cl.nrunning = 1;

	/* without state (no scratch), or cut at the feeder's cap: as when-blocked */
	cl.scratch = NULL;
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_keep("a100 can serve the job now (Broaden=when-faster, as when-blocked: no "
		    "cluster state");
	cl.scratch = scratch;
	cl.state_cut = true;
	cl.nodes = nodes;
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_rewrite();
	assert_false(d.estimate.made);
	cl.state_cut = false;
	/* no time limit and no cap: as when-blocked */
	job.time_limit = NODEOX_TIME_NONE;
	cl.nodes = idle;
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_keep("the job has no time limit");
	/* no cluster at all: as always */
	nodeox_policy_decide(c, &job, NULL, &d);
	assert_rewrite();
	nodeox_conf_free(c);
}

/*
 * Finishes past what an int64_t holds saturate: Speed= takes up to 1e300,
 * so a limit scaled by 1e300 would be undefined as an int64_t (on x86 it
 * came out as INT64_MIN, a finish long past, and the job was broadened onto
 * the type 1e300 times slower); a running job's end far off likewise.
 */
static void test_when_faster_bounds(void **state)
{
	static const nodeox_node_t nodes[] = {
		{ "a1", "a100", "gpu", "a100", 4, 0, true },
		{ "l1", "l40s", "gpu", "l40s", 4, 4, true },
	};
	nodeox_running_t run[1] = { { 0, 4, 600 } };
	uint32_t scratch[NODEOX_ESTIMATE_SCRATCH(2)];
	nodeox_cluster_t cl = { nodes, 2, run, 1, NULL, 0, scratch, false, false, NULL, 0, false, NULL };
	nodeox_job_t job = { .comment = "nodeox:flex",
			     .partition = "gpu",
			     .tres_per_node = "gres:gpu:a100:4",
			     .time_limit = 60 };
	nodeox_demand_t ahead = { .type = "l40s", .gpus = 8, .first = 8 };
	char err[NODEOX_ERR_MAX];
	nodeox_conf_t *c;

	(void)state;
	if (nodeox_conf_parse_string("Broaden=when-faster\nGpuType=a100 Speed=1e300\n"
				     "GpuType=l40s Speed=1\nGroup=g Types=a100,l40s\n",
				     "bounds.conf", &c, err, sizeof(err)))
		fail_msg("conf: %s", err);
	/* l40s free now, a100 in 10 min: on l40s the job would never finish */
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_keep("kept: a100 expected free in about 10 min, finishing there is sooner");
	assert_int_equal(d.estimate.broad_start, 0);
	assert_true(d.estimate.broad_finish >= INT64_MAX / 4);
	assert_int_equal(d.estimate.kept_finish, 600 + 3600);
	/* the same where broadened is extrapolated: l40s demanded ahead */
	cl.ahead = &ahead;
	cl.nahead = 1;
	run[0] = (nodeox_running_t){ 1, 4, 300 };
	{
		static const nodeox_node_t busy[] = {
			{ "a1", "a100", "gpu", "a100", 4, 0, true },
			{ "l1", "l40s", "gpu", "l40s", 4, 0, true },
		};

		/* a100 never expected free, l40s after the 4 the job ahead
		 * still wants come back at the rate they did (4 in 300 s) */
		cl.nodes = busy;
		nodeox_policy_decide(c, &job, &cl, &d);
		assert_true(d.estimate.extrapolated);
		assert_int_equal(d.estimate.kept_start, -1);
		assert_in_range(d.estimate.broad_start, 900, 901); /* bisected to 0.5 s */
		assert_true(d.estimate.broad_finish >= INT64_MAX / 4);
	}
	/* a running job ending at INT64_MAX: the finish saturates, never wraps */
	cl.nodes = nodes;
	cl.ahead = NULL;
	cl.nahead = 0;
	run[0] = (nodeox_running_t){ 0, 4, INT64_MAX };
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_true(d.estimate.kept_start < 0 || d.estimate.kept_finish >= d.estimate.kept_start);
	nodeox_conf_free(c);
}

/*
 * What decides each side (the estimate's out-fields for `nodeox why`): the
 * running jobs whose GPUs coming back at its start made it fit, the GPUs
 * idle and held on its nodes, and the demand ahead charged to it. Cluster
 * and job as in test_when_faster.
 */
static void test_when_faster_deciders(void **state)
{
	static const nodeox_node_t nodes[] = {
		{ "a1", "a100", "gpu", "a100", 4, 0, true },
		{ "a2", "a100", "gpu", "a100", 4, 0, true },
		{ "l1", "gpu_l40s", "gpu", "l40s", 4, 0, true },
		{ "l2", "gpu_l40s", "gpu", "l40s", 4, 0, true },
	};
	nodeox_node_t idle[4];
	nodeox_running_t run[5] = {
		{ 2, 4, 60 }, { 0, 2, 240 }, { 0, 2, 240 }, { 1, 4, 7200 }, { 3, 4, 7200 },
	};
	nodeox_running_t many[NODEOX_ESTIMATE_BY + 2];
	nodeox_demand_t ahead[3] = {
		{ .type = "l40s", .gpus = 4, .first = 4, .first_prio = 9, .first_id = 77 },
		{ .type = "h100", .gpus = 64, .first = 8, .first_prio = 8, .first_id = 78 },
		{ .type = "", .gpus = 0 },
	};
	uint32_t scratch[NODEOX_ESTIMATE_SCRATCH(4)];
	nodeox_cluster_t cl = { nodes, 4, run, 5, NULL, 0, scratch, false, false, NULL, 0, false, NULL };
	nodeox_job_t job = { .comment = "nodeox:flex:types=a100+l40s",
			     .partition = "gpu",
			     .tres_per_node = "gres:gpu:a100:4",
			     .time_limit = 60 };
	nodeox_conf_t *c = conf_with("Broaden=when-faster\n");
	size_t i;

	(void)state;
	/* a1's two holdings ending at 240 decide kept (named last first), l1's
	 * at 60 broadened; all 8 a100 and 16 GPUs in all are held */
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_int_equal(d.estimate.kept_start, 240);
	assert_int_equal(d.estimate.broad_start, 60);
	assert_int_equal(d.estimate.nkept_by, 2);
	assert_int_equal(d.estimate.kept_by[0], 2);
	assert_int_equal(d.estimate.kept_by[1], 1);
	assert_int_equal(d.estimate.nbroad_by, 1);
	assert_int_equal(d.estimate.broad_by[0], 0);
	assert_int_equal(d.estimate.kept_idle, 0);
	assert_int_equal(d.estimate.kept_held, 8);
	assert_int_equal(d.estimate.broad_idle, 0);
	assert_int_equal(d.estimate.broad_held, 16);
	assert_int_equal(d.estimate.kept_ahead, 0);
	assert_int_equal(d.estimate.broad_ahead, 0);

	/* the l40s job ahead takes l1's GPUs: broadened waits for a1 too; the
	 * h100 demand is neither side's; an untyped one is both sides' */
	cl.ahead = ahead;
	cl.nahead = 2;
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_int_equal(d.estimate.broad_start, 240);
	assert_int_equal(d.estimate.broad_ahead, 4);
	assert_int_equal(d.estimate.broad_ahead_mask, 1);
	assert_int_equal(d.estimate.kept_ahead, 0);
	assert_int_equal(d.estimate.kept_ahead_mask, 0);
	assert_int_equal(d.estimate.nbroad_by, 2);
	assert_int_equal(d.estimate.broad_by[0], 2);
	ahead[2] = (nodeox_demand_t){ .type = "", .gpus = 2, .first = 2, .first_prio = 7, .first_id = 79 };
	cl.nahead = 3;
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_int_equal(d.estimate.kept_ahead, 2);
	assert_int_equal(d.estimate.kept_ahead_mask, 4);
	assert_int_equal(d.estimate.broad_ahead, 6);
	assert_int_equal(d.estimate.broad_ahead_mask, 5);
	/* a1's 4 back at 240 pay the 2 untyped first: kept waits for a2 */
	assert_int_equal(d.estimate.kept_start, 7200);
	assert_int_equal(d.estimate.nkept_by, 1);
	assert_int_equal(d.estimate.kept_by[0], 3);

	/* fits now: no running job decides it; a1's 4 idle GPUs counted */
	cl.nahead = 0;
	memcpy(idle, nodes, sizeof(idle));
	idle[0].gpus_idle = 4;
	cl.nodes = idle;
	cl.running = run + 3;
	cl.nrunning = 2;
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_int_equal(d.estimate.kept_start, 0);
	assert_int_equal(d.estimate.nkept_by, 0);
	assert_int_equal(d.estimate.nbroad_by, 0);
	assert_int_equal(d.estimate.kept_idle, 4);
	assert_int_equal(d.estimate.kept_held, 4);
	assert_int_equal(d.estimate.broad_idle, 4);
	assert_int_equal(d.estimate.broad_held, 12);

	/* more jobs ending at the start than named: the last NODEOX_ESTIMATE_BY */
	cl.nodes = nodes;
	for (i = 0; i < NODEOX_ESTIMATE_BY + 2; i++)
		many[i] = (nodeox_running_t){ 0, 1, 300 }; /* a1 */
	cl.running = many;
	cl.nrunning = NODEOX_ESTIMATE_BY + 2;
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_int_equal(d.estimate.kept_start, 300);
	assert_int_equal(d.estimate.nkept_by, NODEOX_ESTIMATE_BY);
	assert_int_equal(d.estimate.kept_by[0], NODEOX_ESTIMATE_BY + 1);
	assert_int_equal(d.estimate.kept_by[NODEOX_ESTIMATE_BY - 1], 2);

	/* extrapolated (the jobs ahead want more than all give back): none */
	ahead[0] = (nodeox_demand_t){ .type = "", .gpus = 100, .first = 4 };
	cl.ahead = ahead;
	cl.nahead = 1;
	cl.running = run;
	cl.nrunning = 5;
	nodeox_policy_decide(c, &job, &cl, &d);
	assert_true(d.estimate.extrapolated);
	assert_int_equal(d.estimate.nkept_by, 0);
	assert_int_equal(d.estimate.nbroad_by, 0);
	nodeox_conf_free(c);
}

/*
 * A qsort that is not stable (a heap sort), in place of the C library's for
 * this program: glibc's qsort keeps equal elements in order only while it
 * can allocate its merge buffer (2.37 and 2.38 use introsort), and the
 * feeders sort without scratch exactly when an allocation failed. The
 * order nodeox_running_sort gives without scratch must not hang on it.
 */
static void test_heap_sift(char *b, size_t i, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	char x[64];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			return;
		if (c + 1 < n && cmp(b + (c + 1) * size, b + c * size) > 0)
			c++;
		if (cmp(b + c * size, b + i * size) <= 0)
			return;
		memcpy(x, b + c * size, size);
		memcpy(b + c * size, b + i * size, size);
		memcpy(b + i * size, x, size);
		i = c;
	}
}

void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	char *b = base, x[64];

	assert_true(size <= sizeof(x));
	for (size_t i = n / 2; i-- > 0;)
		test_heap_sift(b, i, n, size, cmp);
	for (size_t k = n; k-- > 1;) {
		memcpy(x, b, size);
		memcpy(b, b + k * size, size);
		memcpy(b + k * size, x, size);
		test_heap_sift(b, 0, k, size, cmp);
	}
}

/*
 * nodeox_running_sort, with its scratch (radix) and without (in place): by end,
 * equal ends in the order given (node holds each entry's first place), the
 * same as a stable insertion sort, over ends with many ties, ends past
 * INT64_MIN / INT64_MAX apart, already in order and reversed.
 */
static void test_running_sort(void **state)
{
	static nodeox_running_t a[600], b[600], ref[600], tmp[600];
	static const int64_t span[] = { 3, 300, 7200, 200000, 1LL << 40, INT64_MAX };
	uint32_t lcg = 7;
	size_t n, i, j;
	int round;

	(void)state;
	for (round = 0; round < 200; round++) {
		int64_t s = span[round % 6];

		n = (size_t)(round * 7 % 600);
		for (i = 0; i < n; i++) {
			uint64_t r;

			lcg = lcg * 1103515245u + 12345u;
			r = (uint64_t)lcg << 32;
			lcg = lcg * 1103515245u + 12345u;
			r |= lcg;
			ref[i].node = (uint32_t)i;
			ref[i].gpus = 1;
			if (s == INT64_MAX)
				ref[i].end = (int64_t)r; /* the whole int64 range */
			else
				ref[i].end = (int64_t)(r % (uint64_t)(2 * s + 1)) - s;
			if (round % 5 == 3) /* already in order */
				ref[i].end = (int64_t)i - 100;
			else if (round % 5 == 4) /* reversed, with ties */
				ref[i].end = 100 - (int64_t)(i / 3);
			if (round % 11 == 0 && i % 2)
				ref[i].end = i % 4 == 1 ? INT64_MIN : INT64_MAX;
		}
		memcpy(a, ref, n * sizeof(*a));
		memcpy(b, ref, n * sizeof(*b));
		for (i = 1; i < n; i++) { /* the reference: stable insertion sort */
			nodeox_running_t x = ref[i];

			for (j = i; j > 0 && ref[j - 1].end > x.end; j--)
				ref[j] = ref[j - 1];
			ref[j] = x;
		}
		nodeox_running_sort(a, n, tmp);
		nodeox_running_sort(b, n, NULL);
		for (i = 0; i < n; i++) {
			assert_int_equal(a[i].end, ref[i].end);
			assert_int_equal(a[i].node, ref[i].node);
			assert_int_equal(b[i].end, ref[i].end);
			assert_int_equal(b[i].node, ref[i].node);
		}
	}
	nodeox_running_sort(NULL, 5, tmp);
	nodeox_running_sort(a, 0, NULL);
}

static void test_action_names(void **state)
{
	(void)state;
	assert_string_equal(nodeox_action_name(NODEOX_PASS), "PASS");
	assert_string_equal(nodeox_action_name(NODEOX_KEEP), "KEEP");
	assert_string_equal(nodeox_action_name(NODEOX_REWRITE), "REWRITE");
	assert_string_equal(nodeox_action_name(NODEOX_REJECT), "REJECT");
}

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_untagged_and_off), cmocka_unit_test(test_request_forms),
		 cmocka_unit_test(test_two_fields_same_type), cmocka_unit_test(test_constraint),
		 cmocka_unit_test(test_constraint_keep), cmocka_unit_test(test_time_cap),
		 cmocka_unit_test(test_prefer), cmocka_unit_test(test_time_scaling),
		 cmocka_unit_test(test_min_speed), cmocka_unit_test(test_tag_mem_and_types),
		 cmocka_unit_test(test_scope), cmocka_unit_test(test_keep_reasons),
		 cmocka_unit_test(test_reject), cmocka_unit_test(test_dryrun_and_admin_comment),
		 cmocka_unit_test(test_admin_comment_record), cmocka_unit_test(test_admin_comment_hostile),
		 cmocka_unit_test(test_feature_filtering), cmocka_unit_test(test_when_blocked),
		 cmocka_unit_test(test_when_faster), cmocka_unit_test(test_when_faster_bounds),
		 cmocka_unit_test(test_when_faster_deciders), cmocka_unit_test(test_partition_bound),
		 cmocka_unit_test(test_running_sort), cmocka_unit_test(test_action_names))
