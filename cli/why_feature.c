/*
 * why_feature.c: does one node satisfy a job's --constraint?
 *
 * Slurm's syntax (22.05 build_feature_list): names joined by & (AND; a comma
 * is taken as &), | (OR), grouped by (...) or by [...] (matching OR: all
 * nodes share one alternative; for a single node it is a plain OR), with an
 * optional node count a*2 that does not change whether one node qualifies.
 * Slurm evaluates the operators left to right without precedence, and so
 * does this. Bounded: one pass over at most NODEOX_STR_MAX characters.
 */
#include <ctype.h>
#include <string.h>

#include "cli/why.h"

typedef struct {
	const char *s;
	const char *features;
	int depth;
	bool bad;
} _feat_parser_t;

static bool _feat_expr(_feat_parser_t *p, char close);

static bool _feat_operand(_feat_parser_t *p)
{
	char name[NODEOX_NAME_MAX];
	size_t n = 0;
	bool v;

	while (*p->s == ' ')
		p->s++;
	if (*p->s == '(' || *p->s == '[') {
		char close = *p->s == '(' ? ')' : ']';

		if (++p->depth > 8) {
			p->bad = true;
			return false;
		}
		p->s++;
		v = _feat_expr(p, close);
		if (*p->s != close) {
			p->bad = true;
			return false;
		}
		p->s++;
		p->depth--;
	} else {
		while (*p->s && !strchr("&,|()[]* ", *p->s)) {
			if (n + 1 < sizeof(name))
				name[n++] = *p->s;
			p->s++;
		}
		name[n] = '\0';
		if (!n) {
			p->bad = true;
			return false;
		}
		v = why_list_has(p->features, name);
	}
	if (*p->s == '*') {            /* a*2: node count, not a per-node test */
		p->s++;
		if (!isdigit((unsigned char)*p->s))
			p->bad = true;
		while (isdigit((unsigned char)*p->s))
			p->s++;
	}
	return v;
}

static bool _feat_expr(_feat_parser_t *p, char close)
{
	bool v = _feat_operand(p);

	while (!p->bad && *p->s && *p->s != close) {
		char op = *p->s++;
		bool w;

		if (op == ' ')
			continue;
		if (op != '&' && op != ',' && op != '|') {
			p->bad = true;
			break;
		}
		w = _feat_operand(p);
		v = (op == '|') ? (v || w) : (v && w);
	}
	return v;
}

int why_feature_match(const char *constraint, const char *features)
{
	_feat_parser_t p = { .s = constraint, .features = features ? features : "" };
	bool v;

	if (!constraint || !*constraint)
		return 1;
	if (strnlen(constraint, NODEOX_STR_MAX + 1) > NODEOX_STR_MAX)
		return -1;
	v = _feat_expr(&p, '\0');
	if (p.bad || *p.s)
		return -1;
	return v ? 1 : 0;
}
