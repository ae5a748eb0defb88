/*
 * report.c: the last stage of nodeox-sim: statistics of one or two runs and
 * the outputs built from them (stdout table, --json, --jobs CSV, --plot SVG).
 *
 * Percentiles are GSL's (linear interpolation between order statistics, on
 * sorted data). Every number is printed with a fixed format, so the same
 * runs always give byte-identical files.
 */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "common/json_write.h"
#include "common/csv_write.h"
#include "sim/run/price.h"
#include "sim/run/report.h"

static bool report_ran(const sim_result_t *r)
{
	return r->status == SIM_JOB_DONE || r->status == SIM_JOB_TIMEOUT;
}

/* Sort v ascending: an LSD radix sort on the doubles' bits (mapped so that
 * unsigned order is numeric order), 11 bits a pass, passes where every key
 * has the same digit skipped; GSL's heapsort for short arrays. The result is
 * the same array any sort gives, several times faster on a million values. */
static void report_sort(double *v, size_t n)
{
	enum { BITS = 11, RADIX = 1 << BITS };
	if (n < 4096) {
		gsl_sort(v, 1, n);
		return;
	}
	uint64_t *a = g_new(uint64_t, n), *b = g_new(uint64_t, n);
	for (size_t i = 0; i < n; i++) {
		uint64_t k;
		memcpy(&k, &v[i], sizeof(k));
		a[i] = (k >> 63) ? ~k : k | (1ull << 63);
	}
	size_t *cnt = g_new(size_t, RADIX);
	for (int shift = 0; shift < 64; shift += BITS) {
		memset(cnt, 0, sizeof(size_t) * RADIX);
		for (size_t i = 0; i < n; i++)
			cnt[(a[i] >> shift) & (RADIX - 1)]++;
		if (cnt[(a[0] >> shift) & (RADIX - 1)] == n)
			continue;
		size_t sum = 0;
		for (int d = 0; d < RADIX; d++) {
			size_t c = cnt[d];
			cnt[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			b[cnt[(a[i] >> shift) & (RADIX - 1)]++] = a[i];
		uint64_t *t = a;
		a = b;
		b = t;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t k = (a[i] >> 63) ? a[i] & ~(1ull << 63) : ~a[i];
		memcpy(&v[i], &k, sizeof(k));
	}
	g_free(cnt);
	g_free(a);
	g_free(b);
}

static void report_summary(double *v, size_t n, double *mean, double *p50, double *p95)
{
	if (n == 0) {
		*mean = *p50 = *p95 = 0;
		return;
	}
	report_sort(v, n);
	*mean = gsl_stats_mean(v, 1, n);
	*p50 = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.50);
	*p95 = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.95);
}

/* GPU-seconds by type of one job that ran, from the types it used
 * ("a100:2+l40s:2", sched.c) and its run time, added to sec[type]: the same
 * sums sched.c keeps per run, for a group it does not know (a label). */
static void report_job_gpu_seconds(const sim_cluster_t *c, const sim_result_t *r, double *sec)
{
	char buf[256];
	g_strlcpy(buf, r->types ? r->types : "", sizeof(buf));
	for (char *save = NULL, *tok = strtok_r(buf, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
		char *colon = strrchr(tok, ':');
		if (!colon)
			continue;
		*colon = '\0';
		int t = cluster_find_type(c, tok);
		if (t >= 0)
			sec[t] += strtod(colon + 1, NULL) * (double)(r->end - r->start);
	}
}

/* report_stats, or with labels the jobs whose label is `label` (GPU-hours
 * then from each job's types, as the run's own sums have no such group). */
static void report_stats_of(const sim_cluster_t *c, const sim_run_t *run, const sim_run_t *base, int group,
			    const sim_labels_t *labels, int label, int ntypes, report_stats_t *out)
{
	memset(out, 0, sizeof(*out));
	double *wait = g_new(double, run->njobs + 1);
	double *rt = g_new(double, run->njobs + 1);
	double *ta = g_new(double, run->njobs + 1);
	double sec[SIM_MAX_TYPES] = { 0 };
	size_t n = 0;
	out->ended_later = base ? 0 : -1;
	for (size_t j = 0; j < run->njobs; j++) {
		const sim_result_t *r = &run->jobs[j];
		if (!report_ran(r) || (labels && labels->of[j] != label) ||
		    (!labels && group == REPORT_GROUP_FLEX && !r->tagged) ||
		    (!labels && group == REPORT_GROUP_UNTAGGED && r->tagged))
			continue;
		wait[n] = (double)(r->start - r->submit);
		rt[n] = (double)(r->end - r->start);
		ta[n] = (double)(r->end - r->submit);
		n++;
		if (base && report_ran(&base->jobs[j]) && r->end > base->jobs[j].end)
			out->ended_later++;
		if (labels)
			report_job_gpu_seconds(c, r, sec);
	}
	out->jobs = (double)n;
	report_summary(wait, n, &out->wait_mean_s, &out->wait_p50_s, &out->wait_p95_s);
	report_summary(rt, n, &out->run_mean_s, &out->run_p50_s, &out->run_p95_s);
	report_summary(ta, n, &out->turnaround_mean_s, &out->turnaround_p50_s, &out->turnaround_p95_s);
	for (int t = 0; t < ntypes; t++) {
		/* untagged: all less flex, exact (sums of whole GPU-seconds) */
		double s = labels                           ? sec[t]
			   : group == REPORT_GROUP_UNTAGGED ? run->gpu_seconds[0][t] - run->gpu_seconds[1][t]
							    : run->gpu_seconds[group == REPORT_GROUP_FLEX][t];
		out->gpu_hours_type[t] = s / 3600.0;
		out->gpu_hours += out->gpu_hours_type[t];
	}
	g_free(wait);
	g_free(rt);
	g_free(ta);
}

void report_stats(const sim_run_t *run, const sim_run_t *base, int group, int ntypes, report_stats_t *out)
{
	report_stats_of(NULL, run, base, group, NULL, -1, ntypes, out);
}

double report_makespan(const sim_run_t *run)
{
	return (double)(run->last_end - run->first_submit);
}

double report_utilization(const sim_cluster_t *c, const sim_run_t *run)
{
	double span = report_makespan(run), used = 0;
	for (int t = 0; t < c->ntypes; t++)
		used += run->gpu_seconds[0][t];
	return span > 0 && c->total_gpus ? used / (span * (double)c->total_gpus) : 0;
}

size_t report_tagged(const sim_run_t *run)
{
	size_t n = 0;
	for (size_t j = 0; j < run->njobs; j++)
		n += run->jobs[j].tagged;
	return n;
}

void report_figures(const sim_cluster_t *c, const sim_run_t *run, const sim_run_t *base, const double *price,
		    const sim_labels_t *labels, report_figures_t *out)
{
	memset(out, 0, sizeof(*out));
	report_stats(run, base, REPORT_GROUP_ALL, c->ntypes, &out->all);
	report_stats(run, base, REPORT_GROUP_FLEX, c->ntypes, &out->flex);
	report_stats(run, base, REPORT_GROUP_UNTAGGED, c->ntypes, &out->untagged);
	for (int l = 0; labels && l < labels->n; l++)
		report_stats_of(c, run, base, REPORT_GROUP_ALL, labels, l, c->ntypes, &out->label[l]);
	if (price) {
		out->all.cost = price_cost(price, out->all.gpu_hours_type, c->ntypes, out->all.cost_type);
		out->flex.cost = price_cost(price, out->flex.gpu_hours_type, c->ntypes, out->flex.cost_type);
		out->untagged.cost =
			price_cost(price, out->untagged.gpu_hours_type, c->ntypes, out->untagged.cost_type);
		for (int l = 0; labels && l < labels->n; l++)
			out->label[l].cost = price_cost(price, out->label[l].gpu_hours_type, c->ntypes,
							out->label[l].cost_type);
	}
	out->utilization = report_utilization(c, run);
	out->makespan_s = report_makespan(run);
	out->rejected = (double)run->rejected;
	out->never = (double)run->never;
	out->bf_passes = (double)run->bf_passes;
	out->reservations = (double)run->reservations;
	out->releases_scanned = (double)run->releases_scanned;
	out->max_pending = (double)run->max_pending;
	double sum = 0;
	size_t n = 0;
	for (size_t j = 0; j < run->njobs; j++) {
		const sim_result_t *r = &run->jobs[j];
		if (report_ran(r) && !r->tagged) {
			sum += (double)(r->end - r->submit);
			n++;
		}
	}
	out->untagged_turnaround_mean_s = n ? sum / (double)n : 0;
}

bool report_within_noise(double lo0, double hi0, double lo1, double hi1)
{
	return lo1 <= hi0 && lo0 <= hi1;
}

/* ------------------------------------------------------------ table */

/* The figure at byte offset off of a figures struct. */
static double report_at(const report_figures_t *f, size_t off)
{
	double v;
	memcpy(&v, (const char *)f + off, sizeof(v));
	return v;
}

/* One row: the figure at offset off (times scale) of each run; with
 * replicas, each cell the median and its range, and the change marked
 * "within noise" where the two runs' ranges overlap. */
static void report_row(FILE *out, const char *label, const report_fig_run_t *runs, int nruns, size_t off,
		       double scale, int prec)
{
	double v[2] = { 0, 0 }, lo[2] = { 0, 0 }, hi[2] = { 0, 0 };
	bool ranges = runs[0].lo != NULL;
	fprintf(out, "  %-26s", label);
	for (int i = 0; i < nruns; i++) {
		v[i] = scale * report_at(runs[i].med, off);
		if (!ranges) {
			fprintf(out, " %14.*f", prec, v[i]);
			continue;
		}
		lo[i] = scale * report_at(runs[i].lo, off);
		hi[i] = scale * report_at(runs[i].hi, off);
		char cell[96];
		snprintf(cell, sizeof(cell), "%.*f (%.*f..%.*f)", prec, v[i], prec, lo[i], prec, hi[i]);
		fprintf(out, " %26s", cell);
	}
	if (nruns == 2) {
		if (v[0] != 0)
			fprintf(out, " %+9.1f%%", 100.0 * (v[1] - v[0]) / fabs(v[0]));
		else
			fprintf(out, " %10s", "-");
		if (ranges && report_within_noise(lo[0], hi[0], lo[1], hi[1]))
			fputs("  within noise", out);
	}
	fputc('\n', out);
}

#define REPORT_OFF(section, field) (offsetof(report_figures_t, section) + offsetof(report_stats_t, field))

/* The table's and --json's group REPORT_GROUP_LABEL + i: the jobs of
 * --labels label i. */
#define REPORT_GROUP_LABEL 3

/* The offset of a group's statistics in report_figures_t. */
static size_t report_group_off(int group)
{
	return group >= REPORT_GROUP_LABEL
		       ? offsetof(report_figures_t, label) +
				 (size_t)(group - REPORT_GROUP_LABEL) * sizeof(report_stats_t)
	       : group == REPORT_GROUP_FLEX     ? offsetof(report_figures_t, flex)
	       : group == REPORT_GROUP_UNTAGGED ? offsetof(report_figures_t, untagged)
						: offsetof(report_figures_t, all);
}

static void report_section(FILE *out, const sim_cluster_t *c, const report_fig_run_t *runs, int nruns,
			   int group, const double *price, const sim_labels_t *labels)
{
	static const char *const title[] = { "all jobs", "tagged jobs (nodeox:flex)", "untagged jobs" };
	size_t base = report_group_off(group);
	if (group >= REPORT_GROUP_LABEL)
		fprintf(out, "jobs labelled %s (--labels)\n", labels->name[group - REPORT_GROUP_LABEL]);
	else
		fprintf(out, "%s\n", title[group]);
#define ROW(label, field, prec) \
	report_row(out, label, runs, nruns, base + offsetof(report_stats_t, field), 1, prec)
	ROW("jobs run", jobs, 0);
	ROW("wait mean [s]", wait_mean_s, 0);
	ROW("wait p50 [s]", wait_p50_s, 0);
	ROW("wait p95 [s]", wait_p95_s, 0);
	ROW("run time mean [s]", run_mean_s, 0);
	ROW("run time p50 [s]", run_p50_s, 0);
	ROW("run time p95 [s]", run_p95_s, 0);
	ROW("turnaround mean [s]", turnaround_mean_s, 0);
	ROW("turnaround p50 [s]", turnaround_p50_s, 0);
	ROW("turnaround p95 [s]", turnaround_p95_s, 0);
	ROW("GPU-hours", gpu_hours, 1);
	for (int t = 0; t < c->ntypes; t++) {
		char label[96];
		snprintf(label, sizeof(label), "GPU-hours %s", c->types[t][0] ? c->types[t] : "(untyped)");
		ROW(label, gpu_hours_type[t], 1);
	}
	if (price) {
		ROW("cost", cost, 2);
		for (int t = 0; t < c->ntypes; t++) {
			char label[96];
			snprintf(label, sizeof(label), "cost %s", price_type_name(c, t));
			ROW(label, cost_type[t], 2);
		}
	}
#undef ROW
	if (nruns != 2)
		return;
	const report_fig_run_t *on = &runs[1];
	size_t off = base + offsetof(report_stats_t, ended_later);
	if (!on->lo) {
		fprintf(out, "  %-26s %14s %14ld\n", "ended later than baseline", "-",
			(long)report_at(on->med, off));
		return;
	}
	char cell[96];
	snprintf(cell, sizeof(cell), "%.0f (%.0f..%.0f)", report_at(on->med, off), report_at(on->lo, off),
		 report_at(on->hi, off));
	fprintf(out, "  %-26s %26s %26s\n", "ended later than baseline", "-", cell);
}

static void report_checked(FILE *out, const sim_cluster_t *c, const sim_trace_t *t,
			   const report_fig_run_t *runs, int nruns);

/* The large traces' figures the footer quotes, as doc/fidelity.md's
 * generated tables have them (make bench-fidelity): each with the plugin
 * off and on, the simulator's mean wait against the real runs' mean,
 * Slurm's own spread, and the range of the start-order tau against each
 * real run. tests/sim/test_footer.sh computes them again from the
 * simulator and the recorded runs and checks both this table and
 * doc/fidelity.md against them: a model change that leaves either behind
 * fails there. */
typedef struct {
	const char *what;     /* which trace, in words (names it) */
	const char *off, *on; /* mean wait vs real; on NULL: no runs */
	const char *spread_off, *spread_on;
	const char *tau;    /* lowest-highest over both modes */
	const char *effect; /* the plugin's effect there */
} report_replay_t;

static const report_replay_t report_replays[] = {
	{ "A 160-node trace (large) with over 1,000 jobs pending, three runs each way", "+0.6%", "+2.3%",
	  "4.6%", "4.5%", "0.94-0.98", "the plugin's effect there is within Slurm's spread" },
	{ "A 128-node trace (mflarge) with priority/multifactor by job size and about 1,000 jobs "
	  "pending, two runs each way",
	  "-1.7%", "-0.1%", "0.8%", "0.2%", "0.98-0.98",
	  "the plugin's real effect there is within Slurm's spread, and the simulator's is +1.8%" },
	{ "A 128-node trace (mfdbd) as mflarge but with slurmdbd, so that age counts, two runs "
	  "each way",
	  "-0.3%", "-0.4%", "0.0%", "0.4%", "0.98-0.98",
	  "the plugin's real effect there (+1.8% and +2.3%) is beyond Slurm's spread, and the "
	  "simulator's is +1.9%" },
	{ "A 128-node trace (mffair) as mfdbd with fair-share over four accounts of unequal shares, "
	  "two runs each way",
	  "+0.0%", "-1.1%", "1.1%", "0.5%", "0.90-0.94",
	  "the plugin's real effect there (+1.1% and +2.7%) is beyond Slurm's spread, and the "
	  "simulator's is +0.7%" },
};

/* Print text wrapped at 80 columns, between words (text is cut up), and a
 * newline. */
static void report_wrap(FILE *out, char *text)
{
	size_t col = 0;
	for (char *w = strtok(text, " "); w; w = strtok(NULL, " ")) {
		size_t len = strlen(w);
		if (col && col + 1 + len > 80) {
			fputc('\n', out);
			col = 0;
		} else if (col) {
			fputc(' ', out);
			col++;
		}
		fputs(w, out);
		col += len;
	}
	fputc('\n', out);
}

void report_cluster_summary(FILE *out, const sim_cluster_t *c)
{
	fprintf(out, "%d nodes, %" G_GUINT64_FORMAT " GPUs (", c->nnodes, c->total_gpus);
	for (int ty = 0; ty < c->ntypes; ty++) {
		uint64_t n = 0;
		for (int i = 0; i < c->nnodes; i++)
			if (c->nodes[i].type == ty && c->nodes[i].usable)
				n += c->nodes[i].gpus;
		fprintf(out, "%s%s %" G_GUINT64_FORMAT, ty ? ", " : "",
			c->types[ty][0] ? c->types[ty] : "(untyped)", n);
	}
	fputc(')', out);
}

void report_table(FILE *out, const sim_cluster_t *c, const sim_trace_t *t, size_t tagged,
		  const report_fig_run_t *runs, int nruns, const double *price, int replicas,
		  const sim_labels_t *labels)
{
	bool ranges = replicas > 1;
	fprintf(out, "nodeox-sim: %s: %zu jobs (%zu tagged", t->path, t->njobs, tagged);
	if (t->skipped)
		fprintf(out, ", %zu bad rows skipped", t->skipped);
	fprintf(out, "); cluster %s: ", c->dir);
	report_cluster_summary(out, c);
	fputc('\n', out);
	if (ranges)
		fprintf(out,
			"Each figure: the median of %d replicas under Slurm's timing noise "
			"(doc/simulator.md, Replicas),\n(lowest..highest); a change is within noise "
			"where the two ranges overlap.\n",
			replicas);
	fprintf(out, "\n  %-26s", "");
	for (int i = 0; i < nruns; i++)
		fprintf(out, ranges ? " %26s" : " %14s", runs[i].name);
	if (nruns == 2)
		fprintf(out, " %10s", "change");
	fputc('\n', out);
	report_section(out, c, runs, nruns, REPORT_GROUP_ALL, price, labels);
	report_section(out, c, runs, nruns, REPORT_GROUP_FLEX, price, labels);
	report_section(out, c, runs, nruns, REPORT_GROUP_UNTAGGED, price, labels);
	for (int l = 0; labels && l < labels->n; l++)
		report_section(out, c, runs, nruns, REPORT_GROUP_LABEL + l, price, labels);
	fprintf(out, "cluster\n");
#define ROW(label, field, scale, prec) \
	report_row(out, label, runs, nruns, offsetof(report_figures_t, field), scale, prec)
	ROW("GPU utilisation [%]", utilization, 100.0, 1);
	ROW("makespan [s]", makespan_s, 1, 0);
	ROW("rejected at submit", rejected, 1, 0);
	ROW("never started", never, 1, 0);
	ROW("backfill passes", bf_passes, 1, 0);
	ROW("backfill reservations", reservations, 1, 0);
	ROW("releases scanned", releases_scanned, 1, 0);
#undef ROW
	GString *what = g_string_new(
		"Checked against: real slurmctld 22.05 runs (doc/fidelity.md, 2026-12-05). Seven 4-node "
		"traces (16 settings, three with PreferRequested=yes): mean wait within 3% of the real runs "
		"or within Slurm's own spread, start order to a Kendall tau of at least 0.90 (an eighth, "
		"fifo5: its mean wait too, tau 0.836 with the plugin).");
	for (size_t i = 0; i < G_N_ELEMENTS(report_replays); i++) {
		const report_replay_t *r = &report_replays[i];
		if (r->on)
			g_string_append_printf(what,
					       " %s: mean wait %s and %s (Slurm's own spread %s and %s), "
					       "tau %s; %s.",
					       r->what, r->off, r->on, r->spread_off, r->spread_on, r->tau,
					       r->effect);
		else
			g_string_append_printf(what, " %s: mean wait %s (Slurm's own spread %s), tau %s.",
					       r->what, r->off, r->spread_off, r->tau);
	}
	fputc('\n', out);
	report_wrap(out, what->str);
	g_string_free(what, TRUE);
	report_checked(out, c, t, runs, nruns);
	char rel[32];
	cluster_version_label(c->slurm_version, c->slurm_micro, rel, sizeof(rel));
	fprintf(out, "slurm.conf read with Slurm %s's defaults where it is silent (--slurm-version).\n", rel);
}

/* What the real replays of doc/fidelity.md covered (tests/fidelity: 4 nodes
 * of 2 GPU types with 2 sockets each, priority by age and size; and the
 * 160-node trace: 4 GPU types, 2 partitions, multi-node and tagged jobs,
 * FIFO, up to 1,193 jobs pending with bf_max_job_test=100 and
 * default_queue_depth=50 binding; SchedulerParameters at Slurm's defaults
 * otherwise, but bf_interval). Where this run goes beyond, the footer says
 * so: the same model runs, but no replay checked it there. */
#define REPORT_REPLAY_NODES 160
#define REPORT_REPLAY_TYPES 4
#define REPORT_REPLAY_PARTS 2
#define REPORT_REPLAY_PENDING 1193

static void report_item(GString *s, bool *first, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static void report_item(GString *s, bool *first, const char *fmt, ...)
{
	va_list ap;
	g_string_append(s, *first ? "" : ", ");
	*first = false;
	va_start(ap, fmt);
	g_string_append_vprintf(s, fmt, ap);
	va_end(ap);
}

/* The priority configurations the replays covered (doc/fidelity.md): FIFO
 * (priority/basic, or multifactor with every weight the model counts at 0)
 * up to REPORT_REPLAY_NODES nodes; the job-size factor alone (no slurmdbd,
 * so no age) on the 128-node mflarge trace; age and job size with slurmdbd
 * on the 4-node multifactor trace and the 128-node mfdbd trace; fair-share
 * (Fair Tree over accounts.conf, slurmdbd) on the 128-node mffair trace;
 * the QOS factor (qos.conf, slurmdbd) on the 4-node mfqos trace.
 * Every other
 * priority setting is beyond them, and those the model leaves out say so. */
#define REPORT_REPLAY_PRIO_SIZE_NODES 128
#define REPORT_REPLAY_PRIO_AGE_NODES 128
#define REPORT_REPLAY_PRIO_FS_NODES 128
#define REPORT_REPLAY_PRIO_QOS_NODES 4

static void report_priority(GString *in, bool *fi, GString *beyond, bool *fb, const sim_cluster_t *c)
{
	const sim_sched_params_t *p = &c->params;
	if (p->weight_age > 0) {
		if (c->nnodes <= REPORT_REPLAY_PRIO_AGE_NODES)
			report_item(in, fi, "priority by age and job size (slurmdbd)");
		else
			report_item(beyond, fb, "priority by age (replayed on %d nodes only)",
				    REPORT_REPLAY_PRIO_AGE_NODES);
	} else if (p->weight_job_size > 0) {
		if (c->nnodes <= REPORT_REPLAY_PRIO_SIZE_NODES)
			report_item(in, fi, "priority by job size");
		else
			report_item(beyond, fb, "priority by job size on %d nodes (replayed on up to %d)",
				    c->nnodes, REPORT_REPLAY_PRIO_SIZE_NODES);
	} else if (p->weight_partition == 0) {
		report_item(in, fi, "FIFO priority");
	}
	if (p->weight_partition > 0)
		report_item(beyond, fb, "PriorityWeightPartition");
	if (p->weight_job_size > 0 && p->favor_small)
		report_item(beyond, fb, "PriorityFavorSmall");
	if (p->weight_job_size > 0 && p->size_relative)
		report_item(beyond, fb, "PriorityFlags=SMALL_RELATIVE_TO_TIME");
	if (p->weight_partition > 0 && p->no_normal_part)
		report_item(beyond, fb, "PriorityFlags=NO_NORMAL_PART");
	/* fair-share: replayed on the 128-node mffair trace (four accounts
	 * under root, slurmdbd, no AccountingStorageEnforce) */
	if (p->weight_fs > 0) {
		if (p->enforce_limits)
			report_item(beyond, fb, "fair-share with AccountingStorageEnforce=limits (replayed "
						"without it)");
		else if (c->nnodes <= REPORT_REPLAY_PRIO_FS_NODES)
			report_item(in, fi, "fair-share over accounts.conf (Fair Tree)");
		else
			report_item(beyond, fb, "fair-share on %d nodes (replayed on up to %d)", c->nnodes,
				    REPORT_REPLAY_PRIO_FS_NODES);
	}
	/* the QOS factor (qos.c): replayed on the 4-node mfqos trace */
	if (p->weight_qos > 0) {
		if (c->nnodes <= REPORT_REPLAY_PRIO_QOS_NODES)
			report_item(in, fi, "QOS priority from qos.conf");
		else
			report_item(beyond, fb, "QOS priority on %d nodes (replayed on up to %d)", c->nnodes,
				    REPORT_REPLAY_PRIO_QOS_NODES);
	}
	if (p->prio_zero)
		report_item(beyond, fb, "%s (not modelled: counted as 0)", p->prio_zero);
}

/* The footer's second part, computed from this run's inputs: which of its
 * cluster's, settings' and trace's features the replays covered, and which
 * they did not (wrapped at 80 columns). */
static void report_checked(FILE *out, const sim_cluster_t *c, const sim_trace_t *t,
			   const report_fig_run_t *runs, int nruns)
{
	const sim_sched_params_t *p = &c->params;
	GString *in = g_string_new(NULL), *beyond = g_string_new(NULL);
	bool fi = true, fb = true, multi = false, weights = false;
	for (size_t j = 0; j < t->njobs; j++)
		multi |= t->jobs[j].nodes > 1;
	for (int n = 1; n < c->nnodes; n++)
		weights |= c->nodes[n].weight != c->nodes[0].weight;
	size_t pending = 0;
	for (int i = 0; i < nruns; i++)
		pending = MAX(pending, (size_t)(runs[i].hi ? runs[i].hi : runs[i].med)->max_pending);
	if (c->nnodes <= REPORT_REPLAY_NODES)
		report_item(in, &fi, "%d nodes", c->nnodes);
	else
		report_item(beyond, &fb,
			    "%d nodes (the replays had up to %d; the model is the "
			    "same at every size)",
			    c->nnodes, REPORT_REPLAY_NODES);
	report_item(c->ntypes <= REPORT_REPLAY_TYPES ? in : beyond,
		    c->ntypes <= REPORT_REPLAY_TYPES ? &fi : &fb, "%d GPU types", c->ntypes);
	report_item(c->nparts <= REPORT_REPLAY_PARTS ? in : beyond,
		    c->nparts <= REPORT_REPLAY_PARTS ? &fi : &fb, "%d partition%s", c->nparts,
		    c->nparts == 1 ? "" : "s");
	if (multi)
		report_item(in, &fi, "multi-node jobs");
	report_priority(in, &fi, beyond, &fb, c);
	if (pending <= REPORT_REPLAY_PENDING)
		report_item(in, &fi, "at most %zu job%s pending", pending, pending == 1 ? "" : "s");
	else
		report_item(beyond, &fb, "%zu jobs pending at once (the replays: at most %d)", pending,
			    REPORT_REPLAY_PENDING);
	if (p->bf_window_min != 1440)
		report_item(beyond, &fb, "bf_window=%" G_GINT64_FORMAT, p->bf_window_min);
	if (p->bf_resolution_s != 60)
		report_item(beyond, &fb, "bf_resolution=%" G_GINT64_FORMAT, p->bf_resolution_s);
	if (p->bf_max_job_test < (int)pending)
		report_item(in, &fi, "bf_max_job_test=%d below the queue's depth", p->bf_max_job_test);
	if (p->default_queue_depth < (int)pending)
		report_item(in, &fi, "default_queue_depth=%d below the queue's depth",
			    p->default_queue_depth);
	if (weights)
		report_item(beyond, &fb, "node Weight");
	const struct {
		const char *name;
		int v;
	} lim[] = {
		{ "bf_max_job_part", p->bf_max_job_part },
		{ "bf_max_job_user", p->bf_max_job_user },
		{ "bf_max_job_user_part", p->bf_max_job_user_part },
		{ "partition_job_depth", p->partition_job_depth },
		{ "sched_max_job_start", p->sched_max_job_start },
	};
	for (size_t i = 0; i < sizeof(lim) / sizeof(lim[0]); i++)
		if (lim[i].v)
			report_item(beyond, &fb, "%s=%d", lim[i].name, lim[i].v);
	GString *all = g_string_new(NULL);
	g_string_append_printf(all, "This run, in the replays: %s.", fi ? "none of its features" : in->str);
	if (!fb)
		g_string_append_printf(all, " Beyond them: %s.", beyond->str);
	report_wrap(out, all->str);
	g_string_free(all, TRUE);
	g_string_free(in, TRUE);
	g_string_free(beyond, TRUE);
}

/* ------------------------------------------------------------ json */

/* "key": median, and with replicas "key_lo": lowest, "key_hi": highest. */
static void report_json_num(FILE *f, const char *key, const char *fmt, const report_fig_run_t *r, size_t off)
{
	fprintf(f, "\"%s\": ", key);
	fprintf(f, fmt, report_at(r->med, off));
	if (!r->lo)
		return;
	fprintf(f, ", \"%s_lo\": ", key);
	fprintf(f, fmt, report_at(r->lo, off));
	fprintf(f, ", \"%s_hi\": ", key);
	fprintf(f, fmt, report_at(r->hi, off));
}

static void report_json_costs(FILE *f, const sim_cluster_t *c, const char *key, const report_figures_t *fig,
			      size_t base)
{
	fprintf(f, ", \"%s\": {", key);
	for (int t = 0; t < c->ntypes; t++) {
		fputs(t ? ", " : "", f);
		json_write_string(f, price_type_name(c, t));
		fprintf(f, ": %.6f", report_at(fig, base + offsetof(report_stats_t, cost_type[t])));
	}
	fputc('}', f);
}

static void report_json_stats(FILE *f, const sim_cluster_t *c, const report_fig_run_t *r, int group,
			      const double *price)
{
	size_t base = report_group_off(group);
	static const struct {
		const char *key, *fmt;
		size_t off;
	} keys[] = {
		{ "jobs", "%.0f", offsetof(report_stats_t, jobs) },
		{ "wait_mean_s", "%.3f", offsetof(report_stats_t, wait_mean_s) },
		{ "wait_p50_s", "%.3f", offsetof(report_stats_t, wait_p50_s) },
		{ "wait_p95_s", "%.3f", offsetof(report_stats_t, wait_p95_s) },
		{ "run_mean_s", "%.3f", offsetof(report_stats_t, run_mean_s) },
		{ "turnaround_mean_s", "%.3f", offsetof(report_stats_t, turnaround_mean_s) },
		{ "turnaround_p50_s", "%.3f", offsetof(report_stats_t, turnaround_p50_s) },
		{ "turnaround_p95_s", "%.3f", offsetof(report_stats_t, turnaround_p95_s) },
		{ "gpu_hours", "%.6f", offsetof(report_stats_t, gpu_hours) },
	};
	fputc('{', f);
	for (size_t k = 0; k < G_N_ELEMENTS(keys); k++) {
		fputs(k ? ", " : "", f);
		report_json_num(f, keys[k].key, keys[k].fmt, r, base + keys[k].off);
	}
	if (price) {
		fputs(", ", f);
		report_json_num(f, "cost", "%.6f", r, base + offsetof(report_stats_t, cost));
		report_json_costs(f, c, "cost_by_type", r->med, base);
		if (r->lo) {
			report_json_costs(f, c, "cost_by_type_lo", r->lo, base);
			report_json_costs(f, c, "cost_by_type_hi", r->hi, base);
		}
	}
	fputc('}', f);
}

FILE *report_open(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "w");
	if (!f)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	return f;
}

int report_close(FILE *f, const char *path, char *err, size_t errlen)
{
	if (ferror(f) | (fclose(f) != 0)) {
		snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

void report_json_run(FILE *f, const sim_cluster_t *c, const report_fig_run_t *run, const double *price,
		     const sim_labels_t *labels, int indent)
{
	fprintf(f, "{\n%*s\"all\": ", indent + 2, "");
	report_json_stats(f, c, run, REPORT_GROUP_ALL, price);
	fprintf(f, ",\n%*s\"flex\": ", indent + 2, "");
	report_json_stats(f, c, run, REPORT_GROUP_FLEX, price);
	fprintf(f, ",\n%*s\"untagged\": ", indent + 2, "");
	report_json_stats(f, c, run, REPORT_GROUP_UNTAGGED, price);
	if (labels && labels->n) {
		fprintf(f, ",\n%*s\"labels\": {", indent + 2, "");
		for (int l = 0; l < labels->n; l++) {
			fprintf(f, "%s\n%*s\"%s\": ", l ? "," : "", indent + 4, "", labels->name[l]);
			report_json_stats(f, c, run, REPORT_GROUP_LABEL + l, price);
		}
		fprintf(f, "\n%*s}", indent + 2, "");
	}
	fprintf(f, ",\n%*s", indent + 2, "");
	report_json_num(f, "utilization", "%.6f", run, offsetof(report_figures_t, utilization));
	fprintf(f, ",\n%*s", indent + 2, "");
	report_json_num(f, "makespan_s", "%.0f", run, offsetof(report_figures_t, makespan_s));
	fprintf(f, "\n%*s}", indent, "");
}

int report_json(const char *path, const sim_cluster_t *c, const report_fig_run_t *runs, int nruns,
		const double *price, int replicas, const sim_labels_t *labels, char *err, size_t errlen)
{
	FILE *f = report_open(path, err, errlen);
	if (!f)
		return -1;
	fputs("{", f);
	if (replicas > 1)
		fprintf(f, "\n  \"replicas\": %d,", replicas);
	for (int i = 0; i < nruns; i++) {
		fprintf(f, "%s\n  \"%s\": ", i ? "," : "", runs[i].name);
		report_json_run(f, c, &runs[i], price, labels, 2);
	}
	fputs("\n}\n", f);
	return report_close(f, path, err, errlen);
}

/* ------------------------------------------------------------ jobs csv */

int report_jobs_csv(const char *path, const sim_trace_t *t, const report_run_t *runs, int nruns, char *err,
		    size_t errlen)
{
	static const char *const status[] = { "done", "timeout", "rejected", "never" };
	FILE *f = report_open(path, err, errlen);
	if (!f)
		return -1;
	fputs("policy,job_id,submit,start,end,wait,run_time,status,tagged,broadened,gpus,"
	      "gpu_types,nodes,reason\n",
	      f);
	for (int i = 0; i < nruns; i++)
		for (size_t j = 0; j < t->njobs; j++) {
			const sim_result_t *r = &runs[i].run->jobs[j];
			const sim_job_t *job = &t->jobs[j];
			bool ran = report_ran(r);
			fprintf(f, "%s,%u,%" G_GINT64_FORMAT ",", runs[i].name, job->id, job->submit);
			if (ran)
				fprintf(f,
					"%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
					",%" G_GINT64_FORMAT ",",
					r->start, r->end, r->start - job->submit, r->end - r->start);
			else
				fputs(",,,,", f);
			fprintf(f, "%s,%d,%d,%u,", status[r->status], r->tagged, r->broadened, job->gpus);
			csv_write_field(f, r->types, ',');
			csv_write_field(f, r->nodes, ',');
			csv_write_field(f, r->reason, '\n');
		}
	return report_close(f, path, err, errlen);
}

/* ------------------------------------------------------------ plot */

/* Write up to 1000 points of the empirical CDF of wait (what 0) or
 * turnaround (what 1) as "seconds fraction" lines. */
static void report_cdf(FILE *f, const sim_run_t *run, int what)
{
	double *v = g_new(double, run->njobs + 1);
	size_t n = 0;
	for (size_t j = 0; j < run->njobs; j++) {
		const sim_result_t *r = &run->jobs[j];
		if (report_ran(r))
			v[n++] = (double)((what ? r->end : r->start) - r->submit);
	}
	report_sort(v, n);
	size_t step = n > 1000 ? n / 1000 : 1;
	for (size_t i = 0; i < n; i += step)
		fprintf(f, "%.0f %.6f\n", v[i] + 1, (double)(i + 1) / (double)n);
	if (n)
		fprintf(f, "%.0f 1.000000\n", v[n - 1] + 1);
	fputs("\n\n", f);
	g_free(v);
}

int report_gnuplot(const char *path, const char *gnuplot, report_plot_data_fn data,
		   report_plot_script_fn script, void *arg, char *err, size_t errlen)
{
	GError *e = NULL;
	char *dir = g_dir_make_tmp("nodeox-sim-plot-XXXXXX", &e);
	if (!dir) {
		snprintf(err, errlen, "--plot: %s", e->message);
		g_error_free(e);
		return -1;
	}
	char *dpath = g_build_filename(dir, "cdf.dat", NULL);
	char *spath = g_build_filename(dir, "plot.gp", NULL);
	int rc = -1;
	FILE *f = report_open(dpath, err, errlen);
	if (f) {
		data(f, arg);
		rc = report_close(f, dpath, err, errlen);
	}
	if (rc == 0 && (f = report_open(spath, err, errlen))) {
		bool png = g_str_has_suffix(path, ".png") || g_str_has_suffix(path, ".PNG");
		fprintf(f, "%s\nset output '%s'\n",
			png ? "set terminal pngcairo size 1000,450 font 'sans,10'"
			    : "set terminal svg size 1000,450 dynamic font 'sans,11'",
			path);
		script(f, dpath, arg);
		rc = report_close(f, spath, err, errlen);
	}
	if (rc == 0) {
		char *argv[] = { (char *)gnuplot, spath, NULL };
		int status = 0;
		char *serr = NULL;
		if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
				  NULL, NULL, &serr, &status, &e)) {
			snprintf(err, errlen, "--plot: cannot run %s: %s", gnuplot, e->message);
			g_error_free(e);
			rc = -1;
		} else if (!g_spawn_check_wait_status(status, NULL)) {
			snprintf(err, errlen, "--plot: %s failed: %.200s", gnuplot, serr ? serr : "");
			rc = -1;
		}
		g_free(serr);
	}
	remove(dpath);
	remove(spath);
	remove(dir);
	g_free(dpath);
	g_free(spath);
	g_free(dir);
	return rc;
}

typedef struct {
	const report_run_t *runs;
	int nruns;
} report_cdf_arg_t;

static void report_cdf_data(FILE *f, void *arg)
{
	const report_cdf_arg_t *a = arg;
	for (int what = 0; what < 2; what++)
		for (int i = 0; i < a->nruns; i++)
			report_cdf(f, a->runs[i].run, what);
}

static void report_cdf_script(FILE *f, const char *data, void *arg)
{
	const report_cdf_arg_t *a = arg;
	fputs("set multiplot layout 1,2 title 'nodeox-sim: plugin off vs on'\n"
	      "set logscale x\nset key bottom right\nset grid\n"
	      "set ylabel 'fraction of jobs'\nset yrange [0:1]\n",
	      f);
	for (int what = 0; what < 2; what++) {
		fprintf(f, "set title '%s'\nset xlabel '%s + 1 [s]'\nplot ",
			what ? "turnaround (submit to end)" : "wait (submit to start)",
			what ? "turnaround" : "wait");
		for (int i = 0; i < a->nruns; i++)
			fprintf(f, "%s'%s' index %d using 1:2 with steps lw 2 title '%s'", i ? ", " : "",
				data, what * a->nruns + i, a->runs[i].name);
		fputc('\n', f);
	}
	fputs("unset multiplot\n", f);
}

int report_plot(const char *path, const char *gnuplot, const report_run_t *runs, int nruns, char *err,
		size_t errlen)
{
	report_cdf_arg_t a = { runs, nruns };
	return report_gnuplot(path, gnuplot, report_cdf_data, report_cdf_script, &a, err, errlen);
}
