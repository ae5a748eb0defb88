/*
 * test_cluster.c: slurm.conf/gres.conf reading (hostlists, NodeName=DEFAULT,
 * GPU types from gres.conf, partitions, scheduler parameters, errors as
 * FILE:LINE), files as a Slurm 24.11 admin writes them (tests/sim/data/
 * slurm2411: newer keys ignored, 24.11's PriorityType default, MultipleFiles=),
 * each release's defaults where a file is silent (PriorityType, memory with
 * select/cons_tres; --slurm-version) and --constraint expressions (OR, AND,
 * matching OR).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <glib.h>

#include "tests/common/test_main.h"
#include "common/hostlist.h"
#include "sim/cluster.h"
#include "tests/sim/sim_test.h"

static void collect(const char *name, void *arg)
{
	GString *s = arg;
	g_string_append_printf(s, "%s%s", s->len ? " " : "", name);
}

static void expect_hosts(const char *list, const char *want, int n)
{
	GString *s = g_string_new(NULL);
	assert_int_equal(hostlist_expand(list, collect, s), n);
	assert_string_equal(s->str, want);
	g_string_free(s, TRUE);
}

static void test_hostlist(void **state)
{
	(void)state;
	expect_hosts("a[01-03,7],b1", "a01 a02 a03 a7 b1", 5);
	expect_hosts("r[1-2]n[09-10]", "r1n09 r1n10 r2n09 r2n10", 4);
	expect_hosts("/dev/nvidia[0-3]", "/dev/nvidia0 /dev/nvidia1 /dev/nvidia2 /dev/nvidia3", 4);
	expect_hosts("x", "x", 1);
	assert_int_equal(hostlist_expand("a[1-", NULL, NULL), -1);
	assert_int_equal(hostlist_expand("a[3-1]", NULL, NULL), -1);
	assert_int_equal(hostlist_expand("a[x]", NULL, NULL), -1);
}

/* The cluster of tests/sim/data/NAME (slurm.conf, gres.conf), read with
 * Slurm release ver's defaults. */
static sim_cluster_t *read_data_cluster(const char *name, sim_slurm_version_t ver)
{
	const char *top = getenv("top_srcdir");
	char *dir = g_build_filename(top ? top : ".", "tests", "sim", "data", name, NULL);
	sim_cluster_t *c = NULL;
	char err[512];
	assert_int_equal(cluster_read(dir, ver, &c, err, sizeof(err)), 0);
	g_free(dir);
	return c;
}

static void test_article_cluster(void **state)
{
	(void)state;
	sim_cluster_t *c = read_data_cluster("article", SIM_SLURM_2205);
	assert_int_equal(c->nnodes, 4);
	assert_int_equal(c->ntypes, 2); /* no untyped left: gres.conf typed l1,l2 */
	assert_int_equal(c->total_gpus, 16);
	int a = cluster_find_type(c, "a100"), l = cluster_find_type(c, "l40s");
	assert_true(a >= 0 && l >= 0);
	assert_string_equal(c->nodes[0].name, "a1");
	assert_int_equal(c->nodes[0].type, a);
	assert_string_equal(c->nodes[3].name, "l2");
	assert_int_equal(c->nodes[3].type, l);
	assert_int_equal(c->nodes[3].cpus, 32);
	assert_int_equal(c->nodes[3].mem_mb, 256000);
	assert_string_equal(c->nodes[2].features_str, "l40s");
	assert_string_equal(c->nodes[2].partitions_str, "gpu");
	assert_int_equal(c->default_part, 0);
	assert_int_equal(c->parts[0].max_time, 2 * 86400);
	assert_int_equal(c->nclasses, 2);
	assert_int_equal(c->params.bf_interval_s, 30);
	assert_int_equal(c->params.bf_max_job_test, 500);   /* Slurm's default */
	assert_int_equal(c->params.sched_interval_s, 60);   /* Slurm's default */
	assert_int_equal(c->params.batch_sched_delay_s, 3); /* Slurm's default */
	cluster_free(c);
}

static void test_slurm2411_files(void **state)
{
	(void)state;
	sim_cluster_t *c = read_data_cluster("slurm2411", SIM_SLURM_2411);
	char err[512];
	assert_int_equal(c->nnodes, 7);
	assert_int_equal(c->ntypes, 2);
	assert_int_equal(c->total_gpus, 4 * 8 + 2 * 4); /* MultipleFiles=: one GPU a line */
	assert_int_equal(c->nodes[4].gpus, 4);
	assert_int_equal(c->nodes[4].type, cluster_find_type(c, "l40s"));
	assert_int_equal(c->nodes[0].cpus, 64);
	assert_string_equal(c->nodes[6].partitions_str, "cpu");
	assert_int_equal(c->parts[0].max_time, 2 * 86400);
	assert_int_equal(c->parts[0].default_time, 3600);
	assert_int_equal(c->params.bf_interval_s, 15);
	assert_int_equal(c->params.bf_max_job_test, 1000);
	/* no PriorityType: 24.11's priority/multifactor, the weights count;
	 * the age weight only with slurmdbd, which this file does not name */
	assert_true(c->params.weight_age == 0);
	assert_true(c->params.weight_job_size == 500);
	assert_true(c->mem_counted); /* no SelectType: 24.11's cons_tres, CR_Core_Memory */
	cluster_free(c);
	/* the same file on 22.05: FIFO (priority/basic), select/linear, no memory */
	c = read_data_cluster("slurm2411", SIM_SLURM_2205);
	assert_true(c->params.weight_job_size == 0);
	assert_false(c->mem_counted);
	cluster_free(c);

	/* priority/basic said outright: FIFO, the weights are not used */
	const char *conf = "PriorityType=priority/basic\nPriorityWeightAge=1000\n"
			   "NodeName=n1 CPUs=4 RestrictedCoresPerGPU=1\n"
			   "PartitionName=p Nodes=n1 PowerDownOnIdle=YES\n";
	assert_int_equal(cluster_read_strings(conf, NULL, "s.conf", SIM_SLURM_2205, &c, err, sizeof(err)), 0);
	assert_true(c->params.weight_age == 0);
	assert_int_equal(c->nnodes, 1);
	cluster_free(c);
}

static void test_conf_details(void **state)
{
	(void)state;
	const char *conf = "# comment\n"
			   "SchedulerParameters=bf_window=60,bf_resolution=30,bf_continue,bf_max_job_test=7,"
			   "bf_max_job_part=4,bf_max_job_user=3,bf_max_job_user_part=2,partition_job_depth=0,"
			   "sched_max_job_start=5,sched_interval=0,batch_sched_delay=0\n"
			   "PriorityType=priority/multifactor\n"
			   "PriorityWeightAge=1000 PriorityMaxAge=1-00:00:00 PriorityWeightJobSize=10\n"
			   "PriorityCalcPeriod=2 AccountingStorageType=accounting_storage/slurmdbd\n"
			   "NodeName=DEFAULT Sockets=2 CoresPerSocket=8 ThreadsPerCore=2 RealMemory=1000\n"
			   "NodeName=g[1-3] Feature=v100,nvlink Gres=gpu:v100:8,mps:100 \\\n"
			   "   State=UNKNOWN\n"
			   "NodeName=d1 Gres=gpu:v100:8 State=DRAIN\n"
			   "NodeName=c1 CPUs=4\n"
			   "PartitionName=DEFAULT MaxTime=60\n"
			   "PartitionName=cpu Nodes=c1 PriorityTier=3\n"
			   "PartitionName=gpu Nodes=ALL Default=YES DefaultTime=30\n";
	sim_cluster_t *c = cluster_from_text(conf, "dir/slurm.conf");
	assert_int_equal(c->nnodes, 5);
	assert_int_equal(c->nodes[0].cpus, 32);
	assert_int_equal(c->nodes[0].gpus, 8);
	assert_true(c->nodes[2].usable);  /* continuation line read */
	assert_false(c->nodes[3].usable); /* DRAIN */
	assert_int_equal(c->nodes[4].cpus, 4);
	assert_int_equal(c->nodes[4].type, -1);
	assert_int_equal(c->total_gpus, 24); /* the drained node does not count */
	assert_int_equal(c->params.bf_window_min, 60);
	assert_int_equal(c->params.bf_resolution_s, 30);
	assert_int_equal(c->params.bf_max_job_test, 7);
	assert_int_equal(c->params.bf_max_job_part, 4);
	assert_int_equal(c->params.bf_max_job_user, 3);
	assert_int_equal(c->params.bf_max_job_user_part, 2);
	assert_int_equal(c->params.partition_job_depth, 0); /* 0: no limit, allowed */
	assert_int_equal(c->params.sched_max_job_start, 5);
	assert_int_equal(c->params.sched_interval_s, 1);    /* 0: every 1 s loop */
	assert_int_equal(c->params.batch_sched_delay_s, 0); /* every tick */
	assert_true(c->params.bf_continue);
	assert_int_equal(c->params.max_age_s, 86400);
	assert_true(c->params.weight_age == 1000); /* with slurmdbd */
	assert_int_equal(c->params.calc_period_s, 120);
	assert_int_equal(c->parts[0].max_time, 3600);
	assert_int_equal(c->parts[1].default_time, 1800);
	assert_int_equal(c->parts[0].tier, 3);
	assert_int_equal(c->parts[1].tier, 1); /* Slurm's default */
	assert_int_equal(c->default_part, 1);
	assert_string_equal(c->nodes[4].partitions_str, "cpu,gpu");
	cluster_free(c);
	/* times with seconds: whole minutes, rounded up, as time_str2mins */
	c = cluster_from_text("PriorityCalcPeriod=0:00:30 PriorityMaxAge=0:10:01\n"
			      "NodeName=n1 CPUs=4\n"
			      "PartitionName=p Nodes=ALL MaxTime=0:01:30 DefaultTime=00:00:01\n",
			      "dir/slurm.conf");
	assert_int_equal(c->params.calc_period_s, 60);
	assert_int_equal(c->params.max_age_s, 660);
	assert_int_equal(c->parts[0].max_time, 120);
	assert_int_equal(c->parts[0].default_time, 60);
	cluster_free(c);
}

/* Where slurm.conf is silent, each release's default (cluster_finish_defaults:
 * read_config.h DEFAULT_PRIORITY_TYPE and DEFAULT_SELECT_TYPE; CR_Core_Memory
 * for cons_tres without SelectTypeParameters in both); what the file says wins. */
static void test_version_defaults(void **state)
{
	(void)state;
	static const struct {
		const char *lines;   /* before the node and partition */
		bool basic22, mem22; /* 22.05: FIFO? memory counted? */
		bool basic24, mem24; /* 24.11 */
	} cases[] = {
		{ "", true, false, false, true }, /* silent: each release's defaults */
		{ "SelectType=select/cons_tres\n", true, true, false, true },
		{ "SelectType=select/linear\n", true, false, false, false },
		{ "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n", true, false, false, false },
		{ "SelectTypeParameters=CR_CPU_Memory\n", true, true, false, true },
		{ "PriorityType=priority/multifactor\n", false, false, false, true },
		{ "PriorityType=priority/basic\nSelectType=select/cons_tres\n"
		  "SelectTypeParameters=CR_Core\n",
		  true, false, true, false },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		for (int v = 0; v < 2; v++) {
			sim_slurm_version_t ver = v ? SIM_SLURM_2411 : SIM_SLURM_2205;
			char *conf = g_strdup_printf("%sPriorityWeightJobSize=10\n"
						     "NodeName=n1 CPUs=4 RealMemory=1000\n"
						     "PartitionName=p Nodes=n1 Default=YES\n",
						     cases[i].lines);
			sim_cluster_t *c = NULL;
			char err[512];
			assert_int_equal(
				cluster_read_strings(conf, NULL, "s.conf", ver, &c, err, sizeof(err)), 0);
			bool basic = v ? cases[i].basic24 : cases[i].basic22;
			bool mem = v ? cases[i].mem24 : cases[i].mem22;
			if ((c->params.weight_job_size == 0) != basic || c->mem_counted != mem)
				fail_msg("case %zu on %s: job-size weight %g, memory %d", i,
					 cluster_version_name(ver), c->params.weight_job_size,
					 c->mem_counted);
			assert_int_equal(c->slurm_version, ver);
			cluster_free(c);
			g_free(conf);
		}
	}
	/* --slurm-version's values */
	sim_slurm_version_t v = SIM_SLURM_2411;
	assert_int_equal(cluster_version_parse("22.05", &v), 0);
	assert_int_equal(v, SIM_SLURM_2205);
	assert_int_equal(cluster_version_parse("24.11.5", &v), 0);
	assert_int_equal(v, SIM_SLURM_2411);
	assert_int_equal(cluster_version_parse("22.05.8", &v), 0);
	assert_int_equal(v, SIM_SLURM_2205);
	const char *bad[] = { "23.11", "22.5", "22.05.", "22.05.x", "24.110", "24", "", "22.05.8.1" };
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
		if (cluster_version_parse(bad[i], &v) == 0)
			fail_msg("'%s' accepted", bad[i]);
	assert_int_equal(cluster_version_parse(NULL, &v), -1);
	assert_string_equal(cluster_version_name(SIM_SLURM_2205), "22.05");
	assert_string_equal(cluster_version_name(SIM_SLURM_2411), "24.11");
}

/* Gres= read as slurmctld reads it (the policy library's node GRES reader). */
static void test_gres_forms(void **state)
{
	(void)state;
	const char *conf = "NodeName=a1 Gres=gpu:a100\n" /* a type, no count: one */
			   "NodeName=a2 Gres=mps:100,gpu:a100:4(S:0-1),nic:1\n"
			   "NodeName=a3 Gres=gpu:1k\n" /* 1024, untyped */
			   "NodeName=c1 Gres=(null)\n"
			   "PartitionName=p Nodes=ALL\n";
	sim_cluster_t *c = cluster_from_text(conf, "s.conf");
	assert_int_equal(c->nodes[0].gpus, 1);
	assert_string_equal(c->types[c->nodes[0].type], "a100");
	assert_int_equal(c->nodes[1].gpus, 4);
	assert_int_equal(c->nodes[1].type, c->nodes[0].type);
	assert_int_equal(c->nodes[2].gpus, 1024);
	assert_int_equal(c->nodes[3].gpus, 0);
	cluster_free(c);
}

typedef struct {
	const char *conf, *gres, *expect;
} bad_t;

static void test_conf_errors(void **state)
{
	(void)state;
	static const bad_t bad[] = {
		{ "NodeName=a1 Gres=gpu:a100:4\n", NULL, "s.conf: no PartitionName lines" },
		{ "NodeName=a[1-\n", NULL, "s.conf:1: NodeName=a[1- is not a valid hostlist" },
		{ "NodeName=a1\nNodeName=a1\n", NULL, "s.conf:2: node a1 defined twice" },
		{ "NodeName=a1 CPUs=many\n", NULL, "s.conf:1: CPUs=many is not a number" },
		{ "NodeName=a1 Gres=gpu:a100:2,gpu:v100:2\n", NULL,
		  "s.conf:1: Gres=gpu:a100:2,gpu:v100:2: more than one GPU type" },
		{ "NodeName=a1 Gres=gpu:a100:x\n", NULL,
		  "s.conf:1: Gres=gpu:a100:x: expected gpu[:TYPE]:COUNT" },
		{ "NodeName=a1 Gres=gpu:a100:\n", NULL,
		  "s.conf:1: Gres=gpu:a100:: expected gpu[:TYPE]:COUNT" },
		{ "NodeName=a1 Gres=gpu:2k\n", NULL, "s.conf:1: Gres=gpu:2k: expected" },
		{ "NodeName=a1\nPartitionName=p Nodes=a2\n", NULL,
		  "s.conf:2: partition p: node a2 is not defined by a NodeName line" },
		{ "NodeName=a1\nPartitionName=p Nodes=a1 MaxTime=forever\n", NULL,
		  "s.conf:2: MaxTime=forever is not a Slurm time" },
		{ "NodeName=a1\nbogus\n", NULL, "s.conf:2: 'bogus' is not Key=Value" },
		{ "SchedulerParameters=batch_sched_delay=-3\nNodeName=a1\n", NULL,
		  "s.conf:1: batch_sched_delay=-3 is not a number" },
		{ "SchedulerParameters=sched_interval=-1\nNodeName=a1\n", NULL,
		  "s.conf:1: SchedulerParameters sched_interval=-1: no main scheduler is not modelled" },
		{ "NodeName=a1 Gres=gpu:4\nPartitionName=p Nodes=a1\n",
		  "NodeName=a1 Name=gpu Type=a100 File=/dev/nvidia[0-1]\n",
		  "gres.conf has 2 GPUs, slurm.conf Gres= has 4" },
		{ "NodeName=a1 Gres=gpu:v100:4\nPartitionName=p Nodes=a1\n",
		  "\nNodeName=a1 Name=gpu Type=a100 Count=4\n",
		  "gres.conf:2: node a1: gres.conf says type a100, slurm.conf says v100" },
		{ "NodeName=a1\nPartitionName=p Nodes=a1\n", "NodeName=zz Name=gpu Count=1\n",
		  "gres.conf:1: node zz is not in slurm.conf" },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		sim_cluster_t *c = (sim_cluster_t *)&bad[i];
		char err[512];
		assert_int_equal(cluster_read_strings(bad[i].conf, bad[i].gres, "s.conf", SIM_SLURM_2205, &c,
						      err, sizeof(err)),
				 -1);
		assert_null(c);
		if (!strstr(err, bad[i].expect))
			fail_msg("case %zu: got '%s', want '%s'", i, err, bad[i].expect);
	}
}

static void test_constraints(void **state)
{
	(void)state;
	const char *conf = "NodeName=a1 Features=a100,nvlink Gres=gpu:a100:4\n"
			   "NodeName=l1 Features=l40s Gres=gpu:l40s:4\n"
			   "NodeName=v1 Features=v100,nvlink Gres=gpu:v100:4\n"
			   "PartitionName=p Nodes=ALL Default=YES\n";
	sim_cluster_t *c = cluster_from_text(conf, "s.conf");
	char err[256];
	uint64_t a = c->nodes[0].features, l = c->nodes[1].features, v = c->nodes[2].features;
	sim_constraint_t k;
	assert_int_equal(constraint_parse(NULL, c, &k, err, sizeof(err)), 0);
	assert_int_equal(constraint_match(&k, l), 0);
	assert_int_equal(constraint_parse("a100|l40s", c, &k, err, sizeof(err)), 0);
	assert_false(k.matching);
	assert_int_equal(constraint_match(&k, a), 0);
	assert_int_equal(constraint_match(&k, l), 0);
	assert_int_equal(constraint_match(&k, v), -1);
	assert_int_equal(constraint_parse("[a100|l40s]", c, &k, err, sizeof(err)), 0);
	assert_true(k.matching);
	assert_int_equal(k.nalt, 2);
	assert_true(constraint_match_alt(&k, a, 0));
	assert_false(constraint_match_alt(&k, a, 1));
	assert_true(constraint_match_alt(&k, l, 1));
	assert_int_equal(constraint_parse("nvlink&(a100|l40s|v100)", c, &k, err, sizeof(err)), 0);
	assert_true(constraint_match(&k, a) >= 0);
	assert_int_equal(constraint_match(&k, l), -1); /* no nvlink */
	assert_true(constraint_match(&k, v) >= 0);
	/* Slurm 22.05: left to right, no precedence: (l40s|a100)&nvlink */
	assert_int_equal(constraint_parse("l40s|a100&nvlink", c, &k, err, sizeof(err)), 0);
	assert_int_equal(constraint_match(&k, l), -1);
	assert_int_equal(constraint_match(&k, a), 0);
	/* Slurm refuses a constraint naming a feature no node has, even in an OR */
	assert_int_equal(constraint_parse("a100|h100", c, &k, err, sizeof(err)), 0);
	assert_true(k.never);
	assert_int_equal(constraint_parse("h100", c, &k, err, sizeof(err)), 0);
	assert_true(k.never);
	assert_int_equal(constraint_match(&k, a), -1);
	assert_int_equal(constraint_parse("a100|", c, &k, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "expected a feature name"));
	assert_int_equal(constraint_parse("(a100", c, &k, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "missing ')'"));
	cluster_free(c);
}

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_hostlist), cmocka_unit_test(test_article_cluster),
		 cmocka_unit_test(test_slurm2411_files), cmocka_unit_test(test_conf_details),
		 cmocka_unit_test(test_version_defaults), cmocka_unit_test(test_gres_forms),
		 cmocka_unit_test(test_conf_errors), cmocka_unit_test(test_constraints))
