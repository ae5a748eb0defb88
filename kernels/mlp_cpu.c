/*
 * mlp_cpu.c: C references of the MLP's element-wise kernels: bias add and
 * its gradient (column sums), ReLU forward and backward.  CUDA twins in
 * mlp_cuda.cu.
 */
#include "kernels/kernels.h"

void mlp_bias_add_cpu(float *y, const float *b, int rows, int cols)
{
	for (int r = 0; r < rows; r++) {
		float *yr = y + (size_t)r * cols;
		for (int c = 0; c < cols; c++)
			yr[c] += b[c];
	}
}

void mlp_bias_grad_cpu(float *db, const float *dy, int rows, int cols)
{
	for (int c = 0; c < cols; c++)
		db[c] = 0.0f;
	for (int r = 0; r < rows; r++) {
		const float *dr = dy + (size_t)r * cols;
		for (int c = 0; c < cols; c++)
			db[c] += dr[c];
	}
}

void mlp_relu_forward_cpu(float *y, const float *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void mlp_relu_backward_cpu(float *dx, const float *dy, const float *y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dx[i] = y[i] > 0.0f ? dy[i] : 0.0f;
}
