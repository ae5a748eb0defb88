/*
 * util.h: general text helpers shared by the policy library, the plugin,
 * nodeox-sim and `nodeox why` (common/util.c): sizes, comma lists, the
 * top-level terms of a Slurm constraint, and a reader's error message. (Not in feature_expr.h, whose enum
 * names slurmctld.h also defines: the plugin includes this one.)
 */
#ifndef NODEOX_COMMON_UTIL_H
#define NODEOX_COMMON_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The value of one hex digit (0-9, A-F, a-f), or -1: percent-encoded text
 * (the job record, the speed record). */
int nodeox_util_hex_digit(char c);
/* Parse "80G", "40960M", "1T", "512" (MB). Returns 0, or -1 on a bad size. */
int nodeox_util_parse_size_mb(const char *s, uint64_t *mb);
/* Is name (len bytes) an item of the comma list `list`? Case-sensitive. */
bool nodeox_util_list_has(const char *list, const char *name, size_t len);
/* Walk a comma list (NULL: empty): each call gives the next non-empty item
 * as (*item, *len) and moves *cursor past it; false at the end.
 *   for (const char *c = list, *it; nodeox_util_list_next(&c, &it, &n);) */
bool nodeox_util_list_next(const char **cursor, const char **item, size_t *len);
/* Do two comma lists share an item? */
bool nodeox_util_lists_meet(const char *a, const char *b);

/* How many bytes of s come before the first byte of ops that stands outside
 * every ( ) and [ ] (strlen(s) when none): a strcspn that does not look
 * inside brackets, for splitting a --constraint into its top-level terms
 * ("ib&(a100|l40s)" with "&" gives 2; with "|", the whole length). A
 * closing bracket without its opening one is taken as text. */
size_t nodeox_util_top_span(const char *s, const char *ops);

/* A reader's error, in the one form the cluster, trace and nodeox.conf
 * readers give it: "NAME:LINE: " ("NAME: " when line <= 0), then
 * "column COLUMN: " when column is not NULL, then the message; cut to errlen.
 * Returns -1, so a reader can `return nodeox_util_fail(...)`. */
__attribute__((format(printf, 6, 7))) int nodeox_util_fail(char *err, size_t errlen, const char *name,
							   int line, const char *column, const char *fmt,
							   ...);

#endif
