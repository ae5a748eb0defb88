/*
 * qos.c: the QOS of qos.conf and the QOS priority factor (qos.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "common/free_all.h"
#include "sim/model/name_conf.h"
#include "sim/model/qos.h"

int qos_parse(const char *text, const char *name, sim_qos_t *out, char *err, size_t errlen)
{
	/* slurmdbd always has "normal"; a line may give it a priority */
	static const name_conf_t f = {
		.key = "QOS", .num_key = "Priority", .what = "QOS", .num_default = 0, .nocase = true
	};
	static const char *const normal[] = { "normal" };
	static const uint32_t zero[] = { 0 };
	memset(out, 0, sizeof(*out));
	if (name_conf_parse(&f, text, name, normal, zero, 1, &out->name, &out->priority, &out->n, err,
			    errlen) < 0)
		return -1;
	for (int i = 0; i < out->n; i++)
		if (out->priority[i] > out->max)
			out->max = out->priority[i];
	return 0;
}

void qos_free(sim_qos_t *q)
{
	for (int i = 0; i < q->n; i++)
		g_free(q->name[i]);
	nodeox_g_free_all(q->name, q->priority);
	memset(q, 0, sizeof(*q));
}

int qos_find(const sim_qos_t *q, const char *name)
{
	if (!name || !*name)
		name = "normal";
	for (int i = 0; i < q->n; i++)
		if (!g_ascii_strcasecmp(q->name[i], name))
			return i;
	return -1;
}

double qos_factor(const sim_qos_t *q, int i, bool no_normal)
{
	if (i < 0 || i >= q->n || !q->priority[i] || !q->max)
		return 0;
	return no_normal ? (double)q->priority[i] : (double)q->priority[i] / (double)q->max;
}
