/*
 * test_json_write.c: the one JSON string writer (common/json_write.c) that
 * nodeox-sim --json and `nodeox why --json` share. Hand-worked cases for each
 * rule, then python3's json module as the judge: every single byte 1..255,
 * every pair of bytes and the interesting 3- and 4-byte sequences must give
 * a line that is valid UTF-8, parses as JSON, and reads back as Python's own
 * bytes.decode('utf-8', 'replace') of the input. json_write_number: the
 * format for finite numbers, null for NaN and the infinities.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "tests/common/test_main.h"
#include "common/json_write.h"

/* What json_write_string writes for s, in a static buffer. */
static const char *json(const char *s)
{
	static char out[256];
	FILE *f = fmemopen(out, sizeof(out), "w");

	assert_non_null(f);
	json_write_string(f, s);
	assert_int_equal(fclose(f), 0);
	return out;
}

static void test_ascii(void **state)
{
	(void)state;
	assert_string_equal(json(""), "\"\"");
	assert_string_equal(json("a100"), "\"a100\"");
	assert_string_equal(json(NULL), "null");
	assert_string_equal(json("say \"hi\""), "\"say \\\"hi\\\"\"");
	assert_string_equal(json("C:\\dir"), "\"C:\\\\dir\"");
	assert_string_equal(json("/x/"), "\"/x/\"");     /* '/' needs no escape */
	assert_string_equal(json("~\x7f"), "\"~\x7f\""); /* DEL is legal */
}

static void test_control(void **state)
{
	(void)state;
	assert_string_equal(json("a\nb\tc"), "\"a\\nb\\tc\"");
	assert_string_equal(json("\b\f\r"), "\"\\b\\f\\r\"");
	assert_string_equal(json("\x01"), "\"\\u0001\"");
	assert_string_equal(json("\x1f"
				 "x"),
			    "\"\\u001fx\"");
	assert_string_equal(json("\x1b[1m"), "\"\\u001b[1m\"");
}

static void test_utf8(void **state)
{
	(void)state;
	/* well formed: kept as it is */
	assert_string_equal(json("caf\xc3\xa9"), "\"caf\xc3\xa9\"");           /* U+00E9 */
	assert_string_equal(json("\xe2\x82\xac"), "\"\xe2\x82\xac\"");         /* U+20AC */
	assert_string_equal(json("\xed\x9f\xbf"), "\"\xed\x9f\xbf\"");         /* U+D7FF */
	assert_string_equal(json("\xf0\x9f\x98\x80"), "\"\xf0\x9f\x98\x80\""); /* U+1F600 */
	assert_string_equal(json("\xf4\x8f\xbf\xbf"), "\"\xf4\x8f\xbf\xbf\""); /* U+10FFFF */
	/* broken: one \ufffd per maximal subpart */
	assert_string_equal(json("\xff"), "\"\\ufffd\"");
	assert_string_equal(json("a\x80z"), "\"a\\ufffdz\"");                   /* stray continuation */
	assert_string_equal(json("\xc3"), "\"\\ufffd\"");                       /* cut short at the end */
	assert_string_equal(json("\xe2\x82z"), "\"\\ufffdz\"");                 /* cut short: one for both */
	assert_string_equal(json("\xc0\xaf"), "\"\\ufffd\\ufffd\"");            /* overlong '/' */
	assert_string_equal(json("\xe0\x80\xaf"), "\"\\ufffd\\ufffd\\ufffd\""); /* overlong */
	assert_string_equal(json("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\""); /* surrogate U+D800 */
	assert_string_equal(json("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* > U+10FFFF */
	assert_string_equal(json("\xf0\x9f\x98\""), "\"\\ufffd\\\"\"");                    /* quote ends it */
	assert_string_equal(json("\xf0\x9f\x98\n"), "\"\\ufffd\\n\"");
}

/* One line "HEX\tJSON" for the bytes s[0..n). */
static void emit(FILE *py, const unsigned char *s, size_t n)
{
	char buf[8];

	for (size_t i = 0; i < n; i++)
		fprintf(py, "%02x", s[i]);
	fputc('\t', py);
	memcpy(buf, s, n);
	buf[n] = '\0';
	json_write_string(py, buf);
	fputc('\n', py);
}

static const char judge[] =
	"import json, sys\n"
	"n = 0\n"
	"for line in sys.stdin.buffer:\n"
	"    hexpart, _, js = line.rstrip(b'\\n').partition(b'\\t')\n"
	"    raw = bytes.fromhex(hexpart.decode())\n"
	"    got = json.loads(js.decode('utf-8'))\n"
	"    want = raw.decode('utf-8', 'replace')\n"
	"    if got != want:\n"
	"        sys.exit('bytes %s: wrote %r, reads back %r, want %r' % (raw.hex(), js, got, want))\n"
	"    n += 1\n"
	"print('json_write: python3 checked %d strings' % n)\n";

static void test_python_judges(void **state)
{
	/* continuation-ish bytes, and bytes around every range edge */
	static const unsigned char edge[] = {
		0x00, 0x22, 0x41, 0x5c, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff,
	};
	unsigned char s[4];
	FILE *py;
	int st;

	(void)state;
	setenv("NODEOX_JSON_JUDGE", judge, 1);
	py = popen("python3 -c \"$NODEOX_JSON_JUDGE\"", "w");
	assert_non_null(py);
	for (int a = 1; a < 256; a++) { /* every byte */
		s[0] = (unsigned char)a;
		emit(py, s, 1);
	}
	for (int a = 1; a < 256; a++) /* every pair */
		for (int b = 1; b < 256; b++) {
			s[0] = (unsigned char)a;
			s[1] = (unsigned char)b;
			emit(py, s, 2);
		}
	for (int a = 0xe0; a < 256; a++) /* 3- and 4-byte leads */
		for (int b = 0x7f; b <= 0xc0; b++)
			for (size_t c = 1; c < sizeof(edge); c++) {
				s[0] = (unsigned char)a;
				s[1] = (unsigned char)b;
				s[2] = edge[c];
				for (size_t d = 0; d < sizeof(edge); d++) {
					s[3] = edge[d];
					emit(py, s, d ? 4 : 3); /* edge[0]: 3 bytes */
				}
			}
	st = pclose(py);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		skip(); /* no python3 */
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* What json_write_number writes for v in fmt. */
static const char *json_num(const char *fmt, double v)
{
	static char out[64];
	FILE *f = fmemopen(out, sizeof(out), "w");

	assert_non_null(f);
	json_write_number(f, fmt, v);
	assert_int_equal(fclose(f), 0);
	return out;
}

static void test_number(void **state)
{
	(void)state;
	assert_string_equal(json_num("%.3f", 1.5), "1.500");
	assert_string_equal(json_num("%g", -0.25), "-0.25");
	assert_string_equal(json_num("%.6f", NAN), "null");
	assert_string_equal(json_num("%.6f", INFINITY), "null");
	assert_string_equal(json_num("%.0f", -INFINITY), "null");
}

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_ascii), cmocka_unit_test(test_control),
		 cmocka_unit_test(test_utf8), cmocka_unit_test(test_python_judges),
		 cmocka_unit_test(test_number))
