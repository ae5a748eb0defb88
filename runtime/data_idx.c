/*
 * data_idx.c: reads MNIST-style IDX files (the format of Fashion-MNIST).
 *
 * Built with zlib (HAVE_ZLIB), gzread reads .gz and plain files alike.
 * Without it, a .gz file is decompressed through `gzip -dc` in a pipe and a
 * plain file is read directly; both paths share the header checks below, so
 * a short or wrong file gives the same "PATH: what is wrong" message either
 * way.  Only the first `max` items are read (the rest is not decompressed).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "runtime/data_idx.h"

#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

#define IDX_MAX_DIM (1u << 16) /* rows/cols beyond this are not an image */
#define IDX_MAX_COUNT (1u << 28)

typedef struct {
#ifdef HAVE_ZLIB
	gzFile gz;
#else
	FILE *fp;
	int piped;
#endif
} idx_stream_t;

static int _idx_open(idx_stream_t *s, const char *path, char *err, size_t errlen)
{
#ifdef HAVE_ZLIB
	s->gz = gzopen(path, "rb");
	if (!s->gz) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno ? errno : ENOMEM));
		return -1;
	}
	gzbuffer(s->gz, 1 << 17);
#else
	size_t len = strlen(path);
	s->piped = len > 3 && (strcmp(path + len - 3, ".gz") == 0 || strcmp(path + len - 3, ".dz") == 0);
	FILE *probe = fopen(path, "rb"); /* a clear error before gzip prints its own */
	if (!probe) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (!s->piped) {
		s->fp = probe;
		return 0;
	}
	fclose(probe);
	/* single-quote the path for the shell: ' becomes '\'' */
	size_t cap = 32 + 4 * len;
	char *cmd = malloc(cap), *q = cmd;
	if (!cmd) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	q += sprintf(q, "gzip -dc -- '");
	for (const char *c = path; *c; c++) {
		if (*c == '\'') {
			memcpy(q, "'\\''", 4);
			q += 4;
		} else {
			*q++ = *c;
		}
	}
	strcpy(q, "'");
	s->fp = popen(cmd, "r");
	free(cmd);
	if (!s->fp) {
		snprintf(err, errlen, "%s: cannot start gzip -dc: %s", path, strerror(errno));
		return -1;
	}
#endif
	return 0;
}

/* Bytes read (fewer than n at end of data), or -1 on a read error. */
static long _idx_read(idx_stream_t *s, void *buf, size_t n)
{
#ifdef HAVE_ZLIB
	size_t got = 0;
	while (got < n) {
		unsigned chunk = n - got > (1u << 30) ? (1u << 30) : (unsigned)(n - got);
		int r = gzread(s->gz, (char *)buf + got, chunk);
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (long)got;
#else
	size_t got = fread(buf, 1, n, s->fp);
	return ferror(s->fp) ? -1 : (long)got;
#endif
}

static const char *_idx_read_error(idx_stream_t *s)
{
#ifdef HAVE_ZLIB
	int code;
	const char *m = gzerror(s->gz, &code);
	return code == Z_ERRNO ? strerror(errno) : m;
#else
	return s->piped ? "gzip -dc failed (not gzip data?)" : strerror(errno);
#endif
}

/* Closing; for a pipe, gzip's exit status says whether the data were good.
 * `complete` is 0 when we stopped reading early (gzip then dies of SIGPIPE). */
static int _idx_close(idx_stream_t *s, int complete)
{
#ifdef HAVE_ZLIB
	return gzclose(s->gz) == Z_OK || !complete ? 0 : -1;
#else
	if (!s->piped)
		return fclose(s->fp);
	int st = pclose(s->fp);
	return complete && st != 0 ? -1 : 0;
#endif
}

uint8_t *data_idx_slurp(const char *path, size_t *len, char *err, size_t errlen)
{
	idx_stream_t s;
	if (_idx_open(&s, path, err, errlen) != 0)
		return NULL;
	size_t cap = 1 << 20, n = 0;
	uint8_t *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			_idx_close(&s, 0);
			snprintf(err, errlen, "%s: out of memory", path);
			return NULL;
		}
		if (n == cap) {
			uint8_t *t = realloc(buf, cap * 2);
			if (!t)
				free(buf);
			buf = t;
			cap *= 2;
			continue;
		}
		long got = _idx_read(&s, buf + n, cap - n);
		if (got < 0) {
			snprintf(err, errlen, "%s: read error after %zu bytes: %s", path, n,
				 _idx_read_error(&s));
			_idx_close(&s, 0);
			free(buf);
			return NULL;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (_idx_close(&s, 1) != 0) {
		snprintf(err, errlen, "%s: not complete gzip data", path);
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

static uint32_t _idx_be32(const unsigned char *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

int data_idx_read(data_idx_t *out, const char *path, int want_images, size_t max, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	idx_stream_t s;
	if (_idx_open(&s, path, err, errlen) != 0)
		return -1;

	unsigned want_dims = want_images ? 3 : 1;
	unsigned char head[16];
	size_t head_len = 4 + 4 * want_dims;
	long got = _idx_read(&s, head, head_len);
	if (got < 0) {
		snprintf(err, errlen, "%s: read error: %s", path, _idx_read_error(&s));
		goto fail;
	}
	if (got < 4) {
		snprintf(err, errlen, "%s: not an IDX file: only %ld bytes", path, got);
		goto fail;
	}
	if (head[0] != 0 || head[1] != 0) {
		snprintf(err, errlen,
			 "%s: not an IDX file: magic %02x %02x %02x %02x does not start with 00 00", path,
			 head[0], head[1], head[2], head[3]);
		goto fail;
	}
	if (head[2] != 0x08) {
		snprintf(err, errlen, "%s: IDX element type 0x%02x, expected 0x08 (unsigned byte)", path,
			 head[2]);
		goto fail;
	}
	if (head[3] != want_dims) {
		snprintf(err, errlen, "%s: IDX file has %u dimensions, expected %u (%s)", path, head[3],
			 want_dims, want_images ? "images: count, rows, cols" : "labels: count");
		goto fail;
	}
	if ((size_t)got < head_len) {
		snprintf(err, errlen, "%s: truncated IDX header (%ld of %zu bytes)", path, got, head_len);
		goto fail;
	}
	uint32_t count = _idx_be32(head + 4);
	uint32_t rows = want_images ? _idx_be32(head + 8) : 1;
	uint32_t cols = want_images ? _idx_be32(head + 12) : 1;
	if (count > IDX_MAX_COUNT || rows == 0 || cols == 0 || rows > IDX_MAX_DIM || cols > IDX_MAX_DIM) {
		snprintf(err, errlen, "%s: implausible IDX dimensions %u x %u x %u", path, count, rows, cols);
		goto fail;
	}
	size_t n = max && max < count ? max : count;
	size_t bytes = n * rows * cols;
	out->data = malloc(bytes ? bytes : 1);
	if (!out->data) {
		snprintf(err, errlen, "%s: out of memory for %zu bytes", path, bytes);
		goto fail;
	}
	got = _idx_read(&s, out->data, bytes);
	if (got < 0) {
		snprintf(err, errlen, "%s: read error: %s", path, _idx_read_error(&s));
		goto fail;
	}
	if ((size_t)got < bytes) {
		snprintf(err, errlen,
			 "%s: truncated: header says %u items of %u x %u bytes, data ends after %ld bytes",
			 path, count, rows, cols, got);
		goto fail;
	}
	if (_idx_close(&s, n == count) != 0) {
		snprintf(err, errlen, "%s: error at end of compressed data (corrupt file?)", path);
		free(out->data);
		memset(out, 0, sizeof(*out));
		return -1;
	}
	out->count = n;
	out->rows = (int)rows;
	out->cols = (int)cols;
	return 0;

fail:
	_idx_close(&s, 0);
	free(out->data);
	memset(out, 0, sizeof(*out));
	return -1;
}

void data_idx_free(data_idx_t *d)
{
	free(d->data);
	memset(d, 0, sizeof(*d));
}
