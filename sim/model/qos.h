/*
 * qos.h: the QOS priority factor as Slurm 22.05's priority/multifactor
 * computes it, over the QOS of DIR/qos.conf (with slurmdbd; each QOS's
 * Priority=, as sacctmgr sets it): a job's QOS priority over the highest
 * QOS priority of all (assoc_mgr.c, _set_qos_norm_priority), or the
 * priority itself with PriorityFlags=NO_NORMAL_QOS (priority_multifactor.c,
 * set_priority_factors).
 */
#ifndef SIM_QOS_H
#define SIM_QOS_H

#include <stdbool.h>
#include <stdint.h>

/* The QOS of qos.conf in file order, with "normal" (which slurmdbd always
 * has, priority 0 unless qos.conf names it) first. n 0: no qos.conf. */
typedef struct {
	char **name;
	uint32_t *priority;
	int n;
	uint32_t max; /* the highest priority (g_qos_max_priority) */
} sim_qos_t;

/* Parse qos.conf's text: one "QOS=NAME [Priority=N]" per line, '#'
 * comments. 0, or -1 with err naming file:line. */
int qos_parse(const char *text, const char *name, sim_qos_t *out, char *err, size_t errlen);
void qos_free(sim_qos_t *q);
/* The index of QOS name (NULL or "": the default, "normal"), or -1: a QOS
 * slurmdbd does not have leaves the job without one, factor 0, unless
 * AccountingStorageEnforce=qos (not modelled) refuses the job
 * (assoc_mgr.c, assoc_mgr_fill_in_qos; job_mgr.c,
 * _determine_and_validate_qos). Names match case-blind, as there. */
int qos_find(const sim_qos_t *q, const char *name);
/* The factor of QOS i before its weight: 0 where its priority is 0 (the
 * factor is only set for a QOS with a priority), else priority / max, or
 * the priority itself with no_normal (NO_NORMAL_QOS). */
double qos_factor(const sim_qos_t *q, int i, bool no_normal);

#endif
