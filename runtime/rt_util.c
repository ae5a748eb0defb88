/*
 * rt_util.c: the few helpers every runtime file may call and that call
 * nothing of the runtime: the name messages start with (nodeox-run, or the
 * API that drives the engine: "nodeox.torch"), dying with a message naming
 * the rank, a message line written in one write(2) (ranks share stderr: a
 * line in pieces would interleave with another rank's), the monotonic clock,
 * and the FNV-1a checksum of checkpoints and model files.
 * Calls run one way (rt_engine.c, then rt_loop.c, then rt_rounds.c or
 * rt_sync.c, then the layers below); these sit at the bottom.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/rt_internal.h"

/* One engine per process: its messages say who speaks, set once at init. */
static const char *util_name = "nodeox-run";

void rt_util_set_name(const char *api)
{
	util_name = api ? api : "nodeox-run";
}

const char *rt_util_name(void)
{
	return util_name;
}

void rt_util_say(int rank, const char *fmt, ...)
{
	char line[8192];
	int k = rank >= 0 ? snprintf(line, sizeof line, "%s: rank %d: ", util_name, rank)
			  : snprintf(line, sizeof line, "%s: ", util_name);
	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(line + k, sizeof line - (size_t)k, fmt, ap);
	va_end(ap);
	size_t len = (size_t)k + (m < 0 ? 0 : (size_t)m);
	if (len > sizeof line - 2) /* cut: keep the newline */
		len = sizeof line - 2;
	line[len++] = '\n';
	fflush(stderr); /* what stdio holds goes first */
	for (size_t off = 0; off < len;) {
		ssize_t w = write(STDERR_FILENO, line + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		off += (size_t)w;
	}
}

void rt_util_die(const nodeox_rt_t *rt, int code, const char *msg)
{
	rt_util_say(rt ? rt->env.rank : -1, "%s", msg);
	exit(code);
}

double rt_util_clock_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t rt_util_fnv(uint64_t h, const void *p, size_t bytes)
{
	const unsigned char *b = p;
	if (h == 0)
		h = 1469598103934665603ULL;
	for (size_t i = 0; i < bytes; i++) {
		h ^= b[i];
		h *= 1099511628211ULL;
	}
	return h;
}
