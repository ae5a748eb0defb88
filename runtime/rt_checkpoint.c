/*
 * rt_checkpoint.c: checkpoints every K rounds and --resume.
 *
 * Each rank writes its own file DIR/rank-R.round-N.ckpt, because inner
 * optimizer state and data position differ per worker (global weights and
 * outer momentum are equal everywhere, and cheap to repeat). A file is
 * written as .tmp, fsync'd and renamed, so it is either complete or absent.
 * After every rank has renamed its file (barrier), rank 0 writes DIR/latest
 * ("N\n", again tmp + rename): a checkpoint counts only once latest names
 * it, so a job killed mid-write resumes from the one before. Each rank
 * keeps its last two files.
 *
 * Contents (native byte order; the magic catches a foreign file): header
 * with counters (round, global step, this worker's steps, AdamW step,
 * dropped count, train time, time to target, bytes communicated), data
 * position, every worker's step count and last step time (so the next
 * round is planned exactly as it would have been), then theta, outer
 * momentum, inner momentum and (AdamW) second moment; an FNV-1a checksum of
 * everything before it ends the file. The workload's shuffle order is a
 * function of (seed, rank, epoch), so the data position restores the RNG.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/rt_internal.h"

#define CKPT_MAGIC "NDXCKPT1"

typedef struct ckpt_header {
	char magic[8];
	uint32_t version, rank, world, mode, inner, pad;
	uint64_t nparams, data_pos;
	int64_t round, global_step, local_steps_total, adam_t, dropped;
	double train_s, time_to_target_s, last_metric, longest_round_s, bytes;
	double critical_s, critical_to_target_s;
} ckpt_header_t;

static void _ckpt_die(const nodeox_rt_t *rt, const char *path, const char *what)
{
	int e = errno;
	rt_util_say(rt->env.rank, "checkpoint %s: %s%s%s", path, what, e ? ": " : "", e ? strerror(e) : "");
	exit(NODEOX_RT_EXIT_CHECKPOINT);
}

/* fwrite that also folds the bytes into the checksum. */
static void _ckpt_put(const nodeox_rt_t *rt, FILE *f, const char *path, uint64_t *h, const void *p,
		      size_t bytes)
{
	errno = 0;
	if (fwrite(p, 1, bytes, f) != bytes)
		_ckpt_die(rt, path, "write failed");
	*h = rt_util_fnv(*h, p, bytes);
}

static void _ckpt_get(const nodeox_rt_t *rt, FILE *f, const char *path, uint64_t *h, void *p, size_t bytes)
{
	errno = 0;
	if (fread(p, 1, bytes, f) != bytes)
		_ckpt_die(rt, path, "truncated");
	*h = rt_util_fnv(*h, p, bytes);
}

/* Backend vector through a host buffer. */
static void _ckpt_put_vec(const nodeox_rt_t *rt, FILE *f, const char *path, uint64_t *h, const float *v,
			  float *host)
{
	rt->be->copy_d2h(host, v, rt->n * sizeof(float));
	_ckpt_put(rt, f, path, h, host, rt->n * sizeof(float));
}

static void _ckpt_get_vec(const nodeox_rt_t *rt, FILE *f, const char *path, uint64_t *h, float *v,
			  float *host)
{
	_ckpt_get(rt, f, path, h, host, rt->n * sizeof(float));
	rt->be->copy_h2d(v, host, rt->n * sizeof(float));
}

static void _ckpt_path(char *buf, size_t len, const char *dir, int rank, long round)
{
	snprintf(buf, len, "%s/rank-%d.round-%ld.ckpt", dir, rank, round);
}

/* Write text to path atomically. */
static int _ckpt_write_atomic_text(const char *path, const char *text)
{
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (f == NULL)
		return -1;
	int ok = fputs(text, f) >= 0 && fflush(f) == 0 && fsync(fileno(f)) == 0;
	if (fclose(f) != 0)
		ok = 0;
	if (!ok || rename(tmp, path) != 0)
		return -1;
	return 0;
}

void rt_checkpoint_save(nodeox_rt_t *rt, nodeox_workload_t *w)
{
	const char *dir = rt->cfg.checkpoint_dir;
	char path[4096], tmp[4200];
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		_ckpt_die(rt, dir, "cannot create directory");
	_ckpt_path(path, sizeof path, dir, rt->env.rank, rt->round);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);

	float *host = malloc(rt->n * sizeof(float));
	if (host == NULL)
		_ckpt_die(rt, path, "out of memory");
	FILE *f = fopen(tmp, "wb");
	if (f == NULL)
		_ckpt_die(rt, tmp, "cannot create");
	ckpt_header_t hd;
	memset(&hd, 0, sizeof hd);
	memcpy(hd.magic, CKPT_MAGIC, 8);
	hd.version = 2;
	hd.rank = (uint32_t)rt->env.rank;
	hd.world = (uint32_t)rt->env.world;
	hd.mode = (uint32_t)rt->cfg.mode;
	hd.inner = (uint32_t)rt->cfg.inner;
	hd.nparams = rt->n;
	hd.data_pos = w->data_pos(w);
	hd.round = rt->round;
	hd.global_step = rt->global_step;
	hd.local_steps_total = rt->local_steps_total;
	hd.adam_t = rt->adam_t;
	hd.dropped = rt->dropped;
	hd.train_s = rt->train_s;
	hd.time_to_target_s = rt->time_to_target_s;
	hd.critical_s = rt->critical_s;
	hd.critical_to_target_s = rt->critical_to_target_s;
	hd.last_metric = rt->last_metric;
	hd.longest_round_s = rt->longest_round_s;
	hd.bytes = rt_comm_bytes(rt->comm);
	uint64_t h = 0;
	size_t world = (size_t)rt->env.world;
	_ckpt_put(rt, f, tmp, &h, &hd, sizeof hd);
	_ckpt_put(rt, f, tmp, &h, rt->steps_per_worker, world * sizeof rt->steps_per_worker[0]);
	_ckpt_put(rt, f, tmp, &h, rt->last_step_ms, world * sizeof rt->last_step_ms[0]);
	_ckpt_put_vec(rt, f, tmp, &h, rt->global, host);
	_ckpt_put_vec(rt, f, tmp, &h, rt->outer_m, host);
	_ckpt_put_vec(rt, f, tmp, &h, rt->inner_m, host);
	if (rt->inner_v)
		_ckpt_put_vec(rt, f, tmp, &h, rt->inner_v, host);
	errno = 0;
	if (fwrite(&h, sizeof h, 1, f) != 1 || fflush(f) != 0 || fsync(fileno(f)) != 0)
		_ckpt_die(rt, tmp, "write failed");
	if (fclose(f) != 0)
		_ckpt_die(rt, tmp, "close failed");
	free(host);
	if (rename(tmp, path) != 0)
		_ckpt_die(rt, path, "rename failed");

	rt_comm_barrier(rt->comm, __FILE__, __LINE__); /* every rank's file is in place */
	if (rt->env.rank == 0) {
		char latest[4096], text[64];
		snprintf(latest, sizeof latest, "%s/latest", dir);
		snprintf(text, sizeof text, "%ld\n", rt->round);
		if (_ckpt_write_atomic_text(latest, text) != 0)
			_ckpt_die(rt, latest, "cannot write");
	}
	/* The file before the previous one is no longer referenced by latest. */
	if (rt->ckpt_prev[1] > 0) {
		_ckpt_path(path, sizeof path, dir, rt->env.rank, rt->ckpt_prev[1]);
		unlink(path);
	}
	rt->ckpt_prev[1] = rt->ckpt_prev[0];
	rt->ckpt_prev[0] = rt->round;
}

/* Read and check this rank's file for round; 0, or -1 after printing why. */
static int _ckpt_read(nodeox_rt_t *rt, nodeox_workload_t *w, long round)
{
	char path[4096];
	_ckpt_path(path, sizeof path, rt->cfg.checkpoint_dir, rt->env.rank, round);
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		_ckpt_die(rt, path, "cannot open (DIR/latest names it)");
	ckpt_header_t hd;
	uint64_t h = 0, stored;
	size_t world = (size_t)rt->env.world;
	_ckpt_get(rt, f, path, &h, &hd, sizeof hd);
	const char *bad = NULL;
	if (memcmp(hd.magic, CKPT_MAGIC, 8) != 0 || hd.version != 2)
		bad = "not a nodeox checkpoint (magic/version)";
	else if (hd.rank != (uint32_t)rt->env.rank)
		bad = "written by another rank";
	else if (hd.world != (uint32_t)rt->env.world)
		bad = "written by a job with another number of ranks";
	else if (hd.nparams != rt->n)
		bad = "written for a model with another number of parameters";
	else if (hd.mode != (uint32_t)rt->cfg.mode)
		bad = rt->cfg.api ? "written in the other mode (mode=\"rounds\" or \"sync\")"
				  : "written in the other --mode";
	else if (hd.inner != (uint32_t)rt->cfg.inner)
		bad = "written with the other --inner optimizer";
	if (bad) {
		errno = 0;
		_ckpt_die(rt, path, bad);
	}
	float *host = malloc(rt->n * sizeof(float));
	if (host == NULL)
		_ckpt_die(rt, path, "out of memory");
	_ckpt_get(rt, f, path, &h, rt->steps_per_worker, world * sizeof rt->steps_per_worker[0]);
	_ckpt_get(rt, f, path, &h, rt->last_step_ms, world * sizeof rt->last_step_ms[0]);
	_ckpt_get_vec(rt, f, path, &h, rt->global, host);
	_ckpt_get_vec(rt, f, path, &h, rt->outer_m, host);
	_ckpt_get_vec(rt, f, path, &h, rt->inner_m, host);
	if (rt->inner_v)
		_ckpt_get_vec(rt, f, path, &h, rt->inner_v, host);
	free(host);
	errno = 0;
	if (fread(&stored, sizeof stored, 1, f) != 1)
		_ckpt_die(rt, path, "truncated (no checksum)");
	if (stored != h)
		_ckpt_die(rt, path, "checksum mismatch (corrupt file)");
	fclose(f);
	rt->be->copy_d2d(w->params, rt->global, rt->n * sizeof(float));
	w->data_seek(w, hd.data_pos);
	rt->round = hd.round;
	rt->global_step = hd.global_step;
	rt->local_steps_total = hd.local_steps_total;
	rt->adam_t = hd.adam_t;
	rt->dropped = hd.dropped;
	rt->train_s = hd.train_s;
	rt->time_to_target_s = hd.time_to_target_s;
	rt->critical_s = hd.critical_s;
	rt->critical_to_target_s = hd.critical_to_target_s;
	rt->last_metric = hd.last_metric;
	rt->longest_round_s = hd.longest_round_s;
	rt_fault_observe_round(hd.longest_round_s);
	rt_comm_set_bytes(rt->comm, hd.bytes);
	rt->ckpt_prev[0] = round;
	return 0;
}

int rt_checkpoint_load(nodeox_rt_t *rt, nodeox_workload_t *w)
{
	long round = -1;
	if (rt->env.rank == 0) {
		char latest[4096];
		snprintf(latest, sizeof latest, "%s/latest", rt->cfg.checkpoint_dir);
		FILE *f = fopen(latest, "r");
		if (f != NULL) {
			if (fscanf(f, "%ld", &round) != 1 || round < 1) {
				errno = 0;
				_ckpt_die(rt, latest, "does not hold a round number");
			}
			fclose(f);
		} else {
			printf("%s: %s: no checkpoint in %s yet; starting from scratch\n", rt_util_name(),
			       rt->cfg.api ? "resume=True" : "--resume", rt->cfg.checkpoint_dir);
		}
	}
	rt_comm_bcast(rt->comm, &round, sizeof round, 0, __FILE__, __LINE__);
	if (round < 0)
		return 0;
	_ckpt_read(rt, w, round);
	return 1;
}
