/*
 * policy_tag.c: finds and parses the `nodeox:flex[:opt...]` tag in a job's
 * comment (syntax in doc/user-guide.md).
 *
 * The tag is one word of the comment: it starts at "nodeox:flex" (at the start
 * of the comment or after a character that is not a letter, digit, '_' or ':')
 * and ends at the first blank, ',', ';', closing bracket or quote. Options
 * follow, each after a colon:
 *   mem=SIZE        minimum GPU memory (80G, 40960M)
 *   types=T1+T2     broaden only to these types (names from nodeox.conf)
 *   uniform         all nodes of the job get one type
 *   mixed           nodes may differ (the default)
 *   workload=NAME   the workload the speed table knows the job by (else
 *                   its job name)
 * The comment is user input: a tag is looked for in its first
 * NODEOX_COMMENT_MAX bytes only, and one that runs on past them is refused
 * whole (never read cut short); it is never used as a format, and quoted
 * bytes in messages are made printable.
 */
#include <stdio.h>
#include <string.h>

#include "policy/policy_internal.h"

#define TAG_WORD "nodeox:flex"

static bool tag_end(char c)
{
	return c == '\0' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ';' ||
	       c == ')' || c == ']' || c == '}' || c == '"' || c == '\'';
}

static bool tag_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == ':';
}

/* Where the tag starts in comment[0..n), or NULL. */
static const char *tag_find(const char *comment, size_t n)
{
	const size_t wl = sizeof(TAG_WORD) - 1;
	size_t i;

	for (i = 0; i + wl <= n; i++) {
		if (comment[i] != 'n' || memcmp(comment + i, TAG_WORD, wl))
			continue;
		if (i > 0 && tag_word_char(comment[i - 1]))
			continue;
		return comment + i;
	}
	return NULL;
}

__attribute__((format(printf, 3, 4))) static int tag_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int tag_types(const char *s, size_t n, const nodeox_conf_t *conf, nodeox_tag_t *tag, char *err,
		     size_t errlen)
{
	size_t off = 0;
	char q[64];

	while (off <= n) {
		const char *plus = memchr(s + off, '+', n - off);
		size_t len = plus ? (size_t)(plus - (s + off)) : n - off;
		char name[NODEOX_NAME_MAX];
		int t = -1, j;

		if (!nodeox_util_name_ok(s + off, len)) {
			nodeox_util_quote(q, sizeof(q), s, n);
			return tag_fail(err, errlen,
					"bad types= list '%s' in the nodeox:flex tag "
					"(expected types=T1+T2, names from nodeox.conf)",
					q);
		}
		memcpy(name, s + off, len);
		name[len] = '\0';
		if (conf) {
			t = nodeox_conf_find_type(conf, name);
			if (t < 0)
				return tag_fail(err, errlen,
						"unknown GPU type '%s' in types= of the "
						"nodeox:flex tag",
						name);
		}
		for (j = 0; j < tag->nonly; j++)
			if (t >= 0 && tag->only[j] == t)
				return tag_fail(err, errlen,
						"GPU type '%s' given twice in types= of "
						"the nodeox:flex tag",
						name);
		if (tag->nonly >= NODEOX_MAX_TYPES)
			return tag_fail(err, errlen,
					"more than %d types in types= of the "
					"nodeox:flex tag",
					NODEOX_MAX_TYPES);
		tag->only[tag->nonly++] = t;
		off += len + 1;
	}
	return 0;
}

static int tag_option(const char *s, size_t n, const nodeox_conf_t *conf, nodeox_tag_t *tag, bool *seen_mode,
		      char *err, size_t errlen)
{
	const char *eq = memchr(s, '=', n);
	size_t klen = eq ? (size_t)(eq - s) : n;
	char q[64];

	nodeox_util_quote(q, sizeof(q), s, n);
	if (!n)
		return tag_fail(err, errlen, "empty option in the nodeox:flex tag (an extra ':'?)");
	if (!eq && (nodeox_util_eq(s, n, "uniform") || nodeox_util_eq(s, n, "mixed"))) {
		if (*seen_mode)
			return tag_fail(err, errlen,
					"'%s' in the nodeox:flex tag: uniform or mixed "
					"given twice",
					q);
		*seen_mode = true;
		tag->uniform = nodeox_util_eq(s, n, "uniform");
		return 0;
	}
	if (eq && nodeox_util_eq(s, klen, "mem")) {
		char buf[32];

		if (tag->min_mem_mb)
			return tag_fail(err, errlen, "mem= given twice in the nodeox:flex tag");
		if (n - klen - 1 >= sizeof(buf))
			goto bad_mem;
		memcpy(buf, eq + 1, n - klen - 1);
		buf[n - klen - 1] = '\0';
		if (nodeox_util_parse_size_mb(buf, &tag->min_mem_mb) || !tag->min_mem_mb)
			goto bad_mem;
		return 0;
	bad_mem:
		tag->min_mem_mb = 0;
		return tag_fail(err, errlen,
				"bad size '%s' in the nodeox:flex tag (expected "
				"mem=SIZE such as mem=40G)",
				q);
	}
	if (eq && nodeox_util_eq(s, klen, "workload")) {
		if (tag->workload[0])
			return tag_fail(err, errlen, "workload= given twice in the nodeox:flex tag");
		if (!nodeox_util_name_ok(eq + 1, n - klen - 1))
			return tag_fail(err, errlen,
					"bad workload name in '%s' of the nodeox:flex tag (1 to %d "
					"letters, digits, _ . - @)",
					q, NODEOX_NAME_MAX - 1);
		memcpy(tag->workload, eq + 1, n - klen - 1);
		tag->workload[n - klen - 1] = '\0';
		return 0;
	}
	if (eq && nodeox_util_eq(s, klen, "types")) {
		if (tag->nonly)
			return tag_fail(err, errlen, "types= given twice in the nodeox:flex tag");
		return tag_types(eq + 1, n - klen - 1, conf, tag, err, errlen);
	}
	return tag_fail(err, errlen,
			"unknown option '%s' in the nodeox:flex tag (expected "
			"mem=SIZE, types=T1+T2, workload=NAME, uniform or mixed)",
			q);
}

int nodeox_tag_parse(const char *comment, const nodeox_conf_t *conf, nodeox_tag_t *tag, char *err,
		     size_t errlen)
{
	const size_t wl = sizeof(TAG_WORD) - 1;
	const char *p, *end;
	size_t n;
	bool seen_mode = false;
	char q[64];

	memset(tag, 0, sizeof(*tag));
	if (errlen)
		err[0] = '\0';
	if (!comment)
		return 0;
	n = strnlen(comment, NODEOX_COMMENT_MAX);
	if (!(p = tag_find(comment, n)))
		return 0;
	tag->present = true;
	end = p + wl;
	while (end < comment + n && !tag_end(*end))
		end++;
	/* a tag that runs on past the bytes read would be read cut short
	 * (mem=40G as mem=40): refused whole; the one byte after them says */
	if (end == comment + n && n == NODEOX_COMMENT_MAX && !tag_end(comment[n]))
		return tag_fail(err, errlen,
				"the nodeox:flex tag runs past byte %d of the comment, the most "
				"nodeox reads: put it earlier",
				NODEOX_COMMENT_MAX);
	if (end > p + wl && p[wl] != ':') {
		nodeox_util_quote(q, sizeof(q), p, (size_t)(end - p));
		return tag_fail(err, errlen,
				"malformed tag '%s' (expected nodeox:flex or "
				"nodeox:flex:OPTION:...)",
				q);
	}
	p += wl;
	while (p < end) { /* p at a ':' */
		const char *opt = p + 1;
		const char *c = memchr(opt, ':', (size_t)(end - opt));
		const char *oe = c ? c : end;

		if (tag_option(opt, (size_t)(oe - opt), conf, tag, &seen_mode, err, errlen))
			return -1;
		p = oe;
	}
	return 1;
}
