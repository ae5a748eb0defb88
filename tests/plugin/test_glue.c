/*
 * test_glue.c: cmocka tests of the job_submit/nodeox glue (plugin/
 * job_submit_nodeox.c) outside slurmctld. The plugin source is compiled in
 * and linked against Slurm's real libslurmfull (xmalloc, lists, logging), so
 * fields are allocated and freed by Slurm's allocator exactly as inside
 * slurmctld. Only the symbols that live in the slurmctld binary are
 * defined here (and job_list), and the node table is a small hand-made one:
 *   a1: features a100,ib   partition gpu
 *   l1: features l40s      partitions gpu, old
 *   v1: features v100      partition old (not reachable from gpu)
 * Checked: init never fails, conf missing/broken/edited live, a FIFO, a
 * directory, /dev/zero or a big file at the conf path answered at once,
 * write-back of a rewrite, dryrun, KEEP and REJECT messages, het/array
 * paths, the time limit cap from partition MaxTime, log escaping, and that
 * job_modify never writes to the stored job and untagged jobs are left byte
 * for byte alone; from Slurm 25.05, that an EXTERNAL node is no capacity. GPU entries are spelled as this Slurm's sbatch writes them
 * (NODEOX_TRES_GPU, plugin/slurm_compat.h): gres:gpu:... on 22.05,
 * gres/gpu:... on 24.11.
 */
#include "tests/common/test_main.h"
#include "plugin/job_submit_nodeox.c"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

/* Symbols slurmctld itself provides; the tests fill job_list. */
#include "tests/plugin/slurmctld_stubs.h"

static char conf_path[256];
static node_record_t glue_nodes[3];
static node_record_t *glue_table[3];
static part_record_t glue_parts[2];
static void *glue_pptr[3][2];

static void glue_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	/* a rewrite within one clock tick must still be seen: move mtime on */
	{
		static int bump;
		struct stat st;
		struct timespec ts[2];

		assert_int_equal(stat(path, &st), 0);
		ts[0] = st.st_atim;
		ts[1] = st.st_mtim;
		ts[1].tv_sec += ++bump;
		assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
	}
}

static void glue_write_conf(const char *text)
{
	glue_write_file(conf_path, text);
}

static const char *glue_conf = "GpuType=a100 Memory=80G Speed=1.0\n"
			       "GpuType=l40s Memory=48G Speed=0.5\n"
			       "GpuType=v100 Memory=32G Speed=0.25\n"
			       "Group=all Types=a100,l40s,v100\n";

static int glue_part_lookups; /* find_part_record calls (the time cap's) */

part_record_t *find_part_record(char *name)
{
	int i;

	glue_part_lookups++;
	for (i = 0; i < 2; i++)
		if (!strcmp(glue_parts[i].name, name))
			return &glue_parts[i];
	return NULL;
}

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
	glue_parts[0].max_time = INFINITE;
	glue_parts[1].max_time = INFINITE;
	default_part_loc = &glue_parts[0];
	nx.look_interval_ms = 0; /* tests rewrite the conf between calls */
	nxs.age_factor = 0;      /* the state cache: walk again at every change */
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
	job_desc_msg_t *j =
		glue_job("run 3 nodeox:flex", NODEOX_TRES_GRES "nvme:1," NODEOX_TRES_GPU ":a100:4");
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

/* One submission of an a100:4 job tagged tag for 60 min: its new limit. */
static uint32_t glue_speed_limit(const char *tag, char **err)
{
	job_desc_msg_t *j = glue_job(tag, NODEOX_TRES_GPU ":a100:4");
	uint32_t lim;

	/* an account of its own: without one the plugin asks assoc_mgr for the
	 * user's default account, which needs slurmctld's accounting storage
	 * (in this program, 24.11's assoc_mgr_fill_in_user calls a NULL plugin
	 * function: a segfault; 22.05's returns an error) */
	j->account = "research";
	assert_int_equal(job_submit(j, 1000, err), SLURM_SUCCESS);
	lim = j->time_limit;
	glue_free(j);
	return lim;
}

/* SpeedTable=: loaded with the conf and when its file changes; a bad file
 * keeps the last good table, none Speed=; a job without an entry is as
 * without a table. */
static void test_speed_table(void **state)
{
	char tpath[300], text[1024], *err = NULL;

	(void)state;
	snprintf(tpath, sizeof(tpath), "test_glue-%d.speeds", (int)getpid());
	glue_write_file(tpath, "nodeox-speeds v=1 made=2026-12-04T10:00:00Z from=test\n"
			       "workload bert-ft a100 l40s 0.25 37 0.05\n");
	snprintf(text, sizeof(text), "%sSpeedTable=%s\n", glue_conf, tpath);
	glue_write_conf(text);
	assert_int_equal(glue_speed_limit("nodeox:flex:workload=bert-ft", &err), 240);
	assert_string_equal(err, "nodeox: GPU type a100 broadened to a100|l40s, time limit 60 -> 240 min "
				 "(l40s at 0.25 for workload bert-ft, from 37 jobs)");
	xfree(err);
	assert_int_equal(glue_speed_limit("nodeox:flex:workload=other", &err), 120);
	assert_string_equal(err, "nodeox: GPU type a100 broadened to a100|l40s, time limit 60 -> 120 min");
	xfree(err);
	/* a changed table is read again; a bad one keeps the last good */
	glue_write_file(tpath, "nodeox-speeds v=1 made=x from=y\nworkload bert-ft a100 l40s 0.5 3 0\n");
	assert_int_equal(glue_speed_limit("nodeox:flex:workload=bert-ft", &err), 120);
	xfree(err);
	glue_write_file(tpath, "nodeox-speeds v=1 made=x from=y\nworkload bert-ft a100 l40s -1 3 0\n");
	assert_int_equal(glue_speed_limit("nodeox:flex:workload=bert-ft", &err), 120);
	xfree(err);
	/* a conf naming no table drops it; from the start a bad one: Speed= */
	glue_write_file(tpath, "nodeox-speeds v=1 made=x from=y\nworkload bert-ft a100 l40s 0.2 3 0\n");
	assert_int_equal(glue_speed_limit("nodeox:flex:workload=bert-ft", &err), 300);
	xfree(err);
	glue_write_conf(glue_conf);
	assert_int_equal(glue_speed_limit("nodeox:flex:workload=bert-ft", &err), 120);
	xfree(err);
	glue_write_file(tpath, "bad\n");
	glue_write_conf(text);
	fini();
	assert_int_equal(init(), SLURM_SUCCESS);
	assert_int_equal(glue_speed_limit("nodeox:flex:workload=bert-ft", &err), 120);
	xfree(err);
	unlink(tpath);
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

/* Partition MaxTime caps the scaled limit; the reason says so. */
static void test_time_cap(void **state)
{
	job_desc_msg_t *j = glue_job("nodeox:flex", NODEOX_TRES_GPU ":a100:1");
	char *err = NULL;

	(void)state;
	glue_write_conf(glue_conf);
	glue_parts[0].max_time = 90; /* default partition gpu */
	assert_int_equal(job_submit(j, 1000, &err), SLURM_SUCCESS);
	assert_int_equal(j->time_limit, 90); /* 60 x 2 = 120, capped */
	assert_non_null(strstr(err, "capped by MaxTime of partition gpu"));
	xfree(err);
	glue_free(j);
	j = glue_job("nodeox:flex", NODEOX_TRES_GPU ":a100:1");
	j->time_limit = 90; /* already at the cap: left as asked */
	assert_int_equal(job_submit(j, 1000, &err), SLURM_SUCCESS);
	assert_int_equal(j->time_limit, 90);
	assert_non_null(strstr(err, "time limit not scaled"));
	xfree(err);
	glue_free(j);
	j = glue_job("nodeox:flex", NODEOX_TRES_GPU ":l40s:1");
	j->partition = xstrdup("gpu,old"); /* the smaller MaxTime of the two */
	glue_parts[1].max_time = 70;
	assert_int_equal(job_submit(j, 1000, &err), SLURM_SUCCESS);
	assert_int_equal(j->time_limit, 70);
	assert_non_null(strstr(err, "MaxTime of partition old"));
	xfree(err);
	xfree(j->partition);
	glue_free(j);
	glue_parts[0].max_time = glue_parts[1].max_time = INFINITE;
}

/* Nothing at the conf path may block: each answers at once, jobs pass. */
static void test_conf_not_regular(void **state)
{
	const char *what[] = { "fifo", "dir", "devzero", "big" };
	int i;

	(void)state;
	for (i = 0; i < 4; i++) {
		job_desc_msg_t *j = glue_job("nodeox:flex", NODEOX_TRES_GPU ":a100:1");
		char *err = NULL;

		unlink(conf_path);
		rmdir(conf_path);
		switch (i) {
		case 0: assert_int_equal(mkfifo(conf_path, 0644), 0); break;
		case 1: assert_int_equal(mkdir(conf_path, 0755), 0); break;
		case 2: assert_int_equal(symlink("/dev/zero", conf_path), 0); break;
		case 3: {
			FILE *f = fopen(conf_path, "w");

			assert_non_null(f);
			fputs(glue_conf, f);
			assert_int_equal(fseek(f, 10 << 20, SEEK_SET), 0);
			fputs("\n", f);
			fclose(f);
			break;
		}
		}
		print_message("conf path is a %s\n", what[i]);
		assert_int_equal(job_submit(j, 1000, &err), SLURM_SUCCESS); /* no hang */
		assert_null(err);
		assert_string_equal(j->tres_per_node, NODEOX_TRES_GPU ":a100:1");
		assert_null(nx.conf);
		glue_free(j);
	}
	unlink(conf_path);
	rmdir(conf_path);
	/* with the default interval, a good file is seen on the next look only */
	nx.look_interval_ms = 60000;
	glue_write_conf(glue_conf);
	{
		job_desc_msg_t *j = glue_job("nodeox:flex", NODEOX_TRES_GPU ":a100:1");
		char *err = NULL;

		assert_int_equal(job_submit(j, 1000, &err), SLURM_SUCCESS);
		assert_null(nx.conf); /* not looked at again within the interval */
		glue_free(j);
	}
	nx.look_interval_ms = 0;
}

static void test_log_safe(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(_log_safe("a100|l40s", buf, sizeof(buf)), "a100|l40s");
	assert_string_equal(_log_safe("x\nforged: y\\", buf, sizeof(buf)), "x\\x0aforged: y\\x5c");
	assert_string_equal(_log_safe("\x1b[31m", buf, 9), "\\x1b[...");
	memset(buf, 'z', sizeof(buf));
	_log_safe("0123456789012345678901234567890123456789012345678901234567890123456789", buf, sizeof(buf));
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
}

/* job_modify fills in the update request only; the stored job is never written. */
static void test_modify_leaves_job_record(void **state)
{
	job_record_t job;
	nodeox_job_details_t det;
	job_desc_msg_t *u = xmalloc(sizeof(*u));
	gres_job_state_t *js = xmalloc(sizeof(*js));
	gres_state_t *gs = xmalloc(sizeof(*gs));
	char *err = NULL;

	(void)state;
	glue_write_conf(glue_conf);
	memset(&job, 0, sizeof(job));
	memset(&det, 0, sizeof(det));
	job.job_id = 42;
	job.user_id = 1000;
	job.job_state = JOB_PENDING;
	job.details = &det;
	job.time_limit = 60;
	job.partition = "gpu";
	job.tres_per_node = NODEOX_TRES_GPU ":a100:2";
	js->type_name = xstrdup("a100");
	gs->gres_name = "gpu";
	gs->gres_data = js;
	job.gres_list_req = list_create(NULL);
	list_append(job.gres_list_req, gs);
	slurm_init_job_desc_msg(u);
	u->comment = xstrdup("nodeox:flex");
	/* tagging a typed job by update: refused, and the record untouched */
	assert_int_equal(_modify(u, &job, 1001, &err), ESLURM_NOT_SUPPORTED);
	assert_string_equal(js->type_name, "a100");
	assert_null(u->tres_per_node);
	assert_null(u->features);
	assert_null(u->admin_comment);
	assert_non_null(strstr(err, "cannot be broadened by an update"));
	xfree(err);
	/* a GPU count update of a typed (kept) job: passes as asked */
	xfree(u->comment);
	job.comment = "nodeox:flex";
	u->tres_per_node = xstrdup(NODEOX_TRES_GPU ":a100:3");
	assert_int_equal(_modify(u, &job, 1000, &err), SLURM_SUCCESS);
	assert_string_equal(u->tres_per_node, NODEOX_TRES_GPU ":a100:3");
	assert_string_equal(js->type_name, "a100");
	xfree(err);
	/* an untyped stored request: rewritten in the request, no admin comment for
	 * a caller who is no admin (slurmctld would refuse the whole update) */
	xfree(js->type_name);
	job.tres_per_node = NODEOX_TRES_GPU ":2";
	assert_int_equal(_modify(u, &job, 1000, &err), SLURM_SUCCESS);
	assert_string_equal(u->tres_per_node, NODEOX_TRES_GPU ":3");
	assert_string_equal(u->features, "a100|l40s");
	assert_null(u->admin_comment);
	assert_int_equal(u->time_limit, NO_VAL); /* a user cannot raise it */
	xfree(err);
	/* root may: its admin comment keeps the admin's text in front */
	job.admin_comment = "admin note";
	xfree(u->features);
	xfree(u->tres_per_node);
	u->tres_per_node = xstrdup(NODEOX_TRES_GPU ":a100:3");
	assert_int_equal(_modify(u, &job, 0, &err), SLURM_SUCCESS);
	assert_non_null(u->admin_comment);
	assert_int_equal(strncmp(u->admin_comment, "admin note; nodeox", 18), 0);
	xfree(err);
	xfree(u->tres_per_node);
	xfree(u->features);
	xfree(u->admin_comment);
	xfree(u);
	list_destroy(job.gres_list_req);
	xfree(js);
	xfree(gs);
}

/* A constraint-only update that drops nodeox's type term gives the time limit
 * back; one that keeps it (or a limit changed since) leaves it. */
static void test_constraint_update_restores_limit(void **state)
{
	job_desc_msg_t *j = glue_job("nodeox:flex", NODEOX_TRES_GPU ":a100:1");
	job_desc_msg_t *u = xmalloc(sizeof(*u));
	job_record_t job;
	char *err = NULL;

	(void)state;
	glue_write_conf(glue_conf);
	j->features = xstrdup("ib");
	assert_int_equal(job_submit(j, 1000, &err), SLURM_SUCCESS);
	assert_int_equal(j->time_limit, 120);
	xfree(err);
	memset(&job, 0, sizeof(job));
	job.job_id = 7;
	job.job_state = JOB_PENDING;
	job.time_limit = j->time_limit;
	job.admin_comment = j->admin_comment; /* the record, as the job stores it */
	slurm_init_job_desc_msg(u);
	u->features = xstrdup("ib&(a100|l40s)&big"); /* keeps the type term */
	assert_int_equal(_modify(u, &job, 1000, NULL), SLURM_SUCCESS);
	assert_int_equal(u->time_limit, NO_VAL);
	xfree(u->features);
	u->features = xstrdup("a100"); /* replaces it */
	assert_int_equal(_modify(u, &job, 1000, &err), SLURM_SUCCESS);
	assert_int_equal(u->time_limit, 60);
	assert_non_null(strstr(err, "time limit 120 -> 60 min, as asked"));
	xfree(err);
	u->time_limit = NO_VAL;
	job.time_limit = 90; /* changed since nodeox scaled it: not nodeox's any more */
	assert_int_equal(_modify(u, &job, 1000, &err), SLURM_SUCCESS);
	assert_int_equal(u->time_limit, NO_VAL);
	assert_null(err);
	xfree(u->features);
	xfree(u);
	glue_free(j);
}

/* A node count in the user's constraint: kept, never AND-ed. */
static void test_count_constraint_kept(void **state)
{
	job_desc_msg_t *j = glue_job("nodeox:flex", NODEOX_TRES_GPU ":a100:1");
	char *err = NULL;

	(void)state;
	glue_write_conf(glue_conf);
	j->features = xstrdup("ib*1");
	assert_int_equal(job_submit(j, 1000, &err), SLURM_SUCCESS);
	assert_string_equal(j->features, "ib*1");
	assert_string_equal(j->tres_per_node, NODEOX_TRES_GPU ":a100:1");
	assert_non_null(strstr(err, "counts nodes"));
	xfree(err);
	glue_free(j);
}

/*
 * Allocation failures: the test is linked with -Wl,--wrap for Slurm's
 * allocator entry points, so every xmalloc/xcalloc/xrealloc (try_ or not)
 * written in the plugin's source, and only those, passes through here. With
 * glue_fail_at N, the Nth of them fails: a try_ form gets NULL, as from
 * Slurm when memory runs out; any other form aborts, as Slurm's does then
 * (slurmctld would die).
 */
static int glue_fail_at, glue_allocs;
static const char *glue_failed_in; /* the function whose allocation failed */
static size_t glue_failed_size;    /* and its size */

void *__real_slurm_xcalloc(size_t, size_t, bool, bool, const char *, int, const char *);
void *__real_slurm_xrecalloc(void **, size_t, size_t, bool, bool, const char *, int, const char *);

static bool glue_alloc_fails(bool try_, const char *file, int line)
{
	if (!glue_fail_at || ++glue_allocs != glue_fail_at)
		return false;
	if (!try_) {
		fprintf(stderr, "test_glue: the allocation at %s:%d would abort slurmctld\n", file, line);
		abort();
	}
	return true;
}

void *__wrap_slurm_xcalloc(size_t cnt, size_t sz, bool clear, bool try_, const char *file, int line,
			   const char *func)
{
	if (glue_alloc_fails(try_, file, line)) {
		glue_failed_in = func;
		glue_failed_size = cnt * sz;
		return NULL;
	}
	return __real_slurm_xcalloc(cnt, sz, clear, try_, file, line, func);
}

void *__wrap_slurm_xrecalloc(void **p, size_t cnt, size_t sz, bool clear, bool try_, const char *file,
			     int line, const char *func)
{
	if (glue_alloc_fails(try_, file, line)) {
		glue_failed_in = func;
		glue_failed_size = cnt * sz;
		return NULL;
	}
	return __real_slurm_xrecalloc(p, cnt, sz, clear, try_, file, line, func);
}

/* GPUs on the test's nodes (4 each of the node's type, `alloc` in use), as
 * slurmctld's gres state holds them; glue_gres_drop takes them away. */
static gres_node_state_t glue_ns[3];
static gres_state_t glue_gs[3];
static char *glue_type_names[3][1] = { { "a100" }, { "l40s" }, { "v100" } };

static void glue_gres(int i, uint64_t avail, uint64_t alloc)
{
	glue_ns[i].gres_cnt_avail = avail;
	glue_ns[i].gres_cnt_alloc = alloc;
	glue_ns[i].type_cnt = 1;
	glue_ns[i].type_name = glue_type_names[i];
	glue_gs[i].gres_name = "gpu";
	glue_gs[i].gres_data = &glue_ns[i];
	if (!glue_nodes[i].gres_list) {
		glue_nodes[i].gres_list = list_create(NULL);
		list_append(glue_nodes[i].gres_list, &glue_gs[i]);
	}
}

static void glue_gres_drop(void)
{
	int i;

	for (i = 0; i < 3; i++)
		FREE_NULL_LIST(glue_nodes[i].gres_list);
}

/* A job record for job_list: running on node `node` (of nbits) with `gpus`
 * GPUs until `end`, or pending (node < 0) with tres_per_node `tres`. */
typedef struct {
	job_record_t job;
	nodeox_job_details_t det;
	gres_state_t gs;
	gres_job_state_t js;
	uint64_t node_alloc[1];
	job_array_struct_t array;
} glue_rec_t;

static void glue_running(glue_rec_t *r, uint32_t id, int node, int nbits, uint64_t gpus, time_t end)
{
	memset(r, 0, sizeof(*r));
	r->job.job_id = id;
	r->job.job_state = JOB_RUNNING;
	r->job.partition = "gpu";
	r->job.details = &r->det;
	r->job.end_time = end;
	r->job.node_bitmap = bit_alloc(nbits);
	bit_set(r->job.node_bitmap, node);
	r->node_alloc[0] = gpus;
	r->js.node_cnt = 1;
	r->js.gres_cnt_node_alloc = r->node_alloc;
	r->gs.gres_name = "gpu";
	r->gs.gres_data = &r->js;
	r->job.gres_list_alloc = list_create(NULL);
	list_append(r->job.gres_list_alloc, &r->gs);
	list_append(job_list, &r->job);
}

static void glue_pending(glue_rec_t *r, uint32_t id, uint32_t prio, const char *part, const char *tres,
			 uint32_t array_tasks)
{
	memset(r, 0, sizeof(*r));
	r->job.job_id = id;
	r->job.job_state = JOB_PENDING;
	r->job.priority = prio;
	r->job.partition = (char *)part;
	r->job.details = &r->det;
	r->det.min_nodes = 1;
	r->job.tres_per_node = (char *)tres;
	if (array_tasks) { /* the meta record of a pending array */
		r->array.task_cnt = array_tasks;
		r->job.array_recs = &r->array;
		r->job.array_task_id = NO_VAL;
	}
	list_append(job_list, &r->job);
}

static void glue_recs_free(glue_rec_t *r, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		FREE_NULL_BITMAP(r[i].job.node_bitmap);
		FREE_NULL_LIST(r[i].job.gres_list_alloc);
	}
	FREE_NULL_LIST(job_list);
}

/* What slurmctld does at every change of a job or node record: the state
 * cache's stamps move on. */
static void glue_changed(void)
{
	last_job_update = last_node_update = time(NULL);
}

/* Submit a tagged a100:4 job after the test changed job_list (its records
 * and glue_changed: a fresh walk): the plugin's message must hold want,
 * and the GPU request read tres afterwards. */
static void glue_submit_want(const char *want, const char *tres)
{
	job_desc_msg_t *j = glue_job("nodeox:flex", NODEOX_TRES_GPU ":a100:4");
	char *err = NULL;

	glue_changed();

	assert_int_equal(job_submit(j, 1000, &err), SLURM_SUCCESS);
	if (!err || !strstr(err, want))
		fail_msg("want \"%s\" in \"%s\"", want, err ? err : "(no message)");
	assert_string_equal(j->tres_per_node, tres);
	xfree(err);
	glue_free(j);
}

/* Broaden=when-faster, every GPU of the three nodes in use, job_list empty. */
static void glue_faster_busy(void)
{
	char text[512];

	snprintf(text, sizeof(text), "%sBroaden=when-faster\n", glue_conf);
	glue_write_conf(text);
	glue_gres(0, 4, 4);
	glue_gres(1, 8, 8);
	glue_gres(2, 4, 4);
	job_list = list_create(NULL);
}

/*
 * Broaden=when-faster through the plugin's own walk of job_list
 * (_cluster_state, _state_job, _running_add, _demand_add): a100 busy for 10
 * minutes or 3 hours, l40s (8 GPUs) free in a minute, pending jobs ahead.
 * Left out of the walk, as they must be: a held job (priority 0), a job of
 * another partition, a running job on a node outside the job's partitions.
 * A pending array's record counts for every task it still holds.
 */
static void test_when_faster_walk(void **state)
{
	static glue_rec_t rec[8];
	char *err = NULL;
	time_t now = time(NULL);
	job_desc_msg_t *j;

	(void)state;
	glue_faster_busy();
	glue_running(&rec[0], 1, 0, 3, 4, now + 600); /* a1 */
	glue_running(&rec[1], 2, 1, 3, 8, now + 75);  /* l1 (a minute, with 15 s to spare for a slow run) */
	glue_running(&rec[2], 3, 2, 3, 4, now + 30);  /* v1: partition old only */
	glue_pending(&rec[3], 4, 0, "gpu", NODEOX_TRES_GPU ":l40s:8", 0);   /* held */
	glue_pending(&rec[4], 5, 100, "old", NODEOX_TRES_GPU ":l40s:8", 0); /* elsewhere */
	glue_submit_want("kept: a100 expected free in about 10 min, finishing there is sooner (in "
			 "about 70 min; broadened to a100|l40s: in about 121 min",
			 NODEOX_TRES_GPU ":a100:4");

	/* a100 busy for 3 hours: broadened onto the l40s free in a minute */
	rec[0].job.end_time = now + 10800;
	glue_submit_want("; broadened: a100 expected free in about 180 min, l40s "
			 "free in about 1 min: finishing in about 121 min against in about 240 min as asked "
			 "(Broaden=when-faster)",
			 NODEOX_TRES_GPU ":4");

	/* one pending job ahead wants 4 of the 8 l40s: still broadened */
	glue_pending(&rec[5], 6, 100, "gpu,old", NODEOX_TRES_GPU ":l40s:4", 0);
	glue_submit_want("; broadened: a100 expected free in about 180 min, l40s free "
			 "in about 1 min",
			 NODEOX_TRES_GPU ":4");

	/* an array of 3 such tasks wants all 12 (not 4): kept */
	rec[5].array.task_cnt = 3;
	rec[5].job.array_recs = &rec[5].array;
	glue_submit_want("kept: a100 expected free in about 180 min, finishing in about 240 min; "
			 "broadened to a100|l40s it would finish no sooner",
			 NODEOX_TRES_GPU ":a100:4");

	/* every allocation of the decision failing in turn: never an abort,
	 * never a leak (valgrind); without the snapshot or the decision's own
	 * buffer the job is left as asked, without the when-faster state it is
	 * decided as when-blocked, without the sort's scratch qsort sorts */
	rec[0].job.end_time = now + 10800;
	rec[5].array.task_cnt = 1;
	{
		int k, failed = 0;

		for (k = 1; k < 64; k++) {
			j = glue_job("nodeox:flex", NODEOX_TRES_GPU ":a100:4");
			glue_changed();     /* the walk's allocations too, */
			_state_clear(true); /* from empty buffers */
			glue_allocs = 0;
			glue_fail_at = k;
			assert_int_equal(job_submit(j, 1000, &err), SLURM_SUCCESS);
			glue_fail_at = 0;
			if (glue_allocs < k) { /* no allocation left to fail: decided as usual */
				assert_non_null(strstr(err, "; broadened: a100"));
				xfree(err);
				glue_free(j);
				break;
			}
			failed++;
			print_message("allocation %d failed (in %s): %s\n", k, glue_failed_in,
				      err ? err : "job left as asked");
			if ((!strcmp(glue_failed_in, "_decide_apply") &&
			     glue_failed_size == sizeof(nodeox_decision_t)) ||
			    !strcmp(glue_failed_in, "_cluster_snapshot")) { /* nothing to decide with */
				assert_null(err);
				assert_string_equal(j->tres_per_node, NODEOX_TRES_GPU ":a100:4");
			} else if (strcmp(j->tres_per_node, NODEOX_TRES_GPU ":a100:4")) {
				assert_string_equal(j->tres_per_node, NODEOX_TRES_GPU ":4");
			}
			xfree(err);
			glue_free(j);
		}
		print_message("%d allocations of a when-faster decision failed in turn\n", failed);
		assert_true(failed >= 6); /* d, st, map, snapshot, scratch, running, sort */
	}
	glue_recs_free(rec, 6);
	glue_gres_drop();
}

/* Stamps of a change that happened in the past (increasing, always older
 * than now): the state cache sees the change, and after its walk, no
 * further change until the next call of this. */
static time_t glue_stamp;

static void glue_changed_before(bool jobs)
{
	if (!glue_stamp || glue_stamp >= time(NULL) - 2)
		glue_stamp = time(NULL) - 100000;
	glue_stamp++;
	if (jobs)
		last_job_update = glue_stamp;
	last_node_update = glue_stamp;
}

/* Submit a tagged a100:4 job without touching the stamps; 1 when it was
 * broadened, 0 when kept as asked. */
static int glue_submit_broadened(void)
{
	job_desc_msg_t *j = glue_job("nodeox:flex", NODEOX_TRES_GPU ":a100:4");
	char *err = NULL;
	int broadened;

	assert_int_equal(job_submit(j, 1000, &err), SLURM_SUCCESS);
	broadened = strcmp(j->tres_per_node, NODEOX_TRES_GPU ":a100:4") != 0;
	xfree(err);
	glue_free(j);
	return broadened;
}

/*
 * Run-time history through the walk (_finished_add, _running_ends): a1's
 * 4 a100 are held by a job of user 4242 that started a minute ago with an
 * end 3 hours on; that user's last two jobs that ended on their own ran 5
 * and 6 minutes, so a1 is expected back in about 4.5 minutes, and the
 * tagged a100 job is kept (about 65 min against 121 broadened onto the
 * l40s free in a minute). A later job of the user that was cancelled after
 * 10 s is not a run time (counted, a1 would be back in about 2 minutes);
 * one that never ran (no nodes) neither. RunTimeHistory=no: broadened, as
 * with the limit alone.
 */
static void glue_finished(glue_rec_t *r, uint32_t id, uint32_t uid, uint32_t st, time_t start, time_t end,
			  char *nodes)
{
	memset(r, 0, sizeof(*r));
	r->job.job_id = id;
	r->job.user_id = uid;
	r->job.job_state = st;
	r->job.partition = "gpu";
	r->job.details = &r->det;
	r->job.nodes = nodes;
	r->job.start_time = start;
	r->job.end_time = end;
	list_append(job_list, &r->job);
}

static void test_when_faster_history(void **state)
{
	static glue_rec_t rec[6];
	char text[512];
	time_t now = time(NULL);

	(void)state;
	glue_faster_busy();
	glue_running(&rec[0], 1, 0, 3, 4, now + 10800); /* a1, 3 hours by its limit */
	rec[0].job.user_id = 4242;
	rec[0].job.start_time = now - 60;
	glue_running(&rec[1], 2, 1, 3, 8, now + 75); /* l1 (user 0: no history) */
	glue_finished(&rec[2], 3, 4242, JOB_COMPLETE, now - 900, now - 600, "a1");
	glue_finished(&rec[3], 4, 4242, JOB_TIMEOUT, now - 700, now - 340, "a1");
	glue_finished(&rec[4], 5, 4242, JOB_CANCELLED, now - 100, now - 90, "a1");
	glue_finished(&rec[5], 6, 4242, JOB_CANCELLED, now - 80, now - 80, NULL);
	glue_submit_want("kept: a100 expected free in about 5 min, finishing there is sooner (in about 65 min; "
			 "broadened to a100|l40s: in about 121 min",
			 NODEOX_TRES_GPU ":a100:4");
	assert_int_equal(nxs.ends[NODEOX_END_HISTORY], 1);
	assert_int_equal(nxs.ends[NODEOX_END_LIMIT], 1);

	snprintf(text, sizeof(text), "%sBroaden=when-faster\nRunTimeHistory=no\n", glue_conf);
	glue_write_conf(text);
	glue_submit_want("; broadened: a100 expected free in about 180 min, l40s free in about 1 min",
			 NODEOX_TRES_GPU ":4");
	assert_int_equal(nxs.ends[NODEOX_END_LIMIT], 2);
	glue_recs_free(rec, 6);
	glue_gres_drop();
}

/*
 * The state cache (Broaden=when-faster): job_list is walked again when
 * slurmctld's stamps say a job or node record changed (a job ends, a job
 * starts, a node goes down), and not when nothing changed; within the
 * window (nxs.age_factor times the walk's time, at most nxs.age_max_ms) a
 * change is not walked: the state read is at most that old. The node
 * snapshot is kept while last_node_update and last_part_update stay, and
 * taken again when either moves.
 */
static void test_state_cache_changes(void **state)
{
	static glue_rec_t rec[3];
	time_t now = time(NULL);
	unsigned long w, sn;

	(void)state;
	glue_faster_busy();
	glue_running(&rec[0], 1, 0, 3, 4, now + 10800); /* a1 busy 3 hours */
	glue_running(&rec[1], 2, 1, 3, 8, now + 60);    /* l1 free in a minute */
	glue_changed_before(true);
	w = nxs.walks;
	sn = nxs.snaps;
	assert_int_equal(glue_submit_broadened(), 1);
	assert_int_equal(nxs.walks, w + 1);
	assert_int_equal(nxs.snaps, sn + 1);

	/* nothing changed: the cache serves, no walk, no node read */
	assert_int_equal(glue_submit_broadened(), 1);
	assert_int_equal(nxs.walks, w + 1);
	assert_int_equal(nxs.snaps, sn + 1);

	/* a partition record changed: the nodes are read again (the
	 * decision counts the two submissions before it: not asserted) */
	last_part_update = glue_stamp;
	glue_submit_broadened();
	assert_int_equal(nxs.snaps, sn + 2);

	/* a job ends: a1's holder gone, its 4 a100 idle: walked, kept */
	list_delete_ptr(job_list, &rec[0].job);
	glue_gres(0, 4, 0);
	glue_changed_before(true);
	assert_int_equal(glue_submit_broadened(), 0);
	assert_int_equal(nxs.walks, w + 2);
	assert_int_equal(glue_submit_broadened(), 0);
	assert_int_equal(nxs.walks, w + 2);

	/* a job starts on a1 for 3 hours: walked, broadened again */
	FREE_NULL_BITMAP(rec[0].job.node_bitmap);
	FREE_NULL_LIST(rec[0].job.gres_list_alloc);
	glue_running(&rec[0], 3, 0, 3, 4, now + 10800);
	glue_gres(0, 4, 4);
	glue_changed_before(true);
	assert_int_equal(glue_submit_broadened(), 1);
	assert_int_equal(nxs.walks, w + 3);

	/* a node goes down (l1): only last_node_update moves: walked, kept
	 * (no l40s to go to) */
	glue_nodes[1].node_state = NODE_STATE_DOWN;
	glue_changed_before(false);
	sn = nxs.snaps;
	assert_int_equal(glue_submit_broadened(), 0);
	assert_int_equal(nxs.walks, w + 4);
	assert_int_equal(nxs.snaps, sn + 1);

	/* within the window a change is not walked (l1 back up; the node
	 * table itself is read again, as last_node_update moved) ... */
	nxs.age_factor = 100;
	nxs.age_max_ms = 60000;
	nxs.build_us = 10000; /* as if the walk had taken 10 ms: a 1 s window */
	glue_nodes[1].node_state = NODE_STATE_IDLE;
	glue_changed_before(false);
	assert_int_equal(glue_submit_broadened(), 1);
	assert_int_equal(nxs.walks, w + 4);
	/* ... and is once the window is past */
	nxs.age_max_ms = 0;
	assert_int_equal(glue_submit_broadened(), 1);
	assert_int_equal(nxs.walks, w + 5);
	nxs.age_factor = 0;
	nxs.age_max_ms = 10000;
	glue_recs_free(rec, 3);
	glue_gres_drop();
}

/* A random pick of an array's strings. */
#define GLUE_PICK(seed, a) ((a)[rand_r(seed) % (sizeof(a) / sizeof((a)[0]))])

/* The reference the property below holds the cache to: the walk the plugin
 * did at every decision before the cache (main at 9599ba4, _state_job,
 * _running_add, _demand_add), for one job: the running jobs' GPUs on the
 * snapshot's nodes (map), the demand of the pending, not held jobs whose
 * partitions meet the job's, the job itself left out. */
typedef struct {
	nodeox_running_t running[64];
	nodeox_demand_t ahead[NODEOX_MAX_TYPES + 1];
	char type[NODEOX_MAX_TYPES + 1][NODEOX_NAME_MAX];
	nodeox_pending_t pending[256]; /* the backfill map's list */
	uint32_t prio[256];
} glue_ref_t;

/* The reference's pending list into priority order: insertion sort by
 * priority, then id (the order slurmctld's backfill walks). */
static void glue_ref_sort(glue_ref_t *ref, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && (ref->prio[j] > ref->prio[j - 1] ||
				      (ref->prio[j] == ref->prio[j - 1] && ref->pending[j].id < ref->pending[j - 1].id));
		     j--) {
			nodeox_pending_t p = ref->pending[j];
			uint32_t q = ref->prio[j];

			ref->pending[j] = ref->pending[j - 1];
			ref->prio[j] = ref->prio[j - 1];
			ref->pending[j - 1] = p;
			ref->prio[j - 1] = q;
		}
}

static void glue_ref_walk(glue_ref_t *ref, nodeox_cluster_t *cl, const nodeox_job_t *job, const int32_t *map,
			  time_t now)
{
	ListIterator it = list_iterator_create(job_list);
	job_record_t *jp;

	while ((jp = list_next(it))) {
		if (IS_JOB_RUNNING(jp)) {
			gres_job_state_t *js = ((gres_state_t *)list_peek(jp->gres_list_alloc))->gres_data;
			int n = bit_ffs(jp->node_bitmap);

			if (map[n] >= 0 && js->gres_cnt_node_alloc[0]) {
				assert_true(cl->nrunning < 64);
				ref->running[cl->nrunning++] = (nodeox_running_t){
					.node = (uint32_t)map[n],
					.gpus = (uint32_t)js->gres_cnt_node_alloc[0],
					.end = (int64_t)jp->end_time - (int64_t)now,
				};
			}
		} else if (IS_JOB_PENDING(jp) && jp->priority && jp->job_id != job->job_id &&
			   (!jp->partition || !job->partition ||
			    nodeox_util_lists_meet(jp->partition, job->partition))) {
			nodeox_tres_gpu_t e[NODEOX_TRES_MAX_GPU];
			char type[NODEOX_NAME_MAX] = "";
			int i, n = nodeox_tres_scan(jp->tres_per_node, e, NODEOX_TRES_MAX_GPU);
			uint64_t gpus = 0;
			size_t k;

			for (i = 0; i < n; i++) {
				gpus += e[i].count * jp->details->min_nodes;
				if (!type[0] && e[i].type_len)
					nodeox_tres_type_copy(jp->tres_per_node, &e[i], type, sizeof(type));
			}
			if (jp->array_recs && jp->array_recs->task_cnt > 1)
				gpus *= jp->array_recs->task_cnt;
			for (k = 0; k < cl->nahead; k++)
				if (!strcasecmp(ref->type[k], type))
					break;
			if (k == cl->nahead) {
				snprintf(ref->type[k], sizeof(ref->type[k]), "%s", type);
				ref->ahead[k] = (nodeox_demand_t){ .type = ref->type[k] };
				cl->nahead++;
			}
			nodeox_demand_add(&ref->ahead[k], gpus, jp->priority, jp->job_id);
			{ /* the map's list: one entry per array task */
				uint32_t tasks = jp->array_recs && jp->array_recs->task_cnt > 1
							 ? jp->array_recs->task_cnt
							 : 1,
					 mask, t;

				if (nodeox_pending_types(nx.conf, type, jp->details->features, &mask))
					for (t = 0; t < tasks; t++) {
						assert_true(cl->npending < 256);
						ref->prio[cl->npending] = jp->priority;
						ref->pending[cl->npending++] = (nodeox_pending_t){
							.types = mask,
							.gpus = gpus / tasks,
							.limit = (int64_t)jp->time_limit * 60,
							.id = jp->job_id,
						};
					}
			}
		}
	}
	list_iterator_destroy(it);
	glue_ref_sort(ref, cl->npending);
	cl->map = true;
	cl->pending = ref->pending;
	nodeox_running_sort(ref->running, cl->nrunning, NULL);
	cl->running = ref->running;
	cl->ahead = ref->ahead;
}

/* The same demand, whatever the order of the types. */
static void glue_ahead_equal(const nodeox_cluster_t *a, const nodeox_cluster_t *b, int state)
{
	size_t i, k;

	if (a->nahead != b->nahead)
		fail_msg("state %d: %zu types of demand from the cache, %zu from the walk", state, a->nahead,
			 b->nahead);
	for (i = 0; i < a->nahead; i++) {
		for (k = 0; k < b->nahead && strcasecmp(a->ahead[i].type, b->ahead[k].type); k++)
			;
		if (k == b->nahead || a->ahead[i].gpus != b->ahead[k].gpus ||
		    a->ahead[i].first != b->ahead[k].first)
			fail_msg("state %d: demand for '%s' from the cache %" PRIu64 " (first %" PRIu64
				 "), from the walk %" PRIu64 " (first %" PRIu64 ")",
				 state, a->ahead[i].type, a->ahead[i].gpus, a->ahead[i].first,
				 k < b->nahead ? b->ahead[k].gpus : 0, k < b->nahead ? b->ahead[k].first : 0);
	}
}

/* The same backfill map list (the queued probe's id is the cache's count,
 * not its record's: ids are compared before it). */
static void glue_pending_equal(const nodeox_cluster_t *a, const nodeox_cluster_t *b, int state)
{
	size_t i;

	assert_true(a->map && b->map);
	if (a->npending != b->npending)
		fail_msg("state %d: %zu pending jobs for the map from the cache, %zu from the walk", state,
			 a->npending, b->npending);
	assert_false(a->pending_more);
	for (i = 0; i < a->npending; i++) {
		const nodeox_pending_t *x = &a->pending[i], *y = &b->pending[i];

		if (x->types != y->types || x->gpus != y->gpus || x->limit != y->limit ||
		    (y->id != 1000 && x->id != y->id))
			fail_msg("state %d: pending %zu: cache %u/%" PRIu64 "/%" PRId64 "/%u, walk %u/%" PRIu64
				 "/%" PRId64 "/%u",
				 state, i, x->types, x->gpus, x->limit, x->id, y->types, y->gpus, y->limit, y->id);
	}
}

/*
 * A decision from the state cache equals the decision from a fresh walk of
 * job_list (glue_ref_walk, the walk the plugin did before the cache), over
 * many random states: running jobs on random nodes with random ends,
 * pending jobs of random partitions, types, counts, priorities (held ones
 * too) and arrays, random node states. Each state's cache is walked for a
 * tagged submission of another job (another partition and type), which is
 * then queued as slurmctld would (its GPUs as written back, last in
 * priority order); the job decided from the cache is a new submission or
 * an update of one of the pending jobs (left out of its own demand). Both
 * views (holdings, demand) and both decisions must be the same.
 */
static void test_state_cache_equals_walk(void **state)
{
	static const char *parts[] = { "gpu", "old", "gpu,old" };
	static const char *pparts[] = { "gpu", "old", "gpu,old", NULL };
	static const char *types[] = { "a100:", "l40s:", "v100:", "" };
	static glue_rec_t rec[24];
	static char tres[24][48], jtres[48];
	unsigned int seed = 47;
	int it, updates = 0, broadened = 0, kept = 0;
	char text[512];

	(void)state;
	snprintf(text, sizeof(text), "%sBroaden=when-faster\n", glue_conf);
	glue_write_conf(text);
	for (it = 0; it < 1000; it++) {
		time_t now = time(NULL);
		int nrun = rand_r(&seed) % 9, npend = rand_r(&seed) % 12, i, n = 0;
		nodeox_cluster_t cl = { 0 }, cr = { 0 };
		nodeox_state_buf_t *st = xcalloc(1, sizeof(*st));
		nodeox_decision_t *da = xcalloc(1, sizeof(*da)), *db = xcalloc(1, sizeof(*db));
		int32_t *map2 = xcalloc(node_record_count, sizeof(*map2));
		glue_ref_t *ref = xcalloc(1, sizeof(*ref));
		nodeox_job_t job = { 0 };
		job_desc_msg_t *probe;
		glue_rec_t *target = NULL;
		char *err = NULL;
		unsigned long w;

		for (i = 0; i < 3; i++) {
			glue_gres(i, i == 1 ? 8 : 4, rand_r(&seed) % (i == 1 ? 9 : 5));
			glue_nodes[i].node_state = rand_r(&seed) % 6 ? NODE_STATE_IDLE : NODE_STATE_DOWN;
		}
		job_list = list_create(NULL);
		for (i = 0; i < nrun; i++, n++)
			glue_running(&rec[n], (uint32_t)n + 1, rand_r(&seed) % 3, 3, 1 + rand_r(&seed) % 4,
				     now - 100 + rand_r(&seed) % 20000);
		for (i = 0; i < npend; i++, n++) {
			snprintf(tres[n], sizeof(tres[n]), "%s%s%d", NODEOX_TRES_GPU ":",
				 GLUE_PICK(&seed, types), 1 + rand_r(&seed) % 8);
			glue_pending(&rec[n], (uint32_t)(100 + n),
				     rand_r(&seed) % 5 ? 1 + rand_r(&seed) % 50 : 0, GLUE_PICK(&seed, pparts),
				     tres[n], rand_r(&seed) % 5 ? 0 : 2 + rand_r(&seed) % 3);
			/* the map reads limits (none: held for good) and, of an
			 * untyped job, its constraint's types */
			rec[n].job.time_limit = rand_r(&seed) % 4 ? 5 + rand_r(&seed) % 200 : 0;
			rec[n].det.features = rand_r(&seed) % 2 ? "a100|l40s" : NULL;
		}

		/* the cache, walked for another job, which is then queued */
		probe = glue_job("nodeox:flex", "");
		xfree(probe->tres_per_node);
		probe->tres_per_node = xstrdup_printf("%s%s%d", NODEOX_TRES_GPU ":", GLUE_PICK(&seed, types),
						      1 + rand_r(&seed) % 4);
		probe->partition = xstrdup(GLUE_PICK(&seed, parts));
		glue_changed_before(true);
		w = nxs.walks;
		assert_int_equal(job_submit(probe, 1000, &err), SLURM_SUCCESS);
		assert_int_equal(nxs.walks, w + 1);
		xfree(err);
		glue_pending(&rec[n], 1000, 1, probe->partition, probe->tres_per_node, 0);
		rec[n].job.time_limit = probe->time_limit; /* as written back */
		rec[n].det.features = probe->features;
		n++;

		/* the job decided, from the cache and from the reference walk */
		if (npend && rand_r(&seed) % 3 == 0) { /* an update of a pending job */
			target = &rec[nrun + rand_r(&seed) % npend];
			job.job_id = target->job.job_id;
			updates++;
		}
		snprintf(jtres, sizeof(jtres), "%s%s%d", NODEOX_TRES_GPU ":", GLUE_PICK(&seed, types),
			 1 + rand_r(&seed) % 4);
		job.comment = "nodeox:flex";
		job.tres_per_node = jtres;
		job.time_limit = 10 + rand_r(&seed) % 300;
		job.partition = GLUE_PICK(&seed, parts);
		st->map = xcalloc(node_record_count, sizeof(*st->map));
		assert_true(_cluster_snapshot(job.partition, &cl, st->map));
		assert_true(_cluster_snapshot(job.partition, &cr, map2));
		_cluster_state(st, &cl, &job, target ? &target->job : NULL);
		assert_int_equal(nxs.walks, w + 1); /* from the cache */
		assert_false(st->nomem || cl.state_cut);
		glue_ref_walk(ref, &cr, &job, map2, now);
		cr.scratch = xcalloc(NODEOX_ESTIMATE_SCRATCH(cr.nnodes ? cr.nnodes : 1), sizeof(uint32_t));
		if (time(NULL) == now) { /* (ends read a second apart differ) */
			assert_int_equal(cl.nrunning, cr.nrunning);
			assert_memory_equal(cl.running, cr.running, cl.nrunning * sizeof(*cl.running));
		}
		glue_ahead_equal(&cl, &cr, it);
		glue_pending_equal(&cl, &cr, it);
		nodeox_policy_decide(nx.conf, &job, &cl, da);
		nodeox_policy_decide(nx.conf, &job, &cr, db);
		if (time(NULL) == now &&
		    (da->action != db->action || strcmp(da->reason, db->reason) ||
		     strcmp(da->tres_per_node, db->tres_per_node) || strcmp(da->features, db->features) ||
		     da->time_limit != db->time_limit))
			fail_msg("state %d (%s): from the cache: %d %s\nfrom the walk: %d %s", it,
				 target ? "update" : "submission", da->action, da->reason, db->action,
				 db->reason);
		broadened += strstr(da->reason, "; broadened:") != NULL;
		kept += !strncmp(da->reason, "kept:", 5);
		xfree(cr.scratch);
		xfree(cl.nodes);
		xfree(cr.nodes);
		_cluster_state_free(st);
		xfree(map2);
		xfree(ref);
		xfree(da);
		xfree(db);
		list_delete_ptr(job_list, &rec[n - 1].job); /* the probe's record */
		xfree(probe->partition);
		glue_free(probe);
		glue_recs_free(rec, n - 1);
		glue_gres_drop();
	}
	print_message("1000 random states: %d updates, %d broadened by the estimate, %d kept by it\n",
		      updates, broadened, kept);
	assert_true(updates > 100 && broadened > 50 && kept > 50); /* the property was put to work */
	for (int i = 0; i < 3; i++)
		glue_nodes[i].node_state = NODE_STATE_IDLE;
}

/*
 * Past NODEOX_MAX_NODES nodes of the job's partitions the snapshot stops:
 * the rest are left out of the node map (-1, not 0: a running job there was
 * charged to snapshot node 0) and the state is marked cut, so when-faster
 * makes no estimate from part of the cluster and says so.
 */
static void test_node_cap(void **state)
{
	const int nrec = NODEOX_MAX_NODES + 1;
	node_record_t **table = xcalloc(nrec, sizeof(*table));
	static glue_rec_t rec[1];
	char text[512];
	int i;

	(void)state;
	snprintf(text, sizeof(text), "%sBroaden=when-faster\n", glue_conf);
	glue_write_conf(text);
	glue_gres(0, 4, 0); /* a1: a100, all 4 free */
	glue_gres(1, 8, 8); /* l1: l40s, all 8 in use */
	for (i = 0; i < nrec - 1; i++)
		table[i] = &glue_nodes[i % 2]; /* a1, l1, a1, ...: 100,000 nodes of partition gpu */
	table[nrec - 1] = &glue_nodes[0];
	node_record_table_ptr = table;
	node_record_count = nrec;
	job_list = list_create(NULL);
	glue_running(&rec[0], 1, nrec - 1, nrec, 4, time(NULL) + 60); /* on the one past the cap */
	glue_submit_want("not broadened: a100 can serve the job now (Broaden=when-faster, as "
			 "when-blocked: more nodes or jobs in the cluster than the estimate reads)",
			 NODEOX_TRES_GPU ":a100:4");
	glue_recs_free(rec, 1);
	glue_gres_drop();
	node_record_table_ptr = glue_table;
	node_record_count = 3;
	xfree(table);
}

/*
 * Past NODEOX_STATE_GROUPS distinct partition lists of pending jobs the
 * walk stops and marks the cache cut: decided as when-blocked, said so
 * (the same state with one list fewer gets its estimate).
 */
static void test_state_groups_bound(void **state)
{
	static glue_rec_t rec[NODEOX_STATE_GROUPS + 3];
	static char parts[NODEOX_STATE_GROUPS + 1][32];
	job_desc_msg_t *j;
	char *err = NULL;
	int i;

	(void)state;
	glue_faster_busy();
	glue_running(&rec[0], 1, 0, 3, 4, time(NULL) + 10800); /* a1 busy 3 hours */
	glue_running(&rec[1], 2, 1, 3, 8, time(NULL) + 60);    /* l1 free in a minute */
	for (i = 0; i < NODEOX_STATE_GROUPS; i++) {            /* 256 lists: "gpu,p0", ... */
		snprintf(parts[i], sizeof(parts[i]), "gpu,p%d", i);
		glue_pending(&rec[2 + i], (uint32_t)(100 + i), 10, parts[i], NODEOX_TRES_GPU ":v100:1", 0);
	}
	glue_submit_want("broadened: a100 expected free in about 180 min,", NODEOX_TRES_GPU ":4");
	assert_false(nxs.cut);
	snprintf(parts[i], sizeof(parts[i]), "gpu,p%d", i); /* one more */
	glue_pending(&rec[2 + i], (uint32_t)(100 + i), 10, parts[i], NODEOX_TRES_GPU ":v100:1", 0);
	glue_changed();
	j = glue_job("nodeox:flex", NODEOX_TRES_GPU ":a100:4");
	assert_int_equal(job_submit(j, 1000, &err), SLURM_SUCCESS);
	assert_true(nxs.cut);
	/* when-blocked: a100 busy now, so broadened, without an estimate */
	assert_string_equal(err, "nodeox: GPU type a100 broadened to a100|l40s, time limit 60 -> 120 min; "
				 "when-faster, as when-blocked: more nodes or jobs in the cluster than the "
				 "estimate reads");
	xfree(err);
	glue_free(j);
	glue_recs_free(rec, NODEOX_STATE_GROUPS + 3);
	glue_gres_drop();
}

/*
 * A partition list past the bound (more than 64 names, or 1024 characters):
 * kept with the reason, and nothing looked up for it (slurmctld checks the
 * length only after job_submit): no partition looked up for the time cap.
 */
static void test_partition_bound(void **state)
{
	job_desc_msg_t *j = glue_job("nodeox:flex", NODEOX_TRES_GPU ":a100:1");
	char *err = NULL, *parts = xmalloc(4 * NODEOX_STR_MAX);
	int i;

	(void)state;
	glue_write_conf(glue_conf);
	for (i = 0; i < 100; i++)
		xstrcat(parts, i ? ",gpu" : "gpu");
	j->partition = parts;
	glue_part_lookups = 0;
	assert_int_equal(job_submit(j, 1000, &err), SLURM_SUCCESS);
	assert_string_equal(err, "nodeox: not broadened: the job names more than 64 partitions");
	assert_int_equal(glue_part_lookups, 0);
	assert_string_equal(j->tres_per_node, NODEOX_TRES_GPU ":a100:1");
	xfree(err);
	xfree(j->partition);
	glue_free(j);
}

#if NODEOX_SLURM_AT_LEAST(25, 5, 0)
/* Submit a flex l40s job to partition old (l1: l40s, v1: v100) with v1 in
 * node state st; the constraint it leaves, "" for none. */
static void glue_old_with_v1(uint32_t st, char *features, size_t len)
{
	job_desc_msg_t *j = glue_job("nodeox:flex", NODEOX_TRES_GPU ":l40s:1");
	char *err = NULL;

	j->partition = xstrdup("old");
	glue_nodes[2].node_state = st;
	assert_int_equal(job_submit(j, 1000, &err), SLURM_SUCCESS);
	glue_nodes[2].node_state = NODE_STATE_IDLE;
	snprintf(features, len, "%s", j->features ? j->features : "");
	xfree(err);
	xfree(j->partition);
	glue_free(j);
}
#endif

/* A node in the EXTERNAL state (25.05 and later: no slurmd, for jobs run
 * outside Slurm) is no capacity, as a down one is: its type is not offered
 * (slurm_compat.h, NODEOX_NODE_EXTERNAL). Skipped before 25.05. */
static void test_external_node_not_capacity(void **state)
{
#if NODEOX_SLURM_AT_LEAST(25, 5, 0)
	char idle[256], down[256], external[256];

	(void)state;
	glue_write_conf(glue_conf);
	glue_old_with_v1(NODE_STATE_IDLE, idle, sizeof(idle));
	glue_old_with_v1(NODE_STATE_DOWN, down, sizeof(down));
	glue_old_with_v1(NODE_STATE_IDLE | NODE_STATE_EXTERNAL, external, sizeof(external));
	assert_string_equal(idle, "l40s|v100");
	assert_null(strstr(down, "v100"));
	assert_string_equal(external, down);
#else
	(void)state;
	skip();
#endif
}

NODEOX_TEST_MAIN(glue_setup, glue_teardown, cmocka_unit_test(test_missing_conf_passes),
		 cmocka_unit_test(test_rewrite_and_live_edit), cmocka_unit_test(test_untagged_untouched),
		 cmocka_unit_test(test_keep_and_reject), cmocka_unit_test(test_het_components),
		 cmocka_unit_test(test_partition_scope), cmocka_unit_test(test_time_cap),
		 cmocka_unit_test(test_conf_not_regular), cmocka_unit_test(test_log_safe),
		 cmocka_unit_test(test_modify_leaves_job_record),
		 cmocka_unit_test(test_count_constraint_kept),
		 cmocka_unit_test(test_constraint_update_restores_limit),
		 cmocka_unit_test(test_external_node_not_capacity), cmocka_unit_test(test_when_faster_walk), cmocka_unit_test(test_when_faster_history),
		 cmocka_unit_test(test_state_cache_changes), cmocka_unit_test(test_state_cache_equals_walk),
		 cmocka_unit_test(test_node_cap), cmocka_unit_test(test_state_groups_bound),
		 cmocka_unit_test(test_partition_bound), cmocka_unit_test(test_speed_table))
