/*
 * why_compat.h: the libslurm API differences `nodeox why` meets between the
 * Slurm versions it builds against (22.05 of Debian 12, 24.11 of Debian 13),
 * in one place; why_load.c is written against these names only. Checked
 * against the public headers and the libslurm exports of both versions:
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
 *   assoc_mgr         slurm_load_assoc_mgr_info, assoc_mgr_info_msg_t
 *                     (tres_names, qos_list, assoc_list), slurmdb_qos_usage_t
 *                     (grp_used_tres, user_limit_list), struct
 *                     slurmdb_assoc_usage (grp_used_tres): same in both.
 *   unchanged         slurm_load_job/node/partitions, slurm_populate_node_
 *                     partitions, slurm_get_select_nodeinfo (SUBCNT,
 *                     MEM_ALLOC), slurm_job/node_state_string, the job_info_t
 *                     and node_info_t fields read here, CR_MEMORY.
 */
#ifndef NODEOX_WHY_COMPAT_H
#define NODEOX_WHY_COMPAT_H

#include <errno.h>
#include <slurm/slurm.h>

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

#endif
