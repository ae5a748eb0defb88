/*
 * speed_record.c: the speed record's writer, reader and the comment it is
 * appended to (format in speed_record.h). Plain C, no allocation: the
 * runtime writes with it at a job's end and libnodeox_sacct reads sacct's
 * Comment with it, text that anyone who can update the job may have
 * written, so every length is checked and every refusal says why.
 */
#include "common/speed_record.h"
#include "common/util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool rec_plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
	       c == '_' || c == '-' || c == '@';
}

/* Append s percent-encoded at dst[*n]; false when out of room. */
static bool rec_put_name(char *dst, size_t cap, size_t *n, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		size_t need = rec_plain(c) ? 1 : 3;

		if (*n + need >= cap)
			return false;
		if (need == 1) {
			dst[(*n)++] = (char)c;
		} else {
			dst[(*n)++] = '%';
			dst[(*n)++] = hex[c >> 4];
			dst[(*n)++] = hex[c & 15];
		}
	}
	dst[*n] = '\0';
	return true;
}

static bool rec_put(char *dst, size_t cap, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static bool rec_put(char *dst, size_t cap, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*n >= cap)
		return false;
	va_start(ap, fmt);
	k = vsnprintf(dst + *n, cap - *n, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= cap - *n)
		return false;
	*n += (size_t)k;
	return true;
}

/* A step time as "%.3f" without trailing zeros ("412.5", "1006"). */
static bool rec_put_ms(char *dst, size_t cap, size_t *n, double ms)
{
	size_t start = *n;

	if (!rec_put(dst, cap, n, "%.3f", ms))
		return false;
	while (*n > start && dst[*n - 1] == '0')
		(*n)--;
	if (*n > start && dst[*n - 1] == '.')
		(*n)--;
	dst[*n] = '\0';
	return true;
}

static bool rec_name_ok(const char *s, bool empty_ok)
{
	size_t len = strnlen(s, SPEEDREC_NAME_MAX);

	return len < SPEEDREC_NAME_MAX && (empty_ok || len > 0);
}

int speedrec_format(const speedrec_t *r, char *dst, size_t cap)
{
	size_t n = 0;
	int i, j;

	if (cap > SPEEDREC_MAX + 1)
		cap = SPEEDREC_MAX + 1;
	if (!cap)
		return -1;
	dst[0] = '\0';
	if (r->ntypes < 1 || r->ntypes > SPEEDREC_TYPES || !rec_name_ok(r->workload, true))
		return -1;
	for (i = 0; i < r->ntypes; i++) {
		const speedrec_type_t *t = &r->t[i];

		if (!rec_name_ok(t->type, false) || !(t->step_ms >= 0.001 && t->step_ms <= SPEEDREC_MS_MAX) ||
		    t->ranks < 1 || t->ranks > SPEEDREC_COUNT_MAX || t->batch < 0 ||
		    t->batch > SPEEDREC_COUNT_MAX)
			return -1;
		for (j = 0; j < i; j++)
			if (!strcmp(r->t[j].type, t->type))
				return -1;
	}
	if (!rec_put(dst, cap, &n, "%s%d:", SPEEDREC_MARK, SPEEDREC_VERSION))
		goto full;
	if (r->workload[0] && (!rec_put(dst, cap, &n, "w=") || !rec_put_name(dst, cap, &n, r->workload) ||
			       !rec_put(dst, cap, &n, ";")))
		goto full;
	for (i = 0; i < r->ntypes; i++) {
		const speedrec_type_t *t = &r->t[i];

		if (!rec_put(dst, cap, &n, "%sg=", i ? ";" : "") || !rec_put_name(dst, cap, &n, t->type) ||
		    !rec_put(dst, cap, &n, ":") || !rec_put_ms(dst, cap, &n, t->step_ms) ||
		    !rec_put(dst, cap, &n, ":%ld:%ld", t->ranks, t->batch))
			goto full;
	}
	return (int)n;
full:
	dst[0] = '\0';
	return -1;
}

static int rec_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int rec_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Up to 40 bytes of s for a message, unprintable ones as '?'. */
static const char *rec_quote(char *q, const char *s, size_t n)
{
	size_t i;

	if (n > 40)
		n = 40;
	for (i = 0; i < n; i++)
		q[i] = (unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e ? '?' : s[i];
	q[i] = '\0';
	return q;
}

/* Decode a percent-encoded name of len bytes into dst (SPEEDREC_NAME_MAX). */
static int rec_get_name(const char *s, size_t len, char *dst, const char *what, char *err, size_t errlen)
{
	size_t i, n = 0;

	if (!len)
		return rec_fail(err, errlen, "empty %s", what);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '%') {
			int hi = i + 2 < len ? nodeox_util_hex_digit(s[i + 1]) : -1, lo = hi >= 0 ? nodeox_util_hex_digit(s[i + 2]) : -1;

			if (hi < 0 || lo < 0)
				return rec_fail(err, errlen, "%s: '%%' not followed by two hex digits", what);
			c = (unsigned char)(hi * 16 + lo);
			i += 2;
			if (c < 0x20 || c == 0x7f)
				return rec_fail(err, errlen, "%s: encodes control byte 0x%02x", what, c);
		} else if (!rec_plain(c)) {
			return rec_fail(err, errlen, "%s: byte 0x%02x not percent-encoded", what, c);
		}
		if (n + 1 >= SPEEDREC_NAME_MAX)
			return rec_fail(err, errlen, "%s longer than %d bytes", what, SPEEDREC_NAME_MAX - 1);
		dst[n++] = (char)c;
	}
	dst[n] = '\0';
	return 0;
}

/* A number of len bytes: digits and at most one '.', in (0, max] (or
 * [0, max] when zero_ok), whole when whole. */
static bool rec_get_number(const char *s, size_t len, double max, bool zero_ok, bool whole, double *out)
{
	char buf[32], *end;
	int dots = 0;
	double v;

	if (!len || len >= sizeof(buf))
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '.' && !whole && !dots++)
			continue;
		if (s[i] < '0' || s[i] > '9')
			return false;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (errno || *end || !isfinite(v) || v > max || v < 0 || (!zero_ok && v == 0))
		return false;
	*out = v;
	return true;
}

/* g=TYPE:MS:RANKS:BATCH (value part, len bytes). */
static int rec_get_type(const char *s, size_t len, speedrec_t *r, char *err, size_t errlen)
{
	const char *part[4];
	size_t plen[4];
	speedrec_type_t *t;
	char q[44];
	double v;
	int k = 0;
	const char *p = s, *end = s + len;

	if (r->ntypes >= SPEEDREC_TYPES)
		return rec_fail(err, errlen, "more than %d GPU types", SPEEDREC_TYPES);
	while (k < 4) {
		const char *c = k < 3 ? memchr(p, ':', (size_t)(end - p)) : NULL;

		part[k] = p;
		plen[k] = c ? (size_t)(c - p) : (size_t)(end - p);
		k++;
		if (!c)
			break;
		p = c + 1;
	}
	if (k != 4 || memchr(part[3], ':', plen[3]))
		return rec_fail(err, errlen, "g=: expected TYPE:STEP_MS:RANKS:BATCH");
	t = &r->t[r->ntypes];
	memset(t, 0, sizeof(*t));
	if (rec_get_name(part[0], plen[0], t->type, "GPU type", err, errlen))
		return -1;
	rec_quote(q, t->type, strlen(t->type));
	for (int i = 0; i < r->ntypes; i++)
		if (!strcmp(r->t[i].type, t->type))
			return rec_fail(err, errlen, "GPU type %s given twice", q);
	if (!rec_get_number(part[1], plen[1], SPEEDREC_MS_MAX, false, false, &t->step_ms))
		return rec_fail(err, errlen, "g=%s: step time not a number in (0, %g] ms", q,
				SPEEDREC_MS_MAX);
	if (!rec_get_number(part[2], plen[2], (double)SPEEDREC_COUNT_MAX, false, true, &v))
		return rec_fail(err, errlen, "g=%s: ranks not a whole number from 1", q);
	t->ranks = (long)v;
	if (!rec_get_number(part[3], plen[3], (double)SPEEDREC_COUNT_MAX, true, true, &v))
		return rec_fail(err, errlen, "g=%s: batch not a whole number", q);
	t->batch = (long)v;
	r->ntypes++;
	return 0;
}

int speedrec_parse(const char *s, size_t len, speedrec_t *r, char *err, size_t errlen)
{
	size_t ml = strlen(SPEEDREC_MARK), i;
	const char *p, *end;
	bool have_w = false;
	char q[44];

	memset(r, 0, sizeof(*r));
	if (errlen)
		err[0] = '\0';
	if (len < ml || memcmp(s, SPEEDREC_MARK, ml))
		return rec_fail(err, errlen, "not a speed record (no %s)", SPEEDREC_MARK);
	if (len > SPEEDREC_MAX)
		return rec_fail(err, errlen, "record longer than %d bytes", SPEEDREC_MAX);
	for (i = ml; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		;
	if (i == ml || i >= len || s[i] != ':')
		return rec_fail(err, errlen, "expected %sN: with a version N", SPEEDREC_MARK);
	if (i != ml + 1 || s[ml] != '0' + SPEEDREC_VERSION)
		return 2; /* another version: not ours to read */
	p = s + i + 1;
	end = s + len;
	while (p < end) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *fe = semi ? semi : end;
		const char *eq = memchr(p, '=', (size_t)(fe - p));

		if (!eq || eq == p)
			return rec_fail(err, errlen, "expected KEY=VALUE, found '%s'",
					rec_quote(q, p, (size_t)(fe - p)));
		if (eq - p == 1 && *p == 'w') {
			if (have_w)
				return rec_fail(err, errlen, "w= given twice");
			if (rec_get_name(eq + 1, (size_t)(fe - eq - 1), r->workload, "workload", err, errlen))
				return -1;
			have_w = true;
		} else if (eq - p == 1 && *p == 'g') {
			if (rec_get_type(eq + 1, (size_t)(fe - eq - 1), r, err, errlen))
				return -1;
		} else {
			for (const char *c = p; c < eq; c++)
				if (*c < 'a' || *c > 'z')
					return rec_fail(err, errlen, "bad key '%s'",
							rec_quote(q, p, (size_t)(eq - p)));
			/* a key of a later v1: skipped */
		}
		if (!semi)
			break;
		p = semi + 1;
		if (p == end)
			return rec_fail(err, errlen, "ends with ';'");
	}
	if (!r->ntypes)
		return rec_fail(err, errlen, "no GPU type (g=)");
	return 1;
}

static bool rec_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Next blank-separated word from *cursor: (*w, *n); false at the end. */
static bool rec_word(const char **cursor, const char **w, size_t *n)
{
	const char *p = *cursor;

	while (*p && rec_blank(*p))
		p++;
	if (!*p)
		return false;
	*w = p;
	while (*p && !rec_blank(*p))
		p++;
	*n = (size_t)(p - *w);
	*cursor = p;
	return true;
}

static bool rec_is_record(const char *w, size_t n)
{
	size_t ml = strlen(SPEEDREC_MARK);

	return n >= ml && !memcmp(w, SPEEDREC_MARK, ml);
}

int speedrec_find(const char *comment, speedrec_t *r, char *err, size_t errlen)
{
	const char *c = comment, *w, *last = NULL;
	size_t n, last_n = 0;

	memset(r, 0, sizeof(*r));
	if (errlen)
		err[0] = '\0';
	if (!comment)
		return 0;
	while (rec_word(&c, &w, &n))
		if (rec_is_record(w, n)) {
			last = w;
			last_n = n;
		}
	return last ? speedrec_parse(last, last_n, r, err, errlen) : 0;
}

int speedrec_compose(const char *comment, const char *record, char *dst, size_t cap)
{
	const char *c = comment ? comment : "", *w, *keep = c;
	size_t n = 0, wl, rl = strlen(record);

	if (!cap)
		return -1;
	dst[0] = '\0';
	/* copy everything up to each record word, leaving out the blank just
	 * before it and the word itself */
	while (rec_word(&c, &w, &wl)) {
		if (!rec_is_record(w, wl))
			continue;
		size_t upto = (size_t)(w - keep);

		if (upto && (w[-1] == ' ' || w[-1] == '\t'))
			upto--;
		if (n + upto >= cap)
			goto full;
		memcpy(dst + n, keep, upto);
		n += upto;
		keep = c;
	}
	wl = strlen(keep);
	if (n + wl >= cap)
		goto full;
	memcpy(dst + n, keep, wl);
	n += wl;
	if (n + (n ? 1 : 0) + rl >= cap)
		goto full;
	if (n)
		dst[n++] = ' ';
	memcpy(dst + n, record, rl);
	n += rl;
	dst[n] = '\0';
	return (int)n;
full:
	dst[0] = '\0';
	return -1;
}
