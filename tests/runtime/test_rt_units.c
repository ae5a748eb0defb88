/*
 * test_rt_units.c: the runtime's pure functions against hand-computed
 * values: combine weights (mean, samples, FedNova with and without
 * momentum, dropped workers), FedNova's a_i, round planning, the LR
 * schedule, launcher environment, --emulate-speeds parsing, option
 * errors, the --eval-ema average, and the speed record's pieces (the
 * kept intervals, the medians, the types, the comment composed). No MPI is
 * started.
 */
#include "tests/common/test_main.h"
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/rt_internal.h"
#include "runtime/rt_speedrec.h"

static rt_worker_info_t _w(double steps, double shard, int finite)
{
	rt_worker_info_t i = { .steps = steps, .samples = steps * 64, .shard = shard, .finite = finite };
	return i;
}

/* rt_combine_weights(rule, n, in, rho) keeps `kept` of the n workers and
 * gives worker i the weight want[i]: exactly 0 for one dropped (the 7 it
 * starts from is overwritten), within 1e-12 otherwise. */
static void check_weights(nodeox_combine_t rule, int n, const rt_worker_info_t *in, double rho, int kept,
			  const double *want)
{
	double w[8];
	assert_true(n <= 8);
	for (int i = 0; i < n; i++)
		w[i] = 7;
	assert_int_equal(rt_combine_weights(rule, n, in, rho, w), kept);
	for (int i = 0; i < n; i++)
		assert_float_equal(w[i], want[i], want[i] == 0 ? 0 : 1e-12);
}

static void test_combine_mean(void **state)
{
	(void)state;
	rt_worker_info_t in[4] = { _w(20, 15000, 1), _w(20, 15000, 1), _w(10, 15000, 1), _w(10, 15000, 1) };
	check_weights(NODEOX_COMBINE_MEAN, 4, in, 0, 4, (const double[]){ 0.25, 0.25, 0.25, 0.25 });
}

static void test_combine_mean_drops_nonfinite(void **state)
{
	(void)state;
	rt_worker_info_t in[4] = { _w(20, 15000, 1), _w(20, 15000, 1), _w(10, 15000, 0), _w(10, 15000, 1) };
	check_weights(NODEOX_COMBINE_MEAN, 4, in, 0, 3, (const double[]){ 1.0 / 3, 1.0 / 3, 0, 1.0 / 3 });
}

static void test_combine_samples(void **state)
{
	(void)state;
	/* 1280, 1280, 640, 640 samples: 1/3, 1/3, 1/6, 1/6 */
	rt_worker_info_t in[4] = { _w(20, 15000, 1), _w(20, 15000, 1), _w(10, 15000, 1), _w(10, 15000, 1) };
	check_weights(NODEOX_COMBINE_SAMPLES, 4, in, 0, 4,
		      (const double[]){ 1.0 / 3, 1.0 / 3, 1.0 / 6, 1.0 / 6 });
	/* worker 0 dropped: 1280 / 2560, 640 / 2560 twice */
	in[0].finite = 0;
	check_weights(NODEOX_COMBINE_SAMPLES, 4, in, 0, 3, (const double[]){ 0, 0.5, 0.25, 0.25 });
}

static void test_combine_fednova_plain_sgd(void **state)
{
	(void)state;
	/* p = 1/4 each, a = tau, tau_eff = (20+20+10+10)/4 = 15,
     * w = p * 15 / tau: 0.1875 for tau 20, 0.375 for tau 10 */
	rt_worker_info_t in[4] = { _w(20, 15000, 1), _w(20, 15000, 1), _w(10, 15000, 1), _w(10, 15000, 1) };
	check_weights(NODEOX_COMBINE_FEDNOVA, 4, in, 0, 4, (const double[]){ 0.1875, 0.1875, 0.375, 0.375 });
}

static void test_combine_fednova_momentum_and_shards(void **state)
{
	(void)state;
	/* rho = 0.5: a(1) = 1, a(2) = 1 + (1 - 0.25) / 0.5 = 2.5.
     * shards 3:1 -> p = 0.75, 0.25; tau_eff = 0.75 * 1 + 0.25 * 2.5 = 1.375;
     * w = 0.75 * 1.375 / 1 = 1.03125, 0.25 * 1.375 / 2.5 = 0.1375.
     * A third worker is dropped and must not change the others. */
	assert_float_equal(rt_combine_fednova_a(1, 0.5), 1.0, 1e-12);
	assert_float_equal(rt_combine_fednova_a(2, 0.5), 2.5, 1e-12);
	assert_float_equal(rt_combine_fednova_a(3, 0.0), 3.0, 0);
	rt_worker_info_t in[3] = { _w(1, 3000, 1), _w(2, 1000, 1), _w(7, 5000, 0) };
	check_weights(NODEOX_COMBINE_FEDNOVA, 3, in, 0.5, 2, (const double[]){ 1.03125, 0.1375, 0 });
}

static void test_combine_all_dropped(void **state)
{
	(void)state;
	rt_worker_info_t in[2] = { _w(5, 10, 0), _w(5, 10, 0) };
	check_weights(NODEOX_COMBINE_MEAN, 2, in, 0, 0, (const double[]){ 0, 0 });
}

static void test_plan(void **state)
{
	(void)state;
	nodeox_rt_config_t c;
	nodeox_rt_config_defaults(&c);
	c.local_steps = 20;
	int tau[4];
	double ms[4] = { 20, 20, 40, 40 };
	rt_rounds_plan(&c, 4, ms, 1000, tau);
	assert_int_equal(tau[0], 20);
	assert_int_equal(tau[2], 10);
	/* timing noise on a slow worker does not add a step */
	double noisy[4] = { 20, 20.1, 40.3, 39.9 };
	rt_rounds_plan(&c, 4, noisy, 1000, tau);
	assert_int_equal(tau[0], 20);
	assert_int_equal(tau[1], 20);
	assert_int_equal(tau[2], 10);
	assert_int_equal(tau[3], 10);
	/* ceil(20 * 20 / 30) = 14; a very slow worker still takes one step */
	double mixed[4] = { 20, 30, 4000, 20 };
	rt_rounds_plan(&c, 4, mixed, 1000, tau);
	assert_int_equal(tau[1], 14);
	assert_int_equal(tau[2], 1);
	/* unknown speeds: H everywhere; cap bounds the last round */
	double unknown[4] = { 20, 0, 40, 40 };
	rt_rounds_plan(&c, 4, unknown, 7, tau);
	for (int i = 0; i < 4; i++)
		assert_int_equal(tau[i], 7);
	c.plan = NODEOX_PLAN_TIME;
	c.round_ms = 400;
	rt_rounds_plan(&c, 4, ms, 1000, tau);
	assert_int_equal(tau[0], 20);
	assert_int_equal(tau[3], 10);
	c.plan = NODEOX_PLAN_FIXED;
	rt_rounds_plan(&c, 4, ms, 1000, tau);
	assert_int_equal(tau[3], 20);
}

static void test_h_ramp(void **state)
{
	(void)state;
	nodeox_rt_config_t c;
	nodeox_rt_config_defaults(&c);
	c.local_steps = 20;
	assert_int_equal(rt_rounds_h(&c, 0), 20); /* no ramp: H from the start */
	c.h_ramp_steps = 200;
	assert_int_equal(rt_rounds_h(&c, 0), 2); /* 2 + 18 t / 200 */
	assert_int_equal(rt_rounds_h(&c, 100), 11);
	assert_int_equal(rt_rounds_h(&c, 199), 19);
	assert_int_equal(rt_rounds_h(&c, 200), 20);
	assert_int_equal(rt_rounds_h(&c, 5000), 20);
	c.local_steps = 2;
	assert_int_equal(rt_rounds_h(&c, 0), 2);
}

static void test_lr_schedule(void **state)
{
	(void)state;
	nodeox_rt_config_t c;
	nodeox_rt_config_defaults(&c);
	c.lr = 0.1;
	c.lr_min_ratio = 0.1;
	c.warmup_steps = 10;
	c.total_steps = 110;
	assert_float_equal(rt_rounds_lr(&c, 0), 0.01, 1e-12);
	assert_float_equal(rt_rounds_lr(&c, 9), 0.1, 1e-12);
	assert_float_equal(rt_rounds_lr(&c, 10), 0.1, 1e-12);
	assert_float_equal(rt_rounds_lr(&c, 60), 0.055, 1e-12); /* half-way: mean of 0.1, 0.01 */
	assert_float_equal(rt_rounds_lr(&c, 110), 0.01, 1e-12);
	assert_float_equal(rt_rounds_lr(&c, 500), 0.01, 1e-12);
}

static const char *const *_fake_env;
static const char *_fake_getenv(const char *name)
{
	for (int i = 0; _fake_env[i]; i += 2)
		if (strcmp(_fake_env[i], name) == 0)
			return _fake_env[i + 1];
	return NULL;
}

/* rt_env_shared_device: the first pair of ranks on one GPU, by key */
static void test_env_shared_device(void **state)
{
	(void)state;
	enum { K = 16 };
	char keys[4 * K];
	memset(keys, 0, sizeof keys);
	strcpy(keys + 0 * K, "n1/0000:01:00.0");
	strcpy(keys + 1 * K, "n1/0000:02:00.0");
	strcpy(keys + 2 * K, "n2/0000:01:00.0"); /* same bus, other host */
	strcpy(keys + 3 * K, "n2/0000:02:00.0");
	int a = -1, b = -1;
	assert_int_equal(rt_env_shared_device(keys, 4, K, &a, &b), 0);
	strcpy(keys + 3 * K, "n1/0000:02:00.0"); /* rank 3 on rank 1's GPU */
	assert_int_equal(rt_env_shared_device(keys, 4, K, &a, &b), 1);
	assert_int_equal(a, 1);
	assert_int_equal(b, 3);
	strcpy(keys + 2 * K, "n1/0000:01:00.0"); /* and rank 2 on rank 0's: the lower pair first */
	assert_int_equal(rt_env_shared_device(keys, 4, K, &a, &b), 1);
	assert_int_equal(a, 0);
	assert_int_equal(b, 2);
	assert_int_equal(rt_env_shared_device(keys, 1, K, &a, &b), 0);
}

static void test_env(void **state)
{
	(void)state;
	rt_env_t e;
	char err[256];
	const char *slurm[] = { "SLURM_PROCID", "5", "SLURM_NTASKS", "8", "SLURM_LOCALID", "1", NULL };
	_fake_env = slurm;
	assert_int_equal(rt_env_read(&e, _fake_getenv, err, sizeof err), 0);
	assert_int_equal(e.rank, 5);
	assert_int_equal(e.world, 8);
	assert_int_equal(e.local_rank, 1);
	assert_string_equal(e.source, "slurm");
	/* mpirun inside an allocation: Open MPI's variables win */
	const char *both[] = { "SLURM_PROCID",
			       "0",
			       "SLURM_NTASKS",
			       "1",
			       "OMPI_COMM_WORLD_RANK",
			       "3",
			       "OMPI_COMM_WORLD_SIZE",
			       "4",
			       "OMPI_COMM_WORLD_LOCAL_RANK",
			       "3",
			       NULL };
	_fake_env = both;
	assert_int_equal(rt_env_read(&e, _fake_getenv, err, sizeof err), 0);
	assert_int_equal(e.rank, 3);
	assert_int_equal(e.local_rank, 3);
	assert_string_equal(e.source, "openmpi");
	const char *bad[] = { "SLURM_PROCID", "9", "SLURM_NTASKS", "4", NULL };
	_fake_env = bad;
	assert_int_equal(rt_env_read(&e, _fake_getenv, err, sizeof err), -1);
	assert_non_null(strstr(err, "SLURM_PROCID"));
	const char *none[] = { NULL };
	_fake_env = none;
	assert_int_equal(rt_env_read(&e, _fake_getenv, err, sizeof err), 0);
	assert_int_equal(e.world, 1);
	assert_string_equal(e.source, "none");
}

static void test_emulate(void **state)
{
	(void)state;
	double s[8];
	char err[256];
	assert_int_equal(rt_emulate_parse_speeds("1,1,0.5,0.5", s, 8, err, sizeof err), 4);
	assert_float_equal(s[2], 0.5, 0);
	assert_int_equal(rt_emulate_parse_speeds("1,,2", s, 8, err, sizeof err), -1);
	assert_non_null(strstr(err, "--emulate-speeds"));
	assert_int_equal(rt_emulate_parse_speeds("1,0", s, 8, err, sizeof err), -1);
	assert_int_equal(rt_emulate_parse_speeds("1,2,", s, 8, err, sizeof err), -1);
	assert_int_equal(rt_emulate_parse_speeds("1,2,3", s, 2, err, sizeof err), -1);
	/* rank 1 at speed 0.5 of base 2 ms: each step is stretched to 4 ms and
     * reported as exactly 4 ms */
	rt_emulate_t e;
	double sp[2] = { 1, 0.5 };
	rt_emulate_init(&e, sp, 2, 1, 2.0);
	assert_float_equal(e.step_ms, 4.0, 0);
	rt_emulate_step_begin(&e);
	double t0 = e.t0;
	assert_float_equal(rt_emulate_step_end(&e), 4.0, 0);
	assert_true(rt_util_clock_s() - t0 >= 4e-3);
}

static void test_options(void **state)
{
	(void)state;
	nodeox_rt_config_t c;
	char err[256];
	nodeox_rt_config_defaults(&c);
	char *ok[] = { "nodeox-run", "--combine", "fednova",          "--inject-nan", "2:3",
		       "-H",         "7",         "--emulate-speeds", "1,0.5",        NULL };
	assert_int_equal(nodeox_rt_config_parse(&c, 9, ok, err, sizeof err), 0);
	assert_int_equal(c.combine, NODEOX_COMBINE_FEDNOVA);
	assert_int_equal(c.inject_nan_rank, 2);
	assert_int_equal(c.inject_nan_round, 3);
	assert_int_equal(c.local_steps, 7);
	assert_int_equal(c.n_emulate_speeds, 2);
	nodeox_rt_config_defaults(&c);
	char *bad[] = { "nodeox-run", "--combine", "median", NULL };
	assert_int_equal(nodeox_rt_config_parse(&c, 3, bad, err, sizeof err), -1);
	assert_non_null(strstr(err, "--combine"));
	assert_non_null(strstr(err, "median"));
	nodeox_rt_config_defaults(&c);
	char *badhook[] = { "nodeox-run", "--inject-exit", "2", NULL };
	assert_int_equal(nodeox_rt_config_parse(&c, 3, badhook, err, sizeof err), -1);
	assert_non_null(strstr(err, "--inject-exit"));
	nodeox_rt_config_defaults(&c);
	char *time_plan[] = { "nodeox-run", "--plan", "time", NULL };
	assert_int_equal(nodeox_rt_config_parse(&c, 3, time_plan, err, sizeof err), -1);
	assert_non_null(strstr(err, "--round-ms"));
	nodeox_rt_config_defaults(&c);
	char *lr[] = { "nodeox-run", "--lr", "fast", NULL };
	assert_int_equal(nodeox_rt_config_parse(&c, 3, lr, err, sizeof err), -1);
	assert_non_null(strstr(err, "--lr"));
	nodeox_rt_config_defaults(&c);
	assert_true(c.eval_ema == 0); /* off by default */
	char *ema[] = { "nodeox-run", "--eval-ema", "0.98", NULL };
	assert_int_equal(nodeox_rt_config_parse(&c, 3, ema, err, sizeof err), 0);
	assert_float_equal(c.eval_ema, 0.98, 1e-12);
	nodeox_rt_config_defaults(&c);
	char *ema_one[] = { "nodeox-run", "--eval-ema", "1", NULL }; /* would never move */
	assert_int_equal(nodeox_rt_config_parse(&c, 3, ema_one, err, sizeof err), -1);
	assert_non_null(strstr(err, "--eval-ema"));
}

/* --workload gpt fills in the transformer's recipe where the command line is
 * silent, and only there; the MLP (the default workload) its own recipe, and
 * the C API's defaults stay DiLoCo's. */
static void test_options_gpt_recipe(void **state)
{
	(void)state;
	nodeox_rt_config_t c;
	char err[256];
	nodeox_rt_config_defaults(&c);
	char *mlp[] = { "nodeox-run", NULL };
	assert_int_equal(nodeox_rt_config_parse(&c, 1, mlp, err, sizeof err), 0);
	assert_int_equal(c.inner, NODEOX_INNER_SGD); /* the MLP's recipe */
	assert_int_equal(c.combine, NODEOX_COMBINE_FEDNOVA);
	assert_float_equal(c.outer_lr, 0.3, 0);
	assert_float_equal(c.outer_momentum, 0.7, 0);
	assert_int_equal(c.sync_warmup_steps, 60);
	assert_int_equal(c.local_steps, 10);
	assert_true(c.average_inner_state);
	nodeox_rt_config_defaults(&c);
	char *mlp_given[] = { "nodeox-run", "--inner-state", "keep", "-H", "20", "--combine", "mean", NULL };
	assert_int_equal(nodeox_rt_config_parse(&c, 7, mlp_given, err, sizeof err), 0);
	assert_false(c.average_inner_state); /* given: kept */
	assert_int_equal(c.local_steps, 20);
	assert_int_equal(c.combine, NODEOX_COMBINE_MEAN);
	assert_float_equal(c.outer_lr, 0.3, 0);
	nodeox_rt_config_defaults(&c); /* the C API's: DiLoCo's */
	assert_int_equal(c.combine, NODEOX_COMBINE_MEAN);
	assert_float_equal(c.outer_lr, 0.7, 0);
	assert_float_equal(c.outer_momentum, 0.9, 0);
	nodeox_rt_config_defaults(&c);
	char *gpt[] = { "nodeox-run", "--outer-lr", "0.5", "--workload", "gpt", "--combine", "mean", NULL };
	assert_int_equal(nodeox_rt_config_parse(&c, 7, gpt, err, sizeof err), 0);
	assert_int_equal(c.workload, NODEOX_WORKLOAD_GPT);
	assert_float_equal(c.outer_lr, 0.5, 0);           /* given: kept */
	assert_int_equal(c.combine, NODEOX_COMBINE_MEAN); /* given: kept */
	assert_float_equal(c.outer_momentum, 0.7, 0);     /* the recipe */
	assert_int_equal(c.inner, NODEOX_INNER_ADAMW);
	assert_float_equal(c.grad_clip, 1.0, 0);
	assert_int_equal(c.sync_warmup_steps, 20);
	assert_int_equal(c.local_steps, 10);
	nodeox_rt_config_defaults(&c);
	char *eval[] = { "nodeox-run", "--evaluate", NULL };
	assert_int_equal(nodeox_rt_config_parse(&c, 2, eval, err, sizeof err), -1);
	assert_non_null(strstr(err, "--workload gpt"));
}

/* --eval-ema's average (rt_ema.c) on the CPU backend: debiased, so the
 * first update copies x and a constant stays constant; x after S samples
 * decays what came before by beta^(S / ref); a round of 7.5 reference steps
 * decays as 7.5 single steps would. */
static void test_ema(void **state)
{
	(void)state;
	const nodeox_backend_t *be = backend_cpu();
	float x1[3] = { 1, -2, 4 }, x2[3] = { 3, 2, 0 }, out[3];
	rt_ema_t e = { 0 };
	assert_int_equal(rt_ema_init(&e, be, 3, 0.9, 256), 0);
	rt_ema_update(&e, x1, 256);
	be->copy_d2h(out, e.avg, sizeof out);
	for (int i = 0; i < 3; i++)
		assert_true(out[i] == x1[i]); /* exact copy */
	for (int k = 0; k < 50; k++)
		rt_ema_update(&e, x1, 256);
	be->copy_d2h(out, e.avg, sizeof out);
	for (int i = 0; i < 3; i++)
		assert_float_equal(out[i], x1[i], 1e-5);
	rt_ema_free(&e);

	/* x1 (weight 1 - 0.9) then x2 after 2 reference steps (d = 0.81):
     * avg = (0.1 d x1 + (1 - d) x2) / (1 - 0.9 d) */
	assert_int_equal(rt_ema_init(&e, be, 3, 0.9, 256), 0);
	rt_ema_update(&e, x1, 256);
	rt_ema_update(&e, x2, 512);
	be->copy_d2h(out, e.avg, sizeof out);
	for (int i = 0; i < 3; i++)
		assert_float_equal(out[i], (0.1 * 0.81 * x1[i] + 0.19 * x2[i]) / (1 - 0.729), 1e-5);
	assert_float_equal(e.weight, 1 - 0.9 * 0.81, 1e-12);
	rt_ema_free(&e);

	/* one update after 7.5 reference steps' samples == 7.5 unit decays */
	assert_int_equal(rt_ema_init(&e, be, 3, 0.95, 256), 0);
	rt_ema_update(&e, x1, 256);
	rt_ema_update(&e, x2, 7.5 * 256);
	assert_float_equal(e.weight, 1 - pow(0.95, 8.5), 1e-12);
	be->copy_d2h(out, e.avg, sizeof out);
	double d = pow(0.95, 7.5);
	for (int i = 0; i < 3; i++)
		assert_float_equal(out[i], (d * 0.05 * x1[i] + (1 - d) * x2[i]) / (d * 0.05 + 1 - d), 1e-5);
	rt_ema_free(&e);
}

/* The intervals kept: all up to RT_SPEEDREC_SAMPLES, then every other one,
 * evenly (1000 intervals of i ms keep 0, 2, 4, ... 998). */
static void test_speedrec_observe(void **state)
{
	(void)state;
	static nodeox_rt_t rt;
	memset(&rt, 0, sizeof rt);
	for (int i = 0; i < 1000; i++)
		rt_speedrec_observe(&rt, i + 1.0);
	assert_int_equal(rt.speed_stride, 2);
	assert_int_equal(rt.speed_n, 500);
	for (int i = 0; i < rt.speed_n; i++)
		assert_true(rt.speed_ms[i] == 2 * i + 1.0);
	rt_speedrec_observe(&rt, 0); /* an interval without steps */
	rt_speedrec_observe(&rt, -1);
	assert_int_equal(rt.speed_n, 500);
}

/* The median after warm-up: the first tenth (at least one) left out. */
static void test_speedrec_median(void **state)
{
	(void)state;
	double one[] = { 7 }, two[] = { 100, 10 }, many[20];
	assert_true(rt_speedrec_median(one, 1) == 7);
	assert_true(rt_speedrec_median(two, 2) == 10); /* the 100 ms first round left out */
	assert_true(rt_speedrec_median(one, 0) == 0);
	for (int i = 0; i < 20; i++)
		many[i] = i < 2 ? 1000 : 10 + (i % 2); /* 2 warm-up rounds of 20 */
	assert_true(rt_speedrec_median(many, 20) == 10.5);
	many[2] = 1000; /* a third slow one is not warm-up: the median holds */
	assert_true(rt_speedrec_median(many, 20) == 11);
}

/* Ranks by type: median of medians, count, batch (0 when they differ);
 * ranks without a type or a time left out. */
static void test_speedrec_summarise(void **state)
{
	(void)state;
	rt_speedrec_rank_t all[6] = {
		{ "a100", 10, 64 }, { "l40s", 30, 64 }, { "a100", 12, 64 },
		{ "", 5, 64 },      { "l40s", 0, 64 },  { "a100", 11, 32 },
	};
	speedrec_t rec;
	assert_int_equal(rt_speedrec_summarise(all, 6, &rec), 2);
	assert_string_equal(rec.t[0].type, "a100");
	assert_true(rec.t[0].step_ms == 11);
	assert_int_equal(rec.t[0].ranks, 3);
	assert_int_equal(rec.t[0].batch, 0);
	assert_string_equal(rec.t[1].type, "l40s");
	assert_true(rec.t[1].step_ms == 30);
	assert_int_equal(rec.t[1].ranks, 1);
	assert_int_equal(rec.t[1].batch, 64);
	assert_int_equal(rt_speedrec_summarise(all + 3, 2, &rec), 0);
}

/* The comment stored: the user's text and tag kept, the workload from the
 * tag, else the job name; an older record replaced; too long refused. */
static void test_speedrec_comment(void **state)
{
	(void)state;
	char out[RT_SPEEDREC_COMMENT + 1], err[256], big[1100];
	speedrec_t rec = { .ntypes = 1 };
	snprintf(rec.t[0].type, sizeof rec.t[0].type, "l40s");
	rec.t[0].step_ms = 25.5;
	rec.t[0].ranks = 2;
	rec.t[0].batch = 64;
	assert_int_equal(rt_speedrec_comment("nodeox:flex:workload=bert-ft my run", "job1", &rec, out, sizeof out,
					     err, sizeof err),
			 0);
	assert_string_equal(out, "nodeox:flex:workload=bert-ft my run nodeox-speeds:v1:w=bert-ft;g=l40s:25.5:2:64");
	assert_int_equal(rt_speedrec_comment("(null)", "train.sh", &rec, out, sizeof out, err, sizeof err), 0);
	assert_string_equal(out, "nodeox-speeds:v1:w=train.sh;g=l40s:25.5:2:64");
	/* a job name the table cannot hold: no workload */
	assert_int_equal(rt_speedrec_comment("x nodeox-speeds:v1:g=a:1:1:1", "my job", &rec, out, sizeof out, err,
					     sizeof err),
			 0);
	assert_string_equal(out, "x nodeox-speeds:v1:g=l40s:25.5:2:64");
	memset(big, 'c', 1000);
	big[1000] = '\0';
	assert_int_equal(rt_speedrec_comment(big, "j", &rec, out, sizeof out, err, sizeof err), -1);
	assert_string_equal(err, "the job's comment (1000 bytes) and the record (37) exceed Slurm's 1024 bytes");
}

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_combine_mean),
		 cmocka_unit_test(test_combine_mean_drops_nonfinite), cmocka_unit_test(test_combine_samples),
		 cmocka_unit_test(test_combine_fednova_plain_sgd),
		 cmocka_unit_test(test_combine_fednova_momentum_and_shards),
		 cmocka_unit_test(test_combine_all_dropped), cmocka_unit_test(test_h_ramp),
		 cmocka_unit_test(test_plan), cmocka_unit_test(test_lr_schedule), cmocka_unit_test(test_env),
		 cmocka_unit_test(test_env_shared_device),
		 cmocka_unit_test(test_emulate), cmocka_unit_test(test_options),
		 cmocka_unit_test(test_options_gpt_recipe), cmocka_unit_test(test_ema),
		 cmocka_unit_test(test_speedrec_observe), cmocka_unit_test(test_speedrec_median),
		 cmocka_unit_test(test_speedrec_summarise), cmocka_unit_test(test_speedrec_comment))
