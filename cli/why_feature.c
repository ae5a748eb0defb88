/*
 * why_feature.c: does one node satisfy a job's --constraint?
 *
 * Parsed and evaluated by common/feature_expr.c, the evaluator nodeox-sim
 * shares, which follows Slurm 22.05 (build_feature_list, valid_feature_counts):
 * names joined by & (a comma is taken as &) and | evaluated left to right
 * without precedence (a|b&c is (a|b)&c), one level of (...) evaluated first,
 * [...] a matching OR (for a single node, a plain OR); a node count a*2
 * makes Slurm filter no node by features. Bounded: one pass over at most
 * NODEOX_STR_MAX characters.
 */
#include <string.h>

#include "cli/why.h"
#include "common/feature_expr.h"

typedef struct {
	const feature_expr_t *e;
	const char *constraint;
	const char *features;
} _feat_node_t;

static bool _feat_has(void *arg, int i)
{
	const _feat_node_t *n = arg;
	char name[NODEOX_NAME_MAX];
	size_t len = n->e->t[i].len;

	if (len >= sizeof(name))
		return false; /* longer than any feature name */
	memcpy(name, n->constraint + n->e->t[i].off, len);
	name[len] = '\0';
	return why_list_has(n->features, name);
}

int why_feature_match(const char *constraint, const char *features)
{
	feature_expr_t e;
	char err[128];

	if (!constraint || !*constraint)
		return 1;
	if (strnlen(constraint, NODEOX_STR_MAX + 1) > NODEOX_STR_MAX)
		return -1;
	if (feature_expr_parse(constraint, &e, err, sizeof(err)) < 0)
		return -1;
	_feat_node_t n = { &e, constraint, features ? features : "" };
	return feature_expr_eval(&e, -1, _feat_has, &n) ? 1 : 0;
}
