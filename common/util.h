/*
 * util.h: general text helpers shared by the policy library, the plugin,
 * nodeox-sim and `nodeox why` (common/util.c): sizes and comma lists.
 */
#ifndef NODEOX_COMMON_UTIL_H
#define NODEOX_COMMON_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parse "80G", "40960M", "1T", "512" (MB). Returns 0, or -1 on a bad size. */
int nodeox_util_parse_size_mb(const char *s, uint64_t *mb);
/* Is name (len bytes) an item of the comma list `list`? Case-sensitive. */
bool nodeox_util_list_has(const char *list, const char *name, size_t len);
/* Do the comma lists a and b (NULL: empty) share an item? Empty items match
 * nothing. */
bool nodeox_util_lists_meet(const char *a, const char *b);

#endif
