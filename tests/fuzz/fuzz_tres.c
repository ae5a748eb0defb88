/*
 * fuzz_tres.c: libFuzzer target for the reader of GPU entries in TRES and
 * GRES strings (policy/policy_tres.c). The input, cut at the first NUL, is
 * read as job TRES and as node GRES. Each stored entry must lie inside the
 * string with its type and count inside the entry; a well-formed entry's
 * count is at most NODEOX_TRES_COUNT_MAX and reads back from its text; and
 * when every entry is well formed, the untyped rewrite has the same entries,
 * none typed, with the same counts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"

#define FUZZ_TRES_MAX 16

static void fuzz_tres_check(const char *s, const nodeox_tres_gpu_t *e, int n)
{
	size_t len = strlen(s);
	uint64_t v;

	for (int i = 0; i < n && i < FUZZ_TRES_MAX; i++) {
		const nodeox_tres_gpu_t *g = &e[i];

		if (g->start >= g->end || g->end > len || (i && g->start < e[i - 1].end))
			abort();
		if (g->type_len && (g->type_off < g->start || g->type_off + g->type_len > g->end))
			abort();
		if (g->cnt_len && (g->cnt_off < g->start || g->cnt_off + g->cnt_len > g->end))
			abort();
		if (memchr(s + g->type_off, ',', g->type_len))
			abort(); /* a type never spans a comma */
		if (g->problem != NODEOX_TRES_OK) {
			if (g->count != 0)
				abort();
			continue;
		}
		if (g->count > NODEOX_TRES_COUNT_MAX)
			abort();
		if (!g->cnt_len && g->count != 1)
			abort();
		if (g->cnt_len &&
		    (nodeox_tres_count_parse(s + g->cnt_off, g->cnt_len, &v) != 0 || v != g->count))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	nodeox_tres_gpu_t e[FUZZ_TRES_MAX], u[FUZZ_TRES_MAX];
	char *s = malloc(size + 1), out[NODEOX_STR_MAX];
	int n, m, i;
	bool ok = true;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	n = nodeox_tres_scan(s, e, FUZZ_TRES_MAX);
	if (n < -1 || (n == -1 && strlen(s) < NODEOX_STR_MAX))
		abort();
	fuzz_tres_check(s, e, n);
	for (i = 0; i < n && i < FUZZ_TRES_MAX; i++)
		ok &= e[i].problem == NODEOX_TRES_OK;
	if (n > 0 && n <= FUZZ_TRES_MAX && ok && nodeox_tres_untype(s, e, n, out, sizeof(out)) == 0) {
		m = nodeox_tres_scan(out, u, FUZZ_TRES_MAX);
		if (m != n)
			abort();
		for (i = 0; i < n; i++)
			if (u[i].type_len || u[i].problem != NODEOX_TRES_OK || u[i].count != e[i].count)
				abort();
	}

	n = nodeox_tres_scan_node(s, e, FUZZ_TRES_MAX);
	if (n < -1 || (n == -1 && strlen(s) < NODEOX_STR_MAX))
		abort();
	fuzz_tres_check(s, e, n);
	free(s);
	return 0;
}
