/*
 * test_rt_alloc.c: what a rank learns from its Slurm allocation
 * (runtime/rt_alloc.c): the GPU type in a node's GRES string, where
 * nodeox.conf is looked for, and rt_alloc_probe end to end with a stand-in
 * `scontrol` on PATH printing a node line, against a real nodeox.conf
 * file: typed node listed in the conf (speed, emulated), a type the conf
 * does not list, a node without typed GPUs, a failing scontrol, a bad
 * conf, and --emulate-speeds switching it off. No MPI is started (the
 * real srun path is tests/demo/test_demo.sh).
 */
#include "tests/common/test_main.h"
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "runtime/rt_alloc.h"
#include "runtime/rt_internal.h"

static char _dir[256];

static void _write(const char *name, const char *text, int mode)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", _dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(path, (mode_t)mode);
}

/* A stand-in scontrol that prints NodeName=NODE ... Gres=GRES. */
static void _fake_scontrol(const char *gres, int rc)
{
	char text[512];
	snprintf(text, sizeof text,
		 "#!/bin/sh\n[ \"$1 $2 $3\" = \"show node -o\" ] || exit 3\n"
		 "echo \"NodeName=$4 Arch=x86_64 CoresPerSocket=4 Gres=%s NodeAddr=10.0.0.1\"\nexit %d\n",
		 gres, rc);
	_write("scontrol", text, 0755);
}

static int _setup(void **state)
{
	(void)state;
	snprintf(_dir, sizeof _dir, "%s/rt_alloc.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(_dir));
	char path[1024];
	snprintf(path, sizeof path, "%s:%s", _dir, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	_write("nodeox.conf",
	       "Mode=enforce\nGpuType=a100 Memory=80G Speed=1.0\nGpuType=l40s Memory=48G Speed=0.6\n", 0644);
	snprintf(path, sizeof path, "%s/nodeox.conf", _dir);
	setenv("NODEOX_CONF", path, 1);
	setenv("SLURMD_NODENAME", "l1", 1);
	setenv("SLURM_JOB_ID", "7", 1);
	return 0;
}

static int _teardown(void **state)
{
	(void)state;
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", _dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_gres_type(void **state)
{
	(void)state;
	char t[32];
	assert_int_equal(rt_alloc_gres_type("gpu:a100:4(S:0-1)", t, sizeof t), 1);
	assert_string_equal(t, "a100");
	assert_int_equal(rt_alloc_gres_type("nic:2,gpu:l40s:2(S:0)", t, sizeof t), 1);
	assert_string_equal(t, "l40s");
	assert_int_equal(rt_alloc_gres_type("gpu:a100:2(S:0),gpu:a100:2(S:1)", t, sizeof t), 1);
	assert_int_equal(rt_alloc_gres_type("gpu:a100:2,gpu:l40s:2", t, sizeof t), 2);
	assert_string_equal(t, "a100");
	assert_int_equal(rt_alloc_gres_type("gpu:4", t, sizeof t), 0);
	assert_string_equal(t, "");
	assert_int_equal(rt_alloc_gres_type("(null)", t, sizeof t), 0);
}

static const char *_env_conf, *_env_slurm;
static const char *_fake_getenv(const char *name)
{
	if (strcmp(name, "NODEOX_CONF") == 0)
		return _env_conf;
	if (strcmp(name, "SLURM_CONF") == 0)
		return _env_slurm;
	return NULL;
}

static void test_conf_path(void **state)
{
	(void)state;
	char p[256];
	_env_conf = "/x/my.conf";
	_env_slurm = "/etc/slurm-llnl/slurm.conf";
	rt_alloc_conf_path(_fake_getenv, p, sizeof p);
	assert_string_equal(p, "/x/my.conf");
	_env_conf = NULL;
	rt_alloc_conf_path(_fake_getenv, p, sizeof p);
	assert_string_equal(p, "/etc/slurm-llnl/nodeox.conf");
	_env_slurm = NULL;
	rt_alloc_conf_path(_fake_getenv, p, sizeof p);
	assert_string_equal(p, "/etc/slurm/nodeox.conf");
}

static void test_probe(void **state)
{
	(void)state;
	nodeox_rt_config_t cfg;
	rt_alloc_t a;
	nodeox_rt_config_defaults(&cfg);

	_fake_scontrol("gpu:l40s:2(S:0-1)", 0);
	rt_alloc_probe(&a, &cfg);
	assert_int_equal(a.active, 1);
	assert_string_equal(a.node, "l1");
	assert_string_equal(a.gpu_type, "l40s");
	assert_float_equal(a.speed, 0.6, 1e-12);
	assert_int_equal(a.conf_line, 3);
	assert_int_equal(a.emulated, 1);
	assert_string_equal(a.note, "");

	cfg.backend = "cuda"; /* real GPUs: reported, not emulated */
	rt_alloc_probe(&a, &cfg);
	assert_int_equal(a.emulated, 0);
	assert_float_equal(a.speed, 0.6, 1e-12);
	cfg.backend = "cpu";

	_fake_scontrol("gpu:h100:8(S:0-1)", 0); /* not in nodeox.conf */
	rt_alloc_probe(&a, &cfg);
	assert_string_equal(a.gpu_type, "h100");
	assert_true(a.speed == 0 && !a.emulated);
	assert_non_null(strstr(a.note, "no GpuType=h100"));

	_fake_scontrol("gpu:4", 0); /* untyped GPUs */
	rt_alloc_probe(&a, &cfg);
	assert_true(a.speed == 0 && !a.emulated);
	assert_non_null(strstr(a.note, "no typed GPU"));

	_fake_scontrol("gpu:a100:4", 1); /* slurmctld not answering */
	rt_alloc_probe(&a, &cfg);
	assert_true(a.active && a.speed == 0 && !a.emulated);
	assert_non_null(strstr(a.note, "scontrol show node -o l1"));

	_fake_scontrol("gpu:a100:4", 0);
	_write("nodeox.conf", "GpuType=a100 Speed=fast\n", 0644); /* bad conf: error names file:line */
	rt_alloc_probe(&a, &cfg);
	assert_true(a.speed == 0 && !a.emulated);
	assert_non_null(strstr(a.note, "nodeox.conf:1"));

	cfg.n_emulate_speeds = 1; /* given by hand: nothing learnt */
	rt_alloc_probe(&a, &cfg);
	assert_int_equal(a.active, 0);
	cfg.n_emulate_speeds = 0;
	unsetenv("SLURMD_NODENAME"); /* not under srun */
	rt_alloc_probe(&a, &cfg);
	assert_int_equal(a.active, 0);
}

NODEOX_TEST_MAIN(_setup, _teardown, cmocka_unit_test(test_gres_type), cmocka_unit_test(test_conf_path),
		 cmocka_unit_test(test_probe))
