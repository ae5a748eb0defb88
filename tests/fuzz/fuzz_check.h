/*
 * fuzz_check.h: invariants the fuzz targets check on every result (header
 * only, shared by fuzz_tag.c and fuzz_conf.c): strings end inside their
 * fields and messages are one printable line. A violation aborts, which
 * libFuzzer and the replay driver report as a crash.
 */
#ifndef NODEOX_FUZZ_CHECK_H
#define NODEOX_FUZZ_CHECK_H

#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"

static inline void fuzz_check_line(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap), i;

	if (n == cap)
		abort();
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			abort();
}

static inline void fuzz_check_decision(const nodeox_decision_t *d)
{
	const char *fields[] = { d->tres_per_job, d->tres_per_node, d->tres_per_task, d->tres_per_socket,
				 d->features,     d->prefer,        d->admin_comment };
	size_t i;

	if (d->action > NODEOX_REJECT || d->neligible < 0 || d->neligible > NODEOX_MAX_TYPES ||
	    d->run_time_factor < 1.0)
		abort();
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (strnlen(fields[i], NODEOX_STR_MAX) == NODEOX_STR_MAX)
			abort();
	if (strnlen(d->reason, NODEOX_ERR_MAX) == NODEOX_ERR_MAX || strchr(d->reason, '\n'))
		abort();
	if (d->action == NODEOX_REWRITE && (!d->features_set || d->neligible < 1))
		abort();
}

#endif
