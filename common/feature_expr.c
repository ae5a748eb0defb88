/*
 * feature_expr.c: Slurm 22.05's feature expressions (see feature_expr.h).
 *
 * The parser follows build_feature_list() in src/slurmctld/job_scheduler.c
 * character for character: a name runs up to the next of "&|*[]()" (',' is
 * taken as '&'; spaces belong to the name), each name records the operator
 * after it and the parenthesis depth at that point, so the name closing a
 * group carries the depth outside it. The evaluator follows
 * valid_feature_counts() in src/slurmctld/node_scheduler.c: one running
 * value, each name folded in with the operator recorded before it, left to
 * right; a group starts a fresh value that is folded into the outer one with
 * the operator before the group once the group's last name is in. No
 * precedence: a|b&c is (a|b)&c. Counts (a*2) make Slurm skip node filtering.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/feature_expr.h"

static int feature_expr_fail(char *err, size_t errlen, const char *what, const char *at)
{
	if (err && errlen)
		snprintf(err, errlen, "%s at '%.32s'", what, at);
	return -1;
}

static int feature_expr_add(feature_expr_t *e, const char *s, const char *name, size_t len, uint32_t count,
			    int paren, uint8_t op, int bracket, bool in_set, char *err, size_t errlen)
{
	if (e->n == FEATURE_EXPR_MAX)
		return feature_expr_fail(err, errlen, "too many feature names", name);
	feature_term_t *t = &e->t[e->n++];
	t->off = (uint16_t)(name - s);
	t->len = (uint16_t)len;
	t->count = count;
	t->paren = (uint8_t)paren;
	/* Slurm: inside parentheses & and | stay plain, in brackets they are XAND/XOR */
	if (op == FEATURE_OP_AND)
		t->op = paren ? FEATURE_OP_AND : bracket ? FEATURE_OP_XAND : FEATURE_OP_AND;
	else if (op == FEATURE_OP_OR)
		t->op = paren ? FEATURE_OP_OR : bracket ? FEATURE_OP_XOR : FEATURE_OP_OR;
	else
		t->op = op;
	t->alt = -1;
	t->in_set = in_set;
	if (count)
		e->has_count = true;
	return 0;
}

int feature_expr_parse(const char *expr, feature_expr_t *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (!expr || !*expr)
		return 0;
	if (strlen(expr) > UINT16_MAX)
		return feature_expr_fail(err, errlen, "expression too long", expr);
	const char *feature = NULL, *p = expr;
	size_t flen = 0;
	uint32_t count = 0;
	int paren = 0, bracket = 0, sets = 0, bracket_first = -1;
	bool in_set = false; /* the current name began inside [ ] */
	for (;; p++) {
		char ch = *p;
		if (ch == '*') {
			if (!feature || paren)
				return feature_expr_fail(
					err, errlen, feature ? "count inside ( )" : "count without a feature",
					p);
			if (!flen)
				flen = (size_t)(p - feature);
			char *end;
			long v = strtol(p + 1, &end, 10);
			if (v <= 0 || v > (long)UINT32_MAX)
				return feature_expr_fail(err, errlen, "expected a count after '*'", p);
			count = (uint32_t)v;
			p = end - 1;
		} else if (ch == '&' || ch == ',' || ch == '|') {
			if (!feature)
				return feature_expr_fail(err, errlen, "expected a feature name", p);
			if (feature_expr_add(out, expr, feature, flen ? flen : (size_t)(p - feature), count,
					     paren, ch == '|' ? FEATURE_OP_OR : FEATURE_OP_AND, bracket,
					     in_set, err, errlen) < 0)
				return -1;
			feature = NULL;
			flen = 0;
			count = 0;
		} else if (ch == '[') {
			if (feature || bracket)
				return feature_expr_fail(err, errlen, "unexpected '['", p);
			if (paren) /* Slurm takes it, but gives no clear meaning */
				return feature_expr_fail(err, errlen, "[ ] inside ( )", p);
			if (++sets > 1)
				return feature_expr_fail(err, errlen, "more than one [ ] set", p);
			bracket++;
			bracket_first = out->n;
		} else if (ch == ']') {
			if (!feature || !bracket)
				return feature_expr_fail(err, errlen, "unexpected ']'", p);
			if (!flen)
				flen = (size_t)(p - feature);
			bracket--;
		} else if (ch == '(') {
			if (feature || paren)
				return feature_expr_fail(err, errlen, paren ? "nested '('" : "unexpected '('",
							 p);
			if (bracket)
				return feature_expr_fail(err, errlen, "( ) inside [ ]", p);
			paren++;
		} else if (ch == ')') {
			if (!feature || !paren)
				return feature_expr_fail(err, errlen, "unexpected ')'", p);
			if (!flen)
				flen = (size_t)(p - feature);
			paren--;
		} else if (ch == '\0') {
			if (feature &&
			    feature_expr_add(out, expr, feature, flen ? flen : (size_t)(p - feature), count,
					     paren, FEATURE_OP_END, bracket, in_set, err, errlen) < 0)
				return -1;
			if (!feature && out->n > 0)
				return feature_expr_fail(err, errlen, "expected a feature name", p);
			break;
		} else if (!feature) {
			feature = p;
			in_set = bracket > 0;
		} else if (flen) {
			/* text after a ')' ']' or count that Slurm drops: refuse it */
			return feature_expr_fail(err, errlen, "unexpected character", p);
		}
	}
	if (bracket)
		return feature_expr_fail(err, errlen, "missing ']'", p);
	if (paren)
		return feature_expr_fail(err, errlen, "missing ')'", p);
	if (out->n == 0)
		return feature_expr_fail(err, errlen, "expected a feature name", expr);
	/* The XOR set's alternatives: the names of the bracket joined by '|'. */
	if (bracket_first >= 0) {
		bool xor = false;
		for (int i = bracket_first; i < out->n; i++)
			if (out->t[i].op == FEATURE_OP_XOR)
				xor = true;
		for (int i = bracket_first; xor &&i < out->n; i++) {
			out->t[i].alt = (int16_t)out->nalt++;
			if (out->t[i].op != FEATURE_OP_XOR)
				break; /* the set's last name */
		}
	}
	return 0;
}

static bool feature_fold(bool v, int op, bool w)
{
	if (op == FEATURE_OP_OR || op == FEATURE_OP_XOR)
		return v || w;
	return v && w;
}

bool feature_expr_eval(const feature_expr_t *e, int alt, bool (*has)(void *arg, int i), void *arg)
{
	if (e->n == 0 || e->has_count)
		return true;
	bool feature = true, group = true, *work = &feature;
	int last_op = FEATURE_OP_AND, last_paren_op = FEATURE_OP_AND, last_paren = 0;
	for (int i = 0; i < e->n; i++) {
		const feature_term_t *t = &e->t[i];
		bool set_begins = t->in_set && (i == 0 || !e->t[i - 1].in_set);
		bool set_ends = t->in_set && (i + 1 == e->n || !e->t[i + 1].in_set);
		if (last_paren < t->paren || set_begins) { /* a group begins */
			last_paren_op = last_op;
			last_op = FEATURE_OP_AND;
			group = true;
			work = &group;
		}
		bool w = (alt >= 0 && t->alt >= 0 && t->alt != alt) ? false : has(arg, i);
		*work = feature_fold(*work, last_op, w);
		if (last_paren > t->paren || set_ends) { /* the group ends with this name */
			feature = feature_fold(feature, last_paren_op, group);
			work = &feature;
		}
		last_op = t->op;
		last_paren = t->paren;
	}
	return *work;
}
