/*
 * sweep_array.h: a sweep as a Slurm job array (sweep_array.c):
 * --sweep-array DIR writes DIR/sweep.sbatch and the inputs it needs, each
 * array task runs one setting into DIR, --merge DIR combines them into what
 * the local sweep prints and writes. doc/simulator.md, Sweeps.
 */
#ifndef SIM_SWEEP_ARRAY_H
#define SIM_SWEEP_ARRAY_H

#include <glib.h>

#include "sim/run/sweep.h"

/* The input files to copy into DIR (NULL: none). */
typedef struct {
	const char *trace, *cluster, *policy, *class_speeds, *bf_phase;
} sweep_array_files_t;

/* Check the sweep, make DIR (which must not exist or be empty), copy the
 * inputs, write DIR/sweep.args (args: the options each task runs with, one a
 * line), DIR/sweep.info and DIR/sweep.sbatch; say on stdout how to submit. */
int sweep_array_write(const char *dir, const sweep_inputs_t *in, const char *spec,
		      const sweep_array_files_t *files, GPtrArray *args, char *err, size_t errlen);
/* DIR/sweep.args into a (one argument per line). */
int sweep_array_read_args(const char *dir, GPtrArray *a, char *err, size_t errlen);
/* Array task `task` (setting number) of the sweep in dir: its replicas into
 * dir/result-TASK.txt. */
int sweep_array_task(const char *dir, const sweep_inputs_t *in, const char *spec, int task, char *err,
		     size_t errlen);
/* Read every dir/result-*.txt and report as the local sweep does; the JSON
 * also goes to dir/sweep.json. */
int sweep_array_merge(const char *dir, const sweep_inputs_t *in, const char *spec, char *err, size_t errlen);

#endif
