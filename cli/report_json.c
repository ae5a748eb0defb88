/*
 * report_json.c: `nodeox report --json FILE` (report.h), the figures of the
 * table for programs: {"jobs", "skipped", "groups": {"broadened": {"jobs",
 * "wait": {"mean", "median", "p95"}, "run_time", "turnaround", "gpu_hours",
 * "gpu_hours_by_type"}, "kept" (+ "reasons"), "untagged", "record_lost" (+
 * "job_ids")}, "states": [{"asked", "ran", "state", "jobs", "of", "p",
 * "flagged", "base_jobs", "base_of"}], "use": [{"group", "asked", "ran",
 * "account", "partition", "jobs", "gpu_hours", "cost"}], "idle_gpu_hours",
 * "counterfactual" (put_cf)}. Seconds and hours as numbers, null where undefined.
 */
#include "cli/report.h"
#include "common/json_write.h"

#include <math.h>
#include <string.h>

static void put_dist(FILE *out, const char *name, const report_dist_t *d)
{
	fprintf(out, "\"%s\": {\"mean\": ", name);
	json_write_number(out, "%.3f", d->mean);
	fputs(", \"median\": ", out);
	json_write_number(out, "%.3f", d->median);
	fputs(", \"p95\": ", out);
	json_write_number(out, "%.3f", d->p95);
	fputs("}", out);
}

static void put_group(FILE *out, const report_t *r, report_group_t g)
{
	const report_group_stats_t *s = &r->group[g];
	int first = 1;

	fprintf(out, "\"%s\": {\"jobs\": %ld, ", report_group_name(g), s->jobs);
	put_dist(out, "wait", &s->wait);
	fputs(", ", out);
	put_dist(out, "run_time", &s->run);
	fputs(", ", out);
	put_dist(out, "turnaround", &s->turnaround);
	fputs(", \"gpu_hours\": ", out);
	json_write_number(out, "%.6f", s->gpu_hours);
	fputs(", \"gpu_hours_by_type\": {", out);
	for (size_t i = 0; i < r->ntype_hours; i++) {
		if (r->type_hours[i].group != g)
			continue;
		fputs(first ? "" : ", ", out);
		first = 0;
		json_write_string(out, r->type_hours[i].ran);
		fputs(": ", out);
		json_write_number(out, "%.6f", r->type_hours[i].gpu_hours);
	}
	fputs("}", out);
	if (g == REPORT_KEPT) {
		fputs(", \"reasons\": [", out);
		for (size_t i = 0; i < r->nreasons; i++) {
			fputs(i ? ", {\"reason\": " : "{\"reason\": ", out);
			json_write_string(out, r->reasons[i].reason);
			fprintf(out, ", \"jobs\": %ld}", r->reasons[i].jobs);
		}
		fputs("]", out);
	}
	if (g == REPORT_LOST) {
		fputs(", \"job_ids\": [", out);
		for (size_t i = 0; i < r->nlost; i++) {
			fputs(i ? ", " : "", out);
			json_write_string(out, r->lost_ids[i]);
		}
		fputs("]", out);
	}
	fputs("}", out);
}

static void put_range(FILE *out, const char *name, const report_range_t *v)
{
	fprintf(out, "\"%s\": {\"median\": ", name);
	json_write_number(out, "%.3f", v->med);
	fputs(", \"lo\": ", out);
	json_write_number(out, "%.3f", v->lo);
	fputs(", \"hi\": ", out);
	json_write_number(out, "%.3f", v->hi);
	fputs("}", out);
}

/* "counterfactual": {"replicas", "groups": {"broadened"|"kept"|"record_lost"|
 * "untagged"|"all": {"jobs", "replayed_jobs", "replayed_jobs_off", "verdict",
 * KEY: {"actual", "on", "off", "plugin", "model_off"}}}} */
static void put_cf(FILE *out, const report_cf_t *cf)
{
	if (!cf->made) {
		fputs("null", out);
		return;
	}
	fprintf(out, "{\"replicas\": %d, \"groups\": {", cf->replicas);
	for (int g = 0; g < REPORT_CF_NGROUPS; g++) {
		const report_cf_group_t *c = &cf->group[g];

		fprintf(out,
			"%s\"%s\": {\"jobs\": %ld, \"replayed_jobs\": %ld, \"replayed_jobs_off\": %ld, "
			"\"verdict\": \"%s\"",
			g ? ",\n  " : "\n  ", report_cf_group_name(g), c->actual_jobs, c->on.jobs,
			c->off.jobs, report_cf_effect_name(c->verdict));
		for (int k = 0; k < REPORT_CF_NKEYS; k++) {
			fprintf(out, ", \"%s\": {\"actual\": ", report_cf_key_name(k));
			json_write_number(out, "%.3f", c->actual[k]);
			fputs(", ", out);
			put_range(out, "on", &c->on.v[k]);
			fputs(", ", out);
			put_range(out, "off", &c->off.v[k]);
			fprintf(out, ", \"plugin\": \"%s\", \"model_off\": %s}",
				report_cf_effect_name(c->effect[k]), c->model_off[k] ? "true" : "false");
		}
		fputs("}", out);
	}
	fputs("}}", out);
}

void report_write_json(FILE *out, const report_t *r, const sacct_history_t *h)
{
	int first = 1;

	fprintf(out,
		"{\"jobs\": %ld, \"skipped\": {\"no_gpu\": %ld, \"never_started\": %ld, "
		"\"running\": %ld, \"malformed\": %ld, \"steps\": %ld}, \"requeues_merged\": %ld,\n",
		r->jobs, h->n_nogpu, h->n_unstarted, h->n_running, h->n_bad, h->n_step, h->n_requeued);
	fputs(" \"groups\": {", out);
	for (int g = 0; g < REPORT_NGROUPS; g++) {
		fputs(g ? ",\n  " : "\n  ", out);
		put_group(out, r, (report_group_t)g);
	}
	fputs("},\n \"states\": [", out);
	for (size_t i = 0; i < r->ncells; i++) {
		const report_cell_t *c = &r->cells[i];

		for (int s = 0; s < REPORT_NSTATES; s++) {
			if (!c->n[s] && !c->flagged[s])
				continue;
			fputs(first ? "\n  {\"asked\": " : ",\n  {\"asked\": ", out);
			first = 0;
			json_write_string(out, c->asked);
			fputs(", \"ran\": ", out);
			json_write_string(out, c->ran);
			fprintf(out,
				", \"state\": \"%s\", \"jobs\": %ld, \"of\": %ld, \"base_jobs\": %ld, "
				"\"base_of\": %ld, \"p\": ",
				report_state_name(s), c->n[s], c->jobs, c->base_n[s], c->base_jobs);
			json_write_number(out, "%.6g", c->p[s]);
			fprintf(out, ", \"flagged\": %s}", c->flagged[s] ? "true" : "false");
		}
	}
	fputs("],\n \"use\": [", out);
	for (size_t i = 0; i < r->nuse; i++) {
		const report_use_t *u = &r->use[i];

		fprintf(out, "%s{\"group\": \"%s\", \"asked\": ", i ? ",\n  " : "\n  ",
			report_group_name(u->group));
		json_write_string(out, u->asked);
		fputs(", \"ran\": ", out);
		json_write_string(out, u->ran);
		fputs(", \"account\": ", out);
		json_write_string(out, u->account);
		fputs(", \"partition\": ", out);
		json_write_string(out, u->partition);
		fprintf(out, ", \"jobs\": %ld, \"gpu_hours\": ", u->jobs);
		json_write_number(out, "%.6f", u->gpu_hours);
		fputs(", \"cost\": ", out);
		json_write_number(out, "%.6f", r->prices ? report_price_cost(r, u->ran, u->gpu_hours) : NAN);
		fputs("}", out);
	}
	fputs("],\n \"idle_gpu_hours\": ", out);
	json_write_number(out, "%.6f", r->idle_gpu_hours);
	fputs(",\n \"counterfactual\": ", out);
	put_cf(out, &r->cf);
	fputs("}\n", out);
}
