/*
 * text_lines.c: a small text file read whole and split into its lines
 * (text_lines.h). The inputs it serves are a few kilobytes, so reading all
 * at once with glib is simpler than a line reader and costs nothing.
 */
#include <stdio.h>

#include "sim/model/text_lines.h"

gchar **text_lines_read(const char *path, char *err, size_t errlen)
{
	char *text = NULL;
	GError *e = NULL;
	if (!g_file_get_contents(path, &text, NULL, &e)) {
		snprintf(err, errlen, "%s: %s", path, e->message);
		g_error_free(e);
		return NULL;
	}
	gchar **lines = g_strsplit(text, "\n", -1);
	g_free(text);
	return lines;
}
