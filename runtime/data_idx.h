/*
 * data_idx.h: reading MNIST-style IDX files (gzip-compressed or plain).
 *
 * IDX: big-endian magic 0x00000803 (uint8 images: count, rows, cols) or
 * 0x00000801 (uint8 labels: count), then the bytes.  Files ending in .gz are
 * decompressed with zlib when nodeox was built with it (HAVE_ZLIB), else
 * through `gzip -dc`.  Errors name the file and what is wrong with it.
 */
#ifndef NODEOX_DATA_IDX_H
#define NODEOX_DATA_IDX_H

#include <stddef.h>
#include <stdint.h>

typedef struct data_idx {
	size_t count;   /* items (images or labels) */
	int rows, cols; /* image size; 1 x 1 for labels */
	uint8_t *data;  /* count * rows * cols bytes, malloc'd */
} data_idx_t;

/* Read at most max items (0: all) of an IDX image (want_images = 1) or label
 * (want_images = 0) file.  Returns 0, or -1 with "PATH: reason" in err. */
int data_idx_read(data_idx_t *out, const char *path, int want_images, size_t max, char *err, size_t errlen);

void data_idx_free(data_idx_t *d);

/* A whole file in malloc'd memory (*len bytes), gunzipped when it is gzip
 * data (zlib when built with it, which also reads plain files; else
 * `gzip -dc` for names ending .gz or .dz). The one place nodeox reads
 * possibly compressed data files; runtime/data_text.c uses it for corpora.
 * NULL with "PATH: reason" in err. */
uint8_t *data_idx_slurp(const char *path, size_t *len, char *err, size_t errlen);

#endif /* NODEOX_DATA_IDX_H */
