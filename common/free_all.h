/*
 * free_all.h: nodeox_free_all(a, b, c, ...), free() of each pointer given, in
 * order: the heap members of a struct released in one statement instead of a
 * line each, so a destructor shows its loops and special cases rather than a
 * column of free()s. Only for memory from malloc (not g_new, not xmalloc);
 * header only, so the sacct importer built alone can use it too.
 */
#ifndef NODEOX_COMMON_FREE_ALL_H
#define NODEOX_COMMON_FREE_ALL_H

#include <stddef.h>
#include <stdlib.h>

static inline void nodeox_free_each(void *const *ptrs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ptrs[i]);
}

/* The arguments become an array of void *; sizeof does not evaluate them
 * a second time. */
#define nodeox_free_all(...) \
	nodeox_free_each((void *[]){ __VA_ARGS__ }, sizeof((void *[]){ __VA_ARGS__ }) / sizeof(void *))

#endif
