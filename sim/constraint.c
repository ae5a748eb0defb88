/*
 * constraint.c: Slurm --constraint expressions as the simulator uses them.
 *
 * The expression is turned into disjunctive normal form once per job (a list
 * of feature bitmasks, OR of ANDs), so matching a node is a few mask tests.
 * Supported: NAME, & and , (AND), | (OR), ( ), and [ ] (matching OR: all
 * nodes of the job share one alternative). Counts (NAME*N) are accepted and
 * ignored; see doc/simulator.md.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "sim/cluster.h"

typedef struct {
	uint64_t t[SIM_MAX_TERMS];
	int n;
} dnf_t;

typedef struct {
	const char *p;
	const sim_cluster_t *c;
	char *err;
	size_t errlen;
	bool matching;
	int depth;
} cparser_t;

static int constraint_expr(cparser_t *cp, dnf_t *out);

static int constraint_fail(cparser_t *cp, const char *what)
{
	snprintf(cp->err, cp->errlen, "%s at '%.32s'", what, cp->p);
	return -1;
}

static void constraint_skip(cparser_t *cp)
{
	while (*cp->p == ' ')
		cp->p++;
}

static int constraint_factor(cparser_t *cp, dnf_t *out)
{
	constraint_skip(cp);
	char open = *cp->p;
	if (open == '(' || open == '[') {
		if (++cp->depth > 16)
			return constraint_fail(cp, "nesting too deep");
		cp->p++;
		if (constraint_expr(cp, out) < 0)
			return -1;
		constraint_skip(cp);
		if (*cp->p != (open == '(' ? ')' : ']'))
			return constraint_fail(cp, open == '(' ? "missing ')'" : "missing ']'");
		cp->p++;
		cp->depth--;
		if (open == '[')
			cp->matching = true;
		return 0;
	}
	const char *start = cp->p;
	while (isalnum((unsigned char)*cp->p) || *cp->p == '_' || *cp->p == '-' ||
	       *cp->p == '.' || *cp->p == ':' || *cp->p == '+')
		cp->p++;
	size_t len = (size_t)(cp->p - start);
	if (len == 0)
		return constraint_fail(cp, "expected a feature name");
	if (*cp->p == '*') {                      /* NAME*count: count ignored */
		cp->p++;
		if (!isdigit((unsigned char)*cp->p))
			return constraint_fail(cp, "expected a count after '*'");
		while (isdigit((unsigned char)*cp->p))
			cp->p++;
	}
	char name[128];
	if (len >= sizeof(name))
		return constraint_fail(cp, "feature name too long");
	memcpy(name, start, len);
	name[len] = '\0';
	int f = cluster_find_feature(cp->c, name);
	out->n = 0;
	if (f >= 0)
		out->t[out->n++] = 1ull << f;
	return 0;
}

static int constraint_and(cparser_t *cp, dnf_t *out)
{
	if (constraint_factor(cp, out) < 0)
		return -1;
	for (;;) {
		constraint_skip(cp);
		if (*cp->p != '&' && *cp->p != ',')
			return 0;
		cp->p++;
		dnf_t rhs, prod = { .n = 0 };
		if (constraint_factor(cp, &rhs) < 0)
			return -1;
		for (int i = 0; i < out->n; i++)
			for (int j = 0; j < rhs.n; j++) {
				if (prod.n == SIM_MAX_TERMS)
					return constraint_fail(cp, "too many alternatives");
				prod.t[prod.n++] = out->t[i] | rhs.t[j];
			}
		*out = prod;
	}
}

static int constraint_expr(cparser_t *cp, dnf_t *out)
{
	if (constraint_and(cp, out) < 0)
		return -1;
	for (;;) {
		constraint_skip(cp);
		if (*cp->p != '|')
			return 0;
		cp->p++;
		dnf_t rhs;
		if (constraint_and(cp, &rhs) < 0)
			return -1;
		for (int j = 0; j < rhs.n; j++) {
			if (out->n == SIM_MAX_TERMS)
				return constraint_fail(cp, "too many alternatives");
			out->t[out->n++] = rhs.t[j];
		}
	}
}

int constraint_parse(const char *expr, const sim_cluster_t *c, sim_constraint_t *out,
		     char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (!expr)
		return 0;
	while (*expr == ' ')
		expr++;
	if (!*expr)
		return 0;
	cparser_t cp = { .p = expr, .c = c, .err = err, .errlen = errlen };
	dnf_t d;
	if (constraint_expr(&cp, &d) < 0)
		return -1;
	constraint_skip(&cp);
	if (*cp.p)
		return constraint_fail(&cp, "unexpected character");
	memcpy(out->terms, d.t, sizeof(uint64_t) * d.n);
	out->nterms = d.n;
	out->matching = cp.matching;
	out->never = d.n == 0;
	return 0;
}

int constraint_match(const sim_constraint_t *k, uint64_t node_features)
{
	if (k->never)
		return -1;
	if (k->nterms == 0)
		return 0;
	for (int i = 0; i < k->nterms; i++)
		if ((node_features & k->terms[i]) == k->terms[i])
			return i;
	return -1;
}
