/*
 * policy_internal.h: what the files of the policy library share, below all
 * of them (bounded string building, name checks, quoting, saturating
 * arithmetic, the node tests of the decision and its estimate, the
 * estimate's entry point). Not part of the API in policy.h; no file outside
 * policy/ includes it. Calls between the files run one way: policy_decide.c
 * calls policy_estimate.c (nodeox_estimate_make), policy_tag.c,
 * policy_tres.c, policy_record.c (nodeox_form_name) and policy_conf.c; none
 * of those calls back into policy_decide.c.
 */
#ifndef NODEOX_POLICY_INTERNAL_H
#define NODEOX_POLICY_INTERNAL_H

#include <stdarg.h>
#include <string.h>

#include "common/util.h"
#include "policy/policy.h"

/* A fixed-size output buffer that remembers whether anything was cut off. */
typedef struct {
	char *buf;
	size_t cap;
	size_t len;
	bool overflow;
} nodeox_buf_t;

void nodeox_buf_init(nodeox_buf_t *b, char *buf, size_t cap);
void nodeox_buf_putn(nodeox_buf_t *b, const char *s, size_t n);
void nodeox_buf_puts(nodeox_buf_t *b, const char *s);
void nodeox_buf_printf(nodeox_buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Copy at most n bytes of s into dst (cap bytes), replacing control and
 * non-ASCII bytes with '?', and marking truncation with "...". For quoting
 * user input in one-line messages. */
void nodeox_util_quote(char *dst, size_t cap, const char *s, size_t n);
/* Case-insensitive equality of s[0..n) with the NUL-terminated word. */
bool nodeox_util_eq(const char *s, size_t n, const char *word);
/* A name usable as a type, feature, group, partition, account or user:
 * 1..NODEOX_NAME_MAX-1 bytes of [A-Za-z0-9_.@-]. */
bool nodeox_util_name_ok(const char *s, size_t n);

/* Read the text file at path (a regular file of at most max bytes, opened
 * non-blocking, no NUL byte) into a new malloc'd string *text. Returns 0, or
 * -1 with "PATH: what" in err. */
int nodeox_util_read_file(const char *path, size_t max, char **text, char *err, size_t errlen);

/* a * b, or UINT64_MAX where the product does not fit (GPU counts times
 * nodes or tasks: each factor is user input). */
static inline uint64_t nodeox_mul_sat(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* What a job needs at once, read from its GPU request (policy_decide.c) and
 * used by Broaden=when-blocked and when-faster alike: `nodes` nodes with at
 * least `per_node` free GPUs each, and `total` free GPUs over the nodes used
 * (0: per_node alone decides). */
typedef struct {
	uint64_t nodes;
	uint64_t per_node;
	uint64_t total;
	const double *speed; /* the job's speed on each conf type
			      * (nodeox_decision_t.speed): Speed= or the
			      * speed table's entry */
} nodeox_shape_t;

/* Node tests shared by the decision (policy_decide.c) and its estimate
 * (policy_estimate.c), here below both so that calls between the two run
 * one way, decide -> estimate. */

/* Is one of the job's partitions (comma list; NULL or "": any) among the
 * node's? */
static inline bool nodeox_node_in_parts(const nodeox_node_t *nd, const char *parts)
{
	return !parts || !*parts || nodeox_util_lists_meet(parts, nd->partitions);
}

/* Does the node carry type t's feature? */
static inline bool nodeox_node_has_feature(const nodeox_node_t *nd, const nodeox_gpu_type_t *t)
{
	return nodeox_util_list_has(nd->features, t->feature, strlen(t->feature));
}

/* Does the node hold GPU type t? The narrower and cheaper test of the two:
 * a node reporting a gres type is of that type; an untyped one by its
 * feature. */
static inline bool nodeox_node_is_type(const nodeox_node_t *nd, const nodeox_gpu_type_t *t)
{
	if (nd->gpu_type && *nd->gpu_type)
		return nodeox_util_eq(nd->gpu_type, strlen(nd->gpu_type), t->name);
	return nodeox_node_has_feature(nd, t);
}

/* The last few node strings classified (a gres type, or the features of an
 * untyped node) and their answers: a cluster has few distinct ones, so the
 * string tests of nodeox_node_type run once per distinct string, not once
 * per node (the estimates' passes over the nodes). Zero it per pass. */
#define NODEOX_TYPE_MEMO 8
typedef struct {
	const char *key[NODEOX_TYPE_MEMO];
	bool typed[NODEOX_TYPE_MEMO];
	int type[NODEOX_TYPE_MEMO];
	int n, next;
} nodeox_type_memo_t;

/* Which of the types elig[0..nelig) (conf indexes; NULL: 0..nelig-1) the
 * node holds, or -1. One memo per pass and per elig. */
static inline int nodeox_node_type(const nodeox_conf_t *conf, const nodeox_node_t *nd, const int *elig, int nelig,
				   nodeox_type_memo_t *mo)
{
	bool typed = nd->gpu_type && *nd->gpu_type;
	const char *key = typed ? nd->gpu_type : nd->features ? nd->features : "";
	int k, t = -1;

	for (k = 0; k < mo->n; k++)
		if (mo->key[k] == key && mo->typed[k] == typed)
			return mo->type[k];
	for (k = 0; k < mo->n; k++)
		if (mo->typed[k] == typed && !strcmp(mo->key[k], key))
			return mo->type[k];
	for (k = 0; k < nelig && t < 0; k++)
		if (nodeox_node_is_type(nd, &conf->types[elig ? elig[k] : k]))
			t = elig ? elig[k] : k;
	k = mo->n < NODEOX_TYPE_MEMO ? mo->n++ : mo->next++ % NODEOX_TYPE_MEMO;
	mo->key[k] = key;
	mo->typed[k] = typed;
	mo->type[k] = t;
	return t;
}

/* Broaden=when-faster's estimate (policy_estimate.c): when the job could
 * start on its requested type req and on the eligible types elig[0..nelig),
 * from cl's free GPUs, running jobs and demand ahead, and the two finishes
 * for a time limit of limit_s seconds. Fills est; est->made false when cl
 * holds no state to estimate from. Bounded by two passes over the nodes and
 * two over the running jobs; allocates nothing (cl->scratch). */
void nodeox_estimate_make(const nodeox_conf_t *conf, const nodeox_job_t *job, const nodeox_cluster_t *cl,
			  int req, const int *elig, int nelig, const nodeox_shape_t *shape, int64_t limit_s,
			  nodeox_estimate_t *est);

/* The same two starts as backfill would plan them (policy_map.c), from
 * cl->pending (cl->map set): fills est's starts, broad_slowest,
 * broad_factor, broad_limit, kept_backfill, the map_* fields and what
 * decides each side; nodeox_estimate_make, which calls it, adds the
 * finishes and the choice. est zeroed by the caller, starts -1. Bounded by
 * NODEOX_MAP_*; allocates nothing (cl->scratch for per-node state). */
void nodeox_map_make(const nodeox_conf_t *conf, const nodeox_job_t *job, const nodeox_cluster_t *cl, int req,
		     const int *elig, int nelig, const nodeox_shape_t *shape, int64_t limit_s,
		     nodeox_estimate_t *est);

#endif
