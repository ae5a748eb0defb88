/*
 * name_conf.c: "KEY=NAME [NUMKEY=N]" files (name_conf.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "sim/model/name_conf.h"

/* One item "KEY=VALUE" of key? Its value, else NULL. */
static const char *name_conf_value(const char *item, const char *key)
{
	size_t k = strlen(key);
	return !g_ascii_strncasecmp(item, key, k) && item[k] == '=' && item[k + 1] ? item + k + 1 : NULL;
}

int name_conf_parse(const name_conf_t *f, const char *text, const char *name, const char *const *first,
		    const uint32_t *first_num, int nfirst, char ***names, uint32_t **nums, int *n, char *err,
		    size_t errlen)
{
	GPtrArray *nv = g_ptr_array_new_with_free_func(g_free);
	GArray *numv = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	bool *redone = g_new0(bool, nfirst + 1);
	for (int i = 0; i < nfirst; i++) {
		g_ptr_array_add(nv, g_strdup(first[i]));
		g_array_append_val(numv, first_num[i]);
	}
	gchar **lines = g_strsplit(text, "\n", -1);
	int rc = 0;
	for (int i = 0; lines[i] && rc == 0; i++) {
		char *hash = strchr(lines[i], '#');
		if (hash)
			*hash = '\0';
		gchar **items = g_strsplit_set(g_strstrip(lines[i]), " \t", -1);
		const char *nm = NULL, *v;
		uint32_t num = f->num_default;
		bool any = false;
		for (int k = 0; items[k] && rc == 0; k++) {
			char *end = NULL;
			unsigned long x = 0;
			if (!*items[k])
				continue;
			any = true;
			if ((v = name_conf_value(items[k], f->key))) {
				nm = v;
			} else if ((v = name_conf_value(items[k], f->num_key)) && v[0] >= '0' &&
				   v[0] <= '9' && (x = strtoul(v, &end, 10), *end == '\0') &&
				   x <= UINT32_MAX) {
				num = (uint32_t)x; /* sacctmgr's NUMKEY=N */
			} else {
				snprintf(err, errlen, "%s:%d: '%s': expected %s=NAME [%s=N]", name, i + 1,
					 items[k], f->key, f->num_key);
				rc = -1;
			}
		}
		if (rc == 0 && any && !nm) {
			snprintf(err, errlen, "%s:%d: no %s=", name, i + 1, f->key);
			rc = -1;
		}
		if (rc == 0 && any && f->refuse && !strcmp(nm, f->refuse)) {
			snprintf(err, errlen, "%s:%d: %s %s", name, i + 1, nm, f->refuse_why);
			rc = -1;
		}
		for (guint a = 0; rc == 0 && any && a < nv->len; a++) {
			if (f->nocase ? g_ascii_strcasecmp(nv->pdata[a], nm) : strcmp(nv->pdata[a], nm))
				continue;
			if ((int)a < nfirst && !redone[a]) { /* a built-in one, given its number */
				g_array_index(numv, uint32_t, a) = num;
				redone[a] = true;
				any = false;
			} else {
				snprintf(err, errlen, "%s:%d: %s %s given twice", name, i + 1, f->what, nm);
				rc = -1;
			}
			break;
		}
		if (rc == 0 && any) {
			g_ptr_array_add(nv, g_strdup(nm));
			g_array_append_val(numv, num);
		}
		g_strfreev(items);
	}
	g_strfreev(lines);
	g_free(redone);
	*n = 0;
	*names = NULL;
	*nums = NULL;
	if (rc < 0) {
		g_ptr_array_free(nv, TRUE);
		g_array_free(numv, TRUE);
		return -1;
	}
	*n = (int)nv->len;
	g_ptr_array_set_free_func(nv, NULL);
	*names = (char **)g_ptr_array_free(nv, FALSE);
	*nums = (uint32_t *)(void *)g_array_free(numv, FALSE);
	return 0;
}
