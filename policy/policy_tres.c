/*
 * policy_tres.c: the one reader of GPU entries in Slurm's TRES and GRES
 * strings (grammar and forms in policy.h), and the rewrite that
 * removes their types. Only gpu entries are touched and everything else is
 * copied byte for byte. Each entry keeps its spelling (22.05 "gres:gpu:T:N",
 * 23.11+ "gres/gpu:T:N" or "gres/gpu:T=N", and the bare "gpu:T:N" of
 * simulator traces), because 22.05 silently drops an entry whose prefix it
 * does not expect and the job would lose its GPUs. tres_prefix is the one
 * place where the library spells a prefix, for reading and writing; which
 * spelling a Slurm version writes is in plugin/slurm_compat.h.
 */
#include <ctype.h>
#include <string.h>

#include "policy/policy_internal.h"

/* The prefix of each spelling; the count separator is "=" for SLASH_EQ. */
static const char *const tres_prefix[] = {
	[NODEOX_TRES_BARE] = "gpu",
	[NODEOX_TRES_COLON] = "gres:gpu",
	[NODEOX_TRES_SLASH] = "gres/gpu",
	[NODEOX_TRES_SLASH_EQ] = "gres/gpu",
};

/* The order an entry's prefix is tried in (longest first). */
static const nodeox_tres_form_t tres_scan_order[] = {
	NODEOX_TRES_COLON,
	NODEOX_TRES_SLASH,
	NODEOX_TRES_BARE,
};

#define TRES_NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Slurm 22.05's count suffixes (suffix_mult, slurm_protocol_defs.c). */
static const struct {
	const char *word;
	uint64_t mult;
} tres_suffix[] = {
	{ "k", 1ull << 10 }, { "kib", 1ull << 10 }, { "kb", 1000ull },
	{ "m", 1ull << 20 }, { "mib", 1ull << 20 }, { "mb", 1000000ull },
	{ "g", 1ull << 30 }, { "gib", 1ull << 30 }, { "gb", 1000000000ull },
	{ "t", 1ull << 40 }, { "tib", 1ull << 40 }, { "tb", 1000000000000ull },
	{ "p", 1ull << 50 }, { "pib", 1ull << 50 }, { "pb", 1000000000000000ull },
};

int nodeox_tres_count_parse(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0, mult = 1;
	size_t i = 0, k;

	/* strtoull's lead-in: blanks, then a '+' ("gpu:a100: 1" is one GPU) */
	while (i < n && isspace((unsigned char)s[i]))
		i++;
	if (i < n && s[i] == '+')
		i++;
	if (i == n || !isdigit((unsigned char)s[i]))
		return -1;
	for (; i < n && isdigit((unsigned char)s[i]); i++) {
		if (v > NODEOX_TRES_COUNT_MAX)
			continue; /* keep reading: "9999999999x" is still not a number */
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < n) {
		for (k = 0; k < TRES_NELEM(tres_suffix); k++)
			if (nodeox_util_eq(s + i, n - i, tres_suffix[k].word))
				break;
		if (k == TRES_NELEM(tres_suffix))
			return -1;
		mult = tres_suffix[k].mult;
	}
	if (v > NODEOX_TRES_COUNT_MAX || (v && mult > NODEOX_TRES_COUNT_MAX / v))
		return -2;
	*out = v * mult;
	return 0;
}

const char *nodeox_tres_problem_text(nodeox_tres_problem_t p)
{
	switch (p) {
	case NODEOX_TRES_OK: return "";
	case NODEOX_TRES_NO_TYPE: return "has an empty GPU type";
	case NODEOX_TRES_NO_COUNT: return "has no count where one belongs";
	case NODEOX_TRES_BAD_COUNT: return "has a count that is not a number";
	case NODEOX_TRES_BIG_COUNT: return "has a count over 4294967295";
	}
	return "is malformed";
}

/* Set e's count from s[e->cnt_off, +cnt_len), which must be present. */
static void tres_set_count(const char *s, nodeox_tres_gpu_t *e)
{
	int rc;

	if (!e->cnt_len) {
		e->problem = NODEOX_TRES_NO_COUNT;
		e->count = 0;
		return;
	}
	rc = nodeox_tres_count_parse(s + e->cnt_off, e->cnt_len, &e->count);
	if (rc < 0) {
		e->problem = rc == -2 ? NODEOX_TRES_BIG_COUNT : NODEOX_TRES_BAD_COUNT;
		e->count = 0;
	}
}

/*
 * What follows "gpu:" (the first separator already read), s[off..off+n):
 * "a100:4", "a100=4", "4" or "a100" (one GPU). Sets type, count, problem;
 * returns true if the count came after '='.
 */
static bool tres_body(const char *s, size_t off, size_t n, nodeox_tres_gpu_t *e)
{
	const char *p = s + off;
	size_t k;
	uint64_t v;

	if (!n) { /* "gpu:" */
		e->problem = NODEOX_TRES_NO_COUNT;
		e->count = 0;
		return false;
	}
	for (k = 0; k < n && p[k] != ':' && p[k] != '='; k++)
		;
	if (k < n) { /* "a100:4", "a100=4" */
		e->type_off = off;
		e->type_len = k;
		e->cnt_off = off + k + 1;
		e->cnt_len = n - k - 1;
		tres_set_count(s, e);
		if (!k) {
			e->problem = NODEOX_TRES_NO_TYPE;
			e->count = 0;
		}
		return p[k] == '=';
	}
	if (nodeox_tres_count_parse(p, n, &v) != -1) { /* "4": a count, no type */
		e->cnt_off = off;
		e->cnt_len = n;
		tres_set_count(s, e);
	} else { /* "a100": one GPU */
		e->type_off = off;
		e->type_len = n;
	}
	return false;
}

/* Parse one job TRES entry s[off..off+n); returns true if it is a gpu entry. */
static bool tres_entry(const char *s, size_t off, size_t n, nodeox_tres_gpu_t *e)
{
	const char *p = s + off;
	size_t k, plen = 0;

	for (k = 0; k < TRES_NELEM(tres_scan_order); k++) {
		const char *pre = tres_prefix[tres_scan_order[k]];

		plen = strlen(pre);
		if (n >= plen && !memcmp(p, pre, plen) && (n == plen || p[plen] == ':' || p[plen] == '='))
			break;
	}
	if (k == TRES_NELEM(tres_scan_order))
		return false;
	memset(e, 0, sizeof(*e));
	e->start = off;
	e->end = off + n;
	e->form = tres_scan_order[k];
	e->count = 1;
	if (n == plen)
		return true;  /* "gres:gpu": one untyped GPU */
	if (p[plen] == '=') { /* "gres/gpu=4": a count only */
		e->cnt_off = off + plen + 1;
		e->cnt_len = n - plen - 1;
		tres_set_count(s, e);
		e->form = NODEOX_TRES_SLASH_EQ;
	} else if (tres_body(s, off + plen + 1, n - plen - 1, e)) {
		e->form = NODEOX_TRES_SLASH_EQ; /* "gres/gpu:a100=4" */
	}
	return true;
}

/*
 * One node GRES item s[off..off+n) (no comma outside parentheses in it):
 * "gpu", "gpu:4", "gpu:a100:4(S:0-1)", "gpu:(null):3(IDX:0-2)". Returns true
 * if it is a gpu entry.
 */
static bool tres_node_entry(const char *s, size_t off, size_t n, nodeox_tres_gpu_t *e)
{
	static const char null_type[] = "(null)";
	const size_t nlen = sizeof(null_type) - 1;
	const char *p = s + off;
	size_t i = 3, body;

	if (n < 3 || memcmp(p, "gpu", 3) || (n > 3 && p[3] != ':' && p[3] != '('))
		return false;
	memset(e, 0, sizeof(*e));
	e->start = off;
	e->end = off + n;
	e->form = NODEOX_TRES_BARE;
	e->count = 1;
	if (i == n || p[i] == '(')
		return true; /* "gpu", "gpu(S:0)": one GPU */
	i++;
	/* some versions write an untyped GPU in use as "gpu:(null):3" */
	if (n - i >= nlen && !memcmp(p + i, null_type, nlen) &&
	    (n - i == nlen || p[i + nlen] == ':' || p[i + nlen] == '(')) {
		i += nlen;
		if (i == n || p[i] == '(')
			return true;
		i++;
	}
	for (body = i; body < n && p[body] != '('; body++)
		;
	tres_body(s, off + i, body - i, e);
	return true;
}

/*
 * The gpu entries of the comma list s: job TRES, or node GRES (node: commas
 * inside parentheses do not split, items are read by tres_node_entry).
 */
static int tres_scan_list(const char *s, nodeox_tres_gpu_t *out, int max, bool node)
{
	size_t off = 0, len, n;
	int found = 0;

	if (!s)
		return 0;
	len = strnlen(s, NODEOX_STR_MAX);
	if (len >= NODEOX_STR_MAX)
		return -1;
	while (off < len) {
		int depth = 0;
		nodeox_tres_gpu_t e;
		bool gpu;

		for (n = 0; off + n < len; n++) {
			char c = s[off + n];

			if (c == '(' && node)
				depth++;
			else if (c == ')' && depth > 0)
				depth--;
			else if (c == ',' && !depth)
				break;
		}
		gpu = n && (node ? tres_node_entry(s, off, n, &e) : tres_entry(s, off, n, &e));
		if (gpu) {
			if (found < max)
				out[found] = e;
			found++;
		}
		off += n + 1;
	}
	return found;
}

int nodeox_tres_scan(const char *s, nodeox_tres_gpu_t *out, int max)
{
	return tres_scan_list(s, out, max, false);
}

int nodeox_tres_scan_node(const char *s, nodeox_tres_gpu_t *out, int max)
{
	return tres_scan_list(s, out, max, true);
}

int nodeox_tres_type_copy(const char *s, const nodeox_tres_gpu_t *e, char *dst, size_t cap)
{
	size_t n = e->type_len;

	if (!cap)
		return -1;
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s + e->type_off, n);
	dst[n] = '\0';
	return n == e->type_len ? 0 : -1;
}

int nodeox_tres_untype(const char *s, const nodeox_tres_gpu_t *e, int n, char *dst, size_t cap)
{
	nodeox_buf_t b;
	size_t off = 0;
	int i;

	nodeox_buf_init(&b, dst, cap);
	for (i = 0; i < n; i++) {
		nodeox_buf_putn(&b, s + off, e[i].start - off);
		if (!e[i].type_len) { /* already untyped: keep as written */
			nodeox_buf_putn(&b, s + e[i].start, e[i].end - e[i].start);
		} else {
			nodeox_buf_puts(&b, tres_prefix[e[i].form]);
			nodeox_buf_puts(&b, e[i].form == NODEOX_TRES_SLASH_EQ ? "=" : ":");
			if (e[i].cnt_len)
				nodeox_buf_putn(&b, s + e[i].cnt_off, e[i].cnt_len);
			else
				nodeox_buf_puts(&b, "1");
		}
		off = e[i].end;
	}
	nodeox_buf_puts(&b, s + off);
	return b.overflow ? -1 : 0;
}
