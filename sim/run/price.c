/*
 * price.c: --price TYPE=COST[,...]: a price per GPU-hour for each GPU type
 * of the cluster, and the cost of a run's GPU-hours at those prices.
 *
 * Every type must be priced (a total that silently leaves a type out would
 * look cheaper than it is); 0 is a valid price. Numbers are read with
 * g_ascii_strtod, so "2.9" means the same in every locale.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "sim/run/price.h"

const char *price_type_name(const sim_cluster_t *c, int t)
{
	return c->types[t][0] ? c->types[t] : "(untyped)";
}

static int price_find_type(const sim_cluster_t *c, const char *name)
{
	for (int t = 0; t < c->ntypes; t++)
		if (!strcmp(price_type_name(c, t), name))
			return t;
	return -1;
}

/* One TYPE=COST item (trimmed in place). */
static int price_item(const sim_cluster_t *c, char *item, double *price, bool *seen, char *err, size_t errlen)
{
	char *eq = strchr(item, '=');
	if (!eq) {
		snprintf(err, errlen, "--price: '%s': expected TYPE=COST", item);
		return -1;
	}
	*eq = '\0';
	char *name = g_strstrip(item), *num = g_strstrip(eq + 1), *end = NULL;
	int t = price_find_type(c, name);
	if (t < 0) {
		GString *s = g_string_new(NULL);
		for (int i = 0; i < c->ntypes; i++)
			g_string_append_printf(s, "%s%s", i ? ", " : "", price_type_name(c, i));
		snprintf(err, errlen, "--price: no GPU type '%s' in the cluster (it has %s)", name,
			 c->ntypes ? s->str : "none");
		g_string_free(s, TRUE);
		return -1;
	}
	double v = *num ? g_ascii_strtod(num, &end) : NAN;
	if (!*num || *end || !isfinite(v) || v < 0) {
		snprintf(err, errlen,
			 "--price: '%s=%s': '%s' is not a price per GPU-hour "
			 "(a number >= 0)",
			 name, num, num);
		return -1;
	}
	if (seen[t]) {
		snprintf(err, errlen, "--price: '%s': priced twice", name);
		return -1;
	}
	seen[t] = true;
	price[t] = v;
	return 0;
}

int price_parse(const sim_cluster_t *c, const char *const *items, double *price, char *err, size_t errlen)
{
	bool seen[SIM_MAX_TYPES] = { false };
	int rc = 0;
	for (; items && *items && rc == 0; items++) {
		gchar **parts = g_strsplit(*items, ",", -1);
		for (gchar **p = parts; *p && rc == 0; p++) {
			if (!*g_strstrip(*p)) {
				snprintf(err, errlen, "--price: '%s': empty item", *items);
				rc = -1;
			} else {
				rc = price_item(c, *p, price, seen, err, errlen);
			}
		}
		g_strfreev(parts);
	}
	for (int t = 0; t < c->ntypes && rc == 0; t++)
		if (!seen[t]) {
			snprintf(err, errlen,
				 "--price: no price for GPU type '%s' (every GPU "
				 "type of the cluster needs one; 0 is allowed)",
				 price_type_name(c, t));
			rc = -1;
		}
	return rc;
}

double price_cost(const double *price, const double *gpu_hours, int ntypes, double *by_type)
{
	double total = 0;
	for (int t = 0; t < ntypes; t++) {
		double v = gpu_hours[t] * price[t];
		if (by_type)
			by_type[t] = v;
		total += v;
	}
	return total;
}
