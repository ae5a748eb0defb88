/*
 * bf_phase.h: the sub-second phase of slurmctld's backfill passes during a
 * real run (a table tools/replay records), so the scheduler model can say in
 * which second an ended job's nodes reach the next job (sim/model/sched.c).
 */
#ifndef SIM_BF_PHASE_H
#define SIM_BF_PHASE_H

#include <stddef.h>
#include <stdint.h>

typedef struct sim_bf_phase {
	size_t n;
	int64_t *sec;  /* trace seconds, ascending */
	double *phase; /* the pass's start in that second, unwrapped:
				 * consecutive entries differ by less than 0.5 */
} sim_bf_phase_t;

/* Read a table of lines "SECOND PHASE" (a trace second, an integer, and the
 * fraction of it at which a backfill pass began, in [0, 1); seconds
 * ascending; '#' comments and blank lines allowed). Returns 0 and the table
 * in *out, or -1 with "FILE:LINE: what" in err. */
int bf_phase_read(const char *path, sim_bf_phase_t **out, char *err, size_t errlen);

/* The phase of the passes in trace second sec, in [0, 1): linear between
 * the table's entries (the pass timer drifts by the passes' own run time,
 * a few milliseconds a pass), as the nearest entry outside them. */
double bf_phase_at(const sim_bf_phase_t *p, int64_t sec);

void bf_phase_free(sim_bf_phase_t *p);

#endif
