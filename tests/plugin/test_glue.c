/*
 * test_glue.c: cmocka tests of the job_submit/nodeox glue (plugin/
 * job_submit_nodeox.c) outside slurmctld. The plugin source is compiled in
 * and linked against Slurm's real libslurmfull (xmalloc, lists, logging), so
 * fields are allocated and freed by Slurm's allocator exactly as inside
 * slurmctld. Only the four symbols that live in the slurmctld binary are
 * defined here, and the node table is a small hand-made one:
 *   a1: features a100,ib   partition gpu
 *   l1: features l40s      partitions gpu, old
 *   v1: features v100      partition old (not reachable from gpu)
 * Checked: init never fails, conf missing/broken/edited live, write-back of a
 * rewrite, dryrun, KEEP and REJECT messages, het/array/update paths, the
 * update guard, and that untagged jobs are left byte for byte alone. GPU
 * entries are spelled as this Slurm's sbatch writes them (NODEOX_TRES_GPU,
 * plugin/slurm_compat.h): gres:gpu:... on 22.05, gres/gpu:... on 24.11.
 */
#include "plugin/job_submit_nodeox.c"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

/* Symbols slurmctld itself provides. */
char *default_part_name = "gpu";
void *acct_db_conn = NULL;
uint16_t accounting_enforce = 0;
bool validate_operator(uid_t uid)
{
	return uid == 0;
}

static char conf_path[256];
static node_record_t glue_nodes[3];
static node_record_t *glue_table[3];
static part_record_t glue_parts[2];
static void *glue_pptr[3][2];

static void glue_write_conf(const char *text)
{
	FILE *f = fopen(conf_path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	/* a rewrite within one clock tick must still be seen: move mtime on */
	{
		static int bump;
		struct stat st;
		struct timespec ts[2];

		assert_int_equal(stat(conf_path, &st), 0);
		ts[0] = st.st_atim;
		ts[1] = st.st_mtim;
		ts[1].tv_sec += ++bump;
		assert_int_equal(utimensat(AT_FDCWD, conf_path, ts, 0), 0);
	}
}

static const char *glue_conf =
	"GpuType=a100 Memory=80G Speed=1.0\n"
	"GpuType=l40s Memory=48G Speed=0.5\n"
	"GpuType=v100 Memory=32G Speed=0.25\n"
	"Group=all Types=a100,l40s,v100\n";

static int glue_setup(void **state)
{
	static const char *names[3] = { "a1", "l1", "v1" };
	static const char *feats[3] = { "a100,ib", "l40s", "v100" };
	int i;

	(void)state;
	snprintf(conf_path, sizeof(conf_path), "test_glue-%d.conf", (int)getpid());
	setenv("NODEOX_CONF", conf_path, 1);
	glue_parts[0].name = "gpu";
	glue_parts[1].name = "old";
	for (i = 0; i < 3; i++) {
		glue_nodes[i].name = (char *)names[i];
		glue_nodes[i].features = (char *)feats[i];
		glue_nodes[i].features_act = (char *)feats[i];
		glue_nodes[i].node_state = NODE_STATE_IDLE;
		glue_pptr[i][0] = &glue_parts[i == 2 ? 1 : 0];
		glue_pptr[i][1] = &glue_parts[1];
		glue_nodes[i].part_pptr = glue_pptr[i];
		glue_nodes[i].part_cnt = i == 1 ? 2 : 1;
		glue_table[i] = &glue_nodes[i];
	}
	node_record_table_ptr = glue_table;
	node_record_count = 3;
	return 0;
}

static int glue_teardown(void **state)
{
	(void)state;
	fini();
	unlink(conf_path);
	node_record_table_ptr = NULL;
	node_record_count = 0;
	return 0;
}

/* A job as sbatch sends it; every string from Slurm's allocator. */
static job_desc_msg_t *glue_job(const char *comment, const char *tres_per_node)
{
	job_desc_msg_t *j = xmalloc(sizeof(*j));

	slurm_init_job_desc_msg(j);
	j->comment = xstrdup(comment);
	j->tres_per_node = xstrdup(tres_per_node);
	j->time_limit = 60;
	j->user_id = 1000;
	j->het_job_offset = NO_VAL;
	return j;
}

static void glue_free(job_desc_msg_t *j)
{
	xfree(j->comment);
	xfree(j->tres_per_node);
	xfree(j->tres_per_job);
	xfree(j->features);
	xfree(j->prefer);
	xfree(j->admin_comment);
	xfree(j);
}

static void test_missing_conf_passes(void **state)
{
	job_desc_msg_t *j = glue_job("nodeox:flex", NODEOX_TRES_GPU ":a100:4");
	char *err = NULL;

	(void)state;
	unlink(conf_path);
	assert_int_equal(init(), SLURM_SUCCESS);
	assert_int_equal(job_submit(j, 1000, &err), SLURM_SUCCESS);
	assert_null(err);
	assert_string_equal(j->tres_per_node, NODEOX_TRES_GPU ":a100:4");
	assert_null(j->features);
	assert_null(j->admin_comment);
	glue_free(j);
}

static void test_rewrite_and_live_edit(void **state)
{
	job_desc_msg_t *j = glue_job("run 3 nodeox:flex",
				     NODEOX_TRES_GRES "nvme:1," NODEOX_TRES_GPU ":a100:4");
	char *err = NULL;

	(void)state;
	glue_write_conf(glue_conf); /* appears while "slurmctld" runs */
	assert_int_equal(job_submit(j, 1000, &err), SLURM_SUCCESS);
	assert_string_equal(j->tres_per_node, NODEOX_TRES_GRES "nvme:1," NODEOX_TRES_GPU ":4");
	assert_string_equal(j->features, "a100|l40s"); /* v100 only in partition old */
	assert_int_equal(j->time_limit, 120);
	assert_non_null(strstr(j->admin_comment, NODEOX_TRES_GPU ":a100:4->"));
	assert_string_equal(err, "nodeox: GPU type a100 broadened to a100|l40s, "
			    "time limit 60 -> 120 min");
	xfree(err);
	glue_free(j);

	glue_write_conf("Mode=dryrun\n");
	glue_write_conf(glue_conf);
	glue_write_conf("Mode=dryrun\nGpuType=a100\nGpuType=l40s\nGroup=g Types=a100,l40s\n");
	j = glue_job("nodeox:flex", NODEOX_TRES_GPU ":a100:4");
	assert_int_equal(job_submit(j, 1000, &err), SLURM_SUCCESS);
	assert_string_equal(j->tres_per_node, NODEOX_TRES_GPU ":a100:4");
	assert_null(j->features);
	assert_null(j->admin_comment);
	assert_int_equal(j->time_limit, 60);
	assert_non_null(strstr(err, "nodeox: dryrun, not applied: "));
	xfree(err);
	glue_free(j);

	glue_write_conf("Mode=bogus\n"); /* broken: jobs pass */
	j = glue_job("nodeox:flex", NODEOX_TRES_GPU ":a100:4");
	assert_int_equal(job_submit(j, 1000, &err), SLURM_SUCCESS);
	assert_null(err);
	assert_string_equal(j->tres_per_node, NODEOX_TRES_GPU ":a100:4");
	glue_free(j);
}

static void test_untagged_untouched(void **state)
{
	job_desc_msg_t *j = glue_job("just a comment", NODEOX_TRES_GPU ":a100:4");
	char *err = NULL, *before = j->tres_per_node;

	(void)state;
	glue_write_conf(glue_conf);
	assert_int_equal(job_submit(j, 1000, &err), SLURM_SUCCESS);
	assert_null(err);
	assert_ptr_equal(j->tres_per_node, before); /* not even reallocated */
	assert_null(j->features);
	assert_int_equal(j->time_limit, 60);
	glue_free(j);
}

static void test_keep_and_reject(void **state)
{
	job_desc_msg_t *j = glue_job("nodeox:flex:mem=9T", NODEOX_TRES_GPU ":a100:4");
	char *err = NULL;

	(void)state;
	glue_write_conf(glue_conf);
	assert_int_equal(job_submit(j, 1000, &err), SLURM_SUCCESS);
	assert_non_null(strstr(err, "nodeox: not broadened: no type eligible beyond a100"));
	assert_string_equal(j->tres_per_node, NODEOX_TRES_GPU ":a100:4");
	xfree(err);
	glue_free(j);
	j = glue_job("nodeox:flex:%n%s", NODEOX_TRES_GPU ":a100:4");
	assert_int_equal(job_submit(j, 1000, &err), SLURM_ERROR);
	assert_non_null(strstr(err, "nodeox: unknown option '%n%s'"));
	xfree(err);
	glue_free(j);
}

/* Heterogeneous components share err_msg: one line each. */
static void test_het_components(void **state)
{
	job_desc_msg_t *a = glue_job("nodeox:flex", NODEOX_TRES_GPU ":a100:1");
	job_desc_msg_t *b = glue_job("nodeox:flex", NULL);
	char *err = NULL;

	(void)state;
	glue_write_conf(glue_conf);
	a->het_job_offset = 0;
	b->het_job_offset = 1;
	b->tres_per_job = xstrdup(NODEOX_TRES_GPU ":l40s:2");
	assert_int_equal(job_submit(a, 1000, &err), SLURM_SUCCESS);
	assert_int_equal(job_submit(b, 1000, &err), SLURM_SUCCESS);
	assert_string_equal(a->tres_per_node, NODEOX_TRES_GPU ":1");
	assert_string_equal(b->tres_per_job, NODEOX_TRES_GPU ":2");
	assert_string_equal(b->features, "l40s|a100");
	assert_non_null(strstr(err, "a100 broadened"));
	assert_non_null(strstr(err, "\nnodeox: GPU type l40s broadened"));
	xfree(err);
	glue_free(a);
	glue_free(b);
}

/* The default partition applies when the job names none; Partitions= scopes. */
static void test_partition_scope(void **state)
{
	job_desc_msg_t *j = glue_job("nodeox:flex", NODEOX_TRES_GPU ":a100:1");
	char text[512], *err = NULL;

	(void)state;
	snprintf(text, sizeof(text), "%sPartitions=old\n", glue_conf);
	glue_write_conf(text);
	assert_int_equal(job_submit(j, 1000, &err), SLURM_SUCCESS);
	assert_non_null(strstr(err, "partition gpu is not in Partitions="));
	xfree(err);
	glue_free(j);
	j = glue_job("nodeox:flex", NODEOX_TRES_GPU ":l40s:1");
	j->partition = xstrdup("old");
	assert_int_equal(job_submit(j, 1000, &err), SLURM_SUCCESS);
	assert_string_equal(j->features, "l40s|v100"); /* a100 not in partition old */
	xfree(err);
	xfree(j->partition);
	glue_free(j);
}

static void test_update_guard(void **state)
{
	job_desc_msg_t *u = xmalloc(sizeof(*u));
	char buf[128];

	(void)state;
	slurm_init_job_desc_msg(u);
	u->comment = xstrdup("nodeox:flex");
	assert_null(_update_blocker(u, buf, sizeof(buf)));
	u->features = xstrdup("ib&(a100|l40s)*1");
	assert_null(_update_blocker(u, buf, sizeof(buf)));
	xfree(u->features);
	u->features = xstrdup("ib&nosuch");
	assert_string_equal(_update_blocker(u, buf, sizeof(buf)), "no node has feature nosuch");
	xfree(u->features);
	u->nice = 10;
	assert_non_null(strstr(_update_blocker(u, buf, sizeof(buf)), "other fields"));
	xfree(u->comment);
	xfree(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_conf_passes),
		cmocka_unit_test(test_rewrite_and_live_edit),
		cmocka_unit_test(test_untagged_untouched),
		cmocka_unit_test(test_keep_and_reject),
		cmocka_unit_test(test_het_components),
		cmocka_unit_test(test_partition_scope),
		cmocka_unit_test(test_update_guard),
	};

	return cmocka_run_group_tests(tests, glue_setup, glue_teardown);
}
