/*
 * whatif.h: --flex-fraction (whatif.c): which jobs carry the nodeox tag in a
 * what-if run, drawn with a seeded generator so runs are reproducible.
 */
#ifndef SIM_WHATIF_H
#define SIM_WHATIF_H

#include <stdbool.h>

#include "policy/policy.h"
#include "sim/model/cluster.h"
#include "sim/model/trace.h"

/* Per job: tagged or not. Ignores the trace's own tags: each job whose request
 * the policy would broaden (with the cluster busy, so Broaden=when-blocked
 * counts too) is tagged with probability fraction. *ntagged gets the count. */
bool *whatif_flex_fraction(const sim_trace_t *t, const sim_cluster_t *c, const nodeox_conf_t *conf,
			   double fraction, unsigned long seed, size_t *ntagged);

#endif
