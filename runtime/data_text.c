/*
 * data_text.c: reads the text corpora of runtime/data_text.h.  Two formats,
 * each parsed here once: fortune files (documents between "%" lines) and
 * dictd dictionaries (an index of "headword TAB offset TAB length" lines,
 * numbers in dictd's base64, into a dictzip file, which is gzip data: read
 * by data_idx_slurp, with zlib or `gzip -dc`).
 * Many headwords share one entry, so entries are deduplicated by offset.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "runtime/data_idx.h"
#include "runtime/data_text.h"

typedef struct text_builder {
	data_text_t *d;
	size_t cap_bytes, cap_docs, max_docs;
} text_builder_t;

static int _text_append(text_builder_t *b, const uint8_t *p, size_t len)
{
	data_text_t *d = b->d;
	if (b->max_docs && d->ndocs >= b->max_docs)
		return 0;
	while (len && (p[len - 1] == '\n' || p[len - 1] == ' ' || p[len - 1] == '\t'))
		len--;
	while (len && p[0] == '\n') {
		p++;
		len--;
	}
	if (len == 0)
		return 0;
	if (d->bytes + len > b->cap_bytes) {
		size_t cap = (b->cap_bytes ? b->cap_bytes * 2 : 1 << 20) + len;
		uint8_t *t = realloc(d->text, cap);
		if (!t)
			return -1;
		d->text = t;
		b->cap_bytes = cap;
	}
	if (d->ndocs == b->cap_docs) {
		size_t cap = b->cap_docs ? b->cap_docs * 2 : 1024;
		data_text_doc_t *t = realloc(d->docs, cap * sizeof(*t));
		if (!t)
			return -1;
		d->docs = t;
		b->cap_docs = cap;
	}
	memcpy(d->text + d->bytes, p, len);
	d->docs[d->ndocs].off = d->bytes;
	d->docs[d->ndocs].len = len;
	d->ndocs++;
	d->bytes += len;
	return 0;
}

static uint8_t *_text_slurp(const char *path, size_t *len, char *err, size_t errlen)
{
	return data_idx_slurp(path, len, err, errlen);
}

/* Documents of one fortune-format buffer: text between lines holding only "%". */
static int _text_fortune_buf(text_builder_t *b, const uint8_t *buf, size_t n)
{
	size_t start = 0;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0;) {
		size_t eol = i;
		while (eol < n && buf[eol] != '\n')
			eol++;
		if (eol - i == 1 && buf[i] == '%') {
			rc = _text_append(b, buf + start, i - start);
			start = eol + 1;
		}
		i = eol + 1;
	}
	if (rc == 0 && start < n)
		rc = _text_append(b, buf + start, n - start);
	return rc;
}

static int _text_fortune_file(text_builder_t *b, const char *path, char *err, size_t errlen)
{
	size_t n;
	uint8_t *buf = _text_slurp(path, &n, err, errlen);
	if (!buf)
		return -1;
	int rc = _text_fortune_buf(b, buf, n);
	free(buf);
	if (rc != 0)
		snprintf(err, errlen, "%s: out of memory", path);
	return rc;
}

static int _text_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int _text_fortune_dir(text_builder_t *b, const char *dir, char *err, size_t errlen)
{
	DIR *dp = opendir(dir);
	if (!dp) {
		snprintf(err, errlen, "%s: cannot open directory: %s", dir, strerror(errno));
		return -1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(dp)) != NULL) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.' || (len > 4 && strcmp(e->d_name + len - 4, ".dat") == 0) ||
		    (len > 3 && strcmp(e->d_name + len - 3, ".u8") == 0))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **t = realloc(names, cap * sizeof(*t));
			if (!t)
				break;
			names = t;
		}
		names[n++] = strdup(e->d_name);
	}
	closedir(dp);
	qsort(names, n, sizeof(*names), _text_name_cmp);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		char path[8192];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (rc == 0 && lstat(path, &st) == 0 && S_ISREG(st.st_mode))
			rc = _text_fortune_file(b, path, err, errlen);
		free(names[i]);
	}
	free(names);
	if (rc == 0 && b->d->ndocs == 0) {
		snprintf(err, errlen, "%s: no fortune files (documents between %% lines) found", dir);
		rc = -1;
	}
	return rc;
}

/* dictd's base64: digits A-Z a-z 0-9 + /, most significant first. */
static int _text_b64(const char *s, size_t len, uint64_t *out)
{
	static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	uint64_t v = 0;
	if (len == 0 || len > 10)
		return -1;
	for (size_t i = 0; i < len; i++) {
		const char *p = memchr(digits, s[i], 64);
		if (!p)
			return -1;
		v = v * 64 + (uint64_t)(p - digits);
	}
	*out = v;
	return 0;
}

typedef struct text_entry {
	uint64_t off, len;
} text_entry_t;

static int _text_entry_cmp(const void *a, const void *b)
{
	const text_entry_t *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Entries of a dictd index (name is for messages), sorted by offset; the
 * database's own "00-database-*" entries left out. NULL with err on a bad
 * line (naming name:line) or out of memory; *n entries. */
static text_entry_t *_text_index(const char *name, const uint8_t *idx, size_t ilen, size_t *count, char *err,
				 size_t errlen)
{
	text_entry_t *ents = NULL;
	size_t n = 0, cap = 0, line = 0;
	for (size_t i = 0; i < ilen;) {
		size_t eol = i;
		while (eol < ilen && idx[eol] != '\n')
			eol++;
		line++;
		const uint8_t *f1 = memchr(idx + i, '\t', eol - i);
		const uint8_t *f2 = f1 ? memchr(f1 + 1, '\t', (size_t)(idx + eol - f1 - 1)) : NULL;
		text_entry_t en;
		if (!f1 || !f2 || _text_b64((const char *)f1 + 1, (size_t)(f2 - f1 - 1), &en.off) != 0 ||
		    _text_b64((const char *)f2 + 1, (size_t)(idx + eol - f2 - 1), &en.len) != 0) {
			snprintf(err, errlen,
				 "%s:%zu: not a dictd index line (headword TAB offset TAB length)", name,
				 line);
			free(ents);
			return NULL;
		}
		size_t head = (size_t)(f1 - (idx + i));
		int own = (head >= 11 && memcmp(idx + i, "00-database", 11) == 0) ||
			  (head >= 10 && memcmp(idx + i, "00database", 10) == 0);
		if (!own) {
			if (n == cap) {
				cap = cap ? cap * 2 : 4096;
				text_entry_t *t = realloc(ents, cap * sizeof(*t));
				if (!t) {
					free(ents);
					snprintf(err, errlen, "%s: out of memory", name);
					return NULL;
				}
				ents = t;
			}
			ents[n++] = en;
		}
		i = eol + 1;
	}
	if (n > 0)
		qsort(ents, n, sizeof(*ents), _text_entry_cmp);
	*count = n;
	return ents ? ents : calloc(1, sizeof(*ents));
}

/* The entries' text, once per offset, in offset order. */
static int _text_entries(text_builder_t *b, const text_entry_t *ents, size_t n, const uint8_t *text,
			 size_t tlen, const char *index, const char *dict, char *err, size_t errlen)
{
	for (size_t k = 0; k < n; k++) {
		if (k > 0 && ents[k].off == ents[k - 1].off)
			continue;
		if (ents[k].off > tlen || ents[k].len > tlen - ents[k].off) {
			snprintf(err, errlen,
				 "%s: an entry at offset %llu (length %llu) runs past the "
				 "%zu bytes of %s",
				 index, (unsigned long long)ents[k].off, (unsigned long long)ents[k].len,
				 tlen, dict);
			return -1;
		}
		if (ents[k].len == 0) /* an empty entry (and no pointer arithmetic on an empty text) */
			continue;
		if (_text_append(b, text + ents[k].off, (size_t)ents[k].len) != 0) {
			snprintf(err, errlen, "%s: out of memory", dict);
			return -1;
		}
	}
	return 0;
}

static int _text_dictd(text_builder_t *b, const char *index, char *err, size_t errlen)
{
	size_t ilen, dlen, n;
	uint8_t *idx = _text_slurp(index, &ilen, err, errlen);
	if (!idx)
		return -1;
	char dict[4096];
	size_t base = strlen(index) - strlen(".index");
	snprintf(dict, sizeof(dict), "%.*s.dict.dz", (int)base, index);
	FILE *probe = fopen(dict, "rb");
	if (probe)
		fclose(probe);
	else
		snprintf(dict, sizeof(dict), "%.*s.dict", (int)base, index);
	text_entry_t *ents = _text_index(index, idx, ilen, &n, err, errlen);
	free(idx);
	if (!ents)
		return -1;
	uint8_t *text = _text_slurp(dict, &dlen, err, errlen);
	if (!text) {
		free(ents);
		return -1;
	}
	int rc = _text_entries(b, ents, n, text, dlen, index, dict, err, errlen);
	free(text);
	free(ents);
	return rc;
}

int data_text_parse(data_text_t *d, int format, const uint8_t *a, size_t alen, const uint8_t *text,
		    size_t tlen, char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	text_builder_t b = { d, 0, 0, 0 };
	int rc;
	if (format == DATA_TEXT_FORTUNE) {
		rc = _text_fortune_buf(&b, a, alen);
		if (rc != 0)
			snprintf(err, errlen, "out of memory");
	} else {
		size_t n;
		text_entry_t *ents = _text_index("index", a, alen, &n, err, errlen);
		rc = ents ? _text_entries(&b, ents, n, text, tlen, "index", "dict", err, errlen) : -1;
		free(ents);
	}
	if (rc != 0)
		data_text_free(d);
	return rc;
}

int data_text_read(data_text_t *d, const char *spec, size_t max_docs, char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	text_builder_t b = { d, 0, 0, max_docs };
	const char *path = spec, *package = NULL;
	if (!spec || !*spec) {
		snprintf(err, errlen, "no corpus given (expected fortunes, gcide or a path)");
		return -1;
	}
	if (strcmp(spec, "fortunes") == 0) {
		path = DATA_TEXT_FORTUNES_DIR;
		package = "fortunes";
	} else if (strcmp(spec, "gcide") == 0) {
		path = DATA_TEXT_GCIDE_INDEX;
		package = "dict-gcide";
	}
	snprintf(d->source, sizeof(d->source), "%s", path);
	struct stat st;
	if (stat(path, &st) != 0) {
		if (package)
			snprintf(err, errlen, "%s: not found (install the Debian package %s)", path, package);
		else
			snprintf(err, errlen, "%s: not found", path);
		return -1;
	}
	size_t len = strlen(path);
	int rc;
	if (S_ISDIR(st.st_mode))
		rc = _text_fortune_dir(&b, path, err, errlen);
	else if (len > 6 && strcmp(path + len - 6, ".index") == 0)
		rc = _text_dictd(&b, path, err, errlen);
	else
		rc = _text_fortune_file(&b, path, err, errlen);
	if (rc == 0 && d->ndocs < DATA_TEXT_VAL_EVERY) {
		snprintf(err, errlen, "%s: %zu documents; at least %d are needed for a validation split",
			 path, d->ndocs, DATA_TEXT_VAL_EVERY);
		rc = -1;
	}
	if (rc != 0)
		data_text_free(d);
	return rc;
}

int data_text_is_validation(size_t i)
{
	return i % DATA_TEXT_VAL_EVERY == DATA_TEXT_VAL_EVERY - 1;
}

void data_text_free(data_text_t *d)
{
	free(d->text);
	free(d->docs);
	d->text = NULL;
	d->docs = NULL;
	d->ndocs = d->bytes = 0;
}
