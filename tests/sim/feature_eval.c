/*
 * feature_eval.c: print whether a node with FEATURES (comma list) satisfies
 * the --constraint EXPR by common/feature_expr.c: 1, 0, or "error: ..." with
 * exit 1 when EXPR does not parse. For test_constraint_slurm.sh, which asks
 * a real slurmctld the same question.
 *
 *   feature_eval EXPR FEATURES
 */
#include <stdio.h>
#include <string.h>

#include "common/feature_expr.h"

typedef struct {
	const char *expr, *features;
	const feature_expr_t *e;
} eval_node_t;

static bool eval_has(void *arg, int i)
{
	const eval_node_t *n = arg;
	const feature_term_t *t = &n->e->t[i];
	for (const char *p = n->features; *p;) {
		size_t len = strcspn(p, ",");
		if (len == t->len && !strncmp(p, n->expr + t->off, len))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

int main(int argc, char **argv)
{
	feature_expr_t e;
	char err[128];
	if (argc != 3) {
		fprintf(stderr, "usage: feature_eval EXPR FEATURES\n");
		return 2;
	}
	if (feature_expr_parse(argv[1], &e, err, sizeof(err)) < 0) {
		printf("error: %s\n", err);
		return 1;
	}
	eval_node_t n = { argv[1], argv[2], &e };
	printf("%d\n", feature_expr_eval(&e, -1, eval_has, &n) ? 1 : 0);
	return 0;
}
