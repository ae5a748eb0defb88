/*
 * fuzz_text.c: libFuzzer target for the corpus parsers of runtime/data_text.c
 * (fortune files and dictd index + dictionary). First byte even: the rest is
 * a fortune file; odd: the rest is "INDEX \0 DICT". Checks that every
 * document lies inside the text, is non-empty and trimmed, and that the
 * lengths add up. Replayed by `make check` (tests/kernels/test_fuzz_text.sh
 * over tests/kernels/corpus-text), run under libFuzzer by `make fuzz-text`.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/data_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	data_text_t d;
	char err[512];
	if (size == 0)
		return 0;
	const uint8_t *a = data + 1, *text = NULL;
	size_t alen = size - 1, tlen = 0;
	int format = data[0] % 2 ? DATA_TEXT_DICTD : DATA_TEXT_FORTUNE;
	if (format == DATA_TEXT_DICTD) {
		const uint8_t *nul = memchr(a, 0, alen);
		if (nul) {
			text = nul + 1;
			tlen = (size_t)(data + size - text);
			alen = (size_t)(nul - a);
		}
	}
	if (data_text_parse(&d, format, a, alen, text, tlen, err, sizeof(err)) != 0) {
		if (strnlen(err, sizeof(err)) == sizeof(err) || err[0] == '\0')
			abort();
		return 0;
	}
	size_t total = 0;
	for (size_t i = 0; i < d.ndocs; i++) {
		const data_text_doc_t *doc = &d.docs[i];
		if (doc->len == 0 || doc->off > d.bytes || doc->len > d.bytes - doc->off)
			abort();
		uint8_t first = d.text[doc->off], last = d.text[doc->off + doc->len - 1];
		if (first == '\n' || last == '\n' || last == ' ' || last == '\t')
			abort();
		total += doc->len;
	}
	if (total != d.bytes)
		abort();
	data_text_free(&d);
	return 0;
}
