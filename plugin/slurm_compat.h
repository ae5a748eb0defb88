/*
 * slurm_compat.h: everything job_submit/nodeox does differently between the
 * Slurm versions it builds against (22.05 of Debian 12, 24.11 of Debian 13),
 * in one place. The glue (job_submit_nodeox.c) includes this instead of
 * naming versions itself. Each item was checked against the source of both
 * versions; thresholds between them follow Slurm's release notes.
 *
 *   gres.h            src/common/gres.h in 22.05; src/interfaces/gres.h from
 *                     23.02 (the plugin interfaces moved there).
 *   ListIterator      22.05 `ListIterator` (a pointer typedef); 24.05 removed
 *                     it for `list_itr_t` (a struct typedef): we keep the old
 *                     name as a pointer to the new type (identical in 23.11,
 *                     where both exist, so the redefinition is harmless).
 *   job details       `struct job_details` in 22.05, an anonymous struct
 *                     typedef'd job_details_t (src/common/job_record.h) in
 *                     24.11: nodeox_job_details_t is whatever job_record_t's
 *                     details points to (needs slurmctld.h first).
 *   GPU TRES prefix   job_desc tres_per_* entries read "gres:gpu:a100:4" in
 *                     22.05 and "gres/gpu:a100:4" from 23.11; 22.05 silently
 *                     drops an entry spelled the other way. NODEOX_TRES_GRES
 *                     ("gres:" or "gres/") and NODEOX_TRES_GPU are the running
 *                     version's spelling, for code that writes a new entry and
 *                     for the glue test, which feeds the plugin what this
 *                     version's sbatch writes (the policy library keeps each
 *                     entry's own spelling when it rewrites: policy_tres.c).
 *   job_modify        gains `char **err_msg` in 23.02: NODEOX_JOB_MODIFY_ARGS
 *                     is the parameter list, NODEOX_JOB_MODIFY_ERR_MSG the
 *                     err_msg to pass on (NULL where there is none).
 *   concurrency       23.02+ calls job_submit/job_modify under a read lock of
 *                     the plugin context, so two submissions may run in the
 *                     plugin at once (22.05 serialised them); the glue holds
 *                     its own mutex around the policy either way.
 *   plugin_version    SLURM_VERSION_NUMBER in both; the loader compares major,
 *                     minor and micro exactly, so the plugin is built against
 *                     the configured source of the installed version.
 */
#ifndef NODEOX_SLURM_COMPAT_H
#define NODEOX_SLURM_COMPAT_H

#include "slurm/slurm_version.h"

#define NODEOX_SLURM_AT_LEAST(a, b, c) (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(a, b, c))

#if NODEOX_SLURM_AT_LEAST(23, 2, 0)
#include "src/interfaces/gres.h"
#else
#include "src/common/gres.h"
#endif

#if NODEOX_SLURM_AT_LEAST(23, 11, 0)
#include "src/common/list.h"
typedef list_itr_t *ListIterator;
#define NODEOX_TRES_GRES "gres/"
#else
#define NODEOX_TRES_GRES "gres:"
#endif
#define NODEOX_TRES_GPU NODEOX_TRES_GRES "gpu"

typedef __typeof__(*((job_record_t *)0)->details) nodeox_job_details_t;

#if NODEOX_SLURM_AT_LEAST(23, 2, 0)
#define NODEOX_JOB_MODIFY_ARGS \
	job_desc_msg_t *job_desc, job_record_t *job_ptr, uint32_t submit_uid, char **err_msg
#define NODEOX_JOB_MODIFY_ERR_MSG err_msg
#else
#define NODEOX_JOB_MODIFY_ARGS job_desc_msg_t *job_desc, job_record_t *job_ptr, uint32_t submit_uid
#define NODEOX_JOB_MODIFY_ERR_MSG NULL
#endif

#endif
