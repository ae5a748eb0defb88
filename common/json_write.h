/*
 * json_write.h: writing one JSON string value (RFC 8259), shared by every JSON
 * nodeox prints: nodeox-sim's --json (sim/run/report.c) and `nodeox why --json`
 * (cli/why_print.c). The strings come from outside (GPU type names from
 * slurm.conf, job names, reasons and comments from slurmctld), so any bytes
 * must give a document that a JSON parser accepts.
 *
 * What is written for each byte of the input:
 *   "  and  \            \"  and  \\
 *   \b \f \n \r \t       the two-character escapes
 *   other bytes < 0x20   \u00XX (lower-case hex)
 *   0x20..0x7f           as they are (DEL, 0x7f, is legal in JSON)
 *   valid UTF-8          as it is (so "é" stays readable)
 *   invalid UTF-8        \ufffd, the replacement character, once for each
 *                        maximal subpart of a broken sequence (the Unicode
 *                        recommendation; what Python's decode(errors='replace')
 *                        does), so the output is always valid UTF-8.
 * Invalid UTF-8 is: a stray continuation byte, a lead byte that cannot start a
 * sequence (0xc0, 0xc1, 0xf5..0xff), a sequence cut short, an overlong form,
 * a UTF-16 surrogate (U+D800..U+DFFF) or a code point above U+10FFFF.
 * Numbers go through json_write_number, which writes null for NaN and the
 * infinities (JSON has none of them; printf would write "nan" or "inf").
 * No glib, nothing allocated.
 */
#ifndef NODEOX_JSON_WRITE_H
#define NODEOX_JSON_WRITE_H

#include <stdio.h>

/* Write s as a JSON string with its quotes; NULL writes null. */
void json_write_string(FILE *f, const char *s);

/* Write v with the printf format fmt (one double conversion, e.g. "%.3f"),
 * or null when v is NaN or infinite. */
void json_write_number(FILE *f, const char *fmt, double v);

#endif
