/*
 * test_feature_expr.c: the constraint evaluator nodeox-sim and `nodeox why`
 * share (common/feature_expr.c), against Slurm 22.05's rules read from
 * build_feature_list and valid_feature_counts: left to right without
 * precedence, one level of ( ), one [ ] set and its alternatives, counts,
 * and the expressions Slurm refuses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tests/common/test_main.h"
#include "common/feature_expr.h"

typedef struct {
	const char *expr;
	const feature_expr_t *e;
	const char *have; /* the node's features, comma separated */
} node_t;

static bool node_has(void *arg, int i)
{
	const node_t *n = arg;
	const feature_term_t *t = &n->e->t[i];
	const char *p = n->have;
	while (*p) {
		size_t len = strcspn(p, ",");
		if (len == t->len && !strncmp(p, n->expr + t->off, len))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

/* 1 / 0: the node qualifies or not (alternative alt); -1: parse error. */
static int eval(const char *expr, const char *have, int alt)
{
	feature_expr_t e;
	char err[128];
	if (feature_expr_parse(expr, &e, err, sizeof(err)) < 0)
		return -1;
	node_t n = { expr, &e, have };
	return feature_expr_eval(&e, alt, node_has, &n) ? 1 : 0;
}

static void test_left_to_right(void **state)
{
	(void)state;
	/* a|b&c is (a|b)&c in Slurm 22.05, not a|(b&c) */
	assert_int_equal(eval("a|b&c", "a", -1), 0);
	assert_int_equal(eval("a|b&c", "a,c", -1), 1);
	assert_int_equal(eval("a|b&c", "b,c", -1), 1);
	assert_int_equal(eval("a|b&c", "c", -1), 0);
	/* a&b|c is (a&b)|c */
	assert_int_equal(eval("a&b|c", "c", -1), 1);
	assert_int_equal(eval("a&b|c", "a", -1), 0);
	assert_int_equal(eval("a,b", "a,b", -1), 1); /* ',' is '&' */
	assert_int_equal(eval("a,b", "a", -1), 0);
	assert_int_equal(eval("a", "ab", -1), 0); /* whole names only */
}

static void test_parentheses(void **state)
{
	(void)state;
	assert_int_equal(eval("a|(b&c)", "a", -1), 1);
	assert_int_equal(eval("a|(b&c)", "b", -1), 0);
	assert_int_equal(eval("a|(b&c)", "b,c", -1), 1);
	assert_int_equal(eval("(a|b)&c", "b,c", -1), 1);
	assert_int_equal(eval("(a|b)&c", "b", -1), 0);
	assert_int_equal(eval("c&(a|b)|d", "d", -1), 1); /* (c&(a|b))|d */
	assert_int_equal(eval("c&(a|b)|d", "a", -1), 0);
	assert_int_equal(eval("(a|b)&(c|d)", "b,d", -1), 1);
	assert_int_equal(eval("(a|b)&(c|d)", "a,b", -1), 0);
}

static void test_matching_set(void **state)
{
	(void)state;
	feature_expr_t e;
	char err[128];
	assert_int_equal(feature_expr_parse("ib&[a|b|c]", &e, err, sizeof(err)), 0);
	assert_int_equal(e.nalt, 3);
	assert_int_equal(eval("ib&[a|b|c]", "ib,b", -1), 1);
	assert_int_equal(eval("ib&[a|b|c]", "b", -1), 0);
	assert_int_equal(eval("ib&[a|b|c]", "ib,b", 1), 1);
	assert_int_equal(eval("ib&[a|b|c]", "ib,b", 0), 0);
	assert_int_equal(eval("[a|b]&ib", "a,ib", 0), 1);
	assert_int_equal(eval("[a|b]&ib", "a", 0), 0);
	/* counts: Slurm filters no node by features then */
	assert_int_equal(eval("a*2", "b", -1), 1);
	assert_int_equal(eval("[a*2&b*2]", "c", -1), 1);
}

static void test_refused(void **state)
{
	(void)state;
	const char *bad[] = { "a|",    "|a",  "a||b", "(a",          "a)",     "a]",   "[a",     "((a|b))",
			      "(a*2)", "a*0", "a*x",  "[a|b]&[c|d]", "(a|b)c", "a[b]", "[(a|b)]" };
	char err[128];
	feature_expr_t e;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (feature_expr_parse(bad[i], &e, err, sizeof(err)) != -1)
			fail_msg("'%s' was accepted", bad[i]);
		assert_true(strlen(err) > 0);
	}
	assert_int_equal(feature_expr_parse("", &e, err, sizeof(err)), 0);
	assert_int_equal(e.n, 0);
	assert_int_equal(eval("", "x", -1), 1); /* no constraint: any node */
}

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_left_to_right), cmocka_unit_test(test_parentheses),
		 cmocka_unit_test(test_matching_set), cmocka_unit_test(test_refused))
