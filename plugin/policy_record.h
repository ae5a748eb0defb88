/*
 * policy_record.h: read job_submit/nodeox's record back out of a job's
 * AdminComment (format v=1 in nodeox.conf(5), ADMIN COMMENT RECORD; written
 * by decide_admin_comment in plugin/policy_decide.c).
 *
 * The record holds what the user asked before the plugin broadened the job:
 * the GPU type, the count form, the tag and the unscaled time limit, and
 * what the plugin set: the scaled limit and the constraint. The importer
 * puts the former back so that a trace is the workload as submitted; the
 * plugin reads the latter when an update replaces its constraint.
 */
#ifndef NODEOX_POLICY_RECORD_H
#define NODEOX_POLICY_RECORD_H

#include <stddef.h>
#include <stdint.h>

#define NODEOX_RECORD_TYPE_MAX 64
#define NODEOX_RECORD_TAG_MAX  1024
#define NODEOX_RECORD_COUNT_MAX 1000000  /* GPUs a count is taken for when totalling */

/* Count forms, as the record's gpus= names them. */
typedef enum {
	NODEOX_FORM_JOB = 0,     /* --gpus */
	NODEOX_FORM_NODE,        /* --gres, --gpus-per-node */
	NODEOX_FORM_TASK,        /* --gpus-per-task */
	NODEOX_FORM_SOCKET,      /* --gpus-per-socket */
	NODEOX_NFORMS
} nodeox_form_t;

typedef struct {
	int version;                    /* v= of the record used; 0: none found */
	int legacy;                     /* a record from before v=1 (no v= word) */
	char type[NODEOX_RECORD_TYPE_MAX];  /* "" if not recorded */
	int64_t count[NODEOX_NFORMS];    /* GPUs of the type per form, -1 = not used */
	char tag[NODEOX_RECORD_TAG_MAX]; /* canonical nodeox:flex tag, "" if not recorded */
	int64_t time_limit_min;         /* unscaled limit in minutes, -1 = not scaled */
	int64_t time_limit_to_min;      /* the limit nodeox set (same record), -1 = none */
	char features_to[1024];         /* the constraint nodeox set (decoded), "" = none */
	int cut;                        /* some keys were left out (cut=) */
} nodeox_record_t;

/*
 * Find the nodeox records in admin_comment (anywhere: after an admin's own
 * text too) and read them: the last record gives type, counts and tag, the
 * last one with time_limit= the original limit. Returns 0 when there is no
 * record, 1 with *rec filled, 2 for a record of a version this reader does
 * not know (rec->version set, nothing else), -1 with err naming the bad word.
 */
int nodeox_record_parse(const char *admin_comment, nodeox_record_t *rec, char *err,
		       size_t errlen);

/* Decode %XX in src[0..n) into dst (cap bytes). Returns 0, or -1 on a bad
 * escape, a decoded NUL or no room. */
int nodeox_record_decode(const char *src, size_t n, char *dst, size_t cap);

/* The name of form f in gpus= ("job", "node", ...). */
const char *nodeox_form_name(nodeox_form_t f);

#endif
