/*
 * util.c: general text helpers that every part of nodeox reads the same way:
 * sizes as nodeox.conf, the tag and traces spell them ("80G", "40960M"), and
 * membership in a comma list (node features, partitions). No allocation.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

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
	case '\0':
		break;
	case 'M':
		end++;
		break;
	case 'G':
		mult = 1024;
		end++;
		break;
	case 'T':
		mult = 1024 * 1024;
		end++;
		break;
	default:
		return -1;
	}
	if (toupper((unsigned char)*end) == 'B') /* accept 80GB, 40960MB */
		end++;
	if (*end != '\0' || v > UINT64_MAX / mult)
		return -1;
	*mb = (uint64_t)v * mult;
	return 0;
}

bool nodeox_util_list_has(const char *list, const char *name, size_t len)
{
	const char *p = list;

	if (!list || !name || !len)
		return false;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n == len && !memcmp(p, name, len))
			return true;
		if (!e)
			break;
		p = e + 1;
	}
	return false;
}

bool nodeox_util_lists_meet(const char *a, const char *b)
{
	const char *p = a;

	if (!a || !b)
		return false;
	while (*p) {
		size_t n = strcspn(p, ",");

		if (n && nodeox_util_list_has(b, p, n))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}
