/*
 * csv_write.h: writing one CSV field (RFC 4180) and its separator, shared
 * by the simulator's --jobs output (sim/run/report.c) and the sacct importer
 * (sim/sacct/sacct_import.c), whose output sim/model/trace.c reads back. Header only,
 * with no glib, since the importer is also built alone (its fuzz target).
 */
#ifndef SIM_CSV_WRITE_H
#define SIM_CSV_WRITE_H

#include <stdio.h>
#include <string.h>

/* Write s as one field: as it is, or in double quotes (quotes doubled) when it
 * holds a comma, a quote or a line break; NULL writes an empty field. Then
 * end, the separator after it (',' or '\n'), unless end is 0. */
static inline void csv_write_field(FILE *f, const char *s, int end)
{
	if (s && !strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
	} else if (s) {
		fputc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	}
	if (end)
		fputc(end, f);
}

#endif
