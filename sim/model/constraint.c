/*
 * constraint.c: Slurm --constraint/--prefer expressions as the simulator
 * uses them: parsed and evaluated by common/feature_expr.c (the evaluator
 * `nodeox why` uses, following Slurm 22.05: left to right, one level of
 * parentheses, one [ ] matching set, counts NAME*N accepted and not used to
 * filter nodes), each name mapped once to the cluster's feature bit. The
 * scheduler evaluates a constraint once per node class (sched.c caches it).
 */
#include <stdio.h>
#include <string.h>

#include "sim/model/cluster.h"

int constraint_parse(const char *expr, const sim_cluster_t *c, sim_constraint_t *out, char *err,
		     size_t errlen)
{
	memset(out, 0, sizeof(*out));
	out->empty = true;
	if (!expr || !*expr)
		return 0;
	if (feature_expr_parse(expr, &out->expr, err, errlen) < 0)
		return -1;
	out->empty = false;
	if (out->expr.nalt > SIM_MAX_TERMS) {
		snprintf(err, errlen, "more than %d alternatives in [ ]", SIM_MAX_TERMS);
		return -1;
	}
	out->nalt = out->expr.nalt;
	out->matching = out->expr.nalt > 0;
	for (int i = 0; i < out->expr.n; i++) {
		const feature_term_t *t = &out->expr.t[i];
		char name[128];
		if (t->len >= sizeof(name)) {
			snprintf(err, errlen, "feature name too long at '%.32s'", expr + t->off);
			return -1;
		}
		memcpy(name, expr + t->off, t->len);
		name[t->len] = '\0';
		out->feature[i] = (int8_t)cluster_find_feature(c, name);
		if (out->feature[i] < 0)
			out->never = true; /* Slurm: "Invalid feature specification" */
	}
	return 0;
}

typedef struct {
	const sim_constraint_t *k;
	uint64_t features;
} constraint_node_t;

static bool constraint_has(void *arg, int i)
{
	const constraint_node_t *n = arg;
	int f = n->k->feature[i];
	return f >= 0 && ((n->features >> f) & 1);
}

bool constraint_match_alt(const sim_constraint_t *k, uint64_t node_features, int alt)
{
	if (k->never)
		return false;
	if (k->empty)
		return true;
	constraint_node_t n = { k, node_features };
	return feature_expr_eval(&k->expr, alt, constraint_has, &n);
}

int constraint_match(const sim_constraint_t *k, uint64_t node_features)
{
	return constraint_match_alt(k, node_features, -1) ? 0 : -1;
}
