/*
 * slurm_time.h: Slurm's time strings, one parser for the trace reader
 * (sim/model/trace.c: time_limit and run_time columns, slurm.conf's MaxTime and
 * DefaultTime) and the sacct importer (sim/sacct/sacct_import.c: Timelimit).
 * Header only, with no glib, since the importer is also built alone (its
 * fuzz target). Accepted: [D-]HH:MM:SS, D-HH, D-HH:MM, MM:SS, a bare number
 * (in units of `bare_unit` seconds: 1 in a trace, 60 in slurm.conf and
 * sacct, where Slurm reads minutes), and UNLIMITED, INFINITE,
 * Partition_Limit or an empty string for no limit. Minutes and seconds after
 * a colon must be below 60; no spaces (the trace reader trims its fields).
 * 0 stays 0: what it means (sacct: no limit) is the caller's to say.
 */
#ifndef NODEOX_SLURM_TIME_H
#define NODEOX_SLURM_TIME_H

#include <ctype.h>
#include <stdint.h>
#include <strings.h>

#define SLURM_TIME_NONE INT64_MAX /* no limit */

/* Parse s into seconds (SLURM_TIME_NONE for no limit). Returns 0, or -1 when
 * s is not a Slurm time. */
static inline int slurm_time_parse(const char *s, int64_t bare_unit, int64_t *out)
{
	if (!s)
		return -1;
	if (!*s || !strcasecmp(s, "UNLIMITED") || !strcasecmp(s, "INFINITE") ||
	    !strcasecmp(s, "Partition_Limit")) {
		*out = SLURM_TIME_NONE;
		return 0;
	}
	int64_t v[3], days = -1;
	int nv = 0;
	const char *p = s;
	for (;;) {
		if (!isdigit((unsigned char)*p))
			return -1;
		int64_t x = 0;
		while (isdigit((unsigned char)*p)) {
			x = x * 10 + (*p++ - '0');
			if (x > 100000000)
				return -1;
		}
		if (*p == '-') {
			if (days >= 0 || nv > 0)
				return -1;
			days = x;
			p++;
			continue;
		}
		if (nv == 3)
			return -1;
		v[nv++] = x;
		if (*p == ':') {
			p++;
			continue;
		}
		break;
	}
	if (*p)
		return -1;
	if (days >= 0) { /* D-HH, D-HH:MM, D-HH:MM:SS */
		int64_t hh = v[0], mm = nv > 1 ? v[1] : 0, ss = nv > 2 ? v[2] : 0;
		if (mm > 59 || ss > 59)
			return -1;
		*out = days * 86400 + hh * 3600 + mm * 60 + ss;
	} else if (nv == 1) {
		*out = v[0] * bare_unit;
	} else if (nv == 2) { /* MM:SS */
		if (v[1] > 59)
			return -1;
		*out = v[0] * 60 + v[1];
	} else { /* HH:MM:SS */
		if (v[1] > 59 || v[2] > 59)
			return -1;
		*out = v[0] * 3600 + v[1] * 60 + v[2];
	}
	return 0;
}

#endif
