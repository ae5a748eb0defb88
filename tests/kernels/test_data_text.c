/*
 * test_data_text.c: the corpus reader (runtime/data_text.c) on small files
 * written here, in both formats, and its errors; then, where the Debian
 * packages are installed, the real corpora's document counts and split.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "tests/common/test_main.h"
#include "runtime/data_text.h"

static char dir[] = "/tmp/nodeox-data-text-XXXXXX";

static void write_file(const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int doc_is(const data_text_t *d, size_t i, const char *want)
{
	return d->docs[i].len == strlen(want) && memcmp(d->text + d->docs[i].off, want, strlen(want)) == 0;
}

static void test_fortune_documents(void **state)
{
	(void)state;
	/* 11 documents; an empty one between two % lines is dropped, trailing
     * newlines are trimmed, a % inside a line is text */
	write_file("f", "one\n%\ntwo\nlines\n%\n%\n50% off\n%\nfour\n%\nfive\n%\nsix\n%\nseven\n%\n"
			"eight\n%\nnine\n%\nten\n%\neleven\n\n");
	char path[256];
	snprintf(path, sizeof(path), "%s/f", dir);
	data_text_t d;
	char err[256];
	assert_int_equal(data_text_read(&d, path, 0, err, sizeof(err)), 0);
	assert_int_equal(d.ndocs, 11);
	assert_true(doc_is(&d, 0, "one"));
	assert_true(doc_is(&d, 1, "two\nlines"));
	assert_true(doc_is(&d, 2, "50% off"));
	assert_true(doc_is(&d, 10, "eleven"));
	data_text_free(&d);
	assert_int_equal(data_text_read(&d, path, 10, err, sizeof(err)), 0); /* max_docs */
	assert_int_equal(d.ndocs, 10);
	data_text_free(&d);
}

static void test_split_is_every_tenth(void **state)
{
	(void)state;
	int val = 0;
	for (size_t i = 0; i < 100; i++)
		val += data_text_is_validation(i);
	assert_int_equal(val, 10);
	assert_true(data_text_is_validation(9));
	assert_false(data_text_is_validation(10));
}

static void test_dictd_entries(void **state)
{
	(void)state;
	/* dictd base64 digits: A=0 ... Z=25, a=26; "K" = 10, "BA" = 64 */
	char text[80];
	memset(text, '-', 74);
	memcpy(text + 0, "alpha def", 9);  /* offset 0, length 9 */
	memcpy(text + 10, "beta def", 8);  /* offset 10 ("K"), length 8 ("I") */
	memcpy(text + 64, "gamma def", 9); /* offset 64 ("BA"), length 9 ("J") */
	text[74] = '\0';
	char path[256];
	snprintf(path, sizeof(path), "%s/x.dict.dz", dir);
	gzFile g = gzopen(path, "wb");
	gzwrite(g, text, 74);
	gzclose(g);
	/* two headwords share "beta"; the database's own entries are skipped;
     * index order is not text order */
	write_file("x.index", "00-database-info\tAA\tC\ngamma\tBA\tJ\nalpha\tA\tJ\nbeta\tK\tI\nBeta\tK\tI\n");
	snprintf(path, sizeof(path), "%s/x.index", dir);
	data_text_t d;
	char err[256];
	/* three documents are fewer than a split needs: the error says so */
	assert_int_equal(data_text_read(&d, path, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "3 documents"));
	data_text_free(&d);
}

/* dictd's base64 of v (most significant digit first). */
static void b64(uint64_t v, char *out)
{
	static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char tmp[12];
	int n = 0;
	do {
		tmp[n++] = digits[v % 64];
		v /= 64;
	} while (v);
	for (int i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	out[n] = '\0';
}

static void test_dictd_entries_in_text_order(void **state)
{
	(void)state;
	/* 12 entries "word NN" of 7 bytes at offsets 8 k (two-digit base64 from
     * k = 8 on), indexed in reverse order, each under two headwords */
	char text[12 * 8 + 1] = "", idx[2048] = "", off[12], len[12], path[256];
	for (int k = 0; k < 12; k++) {
		char entry[9];
		snprintf(entry, sizeof(entry), "word %02d\n", k);
		strcat(text, entry);
	}
	snprintf(path, sizeof(path), "%s/y.dict", dir);
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	for (int k = 11; k >= 0; k--) {
		char line[64];
		b64((uint64_t)k * 8, off);
		b64(7, len);
		snprintf(line, sizeof(line), "head%d\t%s\t%s\nHead%d\t%s\t%s\n", k, off, len, k, off, len);
		strcat(idx, line);
	}
	write_file("y.index", idx);
	snprintf(path, sizeof(path), "%s/y.index", dir);
	data_text_t d;
	char err[256];
	assert_int_equal(data_text_read(&d, path, 0, err, sizeof(err)), 0);
	assert_int_equal(d.ndocs, 12);
	assert_true(doc_is(&d, 0, "word 00"));
	assert_true(doc_is(&d, 9, "word 09"));
	assert_true(doc_is(&d, 11, "word 11"));
	data_text_free(&d);
}

static void test_errors_name_file_and_line(void **state)
{
	(void)state;
	data_text_t d;
	char err[512], path[256];
	assert_int_equal(data_text_read(&d, "/nonexistent/corpus", 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/corpus: not found"));
	write_file("bad.index", "alpha\tA\tJ\nbeta K I\n");
	snprintf(path, sizeof(path), "%s/bad.index", dir);
	assert_int_equal(data_text_read(&d, path, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bad.index:2: not a dictd index line"));
	write_file("far.index", "alpha\tZZZ\tJ\n");
	write_file("far.dict", "short");
	snprintf(path, sizeof(path), "%s/far.index", dir);
	assert_int_equal(data_text_read(&d, path, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "runs past"));
}

static void test_real_corpora(void **state)
{
	(void)state;
	const char *names[] = { "fortunes", "gcide" };
	for (int i = 0; i < 2; i++) {
		data_text_t d;
		char err[512];
		if (data_text_read(&d, names[i], 0, err, sizeof(err)) != 0) {
			print_message("%s: %s (not checked)\n", names[i], err);
			continue;
		}
		size_t val = 0, bytes = 0;
		for (size_t k = 0; k < d.ndocs; k++)
			if (data_text_is_validation(k)) {
				val++;
				bytes += d.docs[k].len;
			}
		print_message("%s: %zu documents, %zu bytes; validation %zu documents, %zu bytes\n", names[i],
			      d.ndocs, d.bytes, val, bytes);
		assert_true(d.ndocs > 10000);
		assert_int_equal(val, d.ndocs / 10);
		for (size_t k = 0; k < d.ndocs; k++) /* the 0 byte ends documents in the model */
			assert_null(memchr(d.text + d.docs[k].off, 0, d.docs[k].len));
		data_text_free(&d);
	}
}

/* The files the tests write go in a directory of their own, removed after. */
static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

NODEOX_TEST_MAIN(setup, teardown, cmocka_unit_test(test_fortune_documents),
		 cmocka_unit_test(test_split_is_every_tenth), cmocka_unit_test(test_dictd_entries),
		 cmocka_unit_test(test_dictd_entries_in_text_order),
		 cmocka_unit_test(test_errors_name_file_and_line), cmocka_unit_test(test_real_corpora))
