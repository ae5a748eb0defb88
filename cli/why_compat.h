/*
 * why_compat.h: the libslurm API differences `nodeox why` meets between the
 * Slurm releases it builds against (22.05 of Debian 12, 24.11 of Debian 13,
 * 26.05 of Debian forky; 23.11, 24.05, 25.05 and 25.11 build-checked by make
 * check-slurm-versions), in one place; why_load.c is written against these
 * names only. Checked against the public headers of SchedMD's source of
 * 22.05.8, 23.11.11, 24.05.8, 24.11.5, 25.05.8, 25.11.7 and 26.05.3; an API
 * change is keyed on the major release (x.y.0) that made it:
 *
 *   hostlist          22.05 `hostlist_t` is a pointer typedef; 23.11 made it
 *                     the struct and the API takes `hostlist_t *`.
 *                     why_hostlist_t is whatever slurm_hostlist_create returns.
 *   errno             22.05 has slurm_get_errno() (which returns errno);
 *                     24.11 removed it: libslurm sets errno in both.
 *   reason string     22.05 exports slurm_job_reason_string(); 24.11 exports
 *                     slurm_job_state_reason_string() instead (const result).
 *                     Neither is declared in the public headers.
 *   lists             22.05 `List`/`ListIterator`, 24.11 `list_t *`/
 *                     `list_itr_t *`; the slurm_list_* calls are the same.
 *                     why_list_itr_t is what slurm_list_iterator_create returns.
 *   node allocation   through 24.11 slurm_get_select_nodeinfo(node_info_t.
 *                     select_nodeinfo, SELECT_NODEDATA_SUBCNT / _MEM_ALLOC);
 *                     25.05 removed all three for node_info_t.alloc_cpus and
 *                     alloc_memory: why_slurm_node_alloc().
 *   EXTERNAL nodes    25.05 adds the node state flag NODE_STATE_EXTERNAL (a
 *                     node without slurmd): WHY_NODE_STATE_EXTERNAL, 0 before.
 *   memory consumable CR_MEMORY through 25.05; 25.11 renamed the select type
 *                     parameters (an enum): SELECT_MEMORY. WHY_SELECT_MEMORY.
 *   one job           slurm_load_job takes the job id through 25.11 and a
 *                     slurm_step_id_t from 26.05: why_slurm_load_job().
 *   config            slurm_free_ctl_conf through 25.11, slurm_free_conf from
 *                     26.05: why_slurm_free_conf().
 *   assoc_mgr         slurm_load_assoc_mgr_info, assoc_mgr_info_msg_t
 *                     (tres_names, qos_list, assoc_list), slurmdb_qos_usage_t
 *                     (grp_used_tres, user_limit_list), struct
 *                     slurmdb_assoc_usage (grp_used_tres): same in all.
 *   unchanged         slurm_load_jobs/node/partitions, slurm_populate_node_
 *                     partitions, slurm_job/node_state_string, the other
 *                     job_info_t and node_info_t fields read here.
 */
#ifndef NODEOX_WHY_COMPAT_H
#define NODEOX_WHY_COMPAT_H

#include <errno.h>
#include <slurm/slurm.h>
#include <slurm/slurm_version.h>

#define WHY_SLURM_AT_LEAST(a, b, c) (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(a, b, c))

typedef __typeof__(slurm_hostlist_create(NULL)) why_hostlist_t;

typedef __typeof__(slurm_list_iterator_create(NULL)) why_list_itr_t;

/* The error of the last failed libslurm call. */
#define why_slurm_errno() (errno)

/* Exported by libslurm (the names scontrol uses), not declared publicly. */
extern char *slurm_job_state_string(uint32_t inx);
extern char *slurm_node_state_string(uint32_t inx);
/* Both declared weak: the one this libslurm lacks is NULL at run time, so
 * no version boundary has to be guessed for the releases in between. */
extern const char *slurm_job_state_reason_string(enum job_state_reason inx) __attribute__((weak));
extern char *slurm_job_reason_string(enum job_state_reason inx) __attribute__((weak));

static inline const char *why_job_reason_string(enum job_state_reason r)
{
	if (slurm_job_state_reason_string)
		return slurm_job_state_reason_string(r);
	if (slurm_job_reason_string)
		return slurm_job_reason_string(r);
	return "unknown";
}


/* CPUs and memory (MB) allocated on node n. */
static inline void why_slurm_node_alloc(node_info_t *n, uint16_t *cpus, uint64_t *mem_mb)
{
#if WHY_SLURM_AT_LEAST(25, 5, 0)
	*cpus = n->alloc_cpus;
	*mem_mb = n->alloc_memory;
#else
	slurm_get_select_nodeinfo(n->select_nodeinfo, SELECT_NODEDATA_SUBCNT, NODE_STATE_ALLOCATED, cpus);
	slurm_get_select_nodeinfo(n->select_nodeinfo, SELECT_NODEDATA_MEM_ALLOC, NODE_STATE_ALLOCATED,
				  mem_mb);
#endif
}

#if WHY_SLURM_AT_LEAST(25, 5, 0)
#define WHY_NODE_STATE_EXTERNAL NODE_STATE_EXTERNAL
#else
#define WHY_NODE_STATE_EXTERNAL 0
#endif

#if WHY_SLURM_AT_LEAST(25, 11, 0)
#define WHY_SELECT_MEMORY SELECT_MEMORY
#else
#define WHY_SELECT_MEMORY CR_MEMORY
#endif

/* slurm_load_job for one job id. */
static inline int why_slurm_load_job(job_info_msg_t **resp, uint32_t job_id, uint16_t show_flags)
{
#if WHY_SLURM_AT_LEAST(26, 5, 0)
	slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;

	id.job_id = job_id;
	return slurm_load_job(resp, id, show_flags);
#else
	return slurm_load_job(resp, job_id, show_flags);
#endif
}

#if WHY_SLURM_AT_LEAST(26, 5, 0)
#define why_slurm_free_conf(conf) slurm_free_conf(conf)
#else
#define why_slurm_free_conf(conf) slurm_free_ctl_conf(conf)
#endif

#endif
