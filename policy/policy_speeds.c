/*
 * policy_speeds.c: the speed table that SpeedTable= of nodeox.conf names
 * (format in nodeox.conf(5), SPEED TABLE): its reader and its lookup.
 *
 * One entry a line, blank-separated words:
 *   SCOPE NAME ASKED RUN SPEED JOBS SPREAD
 * after a header line "nodeox-speeds v=1 made=TIME from=WHAT" (the first
 * line that is not blank or a comment). '#' starts a comment. Every error is
 * one line "FILE:LINE: what" and refuses the whole table, as a bad
 * nodeox.conf is refused: the plugin then keeps the table it had.
 * Entries go into an open-addressing hash of their key (scope, name, asked
 * type, run type; type names lowercased), so a lookup inside slurmctld costs
 * one hash and a probe or two, whatever the table's size.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy_internal.h"

#define SPEEDS_LINE_MAX 1024
#define SPEEDS_WORDS 8
#define SPEEDS_HEAD_MAX 128 /* made= and from= values */

struct nodeox_speeds {
	char path[512];
	char made[SPEEDS_HEAD_MAX];
	char from[SPEEDS_HEAD_MAX];
	nodeox_speed_t *entries;
	size_t n, cap;
	uint32_t *slots; /* entry index + 1; 0 = empty */
	size_t nslots;   /* a power of two, at least twice n */
};

typedef struct {
	const char *s;
	size_t n;
} speeds_word_t;

static const char *const speeds_scope_names[NODEOX_NSCOPES] = { "workload", "user", "account" };

const char *nodeox_scope_name(nodeox_scope_t scope)
{
	return (unsigned)scope < NODEOX_NSCOPES ? speeds_scope_names[scope] : "?";
}

/* FNV-1a over the key; type names folded to lower case. */
static uint64_t speeds_hash(nodeox_scope_t scope, const char *name, const char *asked, const char *run)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)scope;
	const char *parts[3] = { name, asked, run };
	int k;

	for (k = 0; k < 3; k++) {
		for (const char *c = parts[k]; *c; c++) {
			h ^= (unsigned char)(k ? tolower((unsigned char)*c) : *c);
			h *= 1099511628211ull;
		}
		h ^= 0xff; /* separator: ("ab","c") and ("a","bc") differ */
		h *= 1099511628211ull;
	}
	return h;
}

static bool speeds_same(const nodeox_speed_t *e, nodeox_scope_t scope, const char *name, const char *asked,
			const char *run)
{
	return e->scope == scope && !strcmp(e->name, name) &&
	       nodeox_util_eq(asked, strlen(asked), e->asked) && nodeox_util_eq(run, strlen(run), e->run);
}

const nodeox_speed_t *nodeox_speeds_find(const nodeox_speeds_t *t, nodeox_scope_t scope, const char *name,
					 const char *asked, const char *run)
{
	size_t i, mask;

	if (!t || !t->nslots || !name || !asked || !run || (unsigned)scope >= NODEOX_NSCOPES ||
	    strnlen(name, NODEOX_NAME_MAX) >= NODEOX_NAME_MAX ||
	    strnlen(asked, NODEOX_NAME_MAX) >= NODEOX_NAME_MAX ||
	    strnlen(run, NODEOX_NAME_MAX) >= NODEOX_NAME_MAX)
		return NULL;
	mask = t->nslots - 1;
	for (i = speeds_hash(scope, name, asked, run) & mask; t->slots[i]; i = (i + 1) & mask) {
		const nodeox_speed_t *e = &t->entries[t->slots[i] - 1];

		if (speeds_same(e, scope, name, asked, run))
			return e;
	}
	return NULL;
}

size_t nodeox_speeds_count(const nodeox_speeds_t *t)
{
	return t ? t->n : 0;
}

const nodeox_speed_t *nodeox_speeds_entry(const nodeox_speeds_t *t, size_t i)
{
	return t && i < t->n ? &t->entries[i] : NULL;
}

const char *nodeox_speeds_made(const nodeox_speeds_t *t)
{
	return t ? t->made : "";
}

const char *nodeox_speeds_from(const nodeox_speeds_t *t)
{
	return t ? t->from : "";
}

const char *nodeox_speeds_path(const nodeox_speeds_t *t)
{
	return t ? t->path : "";
}

/* A header value the reader takes: 1..SPEEDS_HEAD_MAX-1 printable bytes, no blank. */
static bool speeds_head_ok(const char *s)
{
	size_t n = s ? strnlen(s, SPEEDS_HEAD_MAX) : 0;

	if (!n || n >= SPEEDS_HEAD_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e || s[i] == '#')
			return false;
	return true;
}

static int speeds_put(char *dst, size_t cap, int n)
{
	if (n < 0 || (size_t)n >= cap) {
		if (cap)
			dst[0] = '\0';
		return -1;
	}
	return n;
}

int nodeox_speeds_format_header(const char *made, const char *from, char *dst, size_t cap)
{
	if (!speeds_head_ok(made) || !speeds_head_ok(from))
		return speeds_put(dst, cap, -1);
	return speeds_put(dst, cap,
			  snprintf(dst, cap, "nodeox-speeds v=%d made=%s from=%s\n", NODEOX_SPEEDS_VERSION,
				   made, from));
}

int nodeox_speeds_format_entry(const nodeox_speed_t *e, char *dst, size_t cap)
{
	const char *names[3] = { e->name, e->asked, e->run };

	for (int k = 0; k < 3; k++)
		if (!nodeox_util_name_ok(names[k], strnlen(names[k], NODEOX_NAME_MAX)))
			return speeds_put(dst, cap, -1);
	if ((unsigned)e->scope >= NODEOX_NSCOPES || nodeox_util_eq(e->asked, strlen(e->asked), e->run) ||
	    !(e->speed > 0 && e->speed <= NODEOX_SPEEDS_SPEED_MAX) || !e->jobs ||
	    e->jobs > NODEOX_SPEEDS_JOBS_MAX || !(e->spread >= 0 && e->spread <= NODEOX_SPEEDS_SPEED_MAX))
		return speeds_put(dst, cap, -1);
	return speeds_put(dst, cap,
			  snprintf(dst, cap, "%s %s %s %s %.6g %u %.6g\n", speeds_scope_names[e->scope],
				   e->name, e->asked, e->run, e->speed, e->jobs, e->spread));
}

void nodeox_speeds_free(nodeox_speeds_t *t)
{
	if (!t)
		return;
	free(t->entries);
	free(t->slots);
	free(t);
}

void nodeox_speeds_workload(const nodeox_tag_t *tag, const char *job_name, char *dst, size_t cap)
{
	const char *w = tag && tag->workload[0] ? tag->workload : job_name;
	size_t n = w ? strnlen(w, NODEOX_NAME_MAX) : 0;

	if (!cap)
		return;
	dst[0] = '\0';
	if (n && n < cap && nodeox_util_name_ok(w, n)) {
		memcpy(dst, w, n);
		dst[n] = '\0';
	}
}

/* Parser state. */
typedef struct {
	nodeox_speeds_t *t;
	const char *name;
	int line;
	int head_line; /* 0: no header yet */
	char *err;
	size_t errlen;
} speeds_parser_t;

#define speeds_fail(p, ...) nodeox_util_fail((p)->err, (p)->errlen, (p)->name, (p)->line, NULL, __VA_ARGS__)

static int speeds_words(const char *s, size_t n, speeds_word_t *w, int max)
{
	size_t i = 0;
	int nw = 0;

	while (i < n) {
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
			i++;
		if (i == n)
			break;
		if (nw == max)
			return max + 1;
		w[nw].s = s + i;
		while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			i++;
		w[nw].n = (size_t)(s + i - w[nw].s);
		nw++;
	}
	return nw;
}

/* A number in [lo, hi] (lo excluded when lo_open). */
static bool speeds_number(const speeds_word_t *w, double lo, double hi, bool lo_open, double *out)
{
	char buf[40], *end;
	double v;

	if (w->n >= sizeof(buf))
		return false;
	memcpy(buf, w->s, w->n);
	buf[w->n] = '\0';
	if (!isdigit((unsigned char)buf[0]) && buf[0] != '.')
		return false; /* no sign, no blanks, no "inf"/"nan" */
	errno = 0;
	v = strtod(buf, &end);
	if (errno || *end || !isfinite(v) || v < lo || v > hi || (lo_open && v == lo))
		return false;
	*out = v;
	return true;
}

/* made=TIME from=WHAT after "nodeox-speeds v=1". */
static int speeds_header(speeds_parser_t *p, const speeds_word_t *w, int nw)
{
	static const char *const keys[2] = { "made=", "from=" };
	char *dst[2] = { p->t->made, p->t->from };
	char q[64];
	int i, k;

	if (nw < 2 || !nodeox_util_eq(w[0].s, w[0].n, "nodeox-speeds"))
		return speeds_fail(p, "expected the header 'nodeox-speeds v=%d made=TIME from=WHAT' first",
				   NODEOX_SPEEDS_VERSION);
	if (w[1].n < 3 || memcmp(w[1].s, "v=", 2))
		return speeds_fail(p, "header: expected v=%d after nodeox-speeds", NODEOX_SPEEDS_VERSION);
	if (w[1].n != 3 || w[1].s[2] != '0' + NODEOX_SPEEDS_VERSION) {
		nodeox_util_quote(q, sizeof(q), w[1].s, w[1].n);
		return speeds_fail(p, "header: %s is a version this nodeox does not read (it reads v=%d)", q,
				   NODEOX_SPEEDS_VERSION);
	}
	for (i = 2; i < nw; i++) {
		for (k = 0; k < 2; k++)
			if (w[i].n > 5 && !memcmp(w[i].s, keys[k], 5))
				break;
		nodeox_util_quote(q, sizeof(q), w[i].s, w[i].n);
		if (k == 2)
			return speeds_fail(p, "header: unknown word '%s' (expected made= and from=)", q);
		if (dst[k][0])
			return speeds_fail(p, "header: %.5s given twice", keys[k]);
		if (w[i].n - 5 >= SPEEDS_HEAD_MAX)
			return speeds_fail(p, "header: %.5s longer than %d characters", keys[k],
					   SPEEDS_HEAD_MAX - 1);
		for (size_t j = 5; j < w[i].n; j++)
			if ((unsigned char)w[i].s[j] < 0x21 || (unsigned char)w[i].s[j] > 0x7e)
				return speeds_fail(p, "header: %.5s holds a byte that is not printable",
						   keys[k]);
		memcpy(dst[k], w[i].s + 5, w[i].n - 5);
		dst[k][w[i].n - 5] = '\0';
	}
	for (k = 0; k < 2; k++)
		if (!dst[k][0])
			return speeds_fail(p,
					   "header: %.5s missing (say when and from what the table was made)",
					   keys[k]);
	p->head_line = p->line;
	return 0;
}

static int speeds_name(speeds_parser_t *p, const speeds_word_t *w, const char *what, char *dst)
{
	char q[64];

	if (!nodeox_util_name_ok(w->s, w->n)) {
		nodeox_util_quote(q, sizeof(q), w->s, w->n);
		return speeds_fail(p, "bad %s '%s' (1 to %d letters, digits, _ . - @)", what, q,
				   NODEOX_NAME_MAX - 1);
	}
	memcpy(dst, w->s, w->n);
	dst[w->n] = '\0';
	return 0;
}

/* Make room for one more entry. */
static int speeds_grow(speeds_parser_t *p)
{
	nodeox_speeds_t *t = p->t;
	nodeox_speed_t *e;
	size_t cap;

	if (t->n < t->cap)
		return 0;
	cap = t->cap ? t->cap * 2 : 64;
	if (cap > NODEOX_SPEEDS_MAX)
		cap = NODEOX_SPEEDS_MAX;
	if (!(e = realloc(t->entries, cap * sizeof(*e))))
		return speeds_fail(p, "out of memory");
	t->entries = e;
	t->cap = cap;
	return 0;
}

static int speeds_entry(speeds_parser_t *p, const speeds_word_t *w, int nw)
{
	nodeox_speed_t *e;
	double jobs;
	char q[64];
	int s;

	if (nw != 7)
		return speeds_fail(p, "expected 7 words (SCOPE NAME ASKED RUN SPEED JOBS SPREAD), found %d",
				   nw);
	if (p->t->n >= NODEOX_SPEEDS_MAX)
		return speeds_fail(p, "more than %d entries", NODEOX_SPEEDS_MAX);
	if (speeds_grow(p))
		return -1;
	e = &p->t->entries[p->t->n];
	memset(e, 0, sizeof(*e));
	for (s = 0; s < NODEOX_NSCOPES; s++)
		if (nodeox_util_eq(w[0].s, w[0].n, speeds_scope_names[s]))
			break;
	if (s == NODEOX_NSCOPES) {
		nodeox_util_quote(q, sizeof(q), w[0].s, w[0].n);
		return speeds_fail(p, "unknown scope '%s' (expected workload, user or account)", q);
	}
	e->scope = (nodeox_scope_t)s;
	if (speeds_name(p, &w[1], speeds_scope_names[s], e->name) ||
	    speeds_name(p, &w[2], "asked GPU type", e->asked) ||
	    speeds_name(p, &w[3], "run GPU type", e->run))
		return -1;
	if (nodeox_util_eq(e->asked, strlen(e->asked), e->run))
		return speeds_fail(p, "asked and run are the same type (%s): its speed is 1 by definition",
				   e->run);
	if (!speeds_number(&w[4], 0.0, NODEOX_SPEEDS_SPEED_MAX, true, &e->speed)) {
		nodeox_util_quote(q, sizeof(q), w[4].s, w[4].n);
		return speeds_fail(p, "speed '%s': expected a number above 0 and at most %g", q,
				   NODEOX_SPEEDS_SPEED_MAX);
	}
	if (!speeds_number(&w[5], 1.0, (double)NODEOX_SPEEDS_JOBS_MAX, false, &jobs) || jobs != floor(jobs)) {
		nodeox_util_quote(q, sizeof(q), w[5].s, w[5].n);
		return speeds_fail(p, "jobs '%s': expected a whole number from 1 to %u", q,
				   NODEOX_SPEEDS_JOBS_MAX);
	}
	e->jobs = (uint32_t)jobs;
	if (!speeds_number(&w[6], 0.0, NODEOX_SPEEDS_SPEED_MAX, false, &e->spread)) {
		nodeox_util_quote(q, sizeof(q), w[6].s, w[6].n);
		return speeds_fail(p, "spread '%s': expected a number from 0 to %g", q,
				   NODEOX_SPEEDS_SPEED_MAX);
	}
	e->line = p->line;
	p->t->n++;
	return 0;
}

static int speeds_line(speeds_parser_t *p, const char *s, size_t n)
{
	speeds_word_t w[SPEEDS_WORDS];
	const char *hash = memchr(s, '#', n);
	int nw;

	if (hash)
		n = (size_t)(hash - s);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 && s[i] != '\t' && s[i] != '\r')
			return speeds_fail(p, "control byte 0x%02x", (unsigned char)s[i]);
	nw = speeds_words(s, n, w, SPEEDS_WORDS);
	if (!nw)
		return 0;
	if (nw > SPEEDS_WORDS)
		return speeds_fail(p, "more than %d words on one line", SPEEDS_WORDS);
	if (!p->head_line)
		return speeds_header(p, w, nw);
	return speeds_entry(p, w, nw);
}

/* Build the hash over the entries read; a key twice is an error naming both
 * lines. */
static int speeds_index(speeds_parser_t *p)
{
	nodeox_speeds_t *t = p->t;
	size_t i, k, mask;

	for (t->nslots = 16; t->nslots < 2 * t->n; t->nslots *= 2)
		;
	if (!(t->slots = calloc(t->nslots, sizeof(*t->slots))))
		return speeds_fail(p, "out of memory");
	mask = t->nslots - 1;
	for (i = 0; i < t->n; i++) {
		const nodeox_speed_t *e = &t->entries[i];

		for (k = speeds_hash(e->scope, e->name, e->asked, e->run) & mask; t->slots[k];
		     k = (k + 1) & mask) {
			const nodeox_speed_t *o = &t->entries[t->slots[k] - 1];

			if (speeds_same(o, e->scope, e->name, e->asked, e->run)) {
				p->line = e->line;
				return speeds_fail(p, "%s %s %s->%s given twice (first at line %d)",
						   speeds_scope_names[e->scope], e->name, e->asked, e->run,
						   o->line);
			}
		}
		t->slots[k] = (uint32_t)(i + 1);
	}
	return 0;
}

int nodeox_speeds_parse_string(const char *text, const char *name, nodeox_speeds_t **out, char *err,
			       size_t errlen)
{
	speeds_parser_t p = { 0 };
	const char *s = text;
	int rc = 0;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	p.name = name ? name : "speed table";
	p.err = err;
	p.errlen = errlen;
	if (!(p.t = calloc(1, sizeof(*p.t)))) {
		snprintf(err, errlen, "%s: out of memory", p.name);
		return -1;
	}
	snprintf(p.t->path, sizeof(p.t->path), "%s", p.name);
	while (text && *s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);

		p.line++;
		if (n >= SPEEDS_LINE_MAX) {
			rc = speeds_fail(&p, "line longer than %d characters", SPEEDS_LINE_MAX - 1);
			break;
		}
		if ((rc = speeds_line(&p, s, n)))
			break;
		if (!nl)
			break;
		s = nl + 1;
	}
	if (!rc && !p.head_line) {
		p.line = 0;
		rc = speeds_fail(&p, "no header (an empty file is not a speed table)");
	}
	if (!rc)
		rc = speeds_index(&p);
	if (rc) {
		nodeox_speeds_free(p.t);
		return -1;
	}
	*out = p.t;
	return 0;
}

int nodeox_speeds_parse_file(const char *path, nodeox_speeds_t **out, char *err, size_t errlen)
{
	char *text;
	int rc;

	*out = NULL;
	if (nodeox_util_read_file(path, NODEOX_SPEEDS_FILE_MAX, &text, err, errlen))
		return -1;
	rc = nodeox_speeds_parse_string(text, path, out, err, errlen);
	free(text);
	return rc;
}
