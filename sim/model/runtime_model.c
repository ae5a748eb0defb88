/*
 * runtime_model.c: the run time of a job moved to other or mixed GPU types.
 *
 * The trace gives each job's run time T on the type it asked for (R). With
 * speeds s(t) from nodeox.conf (Speed=, relative throughput), optionally per
 * workload class from a --class-speeds file (a speed table, nodeox.conf(5):
 * a workload entry CLASS ASKED RUN SPEED gives s(RUN) = SPEED * Speed= of
 * ASKED for that class; or the older CSV class,gpu_type,speed):
 *   one type t:                    T * s(R) / s(t)
 *   mixed types, synchronous job:  T * s(R) / min_i s(t_i)      (n x the slowest)
 *   mixed types, rounds job:       T * n s(R) / ((1 - c) * sum_i s(t_i))
 * where n is the job's GPU count and c the fraction of each round spent
 * synchronising (--round-sync). An untyped request has no reference type and
 * is not scaled. doc/simulator.md derives these.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/model/runtime_model.h"
#include "sim/model/text_lines.h"

/* A speed table's workload entries as class speeds (the first entry for a
 * class and run type counts; user and account entries are no class's). */
static int runtime_load_table(sim_runtime_t *m, const sim_cluster_t *c, const char *path, char *err,
			      size_t errlen)
{
	nodeox_speeds_t *t;
	const nodeox_speed_t *e;

	if (nodeox_speeds_parse_file(path, &t, err, errlen) < 0)
		return -1;
	for (size_t i = 0; (e = nodeox_speeds_entry(t, i)); i++) {
		int run = cluster_find_type(c, e->run), asked = cluster_find_type(c, e->asked);
		if (e->scope != NODEOX_SCOPE_WORKLOAD)
			continue;
		if (run < 0 || asked < 0) {
			snprintf(err, errlen, "%s:%d: GPU type '%s' is not in the cluster", path, e->line,
				 run < 0 ? e->run : e->asked);
			nodeox_speeds_free(t);
			return -1;
		}
		char *key = g_strdup_printf("%s\t%s", e->name, c->types[run]);
		if (g_hash_table_contains(m->class_speed, key)) {
			g_free(key);
			continue;
		}
		double *d = g_new(double, 1);
		*d = e->speed * m->speed[asked];
		g_hash_table_replace(m->class_speed, key, d);
	}
	nodeox_speeds_free(t);
	return 0;
}

/* Does the file start (after blank and comment lines) with a speed table's
 * header? */
static bool runtime_is_table(gchar **lines)
{
	for (int i = 0; lines[i]; i++) {
		const char *l = lines[i] + strspn(lines[i], " \t\r");
		if (*l && *l != '#')
			return g_str_has_prefix(l, "nodeox-speeds");
	}
	return false;
}

static int runtime_load_classes(sim_runtime_t *m, const sim_cluster_t *c, const char *path, char *err,
				size_t errlen)
{
	gchar **lines = text_lines_read(path, err, errlen);
	if (!lines)
		return -1;
	if (runtime_is_table(lines)) {
		g_strfreev(lines);
		return runtime_load_table(m, c, path, err, errlen);
	}
	int rc = 0;
	for (int i = 0; lines[i] && rc == 0; i++) {
		char *l = g_strstrip(lines[i]);
		if (!*l || *l == '#' || (i == 0 && g_str_has_prefix(l, "class,")))
			continue;
		gchar **f = g_strsplit(l, ",", -1);
		char *end = NULL;
		double v = g_strv_length(f) == 3 ? strtod(f[2], &end) : 0;
		if (g_strv_length(f) != 3 || !end || *end || !(v > 0)) {
			snprintf(err, errlen, "%s:%d: expected class,gpu_type,speed (speed > 0)", path,
				 i + 1);
			rc = -1;
		} else if (cluster_find_type(c, g_strstrip(f[1])) < 0) {
			snprintf(err, errlen, "%s:%d: GPU type '%s' is not in the cluster", path, i + 1,
				 f[1]);
			rc = -1;
		} else {
			double *d = g_new(double, 1);
			*d = v;
			g_hash_table_replace(m->class_speed,
					     g_strdup_printf("%s\t%s", g_strstrip(f[0]), f[1]), d);
		}
		g_strfreev(f);
	}
	g_strfreev(lines);
	return rc;
}

int runtime_model_init(sim_runtime_t *m, const sim_cluster_t *c, const nodeox_conf_t *conf,
		       const char *class_file, double sync_cost, char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	m->ntypes = c->ntypes;
	for (int t = 0; t < c->ntypes; t++)
		m->type_names[t] = c->types[t];
	m->sync_cost = sync_cost;
	for (int t = 0; t < c->ntypes; t++) {
		int k = conf ? nodeox_conf_find_type(conf, c->types[t]) : -1;
		m->speed[t] = k >= 0 ? conf->types[k].speed : 1.0;
	}
	m->class_speed = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	if (class_file && runtime_load_classes(m, c, class_file, err, errlen) < 0) {
		runtime_model_free(m);
		return -1;
	}
	return 0;
}

void runtime_model_free(sim_runtime_t *m)
{
	if (m->class_speed)
		g_hash_table_destroy(m->class_speed);
	m->class_speed = NULL;
}

double runtime_model_speed(const sim_runtime_t *m, const char *class_name, int type)
{
	if (type < 0 || type >= m->ntypes)
		return 1.0;
	if (class_name && m->class_speed && g_hash_table_size(m->class_speed)) {
		char key[256];
		snprintf(key, sizeof(key), "%s\t%s", class_name, m->type_names[type]);
		const double *v = g_hash_table_lookup(m->class_speed, key);
		if (v)
			return *v;
	}
	return m->speed[type];
}

int64_t runtime_model_duration(const sim_runtime_t *m, const sim_job_t *job, int req_type,
			       const uint32_t *gpus_by_type)
{
	if (req_type < 0 || job->gpus == 0)
		return job->run_time;
	double s_req = runtime_model_speed(m, job->class_name, req_type);
	double s_min = INFINITY, s_sum = 0;
	uint32_t n = 0;
	int ntyp = 0;
	for (int t = 0; t < m->ntypes; t++) {
		if (!gpus_by_type[t])
			continue;
		double s = runtime_model_speed(m, job->class_name, t);
		s_min = s < s_min ? s : s_min;
		s_sum += s * gpus_by_type[t];
		n += gpus_by_type[t];
		ntyp++;
	}
	if (n == 0)
		return job->run_time;
	double factor;
	if (ntyp == 1 || !job->rounds)
		factor = s_req / s_min;
	else
		factor = (double)n * s_req / ((1.0 - m->sync_cost) * s_sum);
	double d = ceil((double)job->run_time * factor - 1e-9);
	return d < 1 && job->run_time > 0 ? 1 : (int64_t)d;
}
