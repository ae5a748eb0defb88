/*
 * sweep.c: --sweep SPEC: the settings of a sweep and their runs.
 *
 * SPEC is KEY=v1,v2;KEY2=w1,w2: nodeox.conf keys (any the policy library's
 * parser knows, case as the admin writes it) and flex, whose values are
 * --flex-fraction's. A value in double quotes may hold ',', ';' and spaces
 * (Group="fast Types=a100,h100"). The settings are the cartesian product,
 * the last key varying fastest. A setting's policy is the base nodeox.conf
 * with every item of each swept key removed (for GpuType= and Group=, the
 * line of the name the value starts with, so one group or type of several
 * can be varied) and KEY=value appended, read by the library's own parser
 * (and its run-time model built from its GpuType speeds): a value
 * it refuses is refused here, with its message, and a value it gains (a new
 * Broaden= mode) works here unchanged. Each setting is a compare run with
 * every replica (replica.c); the tasks (setting, replica) run in one pool.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "common/free_all.h"
#include "sim/run/sweep.h"
#include "sim/run/sweep_report.h"
#include "sim/run/whatif.h"

#define SWEEP_MAX_SETTINGS 1000
/* settings x replicas: each holds two runs' figures (about 2.6 kB) */
#define SWEEP_MAX_RUNS 20000

static bool sweep_is_flex(const char *key)
{
	return g_ascii_strcasecmp(key, "flex") == 0;
}

/* Split s at sep outside double quotes; NULL with err on an open quote. */
static GPtrArray *sweep_split(const char *s, char sep, char *err, size_t errlen)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
	GString *cur = g_string_new(NULL);
	bool q = false;
	for (const char *p = s;; p++) {
		if (*p == '"') {
			q = !q;
			g_string_append_c(cur, *p);
		} else if ((*p == sep && !q) || !*p) {
			g_ptr_array_add(out, g_strdup(g_strstrip(cur->str)));
			g_string_truncate(cur, 0);
			if (!*p)
				break;
		} else {
			g_string_append_c(cur, *p);
		}
	}
	g_string_free(cur, TRUE);
	if (q) {
		snprintf(err, errlen, "--sweep: '%s': a double quote is not closed", s);
		g_ptr_array_free(out, TRUE);
		return NULL;
	}
	return out;
}

/* A value without its quotes. */
static char *sweep_unquote(const char *v)
{
	GString *s = g_string_new(NULL);
	for (; *v; v++)
		if (*v != '"')
			g_string_append_c(s, *v);
	return g_string_free(s, FALSE);
}

static int sweep_parse(const char *spec, sweep_plan_t *p, char *err, size_t errlen)
{
	for (const char *c = spec; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			snprintf(err, errlen, "--sweep: SPEC holds a control character (byte %zu)",
				 (size_t)(c - spec) + 1);
			return -1;
		}
	GPtrArray *items = sweep_split(spec, ';', err, errlen);
	if (!items)
		return -1;
	int rc = 0;
	p->keys = g_new0(char *, items->len + 1);
	p->nvalues = g_new0(int, items->len + 1);
	p->values = g_new0(char **, items->len + 1);
	p->n = 1;
	for (guint i = 0; i < items->len && rc == 0; i++) {
		const char *it = g_ptr_array_index(items, i);
		const char *eq = strchr(it, '=');
		if (!*it) {
			snprintf(err, errlen,
				 "--sweep: '%s': an empty item (expected "
				 "KEY=v1,v2;KEY2=w1,...)",
				 spec);
			rc = -1;
			break;
		}
		if (!eq) {
			snprintf(err, errlen, "--sweep: '%s': expected KEY=v1,v2,...", it);
			rc = -1;
			break;
		}
		char *key = g_strstrip(g_strndup(it, (gsize)(eq - it)));
		p->keys[p->nkeys] = key;
		if (!*key || strpbrk(key, " \t#\"")) {
			snprintf(err, errlen,
				 "--sweep: '%s': '%s' is not a nodeox.conf key "
				 "(nor flex)",
				 it, key);
			rc = -1;
			break;
		}
		for (int k = 0; k < p->nkeys; k++)
			if (!g_ascii_strcasecmp(p->keys[k], key)) {
				snprintf(err, errlen, "--sweep: %s given twice", key);
				rc = -1;
			}
		p->nkeys++;
		if (rc)
			break;
		GPtrArray *vals = sweep_split(eq + 1, ',', err, errlen);
		if (!vals) {
			rc = -1;
			break;
		}
		p->values[i] = g_new0(char *, vals->len + 1);
		for (guint v = 0; v < vals->len && rc == 0; v++) {
			char *val = sweep_unquote(g_ptr_array_index(vals, v));
			p->values[i][v] = val;
			p->nvalues[i]++;
			char *end = NULL;
			if (!*g_strstrip(val)) {
				snprintf(err, errlen, "--sweep: %s: an empty value in '%s'", key, it);
				rc = -1;
			} else if (!sweep_is_flex(key) && strchr(val, '#')) {
				snprintf(err, errlen,
					 "--sweep: %s=%s: a value cannot hold '#' (a "
					 "comment in nodeox.conf)",
					 key, val);
				rc = -1;
			} else if (sweep_is_flex(key)) {
				errno = 0;
				double f = g_ascii_strtod(val, &end);
				if (errno || *end || !(f >= 0 && f <= 1)) {
					snprintf(err, errlen,
						 "--sweep: flex=%s: expected a fraction of "
						 "the broadenable jobs from 0 to 1",
						 val);
					rc = -1;
				}
			}
		}
		g_ptr_array_free(vals, TRUE);
		if (rc == 0 && (p->n *= p->nvalues[i]) > SWEEP_MAX_SETTINGS) {
			snprintf(err, errlen, "--sweep: more than %d settings", SWEEP_MAX_SETTINGS);
			rc = -1;
		}
	}
	g_ptr_array_free(items, TRUE);
	return rc;
}

/* The key of sweep p that token KEY=... sets, or -1. */
static int sweep_swept(const sweep_plan_t *p, const char *tok)
{
	const char *eq = strchr(tok, '=');
	size_t kl = eq ? (size_t)(eq - tok) : strlen(tok);
	for (int k = 0; k < p->nkeys; k++)
		if (strlen(p->keys[k]) == kl && !g_ascii_strncasecmp(p->keys[k], tok, kl))
			return k;
	return -1;
}

/* Does a GpuType=/Group= value (NAME rest...) name the line whose first
 * token is tok (GpuType=NAME)? */
static bool sweep_same_name(const char *value, const char *tok)
{
	const char *eq = strchr(tok, '=');
	size_t n = strcspn(value, " \t");
	return eq && strlen(eq + 1) == n && !g_ascii_strncasecmp(eq + 1, value, n);
}

/* The base text for setting s: each swept key's items removed (of a
 * GpuType= or Group= key, the line of the name the setting's value gives),
 * one output line per input line, so the parser's line numbers stay the
 * file's. *nlines: its lines. */
static char *sweep_strip(const sweep_plan_t *p, int s, const char *text, int *nlines)
{
	GString *out = g_string_new(NULL);
	gchar **lines = g_strsplit(text, "\n", -1);
	*nlines = 0;
	for (gchar **l = lines; *l; l++) {
		if (!l[1] && !**l)
			break; /* the text's final newline */
		(*nlines)++;
		char *body = g_strdup(*l);
		char *hash = strchr(body, '#');
		if (hash)
			*hash = '\0';
		gchar **tok = g_strsplit_set(g_strstrip(body), " \t\r", -1);
		bool line_key = tok[0] && (!g_ascii_strncasecmp(tok[0], "GpuType=", 8) ||
					   !g_ascii_strncasecmp(tok[0], "Group=", 6));
		int lk = line_key ? sweep_swept(p, tok[0]) : -1;
		if (line_key) {
			/* Speed= etc. swept: kept, and refused by the parser below */
			if (lk < 0 || !sweep_same_name(sweep_value(p, s, lk), tok[0]))
				g_string_append(out, *l);
		} else {
			bool any = false;
			for (gchar **t = tok; *t; t++)
				any = any || (**t && sweep_swept(p, *t) >= 0);
			bool first = true;
			for (gchar **t = tok; any && *t; t++)
				if (**t && sweep_swept(p, *t) < 0) {
					g_string_append_printf(out, "%s%s", first ? "" : " ", *t);
					first = false;
				}
			if (!any)
				g_string_append(out, *l);
		}
		g_string_append_c(out, '\n');
		g_strfreev(tok);
		g_free(body);
	}
	g_strfreev(lines);
	return g_string_free(out, FALSE);
}

/* Setting s's policy: parse the stripped base with its KEY=value lines. */
int sweep_setting_conf(const sweep_plan_t *p, int s, const char *base, const char *name, nodeox_conf_t **out,
		       char *err, size_t errlen)
{
	int nlines = 0;
	char *stripped = sweep_strip(p, s, base, &nlines);
	GString *text = g_string_new(stripped);
	g_free(stripped);
	int *line_key = g_new0(int, p->nkeys + 1);
	int nl = 0;
	for (int k = 0; k < p->nkeys; k++)
		if (!sweep_is_flex(p->keys[k])) {
			g_string_append_printf(text, "%s=%s\n", p->keys[k], sweep_value(p, s, k));
			line_key[nl++] = k;
		}
	char perr[NODEOX_ERR_MAX + 600];
	int rc = nodeox_conf_parse_string(text->str, name, out, perr, sizeof(perr));
	if (rc < 0) {
		size_t pl = strlen(name);
		int line = 0;
		const char *rest = perr;
		if (!strncmp(perr, name, pl) && perr[pl] == ':' && sscanf(perr + pl + 1, "%d:", &line) == 1 &&
		    line > nlines && line <= nlines + nl) {
			rest = strchr(perr + pl + 1, ':') + 1;
			while (*rest == ' ')
				rest++;
			int k = line_key[line - nlines - 1];
			snprintf(err, errlen, "--sweep: %s=%s: %s", p->keys[k], sweep_value(p, s, k), rest);
		} else {
			GString *set = g_string_new(NULL);
			for (int k = 0; k < p->nkeys; k++)
				g_string_append_printf(set, "%s%s=%s", k ? ", " : "", p->keys[k],
						       sweep_value(p, s, k));
			snprintf(err, errlen, "--sweep: the setting %s: %s", set->str, rest);
			g_string_free(set, TRUE);
		}
	}
	g_free(line_key);
	g_string_free(text, TRUE);
	return rc;
}

int sweep_spec_parse(const char *spec, sweep_plan_t **out, char *err, size_t errlen)
{
	*out = g_new0(sweep_plan_t, 1);
	return sweep_parse(spec, *out, err, errlen);
}

int sweep_plan(const sweep_inputs_t *in, const char *spec, sweep_plan_t **out, char *err, size_t errlen)
{
	if (sweep_spec_parse(spec, out, err, errlen) < 0)
		return -1;
	sweep_plan_t *p = *out;
	if ((long)p->n * in->replicas > SWEEP_MAX_RUNS) {
		snprintf(err, errlen,
			 "--sweep: %d settings x %d replicas is more than %d runs on "
			 "one machine (fewer values or replicas)",
			 p->n, in->replicas, SWEEP_MAX_RUNS);
		return -1;
	}
	char *text = NULL;
	GError *e = NULL;
	if (!g_file_get_contents(in->policy_path, &text, NULL, &e)) {
		snprintf(err, errlen, "--sweep: the policy to vary: %s", e->message);
		g_error_free(e);
		return -1;
	}
	p->conf = g_new0(nodeox_conf_t *, p->n);
	p->model = g_new0(sim_runtime_t, p->n);
	p->tagged = g_new0(bool *, p->n);
	int rc = 0;
	for (int s = 0; s < p->n && rc == 0; s++) {
		rc = sweep_setting_conf(p, s, text, in->policy_path, &p->conf[s], err, errlen);
		if (rc == 0)
			rc = runtime_model_init(&p->model[s], in->setting.c, p->conf[s], in->class_speeds,
						in->round_sync, err, errlen);
		for (int k = 0; k < p->nkeys && rc == 0; k++)
			if (sweep_is_flex(p->keys[k])) {
				size_t nt = 0;
				p->tagged[s] = whatif_flex_fraction(
					in->setting.t, in->setting.c, p->conf[s],
					g_ascii_strtod(sweep_value(p, s, k), NULL), in->seed, &nt);
			}
	}
	g_free(text);
	return rc;
}

void sweep_plan_free(sweep_plan_t *p)
{
	if (!p)
		return;
	for (int s = 0; p->conf && s < p->n; s++) {
		if (p->conf[s])
			nodeox_conf_free(p->conf[s]);
		runtime_model_free(&p->model[s]);
		g_free(p->tagged[s]);
	}
	for (int k = 0; k < p->nkeys; k++)
		g_strfreev(p->values[k]);
	nodeox_g_free_all(p->conf, p->model, p->tagged);
	g_strfreev(p->keys);
	nodeox_g_free_all(p->values, p->nvalues, p);
}

/* ------------------------------------------------------------ run */

typedef struct {
	const sweep_inputs_t *in;
	const sweep_plan_t *p;
	int first;
} sweep_job_t;

static int sweep_task(void *arg, int i, report_figures_t *out, char *err, size_t errlen)
{
	const sweep_job_t *j = arg;
	int r = j->in->replicas, s = j->first + i / r;
	replica_setting_t rs = j->in->setting;
	rs.conf = j->p->conf[s];
	rs.model = &j->p->model[s];
	if (j->p->tagged[s])
		rs.tagged = j->p->tagged[s];
	rs.run_base = rs.run_nodeox = true;
	rs.record_nodes = false;
	rs.progress = NULL;
	return replica_run(&rs, i % r, r, out, NULL, err, errlen);
}

int sweep_run(const sweep_inputs_t *in, const sweep_plan_t *p, int first, int count, report_figures_t *figs,
	      char *err, size_t errlen)
{
	sweep_job_t j = { in, p, first };
	return replica_pool(0, count * in->replicas, 2, sweep_task, &j, figs, NULL, NULL, err, errlen);
}

int sweep_local(const sweep_inputs_t *in, const char *spec, char *err, size_t errlen)
{
	sweep_plan_t *p = NULL;
	report_figures_t *figs = NULL;
	int rc = sweep_plan(in, spec, &p, err, errlen);
	if (rc == 0) {
		figs = g_new0(report_figures_t, (size_t)p->n * (size_t)in->replicas * 2);
		rc = sweep_run(in, p, 0, p->n, figs, err, errlen);
	}
	if (rc == 0)
		rc = sweep_report(in, p, figs, err, errlen);
	g_free(figs);
	sweep_plan_free(p);
	return rc;
}
