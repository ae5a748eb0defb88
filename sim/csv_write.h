/*
 * csv_write.h: writing one CSV field (RFC 4180), shared by the simulator's
 * --jobs output (sim/report.c) and the sacct importer (sim/sacct_import.c),
 * whose output sim/trace.c reads back. Header only, with no glib, since the
 * importer is also built alone (its fuzz target).
 */
#ifndef SIM_CSV_WRITE_H
#define SIM_CSV_WRITE_H

#include <stdio.h>
#include <string.h>

/* Write s as one field: as it is, or in double quotes (quotes doubled) when it
 * holds a comma, a quote or a line break. NULL writes an empty field. */
static inline void csv_write_field(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

#endif
