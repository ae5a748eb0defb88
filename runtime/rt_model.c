/*
 * rt_model.c: model files, the global weights alone (--save-model FILE at
 * the end of a run, --init-model FILE at the start of the next), which is
 * how a pretrained transformer reaches fine-tuning and evaluation.  Unlike
 * a checkpoint (rt_checkpoint.c) it carries no optimizer state, counters or
 * data position: fine-tuning is a new run that starts from these weights.
 *
 * Format (native byte order): "NDXMODL1", the workload's name (64 bytes,
 * NUL-padded, e.g. gpt-L2-C64-H4-T64: a file for another shape is refused
 * by name before its size is looked at), nparams (uint64), the floats, and
 * an FNV-1a checksum of everything before it.  Written as .tmp, fsync'd and
 * renamed by rank 0; read by every rank (a shared or copied file).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/rt_internal.h"

#define MODEL_MAGIC "NDXMODL1"
#define MODEL_NAME_LEN 64

static void _model_die(const nodeox_rt_t *rt, const char *path, const char *what)
{
	char msg[4600];
	int e = errno;
	snprintf(msg, sizeof msg, "model file %s: %s%s%s", path, what, e ? ": " : "", e ? strerror(e) : "");
	rt_util_die(rt, NODEOX_RT_EXIT_CHECKPOINT, msg);
}

void rt_model_save(nodeox_rt_t *rt, nodeox_workload_t *w, const char *path)
{
	if (rt->env.rank != 0)
		return;
	char tmp[4200], name[MODEL_NAME_LEN] = { 0 };
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	snprintf(name, sizeof name, "%s", w->name);
	uint64_t n = rt->n, h = 0;
	float *host = malloc(rt->n * sizeof(float));
	errno = 0;
	if (host == NULL)
		_model_die(rt, path, "out of memory");
	rt->be->copy_d2h(host, rt->global, rt->n * sizeof(float));
	FILE *f = fopen(tmp, "wb");
	if (f == NULL)
		_model_die(rt, tmp, "cannot create");
	h = rt_util_fnv(h, MODEL_MAGIC, 8);
	h = rt_util_fnv(h, name, sizeof name);
	h = rt_util_fnv(h, &n, sizeof n);
	h = rt_util_fnv(h, host, rt->n * sizeof(float));
	int ok = fwrite(MODEL_MAGIC, 1, 8, f) == 8 && fwrite(name, 1, sizeof name, f) == sizeof name &&
		 fwrite(&n, sizeof n, 1, f) == 1 && fwrite(host, sizeof(float), rt->n, f) == rt->n &&
		 fwrite(&h, sizeof h, 1, f) == 1 && fflush(f) == 0 && fsync(fileno(f)) == 0;
	if (fclose(f) != 0)
		ok = 0;
	free(host);
	if (!ok)
		_model_die(rt, tmp, "write failed");
	if (rename(tmp, path) != 0)
		_model_die(rt, path, "cannot rename the .tmp file into place");
	if (!rt->cfg.quiet)
		printf("nodeox-run: saved %s (%zu parameters) to %s\n", w->name, rt->n, path);
}

void rt_model_load(nodeox_rt_t *rt, nodeox_workload_t *w, const char *path)
{
	char magic[8], name[MODEL_NAME_LEN], want[MODEL_NAME_LEN] = { 0 }, msg[512];
	uint64_t n, h = 0, stored;
	errno = 0;
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		_model_die(rt, path, "cannot open");
	if (fread(magic, 1, 8, f) != 8 || memcmp(magic, MODEL_MAGIC, 8) != 0)
		_model_die(rt, path, "not a nodeox model file (no " MODEL_MAGIC " at the start)");
	if (fread(name, 1, sizeof name, f) != sizeof name || fread(&n, sizeof n, 1, f) != 1)
		_model_die(rt, path, "truncated header");
	name[MODEL_NAME_LEN - 1] = '\0';
	snprintf(want, sizeof want, "%s", w->name);
	if (strcmp(name, want) != 0 || n != (uint64_t)w->nparams) {
		snprintf(msg, sizeof msg,
			 "holds %s (%llu parameters) but this run builds %s (%zu): use the "
			 "same --layers/--channels/--heads/--context",
			 name, (unsigned long long)n, want, w->nparams);
		errno = 0;
		_model_die(rt, path, msg);
	}
	float *host = malloc(w->nparams * sizeof(float));
	if (host == NULL)
		_model_die(rt, path, "out of memory");
	if (fread(host, sizeof(float), w->nparams, f) != w->nparams ||
	    fread(&stored, sizeof stored, 1, f) != 1)
		_model_die(rt, path, "truncated");
	fclose(f);
	h = rt_util_fnv(h, MODEL_MAGIC, 8);
	h = rt_util_fnv(h, name, sizeof name);
	h = rt_util_fnv(h, &n, sizeof n);
	h = rt_util_fnv(h, host, w->nparams * sizeof(float));
	errno = 0;
	if (h != stored)
		_model_die(rt, path, "checksum mismatch (corrupt file)");
	rt->be->copy_h2d(w->params, host, w->nparams * sizeof(float));
	free(host);
	if (rt->env.rank == 0 && !rt->cfg.quiet)
		printf("nodeox-run: loaded %s from %s\n", w->name, path);
}
