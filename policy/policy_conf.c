/*
 * policy_conf.c: the nodeox.conf parser (format in doc/nodeox.conf.5).
 *
 * Slurm style: one entry per line, whitespace-separated Key=Value tokens,
 * keys case-insensitive, '#' starts a comment. A line starting with GpuType=
 * or Group= describes one type or group; any other line holds global keys.
 * Every error is one line "FILE:LINE: what" and stops the parse, so an admin
 * fixes one thing at a time and a half-read policy is never used. Groups are
 * resolved after the whole file is read, so they may name types defined
 * further down.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy_internal.h"

#define CONF_FILE_MAX (1 << 20) /* a policy file is small; refuse more */
#define CONF_LINE_MAX 4096
#define CONF_TOKENS 64

typedef struct {
	const char *key, *val;
	size_t klen, vlen;
} conf_tok_t;

/* Parser state: the conf being filled and where we are. */
typedef struct {
	nodeox_conf_t *conf;
	const char *name;
	int line;
	char *err;
	size_t errlen;
	int seen[16]; /* line where each global key was set */
	char group_types[NODEOX_MAX_GROUPS][CONF_LINE_MAX / 4];
} conf_parser_t;

enum {
	K_MODE,
	K_BROADEN,
	K_MINSPEED,
	K_SCALE,
	K_PREFER,
	K_PARTS,
	K_ALLOWACC,
	K_DENYACC,
	K_ALLOWUSR,
	K_DENYUSR,
	K_MARGIN,
	K_SPEEDTABLE,
	K_HISTORY,
	K_NGLOBAL
};
static const char *const conf_global_keys[K_NGLOBAL] = {
	"Mode",          "Broaden",      "MinSpeed",   "ScaleTimeLimit", "PreferRequested",  "Partitions",
	"AllowAccounts", "DenyAccounts", "AllowUsers", "DenyUsers",      "WhenFasterMargin", "SpeedTable",
	"RunTimeHistory",
};

/* "NAME:LINE: message" into p->err (common/util.h); -1. */
#define conf_fail(p, ...) nodeox_util_fail((p)->err, (p)->errlen, (p)->name, (p)->line, NULL, __VA_ARGS__)

/* The value as a quoted, bounded string for messages. */
static const char *conf_q(char *buf, size_t cap, const char *s, size_t n)
{
	nodeox_util_quote(buf, cap, s, n);
	return buf;
}

static int conf_bool(conf_parser_t *p, const conf_tok_t *t, bool *out)
{
	char q[64];

	if (nodeox_util_eq(t->val, t->vlen, "yes") || nodeox_util_eq(t->val, t->vlen, "true") ||
	    nodeox_util_eq(t->val, t->vlen, "1")) {
		*out = true;
		return 0;
	}
	if (nodeox_util_eq(t->val, t->vlen, "no") || nodeox_util_eq(t->val, t->vlen, "false") ||
	    nodeox_util_eq(t->val, t->vlen, "0")) {
		*out = false;
		return 0;
	}
	return conf_fail(p, "%.*s=%s: expected yes or no", (int)t->klen, t->key,
			 conf_q(q, sizeof(q), t->val, t->vlen));
}

static int conf_double(conf_parser_t *p, const conf_tok_t *t, double lo, double hi, bool lo_open,
		       const char *what, double *out)
{
	char buf[64], q[64], *end;
	double v;

	if (t->vlen >= sizeof(buf))
		goto bad;
	memcpy(buf, t->val, t->vlen);
	buf[t->vlen] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (errno || end == buf || *end || !isfinite(v) || v > hi || v < lo || (lo_open && v == lo))
		goto bad;
	*out = v;
	return 0;
bad:
	return conf_fail(p, "%.*s=%s: expected %s", (int)t->klen, t->key,
			 conf_q(q, sizeof(q), t->val, t->vlen), what);
}

static int conf_names(conf_parser_t *p, const conf_tok_t *t, nodeox_namelist_t *l)
{
	size_t off = 0;
	char q[64];

	while (off <= t->vlen) {
		const char *c = memchr(t->val + off, ',', t->vlen - off);
		size_t n = c ? (size_t)(c - (t->val + off)) : t->vlen - off;

		if (!nodeox_util_name_ok(t->val + off, n))
			return conf_fail(p, "%.*s: bad name '%s' (letters, digits, _ . - @)", (int)t->klen,
					 t->key, conf_q(q, sizeof(q), t->val + off, n));
		if (l->n >= NODEOX_MAX_SCOPE)
			return conf_fail(p, "%.*s: more than %d names", (int)t->klen, t->key,
					 NODEOX_MAX_SCOPE);
		memcpy(l->names[l->n], t->val + off, n);
		l->names[l->n][n] = '\0';
		l->n++;
		off += n + 1;
	}
	return 0;
}

/* A file named in the conf (SpeedTable=): printable, and relative to the
 * conf's own directory unless it starts with '/'. */
static int conf_path(conf_parser_t *p, const conf_tok_t *t, char *dst, size_t cap)
{
	const char *slash = strrchr(p->name, '/');
	int dir = t->val[0] == '/' || !slash ? 0 : (int)(slash - p->name + 1);
	char q[64];
	size_t i;

	for (i = 0; i < t->vlen; i++)
		if ((unsigned char)t->val[i] < 0x21 || (unsigned char)t->val[i] > 0x7e)
			return conf_fail(p, "%.*s=%s: not a printable path", (int)t->klen, t->key,
					 conf_q(q, sizeof(q), t->val, t->vlen));
	if ((size_t)dir + t->vlen >= cap)
		return conf_fail(p, "%.*s=%s: path longer than %zu characters", (int)t->klen, t->key,
				 conf_q(q, sizeof(q), t->val, t->vlen), cap - 1);
	snprintf(dst, cap, "%.*s%.*s", dir, p->name, (int)t->vlen, t->val);
	return 0;
}

static int conf_global(conf_parser_t *p, const conf_tok_t *t)
{
	nodeox_conf_t *c = p->conf;
	nodeox_namelist_t *lists[K_NGLOBAL] = {
		[K_PARTS] = &c->partitions,      [K_ALLOWACC] = &c->allow_accounts,
		[K_DENYACC] = &c->deny_accounts, [K_ALLOWUSR] = &c->allow_users,
		[K_DENYUSR] = &c->deny_users,
	};
	char q[64];
	int k;

	for (k = 0; k < K_NGLOBAL; k++)
		if (nodeox_util_eq(t->key, t->klen, conf_global_keys[k]))
			break;
	if (k == K_NGLOBAL) {
		if (nodeox_util_eq(t->key, t->klen, "Feature") || nodeox_util_eq(t->key, t->klen, "Memory") ||
		    nodeox_util_eq(t->key, t->klen, "Speed"))
			return conf_fail(p, "%.*s= belongs on a GpuType= line", (int)t->klen, t->key);
		if (nodeox_util_eq(t->key, t->klen, "Types"))
			return conf_fail(p, "Types= belongs on a Group= line");
		if (nodeox_util_eq(t->key, t->klen, "GpuType") || nodeox_util_eq(t->key, t->klen, "Group"))
			return conf_fail(p, "%.*s= must start its line", (int)t->klen, t->key);
		return conf_fail(p, "unknown key '%s'", conf_q(q, sizeof(q), t->key, t->klen));
	}
	if (p->seen[k])
		return conf_fail(p, "%s= given twice (first at line %d)", conf_global_keys[k], p->seen[k]);
	p->seen[k] = p->line;
	switch (k) {
	case K_MODE:
		if (nodeox_util_eq(t->val, t->vlen, "enforce"))
			c->mode = NODEOX_MODE_ENFORCE;
		else if (nodeox_util_eq(t->val, t->vlen, "dryrun"))
			c->mode = NODEOX_MODE_DRYRUN;
		else if (nodeox_util_eq(t->val, t->vlen, "off"))
			c->mode = NODEOX_MODE_OFF;
		else
			return conf_fail(p, "Mode=%s: expected enforce, dryrun or off",
					 conf_q(q, sizeof(q), t->val, t->vlen));
		return 0;
	case K_BROADEN:
		if (nodeox_util_eq(t->val, t->vlen, "always"))
			c->broaden = NODEOX_BROADEN_ALWAYS;
		else if (nodeox_util_eq(t->val, t->vlen, "when-blocked"))
			c->broaden = NODEOX_BROADEN_WHEN_BLOCKED;
		else if (nodeox_util_eq(t->val, t->vlen, "when-faster"))
			c->broaden = NODEOX_BROADEN_WHEN_FASTER;
		else
			return conf_fail(p,
					 "Broaden=%s: expected always, when-blocked or "
					 "when-faster",
					 conf_q(q, sizeof(q), t->val, t->vlen));
		return 0;
	case K_MINSPEED: return conf_double(p, t, 0.0, 1.0, false, "a number from 0 to 1", &c->min_speed);
	case K_MARGIN:
		return conf_double(p, t, 0.0, 0.9, false, "a fraction from 0 to 0.9", &c->when_faster_margin);
	case K_SPEEDTABLE: return conf_path(p, t, c->speed_table, sizeof(c->speed_table));
	case K_SCALE: return conf_bool(p, t, &c->scale_time_limit);
	case K_PREFER: return conf_bool(p, t, &c->prefer_requested);
	case K_HISTORY: return conf_bool(p, t, &c->run_time_history);
	default: return conf_names(p, t, lists[k]);
	}
}

static int conf_gputype(conf_parser_t *p, const conf_tok_t *t, int nt)
{
	nodeox_conf_t *c = p->conf;
	nodeox_gpu_type_t *g;
	bool have_feature = false, have_mem = false, have_speed = false;
	char q[64];
	int i;

	if (!nodeox_util_name_ok(t[0].val, t[0].vlen))
		return conf_fail(p, "GpuType=%s: bad type name (letters, digits, _ . - @)",
				 conf_q(q, sizeof(q), t[0].val, t[0].vlen));
	for (i = 0; i < c->ntypes; i++)
		if (nodeox_util_eq(t[0].val, t[0].vlen, c->types[i].name))
			return conf_fail(p, "GpuType=%s already defined at line %d", c->types[i].name,
					 c->types[i].line);
	if (c->ntypes >= NODEOX_MAX_TYPES)
		return conf_fail(p, "more than %d GpuType= lines", NODEOX_MAX_TYPES);
	g = &c->types[c->ntypes];
	memcpy(g->name, t[0].val, t[0].vlen);
	g->name[t[0].vlen] = '\0';
	g->line = p->line;
	g->speed = 1.0;
	for (i = 1; i < nt; i++) {
		bool *have;

		if (nodeox_util_eq(t[i].key, t[i].klen, "Feature"))
			have = &have_feature;
		else if (nodeox_util_eq(t[i].key, t[i].klen, "Memory"))
			have = &have_mem;
		else if (nodeox_util_eq(t[i].key, t[i].klen, "Speed"))
			have = &have_speed;
		else
			return conf_fail(p,
					 "unknown key '%s' on a GpuType= line (expected "
					 "Feature, Memory, Speed)",
					 conf_q(q, sizeof(q), t[i].key, t[i].klen));
		if (*have)
			return conf_fail(p, "%.*s= given twice for GpuType=%s", (int)t[i].klen, t[i].key,
					 g->name);
		*have = true;
		if (have == &have_feature) {
			if (!nodeox_util_name_ok(t[i].val, t[i].vlen))
				return conf_fail(p, "Feature=%s: bad feature name",
						 conf_q(q, sizeof(q), t[i].val, t[i].vlen));
			memcpy(g->feature, t[i].val, t[i].vlen);
			g->feature[t[i].vlen] = '\0';
		} else if (have == &have_mem) {
			char buf[32];

			if (t[i].vlen >= sizeof(buf))
				goto bad_mem;
			memcpy(buf, t[i].val, t[i].vlen);
			buf[t[i].vlen] = '\0';
			if (nodeox_util_parse_size_mb(buf, &g->mem_mb) || !g->mem_mb)
				goto bad_mem;
		} else if (conf_double(p, &t[i], 0.0, 1e300, true, "a number above 0", &g->speed)) {
			return -1;
		}
		continue;
	bad_mem:
		return conf_fail(p, "Memory=%s: expected a size like 80G or 40960M",
				 conf_q(q, sizeof(q), t[i].val, t[i].vlen));
	}
	if (!have_feature)
		memcpy(g->feature, g->name, sizeof(g->feature));
	for (i = 0; i < c->ntypes; i++)
		if (!strcmp(c->types[i].feature, g->feature))
			return conf_fail(p,
					 "Feature=%s is already the feature of GpuType=%s "
					 "(line %d): one feature per type",
					 g->feature, c->types[i].name, c->types[i].line);
	c->ntypes++;
	return 0;
}

static int conf_group(conf_parser_t *p, const conf_tok_t *t, int nt)
{
	nodeox_conf_t *c = p->conf;
	nodeox_group_t *g;
	char q[64];
	int i;

	if (!nodeox_util_name_ok(t[0].val, t[0].vlen))
		return conf_fail(p, "Group=%s: bad group name", conf_q(q, sizeof(q), t[0].val, t[0].vlen));
	for (i = 0; i < c->ngroups; i++)
		if (nodeox_util_eq(t[0].val, t[0].vlen, c->groups[i].name))
			return conf_fail(p, "Group=%s already defined at line %d", c->groups[i].name,
					 c->groups[i].line);
	if (c->ngroups >= NODEOX_MAX_GROUPS)
		return conf_fail(p, "more than %d Group= lines", NODEOX_MAX_GROUPS);
	if (nt != 2 || !nodeox_util_eq(t[1].key, t[1].klen, "Types"))
		return conf_fail(p, "Group=%s: expected exactly one Types=t1,t2,... after it",
				 conf_q(q, sizeof(q), t[0].val, t[0].vlen));
	if (t[1].vlen >= sizeof(p->group_types[0]))
		return conf_fail(p, "Group=%s: Types= list too long",
				 conf_q(q, sizeof(q), t[0].val, t[0].vlen));
	g = &c->groups[c->ngroups];
	memcpy(g->name, t[0].val, t[0].vlen);
	g->name[t[0].vlen] = '\0';
	g->line = p->line;
	memcpy(p->group_types[c->ngroups], t[1].val, t[1].vlen);
	p->group_types[c->ngroups][t[1].vlen] = '\0';
	c->ngroups++;
	return 0;
}

/* After the whole file: turn each group's Types= names into type indexes. */
static int conf_resolve_groups(conf_parser_t *p)
{
	nodeox_conf_t *c = p->conf;
	char q[64];
	int i, j;

	for (i = 0; i < c->ngroups; i++) {
		nodeox_group_t *g = &c->groups[i];
		const char *s = p->group_types[i];

		p->line = g->line;
		while (1) {
			const char *e = strchr(s, ',');
			size_t n = e ? (size_t)(e - s) : strlen(s);
			int t = -1;

			for (j = 0; j < c->ntypes; j++)
				if (nodeox_util_eq(s, n, c->types[j].name))
					t = j;
			if (t < 0)
				return conf_fail(p, "Group=%s: type '%s' has no GpuType= line", g->name,
						 conf_q(q, sizeof(q), s, n));
			for (j = 0; j < g->ntypes; j++)
				if (g->types[j] == t)
					return conf_fail(p, "Group=%s: type %s listed twice", g->name,
							 c->types[t].name);
			g->types[g->ntypes++] = t;
			if (!e)
				break;
			s = e + 1;
		}
		if (g->ntypes < 2)
			return conf_fail(p, "Group=%s: a group needs at least two types", g->name);
	}
	return 0;
}

/* Split one line (comment already cut) into Key=Value tokens. */
static int conf_tokens(conf_parser_t *p, const char *s, size_t n, conf_tok_t *t)
{
	size_t i = 0;
	int nt = 0;
	char q[64];

	while (i < n) {
		size_t st;
		const char *eq;

		while (i < n && isspace((unsigned char)s[i]))
			i++;
		if (i == n)
			break;
		st = i;
		while (i < n && !isspace((unsigned char)s[i]))
			i++;
		if (nt == CONF_TOKENS)
			return conf_fail(p, "more than %d Key=Value items on one line", CONF_TOKENS);
		eq = memchr(s + st, '=', i - st);
		if (!eq || eq == s + st || eq == s + i - 1)
			return conf_fail(p, "'%s' is not Key=Value", conf_q(q, sizeof(q), s + st, i - st));
		t[nt].key = s + st;
		t[nt].klen = (size_t)(eq - (s + st));
		t[nt].val = eq + 1;
		t[nt].vlen = (size_t)(s + i - eq - 1);
		nt++;
	}
	return nt;
}

static int conf_line(conf_parser_t *p, const char *s, size_t n)
{
	conf_tok_t t[CONF_TOKENS];
	const char *hash = memchr(s, '#', n);
	int nt, i;

	if (hash)
		n = (size_t)(hash - s);
	nt = conf_tokens(p, s, n, t);
	if (nt <= 0)
		return nt;
	if (nodeox_util_eq(t[0].key, t[0].klen, "GpuType"))
		return conf_gputype(p, t, nt);
	if (nodeox_util_eq(t[0].key, t[0].klen, "Group"))
		return conf_group(p, t, nt);
	for (i = 0; i < nt; i++)
		if (conf_global(p, &t[i]))
			return -1;
	return 0;
}

int nodeox_conf_parse_string(const char *text, const char *name, nodeox_conf_t **out, char *err,
			     size_t errlen)
{
	conf_parser_t *p;
	const char *s = text;
	int rc = 0;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	p = calloc(1, sizeof(*p));
	if (!p || !(p->conf = calloc(1, sizeof(nodeox_conf_t)))) {
		free(p);
		snprintf(err, errlen, "%s: out of memory", name ? name : "nodeox.conf");
		return -1;
	}
	p->name = name ? name : "nodeox.conf";
	p->err = err;
	p->errlen = errlen;
	snprintf(p->conf->path, sizeof(p->conf->path), "%s", p->name);
	p->conf->mode = NODEOX_MODE_ENFORCE;
	p->conf->broaden = NODEOX_BROADEN_ALWAYS;
	p->conf->when_faster_margin = NODEOX_WHEN_FASTER_MARGIN;
	p->conf->scale_time_limit = true;
	p->conf->run_time_history = true;
	while (text && *s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);

		p->line++;
		if (n >= CONF_LINE_MAX) {
			rc = conf_fail(p, "line longer than %d characters", CONF_LINE_MAX - 1);
			break;
		}
		if ((rc = conf_line(p, s, n)))
			break;
		if (!nl)
			break;
		s = nl + 1;
	}
	if (!rc)
		rc = conf_resolve_groups(p);
	if (rc) {
		free(p->conf);
	} else {
		*out = p->conf;
	}
	free(p);
	return rc ? -1 : 0;
}

/* The file is read by nodeox_util_read_file: regular files only, opened
 * non-blocking, at most CONF_FILE_MAX bytes (the plugin calls this inside
 * slurmctld with its locks held). */
int nodeox_conf_parse_file(const char *path, nodeox_conf_t **out, char *err, size_t errlen)
{
	char *text;
	int rc;

	*out = NULL;
	if (nodeox_util_read_file(path, CONF_FILE_MAX, &text, err, errlen))
		return -1;
	rc = nodeox_conf_parse_string(text, path, out, err, errlen);
	free(text);
	return rc;
}

void nodeox_conf_free(nodeox_conf_t *conf)
{
	free(conf);
}

int nodeox_conf_find_type(const nodeox_conf_t *conf, const char *name)
{
	int i;

	if (!conf || !name)
		return -1;
	for (i = 0; i < conf->ntypes; i++)
		if (nodeox_util_eq(name, strlen(name), conf->types[i].name))
			return i;
	return -1;
}
