/*
 * labels.c: read nodeox-sim --labels FILE (labels.h): "job_id,label" rows,
 * each job id looked up among the trace's, each label a name the figures
 * count apart. The files are one row per job of a trace, so a hash of the
 * trace's ids makes the lookup linear in both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "sim/model/text_lines.h"
#include "sim/run/labels.h"

static int labels_name_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n >= LABELS_NAME_MAX)
		return 0;
	for (; *s; s++)
		if (!g_ascii_isalnum(*s) && *s != '_' && *s != '-')
			return 0;
	return 1;
}

/* The index of label s, added if new; -1 when there are LABELS_MAX already. */
static int labels_index(sim_labels_t *l, const char *s)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->name[i], s))
			return i;
	if (l->n == LABELS_MAX)
		return -1;
	g_strlcpy(l->name[l->n], s, LABELS_NAME_MAX);
	return l->n++;
}

int labels_read(const char *path, const sim_trace_t *t, sim_labels_t *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	gchar **lines = text_lines_read(path, err, errlen);
	if (!lines)
		return -1;
	out->of = g_new(int8_t, t->njobs + 1);
	memset(out->of, -1, t->njobs + 1);
	/* job id -> label index + 1 (0: in the trace, not yet named) */
	GHashTable *ids = g_hash_table_new(g_direct_hash, g_direct_equal);
	for (size_t j = 0; j < t->njobs; j++)
		g_hash_table_insert(ids, GUINT_TO_POINTER(t->jobs[j].id), GINT_TO_POINTER(0));
	int rc = -1;
	char *first = g_strstrip(g_strdup(lines[0] ? lines[0] : ""));
	if (strcmp(first, "job_id,label")) {
		snprintf(err, errlen, "%s:1: the header must be \"job_id,label\", not \"%.60s\"", path,
			 first);
		goto out;
	}
	for (int i = 1; lines[i]; i++) {
		char *line = g_strstrip(lines[i]), *comma = strchr(line, ','), *end;
		if (!*line)
			continue;
		if (!comma) {
			snprintf(err, errlen, "%s:%d: \"%.60s\" is not job_id,label", path, i + 1, line);
			goto out;
		}
		*comma = '\0';
		unsigned long long id = strtoull(line, &end, 10);
		gpointer key = GUINT_TO_POINTER((guint)id), had;
		if (!*line || *end || id > UINT32_MAX) {
			snprintf(err, errlen, "%s:%d: column job_id: '%.40s' is not a job id", path, i + 1,
				 line);
			goto out;
		}
		if (!g_hash_table_lookup_extended(ids, key, NULL, &had)) {
			snprintf(err, errlen, "%s:%d: column job_id: job %llu is not in the trace", path,
				 i + 1, id);
			goto out;
		}
		if (GPOINTER_TO_INT(had)) {
			snprintf(err, errlen, "%s:%d: column job_id: job %llu is named twice", path, i + 1,
				 id);
			goto out;
		}
		if (!labels_name_ok(comma + 1)) {
			snprintf(err, errlen,
				 "%s:%d: column label: '%.40s' is not a label (1 to %d letters, digits, '_' "
				 "or '-')",
				 path, i + 1, comma + 1, LABELS_NAME_MAX - 1);
			goto out;
		}
		int l = labels_index(out, comma + 1);
		if (l < 0) {
			snprintf(err, errlen, "%s:%d: column label: '%s' is a label beyond the %d allowed",
				 path, i + 1, comma + 1, LABELS_MAX);
			goto out;
		}
		g_hash_table_insert(ids, key, GINT_TO_POINTER(l + 1));
	}
	for (size_t j = 0; j < t->njobs; j++)
		out->of[j] =
			(int8_t)(GPOINTER_TO_INT(g_hash_table_lookup(ids, GUINT_TO_POINTER(t->jobs[j].id))) -
				 1);
	rc = 0;
out:
	g_free(first);
	g_hash_table_destroy(ids);
	g_strfreev(lines);
	if (rc)
		labels_free(out);
	return rc;
}

void labels_free(sim_labels_t *l)
{
	g_free(l->of);
	memset(l, 0, sizeof(*l));
}
