/*
 * report_prom.c: `nodeox report --prometheus FILE` (report.h) in
 * node_exporter's textfile-collector format (the Prometheus text exposition
 * format, checked by `promtool check metrics` in the tests): gauges named
 * nodeox_report_*, labelled by group, type asked, type run on, account,
 * partition and state, so a dashboard sees broadened jobs by the type they
 * really ran on. GPU time in seconds (the base unit promtool asks for).
 */
#include "cli/report.h"

#include <math.h>

/* A label value: backslash, double quote and newline escaped. */
static void put_label(FILE *out, const char *name, const char *v, int comma)
{
	fprintf(out, "%s%s=\"", comma ? "," : "", name);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', out);
		if (*v == '\n')
			fputs("\\n", out);
		else
			fputc(*v, out);
	}
	fputc('"', out);
}

static void put_head(FILE *out, const char *name, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

static void put_value(FILE *out, double v)
{
	if (isnan(v))
		fputs("} NaN\n", out);
	else
		fprintf(out, "} %.6g\n", v);
}

static void put_dists(FILE *out, const report_t *r, const char *name, const char *help, int which)
{
	put_head(out, name, help);
	for (int g = 0; g < REPORT_NGROUPS; g++) {
		const report_dist_t *d = which == 0   ? &r->group[g].wait
					 : which == 1 ? &r->group[g].run
						      : &r->group[g].turnaround;
		const char *stat[3] = { "mean", "median", "p95" };
		double v[3] = { d->mean, d->median, d->p95 };

		for (int k = 0; k < 3; k++) {
			fprintf(out, "%s{", name);
			put_label(out, "group", report_group_name(g), 0);
			put_label(out, "stat", stat[k], 1);
			put_value(out, v[k]);
		}
	}
}

/* "NAME{group=...,asked=...,ran=...,account=...,partition=...}" of u, then its value */
static void put_use(FILE *out, const char *name, const report_use_t *u)
{
	fprintf(out, "%s{", name);
	put_label(out, "group", report_group_name(u->group), 0);
	put_label(out, "asked", u->asked, 1);
	put_label(out, "ran", u->ran, 1);
	put_label(out, "account", u->account, 1);
	put_label(out, "partition", u->partition, 1);
}

/* The counterfactual: each figure as happened and as the model predicts it
 * (median, lo, hi over the replicas), plugin on and off; the plugin's effect
 * and the model's miss as 0/1 gauges. */
static void put_cf(FILE *out, const report_cf_t *cf)
{
	static const char *const stats[3] = { "median", "lo", "hi" };

	put_head(out, "nodeox_report_cf_seconds",
		 "Wait and turnaround of broadened, kept, record_lost, untagged and all jobs (groups as "
		 "accounting tells them): as happened (run=happened) and as nodeox-sim predicts them with "
		 "the plugin on and off (median, lo, hi over its replicas)");
	for (int g = 0; g < REPORT_CF_NGROUPS; g++)
		for (int k = 0; k < REPORT_CF_NKEYS; k++) {
			const report_cf_group_t *c = &cf->group[g];

			fputs("nodeox_report_cf_seconds{", out);
			put_label(out, "group", report_cf_group_name(g), 0);
			put_label(out, "figure", report_cf_key_name(k), 1);
			put_label(out, "run", "happened", 1);
			put_label(out, "stat", "value", 1);
			put_value(out, c->actual[k]);
			for (int on = 1; on >= 0; on--)
				for (int st = 0; st < 3; st++) {
					const report_range_t *v = on ? &c->on.v[k] : &c->off.v[k];

					fputs("nodeox_report_cf_seconds{", out);
					put_label(out, "group", report_cf_group_name(g), 0);
					put_label(out, "figure", report_cf_key_name(k), 1);
					put_label(out, "run", on ? "on" : "off", 1);
					put_label(out, "stat", stats[st], 1);
					put_value(out, st == 0 ? v->med : st == 1 ? v->lo : v->hi);
				}
		}
	put_head(out, "nodeox_report_cf_effect",
		 "1 for what the plugin made of the figure: sooner or later (the on and off ranges apart), "
		 "or within noise");
	for (int g = 0; g < REPORT_CF_NGROUPS; g++)
		for (int k = 0; k < REPORT_CF_NKEYS; k++) {
			fputs("nodeox_report_cf_effect{", out);
			put_label(out, "group", report_cf_group_name(g), 0);
			put_label(out, "figure", report_cf_key_name(k), 1);
			put_label(out, "effect", report_cf_effect_name(cf->group[g].effect[k]), 1);
			put_value(out, 1);
		}
	put_head(out, "nodeox_report_cf_verdict",
		 "1 for whether the plugin made the group's jobs finish sooner, later or within noise (its "
		 "effect on the mean turnaround), or no jobs");
	for (int g = 0; g < REPORT_CF_NGROUPS; g++) {
		fputs("nodeox_report_cf_verdict{", out);
		put_label(out, "group", report_cf_group_name(g), 0);
		put_label(out, "verdict", report_cf_effect_name(cf->group[g].verdict), 1);
		put_value(out, 1);
	}
	put_head(out, "nodeox_report_cf_model_off",
		 "1 where what happened is outside the model's plugin-on range");
	for (int g = 0; g < REPORT_CF_NGROUPS; g++)
		for (int k = 0; k < REPORT_CF_NKEYS; k++) {
			fputs("nodeox_report_cf_model_off{", out);
			put_label(out, "group", report_cf_group_name(g), 0);
			put_label(out, "figure", report_cf_key_name(k), 1);
			put_value(out, cf->group[g].model_off[k]);
		}
}

void report_write_prom(FILE *out, const report_t *r)
{
	put_head(out, "nodeox_report_jobs", "GPU jobs that ended in the period, by group (nodeox report)");
	for (int g = 0; g < REPORT_NGROUPS; g++) {
		fputs("nodeox_report_jobs{", out);
		put_label(out, "group", report_group_name(g), 0);
		put_value(out, (double)r->group[g].jobs);
	}
	put_dists(out, r, "nodeox_report_wait_seconds", "Wait from submission to start, by group", 0);
	put_dists(out, r, "nodeox_report_run_seconds", "Run time, by group", 1);
	put_dists(out, r, "nodeox_report_turnaround_seconds", "Submission to end, by group", 2);
	put_head(out, "nodeox_report_gpu_seconds",
		 "GPU time used, by group, type asked, type run on, account and partition");
	for (size_t i = 0; i < r->nuse; i++) {
		const report_use_t *u = &r->use[i];

		put_use(out, "nodeox_report_gpu_seconds", u);
		put_value(out, u->gpu_hours * 3600);
	}
	put_head(out, "nodeox_report_state_jobs", "Jobs by type asked, type run on and end state");
	for (size_t i = 0; i < r->ncells; i++)
		for (int s = 0; s < REPORT_NSTATES; s++) {
			fputs("nodeox_report_state_jobs{", out);
			put_label(out, "asked", r->cells[i].asked, 0);
			put_label(out, "ran", r->cells[i].ran, 1);
			put_label(out, "state", report_state_name(s), 1);
			put_value(out, (double)r->cells[i].n[s]);
		}
	put_head(out, "nodeox_report_state_flagged",
		 "1 where a substitute type's rate of the state is well above the asked type's "
		 "(one-sided Fisher exact test, p < 0.05)");
	for (size_t i = 0; i < r->ncells; i++)
		for (int s = 0; s < REPORT_NSTATES; s++) {
			fputs("nodeox_report_state_flagged{", out);
			put_label(out, "asked", r->cells[i].asked, 0);
			put_label(out, "ran", r->cells[i].ran, 1);
			put_label(out, "state", report_state_name(s), 1);
			put_value(out, r->cells[i].flagged[s]);
		}
	put_head(out, "nodeox_report_idle_gpu_seconds",
		 "GPU time broadened jobs used on types other than the one asked");
	fprintf(out, "nodeox_report_idle_gpu_seconds %.6g\n", r->idle_gpu_hours * 3600);
	if (r->cf.made)
		put_cf(out, &r->cf);
	if (!r->prices)
		return;
	put_head(out, "nodeox_report_cost", "Cost at --price, by group, type run on, account and partition");
	for (size_t i = 0; i < r->nuse; i++) {
		const report_use_t *u = &r->use[i];

		put_use(out, "nodeox_report_cost", u);
		put_value(out, report_price_cost(r, u->ran, u->gpu_hours));
	}
}
