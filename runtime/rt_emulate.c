/*
 * rt_emulate.c: emulated heterogeneity for machines without mixed GPUs.
 *
 * --emulate-speeds 1,1,0.5,0.5 gives rank i the speed s_i; every training
 * step of rank i is stretched to base_ms / s_i by sleeping until that long
 * after the step began (absolute deadline, so sleep jitter does not add
 * up). The planner then sees exactly base_ms / s_i per step, which makes
 * the per-round step counts, and so the numerics, repeatable on loaded
 * CPUs. A step whose real compute exceeds the target (a loaded host, not
 * the emulated GPU) is counted as an overrun, warned about at the end, and
 * still reported to the planner as base_ms / s_i: under emulation the speed
 * factors are the truth the planner should see. Without emulation the
 * planner gets the measured time of every step.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/rt_internal.h"

int rt_emulate_parse_speeds(const char *s, double *speeds, int max, char *err, size_t errlen)
{
	int n = 0;
	const char *p = s;
	while (*p) {
		char *end;
		errno = 0;
		double v = strtod(p, &end);
		if (end == p || errno != 0 || !(v > 0) || v > 1e6 || (*end != ',' && *end != '\0')) {
			snprintf(err, errlen,
				 "--emulate-speeds: '%s': item %d is not a positive number (want e.g. "
				 "1,1,0.5,0.5)",
				 s, n + 1);
			return -1;
		}
		if (n == max) {
			snprintf(err, errlen, "--emulate-speeds: more than %d speeds", max);
			return -1;
		}
		speeds[n++] = v;
		p = *end == ',' ? end + 1 : end;
		if (*end == ',' && *p == '\0') {
			snprintf(err, errlen, "--emulate-speeds: '%s' ends with a comma", s);
			return -1;
		}
	}
	if (n == 0) {
		snprintf(err, errlen, "--emulate-speeds: empty list");
		return -1;
	}
	return n;
}

void rt_emulate_init(rt_emulate_t *e, const double *speeds, int n, int rank, double base_ms)
{
	memset(e, 0, sizeof *e);
	if (n > 0)
		e->step_ms = base_ms / speeds[rank % n];
}

void rt_emulate_step_begin(rt_emulate_t *e)
{
	e->t0 = rt_util_clock_s();
}

double rt_emulate_step_end(rt_emulate_t *e)
{
	double took_ms = (rt_util_clock_s() - e->t0) * 1e3;
	if (e->step_ms <= 0)
		return took_ms;
	if (took_ms > e->step_ms) {
		e->overruns++;
		return e->step_ms;
	}
	double until = e->t0 + e->step_ms * 1e-3;
	struct timespec ts;
	ts.tv_sec = (time_t)until;
	ts.tv_nsec = (long)((until - (double)ts.tv_sec) * 1e9);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
	}
	return e->step_ms;
}
