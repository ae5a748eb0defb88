/*
 * why_gres.c: the strings `nodeox why` reads from Slurm.
 *
 * A node's GRES as slurmctld reports it ("gpu:a100:4(S:0-1)", in use
 * "gpu:a100:2(IDX:0,2)": commas may hide inside the parentheses), a job's
 * TRES request ("gres:gpu:a100:4" in 22.05, "gres/gpu:a100=4" from 23.11),
 * and plain comma lists (partitions, features, node names).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/why.h"

/* Copy the next comma-separated item of *s (commas inside (...) do not
 * split) into buf; advance *s. Returns false at the end. */
static bool _next_item(const char **s, char *buf, size_t len)
{
	const char *p = *s;
	size_t n = 0;
	int depth = 0;

	while (*p == ',' || *p == ';' || *p == ' ')
		p++;
	if (!*p)
		return false;
	for (; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && depth > 0)
			depth--;
		else if ((*p == ',' || *p == ';') && depth == 0)
			break;
		if (n + 1 < len)
			buf[n++] = *p;
	}
	buf[n] = '\0';
	*s = p;
	return true;
}

/* A GRES count: digits with an optional K/M/G multiplier (Slurm's suffixes). */
static int _parse_count(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'k': case 'K': v *= 1024ULL; end++; break;
	case 'm': case 'M': v *= 1024ULL * 1024; end++; break;
	case 'g': case 'G': v *= 1024ULL * 1024 * 1024; end++; break;
	default: break;
	}
	if (*end && *end != '(')
		return -1;
	if (v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/*
 * Split "gpu:a100:4(S:0)" / "gpu:4" / "gpu" / "gpu:a100" into name, type and
 * count. sep2 is the character between type and count (':' or '=').
 * Returns 0, or -1 if the count is not a number.
 */
static int _split_gres(char *item, char **name, char **type, uint32_t *count)
{
	char *paren, *a, *b;

	/* some versions print an untyped entry in use as "gpu:(null):0" */
	if ((a = strstr(item, ":(null)")))
		memmove(a, a + 7, strlen(a + 7) + 1);
	paren = strchr(item, '(');
	if (paren)
		*paren = '\0';
	*name = item;
	*type = NULL;
	*count = 1;
	a = strpbrk(item, ":=");
	if (!a)
		return 0;
	*a++ = '\0';
	b = strpbrk(a, ":=");
	if (b) {
		*b++ = '\0';
		*type = a;
		return _parse_count(b, count);
	}
	/* one field: a count, or a type with count 1 */
	if (isdigit((unsigned char)*a))
		return _parse_count(a, count);
	*type = a;
	return 0;
}

int why_gres_parse_node(const char *gres, const char *used, why_gpu_t *gpus, int max)
{
	char item[256];
	const char *p = gres;
	int n = 0;

	if (!gres)
		return 0;
	while (_next_item(&p, item, sizeof(item))) {
		char *name, *type;
		uint32_t count;

		if (_split_gres(item, &name, &type, &count) < 0)
			return -1;
		if (strcmp(name, "gpu") != 0)
			continue;
		if (n >= max)
			return -1;
		memset(&gpus[n], 0, sizeof(gpus[n]));
		snprintf(gpus[n].type, sizeof(gpus[n].type), "%s", type ? type : "");
		gpus[n].total = count;
		n++;
	}
	p = used;
	while (used && _next_item(&p, item, sizeof(item))) {
		char *name, *type;
		uint32_t count;

		/* "gpu:a100:0(IDX:N/A)" parses; a junk count is ignored */
		if (_split_gres(item, &name, &type, &count) < 0 || strcmp(name, "gpu") != 0)
			continue;
		for (int i = 0; i < n; i++) {
			if (strcmp(gpus[i].type, type ? type : "") == 0) {
				gpus[i].used = count > gpus[i].total ? gpus[i].total : count;
				break;
			}
		}
	}
	return n;
}

int why_gres_parse_job(const char *tres, char *type, size_t typelen, uint32_t *count, bool *more)
{
	char item[256];
	const char *p = tres;
	int found = 0;

	*more = false;
	if (!tres)
		return 0;
	while (_next_item(&p, item, sizeof(item))) {
		char *s = item, *name, *t;
		uint32_t c;

		if (strncmp(s, "gres:", 5) == 0 || strncmp(s, "gres/", 5) == 0)
			s += 5;
		if (_split_gres(s, &name, &t, &c) < 0) {
			if (strcmp(name, "gpu") == 0)
				return -1;
			continue;
		}
		if (strcmp(name, "gpu") != 0)
			continue;
		if (found) {
			*more = true;
			break;
		}
		found = 1;
		snprintf(type, typelen, "%s", t ? t : "");
		*count = c;
	}
	return found;
}

bool why_list_has(const char *list, const char *name)
{
	return list && name && *name && nodeox_util_list_has(list, name, strlen(name));
}

void why_list_add(char *buf, size_t len, const char *name)
{
	size_t used = strlen(buf);
	size_t need = strlen(name) + (used ? 1 : 0);

	if (used >= 3 && strcmp(buf + used - 3, "...") == 0)
		return;
	if (used + need + 4 >= len) {   /* keep room for ",..." */
		if (used + 4 < len)
			strcat(buf, used ? ",..." : "...");
		return;
	}
	if (used)
		strcat(buf, ",");
	strcat(buf, name);
}
