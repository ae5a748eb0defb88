/*
 * workload_mlp.c: the built-in workload behind runtime/workload.h, an MLP
 * classifier on Fashion-MNIST, written only against the backend table so the
 * same code trains on the CPU and on a GPU.
 *
 * Parameter layout (one flat vector): for each layer l, W_l (out x in,
 * row-major, PyTorch's nn.Linear layout) then b_l (out).  Forward per layer:
 * Y = X W^T + b, ReLU except on the logits; softmax cross-entropy on top.
 * Backward: dW = dY^T X, db = column sums of dY, dX = dY W masked by the
 * ReLU.  Pixels are scaled to [0, 1] and standardized with the training
 * set's mean and deviation (0.2860, 0.3530).
 *
 * Data stays as bytes on the host (a 60k x 784 shard in floats on every rank
 * would be 188 MB); each batch is converted and copied to the backend.  The
 * sample stream of a worker is its shard in an order reshuffled each epoch
 * from (seed, rank, epoch), so a position (samples consumed) determines the
 * next batch exactly: that is what data_seek restores from a checkpoint.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/free_all.h"
#include "runtime/data_idx.h"
#include "runtime/workload_mlp.h"

#define MLP_CLASSES 10
#define MLP_EVAL_BATCH 500
#define MLP_PIXEL_MEAN 0.2860f
#define MLP_PIXEL_STD 0.3530f

typedef struct mlp {
	nodeox_workload_t w; /* first: the public part */
	char name[96];
	const nodeox_backend_t *be;
	int nlayers; /* hidden layers + output layer */
	int dims[WORKLOAD_MLP_MAX_HIDDEN + 2];
	size_t woff[WORKLOAD_MLP_MAX_HIDDEN + 1], boff[WORKLOAD_MLP_MAX_HIDDEN + 1];
	int batch, rows_cap; /* rows_cap = max(batch, eval batch) */

	/* backend buffers */
	float *act[WORKLOAD_MLP_MAX_HIDDEN + 2]; /* act[0] input, act[l+1] output of layer l */
	float *dbuf[2];                          /* ping-pong gradients w.r.t. activations */
	float *losses;
	int *labels;

	/* host data */
	data_idx_t train_x, train_y, test_x, test_y;
	size_t *shard; /* indices into train_* of this worker's samples */
	size_t nshard;
	size_t *perm;        /* this epoch's order of shard */
	uint64_t perm_epoch; /* epoch perm belongs to (UINT64_MAX: none) */
	uint64_t pos;        /* samples consumed */
	uint64_t seed;
	int rank;
	float *host_x; /* rows_cap x dims[0] */
	int *host_y;
	float *host_loss;
	size_t *host_idx; /* the batch's sample indices */
} mlp_t;

/* ------------------------------------------------------------ random numbers */

static uint64_t _mlp_splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double _mlp_uniform(uint64_t *s) /* [0, 1) */
{
	return (double)(_mlp_splitmix(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* ------------------------------------------------------------ options */

void workload_mlp_opts_default(workload_mlp_opts_t *o)
{
	memset(o, 0, sizeof(*o));
	o->nhidden = 3;
	o->hidden[0] = 256;
	o->hidden[1] = 128;
	o->hidden[2] = 100;
	o->batch_size = 64;
	o->seed = 1;
}

int workload_mlp_parse_hidden(workload_mlp_opts_t *o, const char *spec, char *err, size_t errlen)
{
	int n = 0, sizes[WORKLOAD_MLP_MAX_HIDDEN];
	const char *p = spec;
	if (!spec || !*spec) {
		snprintf(err, errlen, "hidden layer sizes: empty (expected e.g. 256,128,100)");
		return -1;
	}
	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || v < 1 || v > 65536) {
			snprintf(err, errlen, "hidden layer sizes '%s': item %d is not a size in 1..65536",
				 spec, n + 1);
			return -1;
		}
		if (n == WORKLOAD_MLP_MAX_HIDDEN) {
			snprintf(err, errlen, "hidden layer sizes '%s': more than %d layers", spec,
				 WORKLOAD_MLP_MAX_HIDDEN);
			return -1;
		}
		sizes[n++] = (int)v;
		if (*end == ',' || *end == '-')
			end++;
		else if (*end) {
			snprintf(err, errlen, "hidden layer sizes '%s': unexpected '%c' after item %d", spec,
				 *end, n);
			return -1;
		}
		if (!*end && (end[-1] == ',' || end[-1] == '-')) {
			snprintf(err, errlen, "hidden layer sizes '%s': trailing separator", spec);
			return -1;
		}
		p = end;
	}
	o->nhidden = n;
	memcpy(o->hidden, sizes, sizeof(int) * (size_t)n);
	return 0;
}

/* ------------------------------------------------------------ data */

/* Reads DIR/NAME.gz, or DIR/NAME when no .gz exists. */
static int _mlp_read(data_idx_t *d, const char *dir, const char *name, int images, size_t max, char *err,
		     size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s.gz", dir, name);
	FILE *f = fopen(path, "rb");
	if (f)
		fclose(f);
	else
		snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen,
			 "%s/%s.gz: not found (install the Debian package "
			 "dataset-fashion-mnist, or set FASHION_MNIST_DIR)",
			 dir, name);
		return -1;
	}
	fclose(f);
	return data_idx_read(d, path, images, max, err, errlen);
}

static int _mlp_check_pair(const data_idx_t *x, const data_idx_t *y, const char *dir, const char *what,
			   char *err, size_t errlen)
{
	if (x->count != y->count) {
		snprintf(err, errlen, "%s: %s has %zu images but %zu labels", dir, what, x->count, y->count);
		return -1;
	}
	for (size_t i = 0; i < y->count; i++)
		if (y->data[i] >= MLP_CLASSES) {
			snprintf(err, errlen, "%s: %s label %zu is %u, expected 0..%d", dir, what, i,
				 y->data[i], MLP_CLASSES - 1);
			return -1;
		}
	return 0;
}

/* Make perm the order of the epoch that sample position q falls in. */
static void _mlp_shuffle(mlp_t *m, uint64_t epoch)
{
	if (m->perm_epoch == epoch)
		return;
	uint64_t s = m->seed ^ 0x6a09e667f3bcc909ull;
	s = _mlp_splitmix(&s) ^ ((uint64_t)m->rank * 0x9e3779b97f4a7c15ull);
	s = _mlp_splitmix(&s) ^ (epoch * 0xd1b54a32d192ed03ull);
	for (size_t i = 0; i < m->nshard; i++)
		m->perm[i] = m->shard[i];
	for (size_t i = m->nshard; i > 1; i--) { /* Fisher-Yates */
		size_t j = (size_t)(_mlp_splitmix(&s) % i);
		size_t t = m->perm[i - 1];
		m->perm[i - 1] = m->perm[j];
		m->perm[j] = t;
	}
	m->perm_epoch = epoch;
}

static void _mlp_load_rows(mlp_t *m, const data_idx_t *x, const data_idx_t *y, const size_t *idx,
			   size_t first, int rows)
{
	int in = m->dims[0];
	for (int r = 0; r < rows; r++) {
		size_t i = idx ? idx[r] : first + (size_t)r;
		const uint8_t *px = x->data + i * (size_t)in;
		float *dst = m->host_x + (size_t)r * in;
		for (int c = 0; c < in; c++)
			dst[c] = ((float)px[c] * (1.0f / 255.0f) - MLP_PIXEL_MEAN) * (1.0f / MLP_PIXEL_STD);
		m->host_y[r] = y->data[i];
	}
	m->be->copy_h2d(m->act[0], m->host_x, (size_t)rows * in * sizeof(float));
	m->be->copy_h2d(m->labels, m->host_y, (size_t)rows * sizeof(int));
}

/* ------------------------------------------------------------ model */

static void _mlp_forward(mlp_t *m, int rows)
{
	const nodeox_backend_t *be = m->be;
	const float *P = m->w.params;
	for (int l = 0; l < m->nlayers; l++) {
		int in = m->dims[l], out = m->dims[l + 1];
		be->sgemm(0, 1, rows, out, in, 1.0f, m->act[l], P + m->woff[l], 0.0f, m->act[l + 1]);
		be->bias_add(m->act[l + 1], P + m->boff[l], rows, out);
		if (l + 1 < m->nlayers)
			be->relu_forward(m->act[l + 1], m->act[l + 1], (size_t)rows * out);
	}
}

static float _mlp_train_batch(nodeox_workload_t *w)
{
	mlp_t *m = (mlp_t *)w;
	const nodeox_backend_t *be = m->be;
	int B = m->batch, L = m->nlayers;
	size_t *ip = m->host_idx;
	for (int r = 0; r < B; r++) {
		uint64_t q = m->pos + (uint64_t)r;
		_mlp_shuffle(m, q / m->nshard);
		ip[r] = m->perm[q % m->nshard];
	}
	m->pos += (uint64_t)B;
	_mlp_load_rows(m, &m->train_x, &m->train_y, ip, 0, B);

	_mlp_forward(m, B);
	float *logits = m->act[L];
	be->softmax_xent_forward(logits, m->losses, logits, m->labels, B, MLP_CLASSES);
	float *dy = m->dbuf[0];
	be->softmax_xent_backward(dy, logits, m->labels, B, MLP_CLASSES, 1.0f / (float)B);

	float *G = w->grads;
	const float *P = w->params;
	for (int l = L - 1; l >= 0; l--) {
		int in = m->dims[l], out = m->dims[l + 1];
		be->sgemm(1, 0, out, in, B, 1.0f, dy, m->act[l], 0.0f, G + m->woff[l]);
		be->bias_grad(G + m->boff[l], dy, B, out);
		if (l > 0) {
			float *dx = m->dbuf[(L - l) % 2];
			be->sgemm(0, 0, B, in, out, 1.0f, dy, P + m->woff[l], 0.0f, dx);
			be->relu_backward(dx, dx, m->act[l], (size_t)B * in);
			dy = dx;
		}
	}

	be->copy_d2h(m->host_loss, m->losses, (size_t)B * sizeof(float));
	double sum = 0.0;
	for (int r = 0; r < B; r++)
		sum += m->host_loss[r];
	return (float)(sum / B);
}

static double _mlp_evaluate(nodeox_workload_t *w)
{
	mlp_t *m = (mlp_t *)w;
	size_t n = m->test_x.count, correct = 0;
	for (size_t first = 0; first < n; first += MLP_EVAL_BATCH) {
		int rows = (int)(n - first < MLP_EVAL_BATCH ? n - first : MLP_EVAL_BATCH);
		_mlp_load_rows(m, &m->test_x, &m->test_y, NULL, first, rows);
		_mlp_forward(m, rows);
		correct += (size_t)m->be->argmax_correct(m->act[m->nlayers], m->labels, rows, MLP_CLASSES);
	}
	return n ? (double)correct / (double)n : 0.0;
}

static uint64_t _mlp_data_pos(nodeox_workload_t *w)
{
	return ((mlp_t *)w)->pos;
}

static void _mlp_data_seek(nodeox_workload_t *w, uint64_t pos)
{
	((mlp_t *)w)->pos = pos; /* the epoch's order is rebuilt on demand */
}

static void _mlp_destroy(nodeox_workload_t *w)
{
	mlp_t *m = (mlp_t *)w;
	if (!m)
		return;
	const nodeox_backend_t *be = m->be;
	be->free(m->w.params);
	be->free(m->w.grads);
	for (int l = 0; l <= m->nlayers; l++)
		be->free(m->act[l]);
	be->free(m->dbuf[0]);
	be->free(m->dbuf[1]);
	be->free(m->losses);
	be->free(m->labels);
	data_idx_free(&m->train_x);
	data_idx_free(&m->train_y);
	data_idx_free(&m->test_x);
	data_idx_free(&m->test_y);
	nodeox_free_all(m->shard, m->perm, m->host_x, m->host_y, m->host_loss, m->host_idx, m);
}

/* He-uniform weights U(-sqrt(6/in), sqrt(6/in)) for the ReLU layers, zero
 * biases; drawn from the seed alone so every rank starts from the same
 * weights. */
static int _mlp_init_params(mlp_t *m, char *err, size_t errlen)
{
	float *host = calloc(m->w.nparams, sizeof(float));
	if (!host) {
		snprintf(err, errlen, "MLP: out of host memory for %zu parameters", m->w.nparams);
		return -1;
	}
	uint64_t s = m->seed;
	for (int l = 0; l < m->nlayers; l++) {
		int in = m->dims[l], out = m->dims[l + 1];
		double bound = sqrt(6.0 / in);
		for (size_t i = 0; i < (size_t)in * out; i++)
			host[m->woff[l] + i] = (float)((2.0 * _mlp_uniform(&s) - 1.0) * bound);
	}
	m->be->copy_h2d(m->w.params, host, m->w.nparams * sizeof(float));
	free(host);
	return 0;
}

nodeox_workload_t *workload_mlp_create(const workload_mlp_opts_t *opts, int rank, int world,
				       const nodeox_backend_t *be, char *err, size_t errlen)
{
	workload_mlp_opts_t def;
	if (!opts) {
		workload_mlp_opts_default(&def);
		opts = &def;
	}
	if (world < 1 || rank < 0 || rank >= world) {
		snprintf(err, errlen, "MLP: rank %d of world %d is out of range", rank, world);
		return NULL;
	}
	if (opts->batch_size < 1 || opts->batch_size > 65536) {
		snprintf(err, errlen, "MLP: batch size %d is not in 1..65536", opts->batch_size);
		return NULL;
	}
	if (opts->nhidden < 0 || opts->nhidden > WORKLOAD_MLP_MAX_HIDDEN) {
		snprintf(err, errlen, "MLP: %d hidden layers, at most %d", opts->nhidden,
			 WORKLOAD_MLP_MAX_HIDDEN);
		return NULL;
	}
	const char *dir = opts->data_dir;
	if (!dir || !*dir)
		dir = getenv("FASHION_MNIST_DIR");
	if (!dir || !*dir)
		dir = WORKLOAD_MLP_DEFAULT_DIR;

	mlp_t *m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(err, errlen, "MLP: out of memory");
		return NULL;
	}
	m->be = be;
	m->seed = opts->seed;
	m->rank = rank;
	m->batch = opts->batch_size;
	m->perm_epoch = UINT64_MAX;

	if (_mlp_read(&m->train_x, dir, "train-images-idx3-ubyte", 1, opts->max_train, err, errlen) ||
	    _mlp_read(&m->train_y, dir, "train-labels-idx1-ubyte", 0, opts->max_train, err, errlen) ||
	    _mlp_read(&m->test_x, dir, "t10k-images-idx3-ubyte", 1, opts->max_test, err, errlen) ||
	    _mlp_read(&m->test_y, dir, "t10k-labels-idx1-ubyte", 0, opts->max_test, err, errlen) ||
	    _mlp_check_pair(&m->train_x, &m->train_y, dir, "training set", err, errlen) ||
	    _mlp_check_pair(&m->test_x, &m->test_y, dir, "test set", err, errlen))
		goto fail;
	if (m->train_x.rows != m->test_x.rows || m->train_x.cols != m->test_x.cols) {
		snprintf(err, errlen, "%s: training images are %d x %d but test images %d x %d", dir,
			 m->train_x.rows, m->train_x.cols, m->test_x.rows, m->test_x.cols);
		goto fail;
	}

	/* this worker's shard: every world-th sample starting at rank */
	m->nshard =
		m->train_x.count > (size_t)rank ? (m->train_x.count - (size_t)rank + world - 1) / world : 0;
	if (m->nshard == 0) {
		snprintf(err, errlen, "MLP: %zu training samples leave rank %d of %d with none",
			 m->train_x.count, rank, world);
		goto fail;
	}
	m->shard = malloc(sizeof(size_t) * m->nshard);
	m->perm = malloc(sizeof(size_t) * m->nshard);
	if (!m->shard || !m->perm)
		goto oom;
	for (size_t i = 0; i < m->nshard; i++)
		m->shard[i] = (size_t)rank + i * (size_t)world;

	/* layer sizes and parameter offsets */
	m->nlayers = opts->nhidden + 1;
	m->dims[0] = m->train_x.rows * m->train_x.cols;
	for (int l = 0; l < opts->nhidden; l++) {
		if (opts->hidden[l] < 1) {
			snprintf(err, errlen, "MLP: hidden layer %d has size %d", l + 1, opts->hidden[l]);
			goto fail;
		}
		m->dims[l + 1] = opts->hidden[l];
	}
	m->dims[m->nlayers] = MLP_CLASSES;
	size_t off = 0;
	int widest = 0;
	int len = snprintf(m->name, sizeof(m->name), "mlp-%d", m->dims[0]);
	for (int l = 0; l < m->nlayers; l++) {
		m->woff[l] = off;
		off += (size_t)m->dims[l] * m->dims[l + 1];
		m->boff[l] = off;
		off += (size_t)m->dims[l + 1];
		if (len < (int)sizeof(m->name))
			len += snprintf(m->name + len, sizeof(m->name) - (size_t)len, "-%d", m->dims[l + 1]);
	}
	for (int l = 0; l <= m->nlayers; l++)
		widest = m->dims[l] > widest ? m->dims[l] : widest;
	m->w.nparams = off;

	/* buffers */
	m->rows_cap = m->batch > MLP_EVAL_BATCH ? m->batch : MLP_EVAL_BATCH;
	size_t rows = (size_t)m->rows_cap;
	m->w.params = be->alloc(off * sizeof(float));
	m->w.grads = be->alloc(off * sizeof(float));
	for (int l = 0; l <= m->nlayers; l++)
		if (!(m->act[l] = be->alloc(rows * (size_t)m->dims[l] * sizeof(float))))
			goto oom;
	m->dbuf[0] = be->alloc((size_t)m->batch * widest * sizeof(float));
	m->dbuf[1] = be->alloc((size_t)m->batch * widest * sizeof(float));
	m->losses = be->alloc(rows * sizeof(float));
	m->labels = be->alloc(rows * sizeof(int));
	m->host_x = malloc(rows * (size_t)m->dims[0] * sizeof(float));
	m->host_y = malloc(rows * sizeof(int));
	m->host_loss = malloc(rows * sizeof(float));
	m->host_idx = malloc((size_t)m->batch * sizeof(size_t));
	if (!m->w.params || !m->w.grads || !m->dbuf[0] || !m->dbuf[1] || !m->losses || !m->labels ||
	    !m->host_x || !m->host_y || !m->host_loss || !m->host_idx)
		goto oom;
	if (_mlp_init_params(m, err, errlen) != 0)
		goto fail;

	m->w.name = m->name;
	m->w.be = be;
	m->w.batch_size = m->batch;
	m->w.shard_samples = m->nshard;
	m->w.train_batch = _mlp_train_batch;
	m->w.evaluate = _mlp_evaluate;
	m->w.data_pos = _mlp_data_pos;
	m->w.data_seek = _mlp_data_seek;
	m->w.destroy = _mlp_destroy;
	m->w.metric = "accuracy";
	m->w.impl = m;
	return &m->w;

oom:
	snprintf(err, errlen, "MLP: out of memory on the %s backend", be->name);
fail:
	_mlp_destroy(&m->w);
	return NULL;
}
