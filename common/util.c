/*
 * util.c: general text helpers that every part of nodeox reads the same way:
 * sizes as nodeox.conf, the tag and traces spell them ("80G", "40960M"), and
 * comma lists (node features, partitions, licenses) walked and searched the
 * same way everywhere, a constraint's top-level terms, and the readers' one
 * form of an error message. No allocation.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

int nodeox_util_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int nodeox_util_parse_size_mb(const char *s, uint64_t *mb)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (toupper((unsigned char)*end)) {
	case '\0': break;
	case 'M': end++; break;
	case 'G':
		mult = 1024;
		end++;
		break;
	case 'T':
		mult = 1024 * 1024;
		end++;
		break;
	default: return -1;
	}
	if (toupper((unsigned char)*end) == 'B') /* accept 80GB, 40960MB */
		end++;
	if (*end != '\0' || v > UINT64_MAX / mult)
		return -1;
	*mb = (uint64_t)v * mult;
	return 0;
}

bool nodeox_util_list_next(const char **cursor, const char **item, size_t *len)
{
	const char *p = *cursor;

	if (!p)
		return false;
	while (*p == ',')
		p++;
	if (!*p) {
		*cursor = p;
		return false;
	}
	*item = p;
	*len = strcspn(p, ",");
	*cursor = p + *len;
	return true;
}

bool nodeox_util_list_has(const char *list, const char *name, size_t len)
{
	const char *it;
	size_t n;

	if (!name || !len)
		return false;
	for (const char *c = list; nodeox_util_list_next(&c, &it, &n);)
		if (n == len && !memcmp(it, name, len))
			return true;
	return false;
}

bool nodeox_util_lists_meet(const char *a, const char *b)
{
	const char *it;
	size_t n;

	for (const char *c = a; nodeox_util_list_next(&c, &it, &n);)
		if (nodeox_util_list_has(b, it, n))
			return true;
	return false;
}

size_t nodeox_util_top_span(const char *s, const char *ops)
{
	int depth = 0;
	size_t i;

	for (i = 0; s[i]; i++) {
		if (s[i] == '(' || s[i] == '[')
			depth++;
		else if ((s[i] == ')' || s[i] == ']') && depth)
			depth--;
		else if (!depth && strchr(ops, s[i]))
			break;
	}
	return i;
}

int nodeox_util_fail(char *err, size_t errlen, const char *name, int line, const char *column,
		     const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!errlen)
		return -1;
	if (line > 0)
		n = snprintf(err, errlen, "%s:%d: ", name, line);
	else
		n = snprintf(err, errlen, "%s: ", name);
	if (n >= 0 && (size_t)n < errlen && column)
		n += snprintf(err + n, errlen - (size_t)n, "column %s: ", column);
	if (n < 0 || (size_t)n >= errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}
