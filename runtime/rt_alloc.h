/*
 * rt_alloc.h: what each rank learns from its Slurm allocation: the node it
 * landed on, that node's GPU type (its GRES, as slurmctld reports it), and
 * the type's speed from nodeox.conf. On the CPU backend that speed is
 * emulated (a step takes --emulate-base-ms / speed), so a CPU-only machine
 * reproduces the timing of the GPUs Slurm handed out; with real GPUs the
 * planner measures the speeds in the first round as always and the type is
 * only reported. Nothing here runs when --emulate-speeds is given or the
 * process was not started by srun (no SLURMD_NODENAME / SLURM_JOB_ID).
 *
 * Two calls from the launcher (runtime/nodeox_run.c):
 *   rt_alloc_probe(&a, cfg)  before MPI starts (it runs `scontrol`, and a
 *                            fork after MPI_Init upsets some transports);
 *   rt_alloc_apply(rt, &a)   after nodeox_rt_init: share every rank's
 *                            record, set this rank's emulated step time,
 *                            rank 0 prints one line per rank.
 */
#ifndef NODEOX_RT_ALLOC_H
#define NODEOX_RT_ALLOC_H

#include <stddef.h>

#include "runtime/nodeox_rt.h"

/* One rank's record, the same size on every rank (all-gathered as bytes). */
typedef struct rt_alloc {
	int active;        /* 1: under srun, speeds come from the allocation */
	char node[64];     /* SLURMD_NODENAME */
	char gpu_type[32]; /* gres type of the node's GPUs, "" if none/untyped */
	char netns[32];    /* this process's network namespace (net:[inode]) */
	char conf[256];    /* the nodeox.conf read, "" if none */
	int conf_line;     /* its GpuType= line for gpu_type, 0 if not listed */
	double speed;      /* Speed= of gpu_type; 0: unknown, measured instead */
	int emulated;      /* 1: CPU backend stretches steps to base_ms / speed */
	char note[160];    /* why speed is unknown (shown by rank 0) */
} rt_alloc_t;

/* The first GPU type in a node's GRES string as scontrol prints it
 * ("gpu:a100:4(S:0-1),nic:2" gives "a100"). Returns the number of typed GPU
 * entries with distinct types (0: no typed GPU; > 1: mixed node, the first
 * is returned), or -1 on a string too long to scan. */
int rt_alloc_gres_type(const char *gres, char *type, size_t len);

/* Where nodeox.conf is: $NODEOX_CONF, else beside $SLURM_CONF, else
 * /etc/slurm/nodeox.conf. Writes the path into buf. */
void rt_alloc_conf_path(const char *(*getenv_fn)(const char *), char *buf, size_t len);

/* Fill *a for this process (see above); never fails: what cannot be learnt
 * is left unknown with a note. */
void rt_alloc_probe(rt_alloc_t *a, const nodeox_rt_config_t *cfg);

/* Collective over all ranks when any rank is active; no-op otherwise. */
void rt_alloc_apply(nodeox_rt_t *rt, const rt_alloc_t *a);

#endif
