/*
 * labels.h: nodeox-sim --labels FILE, a group label per job given from
 * outside, which the table and --json then count apart (report.c), beside
 * the groups the simulator knows itself (all, tagged, untagged).
 *
 * The simulator decides nothing here: a label is a name it aggregates by.
 * `nodeox report` passes what accounting says happened to each job
 * (broadened, kept, untagged: cli/report_stats.c decides), so that the model's
 * plugin-off run, where nothing is broadened, can still be set beside what
 * happened to the jobs the plugin broadened. The file is CSV with the header
 * "job_id,label"; jobs it does not name have no label.
 */
#ifndef SIM_LABELS_H
#define SIM_LABELS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/model/trace.h"

#define LABELS_MAX 4       /* distinct labels (each adds a group to every run's figures) */
#define LABELS_NAME_MAX 32 /* letters, digits, '_' and '-', as JSON keys and table titles */

typedef struct {
	int n; /* distinct labels, in the order the file first names them */
	char name[LABELS_MAX][LABELS_NAME_MAX];
	int8_t *of; /* per trace job (trace order): index into name, -1: no label */
} sim_labels_t;

/* Read path against trace t. Every row's job id must be one of the trace's
 * (all jobs of that id get the label) and named once. Returns 0, or -1 with
 * "FILE:LINE: what" in err. */
int labels_read(const char *path, const sim_trace_t *t, sim_labels_t *out, char *err, size_t errlen);
void labels_free(sim_labels_t *l);

#endif
