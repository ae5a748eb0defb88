/*
 * workload_gpt.c: the transformer of runtime/workload_gpt.h behind
 * runtime/workload.h, written only against the backend table (the layer
 * order and buffer names follow llm.c's train_gpt2.c, so a reader who knows
 * that file finds their way here).
 *
 * Parameter layout (one flat vector), tensor by tensor, each holding all
 * layers: wte V x C, wpe T x C, ln1w L x C, ln1b, qkvw L x 3C x C, qkvb
 * L x 3C, attprojw L x C x C, attprojb, ln2w, ln2b, fcw L x 4C x C, fcb
 * L x 4C, fcprojw L x C x 4C, fcprojb, lnfw C, lnfb C.  Linear weights are
 * (out x in), PyTorch's layout: y = x W^T + b.  AdamW's weight decay
 * applies to the matrices only (w.decay_mask, _gpt_decay_mask).
 *
 * Gradients: train_batch zeroes grads, then the backward pass writes each
 * weight's gradient once (sgemm with beta 0, bias_grad) except where a
 * kernel accumulates (LayerNorm gains and biases, the token table which the
 * LM head writes first and the embedding backward adds to).  The residual
 * stream's gradient lives in one buffer that each LayerNorm backward adds
 * to, which is the residual connection's backward pass.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/free_all.h"
#include "runtime/data_text.h"
#include "runtime/workload_gpt.h"

#define V WORKLOAD_GPT_VOCAB
#define GPT_NTENSORS 16
#define GPT_DOC_END 0 /* byte after every document */

enum {
	WTE,
	WPE,
	LN1W,
	LN1B,
	QKVW,
	QKVB,
	ATTPROJW,
	ATTPROJB,
	LN2W,
	LN2B,
	FCW,
	FCB,
	FCPROJW,
	FCPROJB,
	LNFW,
	LNFB
};

typedef struct gpt {
	nodeox_workload_t w; /* first: the public part */
	char name[96];
	const nodeox_backend_t *be;
	int L, C, NH, T, B;
	size_t sizes[GPT_NTENSORS], offs[GPT_NTENSORS];

	/* activations (backend memory); per-layer arrays hold L slices */
	float *encoded, *ln1, *ln1_mean, *ln1_rstd, *qkv, *atty, *preatt, *att, *attproj, *residual2, *ln2,
		*ln2_mean, *ln2_rstd, *fch, *fch_gelu, *fcproj, *residual3, *lnf, *lnf_mean, *lnf_rstd,
		*logits, *losses;
	float *decay; /* AdamW's decay mask (workload.h): 1 on matrices */
	/* backward scratch */
	float *dresidual, *dln, *dfch, *dqkv, *datty, *dpreatt, *datt;
	int *tokens, *targets; /* backend */

	/* host data */
	uint8_t *shard; /* this worker's training documents, joined */
	size_t nshard;
	uint8_t *val; /* validation documents, joined */
	size_t nval;
	uint64_t pos; /* samples (windows) consumed */
	uint64_t seed;
	int rank;
	int *host_tok, *host_tgt;
	float *host_loss;
} gpt_t;

/* ------------------------------------------------------------ random numbers */

static uint64_t _gpt_splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double _gpt_normal(uint64_t *s) /* Box-Muller */
{
	double u1 = ((double)(_gpt_splitmix(s) >> 11) + 1.0) * (1.0 / 9007199254740993.0);
	double u2 = (double)(_gpt_splitmix(s) >> 11) * (1.0 / 9007199254740992.0);
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* ------------------------------------------------------------ shapes */

void workload_gpt_opts_default(workload_gpt_opts_t *o)
{
	memset(o, 0, sizeof(*o));
	o->corpus = "fortunes";
	o->layers = 2;
	o->channels = 64;
	o->heads = 4;
	o->context = 64;
	o->batch_size = 8;
	o->seed = 1;
}

static void _gpt_sizes(size_t *s, int L, int C, int T)
{
	size_t l = (size_t)L, c = (size_t)C;
	s[WTE] = (size_t)V * c;
	s[WPE] = (size_t)T * c;
	s[LN1W] = s[LN1B] = s[LN2W] = s[LN2B] = l * c;
	s[QKVW] = l * 3 * c * c;
	s[QKVB] = l * 3 * c;
	s[ATTPROJW] = l * c * c;
	s[ATTPROJB] = l * c;
	s[FCW] = l * 4 * c * c;
	s[FCB] = l * 4 * c;
	s[FCPROJW] = l * c * 4 * c;
	s[FCPROJB] = l * c;
	s[LNFW] = s[LNFB] = c;
}

static const char *const _gpt_tensor_names[GPT_NTENSORS] = { "wte",     "wpe",     "ln1w",     "ln1b",
							     "qkvw",    "qkvb",    "attprojw", "attprojb",
							     "ln2w",    "ln2b",    "fcw",      "fcb",
							     "fcprojw", "fcprojb", "lnfw",     "lnfb" };

int workload_gpt_tensor(const nodeox_workload_t *w, const char *name, size_t *offset, size_t *count)
{
	const gpt_t *g = (const gpt_t *)w;
	for (int i = 0; i < GPT_NTENSORS; i++)
		if (strcmp(name, _gpt_tensor_names[i]) == 0) {
			*offset = g->offs[i];
			*count = g->sizes[i];
			return 0;
		}
	return -1;
}

/* Tensor i of a flat vector (params or grads). */
static float *_gpt_t(const gpt_t *g, float *base, int i)
{
	return base + g->offs[i];
}

/* ------------------------------------------------------------ model */

static void _gpt_linear(const gpt_t *g, float *out, const float *inp, const float *W, const float *b, int N,
			int IC, int OC)
{
	g->be->sgemm(0, 1, N, OC, IC, 1.0f, inp, W, 0.0f, out);
	g->be->bias_add(out, b, N, OC);
}

/* dW = dout^T inp, db = column sums of dout, dinp = dout W (overwrites). */
static void _gpt_linear_backward(const gpt_t *g, float *dinp, float *dW, float *db, const float *dout,
				 const float *inp, const float *W, int N, int IC, int OC)
{
	g->be->sgemm(1, 0, OC, IC, N, 1.0f, dout, inp, 0.0f, dW);
	g->be->bias_grad(db, dout, N, OC);
	g->be->sgemm(0, 0, N, IC, OC, 1.0f, dout, W, 0.0f, dinp);
}

/* Forward on the B windows in g->tokens / g->targets: per-prediction losses
 * in g->losses, probabilities in g->logits. */
static void _gpt_forward(gpt_t *g)
{
	const nodeox_backend_t *be = g->be;
	float *P = g->w.params;
	int L = g->L, C = g->C, NH = g->NH, T = g->T, B = g->B, BT = B * T;
	size_t btc = (size_t)BT * C, att_n = (size_t)B * NH * T * T;
	be->embed_forward(g->encoded, g->tokens, _gpt_t(g, P, WTE), _gpt_t(g, P, WPE), B, T, C);
	for (int l = 0; l < L; l++) {
		const float *residual = l ? g->residual3 + (l - 1) * btc : g->encoded;
		float *ln1 = g->ln1 + l * btc, *qkv = g->qkv + l * 3 * btc, *atty = g->atty + l * btc;
		float *preatt = g->preatt + l * att_n, *att = g->att + l * att_n;
		float *attproj = g->attproj + l * btc, *residual2 = g->residual2 + l * btc;
		float *ln2 = g->ln2 + l * btc, *fch = g->fch + l * 4 * btc;
		float *fch_gelu = g->fch_gelu + l * 4 * btc, *fcproj = g->fcproj + l * btc;
		float *residual3 = g->residual3 + l * btc;
		be->layernorm_forward(ln1, g->ln1_mean + l * BT, g->ln1_rstd + l * BT, residual,
				      _gpt_t(g, P, LN1W) + l * C, _gpt_t(g, P, LN1B) + l * C, BT, C);
		_gpt_linear(g, qkv, ln1, _gpt_t(g, P, QKVW) + (size_t)l * 3 * C * C,
			    _gpt_t(g, P, QKVB) + l * 3 * C, BT, C, 3 * C);
		be->attention_forward(atty, preatt, att, qkv, B, T, C, NH);
		_gpt_linear(g, attproj, atty, _gpt_t(g, P, ATTPROJW) + (size_t)l * C * C,
			    _gpt_t(g, P, ATTPROJB) + l * C, BT, C, C);
		be->residual_forward(residual2, residual, attproj, btc);
		be->layernorm_forward(ln2, g->ln2_mean + l * BT, g->ln2_rstd + l * BT, residual2,
				      _gpt_t(g, P, LN2W) + l * C, _gpt_t(g, P, LN2B) + l * C, BT, C);
		_gpt_linear(g, fch, ln2, _gpt_t(g, P, FCW) + (size_t)l * 4 * C * C,
			    _gpt_t(g, P, FCB) + l * 4 * C, BT, C, 4 * C);
		be->gelu_forward(fch_gelu, fch, 4 * btc);
		_gpt_linear(g, fcproj, fch_gelu, _gpt_t(g, P, FCPROJW) + (size_t)l * 4 * C * C,
			    _gpt_t(g, P, FCPROJB) + l * C, BT, 4 * C, C);
		be->residual_forward(residual3, residual2, fcproj, btc);
	}
	be->layernorm_forward(g->lnf, g->lnf_mean, g->lnf_rstd, g->residual3 + (L - 1) * btc,
			      _gpt_t(g, P, LNFW), _gpt_t(g, P, LNFB), BT, C);
	be->sgemm(0, 1, BT, V, C, 1.0f, g->lnf, _gpt_t(g, P, WTE), 0.0f, g->logits);
	be->softmax_xent_forward(g->logits, g->losses, g->logits, g->targets, BT, V);
}

static void _gpt_backward(gpt_t *g)
{
	const nodeox_backend_t *be = g->be;
	float *P = g->w.params, *G = g->w.grads;
	int L = g->L, C = g->C, NH = g->NH, T = g->T, B = g->B, BT = B * T;
	size_t btc = (size_t)BT * C, att_n = (size_t)B * NH * T * T;
	be->zero(G, g->w.nparams * sizeof(float));
	float *dlogits = g->logits;
	be->softmax_xent_backward(dlogits, g->logits, g->targets, BT, V, 1.0f / (float)BT);
	be->sgemm(1, 0, V, C, BT, 1.0f, dlogits, g->lnf, 0.0f, _gpt_t(g, G, WTE));
	be->sgemm(0, 0, BT, C, V, 1.0f, dlogits, _gpt_t(g, P, WTE), 0.0f, g->dln);
	be->zero(g->dresidual, btc * sizeof(float));
	be->layernorm_backward(g->dresidual, _gpt_t(g, G, LNFW), _gpt_t(g, G, LNFB), g->dln,
			       g->residual3 + (L - 1) * btc, _gpt_t(g, P, LNFW), g->lnf_mean, g->lnf_rstd, BT,
			       C);
	for (int l = L - 1; l >= 0; l--) {
		const float *residual = l ? g->residual3 + (l - 1) * btc : g->encoded;
		size_t w4 = (size_t)l * 4 * C * C, w3 = (size_t)l * 3 * C * C, w1 = (size_t)l * C * C;
		/* residual3 = residual2 + fcproj(gelu(fc(ln2(residual2)))) */
		_gpt_linear_backward(g, g->dfch, _gpt_t(g, G, FCPROJW) + w4, _gpt_t(g, G, FCPROJB) + l * C,
				     g->dresidual, g->fch_gelu + l * 4 * btc, _gpt_t(g, P, FCPROJW) + w4, BT,
				     4 * C, C);
		be->gelu_backward(g->dfch, g->fch + l * 4 * btc, g->dfch, 4 * btc);
		_gpt_linear_backward(g, g->dln, _gpt_t(g, G, FCW) + w4, _gpt_t(g, G, FCB) + l * 4 * C,
				     g->dfch, g->ln2 + l * btc, _gpt_t(g, P, FCW) + w4, BT, C, 4 * C);
		be->layernorm_backward(g->dresidual, _gpt_t(g, G, LN2W) + l * C, _gpt_t(g, G, LN2B) + l * C,
				       g->dln, g->residual2 + l * btc, _gpt_t(g, P, LN2W) + l * C,
				       g->ln2_mean + l * BT, g->ln2_rstd + l * BT, BT, C);
		/* residual2 = residual + attproj(attention(qkv(ln1(residual)))) */
		_gpt_linear_backward(g, g->datty, _gpt_t(g, G, ATTPROJW) + w1, _gpt_t(g, G, ATTPROJB) + l * C,
				     g->dresidual, g->atty + l * btc, _gpt_t(g, P, ATTPROJW) + w1, BT, C, C);
		be->zero(g->dqkv, 3 * btc * sizeof(float));
		be->attention_backward(g->dqkv, g->dpreatt, g->datt, g->datty, g->qkv + l * 3 * btc,
				       g->att + l * att_n, B, T, C, NH);
		_gpt_linear_backward(g, g->dln, _gpt_t(g, G, QKVW) + w3, _gpt_t(g, G, QKVB) + l * 3 * C,
				     g->dqkv, g->ln1 + l * btc, _gpt_t(g, P, QKVW) + w3, BT, C, 3 * C);
		be->layernorm_backward(g->dresidual, _gpt_t(g, G, LN1W) + l * C, _gpt_t(g, G, LN1B) + l * C,
				       g->dln, residual, _gpt_t(g, P, LN1W) + l * C, g->ln1_mean + l * BT,
				       g->ln1_rstd + l * BT, BT, C);
	}
	be->embed_backward(_gpt_t(g, G, WTE), _gpt_t(g, G, WPE), g->dresidual, g->tokens, B, T, C);
}

/* ------------------------------------------------------------ data */

/* Window start for training sample q of this worker. */
static size_t _gpt_sample_start(const gpt_t *g, uint64_t q)
{
	uint64_t s = g->seed ^ 0x243f6a8885a308d3ull;
	s = _gpt_splitmix(&s) ^ ((uint64_t)g->rank * 0x9e3779b97f4a7c15ull);
	s = _gpt_splitmix(&s) ^ (q * 0xd1b54a32d192ed03ull);
	return (size_t)(_gpt_splitmix(&s) % (uint64_t)(g->nshard - (size_t)g->T));
}

/* Copy `rows` windows (starts[r], T + 1 bytes of text) to the backend;
 * windows past `rows` repeat the last one (their losses are ignored). */
static void _gpt_load(gpt_t *g, const uint8_t *text, const size_t *starts, int rows)
{
	int T = g->T;
	for (int r = 0; r < g->B; r++) {
		const uint8_t *p = text + starts[r < rows ? r : rows - 1];
		for (int t = 0; t < T; t++) {
			g->host_tok[r * T + t] = p[t];
			g->host_tgt[r * T + t] = p[t + 1];
		}
	}
	g->be->copy_h2d(g->tokens, g->host_tok, (size_t)g->B * T * sizeof(int));
	g->be->copy_h2d(g->targets, g->host_tgt, (size_t)g->B * T * sizeof(int));
}

static float _gpt_train_batch(nodeox_workload_t *w)
{
	gpt_t *g = (gpt_t *)w;
	size_t starts[g->B];
	for (int r = 0; r < g->B; r++)
		starts[r] = _gpt_sample_start(g, g->pos + (uint64_t)r);
	g->pos += (uint64_t)g->B;
	_gpt_load(g, g->shard, starts, g->B);
	_gpt_forward(g);
	size_t BT = (size_t)g->B * g->T;
	g->be->copy_d2h(g->host_loss, g->losses, BT * sizeof(float));
	_gpt_backward(g);
	double sum = 0;
	for (size_t i = 0; i < BT; i++)
		sum += g->host_loss[i];
	return (float)(sum / (double)BT);
}

static void _gpt_eval_loss_sums(nodeox_workload_t *w, size_t first, size_t count, double *sums)
{
	gpt_t *g = (gpt_t *)w;
	size_t starts[g->B];
	for (size_t done = 0; done < count;) {
		int rows = (int)(count - done < (size_t)g->B ? count - done : (size_t)g->B);
		for (int r = 0; r < rows; r++)
			starts[r] = (first + done + (size_t)r) * (size_t)g->T;
		_gpt_load(g, g->val, starts, rows);
		_gpt_forward(g);
		g->be->copy_d2h(g->host_loss, g->losses, (size_t)rows * g->T * sizeof(float));
		for (int r = 0; r < rows; r++) {
			double s = 0;
			for (int t = 0; t < g->T; t++)
				s += g->host_loss[r * g->T + t];
			sums[done + (size_t)r] = s;
		}
		done += (size_t)rows;
	}
}

static double _gpt_evaluate(nodeox_workload_t *w)
{
	size_t n = w->eval_items;
	double *sums = malloc(n * sizeof(double)), total = 0;
	if (!sums)
		return NAN;
	_gpt_eval_loss_sums(w, 0, n, sums);
	for (size_t i = 0; i < n; i++)
		total += sums[i];
	free(sums);
	return total / ((double)n * w->eval_item_tokens);
}

static uint64_t _gpt_data_pos(nodeox_workload_t *w)
{
	return ((gpt_t *)w)->pos;
}

static void _gpt_data_seek(nodeox_workload_t *w, uint64_t pos)
{
	((gpt_t *)w)->pos = pos;
}

static void _gpt_destroy(nodeox_workload_t *w)
{
	gpt_t *g = (gpt_t *)w;
	if (!g)
		return;
	const nodeox_backend_t *be = g->be;
	float **bufs[] = { &g->w.params, &g->w.grads,   &g->encoded, &g->ln1,       &g->ln1_mean,
			   &g->ln1_rstd, &g->qkv,       &g->atty,    &g->preatt,    &g->att,
			   &g->attproj,  &g->residual2, &g->ln2,     &g->ln2_mean,  &g->ln2_rstd,
			   &g->fch,      &g->fch_gelu,  &g->fcproj,  &g->residual3, &g->lnf,
			   &g->lnf_mean, &g->lnf_rstd,  &g->logits,  &g->losses,    &g->dresidual,
			   &g->dln,      &g->dfch,      &g->dqkv,    &g->datty,     &g->dpreatt,
			   &g->datt,     &g->decay };
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
		be->free(*bufs[i]);
	be->free(g->tokens);
	be->free(g->targets);
	nodeox_free_all(g->shard, g->val, g->host_tok, g->host_tgt, g->host_loss, g);
}

static void _gpt_init_params(gpt_t *g, float *host)
{
	uint64_t s = g->seed;
	float proj_std = 0.02f / sqrtf(2.0f * (float)g->L);
	for (int i = 0; i < GPT_NTENSORS; i++) {
		float *p = host + g->offs[i];
		for (size_t k = 0; k < g->sizes[i]; k++) {
			switch (i) {
			case LN1W:
			case LN2W:
			case LNFW: p[k] = 1.0f; break;
			case LN1B:
			case LN2B:
			case LNFB:
			case QKVB:
			case ATTPROJB:
			case FCB:
			case FCPROJB: p[k] = 0.0f; break;
			case ATTPROJW:
			case FCPROJW: p[k] = (float)_gpt_normal(&s) * proj_std; break;
			default: p[k] = (float)_gpt_normal(&s) * 0.02f; break;
			}
		}
	}
}

/* AdamW's weight decay applies to the matrices only, as in nanoGPT (every
 * parameter tensor of two or more dimensions): the token table (also the
 * tied LM head), the position table, and the attention and MLP weights.
 * LayerNorm gains and biases and every bias vector are not decayed: pulling
 * a gain towards 0 rather than towards its initial 1 only fights the
 * normalization, and a bias is not a source of overfitting. */
static void _gpt_decay_mask(const gpt_t *g, float *host)
{
	for (int i = 0; i < GPT_NTENSORS; i++) {
		int matrix = i == WTE || i == WPE || i == QKVW || i == ATTPROJW || i == FCW || i == FCPROJW;
		for (size_t k = 0; k < g->sizes[i]; k++)
			host[g->offs[i] + k] = matrix ? 1.0f : 0.0f;
	}
}

/* Join the documents picked by keep(i) with a GPT_DOC_END after each. */
static uint8_t *_gpt_join(const data_text_t *d, int val, int rank, int world, size_t *len)
{
	size_t n = 0, j = 0;
	for (size_t i = 0; i < d->ndocs; i++) {
		if (data_text_is_validation(i) != val)
			continue;
		if (val || (j++ % (size_t)world) == (size_t)rank)
			n += d->docs[i].len + 1;
	}
	uint8_t *out = malloc(n ? n : 1), *p = out;
	if (!out)
		return NULL;
	j = 0;
	for (size_t i = 0; i < d->ndocs; i++) {
		if (data_text_is_validation(i) != val)
			continue;
		if (val || (j++ % (size_t)world) == (size_t)rank) {
			memcpy(p, d->text + d->docs[i].off, d->docs[i].len);
			p += d->docs[i].len;
			*p++ = GPT_DOC_END;
		}
	}
	*len = n;
	return out;
}

nodeox_workload_t *workload_gpt_create(const workload_gpt_opts_t *opts, int rank, int world,
				       const nodeox_backend_t *be, char *err, size_t errlen)
{
	workload_gpt_opts_t def;
	if (!opts) {
		workload_gpt_opts_default(&def);
		opts = &def;
	}
	if (world < 1 || rank < 0 || rank >= world) {
		snprintf(err, errlen, "GPT: rank %d of world %d is out of range", rank, world);
		return NULL;
	}
	if (opts->layers < 1 || opts->layers > 64 || opts->channels < 1 || opts->channels > 8192 ||
	    opts->heads < 1 || opts->channels % opts->heads != 0 || opts->context < 2 ||
	    opts->context > 4096 || opts->batch_size < 1 || opts->batch_size > 65536) {
		snprintf(err, errlen,
			 "GPT: layers %d (1..64), channels %d (1..8192, a multiple of heads), "
			 "heads %d, context %d (2..4096), batch %d (1..65536): out of range",
			 opts->layers, opts->channels, opts->heads, opts->context, opts->batch_size);
		return NULL;
	}
	data_text_t text;
	if (data_text_read(&text, opts->corpus, opts->max_docs, err, errlen) != 0)
		return NULL;
	gpt_t *g = calloc(1, sizeof(*g));
	if (!g) {
		data_text_free(&text);
		snprintf(err, errlen, "GPT: out of memory");
		return NULL;
	}
	g->be = be;
	g->L = opts->layers;
	g->C = opts->channels;
	g->NH = opts->heads;
	g->T = opts->context;
	g->B = opts->batch_size;
	g->seed = opts->seed;
	g->rank = rank;
	g->shard = _gpt_join(&text, 0, rank, world, &g->nshard);
	g->val = _gpt_join(&text, 1, rank, world, &g->nval);
	data_text_free(&text);
	if (!g->shard || !g->val)
		goto oom;
	if (g->nshard < (size_t)g->T + 2 || g->nval < (size_t)g->T + 1) {
		snprintf(err, errlen,
			 "GPT: corpus %s leaves rank %d of %d %zu training and %zu "
			 "validation bytes, fewer than a window of %d",
			 opts->corpus, rank, world, g->nshard, g->nval, g->T + 1);
		goto fail;
	}

	int L = g->L, C = g->C, T = g->T, B = g->B, NH = g->NH, BT = B * T;
	_gpt_sizes(g->sizes, L, C, T);
	size_t off = 0;
	for (int i = 0; i < GPT_NTENSORS; i++) {
		g->offs[i] = off;
		off += g->sizes[i];
	}
	g->w.nparams = off;
	size_t btc = (size_t)BT * C, att_n = (size_t)B * NH * T * T, l = (size_t)L;
	struct {
		float **p;
		size_t n;
	} want[] = {
		{ &g->w.params, off },
		{ &g->w.grads, off },
		{ &g->encoded, btc },
		{ &g->ln1, l * btc },
		{ &g->ln1_mean, l * BT },
		{ &g->ln1_rstd, l * BT },
		{ &g->qkv, l * 3 * btc },
		{ &g->atty, l * btc },
		{ &g->preatt, l * att_n },
		{ &g->att, l * att_n },
		{ &g->attproj, l * btc },
		{ &g->residual2, l * btc },
		{ &g->ln2, l * btc },
		{ &g->ln2_mean, l * BT },
		{ &g->ln2_rstd, l * BT },
		{ &g->fch, l * 4 * btc },
		{ &g->fch_gelu, l * 4 * btc },
		{ &g->fcproj, l * btc },
		{ &g->residual3, l * btc },
		{ &g->lnf, btc },
		{ &g->lnf_mean, (size_t)BT },
		{ &g->lnf_rstd, (size_t)BT },
		{ &g->logits, (size_t)BT * V },
		{ &g->losses, (size_t)BT },
		{ &g->dresidual, btc },
		{ &g->dln, btc },
		{ &g->dfch, 4 * btc },
		{ &g->dqkv, 3 * btc },
		{ &g->datty, btc },
		{ &g->dpreatt, att_n },
		{ &g->datt, att_n },
		{ &g->decay, off },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!(*want[i].p = be->alloc(want[i].n * sizeof(float))))
			goto oom;
	g->tokens = be->alloc((size_t)BT * sizeof(int));
	g->targets = be->alloc((size_t)BT * sizeof(int));
	g->host_tok = malloc((size_t)BT * sizeof(int));
	g->host_tgt = malloc((size_t)BT * sizeof(int));
	g->host_loss = malloc((size_t)BT * sizeof(float));
	float *host = malloc(off * sizeof(float));
	if (!g->tokens || !g->targets || !g->host_tok || !g->host_tgt || !g->host_loss || !host) {
		free(host);
		goto oom;
	}
	_gpt_init_params(g, host);
	be->copy_h2d(g->w.params, host, off * sizeof(float));
	_gpt_decay_mask(g, host);
	be->copy_h2d(g->decay, host, off * sizeof(float));
	free(host);
	g->w.decay_mask = g->decay;

	snprintf(g->name, sizeof(g->name), "gpt-L%d-C%d-H%d-T%d", L, C, NH, T);
	g->w.name = g->name;
	g->w.be = be;
	g->w.batch_size = B;
	g->w.shard_samples = g->nshard / (size_t)T;
	g->w.train_batch = _gpt_train_batch;
	g->w.evaluate = _gpt_evaluate;
	g->w.data_pos = _gpt_data_pos;
	g->w.data_seek = _gpt_data_seek;
	g->w.destroy = _gpt_destroy;
	g->w.metric = "loss";
	g->w.metric_lower_is_better = 1;
	g->w.eval_items = (g->nval - 1) / (size_t)T;
	if (opts->max_eval_items > 0 && g->w.eval_items > opts->max_eval_items)
		g->w.eval_items = opts->max_eval_items;
	g->w.eval_item_tokens = T;
	g->w.eval_loss_sums = _gpt_eval_loss_sums;
	g->w.impl = g;
	return &g->w;

oom:
	snprintf(err, errlen, "GPT: out of memory on the %s backend", be->name);
fail:
	_gpt_destroy(&g->w);
	return NULL;
}
