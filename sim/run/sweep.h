/*
 * sweep.h: --sweep SPEC (sweep.c): every combination of nodeox.conf
 * settings (and flex=F, --flex-fraction), each a compare run with replicas.
 * The plan's types and its inline accessor are here, below both sweep.c
 * (plan, run) and sweep_report.c (what it prints and writes, sweep_report.h):
 * sweep.c and sweep_array.c call the report, the report calls neither.
 * doc/simulator.md, Sweeps.
 */
#ifndef SIM_SWEEP_H
#define SIM_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/run/replica.h"

/* What every setting shares: the base compare (its conf and tags are the
 * command line's; a setting replaces them), and the outputs. */
typedef struct {
	replica_setting_t setting;
	const char *policy_path;  /* the base nodeox.conf a setting edits */
	const char *class_speeds; /* --class-speeds (NULL: none) and */
	double round_sync;        /* --round-sync, for each setting's run-time model */
	unsigned long seed;       /* --seed, for flex=F */
	int replicas;
	const char *trace_name, *cluster_name; /* as the table names them */
	bool quiet;
	const char *json, *plot, *gnuplot;
} sweep_inputs_t;

/* The settings of a SPEC, each with its policy and tags. */
typedef struct {
	int nkeys;
	char **keys; /* as SPEC spells them */
	int *nvalues;
	char ***values;
	int n;                /* settings: the product of nvalues */
	nodeox_conf_t **conf; /* per setting */
	sim_runtime_t *model; /* per setting: run times at its GpuType speeds */
	bool **tagged;        /* per setting; NULL: the base's tags */
} sweep_plan_t;

/* Parse SPEC and build every setting's policy (the base nodeox.conf with
 * each KEY's lines replaced by KEY=value, read by the policy library's own
 * parser, so any value it accepts works) and tags. 0, or -1 with
 * "--sweep: ..." naming the bad key or value in err. */
int sweep_plan(const sweep_inputs_t *in, const char *spec, sweep_plan_t **out, char *err, size_t errlen);
void sweep_plan_free(sweep_plan_t *p);
/* The two steps of sweep_plan that read text only (for the fuzz target
 * tests/fuzz/fuzz_sweep.c too): SPEC into keys and values (conf, model and
 * tagged stay NULL), and setting s's policy from the base text (named name
 * in messages) into *out. 0, or -1 with "--sweep: ..." in err. */
int sweep_spec_parse(const char *spec, sweep_plan_t **out, char *err, size_t errlen);
int sweep_setting_conf(const sweep_plan_t *p, int s, const char *base, const char *name, nodeox_conf_t **out,
		       char *err, size_t errlen);
/* The value of key k in setting s: the plan's own accessor, inline here so
 * that the report (sweep_report.c), below sweep.c, reads the plan without
 * calling back up into it. */
static inline const char *sweep_value(const sweep_plan_t *p, int s, int k)
{
	int div = 1;
	for (int j = p->nkeys - 1; j > k; j--)
		div *= p->nvalues[j];
	return p->values[k][(s / div) % p->nvalues[k]];
}

/* Run settings first..first+count-1, every replica: figs[(s - first) *
 * replicas * 2 + k * 2 + run]. 0, or -1 and err. */
int sweep_run(const sweep_inputs_t *in, const sweep_plan_t *p, int first, int count, report_figures_t *figs,
	      char *err, size_t errlen);

/* --sweep on this machine: plan, run, report. */
int sweep_local(const sweep_inputs_t *in, const char *spec, char *err, size_t errlen);

#endif
