/*
 * json_write.c: one JSON string value from any bytes (see json_write.h for
 * what each byte becomes). UTF-8 is checked against Table 3-7 of the Unicode
 * standard (well-formed byte sequences).
 */
#include "common/json_write.h"

#include <math.h>
#include <stddef.h>

/*
 * The UTF-8 sequence at s: returns its length (1..4) when it is well formed,
 * else 0 with *bad set to the length of its maximal subpart (at least 1),
 * the bytes that one replacement character stands for.
 */
static size_t json_utf8_length(const unsigned char *s, size_t *bad)
{
	unsigned char lo = 0x80, hi = 0xbf; /* range of the second byte */
	size_t need, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 3;
		if (s[0] == 0xe0)
			lo = 0xa0; /* no overlong forms */
		else if (s[0] == 0xed)
			hi = 0x9f; /* no surrogates */
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 4;
		if (s[0] == 0xf0)
			lo = 0x90; /* no overlong forms */
		else if (s[0] == 0xf4)
			hi = 0x8f; /* nothing above U+10FFFF */
	} else {
		*bad = 1; /* continuation, 0xc0, 0xc1, 0xf5.. */
		return 0;
	}
	for (i = 1; i < need; i++) {
		if (s[i] < lo || s[i] > hi) { /* a NUL ends it here too */
			*bad = i;
			return 0;
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return need;
}

void json_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	while (*s) {
		size_t n, bad = 0;

		switch (*s) {
		case '"':
			fputs("\\\"", f);
			s++;
			continue;
		case '\\':
			fputs("\\\\", f);
			s++;
			continue;
		case '\b':
			fputs("\\b", f);
			s++;
			continue;
		case '\f':
			fputs("\\f", f);
			s++;
			continue;
		case '\n':
			fputs("\\n", f);
			s++;
			continue;
		case '\r':
			fputs("\\r", f);
			s++;
			continue;
		case '\t':
			fputs("\\t", f);
			s++;
			continue;
		default: break;
		}
		if (*s < 0x20) {
			fprintf(f, "\\u%04x", *s);
			s++;
			continue;
		}
		n = json_utf8_length(s, &bad);
		if (n) {
			fwrite(s, 1, n, f);
			s += n;
		} else {
			fputs("\\ufffd", f);
			s += bad;
		}
	}
	fputc('"', f);
}

void json_write_number(FILE *f, const char *fmt, double v)
{
	if (isfinite(v))
		fprintf(f, fmt, v);
	else
		fputs("null", f);
}
