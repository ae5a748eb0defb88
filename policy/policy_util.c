/*
 * policy_util.c: small helpers of the policy library: name checks, quoting
 * user input for messages, and a bounded output buffer. Every string the library
 * builds goes through nodeox_buf_t, so no result can overrun its field and an
 * overflow is noticed instead of silently cutting a constraint in half.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "policy/policy_internal.h"

bool nodeox_util_eq(const char *s, size_t n, const char *word)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!word[i] || tolower((unsigned char)s[i]) != tolower((unsigned char)word[i]))
			return false;
	return word[n] == '\0';
}

bool nodeox_util_name_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n >= NODEOX_NAME_MAX)
		return false;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!isalnum(c) && c != '_' && c != '.' && c != '-' && c != '@')
			return false;
	}
	return true;
}

void nodeox_util_quote(char *dst, size_t cap, const char *s, size_t n)
{
	size_t i, max = n;
	bool cut = false;

	if (!cap)
		return;
	if (max > 40) { /* enough to recognise the bad part */
		max = 40;
		cut = true;
	}
	if (max + 4 > cap) {
		max = cap > 4 ? cap - 4 : 0;
		cut = true;
	}
	for (i = 0; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		dst[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	if (cut && cap >= 4) {
		memcpy(dst + i, "...", 3);
		i += 3;
	}
	dst[i] = '\0';
}

void nodeox_buf_init(nodeox_buf_t *b, char *buf, size_t cap)
{
	b->buf = buf;
	b->cap = cap;
	b->len = 0;
	b->overflow = false;
	if (cap)
		buf[0] = '\0';
}

void nodeox_buf_putn(nodeox_buf_t *b, const char *s, size_t n)
{
	if (b->overflow || !b->cap)
		return;
	if (b->len + n >= b->cap) {
		b->overflow = true;
		return;
	}
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

void nodeox_buf_puts(nodeox_buf_t *b, const char *s)
{
	nodeox_buf_putn(b, s, strlen(s));
}

void nodeox_buf_printf(nodeox_buf_t *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->overflow || !b->cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->buf + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= b->cap - b->len) {
		b->buf[b->len] = '\0';
		b->overflow = true;
		return;
	}
	b->len += (size_t)n;
}
