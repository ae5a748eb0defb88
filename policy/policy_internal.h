/*
 * policy_internal.h: helpers shared by the files of the policy library only
 * (bounded string building, name checks, quoting). Not part of the API in
 * policy.h; no file outside policy/ includes it.
 */
#ifndef NODEOX_POLICY_INTERNAL_H
#define NODEOX_POLICY_INTERNAL_H

#include <stdarg.h>
#include "common/util.h"
#include "policy/policy.h"

/* A fixed-size output buffer that remembers whether anything was cut off. */
typedef struct {
	char *buf;
	size_t cap;
	size_t len;
	bool overflow;
} nodeox_buf_t;

void nodeox_buf_init(nodeox_buf_t *b, char *buf, size_t cap);
void nodeox_buf_putn(nodeox_buf_t *b, const char *s, size_t n);
void nodeox_buf_puts(nodeox_buf_t *b, const char *s);
void nodeox_buf_printf(nodeox_buf_t *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Copy at most n bytes of s into dst (cap bytes), replacing control and
 * non-ASCII bytes with '?', and marking truncation with "...". For quoting
 * user input in one-line messages. */
void nodeox_util_quote(char *dst, size_t cap, const char *s, size_t n);
/* Case-insensitive equality of s[0..n) with the NUL-terminated word. */
bool nodeox_util_eq(const char *s, size_t n, const char *word);
/* A name usable as a type, feature, group, partition, account or user:
 * 1..NODEOX_NAME_MAX-1 bytes of [A-Za-z0-9_.@-]. */
bool nodeox_util_name_ok(const char *s, size_t n);

#endif
