/*
 * policy_tres.c: find and rewrite the GPU entries of Slurm TRES strings
 * (job_desc tres_per_job/node/task/socket). A field is a comma list such as
 * "gres:gpu:a100:4,gres:nvme:1"; only gpu entries are touched and everything
 * else is copied byte for byte. Each entry keeps its spelling (22.05
 * "gres:gpu:T:N", 23.11+ "gres/gpu:T:N" or "gres/gpu:T=N", and the bare
 * "gpu:T:N" of simulator traces), because 22.05 silently drops an entry whose
 * prefix it does not expect and the job would lose its GPUs. tres_prefix is
 * the one place where the library spells a prefix, for reading and writing;
 * which spelling a Slurm version writes is in plugin/slurm_compat.h.
 */
#include <ctype.h>
#include <string.h>

#include "plugin/policy_internal.h"

/* The prefix of each spelling; the count separator is "=" for SLASH_EQ. */
static const char *const tres_prefix[] = {
	[NODEOX_TRES_BARE] = "gpu",
	[NODEOX_TRES_COLON] = "gres:gpu",
	[NODEOX_TRES_SLASH] = "gres/gpu",
	[NODEOX_TRES_SLASH_EQ] = "gres/gpu",
};

/* The order an entry's prefix is tried in (longest first). */
static const nodeox_tres_form_t tres_scan_order[] = {
	NODEOX_TRES_COLON, NODEOX_TRES_SLASH, NODEOX_TRES_BARE,
};

static bool tres_all_digits(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* Leading digits of a count ("4", "2k" counts as 2048); 1 when absent. */
static uint64_t tres_count(const char *s, size_t n)
{
	uint64_t v = 0;
	size_t i;

	if (!n)
		return 1;
	for (i = 0; i < n && isdigit((unsigned char)s[i]) && v < (1ull << 40); i++)
		v = v * 10 + (uint64_t)(s[i] - '0');
	if (i < n && (s[i] == 'k' || s[i] == 'K'))
		v *= 1024;
	return v;
}

/* Parse one entry s[0..n) at offset off; returns true if it is a gpu entry. */
static bool tres_entry(const char *s, size_t off, size_t n, nodeox_tres_gpu_t *e)
{
	const char *p = s + off;
	size_t k, plen = 0, rest_off, rest_len;
	const char *colon, *eq;

	for (k = 0; k < sizeof(tres_scan_order) / sizeof(tres_scan_order[0]); k++) {
		const char *pre = tres_prefix[tres_scan_order[k]];

		plen = strlen(pre);
		if (n >= plen && !memcmp(p, pre, plen) &&
		    (n == plen || p[plen] == ':' || p[plen] == '='))
			break;
	}
	if (k == sizeof(tres_scan_order) / sizeof(tres_scan_order[0]))
		return false;
	memset(e, 0, sizeof(*e));
	e->start = off;
	e->end = off + n;
	e->form = tres_scan_order[k];
	e->count = 1;
	if (n == plen)
		return true;                    /* "gres:gpu": one untyped GPU */
	rest_off = off + plen + 1;
	rest_len = n - plen - 1;
	if (p[plen] == '=') {                   /* "gres/gpu=4" */
		e->cnt_off = rest_off;
		e->cnt_len = rest_len;
		e->form = NODEOX_TRES_SLASH_EQ;
	} else {
		colon = memchr(s + rest_off, ':', rest_len);
		eq = memchr(s + rest_off, '=', rest_len);
		if (eq && (!colon || eq < colon)) { /* "gres/gpu:a100=4" */
			e->type_off = rest_off;
			e->type_len = (size_t)(eq - (s + rest_off));
			e->cnt_off = e->type_off + e->type_len + 1;
			e->cnt_len = rest_len - e->type_len - 1;
			e->form = NODEOX_TRES_SLASH_EQ;
		} else if (colon) {             /* "gres:gpu:a100:4" */
			e->type_off = rest_off;
			e->type_len = (size_t)(colon - (s + rest_off));
			e->cnt_off = e->type_off + e->type_len + 1;
			e->cnt_len = rest_len - e->type_len - 1;
		} else if (tres_all_digits(s + rest_off, rest_len)) { /* "gres:gpu:4" */
			e->cnt_off = rest_off;
			e->cnt_len = rest_len;
		} else {                        /* "gres:gpu:a100": one GPU */
			e->type_off = rest_off;
			e->type_len = rest_len;
		}
	}
	e->count = tres_count(s + e->cnt_off, e->cnt_len);
	return true;
}

int nodeox_tres_scan(const char *s, nodeox_tres_gpu_t *out, int max)
{
	size_t off = 0, len;
	int found = 0;

	if (!s)
		return 0;
	len = strnlen(s, NODEOX_STR_MAX);
	if (len >= NODEOX_STR_MAX)
		return -1;
	while (off <= len) {
		const char *comma = memchr(s + off, ',', len - off);
		size_t n = comma ? (size_t)(comma - (s + off)) : len - off;
		nodeox_tres_gpu_t e;

		if (n && tres_entry(s, off, n, &e)) {
			if (found < max)
				out[found] = e;
			found++;
		}
		off += n + 1;
	}
	return found;
}

int nodeox_tres_untype(const char *s, const nodeox_tres_gpu_t *e, int n, char *dst,
		       size_t cap)
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
