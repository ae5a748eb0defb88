/*
 * test_data_idx.c: the IDX reader and the MLP workload on small synthetic
 * data sets written to a temporary directory: plain and gzip files read the
 * same, truncated / wrong-typed / missing files give errors that name the
 * file and the fault; shards of all ranks partition the training set; the
 * weights start equal on every rank; data_seek replays batches exactly; and
 * the workload's backward pass agrees with finite differences of its loss.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/common/test_main.h"
#include "runtime/data_idx.h"
#include "runtime/workload_mlp.h"

#define ROWS 6
#define COLS 5
#define NTRAIN 40
#define NTEST 12

static char dir[256];

static void write_idx(const char *name, int images, size_t count, const uint8_t *data, size_t truncate_to)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	uint8_t head[16] = { 0, 0, 0x08, (uint8_t)(images ? 3 : 1) };
	uint32_t dims[3] = { (uint32_t)count, ROWS, COLS };
	int nd = images ? 3 : 1;
	for (int d = 0; d < nd; d++)
		for (int b = 0; b < 4; b++)
			head[4 + 4 * d + b] = (uint8_t)(dims[d] >> (24 - 8 * b));
	size_t bytes = count * (images ? ROWS * COLS : 1);
	size_t total = 4 + 4 * (size_t)nd + bytes;
	size_t keep = truncate_to ? truncate_to : total;
	size_t h = keep < 4 + 4 * (size_t)nd ? keep : 4 + 4 * (size_t)nd;
	fwrite(head, 1, h, f);
	if (keep > h)
		fwrite(data, 1, keep - h, f);
	fclose(f);
}

/* A learnable toy set: the label is which row holds the brightest pixel sum. */
static void make_dataset(void)
{
	uint8_t xs[NTRAIN * ROWS * COLS], ys[NTRAIN], xt[NTEST * ROWS * COLS], yt[NTEST];
	uint64_t s = 5;
	for (int i = 0; i < NTRAIN + NTEST; i++) {
		uint8_t *x = i < NTRAIN ? xs + i * ROWS * COLS : xt + (i - NTRAIN) * ROWS * COLS;
		int label = i % ROWS;
		for (int p = 0; p < ROWS * COLS; p++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			x[p] = (uint8_t)((s >> 40) % 100 + (p / COLS == label ? 120 : 0));
		}
		if (i < NTRAIN)
			ys[i] = (uint8_t)label;
		else
			yt[i - NTRAIN] = (uint8_t)label;
	}
	write_idx("train-images-idx3-ubyte", 1, NTRAIN, xs, 0);
	write_idx("train-labels-idx1-ubyte", 0, NTRAIN, ys, 0);
	write_idx("t10k-images-idx3-ubyte", 1, NTEST, xt, 0);
	write_idx("t10k-labels-idx1-ubyte", 0, NTEST, yt, 0);
}

static int setup(void **state)
{
	(void)state;
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/nodeox-idx-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	make_dataset();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void path_of(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", dir, name);
}

/* ------------------------------------------------------------ IDX reader */

static void test_read_plain_and_gzip(void **state)
{
	(void)state;
	char path[512], cmd[1200], err[512];
	data_idx_t a, b, c;
	path_of(path, sizeof(path), "train-images-idx3-ubyte");
	assert_int_equal(data_idx_read(&a, path, 1, 0, err, sizeof(err)), 0);
	assert_int_equal(a.count, NTRAIN);
	assert_int_equal(a.rows, ROWS);
	assert_int_equal(a.cols, COLS);
	snprintf(cmd, sizeof(cmd), "gzip -c '%s' > '%s.gz'", path, path);
	assert_int_equal(system(cmd), 0);
	strcat(path, ".gz");
	assert_int_equal(data_idx_read(&b, path, 1, 0, err, sizeof(err)), 0);
	assert_int_equal(b.count, NTRAIN);
	assert_memory_equal(a.data, b.data, NTRAIN * ROWS * COLS);
	assert_int_equal(data_idx_read(&c, path, 1, 7, err, sizeof(err)), 0); /* first 7 only */
	assert_int_equal(c.count, 7);
	assert_memory_equal(a.data, c.data, 7 * ROWS * COLS);
	unlink(path);
	data_idx_free(&a);
	data_idx_free(&b);
	data_idx_free(&c);
}

static void test_read_errors_name_file_and_fault(void **state)
{
	(void)state;
	char path[512], err[512];
	data_idx_t d;
	uint8_t junk[64] = { 0 };

	path_of(path, sizeof(path), "missing-file");
	assert_int_equal(data_idx_read(&d, path, 1, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "cannot open"));

	write_idx("short-images", 1, 3, junk, 4 + 12 + 50); /* 3 images need 90 bytes */
	path_of(path, sizeof(path), "short-images");
	assert_int_equal(data_idx_read(&d, path, 1, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "truncated"));
	assert_null(d.data);

	path_of(path, sizeof(path), "train-labels-idx1-ubyte"); /* labels read as images */
	assert_int_equal(data_idx_read(&d, path, 1, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "1 dimensions, expected 3"));

	path_of(path, sizeof(path), "not-idx");
	FILE *f = fopen(path, "wb");
	fputs("hello, world\n", f);
	fclose(f);
	assert_int_equal(data_idx_read(&d, path, 0, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not an IDX file"));
}

/* ------------------------------------------------------------ the MLP workload */

static nodeox_workload_t *make(int rank, int world, int batch, uint64_t seed)
{
	workload_mlp_opts_t o;
	char err[512];
	workload_mlp_opts_default(&o);
	o.data_dir = dir;
	o.batch_size = batch;
	o.seed = seed;
	assert_int_equal(workload_mlp_parse_hidden(&o, "7-5", err, sizeof(err)), 0);
	nodeox_workload_t *w = workload_mlp_create(&o, rank, world, backend_cpu(), err, sizeof(err));
	if (!w)
		fail_msg("workload_mlp_create: %s", err);
	return w;
}

static void test_parse_hidden(void **state)
{
	(void)state;
	workload_mlp_opts_t o;
	char err[256];
	workload_mlp_opts_default(&o);
	assert_int_equal(o.nhidden, 3); /* the README reference 256-128-100 */
	assert_int_equal(workload_mlp_parse_hidden(&o, "256,128", err, sizeof(err)), 0);
	assert_int_equal(o.nhidden, 2);
	assert_int_equal(o.hidden[1], 128);
	assert_int_equal(workload_mlp_parse_hidden(&o, "256-x", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "item 2"));
	assert_int_equal(workload_mlp_parse_hidden(&o, "256,", err, sizeof(err)), -1);
	assert_int_equal(o.nhidden, 2); /* unchanged on error */
}

static void test_missing_dataset_message(void **state)
{
	(void)state;
	workload_mlp_opts_t o;
	char err[512];
	workload_mlp_opts_default(&o);
	o.data_dir = "/nonexistent/fashion";
	assert_null(workload_mlp_create(&o, 0, 1, backend_cpu(), err, sizeof(err)));
	assert_non_null(strstr(err, "/nonexistent/fashion/train-images-idx3-ubyte"));
	assert_non_null(strstr(err, "dataset-fashion-mnist"));
}

static void test_shards_partition_and_same_init(void **state)
{
	(void)state;
	const int world = 3;
	nodeox_workload_t *w[3];
	uint64_t total = 0;
	for (int r = 0; r < world; r++) {
		w[r] = make(r, world, 4, 11);
		total += w[r]->shard_samples;
	}
	assert_int_equal(total, NTRAIN); /* 14 + 13 + 13 */
	assert_int_equal(w[0]->shard_samples, 14);
	assert_int_equal(w[0]->nparams, (size_t)(30 * 7 + 7 + 7 * 5 + 5 + 5 * 10 + 10));
	for (int r = 1; r < world; r++)
		assert_memory_equal(w[0]->params, w[r]->params, w[0]->nparams * sizeof(float));
	nodeox_workload_t *other = make(0, world, 4, 12); /* another seed, other weights */
	assert_memory_not_equal(w[0]->params, other->params, w[0]->nparams * sizeof(float));
	other->destroy(other);
	for (int r = 0; r < world; r++)
		w[r]->destroy(w[r]);
}

static void test_data_seek_replays_batches(void **state)
{
	(void)state;
	/* batch 6 over a 14-sample shard crosses epoch boundaries (reshuffles) */
	nodeox_workload_t *a = make(0, 3, 6, 3), *b = make(0, 3, 6, 3);
	float la[8], lb;
	for (int i = 0; i < 8; i++)
		la[i] = a->train_batch(a);
	assert_int_equal(a->data_pos(a), 48);
	for (int i = 0; i < 8; i += 3) { /* seek anywhere, same losses */
		b->data_seek(b, (uint64_t)i * 6);
		lb = b->train_batch(b);
		assert_true(lb == la[i]);
	}
	assert_int_equal(b->data_pos(b), 7 * 6);
	a->destroy(a);
	b->destroy(b);
}

static void test_gradient_matches_finite_differences(void **state)
{
	(void)state;
	nodeox_workload_t *w = make(0, 1, 8, 21);
	size_t n = w->nparams;
	float *grad = malloc(n * sizeof(float));
	w->data_seek(w, 0);
	w->train_batch(w);
	memcpy(grad, w->grads, n * sizeof(float)); /* CPU backend: host memory */
	int checked = 0;
	for (size_t i = 0; i < n; i += 7) { /* every layer, weights and biases */
		float keep = w->params[i];
		double h = 1e-2;
		w->params[i] = keep + (float)h;
		w->data_seek(w, 0);
		double lp = w->train_batch(w);
		w->params[i] = keep - (float)h;
		w->data_seek(w, 0);
		double lm = w->train_batch(w);
		w->params[i] = keep;
		double fd = (lp - lm) / (2 * h);
		if (fabs(fd - grad[i]) > 2e-3 + 0.05 * fabs(grad[i]))
			fail_msg("parameter %zu: backward %.6g, finite difference %.6g", i, grad[i], fd);
		checked++;
	}
	assert_true(checked > 40);
	free(grad);
	w->destroy(w);
}

static void test_learns_toy_set(void **state)
{
	(void)state;
	nodeox_workload_t *w = make(0, 1, 8, 4);
	float *mom = calloc(w->nparams, sizeof(float));
	double before = w->evaluate(w);
	float first = w->train_batch(w), last = first;
	for (int s = 0; s < 300; s++) {
		backend_cpu()->sgd_step(w->params, w->grads, mom, w->nparams, 0.05f, 0.9f, 0.0f);
		last = w->train_batch(w);
	}
	double after = w->evaluate(w);
	assert_true(last < first);
	assert_true(after >= 0.9);
	assert_true(after > before);
	free(mom);
	w->destroy(w);
}

NODEOX_TEST_MAIN(setup, teardown, cmocka_unit_test(test_read_plain_and_gzip),
		 cmocka_unit_test(test_read_errors_name_file_and_fault), cmocka_unit_test(test_parse_hidden),
		 cmocka_unit_test(test_missing_dataset_message),
		 cmocka_unit_test(test_shards_partition_and_same_init),
		 cmocka_unit_test(test_data_seek_replays_batches),
		 cmocka_unit_test(test_gradient_matches_finite_differences),
		 cmocka_unit_test(test_learns_toy_set))
