/*
 * loss_cpu.c: C references of softmax cross-entropy (forward: probabilities
 * and per-row losses; backward: gradient w.r.t. the logits) and of the
 * argmax accuracy count.  CUDA twins in loss_cuda.cu.
 */
#include <math.h>

#include "kernels/kernels.h"

void loss_softmax_xent_forward_cpu(float *probs, float *losses, const float *logits, const int *labels, int B,
				   int C)
{
	for (int b = 0; b < B; b++) {
		const float *z = logits + (size_t)b * C;
		float *p = probs + (size_t)b * C;
		float mx = z[0];
		for (int c = 1; c < C; c++)
			mx = z[c] > mx ? z[c] : mx;
		float zl = z[labels[b]] - mx; /* read before p may overwrite z */
		float sum = 0.0f;
		for (int c = 0; c < C; c++) {
			p[c] = expf(z[c] - mx);
			sum += p[c];
		}
		float inv = 1.0f / sum;
		for (int c = 0; c < C; c++)
			p[c] *= inv;
		losses[b] = logf(sum) - zl; /* -log softmax, without log(0) */
	}
}

void loss_softmax_xent_backward_cpu(float *dlogits, const float *probs, const int *labels, int B, int C,
				    float scale)
{
	for (int b = 0; b < B; b++) {
		const float *p = probs + (size_t)b * C;
		float *d = dlogits + (size_t)b * C;
		for (int c = 0; c < C; c++)
			d[c] = scale * (p[c] - (c == labels[b] ? 1.0f : 0.0f));
	}
}

int loss_argmax_correct_cpu(const float *logits, const int *labels, int B, int C)
{
	int correct = 0;
	for (int b = 0; b < B; b++) {
		const float *z = logits + (size_t)b * C;
		int best = 0;
		for (int c = 1; c < C; c++)
			if (z[c] > z[best])
				best = c;
		correct += best == labels[b];
	}
	return correct;
}
