/*
 * data_text.h: real text from Debian packages, as documents of bytes.
 *
 * A corpus is named or given by path:
 *   fortunes  /usr/share/games/fortunes (package fortunes): every plain file
 *             there (not the .dat indexes, not the .u8 links), documents
 *             separated by lines holding only "%"
 *   gcide     /usr/share/dictd/gcide.index (package dict-gcide): the
 *             dictionary's entries, located by the dictd index (base64
 *             offset and length into gcide.dict.dz, which is gzip)
 *   DIR       fortune-format files in DIR;  FILE.index  a dictd index;
 *   FILE      one fortune-format file.
 * Documents keep their reading order (files by name, entries by offset).
 * The split is fixed by document: every DATA_TEXT_VAL_EVERY-th document
 * (index i with i % DATA_TEXT_VAL_EVERY == DATA_TEXT_VAL_EVERY - 1) is
 * validation, the others training, so it depends on nothing but the corpus.
 */
#ifndef NODEOX_DATA_TEXT_H
#define NODEOX_DATA_TEXT_H

#include <stddef.h>
#include <stdint.h>

#define DATA_TEXT_VAL_EVERY 10
#define DATA_TEXT_FORTUNES_DIR "/usr/share/games/fortunes"
#define DATA_TEXT_GCIDE_INDEX "/usr/share/dictd/gcide.index"

typedef struct data_text_doc {
	size_t off, len; /* bytes of text[] */
} data_text_doc_t;

typedef struct data_text {
	uint8_t *text; /* every document's bytes */
	size_t bytes;
	data_text_doc_t *docs;
	size_t ndocs;
	char source[4096]; /* the file or directory read */
} data_text_t;

/* Read corpus `spec` (a name above or a path); max_docs > 0 keeps only the
 * first max_docs documents.  Returns 0, or -1 with a message naming the
 * file (and line) and the package to install in err. */
int data_text_read(data_text_t *d, const char *spec, size_t max_docs, char *err, size_t errlen);
/* The same parsers on memory (for the fuzz target): format
 * DATA_TEXT_FORTUNE reads documents from a (alen bytes); DATA_TEXT_DICTD
 * takes a as the index and text as the dictionary.  No minimum document
 * count.  0, or -1 with err. */
#define DATA_TEXT_FORTUNE 0
#define DATA_TEXT_DICTD 1
int data_text_parse(data_text_t *d, int format, const uint8_t *a, size_t alen, const uint8_t *text,
		    size_t tlen, char *err, size_t errlen);
/* 1 when document i belongs to the validation set. */
int data_text_is_validation(size_t i);
void data_text_free(data_text_t *d);

#endif /* NODEOX_DATA_TEXT_H */
