/*
 * report_plot.c: `nodeox report --plot FILE` (report.h): for each group
 * (broadened, kept, untagged, record_lost; those with jobs), the
 * distributions of wait and turnaround as step curves of the fraction of
 * jobs, what happened against the model's replica 0 with the plugin on and
 * off (with --cluster), drawn by gnuplot as nodeox-sim draws its own (SVG, or
 * PNG for *.png; log x of seconds + 1).
 */
#include "cli/report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define PLOT_SERIES 3 /* happened, model on, model off */

static const char *const series_names[PLOT_SERIES] = { "happened", "model, plugin on", "model, plugin off" };

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int cmp_job_id(const void *a, const void *b)
{
	return strcmp((*(const sacct_job_t *const *)a)->job_id, (*(const sacct_job_t *const *)b)->job_id);
}

/* One block of the data file: sorted v + 1 and the fraction of jobs; 1 if
 * written, 0 when there is nothing to draw. */
static int plot_block(FILE *f, double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	fprintf(f, "%.3f 0\n", v[0] + 1); /* the step up to the first job (one job draws too) */
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%.3f %.6f\n", v[i] + 1, (double)(i + 1) / (double)n);
	fputs("\n\n", f);
	return 1;
}

int report_plot_write(const char *path, const char *gnuplot, const sacct_history_t *h, const report_cf_t *cf,
		      char *err, size_t errlen)
{
	char dir[4096], dpath[4200], spath[4200], epath[4200];
	const sacct_job_t **by_id = NULL;
	double *v = NULL;
	int index[REPORT_NGROUPS][2][PLOT_SERIES], nblocks = 0, rc = -1, ngroups = 0;
	size_t nv = h->njobs + (cf ? cf->njobs : 0) + 1;
	FILE *f;

	if (report_tmpdir(dir, sizeof(dir), err, errlen) < 0)
		return -1;
	snprintf(dpath, sizeof(dpath), "%s/data", dir);
	snprintf(spath, sizeof(spath), "%s/plot.gp", dir);
	snprintf(epath, sizeof(epath), "%s/gnuplot.err", dir);
	by_id = malloc((h->njobs + 1) * sizeof(*by_id));
	v = malloc(nv * sizeof(*v));
	f = fopen(dpath, "w");
	if (!by_id || !v || !f) {
		snprintf(err, errlen, "--plot: %s", f ? "out of memory" : strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < h->njobs; i++)
		by_id[i] = &h->jobs[i];
	qsort(by_id, h->njobs, sizeof(*by_id), cmp_job_id);
	for (int g = 0; g < REPORT_NGROUPS; g++)
		for (int what = 0; what < 2; what++)
			for (int s = 0; s < PLOT_SERIES; s++) {
				size_t n = 0;

				if (s == 0) {
					for (size_t i = 0; i < h->njobs; i++)
						if (report_group_of(&h->jobs[i]) == (report_group_t)g)
							v[n++] = what ? (double)(h->jobs[i].end -
										 h->jobs[i].submit)
								      : (double)h->jobs[i].wait;
				} else if (cf) {
					for (size_t i = 0; i < cf->njobs; i++) {
						const report_cf_job_t *cj = &cf->jobs[i];
						sacct_job_t key = { .job_id = (char *)cj->job_id };
						const sacct_job_t *kp = &key, **hit;

						if (cj->on != (s == 1))
							continue;
						hit = bsearch(&kp, by_id, h->njobs, sizeof(*by_id),
							      cmp_job_id);
						if (hit && report_group_of(*hit) == (report_group_t)g)
							v[n++] = what ? cj->turnaround : cj->wait;
					}
				}
				index[g][what][s] = plot_block(f, v, n) ? nblocks++ : -1;
			}
	if (fclose(f) != 0) {
		f = NULL;
		snprintf(err, errlen, "--plot: %s: write error", dpath);
		goto out;
	}
	f = fopen(spath, "w");
	if (!f) {
		snprintf(err, errlen, "--plot: %s: %s", spath, strerror(errno));
		goto out;
	}
	for (int g = 0; g < REPORT_NGROUPS; g++)
		ngroups += index[g][0][0] >= 0;
	size_t plen = strlen(path);
	int png = plen > 4 && !strcasecmp(path + plen - 4, ".png");
	fprintf(f, "%s\nset output '%s'\n",
		png ? "set terminal pngcairo size 1000,900 noenhanced font 'sans,10'"
		    : "set terminal svg size 1000,900 dynamic noenhanced font 'sans,11'",
		path);
	fprintf(f,
		"set multiplot layout %d,2 title 'nodeox report: what happened%s'\n"
		"set logscale x\nset key bottom right\nset grid\nset ylabel 'fraction of jobs'\n"
		"set yrange [0:1]\n",
		ngroups ? ngroups : 1, cf ? " and the model (replica 0)" : "");
	for (int g = 0; g < REPORT_NGROUPS; g++) {
		if (index[g][0][0] < 0)
			continue;
		for (int what = 0; what < 2; what++) {
			int first = 1;

			fprintf(f, "set title '%s: %s'\nset xlabel '%s + 1 [s]'\nplot ", report_group_name(g),
				what ? "turnaround" : "wait", what ? "turnaround" : "wait");
			for (int s = 0; s < PLOT_SERIES; s++) {
				if (index[g][what][s] < 0)
					continue;
				fprintf(f, "%s'%s' index %d using 1:2 with steps lw 2 title '%s'",
					first ? "" : ", ", dpath, index[g][what][s], series_names[s]);
				first = 0;
			}
			fputc('\n', f);
		}
	}
	fputs("unset multiplot\n", f);
	if (fclose(f) != 0) {
		f = NULL;
		snprintf(err, errlen, "--plot: %s: write error", spath);
		goto out;
	}
	f = NULL;
	if (!ngroups) {
		snprintf(err, errlen, "--plot: no job to draw");
		goto out;
	}
	char *argv[] = { (char *)gnuplot, spath, NULL };
	int st = report_spawn(argv, epath, err, errlen);
	if (st != 0) {
		char first[256] = "";
		FILE *e = fopen(epath, "r");

		if (e) {
			if (!fgets(first, sizeof(first), e))
				first[0] = '\0';
			first[strcspn(first, "\n")] = '\0';
			fclose(e);
		}
		if (st > 0)
			snprintf(err, errlen, "--plot: %s exited with status %d%s%s", gnuplot, st,
				 *first ? ": " : "", first);
		goto out;
	}
	rc = 0;
out:
	if (f)
		fclose(f);
	free(by_id);
	free(v);
	unlink(dpath);
	unlink(spath);
	unlink(epath);
	rmdir(dir);
	return rc;
}
