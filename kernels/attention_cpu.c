/*
 * attention_cpu.c: causal multi-head self-attention, C reference (the
 * loops of llm.c's attention_forward/backward).
 *
 * qkv holds, for each of B x T positions, the query, key and value (C
 * floats each, heads of hs = C / NH side by side).  For head h at position
 * t: preatt[t2] = q_t . k_t2 / sqrt(hs) for t2 <= t, att = softmax of that
 * row (the max subtracted), out_t = sum_t2 att[t2] v_t2.  Entries t2 > t of
 * preatt and att are written as 0, so the arrays hold no stale values.
 */
#include <math.h>

#include "kernels/kernels.h"

void attention_forward_cpu(float *out, float *preatt, float *att, const float *qkv, int B, int T, int C,
			   int NH)
{
	int hs = C / NH, C3 = 3 * C;
	float scale = 1.0f / sqrtf((float)hs);
	for (int b = 0; b < B; b++)
		for (int t = 0; t < T; t++)
			for (int h = 0; h < NH; h++) {
				const float *q = qkv + ((size_t)b * T + t) * C3 + h * hs;
				float *pre = preatt + (((size_t)b * NH + h) * T + t) * T;
				float *a = att + (((size_t)b * NH + h) * T + t) * T;
				float mx = -INFINITY;
				for (int t2 = 0; t2 <= t; t2++) {
					const float *k = qkv + ((size_t)b * T + t2) * C3 + C + h * hs;
					float dot = 0.0f;
					for (int i = 0; i < hs; i++)
						dot += q[i] * k[i];
					dot *= scale;
					pre[t2] = dot;
					if (dot > mx)
						mx = dot;
				}
				float sum = 0.0f;
				for (int t2 = 0; t2 <= t; t2++) {
					float e = expf(pre[t2] - mx);
					a[t2] = e;
					sum += e;
				}
				float inv = 1.0f / sum;
				for (int t2 = 0; t2 < T; t2++) {
					if (t2 <= t) {
						a[t2] *= inv;
					} else {
						a[t2] = 0.0f;
						pre[t2] = 0.0f;
					}
				}
				float *o = out + ((size_t)b * T + t) * C + h * hs;
				for (int i = 0; i < hs; i++)
					o[i] = 0.0f;
				for (int t2 = 0; t2 <= t; t2++) {
					const float *v = qkv + ((size_t)b * T + t2) * C3 + 2 * C + h * hs;
					for (int i = 0; i < hs; i++)
						o[i] += a[t2] * v[i];
				}
			}
}

void attention_backward_cpu(float *dqkv, float *dpreatt, float *datt, const float *dout, const float *qkv,
			    const float *att, int B, int T, int C, int NH)
{
	int hs = C / NH, C3 = 3 * C;
	float scale = 1.0f / sqrtf((float)hs);
	for (int b = 0; b < B; b++)
		for (int t = 0; t < T; t++)
			for (int h = 0; h < NH; h++) {
				const float *a = att + (((size_t)b * NH + h) * T + t) * T;
				float *da = datt + (((size_t)b * NH + h) * T + t) * T;
				float *dpre = dpreatt + (((size_t)b * NH + h) * T + t) * T;
				const float *d = dout + ((size_t)b * T + t) * C + h * hs;
				const float *q = qkv + ((size_t)b * T + t) * C3 + h * hs;
				float *dq = dqkv + ((size_t)b * T + t) * C3 + h * hs;
				/* out = att . v */
				for (int t2 = 0; t2 <= t; t2++) {
					const float *v = qkv + ((size_t)b * T + t2) * C3 + 2 * C + h * hs;
					float *dv = dqkv + ((size_t)b * T + t2) * C3 + 2 * C + h * hs;
					float s = 0.0f;
					for (int i = 0; i < hs; i++) {
						s += v[i] * d[i];
						dv[i] += a[t2] * d[i];
					}
					da[t2] = s;
				}
				/* softmax: dpre_j = a_j (da_j - sum_i a_i da_i) */
				float dot = 0.0f;
				for (int t2 = 0; t2 <= t; t2++)
					dot += a[t2] * da[t2];
				for (int t2 = 0; t2 < T; t2++) {
					if (t2 <= t) {
						dpre[t2] = a[t2] * (da[t2] - dot);
					} else {
						dpre[t2] = 0.0f;
						da[t2] = 0.0f;
					}
				}
				/* preatt = q . k * scale */
				for (int t2 = 0; t2 <= t; t2++) {
					const float *k = qkv + ((size_t)b * T + t2) * C3 + C + h * hs;
					float *dk = dqkv + ((size_t)b * T + t2) * C3 + C + h * hs;
					float g = dpre[t2] * scale;
					for (int i = 0; i < hs; i++) {
						dq[i] += k[i] * g;
						dk[i] += q[i] * g;
					}
				}
			}
}
