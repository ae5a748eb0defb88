/*
 * rt_log.c: what the runtime tells people. Rank 0 prints one line per round
 *   round 12 steps 20,20,10,10 loss 0.4312 acc 0.8571 elapsed 8.41s critical 4.80s
 * (steps per worker this round, mean training loss weighted by samples,
 * test accuracy when evaluated -- "val_loss X" for a workload whose
 * metric is a loss --, training time and critical path so far), warnings go to
 * stderr prefixed with the rank (one write(2) per line), and --json FILE gets the summary (strings
 * and numbers through common/json_write.h: escaped, and null where a loss or
 * time is NaN, infinite or not reached).
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "common/json_write.h"
#include "runtime/rt_internal.h"

void rt_log_round(const nodeox_rt_t *rt, const rt_worker_info_t *all, double acc)
{
	if (rt->env.rank != 0 || rt->cfg.quiet)
		return;
	double loss = 0, samples = 0;
	printf("round %ld steps ", rt->round);
	for (int i = 0; i < rt->env.world; i++) {
		printf("%s%.0f", i ? "," : "", all[i].steps);
		if (all[i].finite) {
			loss += all[i].loss * all[i].samples;
			samples += all[i].samples;
		}
	}
	printf(" loss %.4f", samples > 0 ? loss / samples : 0.0);
	if (acc >= 0)
		printf(rt->metric_lower_is_better ? " val_loss %.4f" : " acc %.4f", acc);
	printf(" elapsed %.2fs critical %.2fs\n", rt->train_s, rt->critical_s);
	fflush(stdout);
}

void rt_log_warn(const nodeox_rt_t *rt, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	rt_util_say(rt->env.rank, "warning: %s", msg); /* one write: lines of ranks do not mix */
}

/* One line of a --json summary: "  "KEY": " then a string or a number in
 * fmt (null when NaN, infinite or, for times, negative: not reached). */
static void _log_json_string(FILE *f, const char *key, const char *v)
{
	fprintf(f, "  \"%s\": ", key);
	json_write_string(f, v);
	fputs(",\n", f);
}

static void _log_json_number(FILE *f, const char *key, const char *fmt, double v)
{
	fprintf(f, "  \"%s\": ", key);
	json_write_number(f, fmt, v);
	fputs(",\n", f);
}

/* "KEY": a JSON array of n numbers in fmt (null for a non-finite one), then
 * end (",\n", or "\n" for the last key). */
static void _log_json_array(FILE *f, const char *key, const char *fmt, const double *v, size_t n,
			    const char *end)
{
	fprintf(f, "  \"%s\": [", key);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		json_write_number(f, fmt, v[i]);
	}
	fprintf(f, "]%s", end);
}

int rt_log_json(const nodeox_rt_t *rt, const nodeox_rt_result_t *res, const char *path)
{
	const nodeox_rt_config_t *c = &rt->cfg;
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		perror(path);
		return -1;
	}
	fputs("{\n", f);
	_log_json_string(f, "mode", c->mode == NODEOX_MODE_SYNC ? "sync" : "rounds");
	_log_json_string(f, "combine",
			 c->mode == NODEOX_MODE_SYNC ? "allreduce" : rt_combine_name(c->combine));
	_log_json_string(f, "inner", c->inner == NODEOX_INNER_SGD ? "sgd" : "adamw");
	_log_json_string(f, "backend", rt->be->name);
	fprintf(f, "  \"world\": %d,\n", rt->env.world);
	fprintf(f, "  \"nparams\": %zu,\n", rt->n);
	_log_json_string(f, "workload", c->workload == NODEOX_WORKLOAD_GPT ? "gpt" : "mlp");
	if (rt->metric_lower_is_better) {
		_log_json_number(f, "val_loss", "%.6f", res->val_loss);
		_log_json_number(f, "perplexity", "%.6f", exp(res->val_loss));
		_log_json_number(f, "target_loss", "%.4f", c->target_loss);
	} else {
		_log_json_number(f, "test_accuracy", "%.6f", res->test_accuracy);
		_log_json_number(f, "target_accuracy", "%.4f", c->target_acc);
	}
	_log_json_number(f, "wall_s", "%.3f", res->wall_s);
	_log_json_number(f, "train_s", "%.3f", res->train_s);
	_log_json_number(f, "time_to_target_s", "%.3f",
			 res->time_to_target_s >= 0 ? res->time_to_target_s : NAN);
	_log_json_number(f, "critical_s", "%.3f", res->critical_s);
	_log_json_number(f, "critical_to_target_s", "%.3f",
			 res->critical_to_target_s >= 0 ? res->critical_to_target_s : NAN);
	fprintf(f, "  \"rounds\": %ld,\n", res->rounds);
	fprintf(f, "  \"global_steps\": %ld,\n", res->global_steps);
	fputs("  \"steps\": [", f);
	for (int i = 0; i < rt->env.world; i++)
		fprintf(f, "%s%ld", i ? ", " : "", rt->steps_per_worker[i]);
	fputs("],\n", f);
	_log_json_array(f, "speeds", "%g", c->emulate_speeds, (size_t)c->n_emulate_speeds, ",\n");
	_log_json_array(f, "batches", "%.0f", rt->batches, (size_t)rt->env.world, ",\n");
	fprintf(f, "  \"dropped\": %ld,\n", res->dropped);
	_log_json_number(f, "bytes_communicated", "%.0f", res->bytes_communicated);
	fprintf(f, "  \"params_fnv\": \"%016llx\"\n}\n", (unsigned long long)res->params_fnv);
	if (fclose(f) != 0) {
		perror(path);
		return -1;
	}
	return 0;
}

int rt_log_eval_json(const nodeox_rt_t *rt, const nodeox_rt_eval_result_t *res, const size_t *count,
		     const double *seconds, const char *path)
{
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		perror(path);
		return -1;
	}
	fputs("{\n", f);
	_log_json_string(f, "mode", "evaluate");
	_log_json_string(f, "backend", rt->be->name);
	fprintf(f, "  \"world\": %d,\n", rt->env.world);
	_log_json_number(f, "val_loss", "%.9f", res->loss);
	_log_json_number(f, "perplexity", "%.6f", res->perplexity);
	fprintf(f, "  \"items\": %zu,\n", res->items);
	fprintf(f, "  \"tokens\": %zu,\n", res->tokens);
	_log_json_number(f, "eval_s", "%.3f", res->wall_s);
	fputs("  \"items_per_rank\": [", f);
	for (int i = 0; i < rt->env.world; i++)
		fprintf(f, "%s%zu", i ? ", " : "", count[i]);
	fputs("],\n", f);
	_log_json_array(f, "seconds_per_rank", "%.3f", seconds, (size_t)rt->env.world, "\n");
	fputs("}\n", f);
	if (fclose(f) != 0) {
		perror(path);
		return -1;
	}
	return 0;
}
