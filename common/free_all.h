/*
 * free_all.h: nodeox_free_all(a, b, c, ...), free() of each pointer given, in
 * order, and nodeox_g_free_all(...), the same with g_free for memory from
 * GLib (g_new, g_strdup; the caller includes glib.h): the heap members of a
 * struct released in one statement instead of a line each, so a destructor
 * shows its loops and special cases rather than a column of frees. Not for
 * Slurm's xmalloc. Header only, so the sacct importer built alone can use it
 * too.
 */
#ifndef NODEOX_COMMON_FREE_ALL_H
#define NODEOX_COMMON_FREE_ALL_H

#include <stddef.h>
#include <stdlib.h>

static inline void nodeox_free_each(void (*release)(void *), void *const *ptrs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		release(ptrs[i]);
}

/* The arguments become an array of void *; sizeof does not evaluate them
 * a second time. */
#define NODEOX_FREE_ARGS(...) (void *[]){ __VA_ARGS__ }, sizeof((void *[]){ __VA_ARGS__ }) / sizeof(void *)
#define nodeox_free_all(...) nodeox_free_each(free, NODEOX_FREE_ARGS(__VA_ARGS__))
#define nodeox_g_free_all(...) nodeox_free_each(g_free, NODEOX_FREE_ARGS(__VA_ARGS__))

#endif
