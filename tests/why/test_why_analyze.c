/*
 * tests/why/test_why_analyze.c: unit tests of `nodeox why`'s analysis on
 * hand-built clusters (no Slurm): the GRES/TRES string readers, the
 * constraint evaluator, each exclusion cause, the per-node/per-job/per-task
 * counts, the flexible view through the real policy library, and the JSON;
 * the pending-reason blockers (why_pending.c) and the "can it ever run as
 * configured" check (why_never.c), including the QOS and association
 * reasons that the test cluster (no slurmdbd) cannot produce.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/common/test_main.h"
#include "cli/why.h"

static const char *_conf_text = "GpuType=a100 Feature=a100 Memory=80G Speed=1.0\n"
				"GpuType=l40s Feature=l40s Memory=48G Speed=0.6\n"
				"GpuType=t4 Feature=t4 Memory=16G Speed=0.25\n"
				"Group=train Types=a100,l40s\n";

/* A GPU node of the given type: 8 CPUs, 16000 MB, partition "gpu", up. */
static why_node_t _node(const char *name, const char *type, uint32_t total, uint32_t used)
{
	why_node_t n = { 0 };

	n.name = name;
	n.features = type;
	n.partitions = "gpu";
	n.state = WHY_NODE_UP;
	n.state_name = "IDLE";
	snprintf(n.gpus[0].type, sizeof(n.gpus[0].type), "%s", type);
	n.gpus[0].total = total;
	n.gpus[0].used = used;
	n.ngpus = 1;
	n.cpus = 8;
	n.mem_mb = 16000;
	return n;
}

static why_job_t _job(const char *tres_per_job, const char *tres_per_node)
{
	why_job_t j = { 0 };

	j.job_id = 42;
	j.pending = true;
	j.state_name = "PENDING";
	j.reason = "Resources";
	j.user = "alice";
	j.account = "lab";
	j.partition = "gpu";
	j.tres_per_job = tres_per_job;
	j.tres_per_node = tres_per_node;
	j.time_limit = 60;
	j.num_nodes = 1;
	j.num_tasks = 1;
	j.num_cpus = 1;
	j.cpus_per_task = 1;
	j.mem_per_node_mb = 1000;
	return j;
}

static nodeox_conf_t *_conf(const char *text)
{
	nodeox_conf_t *c = NULL;
	char err[NODEOX_ERR_MAX];

	if (nodeox_conf_parse_string(text, "test.conf", &c, err, sizeof(err)) < 0)
		fail_msg("conf: %s", err);
	return c;
}

static uint32_t _excluded(const why_fit_t *f, why_cause_t cause, const char *type)
{
	uint32_t n = 0;

	for (size_t i = 0; i < f->nexcluded; i++)
		if (f->excluded[i].cause == cause && (!type || !strcmp(f->excluded[i].type, type)))
			n += f->excluded[i].gpus;
	return n;
}

static const char *_excluded_nodes(const why_fit_t *f, why_cause_t cause)
{
	for (size_t i = 0; i < f->nexcluded; i++)
		if (f->excluded[i].cause == cause)
			return f->excluded[i].nodes;
	return "";
}

/* usable + excluded = idle, whenever GPUs are asked for. */
static void _assert_sum(const why_fit_t *f)
{
	uint32_t ex = 0;

	if (f->req.per == WHY_PER_NONE)
		return;
	for (size_t i = 0; i < f->nexcluded; i++)
		ex += f->excluded[i].gpus;
	assert_int_equal(f->eligible_gpus + ex, f->idle_gpus);
}

static void _analyze(const why_job_t *job, const why_node_t *nodes, size_t n, const nodeox_conf_t *conf,
		     why_result_t *res)
{
	char err[256];

	if (why_analyze(job, nodes, n, NULL, conf, res, err, sizeof(err)) < 0)
		fail_msg("why_analyze: %s", err);
	_assert_sum(&res->fit);
	if (res->flex.analysed)
		_assert_sum(&res->flex.fit);
}

/* ---------------------------------------------------------------- strings */

static void test_gres_node(void **state)
{
	why_gpu_t g[WHY_MAX_NODE_GPUS];

	assert_int_equal(why_gres_parse_node("gpu:a100:4(S:0-1)", "gpu:a100:2(IDX:0,2)", g, 8), 1);
	assert_string_equal(g[0].type, "a100");
	assert_int_equal(g[0].total, 4);
	assert_int_equal(g[0].used, 2);

	assert_int_equal(why_gres_parse_node("gpu:a100:2(S:0),gpu:l40s:2(S:1),mps:100",
					     "gpu:a100:0(IDX:N/A),gpu:l40s:1(IDX:3),mps:0", g, 8),
			 2);
	assert_string_equal(g[1].type, "l40s");
	assert_int_equal(g[1].total, 2);
	assert_int_equal(g[1].used, 1);
	assert_int_equal(g[0].used, 0);

	assert_int_equal(why_gres_parse_node("gpu:4", "gpu:(null):3(IDX:0-2)", g, 8), 1);
	assert_string_equal(g[0].type, "");
	assert_int_equal(g[0].used, 3);
	assert_int_equal(why_gres_parse_node(NULL, NULL, g, 8), 0);
	assert_int_equal(why_gres_parse_node("(null)", NULL, g, 8), 0);
	assert_int_equal(why_gres_parse_node("gpu:a100:x", NULL, g, 8), -1);
	assert_int_equal(why_gres_parse_node("gpu:a100:4294967296", NULL, g, 8), -1);
	assert_int_equal(why_gres_parse_node("gpu:a:1,gpu:b:1", NULL, g, 1), -1);
}

static void test_gres_job(void **state)
{
	char type[WHY_NAME_MAX];
	uint32_t n = 0;
	bool more;

	assert_int_equal(why_gres_parse_job("gres:gpu:a100:4", type, sizeof(type), &n, &more), 1);
	assert_string_equal(type, "a100");
	assert_int_equal(n, 4);
	assert_false(more);
	assert_int_equal(why_gres_parse_job("gres:foo:1,gres:gpu:2", type, sizeof(type), &n, &more), 1);
	assert_string_equal(type, "");
	assert_int_equal(n, 2);
	assert_int_equal(why_gres_parse_job("gres/gpu:l40s=3", type, sizeof(type), &n, &more), 1);
	assert_string_equal(type, "l40s");
	assert_int_equal(n, 3);
	assert_int_equal(why_gres_parse_job("gres:gpu:a100:1,gres:gpu:l40s:1", type, sizeof(type), &n, &more),
			 1);
	assert_true(more);
	assert_int_equal(why_gres_parse_job("gres:gpu:a100", type, sizeof(type), &n, &more), 1);
	assert_int_equal(n, 1);
	assert_int_equal(why_gres_parse_job("gres:foo:1", type, sizeof(type), &n, &more), 0);
	assert_int_equal(why_gres_parse_job(NULL, type, sizeof(type), &n, &more), 0);
	assert_int_equal(why_gres_parse_job("gres:gpu:a100:4x", type, sizeof(type), &n, &more), -1);
	/* Slurm's own grammar (policy/policy.h): suffixes, and what it refuses */
	assert_int_equal(why_gres_parse_job("gres:gpu:a100:2k", type, sizeof(type), &n, &more), 1);
	assert_int_equal(n, 2048);
	assert_int_equal(why_gres_parse_job("gres:gpu:a100:", type, sizeof(type), &n, &more), -1);
	assert_int_equal(why_gres_parse_job("gres:gpu::2", type, sizeof(type), &n, &more), -1);
	assert_int_equal(why_gres_parse_job("gres:gpu:a100:1,gres:gpu:x:", type, sizeof(type), &n, &more),
			 -1);
}

static void test_feature(void **state)
{
	assert_int_equal(why_feature_match(NULL, "a100"), 1);
	assert_int_equal(why_feature_match("a100", "a100,ib"), 1);
	assert_int_equal(why_feature_match("l40s", "a100,ib"), 0);
	assert_int_equal(why_feature_match("a100|l40s", "l40s"), 1);
	assert_int_equal(why_feature_match("[a100|l40s]", "l40s"), 1);
	assert_int_equal(why_feature_match("a100&ib", "a100"), 0);
	assert_int_equal(why_feature_match("a100,ib", "a100,ib"), 1);
	assert_int_equal(why_feature_match("(a100|l40s)&ib", "l40s,ib"), 1);
	assert_int_equal(why_feature_match("(a100|l40s)&ib", "t4,ib"), 0);
	assert_int_equal(why_feature_match("a100*2", "a100"), 1);
	/* Slurm evaluates left to right: a|b&c is (a|b)&c */
	assert_int_equal(why_feature_match("a|b&c", "a"), 0);
	assert_int_equal(why_feature_match("a100|", "a100"), -1);
	assert_int_equal(why_feature_match("(a100", "a100"), -1);
	assert_int_equal(why_feature_match("a100]", "a100"), -1);
	assert_int_equal(why_feature_match("a100*x", "a100"), -1);
	/* a feature is a whole list item, not a substring */
	assert_int_equal(why_feature_match("a10", "a100"), 0);
}

/* --------------------------------------------------------------- analysis */

/* The article: 4 a100 with 2 busy, 4 l40s idle; the job asks for 4 a100. */
static void test_article(void **state)
{
	why_node_t nodes[] = { _node("a1", "a100", 4, 2), _node("l1", "l40s", 4, 0) };
	why_job_t job = _job("gres:gpu:a100:4", NULL);
	nodeox_conf_t *conf = _conf(_conf_text);
	why_result_t res;

	_analyze(&job, nodes, 2, conf, &res);
	assert_int_equal(res.fit.req.per, WHY_PER_JOB);
	assert_int_equal(res.fit.idle_gpus, 6);
	assert_int_equal(res.fit.eligible_gpus, 2);
	assert_int_equal(_excluded(&res.fit, WHY_CAUSE_GPU_TYPE, "l40s"), 4);
	assert_string_equal(_excluded_nodes(&res.fit, WHY_CAUSE_GPU_TYPE), "l1");
	assert_false(res.fit.could_start);
	assert_non_null(strstr(res.fit.shortfall, "needs 4 a100"));

	assert_true(res.flex.conf_loaded);
	assert_false(res.flex.tagged);
	assert_int_equal(res.flex.decision.action, NODEOX_REWRITE);
	assert_int_equal(res.flex.neligible, 2);
	assert_string_equal(res.flex.eligible_types[0], "a100");
	assert_string_equal(res.flex.eligible_types[1], "l40s");
	assert_true(res.flex.analysed);
	assert_int_equal(res.flex.fit.eligible_gpus, 6);
	assert_true(res.flex.fit.could_start);
	assert_float_equal(res.flex.run_time_factor, 1.0 / 0.6, 1e-9);
	assert_int_equal(res.flex.decision.time_limit, 100);
	why_result_free(&res);
	nodeox_conf_free(conf);
}

/* Broaden=when-faster from the queue: a1's a100 come back in 3 minutes (a
 * running job's end), l1's l40s are idle: kept; with a1 busy for an hour and
 * an a100 job pending ahead, broadened. The estimate is what nodeox why shows. */
static void test_when_faster_state(void **state)
{
	why_node_t nodes[] = { _node("a1", "a100", 4, 4), _node("l1", "l40s", 4, 0) };
	why_job_t job = _job("gres:gpu:a100:4", NULL);
	why_qjob_t q[2] = { 0 };
	why_cluster_t cl = { .jobs = q, .njobs = 1, .now = 1000 };
	char text[8192];
	nodeox_conf_t *conf = _conf("GpuType=a100 Memory=80G Speed=1.0\n"
				    "GpuType=l40s Memory=48G Speed=0.6\n"
				    "Group=train Types=a100,l40s\nBroaden=when-faster\n");
	why_result_t res;
	char err[256];
	FILE *f;

	(void)state;
	job.time_limit = 30;
	q[0] = (why_qjob_t){ .job_id = 7,
			     .phase = WHY_PHASE_ACTIVE,
			     .nodes = "a1",
			     .num_nodes = 1,
			     .end_time = 1000 + 180,
			     .tres_alloc = "cpu=1,gres/gpu=4,gres/gpu:a100=4" };
	assert_int_equal(why_analyze(&job, nodes, 2, &cl, conf, &res, err, sizeof(err)), 0);
	assert_int_equal(res.flex.decision.action, NODEOX_KEEP);
	assert_true(res.flex.decision.estimate.made);
	assert_int_equal(res.flex.decision.estimate.kept_start, 180);
	assert_int_equal(res.flex.decision.estimate.broad_start, 0);
	assert_int_equal(res.flex.decision.estimate.broad_finish, 3000);
	assert_non_null(strstr(res.flex.decision.reason, "kept: a100 expected free in about 3 min"));
	f = fmemopen(text, sizeof(text), "w");
	why_print_text(f, &res);
	fclose(f);
	if (!strstr(text, "  when-faster estimate now (Broaden=when-faster, as job_submit/nodeox would "
			  "decide it):\n"
			  "    as asked (a100): start in 180 s, finish in 1980 s; GPUs 0 idle, 4 held\n"
			  "      decided by running job 7 (ends in 180 s)\n"
			  "    broadened (a100,l40s): start in 0 s, finish in 3000 s (limit x1.67); "
			  "GPUs 4 idle, 4 held\n"
			  "    -> keep\n"
			  "    backfill map: 0 reservations of pending jobs ahead\n"
			  "    not modelled: GPUs per node (counted per type)"))
		fail_msg("text: %s", text);
	assert_int_equal(res.flex.plan.nkept_by, 1);
	assert_int_equal(res.flex.plan.kept_by[0].job_id, 7);
	assert_int_equal(res.flex.plan.kept_by[0].end, 180);
	assert_int_equal(res.flex.plan.nbroad_by, 0); /* fits now */
	assert_int_equal(res.flex.plan.nahead, 0);
	why_result_free(&res);

	q[0].end_time = 1000 + 3600;
	q[1] = (why_qjob_t){ .job_id = 8,
			     .phase = WHY_PHASE_PENDING,
			     .priority = 10,
			     .num_nodes = 1,
			     .tres_per_node = "gres:gpu:a100:4" };
	cl.njobs = 2;
	assert_int_equal(why_analyze(&job, nodes, 2, &cl, conf, &res, err, sizeof(err)), 0);
	assert_int_equal(res.flex.decision.action, NODEOX_REWRITE);
	assert_true(res.flex.decision.estimate.broaden);
	assert_int_equal(res.flex.decision.estimate.broad_start, 0);
	/* job 8 ahead wants a1's a100 when job 7 ends: both sides pay it */
	assert_int_equal(res.flex.plan.nahead, 1);
	assert_string_equal(res.flex.plan.ahead[0].type, "a100");
	assert_int_equal(res.flex.plan.ahead[0].gpus, 4);
	assert_int_equal(res.flex.plan.ahead[0].first_id, 8);
	assert_int_equal(res.flex.plan.ahead[0].first_prio, 10);
	assert_true(res.flex.plan.ahead[0].kept);
	assert_true(res.flex.plan.ahead[0].broad);
	f = fmemopen(text, sizeof(text), "w");
	why_print_json(f, &res);
	fclose(f);
	if (!strstr(text, "\"as_asked\": {\"idle_gpus\": 0, \"held_gpus\": 4, \"ahead_gpus\": 4, "
			  "\"running\": [], \"ahead\": [{\"type\": \"a100\", \"gpus\": 4, "
			  "\"first_job_id\": 8, \"first_priority\": 10}]}"))
		fail_msg("json: %s", text);
	why_result_free(&res);
	nodeox_conf_free(conf);
}

/* The backfill map's reservations as nodeox why names them (the live
 * queue of tests/why/test_why_plan.sh): R1 holds a1's a100 for 10 min, R2
 * l1's l40s for 3; P (l40s:4, 30 min) pending ahead reserves l1 from R2's
 * end. J (a100:4, 5 min): as asked and broadened it starts at R1's end;
 * broadened, P's reservation is named, with its id and priority. */
static void test_when_faster_map_plan(void **state)
{
	why_node_t nodes[] = { _node("a1", "a100", 4, 4), _node("l1", "l40s", 4, 4) };
	why_job_t job = _job(NULL, "gres:gpu:a100:4");
	why_qjob_t q[3] = { 0 };
	why_cluster_t cl = { .jobs = q, .njobs = 3, .now = 1000 };
	nodeox_conf_t *conf = _conf("GpuType=a100 Memory=80G Speed=1.0\n"
				    "GpuType=l40s Memory=48G Speed=0.6\n"
				    "Group=train Types=a100,l40s\nBroaden=when-faster\n");
	char text[8192], err[256];
	why_result_t res;
	FILE *f;

	(void)state;
	job.time_limit = 5;
	q[0] = (why_qjob_t){ .job_id = 1, .phase = WHY_PHASE_ACTIVE, .nodes = "a1", .num_nodes = 1,
			     .end_time = 1000 + 600, .tres_alloc = "cpu=1,gres/gpu=4,gres/gpu:a100=4" };
	q[1] = (why_qjob_t){ .job_id = 2, .phase = WHY_PHASE_ACTIVE, .nodes = "l1", .num_nodes = 1,
			     .end_time = 1000 + 180, .tres_alloc = "cpu=1,gres/gpu=4,gres/gpu:l40s=4" };
	q[2] = (why_qjob_t){ .job_id = 3, .phase = WHY_PHASE_PENDING, .priority = 77, .num_nodes = 1,
			     .partition = "gpu", .time_limit = 30, .tres_per_node = "gres:gpu:l40s:4" };
	assert_int_equal(why_analyze(&job, nodes, 2, &cl, conf, &res, err, sizeof(err)), 0);
	assert_int_equal(res.flex.decision.action, NODEOX_KEEP);
	assert_true(res.flex.decision.estimate.map);
	assert_int_equal(res.flex.decision.estimate.map_reserved, 1);
	assert_int_equal(res.flex.decision.estimate.kept_start, 600);
	assert_int_equal(res.flex.decision.estimate.broad_start, 600);
	assert_int_equal(res.flex.plan.nahead, 1);
	assert_int_equal(res.flex.plan.ahead[0].first_id, 3);
	assert_int_equal(res.flex.plan.ahead[0].first_prio, 77);
	assert_string_equal(res.flex.plan.ahead[0].type, "l40s");
	assert_false(res.flex.plan.ahead[0].kept);
	assert_true(res.flex.plan.ahead[0].broad);
	f = fmemopen(text, sizeof(text), "w");
	why_print_text(f, &res);
	fclose(f);
	if (!strstr(text, "      reservations of pending jobs ahead: job 3 (priority 77, 4 l40s GPUs)\n") ||
	    !strstr(text, "    backfill map: 1 reservation of pending jobs ahead\n"))
		fail_msg("text: %s", text);
	why_result_free(&res);
	nodeox_conf_free(conf);
}

/* --gres=gpu:a100:4 is per node: 2 idle on a1 do not help. */
static void test_per_node_count(void **state)
{
	why_node_t nodes[] = { _node("a1", "a100", 4, 2), _node("a2", "a100", 4, 0) };
	why_job_t job = _job(NULL, "gres:gpu:a100:4");
	why_result_t res;

	_analyze(&job, nodes, 2, NULL, &res);
	assert_int_equal(res.fit.req.per, WHY_PER_NODE);
	assert_int_equal(res.fit.eligible_gpus, 4);
	assert_int_equal(_excluded(&res.fit, WHY_CAUSE_GPUS_PER_NODE, "a100"), 2);
	assert_true(res.fit.could_start);
	assert_false(res.flex.conf_loaded);
	why_result_free(&res);

	/* two nodes asked: only a2 qualifies */
	job.num_nodes = 2;
	_analyze(&job, nodes, 2, NULL, &res);
	assert_int_equal(res.fit.req.total, 8);
	assert_false(res.fit.could_start);
	assert_non_null(strstr(res.fit.shortfall, "1 node qualifies"));
	why_result_free(&res);
}

static void test_per_task(void **state)
{
	why_node_t nodes[] = { _node("a1", "a100", 4, 1), _node("a2", "a100", 4, 3) };
	why_job_t job = _job(NULL, NULL);
	why_result_t res;

	job.tres_per_task = "gres:gpu:a100:2";
	job.num_tasks = 2;
	_analyze(&job, nodes, 2, NULL, &res);
	assert_int_equal(res.fit.req.per, WHY_PER_TASK);
	assert_int_equal(res.fit.req.total, 4);
	/* a1 has 3 idle: room for one task; a2 has 1: none */
	assert_int_equal(_excluded(&res.fit, WHY_CAUSE_GPUS_PER_NODE, NULL), 1);
	assert_false(res.fit.could_start);
	why_result_free(&res);

	job.num_tasks = 1;
	_analyze(&job, nodes, 2, NULL, &res);
	assert_true(res.fit.could_start);
	why_result_free(&res);
}

static void test_cpus_memory(void **state)
{
	why_node_t nodes[] = { _node("a1", "a100", 4, 0), _node("a2", "a100", 4, 0),
			       _node("a3", "a100", 4, 0) };
	why_job_t job = _job("gres:gpu:a100:4", NULL);
	why_result_t res;

	job.cpus_per_task = 4;
	job.mem_per_node_mb = 8000;
	nodes[0].cpus_alloc = 6;       /* 2 CPUs left */
	nodes[1].mem_alloc_mb = 12000; /* 4000 MB left */
	_analyze(&job, nodes, 3, NULL, &res);
	assert_int_equal(res.fit.req.cpus_per_node, 4);
	assert_int_equal(_excluded(&res.fit, WHY_CAUSE_CPUS, NULL), 4);
	assert_string_equal(_excluded_nodes(&res.fit, WHY_CAUSE_CPUS), "a1");
	assert_int_equal(_excluded(&res.fit, WHY_CAUSE_MEMORY, NULL), 4);
	assert_string_equal(_excluded_nodes(&res.fit, WHY_CAUSE_MEMORY), "a2");
	assert_int_equal(res.fit.eligible_gpus, 4);
	assert_true(res.fit.could_start);
	why_result_free(&res);

	/* --mem-per-cpu: 3000 MB x 4 CPUs = 12000 MB > 4000 left on a2 and
	 * 16000 - 5000 on a3 */
	job.mem_per_node_mb = 0;
	job.mem_per_cpu_mb = 3000;
	nodes[2].mem_alloc_mb = 5000;
	_analyze(&job, nodes, 3, NULL, &res);
	assert_int_equal(res.fit.req.mem_per_node_mb, 12000);
	assert_int_equal(_excluded(&res.fit, WHY_CAUSE_MEMORY, NULL), 8);
	assert_int_equal(res.fit.eligible_gpus, 0);
	why_result_free(&res);

	/* no memory asked with CR_MEMORY: the whole node, so any use excludes */
	job.mem_per_cpu_mb = 0;
	job.mem_tracked = true;
	nodes[2].mem_alloc_mb = 0;
	_analyze(&job, nodes, 3, NULL, &res);
	assert_int_equal(_excluded(&res.fit, WHY_CAUSE_MEMORY, NULL), 4);
	assert_int_equal(res.fit.eligible_gpus, 4);
	why_result_free(&res);
}

static void test_partition_state_feature(void **state)
{
	why_node_t nodes[] = { _node("a1", "a100", 4, 0), _node("a2", "a100", 4, 0),
			       _node("a3", "a100", 4, 0), _node("a4", "a100", 4, 0),
			       _node("a5", "a100", 4, 0), _node("a6", "a100", 4, 0) };
	why_job_t job = _job(NULL, "gres:gpu:1");
	why_result_t res;

	nodes[0].partitions = "debug";
	nodes[1].state = WHY_NODE_DRAINED;
	nodes[1].state_name = "IDLE+DRAIN";
	nodes[1].state_reason = "maintenance";
	nodes[2].state = WHY_NODE_DOWN;
	nodes[3].state = WHY_NODE_NOT_RESPONDING;
	nodes[4].features = "a100";
	nodes[5].features = "a100,ib";
	job.features = "ib";
	_analyze(&job, nodes, 6, NULL, &res);
	assert_int_equal(_excluded(&res.fit, WHY_CAUSE_PARTITION, NULL), 4);
	assert_int_equal(_excluded(&res.fit, WHY_CAUSE_NODE_DRAINED, NULL), 4);
	assert_int_equal(_excluded(&res.fit, WHY_CAUSE_NODE_DOWN, NULL), 4);
	assert_int_equal(_excluded(&res.fit, WHY_CAUSE_NODE_NOT_RESPONDING, NULL), 4);
	assert_int_equal(_excluded(&res.fit, WHY_CAUSE_FEATURE, NULL), 4);
	assert_string_equal(_excluded_nodes(&res.fit, WHY_CAUSE_FEATURE), "a5");
	assert_int_equal(res.fit.eligible_gpus, 4);
	assert_int_equal(res.fit.eligible_nodes, 1);
	for (size_t i = 0; i < res.fit.nexcluded; i++)
		if (res.fit.excluded[i].cause == WHY_CAUSE_NODE_DRAINED)
			assert_non_null(strstr(res.fit.excluded[i].detail, "maintenance"));
	why_result_free(&res);

	/* a job in two partitions may use both */
	job.partition = "gpu,debug";
	_analyze(&job, nodes, 6, NULL, &res);
	assert_int_equal(_excluded(&res.fit, WHY_CAUSE_PARTITION, NULL), 0);
	why_result_free(&res);

	/* --exclude and --nodelist */
	job.exc_nodes = "a6";
	_analyze(&job, nodes, 6, NULL, &res);
	assert_int_equal(_excluded(&res.fit, WHY_CAUSE_NODELIST, NULL), 4);
	why_result_free(&res);
}

/* A state cause wins over a type cause: a drained l40s node is "drained". */
static void test_cause_order(void **state)
{
	why_node_t nodes[] = { _node("l1", "l40s", 4, 0) };
	why_job_t job = _job("gres:gpu:a100:1", NULL);
	why_result_t res;

	nodes[0].state = WHY_NODE_DRAINED;
	_analyze(&job, nodes, 1, NULL, &res);
	assert_int_equal(_excluded(&res.fit, WHY_CAUSE_NODE_DRAINED, "l40s"), 4);
	assert_int_equal(_excluded(&res.fit, WHY_CAUSE_GPU_TYPE, NULL), 0);
	why_result_free(&res);
}

/* Several nodes with the same cause and type form one group. */
static void test_grouping(void **state)
{
	why_node_t nodes[] = { _node("l1", "l40s", 4, 1), _node("l2", "l40s", 4, 0),
			       _node("t1", "t4", 2, 0) };
	why_job_t job = _job("gres:gpu:a100:1", NULL);
	why_result_t res;

	_analyze(&job, nodes, 3, NULL, &res);
	assert_int_equal(res.fit.nexcluded, 2);
	assert_int_equal(_excluded(&res.fit, WHY_CAUSE_GPU_TYPE, "l40s"), 7);
	assert_int_equal(_excluded(&res.fit, WHY_CAUSE_GPU_TYPE, "t4"), 2);
	assert_string_equal(res.fit.excluded[0].nodes, "l1,l2");
	why_result_free(&res);
}

/* Only the group's types are eligible, not every type with idle GPUs. */
static void test_flex_group_limits(void **state)
{
	why_node_t nodes[] = { _node("a1", "a100", 4, 4), _node("t1", "t4", 4, 0) };
	why_job_t job = _job("gres:gpu:a100:2", NULL);
	nodeox_conf_t *conf = _conf(_conf_text);
	why_result_t res;

	_analyze(&job, nodes, 2, conf, &res);
	assert_int_equal(res.fit.idle_gpus, 4);
	assert_int_equal(res.fit.eligible_gpus, 0);
	/* no l40s node in the cluster: the policy leaves l40s out, so the
	 * type has no group partner here */
	assert_int_not_equal(res.flex.decision.action, NODEOX_REWRITE);
	assert_false(res.flex.analysed);
	why_result_free(&res);
	nodeox_conf_free(conf);
}

/* A tagged job the plugin already rewrote: read, not re-decided. */
static void test_flex_applied(void **state)
{
	why_node_t nodes[] = { _node("a1", "a100", 4, 4), _node("l1", "l40s", 4, 2) };
	why_job_t job = _job("gres:gpu:4", NULL);
	nodeox_conf_t *conf = _conf(_conf_text);
	why_result_t res;

	job.comment = "run 7 nodeox:flex";
	job.features = "a100|l40s";
	job.admin_comment = "nodeox: changed tres_per_job=gres:gpu:a100:4->gres:gpu:4 "
			    "features=(none)->a100|l40s";
	_analyze(&job, nodes, 2, conf, &res);
	assert_true(res.flex.tagged);
	assert_true(res.flex.applied);
	assert_int_equal(res.flex.neligible, 2);
	assert_float_equal(res.flex.run_time_factor, 1.0 / 0.6, 1e-9);
	assert_int_equal(res.fit.eligible_gpus, 2);
	assert_false(res.fit.could_start);
	why_result_free(&res);
	nodeox_conf_free(conf);
}

static void test_flex_malformed_tag_and_mode_off(void **state)
{
	why_node_t nodes[] = { _node("a1", "a100", 4, 2), _node("l1", "l40s", 4, 0) };
	why_job_t job = _job("gres:gpu:a100:4", NULL);
	nodeox_conf_t *conf = _conf(_conf_text);
	nodeox_conf_t *off = _conf("Mode=off\nGpuType=a100 Speed=1\nGpuType=l40s Speed=0.5\n"
				   "Group=g Types=a100,l40s\n");
	why_result_t res;

	job.comment = "nodeox:flex:bogus=1";
	_analyze(&job, nodes, 2, conf, &res);
	assert_true(res.flex.tagged);
	assert_int_equal(res.flex.decision.action, NODEOX_REJECT);
	assert_true(res.flex.tag_error[0] != '\0');
	why_result_free(&res);

	job.comment = NULL;
	_analyze(&job, nodes, 2, off, &res);
	assert_int_equal(res.flex.decision.action, NODEOX_PASS);
	assert_false(res.flex.analysed);
	why_result_free(&res);
	nodeox_conf_free(conf);
	nodeox_conf_free(off);
}

static void test_no_gpus_asked(void **state)
{
	why_node_t nodes[] = { _node("a1", "a100", 4, 0) };
	why_job_t job = _job(NULL, NULL);
	why_result_t res;

	_analyze(&job, nodes, 1, NULL, &res);
	assert_int_equal(res.fit.req.per, WHY_PER_NONE);
	assert_int_equal(res.fit.idle_gpus, 4);
	assert_int_equal(res.fit.nexcluded, 0);
	assert_false(res.fit.could_start);
	why_result_free(&res);
}

static void test_bad_tres(void **state)
{
	why_node_t nodes[] = { _node("a1", "a100", 4, 0) };
	why_job_t job = _job("gres:gpu:a100:many", NULL);
	why_result_t res;
	char err[256];

	assert_int_equal(why_analyze(&job, nodes, 1, NULL, NULL, &res, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "job 42"));
	assert_non_null(strstr(err, "TresPerJob"));
}

/* The JSON carries the required keys with the analysed values. */
static void test_json(void **state)
{
	why_node_t nodes[] = { _node("a1", "a100", 4, 2), _node("l1", "l40s", 4, 0) };
	why_job_t job = _job("gres:gpu:a100:4", NULL);
	nodeox_conf_t *conf = _conf(_conf_text);
	why_result_t res;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	job.comment = "say \"hi\"\n";
	_analyze(&job, nodes, 2, conf, &res);
	why_print_json(f, &res);
	fclose(f);
	assert_non_null(strstr(buf, "\"job_id\": 42"));
	assert_non_null(strstr(buf, "\"reason\": \"Resources\""));
	assert_non_null(strstr(buf, "\"idle_gpus\": 6, \"eligible_gpus\": 2"));
	assert_non_null(strstr(buf, "\"excluded\": [{\"cause\": \"gpu_type\", \"gpus\": 4, "
				    "\"type\": \"l40s\", \"nodes\": [\"l1\"]"));
	assert_non_null(strstr(buf, "\"eligible_types\": [\"a100\", \"l40s\"], \"eligible_gpus\": 6, "
				    "\"could_start_now\": true, \"run_time_factor\": 1.667"));
	assert_non_null(strstr(buf, "\"comment\": \"say \\\"hi\\\"\\n\""));
	free(buf);
	why_result_free(&res);
	nodeox_conf_free(conf);
}

/* ------------------------------------------------------ pending reasons */

static const why_part_t _parts[] = {
	{ .name = "gpu", .state_name = "UP", .up = true, .max_time = 30 },
	{ .name = "big", .state_name = "UP", .up = true, .max_time = NODEOX_TIME_INFINITE },
	{ .name = "off", .state_name = "DOWN", .up = false, .max_time = NODEOX_TIME_INFINITE },
};

/* Pending-reason analysis of job on a1 (4 a100, gpu), b1 (64 CPUs, big). */
/* The accounting view _pending hands on (NULL: none loaded). */
static const why_acct_t *_pending_acct;

static void _pending(why_job_t *job, const why_qjob_t *jobs, size_t njobs, why_result_t *res)
{
	static why_node_t nodes[2];
	why_cluster_t cl = { 0 };

	nodes[0] = _node("a1", "a100", 4, 0);
	nodes[1] = _node("b1", "", 0, 0);
	nodes[1].ngpus = 0;
	nodes[1].cpus = 64;
	nodes[1].mem_mb = 256000;
	nodes[1].partitions = "big,off";
	cl.nodes = nodes;
	cl.nnodes = 2;
	cl.parts = _parts;
	cl.nparts = 3;
	cl.jobs = jobs;
	cl.njobs = njobs;
	cl.now = 1000;
	cl.acct = _pending_acct;
	_analyze(job, nodes, 2, NULL, res);
	why_pending_explain(&cl, res);
}

static const why_blocker_t *_blk(const why_result_t *res, why_blk_kind_t kind)
{
	for (size_t i = 0; i < res->pend.nblockers; i++)
		if (res->pend.blockers[i].kind == kind)
			return &res->pend.blockers[i];
	return NULL;
}

static void test_pending_qos_assoc(void **state)
{
	why_job_t job = _job(NULL, "gres:gpu:a100:1");
	why_result_t res;
	const why_blocker_t *b;

	(void)state;
	job.reason = "QOSMaxCpuPerUserLimit";
	job.qos = "normal";
	_pending(&job, NULL, 0, &res);
	b = _blk(&res, WHY_BLK_QOS);
	assert_non_null(b);
	assert_string_equal(b->item, "MaxCpuPerUser");
	assert_string_equal(b->job_value, "normal");
	assert_false(b->never);
	assert_non_null(strstr(b->detail, "QOS normal"));
	why_result_free(&res);

	job.reason = "AssocMaxWallDurationPerJobLimit";
	_pending(&job, NULL, 0, &res);
	b = _blk(&res, WHY_BLK_ASSOC);
	assert_non_null(b);
	assert_string_equal(b->item, "MaxWallDurationPerJob");
	assert_true(b->never);
	assert_non_null(strstr(b->detail, "account lab, user alice"));
	assert_string_equal(why_blk_name(b->kind), "assoc_limit");
	why_result_free(&res);

	job.reason = "QOSGrpGRES";
	_pending(&job, NULL, 0, &res);
	assert_string_equal(_blk(&res, WHY_BLK_QOS)->item, "GrpGRES");
	why_result_free(&res);
}

/* An accounting view: cpu, mem, node, gres/gpu:a100, gres/gpu (in that
 * order, as slurmctld may list them), nothing limited. */
static void _acct_init(why_acct_t *a)
{
	const char *names[] = { "cpu", "mem", "node", "gres/gpu:a100", "gres/gpu" };

	memset(a, 0, sizeof(*a));
	a->readable = a->qos_found = a->assoc_found = true;
	a->ntres = 5;
	for (size_t i = 0; i < WHY_ACCT_TRES_MAX; i++) {
		if (i < 5)
			snprintf(a->tres[i], sizeof(a->tres[i]), "%s", names[i]);
		a->job[i] = a->qos_max_pu[i] = a->qos_user_used[i] = a->qos_max_pj[i] = a->qos_grp[i] =
			a->qos_grp_used[i] = a->assoc_grp[i] = a->assoc_grp_used[i] = a->assoc_max_pj[i] =
				WHY_ACCT_NONE;
	}
}

static void test_pending_qos_values(void **state)
{
	why_job_t job = _job(NULL, "gres:gpu:a100:1");
	why_result_t res;
	const why_blocker_t *b;
	why_acct_t a;

	(void)state;
	_acct_init(&a);
	a.job[0] = 2, a.job[4] = 1, a.job[3] = 1;
	a.qos_max_pu[0] = 2, a.qos_user_used[0] = 2;
	_pending_acct = &a;
	job.reason = "QOSMaxCpuPerUserLimit";
	job.qos = "capped";
	_pending(&job, NULL, 0, &res);
	b = _blk(&res, WHY_BLK_QOS);
	assert_non_null(b);
	assert_string_equal(b->item, "MaxCpuPerUser cpu");
	assert_string_equal(b->job_value, "2");
	assert_string_equal(b->limit_value, "2");
	assert_string_equal(b->used_value, "2");
	assert_non_null(strstr(b->detail, "cpu: the job asks 2, 2 in use, limit 2"));
	assert_null(strstr(b->detail, "scontrol show assoc_mgr"));
	why_result_free(&res);

	/* GRES: the GPU TRES over its limit is picked, not the first GRES. */
	a.qos_grp[3] = 8, a.qos_grp_used[3] = 0;
	a.qos_grp[4] = 2, a.qos_grp_used[4] = 2;
	job.reason = "QOSGrpGRES";
	_pending(&job, NULL, 0, &res);
	b = _blk(&res, WHY_BLK_QOS);
	assert_string_equal(b->item, "GrpGRES gres/gpu");
	assert_string_equal(b->job_value, "1");
	assert_string_equal(b->limit_value, "2");
	assert_string_equal(b->used_value, "2");
	why_result_free(&res);

	/* Association GrpTRES on cpu. */
	a.assoc_grp[0] = 4, a.assoc_grp_used[0] = 4;
	job.reason = "AssocGrpCpuLimit";
	_pending(&job, NULL, 0, &res);
	b = _blk(&res, WHY_BLK_ASSOC);
	assert_string_equal(b->item, "GrpCpu cpu");
	assert_string_equal(b->limit_value, "4");
	assert_string_equal(b->used_value, "4");
	why_result_free(&res);

	/* Per job: no use compared. */
	a.qos_max_pj[0] = 1;
	job.reason = "QOSMaxCpuPerJobLimit";
	_pending(&job, NULL, 0, &res);
	b = _blk(&res, WHY_BLK_QOS);
	assert_string_equal(b->limit_value, "1");
	assert_string_equal(b->used_value, "");
	assert_true(b->never);
	why_result_free(&res);

	/* A limit not counted per TRES: named only. */
	job.reason = "QOSMaxJobsPerUserLimit";
	_pending(&job, NULL, 0, &res);
	b = _blk(&res, WHY_BLK_QOS);
	assert_string_equal(b->item, "MaxJobsPerUser");
	assert_string_equal(b->job_value, "capped");
	assert_non_null(strstr(b->detail, "scontrol show assoc_mgr"));
	why_result_free(&res);

	/* No accounting: said plainly. */
	_acct_init(&a);
	a.readable = false;
	snprintf(a.why_not, sizeof(a.why_not), "slurmctld keeps no accounting");
	job.reason = "QOSMaxCpuPerUserLimit";
	_pending(&job, NULL, 0, &res);
	b = _blk(&res, WHY_BLK_QOS);
	assert_non_null(strstr(b->detail, "use and limit not readable: slurmctld keeps no accounting"));
	assert_string_equal(b->limit_value, "");
	why_result_free(&res);
	_pending_acct = NULL;
}

static void test_pending_dependency(void **state)
{
	const why_qjob_t q[] = {
		{ .job_id = 7, .phase = WHY_PHASE_PENDING, .state_name = "PENDING", .reason = "JobHeldUser" },
		{ .job_id = 8, .phase = WHY_PHASE_ENDED, .state_name = "COMPLETED" },
		{ .job_id = 9, .phase = WHY_PHASE_ENDED, .state_name = "FAILED" },
	};
	why_job_t job = _job(NULL, NULL);
	why_result_t res;

	(void)state;
	job.time_limit = 20;
	job.reason = "Dependency";
	job.dependency = "afterok:7(unfulfilled),afternotok:8(unfulfilled)";
	_pending(&job, q, 3, &res);
	assert_int_equal(res.pend.nblockers, 2);
	assert_int_equal(res.pend.blockers[0].kind, WHY_BLK_DEPENDENCY);
	assert_string_equal(res.pend.blockers[0].item, "afterok");
	assert_string_equal(res.pend.blockers[0].job_value, "afterok:7");
	assert_string_equal(res.pend.blockers[0].limit_value, "PENDING");
	assert_false(res.pend.blockers[0].never);
	assert_non_null(strstr(res.pend.blockers[0].detail, "Reason=JobHeldUser"));
	assert_int_equal(res.pend.blockers[0].jobs[0]->job_id, 7);
	/* afternotok on a job that completed: never */
	assert_true(res.pend.blockers[1].never);
	assert_non_null(strstr(res.pend.blockers[1].detail, "can no longer be satisfied"));
	why_result_free(&res);

	/* either of two (?): one that can still come is enough */
	job.dependency = "afterok:9(failed)?afterany:7(unfulfilled)";
	_pending(&job, q, 3, &res);
	assert_int_equal(res.pend.nblockers, 2);
	assert_false(res.pend.blockers[0].never);
	why_result_free(&res);

	job.reason = "DependencyNeverSatisfied";
	job.dependency = "afterok:9(failed)";
	_pending(&job, q, 3, &res);
	assert_true(res.pend.blockers[0].never);
	assert_string_equal(res.pend.blockers[0].limit_value, "FAILED");
	why_result_free(&res);

	job.reason = "Dependency";
	job.dependency = "afterany:12345(unfulfilled)";
	_pending(&job, q, 3, &res);
	assert_string_equal(res.pend.blockers[0].limit_value, "unknown");
	why_result_free(&res);
}

static void test_never_partitions(void **state)
{
	why_job_t job = _job(NULL, NULL);
	why_result_t res;
	const why_blocker_t *b;

	(void)state;
	/* time limit over gpu's MaxTime 30, whatever the reason */
	job.reason = "Priority";
	job.time_limit = 60;
	_pending(&job, NULL, 0, &res);
	assert_true(res.pend.never_runs);
	b = _blk(&res, WHY_BLK_PART_TIME);
	assert_non_null(b);
	assert_string_equal(b->job_value, "60");
	assert_string_equal(b->limit_value, "30");
	assert_int_equal(res.pend.expected_start, 0);
	why_result_free(&res);

	/* 64 CPUs: not in gpu (8), but in big (64): it can run, and with a
	 * Resources reason the partition it cannot use is not a blocker */
	job.time_limit = 20;
	job.cpus_per_task = 64;
	job.mem_per_node_mb = 1000;
	job.partition = "gpu,big";
	job.reason = "Resources";
	_pending(&job, NULL, 0, &res);
	assert_false(res.pend.never_runs);
	assert_null(_blk(&res, WHY_BLK_PART_CPUS));
	why_result_free(&res);
	job.partition = "gpu";
	_pending(&job, NULL, 0, &res);
	assert_true(res.pend.never_runs);
	b = _blk(&res, WHY_BLK_PART_CPUS);
	assert_string_equal(b->job_value, "64");
	assert_string_equal(b->limit_value, "8");
	why_result_free(&res);

	/* 8 a100 on one node; a1 has 4 */
	job = _job(NULL, "gres:gpu:a100:8");
	job.time_limit = 20;
	_pending(&job, NULL, 0, &res);
	b = _blk(&res, WHY_BLK_PART_GPUS);
	assert_non_null(b);
	assert_string_equal(b->job_value, "8");
	assert_string_equal(b->limit_value, "4");
	why_result_free(&res);

	/* a feature no node has */
	job = _job(NULL, "gres:gpu:1");
	job.time_limit = 20;
	job.features = "h100";
	_pending(&job, NULL, 0, &res);
	assert_non_null(_blk(&res, WHY_BLK_PART_FEATURE));
	why_result_free(&res);

	/* a partition that does not exist */
	job = _job(NULL, NULL);
	job.partition = "nope";
	_pending(&job, NULL, 0, &res);
	assert_true(res.pend.never_runs);
	assert_non_null(_blk(&res, WHY_BLK_PART_UNKNOWN));
	why_result_free(&res);
}

/* More blockers than the list holds: the first ones found stay, the rest
 * are counted, and the text says so (the list used to overwrite its last
 * slot with each further one). */
static void test_blockers_overflow(void **state)
{
	why_job_t job = _job(NULL, NULL);
	why_result_t res;
	char parts[512] = "", want[64];
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	for (int i = 1; i <= WHY_MAX_BLOCKERS + 4; i++) {
		size_t l = strlen(parts);

		snprintf(parts + l, sizeof(parts) - l, "%snone%02d", i > 1 ? "," : "", i);
	}
	job.partition = parts;
	job.reason = "PartitionConfig";
	_pending(&job, NULL, 0, &res);
	assert_true(res.pend.never_runs);
	assert_int_equal(res.pend.nblockers, WHY_MAX_BLOCKERS);
	assert_int_equal(res.pend.more_blockers, 4);
	assert_int_equal(why_blockers_count(&res.pend), WHY_MAX_BLOCKERS + 4);
	snprintf(want, sizeof(want), "none%02d", WHY_MAX_BLOCKERS);
	assert_string_equal(res.pend.blockers[WHY_MAX_BLOCKERS - 1].job_value, want);
	assert_string_equal(res.pend.blockers[0].job_value, "none01");
	out = open_memstream(&text, &len);
	assert_non_null(out);
	why_print_text(out, &res);
	fclose(out);
	assert_non_null(strstr(text, "... and 4 more not listed"));
	free(text);
	text = NULL;
	out = open_memstream(&text, &len);
	why_print_json(out, &res);
	fclose(out);
	assert_non_null(strstr(text, "\"more_blockers\": 4"));
	free(text);
	why_result_free(&res);

	/* rewinding below the list's end drops the count too */
	why_blockers_rewind(&res.pend, 3);
	assert_int_equal(res.pend.nblockers, 3);
	assert_int_equal(res.pend.more_blockers, 0);
}

static void test_pending_other_reasons(void **state)
{
	const why_qjob_t q[] = {
		{ .job_id = 3,
		  .phase = WHY_PHASE_PENDING,
		  .state_name = "PENDING",
		  .reason = "Resources",
		  .partition = "gpu",
		  .priority = 200,
		  .start_time = 5000 },
		{ .job_id = 4,
		  .phase = WHY_PHASE_PENDING,
		  .state_name = "PENDING",
		  .reason = "JobHeldUser",
		  .partition = "gpu",
		  .priority = 0 },
		{ .job_id = 5,
		  .phase = WHY_PHASE_PENDING,
		  .state_name = "PENDING",
		  .reason = "Resources",
		  .partition = "big",
		  .priority = 300 },
		{ .job_id = 6,
		  .phase = WHY_PHASE_PENDING,
		  .state_name = "PENDING",
		  .reason = "Priority",
		  .partition = "gpu",
		  .priority = 50 },
	};
	why_job_t job = _job(NULL, NULL);
	why_result_t res;
	const why_blocker_t *b;

	(void)state;
	job.time_limit = 20;
	job.reason = "Priority";
	job.priority = 100;
	job.start_time = 6000;
	_pending(&job, q, 4, &res);
	b = _blk(&res, WHY_BLK_JOBS_AHEAD);
	assert_non_null(b);
	/* 3 only: 4 is held, 5 in another partition, 6 behind */
	assert_int_equal(b->njobs, 1);
	assert_int_equal(b->jobs[0]->job_id, 3);
	assert_string_equal(b->limit_value, "200");
	assert_int_equal(res.pend.expected_start, 6000);
	assert_string_equal(res.pend.expected_source, "backfill");
	why_result_free(&res);

	job.partition = "off";
	job.reason = "PartitionDown";
	_pending(&job, q, 4, &res);
	b = _blk(&res, WHY_BLK_PART_STATE);
	assert_non_null(b);
	assert_string_equal(b->limit_value, "DOWN");
	why_result_free(&res);

	job.partition = "gpu";
	job.reason = "SomethingNew";
	job.reason_desc = "why not";
	_pending(&job, q, 4, &res);
	assert_int_equal(res.pend.nblockers, 1);
	assert_int_equal(res.pend.blockers[0].kind, WHY_BLK_OTHER);
	assert_non_null(strstr(res.pend.blockers[0].detail, "SomethingNew: why not"));
	why_result_free(&res);
}

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_gres_node), cmocka_unit_test(test_gres_job),
		 cmocka_unit_test(test_feature), cmocka_unit_test(test_article),
		 cmocka_unit_test(test_when_faster_state), cmocka_unit_test(test_when_faster_map_plan), cmocka_unit_test(test_per_node_count),
		 cmocka_unit_test(test_per_task), cmocka_unit_test(test_cpus_memory),
		 cmocka_unit_test(test_partition_state_feature), cmocka_unit_test(test_cause_order),
		 cmocka_unit_test(test_grouping), cmocka_unit_test(test_flex_group_limits),
		 cmocka_unit_test(test_flex_applied), cmocka_unit_test(test_flex_malformed_tag_and_mode_off),
		 cmocka_unit_test(test_no_gpus_asked), cmocka_unit_test(test_bad_tres),
		 cmocka_unit_test(test_json), cmocka_unit_test(test_pending_qos_assoc),
		 cmocka_unit_test(test_pending_qos_values), cmocka_unit_test(test_pending_dependency),
		 cmocka_unit_test(test_never_partitions), cmocka_unit_test(test_pending_other_reasons),
		 cmocka_unit_test(test_blockers_overflow))
