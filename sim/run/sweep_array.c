/*
 * sweep_array.c: a sweep run by the site's own Slurm as a job array.
 *
 * --sweep-array DIR checks the sweep as --sweep would, then writes into DIR
 * copies of its inputs (trace.csv, cluster/ with every file of the cluster
 * directory, nodeox.conf, and class-speeds.csv and bf-phase where given), so
 * that a compute node needs nothing else; sweep.args, the options each task
 * runs with (one a line, paths DIR's own); sweep.info, the names the table
 * gives the trace and the cluster; and sweep.sbatch, whose task I runs
 * `nodeox-sim --sweep-array DIR --sweep-task I`: setting I with every
 * replica (in parallel on the CPUs the task was given) into
 * DIR/result-I.txt, every figure as %.17g (exact for a double), written to
 * a temporary name and renamed, so a killed task leaves nothing half
 * written. --merge DIR reads every result and reports through the same code
 * as the local sweep, so its table and JSON are the local ones byte for
 * byte (the JSON also into DIR/sweep.json).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "sim/run/sweep_array.h"
#include "sim/run/sweep_report.h"
#include "sim/model/text_lines.h"

#define SWEEP_RESULT_MAGIC "nodeox-sim sweep result 1"

static int sweep_array_copy(const char *from, const char *dir, const char *name, char *err, size_t errlen)
{
	char *text = NULL;
	gsize n = 0;
	GError *e = NULL;
	char *to = g_build_filename(dir, name, NULL);
	int rc = 0;
	if (!g_file_get_contents(from, &text, &n, &e) || !g_file_set_contents(to, text, (gssize)n, &e)) {
		snprintf(err, errlen, "--sweep-array: %s", e->message);
		g_error_free(e);
		rc = -1;
	}
	g_free(text);
	g_free(to);
	return rc;
}

/* Every regular file of the cluster directory (slurm.conf, gres.conf, and
 * what they include by a relative name). */
static int sweep_array_copy_cluster(const char *from, const char *dir, char *err, size_t errlen)
{
	char *to = g_build_filename(dir, "cluster", NULL);
	GError *e = NULL;
	GDir *d = g_dir_open(from, 0, &e);
	int rc = 0;
	if (!d || g_mkdir(to, 0755) < 0) {
		snprintf(err, errlen, "--sweep-array: %s: %s", d ? to : from,
			 d ? strerror(errno) : e->message);
		g_clear_error(&e);
		rc = -1;
	}
	const char *name;
	while (rc == 0 && (name = g_dir_read_name(d))) {
		char *f = g_build_filename(from, name, NULL);
		if (g_file_test(f, G_FILE_TEST_IS_REGULAR))
			rc = sweep_array_copy(f, to, name, err, errlen);
		g_free(f);
	}
	if (d)
		g_dir_close(d);
	g_free(to);
	return rc;
}

static int sweep_array_put(const char *dir, const char *name, const char *text, int mode, char *err,
			   size_t errlen)
{
	char *path = g_build_filename(dir, name, NULL);
	GError *e = NULL;
	int rc = 0;
	if (!g_file_set_contents(path, text, -1, &e) || g_chmod(path, mode) < 0) {
		snprintf(err, errlen, "--sweep-array: %s", e ? e->message : strerror(errno));
		g_clear_error(&e);
		rc = -1;
	}
	g_free(path);
	return rc;
}

static char *sweep_array_self(void)
{
	char *exe = g_file_read_link("/proc/self/exe", NULL);
	return exe ? exe : g_strdup("nodeox-sim");
}

int sweep_array_write(const char *dir, const sweep_inputs_t *in, const char *spec,
		      const sweep_array_files_t *files, GPtrArray *args, char *err, size_t errlen)
{
	sweep_plan_t *p = NULL;
	int rc = sweep_plan(in, spec, &p, err, errlen);
	char *abs = g_canonicalize_filename(dir, NULL);
	/* the path goes into #SBATCH --output=, which sbatch splits at spaces
	 * and where % starts a pattern */
	for (const char *c = abs; rc == 0 && *c; c++)
		if ((unsigned char)*c <= 0x20 || *c == 0x7f || *c == '%' || *c == '"' || *c == '\\') {
			snprintf(err, errlen,
				 "--sweep-array: %s: the directory's path must not hold "
				 "spaces, control characters, %%, \" or \\ (it goes into the "
				 "#SBATCH lines)",
				 dir);
			rc = -1;
		}
	GDir *d = rc == 0 ? g_dir_open(abs, 0, NULL) : NULL;
	if (d) {
		if (g_dir_read_name(d)) {
			snprintf(err, errlen,
				 "--sweep-array: %s is not empty (an earlier sweep's? "
				 "remove it or name another)",
				 dir);
			rc = -1;
		}
		g_dir_close(d);
	} else if (rc == 0 && g_mkdir_with_parents(abs, 0755) < 0) {
		snprintf(err, errlen, "--sweep-array: %s: %s", dir, strerror(errno));
		rc = -1;
	}
	if (rc == 0)
		rc = sweep_array_copy(files->trace, abs, "trace.csv", err, errlen);
	if (rc == 0)
		rc = sweep_array_copy_cluster(files->cluster, abs, err, errlen);
	if (rc == 0)
		rc = sweep_array_copy(files->policy, abs, "nodeox.conf", err, errlen);
	if (rc == 0 && files->class_speeds)
		rc = sweep_array_copy(files->class_speeds, abs, "class-speeds.csv", err, errlen);
	if (rc == 0 && files->bf_phase)
		rc = sweep_array_copy(files->bf_phase, abs, "bf-phase", err, errlen);
	GString *t = g_string_new(NULL);
	for (guint i = 0; rc == 0 && i < args->len; i++) {
		const char *a = g_ptr_array_index(args, i);
		if (strchr(a, '\n')) {
			snprintf(err, errlen, "--sweep-array: an option holds a newline: %s", a);
			rc = -1;
		}
		g_string_append_printf(t, "%s\n", a);
	}
	if (rc == 0)
		rc = sweep_array_put(abs, "sweep.args", t->str, 0644, err, errlen);
	g_string_truncate(t, 0);
	g_string_append_printf(t, "trace=%s\ncluster=%s\nsettings=%d\n", in->trace_name, in->cluster_name,
			       rc == 0 ? p->n : 0);
	if (rc == 0 && (strchr(in->trace_name, '\n') || strchr(in->cluster_name, '\n'))) {
		snprintf(err, errlen, "--sweep-array: a trace or cluster name holds a newline");
		rc = -1;
	}
	if (rc == 0)
		rc = sweep_array_put(abs, "sweep.info", t->str, 0644, err, errlen);
	if (rc == 0) {
		char *self = sweep_array_self();
		char *qdir = g_shell_quote(abs), *qsim = g_shell_quote(self);
		char *log = g_build_filename(abs, "task-%a.log", NULL);
		g_string_truncate(t, 0);
		g_string_append_printf(
			t,
			"#!/bin/bash\n"
			"#SBATCH --job-name=nodeox-sweep\n"
			"#SBATCH --array=0-%d\n"
			"#SBATCH --output=%s\n"
			"# Written by nodeox-sim --sweep-array: %d settings of --sweep '%s', %d "
			"replicas each.\n"
			"# Each array task runs one setting (SLURM_ARRAY_TASK_ID) into "
			"result-ID.txt beside\n"
			"# this script, its replicas in parallel on the task's CPUs (add "
			"#SBATCH --cpus-per-task=N\n"
			"# above for more). One task by hand: SLURM_ARRAY_TASK_ID=3 bash %s/sweep.sbatch\n"
			"# Then: nodeox-sim --merge %s\n"
			"dir=%s\n"
			"sim=${NODEOX_SIM:-%s}\n"
			": \"${SLURM_ARRAY_TASK_ID:?is not set: submit with sbatch, or run "
			"SLURM_ARRAY_TASK_ID=I bash $dir/sweep.sbatch (I from 0 to %d)}\"\n"
			"exec \"$sim\" --sweep-array \"$dir\" --sweep-task \"$SLURM_ARRAY_TASK_ID\"\n",
			p->n - 1, log, p->n, spec, in->replicas, qdir, qdir, qdir, qsim, p->n - 1);
		rc = sweep_array_put(abs, "sweep.sbatch", t->str, 0755, err, errlen);
		if (rc == 0 && !in->quiet)
			printf("nodeox-sim: %s/sweep.sbatch: %d settings, %d replicas each, one "
			       "setting per array task.\nSubmit: sbatch %s/sweep.sbatch   then: "
			       "nodeox-sim --merge %s\n",
			       abs, p->n, in->replicas, qdir, qdir);
		g_free(log);
		g_free(qdir);
		g_free(qsim);
		g_free(self);
	}
	g_string_free(t, TRUE);
	g_free(abs);
	sweep_plan_free(p);
	return rc;
}

/* Lines of dir/name, with "dir/name: why" on failure. */
static gchar **sweep_array_lines(const char *dir, const char *name, char *err, size_t errlen)
{
	char *path = g_build_filename(dir, name, NULL);
	gchar **lines = text_lines_read(path, err, errlen);
	g_free(path);
	return lines;
}

int sweep_array_read_args(const char *dir, GPtrArray *a, char *err, size_t errlen)
{
	gchar **lines = sweep_array_lines(dir, "sweep.args", err, errlen);
	if (!lines)
		return -1;
	for (gchar **l = lines; *l; l++)
		if (**l)
			g_ptr_array_add(a, g_strdup(*l));
	g_strfreev(lines);
	return 0;
}

static int sweep_array_check_task(const sweep_plan_t *p, int task, char *err, size_t errlen)
{
	if (task < p->n)
		return 0;
	snprintf(err, errlen, "--sweep-task %d: the sweep has %d settings (tasks 0 to %d)", task, p->n,
		 p->n - 1);
	return -1;
}

int sweep_array_task(const char *dir, const sweep_inputs_t *in, const char *spec, int task, char *err,
		     size_t errlen)
{
	sweep_plan_t *p = NULL;
	int r = in->replicas;
	report_figures_t *figs = g_new0(report_figures_t, (size_t)r * 2);
	int rc = sweep_plan(in, spec, &p, err, errlen);
	if (rc == 0)
		rc = sweep_array_check_task(p, task, err, errlen);
	if (rc == 0)
		rc = sweep_run(in, p, task, 1, figs, err, errlen);
	if (rc == 0) {
		GString *t = g_string_new(NULL);
		g_string_append_printf(t, SWEEP_RESULT_MAGIC "\nsetting %d\nreplicas %d\nfigures %zu\n", task,
				       r, REPORT_FIGURES_N);
		for (int i = 0; i < r * 2; i++) {
			const double *v = (const double *)&figs[i];
			for (size_t f = 0; f < REPORT_FIGURES_N; f++)
				g_string_append_printf(t, "%s%.17g", f ? " " : "", v[f]);
			g_string_append_c(t, '\n');
		}
		char *name = g_strdup_printf("result-%d.txt", task);
		char *path = g_build_filename(dir, name, NULL);
		GError *e = NULL;
		if (!g_file_set_contents(path, t->str, (gssize)t->len, &e)) {
			snprintf(err, errlen, "%s", e->message);
			g_error_free(e);
			rc = -1;
		} else if (!in->quiet) {
			printf("nodeox-sim: sweep task %d of %d:", task, p->n);
			for (int k = 0; k < p->nkeys; k++)
				printf(" %s=%s", p->keys[k], sweep_value(p, task, k));
			printf(": %d replicas written to %s\n", r, name);
		}
		g_free(path);
		g_free(name);
		g_string_free(t, TRUE);
	}
	g_free(figs);
	sweep_plan_free(p);
	return rc;
}

/* Task s's figures from dir/result-S.txt into out[0 .. 2 * replicas). 1 when
 * the file is missing, 0, or -1 with err. */
static int sweep_array_result(const char *dir, int s, int replicas, report_figures_t *out, char *err,
			      size_t errlen)
{
	char *name = g_strdup_printf("result-%d.txt", s);
	char *path = g_build_filename(dir, name, NULL);
	int rc = 0;
	if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
		rc = 1;
		goto out;
	}
	gchar **l = sweep_array_lines(dir, name, err, errlen);
	if (!l) {
		rc = -1;
		goto out;
	}
	int task = -1, r = -1;
	size_t nf = 0;
	guint n = g_strv_length(l);
	if (n < 4 || strcmp(l[0], SWEEP_RESULT_MAGIC) || sscanf(l[1], "setting %d", &task) != 1 ||
	    sscanf(l[2], "replicas %d", &r) != 1 || sscanf(l[3], "figures %zu", &nf) != 1 || task != s ||
	    r != replicas || nf != REPORT_FIGURES_N || n < 4 + (guint)(2 * r)) {
		snprintf(err, errlen,
			 "--merge: %s/%s: not the result of this sweep's task %d with "
			 "%d replicas (from another nodeox-sim, or cut short?)",
			 dir, name, s, replicas);
		rc = -1;
	}
	for (int i = 0; rc == 0 && i < 2 * r; i++) {
		double *v = (double *)&out[i];
		char *p = l[4 + i], *end = NULL;
		for (size_t f = 0; f < nf && rc == 0; f++, p = end) {
			v[f] = g_ascii_strtod(p, &end);
			if (end == p) {
				snprintf(err, errlen, "--merge: %s/%s:%d: figure %zu is not a number", dir,
					 name, 5 + i, f + 1);
				rc = -1;
			}
		}
	}
	g_strfreev(l);
out:
	g_free(name);
	g_free(path);
	return rc;
}

int sweep_array_merge(const char *dir, const sweep_inputs_t *in0, const char *spec, char *err, size_t errlen)
{
	sweep_inputs_t in = *in0;
	sweep_plan_t *p = NULL;
	report_figures_t *figs = NULL;
	char *trace = NULL, *cluster = NULL;
	gchar **info = sweep_array_lines(dir, "sweep.info", err, errlen);
	int rc = info ? 0 : -1;
	for (gchar **l = info; l && *l; l++) {
		if (g_str_has_prefix(*l, "trace="))
			trace = g_strdup(*l + 6);
		else if (g_str_has_prefix(*l, "cluster="))
			cluster = g_strdup(*l + 8);
	}
	g_strfreev(info);
	in.trace_name = trace ? trace : in.trace_name;
	in.cluster_name = cluster ? cluster : in.cluster_name;
	if (rc == 0)
		rc = sweep_plan(&in, spec, &p, err, errlen);
	GString *missing = g_string_new(NULL);
	int first_missing = -1;
	if (rc == 0) {
		size_t per = (size_t)in.replicas * 2;
		figs = g_new0(report_figures_t, (size_t)p->n * per);
		for (int s = 0; s < p->n && rc >= 0; s++) {
			int r = sweep_array_result(dir, s, in.replicas, figs + (size_t)s * per, err, errlen);
			if (r == 1) {
				g_string_append_printf(missing, "%s%d", missing->len ? ", " : "", s);
				if (first_missing < 0)
					first_missing = s;
			} else if (r < 0) {
				rc = -1;
			}
		}
	}
	if (rc == 0 && missing->len) {
		char *abs = g_canonicalize_filename(dir, NULL);
		snprintf(err, errlen,
			 "--merge %s: no result of array task%s %s yet (still running, "
			 "or failed: see task-ID.log there; rerun one by hand with "
			 "SLURM_ARRAY_TASK_ID=%d bash %s/sweep.sbatch)",
			 abs, strchr(missing->str, ',') ? "s" : "", missing->str, first_missing, abs);
		g_free(abs);
		rc = -1;
	}
	if (rc == 0) {
		const char *user_json = in.json;
		in.json = "sweep.json";
		rc = sweep_report(&in, p, figs, err, errlen);
		if (rc == 0 && user_json) {
			in.json = user_json;
			in.quiet = true;
			in.plot = NULL;
			rc = sweep_report(&in, p, figs, err, errlen);
		}
	}
	g_string_free(missing, TRUE);
	g_free(figs);
	g_free(trace);
	g_free(cluster);
	sweep_plan_free(p);
	return rc;
}
