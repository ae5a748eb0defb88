/*
 * bf_phase.c: reading the table of backfill pass phases a real run recorded
 * (tools/replay: the sub-second of each backfill start in slurmctld's log)
 * and the phase at any trace second, interpolated.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "common/free_all.h"
#include "sim/model/bf_phase.h"
#include "sim/model/text_lines.h"

static int bf_phase_fail(char *err, size_t errlen, const char *path, int line, const char *what)
{
	snprintf(err, errlen, "%s:%d: %s", path, line, what);
	return -1;
}

int bf_phase_read(const char *path, sim_bf_phase_t **out, char *err, size_t errlen)
{
	*out = NULL;
	char **lines = text_lines_read(path, err, errlen);
	if (!lines)
		return -1;
	sim_bf_phase_t *p = g_new0(sim_bf_phase_t, 1);
	size_t cap = 0;
	int lineno = 0, rc = 0;
	for (char **lp = lines; *lp; lp++) {
		char *line = *lp;
		lineno++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *s = g_strstrip(line);
		if (!*s)
			continue;
		char *end;
		errno = 0;
		long long sec = strtoll(s, &end, 10);
		if (end == s || errno || (*end != ' ' && *end != '\t')) {
			rc = bf_phase_fail(err, errlen, path, lineno,
					   "expected SECOND PHASE (an integer trace second)");
			break;
		}
		char *ps = end;
		double ph = strtod(ps, &end);
		while (*end == ' ' || *end == '\t')
			end++;
		if (end == ps || *end || !(ph >= 0 && ph < 1)) {
			rc = bf_phase_fail(err, errlen, path, lineno, "phase must be a number in [0, 1)");
			break;
		}
		if (p->n && sec <= p->sec[p->n - 1]) {
			rc = bf_phase_fail(err, errlen, path, lineno, "seconds must be ascending");
			break;
		}
		if (p->n == cap) {
			cap = cap ? 2 * cap : 64;
			p->sec = g_renew(int64_t, p->sec, cap);
			p->phase = g_renew(double, p->phase, cap);
		}
		/* unwrap: the timer drifts by far less than half a second
		 * between two passes that started jobs */
		if (p->n) {
			double prev = p->phase[p->n - 1];
			ph += round(prev - ph);
		}
		p->sec[p->n] = sec;
		p->phase[p->n++] = ph;
	}
	g_strfreev(lines);
	if (!rc && !p->n)
		rc = bf_phase_fail(err, errlen, path, lineno, "no entries");
	if (rc) {
		bf_phase_free(p);
		return -1;
	}
	*out = p;
	return 0;
}

double bf_phase_at(const sim_bf_phase_t *p, int64_t sec)
{
	double u;
	if (sec <= p->sec[0]) {
		u = p->phase[0];
	} else if (sec >= p->sec[p->n - 1]) {
		u = p->phase[p->n - 1];
	} else {
		size_t lo = 0, hi = p->n - 1;
		while (hi - lo > 1) {
			size_t mid = (lo + hi) / 2;
			if (p->sec[mid] <= sec)
				lo = mid;
			else
				hi = mid;
		}
		u = p->phase[lo] + (p->phase[hi] - p->phase[lo]) * (double)(sec - p->sec[lo]) /
					   (double)(p->sec[hi] - p->sec[lo]);
	}
	return u - floor(u);
}

void bf_phase_free(sim_bf_phase_t *p)
{
	if (!p)
		return;
	nodeox_g_free_all(p->sec, p->phase, p);
}
