/*
 * runtime_model.h: how long a job runs on the GPUs it was given
 * (runtime_model.c; formulas in doc/simulator.md).
 */
#ifndef SIM_RUNTIME_MODEL_H
#define SIM_RUNTIME_MODEL_H

#include <glib.h>
#include <stdint.h>

#include "policy/policy.h"
#include "sim/model/cluster.h"
#include "sim/model/trace.h"

typedef struct {
	double speed[SIM_MAX_TYPES];           /* per cluster GPU type, from nodeox.conf (1 if absent) */
	GHashTable *class_speed;               /* "class\ttype" -> double*, from --class-speeds */
	double sync_cost;                      /* fraction of each round lost to synchronisation */
	const char *type_names[SIM_MAX_TYPES]; /* the cluster's, borrowed */
	int ntypes;
} sim_runtime_t;

/* Speeds from conf (may be NULL) for the cluster's types; class_file (may be
 * NULL) is a CSV "class,gpu_type,speed". Returns 0, or -1 with err. */
int runtime_model_init(sim_runtime_t *m, const sim_cluster_t *c, const nodeox_conf_t *conf,
		       const char *class_file, double sync_cost, char *err, size_t errlen);
void runtime_model_free(sim_runtime_t *m);
double runtime_model_speed(const sim_runtime_t *m, const char *class_name, int type);
/* Seconds job runs with gpus_by_type[t] GPUs of each cluster type t, when
 * its trace run time was measured on req_type (-1: untyped, not scaled). */
int64_t runtime_model_duration(const sim_runtime_t *m, const sim_job_t *job, int req_type,
			       const uint32_t *gpus_by_type);

#endif
