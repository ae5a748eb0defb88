/*
 * feature_expr.h: Slurm 22.05's --constraint / --prefer expressions, parsed
 * and evaluated for one node exactly as slurmctld does (common/feature_expr.c).
 * Shared by nodeox-sim (sim/model/constraint.c) and `nodeox why` (cli/why_feature.c)
 * so that both agree with Slurm and with each other.
 */
#ifndef NODEOX_FEATURE_EXPR_H
#define NODEOX_FEATURE_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FEATURE_EXPR_MAX 64 /* feature names in one expression */

enum { FEATURE_OP_END = 0, FEATURE_OP_AND, FEATURE_OP_OR, FEATURE_OP_XOR, FEATURE_OP_XAND };

typedef struct {
	uint16_t off, len; /* the name, in the parsed string */
	uint8_t op;        /* FEATURE_OP_* after the name (Slurm's op_code) */
	uint8_t paren;     /* Slurm's paren depth of the name (0 or 1) */
	int16_t alt;       /* index among the [..|..] alternatives, else -1 */
	bool in_set;       /* written inside [ ] */
	uint32_t count;    /* NAME*N, 0 when none */
} feature_term_t;

typedef struct {
	feature_term_t t[FEATURE_EXPR_MAX];
	int n;
	int nalt;       /* alternatives of the [..|..] set, 0 when none */
	bool has_count; /* some NAME*N: Slurm then filters no node */
} feature_expr_t;

/* Parse expr as Slurm's build_feature_list does (',' is '&'; no nesting of
 * parentheses; one bracket set; a count only outside parentheses). Returns 0,
 * or -1 with "what at 'rest'" in err. An empty or NULL expr gives n == 0. */
int feature_expr_parse(const char *expr, feature_expr_t *out, char *err, size_t errlen);

/* Does a node satisfy e? has(arg, i) says whether it has term i's feature.
 * Operators apply left to right without precedence (a|b&c is (a|b)&c), a
 * parenthesised group is evaluated first, as in valid_feature_counts. alt < 0:
 * any alternative of a [..|..] set will do; alt = k: only the k-th (the set
 * as Slurm tries it for a job whose nodes must all share one). */
bool feature_expr_eval(const feature_expr_t *e, int alt, bool (*has)(void *arg, int i), void *arg);

#endif
