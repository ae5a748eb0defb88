/*
 * hostlist.c: expand Slurm hostlists ("gpu[01-16,20],login1", "r[1-2]n[1-4]").
 *
 * Brackets may appear several times in one name (a cartesian product), ranges
 * keep their zero padding, and commas outside brackets separate names. Used
 * for NodeName=, PartitionName Nodes= and gres.conf File= (to count devices).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"

#define HOSTLIST_MAX_NAME 256
#define HOSTLIST_MAX_NAMES (1 << 20)

typedef struct {
	void (*fn)(const char *, void *);
	void *arg;
	int count;
} hostlist_sink_t;

/* Expand one comma-free pattern p (length n) appended to prefix. */
static int hostlist_pattern(const char *p, size_t n, char *prefix, size_t plen, hostlist_sink_t *s)
{
	const char *open = memchr(p, '[', n);
	if (!open) {
		if (plen + n >= HOSTLIST_MAX_NAME)
			return -1;
		memcpy(prefix + plen, p, n);
		prefix[plen + n] = '\0';
		if (plen + n == 0)
			return -1;
		if (++s->count > HOSTLIST_MAX_NAMES)
			return -1;
		if (s->fn)
			s->fn(prefix, s->arg);
		return 0;
	}
	const char *close = memchr(open, ']', n - (size_t)(open - p));
	if (!close)
		return -1;
	size_t head = (size_t)(open - p);
	if (plen + head >= HOSTLIST_MAX_NAME)
		return -1;
	memcpy(prefix + plen, p, head);
	size_t base = plen + head;
	const char *rest = close + 1;
	size_t restn = n - (size_t)(rest - p);
	const char *q = open + 1;
	while (q < close) {
		const char *e = q;
		while (e < close && *e != ',')
			e++;
		const char *dash = memchr(q, '-', (size_t)(e - q));
		const char *hi_s = dash ? dash + 1 : q;
		size_t width = (size_t)((dash ? dash : e) - q);
		if (width == 0 || width > 18)
			return -1;
		for (const char *c = q; c < e; c++)
			if (!isdigit((unsigned char)*c) && c != dash)
				return -1;
		long lo = strtol(q, NULL, 10), hi = strtol(hi_s, NULL, 10);
		if (hi < lo || hi - lo > HOSTLIST_MAX_NAMES)
			return -1;
		for (long v = lo; v <= hi; v++) {
			char num[32];
			int len = snprintf(num, sizeof(num), "%0*ld", (int)width, v);
			if (base + (size_t)len >= HOSTLIST_MAX_NAME)
				return -1;
			memcpy(prefix + base, num, (size_t)len);
			if (hostlist_pattern(rest, restn, prefix, base + (size_t)len, s) < 0)
				return -1;
		}
		q = e + 1;
	}
	return 0;
}

int hostlist_expand(const char *list, void (*fn)(const char *name, void *arg), void *arg)
{
	hostlist_sink_t s = { fn, arg, 0 };
	char prefix[HOSTLIST_MAX_NAME];
	const char *p = list;
	while (*p) {
		const char *e = p;
		int depth = 0;
		while (*e && (depth > 0 || *e != ',')) {
			if (*e == '[')
				depth++;
			else if (*e == ']')
				depth--;
			e++;
		}
		if (depth != 0)
			return -1;
		if (e > p && hostlist_pattern(p, (size_t)(e - p), prefix, 0, &s) < 0)
			return -1;
		p = *e ? e + 1 : e;
	}
	return s.count;
}
