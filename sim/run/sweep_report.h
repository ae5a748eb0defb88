/*
 * sweep_report.h: what a sweep prints and writes (sweep_report.c), from its
 * plan and every setting's figures. Called by sweep.c (the local sweep) and
 * sweep_array.c (--merge); it reads the plan through sweep.h's inline
 * accessor and calls neither. doc/simulator.md, Sweeps.
 */
#ifndef SIM_SWEEP_REPORT_H
#define SIM_SWEEP_REPORT_H

#include "sim/run/sweep.h"

/* Print the table (unless quiet), write --json and --plot, from every
 * setting's figures (figs as sweep_run's with first 0). */
int sweep_report(const sweep_inputs_t *in, const sweep_plan_t *p, const report_figures_t *figs, char *err,
		 size_t errlen);

#endif
