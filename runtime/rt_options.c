/*
 * rt_options.c: nodeox-run's command line and the runtime's defaults.
 * Every option is listed in doc/nodeox-run.1; a bad value is reported with
 * the option's name and what was expected.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt_internal.h"
#include "runtime/workload_gpt.h"

void nodeox_rt_config_defaults(nodeox_rt_config_t *c)
{
	workload_gpt_opts_t gpt; /* the GPT recipe's defaults have one home */
	workload_gpt_opts_default(&gpt);
	memset(c, 0, sizeof *c);
	c->mode = NODEOX_MODE_ROUNDS;
	c->combine = NODEOX_COMBINE_MEAN;
	c->inner = NODEOX_INNER_SGD;
	c->plan = NODEOX_PLAN_SPEED;
	c->backend = "cpu";
	c->speed_record = 1;
	c->lr = 0.05;
	c->lr_min_ratio = 0.1;
	c->momentum = 0.9;
	c->weight_decay = 0;
	c->beta1 = 0.9;
	c->beta2 = 0.95;
	c->eps = 1e-8;
	c->batch = 0; /* the workload's: 64 images (MLP), 8 windows (GPT) */
	c->hidden = "256,128,100";
	c->workload = NODEOX_WORKLOAD_MLP;
	c->corpus = gpt.corpus;
	c->layers = gpt.layers;
	c->channels = gpt.channels;
	c->heads = gpt.heads;
	c->context = gpt.context;
	c->total_steps = 2000;
	c->warmup_steps = 50;
	c->local_steps = 20;
	c->round_ms = 0;
	c->outer_lr = 0.7;
	c->outer_momentum = 0.9;
	c->eval_every = 1;
	c->target_acc = 0.85;
	c->emulate_base_ms = 20;
	c->seed = 1;
	c->fault_initial_s = 120;
	c->fault_factor = 4;
	c->fault_min_s = 15;
	c->inject_nan_rank = c->inject_nan_round = -1;
	c->inject_exit_rank = c->inject_exit_round = -1;
	c->inject_hang_rank = c->inject_hang_round = -1;
}

static const char _usage[] =
	"usage: nodeox-run [options]   (one process per GPU, under srun or mpirun)\n"
	"  --mode rounds|sync        heterogeneous rounds (default) or synchronous data parallel\n"
	"  --evaluate                no training: evaluate (--init-model) on the validation set,\n"
	"                            split across ranks by speed; loss and perplexity\n"
	"  --workload mlp|gpt        Fashion-MNIST MLP (default) or byte-level transformer\n"
	"  --corpus NAME|PATH        gpt text: fortunes (default), gcide, a directory or file\n"
	"  --layers N, --channels N, --heads N, --context N   gpt shape (default 2, 64, 4, 64)\n"
	"  --max-docs N              read only the first N corpus documents\n"
	"  --eval-windows N          evaluate on the first N validation windows (default all)\n"
	"  --target-loss X           record time to this validation loss (gpt)\n"
	"  --grad-clip X             clip the gradient's global norm to X (default off)\n"
	"  --init-model FILE, --save-model FILE   start from / write the global weights\n"
	"  --combine mean|samples|fednova   how pseudo-gradients are combined (default mean)\n"
	"  --plan speed|time|fixed   local steps per worker: speed-sized (default), per\n"
	"                            --round-ms time budget, or H for all\n"
	"  -H, --local-steps H       steps of the fastest worker per round (default 20)\n"
	"  --round-ms MS             time budget per round for --plan time\n"
	"  --sync-warmup N           synchronous steps before the first round (default 0)\n"
	"  --h-ramp N                H grows from 2 to -H over the first N global steps\n"
	"  --outer-lr X, --outer-momentum X   outer Nesterov SGD (default 0.7, 0.9)\n"
	"  --inner sgd|adamw         inner optimizer (default sgd)\n"
	"  --lr X, --lr-min-ratio X, --momentum X, --weight-decay X,\n"
	"  --beta1 X, --beta2 X, --eps X     inner optimizer settings\n"
	"  --steps N                 global steps (LR schedule length, default 2000)\n"
	"  --warmup-steps N          linear LR warm-up (default 50)\n"
	"  --inner-state keep|reset|average   inner optimizer state at round ends: each\n"
	"                            worker keeps its own (default), zeroed, or averaged\n"
	"                            over workers with the combine's weights\n"
	"  --reset-inner-state       the same as --inner-state reset\n"
	"  --batch N (default 64 mlp, 8 gpt), --hidden 256,128,100, --max-train N, --data DIR,\n"
	"  --batch-by-speed          each rank's batch sized to its speed (batch * s / max s);\n"
	"                            every rank then takes the same steps per round\n"
	"  --seed N\n"
	"  --backend cpu|cuda        where the numbers live (default cpu)\n"
	"  --eval-every N            evaluate test accuracy every N rounds (default 1)\n"
	"  --eval-ema BETA           evaluate a moving average of the weights, decay BETA\n"
	"                            per world * batch samples (default 0: off)\n"
	"  --target-acc X            record time to this test accuracy (default 0.85)\n"
	"  --stop-at-target          stop once it is reached\n"
	"  --emulate-speeds S,S,...  per-rank speed factors; a step takes base-ms / speed\n"
	"  --emulate-base-ms MS      step duration at speed 1 (default 20)\n"
	"  --checkpoint-dir DIR, --checkpoint-every K, --resume\n"
	"  --json FILE               summary at the end (rank 0)\n"
	"  --fault-initial S, --fault-factor F, --fault-min S\n"
	"                            collective deadline: S before any round, then\n"
	"                            F * longest round + min (default 120, 4, 15)\n"
	"  --inject-nan R:N, --inject-exit R:N, --inject-hang R:N   test hooks\n"
	"  --no-speed-record         leave no speed record in the job's Comment (under Slurm)\n"
	"  --quiet, --help\n";

enum {
	OPT_MODE = 256,
	OPT_COMBINE,
	OPT_PLAN,
	OPT_ROUND_MS,
	OPT_SYNC_WARMUP,
	OPT_OUTER_LR,
	OPT_OUTER_MOM,
	OPT_INNER,
	OPT_LR,
	OPT_LR_MIN,
	OPT_MOMENTUM,
	OPT_WD,
	OPT_BETA1,
	OPT_BETA2,
	OPT_EPS,
	OPT_STEPS,
	OPT_WARMUP,
	OPT_RESET,
	OPT_BATCH,
	OPT_HIDDEN,
	OPT_MAX_TRAIN,
	OPT_DATA,
	OPT_SEED,
	OPT_BACKEND,
	OPT_EVAL,
	OPT_TARGET,
	OPT_STOP,
	OPT_SPEEDS,
	OPT_BASE_MS,
	OPT_CKDIR,
	OPT_CKEVERY,
	OPT_RESUME,
	OPT_JSON,
	OPT_FINIT,
	OPT_FFACT,
	OPT_FMIN,
	OPT_INAN,
	OPT_IEXIT,
	OPT_IHANG,
	OPT_QUIET,
	OPT_NO_SPEED_RECORD,
	OPT_EVALUATE,
	OPT_WORKLOAD,
	OPT_CORPUS,
	OPT_LAYERS,
	OPT_CHANNELS,
	OPT_HEADS,
	OPT_CONTEXT,
	OPT_MAX_DOCS,
	OPT_EVAL_WINDOWS,
	OPT_TARGET_LOSS,
	OPT_CLIP,
	OPT_INIT_MODEL,
	OPT_SAVE_MODEL,
	OPT_H_RAMP,
	OPT_EVAL_EMA,
	OPT_INNER_STATE,
	OPT_BATCH_BY_SPEED
};

static const struct option _options[] = {
	{ "mode", required_argument, 0, OPT_MODE },
	{ "combine", required_argument, 0, OPT_COMBINE },
	{ "plan", required_argument, 0, OPT_PLAN },
	{ "local-steps", required_argument, 0, 'H' },
	{ "round-ms", required_argument, 0, OPT_ROUND_MS },
	{ "sync-warmup", required_argument, 0, OPT_SYNC_WARMUP },
	{ "h-ramp", required_argument, 0, OPT_H_RAMP },
	{ "outer-lr", required_argument, 0, OPT_OUTER_LR },
	{ "outer-momentum", required_argument, 0, OPT_OUTER_MOM },
	{ "inner", required_argument, 0, OPT_INNER },
	{ "lr", required_argument, 0, OPT_LR },
	{ "lr-min-ratio", required_argument, 0, OPT_LR_MIN },
	{ "momentum", required_argument, 0, OPT_MOMENTUM },
	{ "weight-decay", required_argument, 0, OPT_WD },
	{ "beta1", required_argument, 0, OPT_BETA1 },
	{ "beta2", required_argument, 0, OPT_BETA2 },
	{ "eps", required_argument, 0, OPT_EPS },
	{ "steps", required_argument, 0, OPT_STEPS },
	{ "warmup-steps", required_argument, 0, OPT_WARMUP },
	{ "reset-inner-state", no_argument, 0, OPT_RESET },
	{ "inner-state", required_argument, 0, OPT_INNER_STATE },
	{ "batch", required_argument, 0, OPT_BATCH },
	{ "batch-by-speed", no_argument, 0, OPT_BATCH_BY_SPEED },
	{ "hidden", required_argument, 0, OPT_HIDDEN },
	{ "max-train", required_argument, 0, OPT_MAX_TRAIN },
	{ "data", required_argument, 0, OPT_DATA },
	{ "seed", required_argument, 0, OPT_SEED },
	{ "backend", required_argument, 0, OPT_BACKEND },
	{ "eval-every", required_argument, 0, OPT_EVAL },
	{ "eval-ema", required_argument, 0, OPT_EVAL_EMA },
	{ "target-acc", required_argument, 0, OPT_TARGET },
	{ "stop-at-target", no_argument, 0, OPT_STOP },
	{ "emulate-speeds", required_argument, 0, OPT_SPEEDS },
	{ "emulate-base-ms", required_argument, 0, OPT_BASE_MS },
	{ "checkpoint-dir", required_argument, 0, OPT_CKDIR },
	{ "checkpoint-every", required_argument, 0, OPT_CKEVERY },
	{ "resume", no_argument, 0, OPT_RESUME },
	{ "json", required_argument, 0, OPT_JSON },
	{ "fault-initial", required_argument, 0, OPT_FINIT },
	{ "fault-factor", required_argument, 0, OPT_FFACT },
	{ "fault-min", required_argument, 0, OPT_FMIN },
	{ "inject-nan", required_argument, 0, OPT_INAN },
	{ "inject-exit", required_argument, 0, OPT_IEXIT },
	{ "inject-hang", required_argument, 0, OPT_IHANG },
	{ "quiet", no_argument, 0, OPT_QUIET },
	{ "no-speed-record", no_argument, 0, OPT_NO_SPEED_RECORD },
	{ "evaluate", no_argument, 0, OPT_EVALUATE },
	{ "workload", required_argument, 0, OPT_WORKLOAD },
	{ "corpus", required_argument, 0, OPT_CORPUS },
	{ "layers", required_argument, 0, OPT_LAYERS },
	{ "channels", required_argument, 0, OPT_CHANNELS },
	{ "heads", required_argument, 0, OPT_HEADS },
	{ "context", required_argument, 0, OPT_CONTEXT },
	{ "max-docs", required_argument, 0, OPT_MAX_DOCS },
	{ "eval-windows", required_argument, 0, OPT_EVAL_WINDOWS },
	{ "target-loss", required_argument, 0, OPT_TARGET_LOSS },
	{ "grad-clip", required_argument, 0, OPT_CLIP },
	{ "init-model", required_argument, 0, OPT_INIT_MODEL },
	{ "save-model", required_argument, 0, OPT_SAVE_MODEL },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

static int _opt_double(const char *name, const char *s, double lo, double hi, double *out, char *err,
		       size_t errlen)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || !(v >= lo && v <= hi)) {
		snprintf(err, errlen, "--%s: '%s' is not a number in [%g, %g]", name, s, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

static int _opt_long(const char *name, const char *s, long lo, long hi, long *out, char *err, size_t errlen)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0 || v < lo || v > hi) {
		snprintf(err, errlen, "--%s: '%s' is not an integer in [%ld, %ld]", name, s, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

/* "RANK:ROUND" for the test hooks. */
static int _opt_hook(const char *name, const char *s, int *rank, int *round, char *err, size_t errlen)
{
	int r, n, used = 0;
	if (sscanf(s, "%d:%d%n", &r, &n, &used) != 2 || s[used] != '\0' || r < 0 || n < 1) {
		snprintf(err, errlen, "--%s: '%s' is not RANK:ROUND (rank >= 0, round >= 1)", name, s);
		return -1;
	}
	*rank = r;
	*round = n;
	return 0;
}

static int _opt_choice(const char *name, const char *s, const char *const *choices, int *out, char *err,
		       size_t errlen)
{
	for (int i = 0; choices[i]; i++)
		if (strcmp(s, choices[i]) == 0) {
			*out = i;
			return 0;
		}
	snprintf(err, errlen, "--%s: '%s' is not one of", name, s);
	for (int i = 0; choices[i]; i++) {
		size_t len = strlen(err);
		snprintf(err + len, errlen - len, "%s %s", i ? "," : "", choices[i]);
	}
	return -1;
}

/* The transformer's recipe, for what the command line left unset: AdamW as
 * in DiLoCo's inner optimizer (betas 0.9/0.95, weight decay 0.1) at lr 3e-3
 * with 20 warm-up steps and the gradient clipped to norm 1; rounds tuned on
 * fine-tuning (doc/runtime.md, "Rounds quality"): H 10, samples-weighted
 * combine, outer lr 0.9 with momentum 0.7, 20 synchronous warm-up steps. */
static void _opt_gpt_defaults(nodeox_rt_config_t *c, const unsigned char *given)
{
	if (!given[OPT_INNER])
		c->inner = NODEOX_INNER_ADAMW;
	if (!given[OPT_LR])
		c->lr = 0.003;
	if (!given[OPT_WD])
		c->weight_decay = 0.1;
	if (!given[OPT_WARMUP])
		c->warmup_steps = 20;
	if (!given[OPT_CLIP])
		c->grad_clip = 1.0;
	if (!given['H'])
		c->local_steps = 10;
	if (!given[OPT_COMBINE])
		c->combine = NODEOX_COMBINE_SAMPLES;
	if (!given[OPT_OUTER_LR])
		c->outer_lr = 0.9;
	if (!given[OPT_OUTER_MOM])
		c->outer_momentum = 0.7;
	if (!given[OPT_SYNC_WARMUP])
		c->sync_warmup_steps = 20;
}

/* The MLP's recipe, for what the command line left unset: rounds tuned on
 * Fashion-MNIST at speeds 1,1,0.5,0.5 (doc/runtime.md, "MLP training": 1.52x
 * and 1.41x sooner to 0.85 than synchronous training on two sets of held-out
 * seeds, final accuracy >= 0.884): H 10, FedNova combine, outer lr 0.3 with
 * momentum 0.7, 60 synchronous warm-up steps, the workers' momentum averaged
 * at every round end. The C API's defaults (nodeox_rt_config_defaults) stay
 * DiLoCo's, for models plugged in without a recipe of their own. */
static void _opt_mlp_defaults(nodeox_rt_config_t *c, const unsigned char *given)
{
	if (!given['H'])
		c->local_steps = 10;
	if (!given[OPT_COMBINE])
		c->combine = NODEOX_COMBINE_FEDNOVA;
	if (!given[OPT_OUTER_LR])
		c->outer_lr = 0.3;
	if (!given[OPT_OUTER_MOM])
		c->outer_momentum = 0.7;
	if (!given[OPT_SYNC_WARMUP])
		c->sync_warmup_steps = 60;
	if (!given[OPT_INNER_STATE] && !given[OPT_RESET])
		c->average_inner_state = 1;
}

int nodeox_rt_config_parse(nodeox_rt_config_t *c, int argc, char **argv, char *err, size_t errlen)
{
	static const char *const modes[] = { "rounds", "sync", NULL };
	static const char *const combines[] = { "mean", "samples", "fednova", NULL };
	static const char *const inners[] = { "sgd", "adamw", NULL };
	static const char *const plans[] = { "speed", "time", "fixed", NULL };
	static const char *const workloads[] = { "mlp", "gpt", NULL };
	static const char *const inner_states[] = { "keep", "reset", "average", NULL };
	int opt, choice, rc = 0;
	long l;
	unsigned char given[512] = { 0 }; /* by option code: set on the command line */
	optind = 1;
	opterr = 0;
	while (rc == 0 && (opt = getopt_long(argc, argv, "H:h", _options, NULL)) != -1) {
		const char *name = "";
		if (opt >= 0 && opt < (int)sizeof given)
			given[opt] = 1;
		for (const struct option *o = _options; o->name; o++)
			if (o->val == opt)
				name = o->name;
		switch (opt) {
		case OPT_MODE:
			if ((rc = _opt_choice(name, optarg, modes, &choice, err, errlen)) == 0)
				c->mode = choice;
			break;
		case OPT_COMBINE:
			if ((rc = _opt_choice(name, optarg, combines, &choice, err, errlen)) == 0)
				c->combine = choice;
			break;
		case OPT_INNER:
			if ((rc = _opt_choice(name, optarg, inners, &choice, err, errlen)) == 0)
				c->inner = choice;
			break;
		case OPT_PLAN:
			if ((rc = _opt_choice(name, optarg, plans, &choice, err, errlen)) == 0)
				c->plan = choice;
			break;
		case 'H':
			if ((rc = _opt_long(name, optarg, 1, 1000000, &l, err, errlen)) == 0)
				c->local_steps = (int)l;
			break;
		case OPT_ROUND_MS:
			rc = _opt_double(name, optarg, 1e-3, 1e9, &c->round_ms, err, errlen);
			break;
		case OPT_H_RAMP:
			rc = _opt_long(name, optarg, 0, LONG_MAX / 2, &c->h_ramp_steps, err, errlen);
			break;
		case OPT_SYNC_WARMUP:
			rc = _opt_long(name, optarg, 0, LONG_MAX / 2, &c->sync_warmup_steps, err, errlen);
			break;
		case OPT_OUTER_LR: rc = _opt_double(name, optarg, 0, 100, &c->outer_lr, err, errlen); break;
		case OPT_OUTER_MOM:
			rc = _opt_double(name, optarg, 0, 0.9999, &c->outer_momentum, err, errlen);
			break;
		case OPT_EVAL_EMA:
			rc = _opt_double(name, optarg, 0, 0.999999, &c->eval_ema, err, errlen);
			break;
		case OPT_LR: rc = _opt_double(name, optarg, 0, 100, &c->lr, err, errlen); break;
		case OPT_LR_MIN: rc = _opt_double(name, optarg, 0, 1, &c->lr_min_ratio, err, errlen); break;
		case OPT_MOMENTUM:
			rc = _opt_double(name, optarg, 0, 0.9999, &c->momentum, err, errlen);
			break;
		case OPT_WD: rc = _opt_double(name, optarg, 0, 10, &c->weight_decay, err, errlen); break;
		case OPT_BETA1: rc = _opt_double(name, optarg, 0, 0.9999, &c->beta1, err, errlen); break;
		case OPT_BETA2: rc = _opt_double(name, optarg, 0, 0.99999, &c->beta2, err, errlen); break;
		case OPT_EPS: rc = _opt_double(name, optarg, 1e-30, 1, &c->eps, err, errlen); break;
		case OPT_STEPS:
			rc = _opt_long(name, optarg, 1, LONG_MAX / 2, &c->total_steps, err, errlen);
			break;
		case OPT_WARMUP:
			rc = _opt_long(name, optarg, 0, LONG_MAX / 2, &c->warmup_steps, err, errlen);
			break;
		case OPT_RESET:
			c->reset_inner_state = 1;
			c->average_inner_state = 0;
			break;
		case OPT_INNER_STATE:
			if ((rc = _opt_choice(name, optarg, inner_states, &choice, err, errlen)) == 0) {
				c->reset_inner_state = choice == 1;
				c->average_inner_state = choice == 2;
			}
			break;
		case OPT_BATCH:
			if ((rc = _opt_long(name, optarg, 1, 1 << 20, &l, err, errlen)) == 0)
				c->batch = (int)l;
			break;
		case OPT_BATCH_BY_SPEED: c->batch_by_speed = 1; break;
		case OPT_HIDDEN: c->hidden = optarg; break;
		case OPT_MAX_TRAIN:
			rc = _opt_long(name, optarg, 0, LONG_MAX / 2, &c->max_train, err, errlen);
			break;
		case OPT_DATA: c->data_dir = optarg; break;
		case OPT_SEED:
			if ((rc = _opt_long(name, optarg, 0, LONG_MAX, &l, err, errlen)) == 0)
				c->seed = (uint64_t)l;
			break;
		case OPT_BACKEND: c->backend = optarg; break;
		case OPT_EVAL:
			if ((rc = _opt_long(name, optarg, 0, INT_MAX, &l, err, errlen)) == 0)
				c->eval_every = (int)l;
			break;
		case OPT_TARGET: rc = _opt_double(name, optarg, 0, 1, &c->target_acc, err, errlen); break;
		case OPT_STOP: c->stop_at_target = 1; break;
		case OPT_SPEEDS:
			c->n_emulate_speeds = rt_emulate_parse_speeds(optarg, c->emulate_speeds,
								      NODEOX_RT_MAX_WORKERS, err, errlen);
			rc = c->n_emulate_speeds < 0 ? -1 : 0;
			break;
		case OPT_BASE_MS:
			rc = _opt_double(name, optarg, 0.001, 1e7, &c->emulate_base_ms, err, errlen);
			break;
		case OPT_CKDIR: c->checkpoint_dir = optarg; break;
		case OPT_CKEVERY:
			if ((rc = _opt_long(name, optarg, 0, INT_MAX, &l, err, errlen)) == 0)
				c->checkpoint_every = (int)l;
			break;
		case OPT_RESUME: c->resume = 1; break;
		case OPT_JSON: c->json_path = optarg; break;
		case OPT_FINIT:
			rc = _opt_double(name, optarg, 0.1, 1e7, &c->fault_initial_s, err, errlen);
			break;
		case OPT_FFACT: rc = _opt_double(name, optarg, 1, 1e4, &c->fault_factor, err, errlen); break;
		case OPT_FMIN: rc = _opt_double(name, optarg, 0, 1e7, &c->fault_min_s, err, errlen); break;
		case OPT_INAN:
			rc = _opt_hook(name, optarg, &c->inject_nan_rank, &c->inject_nan_round, err, errlen);
			break;
		case OPT_IEXIT:
			rc = _opt_hook(name, optarg, &c->inject_exit_rank, &c->inject_exit_round, err,
				       errlen);
			break;
		case OPT_IHANG:
			rc = _opt_hook(name, optarg, &c->inject_hang_rank, &c->inject_hang_round, err,
				       errlen);
			break;
		case OPT_QUIET: c->quiet = 1; break;
		case OPT_NO_SPEED_RECORD: c->speed_record = 0; break;
		case OPT_EVALUATE: c->mode = NODEOX_MODE_EVALUATE; break;
		case OPT_WORKLOAD:
			if ((rc = _opt_choice(name, optarg, workloads, &choice, err, errlen)) == 0)
				c->workload = choice;
			break;
		case OPT_CORPUS: c->corpus = optarg; break;
		case OPT_LAYERS:
			if ((rc = _opt_long(name, optarg, 1, 64, &l, err, errlen)) == 0)
				c->layers = (int)l;
			break;
		case OPT_CHANNELS:
			if ((rc = _opt_long(name, optarg, 1, 8192, &l, err, errlen)) == 0)
				c->channels = (int)l;
			break;
		case OPT_HEADS:
			if ((rc = _opt_long(name, optarg, 1, 1024, &l, err, errlen)) == 0)
				c->heads = (int)l;
			break;
		case OPT_CONTEXT:
			if ((rc = _opt_long(name, optarg, 2, 4096, &l, err, errlen)) == 0)
				c->context = (int)l;
			break;
		case OPT_MAX_DOCS:
			rc = _opt_long(name, optarg, 0, LONG_MAX / 2, &c->max_docs, err, errlen);
			break;
		case OPT_EVAL_WINDOWS:
			rc = _opt_long(name, optarg, 0, LONG_MAX / 2, &c->eval_windows, err, errlen);
			break;
		case OPT_TARGET_LOSS:
			rc = _opt_double(name, optarg, 0, 100, &c->target_loss, err, errlen);
			break;
		case OPT_CLIP: rc = _opt_double(name, optarg, 0, 1e9, &c->grad_clip, err, errlen); break;
		case OPT_INIT_MODEL: c->init_model = optarg; break;
		case OPT_SAVE_MODEL: c->save_model = optarg; break;
		case 'h': fputs(_usage, stdout); return 1;
		default:
			if (optopt)
				snprintf(err, errlen, "option -%c: unknown or missing its value (see --help)",
					 optopt);
			else
				snprintf(err, errlen,
					 "option '%s': unknown or missing its value (see --help)",
					 argv[optind - 1]);
			return -1;
		}
	}
	if (rc != 0)
		return -1;
	if (c->workload == NODEOX_WORKLOAD_GPT)
		_opt_gpt_defaults(c, given);
	else
		_opt_mlp_defaults(c, given);
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s' (see --help)", argv[optind]);
		return -1;
	}
	if (c->workload == NODEOX_WORKLOAD_GPT && c->channels % c->heads != 0) {
		snprintf(err, errlen, "--channels %d is not a multiple of --heads %d", c->channels, c->heads);
		return -1;
	}
	if (c->mode == NODEOX_MODE_EVALUATE && c->workload != NODEOX_WORKLOAD_GPT) {
		snprintf(err, errlen, "--evaluate needs --workload gpt (the MLP has no split evaluation)");
		return -1;
	}
	if (c->plan == NODEOX_PLAN_TIME && !(c->round_ms > 0)) {
		snprintf(err, errlen, "--plan time needs --round-ms MS");
		return -1;
	}
	if (c->resume && c->checkpoint_dir == NULL) {
		snprintf(err, errlen, "--resume needs --checkpoint-dir DIR");
		return -1;
	}
	if (c->checkpoint_every > 0 && c->checkpoint_dir == NULL) {
		snprintf(err, errlen, "--checkpoint-every needs --checkpoint-dir DIR");
		return -1;
	}
	return 0;
}
