/*
 * rt_log.c: what the runtime tells people. Rank 0 prints one line per round
 *   round 12 steps 20,20,10,10 loss 0.4312 acc 0.8571 elapsed 8.41s critical 4.80s
 * (steps per worker this round, mean training loss weighted by samples,
 * test accuracy when evaluated -- "val_loss X" for a workload whose
 * metric is a loss --, training time and critical path so far), warnings go to
 * stderr prefixed with the rank, and --json FILE gets the summary.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "runtime/rt_internal.h"

void rt_log_round(const nodeox_rt_t *rt, const rt_worker_info_t *all, double acc)
{
    if (rt->env.rank != 0 || rt->cfg.quiet) return;
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
    if (acc >= 0) printf(rt->metric_lower_is_better ? " val_loss %.4f" : " acc %.4f", acc);
    printf(" elapsed %.2fs critical %.2fs\n", rt->train_s, rt->critical_s);
    fflush(stdout);
}

void rt_log_warn(const nodeox_rt_t *rt, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "nodeox-run: rank %d: warning: ", rt->env.rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    fflush(stderr);
    va_end(ap);
}

int rt_log_json(const nodeox_rt_t *rt, const nodeox_rt_result_t *res, const char *path)
{
    const nodeox_rt_config_t *c = &rt->cfg;
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        perror(path);
        return -1;
    }
    fprintf(f, "{\n  \"mode\": \"%s\",\n", c->mode == NODEOX_MODE_SYNC ? "sync" : "rounds");
    fprintf(f, "  \"combine\": \"%s\",\n",
            c->mode == NODEOX_MODE_SYNC ? "allreduce" : rt_combine_name(c->combine));
    fprintf(f, "  \"inner\": \"%s\",\n", c->inner == NODEOX_INNER_SGD ? "sgd" : "adamw");
    fprintf(f, "  \"backend\": \"%s\",\n", rt->be->name);
    fprintf(f, "  \"world\": %d,\n", rt->env.world);
    fprintf(f, "  \"nparams\": %zu,\n", rt->n);
    fprintf(f, "  \"workload\": \"%s\",\n", c->workload == NODEOX_WORKLOAD_GPT ? "gpt" : "mlp");
    if (rt->metric_lower_is_better) {
        fprintf(f, "  \"val_loss\": %.6f,\n", res->val_loss);
        fprintf(f, "  \"perplexity\": %.6f,\n", exp(res->val_loss));
        fprintf(f, "  \"target_loss\": %.4f,\n", c->target_loss);
    } else {
        fprintf(f, "  \"test_accuracy\": %.6f,\n", res->test_accuracy);
        fprintf(f, "  \"target_accuracy\": %.4f,\n", c->target_acc);
    }
    fprintf(f, "  \"wall_s\": %.3f,\n", res->wall_s);
    fprintf(f, "  \"train_s\": %.3f,\n", res->train_s);
    if (res->time_to_target_s >= 0) fprintf(f, "  \"time_to_target_s\": %.3f,\n", res->time_to_target_s);
    else fprintf(f, "  \"time_to_target_s\": null,\n");
    fprintf(f, "  \"critical_s\": %.3f,\n", res->critical_s);
    if (res->critical_to_target_s >= 0)
        fprintf(f, "  \"critical_to_target_s\": %.3f,\n", res->critical_to_target_s);
    else fprintf(f, "  \"critical_to_target_s\": null,\n");
    fprintf(f, "  \"rounds\": %ld,\n", res->rounds);
    fprintf(f, "  \"global_steps\": %ld,\n", res->global_steps);
    fprintf(f, "  \"steps\": [");
    for (int i = 0; i < rt->env.world; i++) fprintf(f, "%s%ld", i ? ", " : "", rt->steps_per_worker[i]);
    fprintf(f, "],\n  \"speeds\": [");
    for (int i = 0; i < c->n_emulate_speeds; i++) fprintf(f, "%s%g", i ? ", " : "", c->emulate_speeds[i]);
    fprintf(f, "],\n  \"batches\": [");
    for (int i = 0; i < rt->env.world; i++) fprintf(f, "%s%.0f", i ? ", " : "", rt->batches[i]);
    fprintf(f, "],\n");
    fprintf(f, "  \"dropped\": %ld,\n", res->dropped);
    fprintf(f, "  \"bytes_communicated\": %.0f,\n", res->bytes_communicated);
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
    fprintf(f, "{\n  \"mode\": \"evaluate\",\n");
    fprintf(f, "  \"backend\": \"%s\",\n", rt->be->name);
    fprintf(f, "  \"world\": %d,\n", rt->env.world);
    fprintf(f, "  \"val_loss\": %.9f,\n", res->loss);
    fprintf(f, "  \"perplexity\": %.6f,\n", res->perplexity);
    fprintf(f, "  \"items\": %zu,\n", res->items);
    fprintf(f, "  \"tokens\": %zu,\n", res->tokens);
    fprintf(f, "  \"eval_s\": %.3f,\n", res->wall_s);
    fprintf(f, "  \"items_per_rank\": [");
    for (int i = 0; i < rt->env.world; i++) fprintf(f, "%s%zu", i ? ", " : "", count[i]);
    fprintf(f, "],\n  \"seconds_per_rank\": [");
    for (int i = 0; i < rt->env.world; i++) fprintf(f, "%s%.3f", i ? ", " : "", seconds[i]);
    fprintf(f, "]\n}\n");
    if (fclose(f) != 0) {
        perror(path);
        return -1;
    }
    return 0;
}
