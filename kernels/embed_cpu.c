/*
 * embed_cpu.c: the transformer's input layer, C reference: a token
 * embedding row plus a position embedding row for each of B x T tokens
 * (llm.c's encoder_forward/backward).  The backward pass accumulates, since
 * the token table also receives the LM head's gradient (tied weights).
 */
#include "kernels/kernels.h"

void embed_forward_cpu(float *out, const int *tokens, const float *wte, const float *wpe, int B, int T, int C)
{
	for (int b = 0; b < B; b++)
		for (int t = 0; t < T; t++) {
			float *o = out + ((size_t)b * T + t) * C;
			const float *te = wte + (size_t)tokens[b * T + t] * C;
			const float *pe = wpe + (size_t)t * C;
			for (int c = 0; c < C; c++)
				o[c] = te[c] + pe[c];
		}
}

void embed_backward_cpu(float *dwte, float *dwpe, const float *dout, const int *tokens, int B, int T, int C)
{
	for (int b = 0; b < B; b++)
		for (int t = 0; t < T; t++) {
			const float *d = dout + ((size_t)b * T + t) * C;
			float *dte = dwte + (size_t)tokens[b * T + t] * C;
			float *dpe = dwpe + (size_t)t * C;
			for (int c = 0; c < C; c++) {
				dte[c] += d[c];
				dpe[c] += d[c];
			}
		}
}
