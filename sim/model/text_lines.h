/*
 * text_lines.h: a small text file read whole and split into its lines, the
 * one way nodeox-sim reads its line-oriented side inputs (the backfill phase
 * table, the per-class speeds, a sweep array's files), so that each reports
 * a file it cannot read the same way.
 */
#ifndef NODEOX_SIM_TEXT_LINES_H
#define NODEOX_SIM_TEXT_LINES_H

#include <stddef.h>

#include <glib.h>

/* The lines of path (split at '\n', not stripped; the last one is "" when
 * the file ends with a newline), for g_strfreev; NULL with "PATH: why" in
 * err when it cannot be read. */
gchar **text_lines_read(const char *path, char *err, size_t errlen);

#endif
