/*
 * sweep_report.c: what a sweep prints and writes: one table row per setting
 * (changes of the medians over the replicas against the same replicas'
 * baseline, "~" where the two ranges overlap), the Pareto front of tagged
 * jobs' turnaround gain against untagged jobs' turnaround cost, --json
 * ({"sweep": [...]}, each run in report_json's shape) and --plot (the
 * front, gnuplot). The same figures always give byte-identical outputs:
 * --merge of an array's results prints and writes what the local sweep did.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "common/json_write.h"
#include "sim/run/sweep_report.h"

typedef struct {
	report_figures_t med[2], lo[2], hi[2];
	double tagged_pct, untagged_pct; /* turnaround change, nodeox vs baseline */
	bool pareto;
} sweep_row_t;

static double sweep_pct(double base, double v)
{
	return base != 0 ? 100.0 * (v - base) / fabs(base) : 0;
}

static double sweep_at(const report_figures_t *f, size_t off)
{
	double v;
	memcpy(&v, (const char *)f + off, sizeof(v));
	return v;
}

static sweep_row_t *sweep_rows(const sweep_inputs_t *in, const sweep_plan_t *p, const report_figures_t *figs)
{
	int r = in->replicas;
	sweep_row_t *rows = g_new0(sweep_row_t, p->n);
	for (int s = 0; s < p->n; s++) {
		sweep_row_t *w = &rows[s];
		for (int i = 0; i < 2; i++)
			replica_combine(&figs[(size_t)s * (size_t)r * 2 + (size_t)i], r, 2, &w->med[i],
					&w->lo[i], &w->hi[i]);
		w->tagged_pct = sweep_pct(w->med[0].flex.turnaround_mean_s, w->med[1].flex.turnaround_mean_s);
		w->untagged_pct =
			sweep_pct(w->med[0].untagged_turnaround_mean_s, w->med[1].untagged_turnaround_mean_s);
	}
	/* The front: no other setting gains as much or more for tagged jobs at
	 * no more untagged cost, and strictly better in one of the two. */
	for (int s = 0; s < p->n; s++) {
		rows[s].pareto = true;
		for (int t = 0; t < p->n && rows[s].pareto; t++) {
			double gs = -rows[s].tagged_pct, gt = -rows[t].tagged_pct;
			double cs = rows[s].untagged_pct, ct = rows[t].untagged_pct;
			if (gt >= gs && ct <= cs && (gt > gs || ct < cs))
				rows[s].pareto = false;
		}
	}
	return rows;
}

/* A change cell: "+1.2%", "~" appended when within noise. */
static void sweep_cell(FILE *out, const sweep_row_t *w, size_t off)
{
	double b = sweep_at(&w->med[0], off), v = sweep_at(&w->med[1], off);
	char cell[48];
	if (b == 0 && v == 0)
		snprintf(cell, sizeof(cell), "-");
	else
		snprintf(cell, sizeof(cell), "%+.1f%%%s", sweep_pct(b, v),
			 report_within_noise(sweep_at(&w->lo[0], off), sweep_at(&w->hi[0], off),
					     sweep_at(&w->lo[1], off), sweep_at(&w->hi[1], off))
				 ? "~"
				 : " ");
	fprintf(out, " %11s", cell);
}

static void sweep_table(FILE *out, const sweep_inputs_t *in, const sweep_plan_t *p, const sweep_row_t *rows)
{
	const sim_cluster_t *c = in->setting.c;
	bool price = in->setting.price != NULL;
	fprintf(out,
		"nodeox-sim: sweep of %d setting%s, %d replica%s each: %s: %zu jobs; "
		"cluster %s: ",
		p->n, p->n == 1 ? "" : "s", in->replicas, in->replicas == 1 ? "" : "s", in->trace_name,
		in->setting.t->njobs, in->cluster_name);
	report_cluster_summary(out, c);
	fputs("\nChanges with nodeox against the baseline (plugin off) of the same replicas, "
	      "medians;\n~: within noise (the two runs' ranges overlap); front: on the Pareto "
	      "front of\ntagged jobs' turnaround gain against untagged jobs' turnaround cost.\n\n",
	      out);
	int *wd = g_new0(int, p->nkeys + 1);
	fprintf(out, "  %3s", "#");
	for (int k = 0; k < p->nkeys; k++) {
		wd[k] = (int)strlen(p->keys[k]);
		for (int v = 0; v < p->nvalues[k]; v++)
			wd[k] = MAX(wd[k], (int)strlen(p->values[k][v]));
		fprintf(out, "  %-*s", wd[k], p->keys[k]);
	}
	fprintf(out, " %11s %11s %11s %15s %11s", "tagged TA", "untagged TA", "all wait", "ended later",
		"GPU-hours");
	if (price)
		fprintf(out, " %11s", "cost");
	fputs("  front\n", out);
	for (int s = 0; s < p->n; s++) {
		const sweep_row_t *w = &rows[s];
		fprintf(out, "  %3d", s);
		for (int k = 0; k < p->nkeys; k++)
			fprintf(out, "  %-*s", wd[k], sweep_value(p, s, k));
		sweep_cell(out, w, offsetof(report_figures_t, flex.turnaround_mean_s));
		sweep_cell(out, w, offsetof(report_figures_t, untagged_turnaround_mean_s));
		sweep_cell(out, w, offsetof(report_figures_t, all.wait_mean_s));
		char cell[64];
		if (in->replicas > 1)
			snprintf(cell, sizeof(cell), "%.0f (%.0f..%.0f)", w->med[1].all.ended_later,
				 w->lo[1].all.ended_later, w->hi[1].all.ended_later);
		else
			snprintf(cell, sizeof(cell), "%.0f", w->med[1].all.ended_later);
		fprintf(out, " %15s", cell);
		sweep_cell(out, w, offsetof(report_figures_t, all.gpu_hours));
		if (price)
			sweep_cell(out, w, offsetof(report_figures_t, all.cost));
		fprintf(out, "  %s\n", w->pareto ? "*" : "");
	}
	g_free(wd);
}

static int sweep_json(const char *path, const sweep_inputs_t *in, const sweep_plan_t *p,
		      const sweep_row_t *rows, char *err, size_t errlen)
{
	FILE *f = report_open(path, err, errlen);
	if (!f)
		return -1;
	bool ranges = in->replicas > 1;
	fputs("{", f);
	if (ranges)
		fprintf(f, "\n  \"replicas\": %d,", in->replicas);
	fputs("\n  \"sweep\": [", f);
	for (int s = 0; s < p->n; s++) {
		const sweep_row_t *w = &rows[s];
		fprintf(f, "%s\n    {\"settings\": {", s ? "," : "");
		for (int k = 0; k < p->nkeys; k++) {
			fputs(k ? ", " : "", f);
			json_write_string(f, p->keys[k]);
			fputs(": ", f);
			json_write_string(f, sweep_value(p, s, k));
		}
		fprintf(f,
			"},\n     \"tagged_turnaround_change_pct\": %.3f,"
			"\n     \"untagged_turnaround_change_pct\": %.3f,"
			"\n     \"pareto\": %s,",
			w->tagged_pct, w->untagged_pct, w->pareto ? "true" : "false");
		for (int i = 0; i < 2; i++) {
			report_fig_run_t run = { i ? "nodeox" : "baseline", &w->med[i],
						 ranges ? &w->lo[i] : NULL, ranges ? &w->hi[i] : NULL };
			fprintf(f, "\n     \"%s\": ", run.name);
			report_json_run(f, in->setting.c, &run, in->setting.price, NULL, 5);
			fputs(i ? "}" : ",", f);
		}
	}
	fputs("\n  ]\n}\n", f);
	return report_close(f, path, err, errlen);
}

typedef struct {
	const sweep_plan_t *p;
	const sweep_row_t *rows;
} sweep_plot_t;

/* index 0: every setting; index 1: the front, by untagged cost. */
static void sweep_plot_data(FILE *f, void *arg)
{
	const sweep_plot_t *a = arg;
	for (int s = 0; s < a->p->n; s++)
		fprintf(f, "%.3f %.3f %d\n", a->rows[s].untagged_pct, -a->rows[s].tagged_pct, s);
	fputs("\n\n", f);
	int *order = g_new0(int, a->p->n);
	int n = 0;
	for (int s = 0; s < a->p->n; s++)
		if (a->rows[s].pareto)
			order[n++] = s;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && a->rows[order[j]].untagged_pct < a->rows[order[j - 1]].untagged_pct;
		     j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (int i = 0; i < n; i++)
		fprintf(f, "%.3f %.3f %d\n", a->rows[order[i]].untagged_pct, -a->rows[order[i]].tagged_pct,
			order[i]);
	g_free(order);
}

static void sweep_plot_script(FILE *f, const char *data, void *arg)
{
	(void)arg;
	fprintf(f,
		"set title 'nodeox-sim --sweep: each setting (number as in the table), "
		"the Pareto front joined'\n"
		"set xlabel 'untagged jobs: turnaround change [%%] (cost)'\n"
		"set ylabel 'tagged jobs: turnaround gain [%%]'\nset grid\nset key bottom right\n"
		"plot '%s' index 0 using 1:2 with points pt 7 ps 1 title 'setting', "
		"'' index 0 using 1:2:3 with labels offset 1,1 notitle, "
		"'' index 1 using 1:2 with linespoints lw 2 pt 6 ps 2 title 'Pareto front'\n",
		data);
}

int sweep_report(const sweep_inputs_t *in, const sweep_plan_t *p, const report_figures_t *figs, char *err,
		 size_t errlen)
{
	sweep_row_t *rows = sweep_rows(in, p, figs);
	int rc = 0;
	if (!in->quiet)
		sweep_table(stdout, in, p, rows);
	if (in->json)
		rc = sweep_json(in->json, in, p, rows, err, errlen);
	if (rc == 0 && in->plot) {
		sweep_plot_t a = { p, rows };
		rc = report_gnuplot(in->plot, in->gnuplot, sweep_plot_data, sweep_plot_script, &a, err,
				    errlen);
	}
	g_free(rows);
	return rc;
}
