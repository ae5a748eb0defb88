/*
 * policy_internal.h: helpers shared by the files of the policy library only
 * (bounded string building, name checks, GPU entries inside TRES strings).
 * Not part of the API in policy.h; the plugin, simulator and CLI do not use it.
 */
#ifndef NODEOX_POLICY_INTERNAL_H
#define NODEOX_POLICY_INTERNAL_H

#include <stdarg.h>
#include "plugin/policy.h"

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

/* How a GPU entry is spelled in a TRES string, kept when it is rewritten. */
typedef enum {
	NODEOX_TRES_BARE = 0,   /* gpu:a100:4        (simulator traces)  */
	NODEOX_TRES_COLON,      /* gres:gpu:a100:4   (Slurm 22.05)       */
	NODEOX_TRES_SLASH,      /* gres/gpu:a100:4   (Slurm 23.11+)      */
	NODEOX_TRES_SLASH_EQ,   /* gres/gpu:a100=4   (Slurm 23.11+)      */
} nodeox_tres_form_t;

/* One gpu entry of a comma-separated TRES string; offsets into that string. */
typedef struct {
	size_t start, end;          /* the whole entry */
	size_t type_off, type_len;  /* type_len 0: untyped */
	size_t cnt_off, cnt_len;    /* cnt_len 0: no count given (means 1) */
	nodeox_tres_form_t form;
	uint64_t count;             /* parsed count, 1 if none */
} nodeox_tres_gpu_t;

#define NODEOX_TRES_MAX_GPU 8    /* gpu entries looked at in one field */

/* Find the gpu entries of s (NULL ok). Returns how many were found (up to
 * max stored in out), or -1 if s is longer than NODEOX_STR_MAX. */
int nodeox_tres_scan(const char *s, nodeox_tres_gpu_t *out, int max);
/* Write s with the type removed from each of its n gpu entries into dst.
 * Returns 0, or -1 if dst is too small. */
int nodeox_tres_untype(const char *s, const nodeox_tres_gpu_t *e, int n, char *dst,
		       size_t cap);

#endif
