/*
 * report_text.c: `nodeox report`'s table (report.h): the groups with their
 * wait, run time and turnaround, why kept jobs were kept, GPU-hours by the
 * type run on, end states by type asked x type run with the flagged excess
 * first, and cost with --price. Seconds as whole numbers.
 */
#include "cli/report.h"

#include <math.h>
#include <string.h>

static void put_secs(FILE *out, double v)
{
	if (isnan(v))
		fprintf(out, " %8s", "-");
	else
		fprintf(out, " %8.0f", v);
}

static void put_dist(FILE *out, const report_dist_t *d)
{
	put_secs(out, d->mean);
	put_secs(out, d->median);
	put_secs(out, d->p95);
}

static double pct(long k, long n)
{
	return n ? 100.0 * (double)k / (double)n : 0;
}

/* "a100 asked, ran on l40s: 212 jobs, 4.2% TIMEOUT (a100 asked and run: 1.1% of 80), p=0.003" */
static void put_flags(FILE *out, const report_t *r)
{
	int any = 0;

	for (size_t i = 0; i < r->ncells; i++) {
		const report_cell_t *c = &r->cells[i];

		for (int s = 0; s < REPORT_NSTATES; s++) {
			if (!c->flagged[s])
				continue;
			if (!any++)
				fprintf(out,
					"\nFLAGGED: a state well above the type's own (one-sided Fisher "
					"exact "
					"test, p < %.2f)\n",
					REPORT_FLAG_P);
			fprintf(out,
				"  %s asked, ran on %s: %ld jobs, %.1f%% %s (%s asked and run: %.1f%% of "
				"%ld), p=%.3g\n",
				c->asked, c->ran, c->jobs, pct(c->n[s], c->jobs), report_state_name(s),
				c->asked, pct(c->base_n[s], c->base_jobs), c->base_jobs, c->p[s]);
		}
	}
	if (!any)
		fprintf(out,
			"\nNo substitute type's end state is well above its asked type's "
			"(one-sided Fisher exact test, p < %.2f).\n",
			REPORT_FLAG_P);
}

static void put_states(FILE *out, const report_t *r)
{
	fprintf(out,
		"\nEnd states by type asked x type run on (jobs; REQUEUED: jobs requeued at least once)\n");
	fprintf(out, "%-10s %-10s %6s", "asked", "ran", "jobs");
	for (int s = 0; s < REPORT_NSTATES; s++)
		fprintf(out, " %s", report_state_name(s));
	fputc('\n', out);
	for (size_t i = 0; i < r->ncells; i++) {
		const report_cell_t *c = &r->cells[i];

		fprintf(out, "%-10s %-10s %6ld", c->asked, c->ran, c->jobs);
		for (int s = 0; s < REPORT_NSTATES; s++)
			fprintf(out, " %*ld%s", (int)strlen(report_state_name(s)) - 1, c->n[s],
				c->flagged[s] ? "!" : " ");
		fputc('\n', out);
	}
}

/* Sum of GPU-hours over r->use by key (type run, account or partition). */
static void put_use_by(FILE *out, const report_t *r, int key, const char *title)
{
	const char *seen[256];
	size_t nseen = 0;

	fprintf(out, "\nGPU-hours%s by %s\n", r->prices ? " and cost" : "", title);
	for (size_t i = 0; i < r->nuse; i++) {
		const char *k = key == 0 ? r->use[i].ran : key == 1 ? r->use[i].account : r->use[i].partition;
		double hours = 0, cost = 0;
		size_t j;

		for (j = 0; j < nseen; j++)
			if (!strcmp(seen[j], k))
				break;
		if (j < nseen || nseen == sizeof(seen) / sizeof(seen[0]))
			continue;
		seen[nseen++] = k;
		for (j = i; j < r->nuse; j++) {
			const report_use_t *u = &r->use[j];
			const char *kj = key == 0 ? u->ran : key == 1 ? u->account : u->partition;

			if (strcmp(kj, k))
				continue;
			hours += u->gpu_hours;
			cost += report_price_cost(r, u->ran, u->gpu_hours);
		}
		fprintf(out, "  %-16s %10.3f", *k ? k : "(none)", hours);
		if (r->prices) {
			if (isnan(cost))
				fprintf(out, "  cost unknown (no --price for a type run)");
			else
				fprintf(out, "  %10.2f", cost);
		}
		fputc('\n', out);
	}
}

static void put_range(FILE *out, const report_range_t *v)
{
	char buf[64];

	if (isnan(v->med))
		snprintf(buf, sizeof(buf), "-");
	else
		snprintf(buf, sizeof(buf), "%.1f (%.1f..%.1f)", v->med, v->lo, v->hi);
	fprintf(out, " %28s", buf);
}

/* Per group (broadened, kept, record_lost where it has jobs, untagged, all):
 * each figure as happened, the model's plugin-on and plugin-off figures and
 * the plugin's effect on it, then the group's verdict; then each figure the
 * model's plugin-on range misses, plainly. */
static void put_cf(FILE *out, const report_t *r)
{
	const report_cf_t *cf = &r->cf;
	int any = 0;

	fprintf(out,
		"\nCounterfactual: nodeox-sim on the same jobs as submitted, %d replicas (median "
		"(lowest..highest));\ngroups as accounting tells them (passed to nodeox-sim by job: "
		"with the plugin off nothing is broadened)\n",
		cf->replicas);
	fprintf(out, "%-11s %-18s %9s %28s %28s  %s\n", "group", "figure", "happened", "model, plugin on",
		"model, plugin off", "plugin made it");
	for (int g = 0; g < REPORT_CF_NGROUPS; g++) {
		const report_cf_group_t *c = &cf->group[g];

		if (g == REPORT_LOST && !c->actual_jobs)
			continue;
		if (!c->actual_jobs && !c->on.jobs && !c->off.jobs) {
			fprintf(out, "%-11s no jobs in this period, none in the model\n",
				report_cf_group_name(g));
			continue;
		}
		for (int k = 0; k < REPORT_CF_NKEYS; k++) {
			fprintf(out, "%-11s %-18s", k ? "" : report_cf_group_name(g), report_cf_key_name(k));
			if (isnan(c->actual[k]))
				fprintf(out, " %9s", "-");
			else
				fprintf(out, " %9.1f", c->actual[k]);
			put_range(out, &c->on.v[k]);
			put_range(out, &c->off.v[k]);
			fprintf(out, "  %s\n", report_cf_effect_name(c->effect[k]));
		}
		fprintf(out, "%-11s jobs: %ld happened, %ld replayed (plugin on), %ld (off)\n", "",
			c->actual_jobs, c->on.jobs, c->off.jobs);
		if (c->verdict == REPORT_CF_EMPTY)
			fprintf(out,
				"%-11s verdict: no %s job ran in one of the model's runs: nothing to "
				"compare\n",
				"", report_cf_group_name(g));
		else
			fprintf(out,
				"%-11s verdict: with the plugin, %s jobs finished %s (mean turnaround, the "
				"model "
				"on against off)\n",
				"", report_cf_group_name(g), report_cf_effect_name(c->verdict));
	}
	for (int g = 0; g < REPORT_CF_NGROUPS; g++)
		for (int k = 0; k < REPORT_CF_NKEYS; k++) {
			const report_cf_group_t *c = &cf->group[g];
			const report_range_t *on = &c->on.v[k];

			if (!c->model_off[k])
				continue;
			any = 1;
			fprintf(out,
				"MODEL OFF: %s %s: %.1f s happened; the model's plugin-on prediction is %.1f "
				"s "
				"(%.1f..%.1f): off by %.1f s more than its range\n",
				report_cf_group_name(g), report_cf_key_name(k), c->actual[k], on->med, on->lo,
				on->hi,
				c->actual[k] < on->lo ? on->lo - c->actual[k] : c->actual[k] - on->hi);
		}
	if (!any)
		fprintf(out, "What happened is inside the model's plugin-on range for every figure.\n");
}

void report_write_text(FILE *out, const report_t *r, const sacct_history_t *h)
{
	fprintf(out,
		"%ld GPU jobs (skipped: %ld without GPUs, %ld never started, %ld still running, "
		"%ld malformed lines)\n\n",
		r->jobs, h->n_nogpu, h->n_unstarted, h->n_running, h->n_bad);
	fprintf(out, "%-12s %6s %26s %26s %26s %10s\n", "group", "jobs", "wait s mean/median/p95",
		"run s mean/median/p95", "turnaround s mean/med/p95", "GPU-hours");
	for (int g = 0; g < REPORT_NGROUPS; g++) {
		const report_group_stats_t *s = &r->group[g];

		if (g == REPORT_LOST && !s->jobs)
			continue;
		fprintf(out, "%-12s %6ld  ", report_group_name(g), s->jobs);
		put_dist(out, &s->wait);
		put_dist(out, &s->run);
		put_dist(out, &s->turnaround);
		fprintf(out, " %10.3f\n", s->gpu_hours);
	}
	if (!r->group[REPORT_BROADENED].jobs && !r->group[REPORT_KEPT].jobs)
		fprintf(out, "\nNo tagged job in this period (no --comment=nodeox:flex in Comment, no nodeox "
			     "record in AdminComment): nothing to say about the plugin.\n");
	if (r->nreasons) {
		fprintf(out, "\nKept, why\n");
		for (size_t i = 0; i < r->nreasons; i++)
			fprintf(out, "  %6ld  %s\n", r->reasons[i].jobs, r->reasons[i].reason);
	}
	if (r->nlost) {
		fprintf(out,
			"\nRecord lost: %zu tagged jobs whose AdminComment is not job_submit/nodeox's "
			"(replaced, e.g. by `scancel --admin-comment`): what nodeox did is not known:",
			r->nlost);
		for (size_t i = 0; i < r->nlost && i < 20; i++)
			fprintf(out, " %s", r->lost_ids[i]);
		fprintf(out, "%s\n", r->nlost > 20 ? " ..." : "");
	}
	fprintf(out, "\nGPU-hours by group and type run on\n");
	for (int g = 0; g < REPORT_NGROUPS; g++)
		for (size_t i = 0; i < r->ntype_hours; i++)
			if (r->type_hours[i].group == (report_group_t)g)
				fprintf(out, "  %-12s %-10s %10.3f\n", report_group_name(g),
					r->type_hours[i].ran, r->type_hours[i].gpu_hours);
	put_states(out, r);
	put_flags(out, r);
	put_use_by(out, r, 0, "type run on");
	if (r->prices) {
		put_use_by(out, r, 1, "account");
		put_use_by(out, r, 2, "partition");
	}
	fprintf(out,
		"\nIdle capacity used: broadened jobs ran %.3f GPU-hours on types other than the one "
		"asked.\n",
		r->idle_gpu_hours);
	if (r->cf.made)
		put_cf(out, r);
}
