/*
 * slurm_compat.h: everything job_submit/nodeox does differently between the
 * Slurm releases it builds against (22.05 of Debian 12, 24.11 of Debian 13,
 * 26.05 of Debian forky; 23.11, 24.05, 25.05 and 25.11 build-checked by
 * make check-slurm-versions), in one place. The glue (job_submit_nodeox.c)
 * includes this instead of naming releases itself. Each item was checked
 * against SchedMD's source of the releases on both sides (22.05.8, 23.11.11,
 * 24.05.8, 24.11.5, 25.05.8, 25.11.7, 26.05.3); an API change is keyed on
 * the major release (x.y.0) that made it, as SchedMD changes APIs only
 * there, a fix on the micro release whose CHANGELOG names it.
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
 *   job id            job_desc_msg_t.job_id moved into job_desc_msg_t.step_id
 *                     (a slurm_step_id_t) in 25.11: NODEOX_JOB_DESC_JOB_ID.
 *   EXTERNAL nodes    25.05 adds the node state flag NODE_STATE_EXTERNAL
 *                     (State=EXTERNAL in slurm.conf: a node without slurmd,
 *                     for jobs run outside Slurm; node_conf.c sets IDLE|
 *                     EXTERNAL). Such a node is no capacity for a job:
 *                     NODEOX_NODE_EXTERNAL (false before 25.05).
 *   --prefer leak     slurm_free_job_desc_msg frees job_desc->prefer from
 *                     26.05.2 on ("Fix memory leak when using --prefer option",
 *                     CHANGELOG/slurm-26.05.md; src/common/
 *                     slurm_protocol_defs.c): before, a prefer string the
 *                     plugin sets stays allocated (the admin guide's pitfall).
 *                     NODEOX_SLURM_FREES_PREFER says which (keyed on the
 *                     installed release); the plugin frees nothing itself
 *                     either way, so no double free.
 *   plugin_version    the installed Slurm's SLURM_VERSION_NUMBER: configure
 *                     passes it as NODEOX_INSTALLED_SLURM_VERSION_NUMBER,
 *                     since a source of another micro release may be allowed
 *                     (--enable-slurm-source-micro-mismatch) and the loader
 *                     compares major, minor and micro exactly.
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

#if NODEOX_SLURM_AT_LEAST(25, 11, 0)
#define NODEOX_JOB_DESC_JOB_ID(job_desc) ((job_desc)->step_id.job_id)
#else
#define NODEOX_JOB_DESC_JOB_ID(job_desc) ((job_desc)->job_id)
#endif

#if NODEOX_SLURM_AT_LEAST(25, 5, 0)
#define NODEOX_NODE_EXTERNAL(node_ptr) (((node_ptr)->node_state & NODE_STATE_EXTERNAL) != 0)
#else
#define NODEOX_NODE_EXTERNAL(node_ptr) false
#endif

#ifdef NODEOX_INSTALLED_SLURM_VERSION_NUMBER
#define NODEOX_PLUGIN_VERSION NODEOX_INSTALLED_SLURM_VERSION_NUMBER
#else
#define NODEOX_PLUGIN_VERSION SLURM_VERSION_NUMBER
#endif

/* What the running slurmctld does (not what the headers declare): keyed on
 * the installed release, which may be another micro release than the
 * source's (--enable-slurm-source-micro-mismatch). */
#define NODEOX_SLURM_FREES_PREFER (NODEOX_PLUGIN_VERSION >= SLURM_VERSION_NUM(26, 5, 2))

#if NODEOX_SLURM_AT_LEAST(23, 2, 0)
#define NODEOX_JOB_MODIFY_ARGS \
	job_desc_msg_t *job_desc, job_record_t *job_ptr, uint32_t submit_uid, char **err_msg
#define NODEOX_JOB_MODIFY_ERR_MSG err_msg
#else
#define NODEOX_JOB_MODIFY_ARGS job_desc_msg_t *job_desc, job_record_t *job_ptr, uint32_t submit_uid
#define NODEOX_JOB_MODIFY_ERR_MSG NULL
#endif

#endif
