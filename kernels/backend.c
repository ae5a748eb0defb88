/*
 * backend.c: choosing a backend by name, and the stand-in for backend_cuda
 * in builds without CUDA (the real one is in backend_cuda.cu), so callers
 * need no #ifdef: they get NULL and a message saying why.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "kernels/backend.h"

#ifndef HAVE_CUDA
const nodeox_backend_t *backend_cuda(int device, char *err, size_t errlen)
{
	snprintf(err, errlen, "nodeox was built without CUDA (configure found no nvcc/cuBLAS)");
	return NULL;
}
#endif

const nodeox_backend_t *backend_by_name(const char *name, int device, char *err, size_t errlen)
{
	if (name && strcmp(name, "cpu") == 0)
		return backend_cpu();
	if (name && strcmp(name, "cuda") == 0)
		return backend_cuda(device, err, errlen);
	snprintf(err, errlen, "unknown backend '%s' (expected cpu or cuda)", name ? name : "(null)");
	return NULL;
}
