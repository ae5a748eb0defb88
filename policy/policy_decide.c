/*
 * policy_decide.c: the broadening decision (nodeox_policy_decide).
 *
 * Steps, each of which may stop with KEEP and a reason:
 *   tag -> scope (Partitions=, Allow/Deny) -> find the one typed GPU request
 *   -> the requested type's groups -> filter the other types (MinSpeed, tag
 *   mem= and types=, present on a usable node of the job's partitions)
 *   -> Broaden=when-blocked: can the requested type serve the job now?
 *   -> Broaden=when-faster: is it expected to finish sooner broadened
 *      (policy_estimate.c)? KEEP says when each would finish
 *   -> build the new fields (untyped TRES, constraint, prefer, time limit,
 *   admin_comment: a versioned key=value record, see decide_admin_comment).
 * Work is bounded by the conf sizes, the fixed string lengths and passes
 * over the nodes the caller hands over: one per candidate type (the
 * requested one and each group mate, at most NODEOX_MAX_TYPES, each ending
 * at the first usable node of the type), one more for when-blocked, and
 * when-faster's estimate (policy_estimate.c: two over the nodes, at most two
 * over the running jobs). Per node, the partition and feature tests walk
 * comma lists no longer than NODEOX_STR_MAX, the job's of at most
 * NODEOX_MAX_JOB_PARTS names (checked first). Nothing is allocated.
 */
#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "policy/policy_internal.h"

/* The four GPU request fields, in the order of nodeox_form_t, whose names
 * (nodeox_form_name) the admin_comment record's gpus= uses. */
enum {
	F_JOB = NODEOX_FORM_JOB,
	F_NODE = NODEOX_FORM_NODE,
	F_TASK = NODEOX_FORM_TASK,
	F_SOCKET = NODEOX_FORM_SOCKET,
	F_N = NODEOX_NFORMS
};
static const char *const decide_field_names[F_N] = {
	"tres_per_job",
	"tres_per_node",
	"tres_per_task",
	"tres_per_socket",
};
/* Where each field's rewritten string goes in nodeox_decision_t. */
static const size_t decide_field_off[F_N] = {
	offsetof(nodeox_decision_t, tres_per_job),
	offsetof(nodeox_decision_t, tres_per_node),
	offsetof(nodeox_decision_t, tres_per_task),
	offsetof(nodeox_decision_t, tres_per_socket),
};

/* What the job asked for, found in its four TRES fields. */
typedef struct {
	const char *field[F_N];
	nodeox_tres_gpu_t e[F_N][NODEOX_TRES_MAX_GPU];
	int n[F_N];
	bool typed[F_N];
	const char *type; /* points into a field */
	size_t type_len;
} decide_req_t;

__attribute__((format(printf, 2, 3))) static void decide_keep(nodeox_decision_t *out, const char *fmt, ...)
{
	va_list ap;

	out->action = NODEOX_KEEP;
	out->tres_per_job_set = out->tres_per_node_set = false;
	out->tres_per_task_set = out->tres_per_socket_set = false;
	out->features_set = out->prefer_set = out->time_limit_set = false;
	va_start(ap, fmt);
	vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
	va_end(ap);
}

static bool decide_same(const char *a, size_t an, const char *b, size_t bn)
{
	size_t i;

	if (an != bn)
		return false;
	for (i = 0; i < an; i++)
		if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
			return false;
	return true;
}

static bool decide_empty(const char *s)
{
	return !s || !*s;
}

bool nodeox_policy_parts_ok(const char *parts, char *err, size_t errlen)
{
	size_t len = parts ? strnlen(parts, NODEOX_STR_MAX) : 0, n;
	int names = 0;

	if (len >= NODEOX_STR_MAX) {
		if (errlen)
			snprintf(err, errlen,
				 "not broadened: the job's partition list is %d characters or "
				 "longer",
				 NODEOX_STR_MAX);
		return false;
	}
	for (const char *c = parts, *it; nodeox_util_list_next(&c, &it, &n);)
		if (++names > NODEOX_MAX_JOB_PARTS) {
			if (errlen)
				snprintf(err, errlen, "not broadened: the job names more than %d partitions",
					 NODEOX_MAX_JOB_PARTS);
			return false;
		}
	return true;
}

/* KEEP if the job is outside Partitions= / Allow* / Deny*. */
static bool decide_in_scope(const nodeox_conf_t *conf, const nodeox_job_t *job, nodeox_decision_t *out)
{
	const struct {
		const nodeox_namelist_t *allow, *deny;
		const char *value, *what;
	} scopes[] = {
		{ &conf->allow_accounts, &conf->deny_accounts, job->account, "account" },
		{ &conf->allow_users, &conf->deny_users, job->user, "user" },
	};
	char q[64];
	size_t k, n;
	int i;

	if (conf->partitions.n) {
		const char *p = job->partition, *it;
		int names = 0;

		/* empty items skipped, as slurmctld's get_part_list (strtok_r) does */
		for (; nodeox_util_list_next(&p, &it, &n); names++) {
			bool ok = false;

			for (i = 0; i < conf->partitions.n && !ok; i++)
				ok = nodeox_util_eq(it, n, conf->partitions.names[i]);
			if (!ok) {
				nodeox_util_quote(q, sizeof(q), it, n);
				decide_keep(out,
					    "not broadened: partition %s is not in "
					    "Partitions= of nodeox.conf",
					    q);
				return false;
			}
		}
		if (!names) {
			decide_keep(out, "not broadened: the job names no partition and "
					 "Partitions= is set in nodeox.conf");
			return false;
		}
	}
	for (k = 0; k < sizeof(scopes) / sizeof(scopes[0]); k++) {
		const char *v = scopes[k].value;
		bool allowed = scopes[k].allow->n == 0;

		for (i = 0; v && i < scopes[k].deny->n; i++)
			if (!strcmp(v, scopes[k].deny->names[i])) {
				nodeox_util_quote(q, sizeof(q), v, strlen(v));
				decide_keep(out, "not broadened: %s %s is denied in nodeox.conf",
					    scopes[k].what, q);
				return false;
			}
		for (i = 0; v && i < scopes[k].allow->n && !allowed; i++)
			allowed = !strcmp(v, scopes[k].allow->names[i]);
		if (!allowed) {
			nodeox_util_quote(q, sizeof(q), v ? v : "(none)", v ? strlen(v) : 6);
			decide_keep(out, "not broadened: %s %s is not allowed in nodeox.conf", scopes[k].what,
				    q);
			return false;
		}
	}
	return true;
}

/* Find the typed GPU request; KEEP unless there is exactly one GPU type. */
static bool decide_request(const nodeox_job_t *job, decide_req_t *r, nodeox_decision_t *out)
{
	bool any = false;
	char q1[64], q2[64];
	int f, i;

	memset(r, 0, sizeof(*r));
	r->field[F_JOB] = job->tres_per_job;
	r->field[F_NODE] = job->tres_per_node;
	r->field[F_TASK] = job->tres_per_task;
	r->field[F_SOCKET] = job->tres_per_socket;
	for (f = 0; f < F_N; f++) {
		r->n[f] = nodeox_tres_scan(r->field[f], r->e[f], NODEOX_TRES_MAX_GPU);
		if (r->n[f] < 0 || r->n[f] > NODEOX_TRES_MAX_GPU) {
			decide_keep(out,
				    "not broadened: %s is too long or has too many gpu "
				    "entries",
				    decide_field_names[f]);
			return false;
		}
		for (i = 0; i < r->n[f]; i++) {
			const nodeox_tres_gpu_t *e = &r->e[f][i];
			const char *t = r->field[f] + e->type_off;

			any = true;
			/* Slurm refuses it; rewritten, it could ask for something else */
			if (e->problem != NODEOX_TRES_OK) {
				nodeox_util_quote(q1, sizeof(q1), r->field[f] + e->start, e->end - e->start);
				decide_keep(out, "not broadened: GPU entry '%s' in %s %s", q1,
					    decide_field_names[f], nodeox_tres_problem_text(e->problem));
				return false;
			}
			if (!e->type_len)
				continue;
			r->typed[f] = true;
			if (!r->type) {
				r->type = t;
				r->type_len = e->type_len;
			} else if (!decide_same(r->type, r->type_len, t, e->type_len)) {
				nodeox_util_quote(q1, sizeof(q1), r->type, r->type_len);
				nodeox_util_quote(q2, sizeof(q2), t, e->type_len);
				decide_keep(out,
					    "not broadened: two GPU types in one request "
					    "(%s and %s)",
					    q1, q2);
				return false;
			}
		}
	}
	if (!any) {
		decide_keep(out, "not broadened: the job requests no GPUs");
		return false;
	}
	if (!r->type) {
		decide_keep(out, "not broadened: the GPU request names no type (any GPU "
				 "already serves it)");
		return false;
	}
	return true;
}

/* Does a usable node in the job's partitions carry type t's feature? */
static bool decide_type_present(const nodeox_cluster_t *cl, const nodeox_job_t *job,
				const nodeox_gpu_type_t *t)
{
	size_t i;

	for (i = 0; i < cl->nnodes; i++) {
		const nodeox_node_t *nd = &cl->nodes[i];

		if (nd->usable && nodeox_node_has_feature(nd, t) && nodeox_node_in_parts(nd, job->partition))
			return true;
	}
	return false;
}

/* What the job needs at once, from its GPU request (nodeox_shape_t). */
static void decide_shape(const nodeox_job_t *job, const decide_req_t *r, nodeox_shape_t *sh)
{
	uint64_t sum[F_N] = { 0 }, node_need;
	int f, j;

	for (f = 0; f < F_N; f++)
		for (j = 0; j < r->n[f]; j++)
			sum[f] += r->e[f][j].count;
	node_need = sum[F_NODE] > sum[F_SOCKET] ? sum[F_NODE] : sum[F_SOCKET];
	if (sum[F_TASK] > node_need)
		node_need = sum[F_TASK];
	sh->nodes = job->min_nodes ? job->min_nodes : 1;
	sh->per_node = node_need ? node_need : 1;
	sh->total = nodeox_mul_sat(sum[F_TASK], job->num_tasks ? job->num_tasks : 1);
	if (sum[F_JOB] > sh->total)
		sh->total = sum[F_JOB];
}

/* Broaden=when-blocked: enough idle GPUs of the requested type right now?
 * Counts idle GPUs on usable nodes of the job's partitions that carry the
 * type's feature (or report the type as their gres type). */
static bool decide_can_serve(const nodeox_cluster_t *cl, const nodeox_job_t *job, const nodeox_gpu_type_t *t,
			     const nodeox_shape_t *sh)
{
	uint64_t idle_sum = 0, nodes_fit = 0;
	size_t i;

	for (i = 0; i < cl->nnodes; i++) {
		const nodeox_node_t *nd = &cl->nodes[i];

		/* cheapest first: the string tests are what this loop costs */
		if (!nd->usable || !nd->gpus_idle || !nodeox_node_is_type(nd, t) ||
		    !nodeox_node_in_parts(nd, job->partition))
			continue;
		idle_sum += nd->gpus_idle;
		if (nd->gpus_idle >= sh->per_node)
			nodes_fit++;
	}
	return nodes_fit >= sh->nodes && idle_sum >= sh->total && idle_sum > 0;
}

/* Why type c (a group mate of req) is not eligible, or NULL if it is. */
static const char *decide_exclude(const nodeox_conf_t *conf, const nodeox_job_t *job,
				  const nodeox_cluster_t *cl, const nodeox_tag_t *tag, int req, int c,
				  const nodeox_decision_t *out)
{
	const nodeox_gpu_type_t *t = &conf->types[c];
	int j;

	if (conf->min_speed > 0 && out->speed[c] < conf->min_speed * out->speed[req])
		return "below MinSpeed";
	if (tag->min_mem_mb && t->mem_mb < tag->min_mem_mb)
		return t->mem_mb ? "too little memory" : "memory unknown";
	if (tag->nonly) {
		for (j = 0; j < tag->nonly; j++)
			if (tag->only[j] == c)
				break;
		if (j == tag->nonly)
			return "not in the tag's types=";
	}
	if (cl && !decide_type_present(cl, job, t))
		return "on no usable node of the job's partitions";
	return NULL;
}

/* "l40s at 0.41 for workload bert-ft, from 37 jobs": where type c's speed
 * for the job came from, when the speed table gave it. */
static void decide_speed_said(const nodeox_conf_t *conf, int c, const nodeox_speed_t *e, nodeox_buf_t *b)
{
	nodeox_buf_printf(b, "%s at %g for %s %s, from %u job%s", conf->types[c].name, e->speed,
			  nodeox_scope_name(e->scope), e->name, e->jobs, e->jobs == 1 ? "" : "s");
}

/*
 * The job's speed on each group mate of req (mate[]): its workload's entry
 * in the speed table, else its user's, else its account's, else Speed=.
 * An entry's speed is relative to req; out->speed keeps Speed= units so
 * that a job without entries is decided exactly as without a table.
 */
static void decide_speeds(const nodeox_conf_t *conf, const nodeox_job_t *job, const nodeox_tag_t *tag,
			  int req, const bool *mate, nodeox_decision_t *out, const nodeox_speed_t **entry)
{
	char workload[NODEOX_NAME_MAX];
	const char *names[NODEOX_NSCOPES];
	int i, s;

	for (i = 0; i < conf->ntypes; i++) {
		out->speed[i] = conf->types[i].speed;
		out->speed_from[i] = -1;
		entry[i] = NULL;
	}
	if (!conf->speeds)
		return;
	nodeox_speeds_workload(tag, job->name, workload, sizeof(workload));
	names[NODEOX_SCOPE_WORKLOAD] = workload;
	names[NODEOX_SCOPE_USER] = job->user;
	names[NODEOX_SCOPE_ACCOUNT] = job->account;
	for (i = 0; i < conf->ntypes; i++) {
		if (!mate[i])
			continue;
		for (s = 0; s < NODEOX_NSCOPES && !entry[i]; s++)
			if (names[s] && names[s][0])
				entry[i] = nodeox_speeds_find(conf->speeds, (nodeox_scope_t)s, names[s],
							      conf->types[req].name, conf->types[i].name);
		if (entry[i]) {
			out->speed[i] = entry[i]->speed * conf->types[req].speed;
			out->speed_from[i] = (int)entry[i]->scope;
		}
	}
}

/* Fill out->eligible. Returns false (KEEP) if no type beyond req is left. */
static bool decide_eligible(const nodeox_conf_t *conf, const nodeox_job_t *job, const nodeox_cluster_t *cl,
			    const nodeox_tag_t *tag, int req, nodeox_decision_t *out,
			    const nodeox_speed_t **entry)
{
	bool mate[NODEOX_MAX_TYPES] = { false }, grouped = false;
	char why[NODEOX_ERR_MAX];
	nodeox_buf_t wb;
	int g, i, others = 0;

	for (g = 0; g < conf->ngroups; g++) {
		const nodeox_group_t *gr = &conf->groups[g];
		bool in = false;

		for (i = 0; i < gr->ntypes; i++)
			in = in || gr->types[i] == req;
		if (!in)
			continue;
		grouped = true;
		for (i = 0; i < gr->ntypes; i++)
			if (gr->types[i] != req)
				mate[gr->types[i]] = true;
	}
	if (!grouped) {
		decide_keep(out, "not broadened: GPU type %s is in no Group= of nodeox.conf",
			    conf->types[req].name);
		return false;
	}
	decide_speeds(conf, job, tag, req, mate, out, entry);
	out->neligible = 0;
	if (!cl || decide_type_present(cl, job, &conf->types[req]))
		out->eligible[out->neligible++] = req;
	nodeox_buf_init(&wb, why, sizeof(why));
	for (i = 0; i < conf->ntypes; i++) {
		const char *no;

		if (!mate[i])
			continue;
		no = decide_exclude(conf, job, cl, tag, req, i, out);
		if (no) {
			nodeox_buf_puts(&wb, wb.len ? "; " : "");
			if (entry[i]) { /* "l40s at 0.25 for workload w, from 37 jobs: below MinSpeed" */
				decide_speed_said(conf, i, entry[i], &wb);
				nodeox_buf_printf(&wb, ": %s", no);
			} else {
				nodeox_buf_printf(&wb, "%s %s", conf->types[i].name, no);
			}
			continue;
		}
		out->eligible[out->neligible++] = i;
		others++;
	}
	if (!others) {
		decide_keep(out, "not broadened: no type eligible beyond %s (%s)", conf->types[req].name,
			    why);
		return false;
	}
	return true;
}

/* Is there a '|' outside parentheses and brackets? Then it needs wrapping. */
static bool decide_top_or(const char *s)
{
	return s[nodeox_util_top_span(s, "|")] != '\0';
}

/* Is s[0..n) "f1|f2|..." (optionally in one () or []) of GPU type features only? */
static bool decide_gpu_term(const nodeox_conf_t *conf, const char *s, size_t n)
{
	size_t off = 0;
	int i;

	if (n >= 2 && ((s[0] == '(' && s[n - 1] == ')') || (s[0] == '[' && s[n - 1] == ']'))) {
		s++;
		n -= 2;
	}
	if (!n)
		return false;
	while (off <= n) {
		const char *bar = memchr(s + off, '|', n - off);
		size_t len = bar ? (size_t)(bar - (s + off)) : n - off;
		bool known = false;

		for (i = 0; i < conf->ntypes && !known; i++)
			known = strlen(conf->types[i].feature) == len &&
				!memcmp(conf->types[i].feature, s + off, len);
		if (!known)
			return false;
		off += len + 1;
	}
	return true;
}

/*
 * Copy the user's constraint without its top-level '&' terms that name only
 * GPU type features ("a100", "a100|l40s", "(a100|l40s)", "[a100|l40s]"): the
 * tag says which types may be used, and deciding again for an already
 * broadened job must not stack a second type term onto the first.
 */
static void decide_strip_gpu_terms(const nodeox_conf_t *conf, const char *user, char *dst, size_t cap)
{
	nodeox_buf_t b;

	nodeox_buf_init(&b, dst, cap);
	if (decide_top_or(user)) { /* one term, or too complex to split */
		if (!decide_gpu_term(conf, user, strlen(user)))
			nodeox_buf_puts(&b, user);
		return;
	}
	for (const char *t = user;; t++) {
		size_t n = nodeox_util_top_span(t, "&,");

		if (n && !decide_gpu_term(conf, t, n)) {
			nodeox_buf_puts(&b, b.len ? "&" : "");
			nodeox_buf_putn(&b, t, n);
		}
		t += n;
		if (!*t)
			break;
	}
}

/*
 * Can nodeox AND its type term to this constraint and know what it means?
 * Feature names, & , | ( ) [ ] only, well formed (operators between operands,
 * brackets balanced and nested): a node count (`ib*1`) makes Slurm pick nodes
 * by the counted features alone, so the type term would not bind, and
 * anything else (NOT, spaces, control characters, a dangling operator or
 * bracket that would swallow the type term) is syntax nodeox does not reason
 * about. KEEP with the reason otherwise.
 */
static bool decide_constraint_ok(const char *user, nodeox_decision_t *out)
{
	char open[NODEOX_STR_MAX]; /* the brackets not closed yet */
	int depth = 0;
	bool operand = false; /* the last token was a name or a closing bracket */
	const char *p;
	char q[64];

	for (p = user; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (isalnum(c) || strchr("_.:=+/@-", c)) {
			operand = true;
			continue;
		}
		if (c == '*') {
			decide_keep(out, "not broadened: the constraint counts nodes (*N); "
					 "nodeox cannot combine node counts with GPU types");
			return false;
		}
		if (c == '&' || c == '|' || c == ',') {
			if (!operand)
				break; /* an operator with nothing before it */
			operand = false;
		} else if (c == '(' || c == '[') {
			if (operand || depth >= (int)sizeof(open))
				break;
			open[depth++] = (char)c;
		} else if (c == ')' || c == ']') {
			if (!operand || !depth || open[depth - 1] != (c == ')' ? '(' : '['))
				break;
			depth--;
		} else {
			nodeox_util_quote(q, sizeof(q), p, 1);
			decide_keep(out,
				    "not broadened: the constraint has a character nodeox "
				    "does not reason about ('%s')",
				    q);
			return false;
		}
	}
	if (*p || depth || !operand) {
		decide_keep(out, "not broadened: the constraint is not well formed (an operator "
				 "without operands, or unbalanced brackets)");
		return false;
	}
	return true;
}

/* New constraint: user's AND (OR of eligible features), or [a|b] for uniform. */
static bool decide_features(const nodeox_conf_t *conf, const nodeox_job_t *job, const nodeox_tag_t *tag,
			    nodeox_decision_t *out)
{
	char user[NODEOX_STR_MAX];
	bool has_user = !decide_empty(job->features), wrap_user = false, paren_ours;
	nodeox_buf_t b;
	int i;

	if (has_user && strnlen(job->features, NODEOX_STR_MAX) >= NODEOX_STR_MAX) {
		decide_keep(out, "not broadened: the job's constraint is too long");
		return false;
	}
	if (has_user && !decide_constraint_ok(job->features, out))
		return false;
	if (has_user)
		decide_strip_gpu_terms(conf, job->features, user, sizeof(user));
	has_user = has_user && user[0];
	if (has_user && tag->uniform && strchr(user, '[')) {
		decide_keep(out, "not broadened: the constraint already has a [...] set; "
				 "Slurm allows only one, so uniform cannot be added");
		return false;
	}
	if (has_user && decide_top_or(user)) {
		if (strchr(user, '(') || strchr(user, '[')) {
			decide_keep(out, "not broadened: the constraint mixes '|' with (...) "
					 "or [...]; cannot AND the GPU types to it safely");
			return false;
		}
		wrap_user = true;
	}
	paren_ours = has_user && !tag->uniform && out->neligible > 1;
	nodeox_buf_init(&b, out->features, sizeof(out->features));
	if (has_user) {
		nodeox_buf_puts(&b, wrap_user ? "(" : "");
		nodeox_buf_puts(&b, user);
		nodeox_buf_puts(&b, wrap_user ? ")&" : "&");
	}
	nodeox_buf_puts(&b, tag->uniform ? "[" : paren_ours ? "(" : "");
	for (i = 0; i < out->neligible; i++) {
		nodeox_buf_puts(&b, i ? "|" : "");
		nodeox_buf_puts(&b, conf->types[out->eligible[i]].feature);
	}
	nodeox_buf_puts(&b, tag->uniform ? "]" : paren_ours ? ")" : "");
	if (b.overflow) {
		decide_keep(out, "not broadened: the new constraint would exceed %d characters",
			    NODEOX_STR_MAX - 1);
		return false;
	}
	out->features_set = true;
	return true;
}

/*
 * Scale the time limit by the run time factor, but never past job->time_cap
 * (a limit above the partition's MaxTime would leave the job pending forever,
 * or rejected with EnforcePartLimits), and never below what the user asked.
 */
static void decide_time(const nodeox_conf_t *conf, const nodeox_job_t *job, int req, nodeox_decision_t *out)
{
	double slowest = out->speed[req], f;
	uint32_t scaled;
	int i;

	for (i = 0; i < out->neligible; i++)
		if (out->speed[out->eligible[i]] < slowest)
			slowest = out->speed[out->eligible[i]];
	f = out->speed[req] / slowest;
	out->run_time_factor = f > 1.0 ? f : 1.0;
	out->time_limit = job->time_limit;
	if (!conf->scale_time_limit || out->run_time_factor <= 1.0 || !job->time_limit ||
	    job->time_limit == NODEOX_TIME_NONE || job->time_limit == NODEOX_TIME_INFINITE)
		return;
	f = ceil((double)job->time_limit * out->run_time_factor - 1e-9);
	scaled = f >= (double)(NODEOX_TIME_NONE - 1) ? NODEOX_TIME_NONE - 1 : (uint32_t)f;
	out->time_scaled = scaled;
	if (job->time_cap && scaled > job->time_cap) {
		out->time_capped = true;
		if (job->time_cap <= job->time_limit)
			return; /* already at (or past) the cap: leave it as asked */
		scaled = job->time_cap;
	}
	out->time_limit = scaled;
	out->time_limit_set = true;
}

/*
 * The admin_comment record (format v=1, specified in nodeox.conf(5), section
 * ADMIN COMMENT RECORD, and read back by nodeox-sacct-import):
 *
 *   nodeox: changed v=1 type=a100 gpus=node:4 tag=nodeox:flex:mem=40G
 *     time_limit=60->120 tres_per_node=gres:gpu:a100:4->gres:gpu:4
 *     features=ib->ib&(a100%7Cl40s) prefer=->a100 [cut=KEY+KEY]
 *
 * One line of space-separated key=value words. Values are percent-encoded:
 * every byte outside [A-Za-z0-9] and "!#$&()*+,-./:<=?@[]^_{}~" becomes %XX,
 * so a record never holds a blank inside a value, '|' (sacct -P's delimiter),
 * ';' (the glue's separator from an admin's own text), '>' (the FROM->TO
 * arrow), a quote, a backslash or a control byte, whatever the user's
 * constraint holds. Keys come in a fixed order, the short ones the importer
 * needs first; a key that would not fit in admin_comment is left out whole
 * and named in cut=, so a record is never cut in the middle of a value.
 */
static const char decide_record_safe[] = "!#$&()*+,-./:<=?@[]^_{}~";
#define DECIDE_CUT_ROOM 112 /* " cut=" and the names of every key that can be left out */

static bool decide_record_byte_ok(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr(decide_record_safe, c));
}

/* Append s, percent-encoded, to b. */
static void decide_record_encode(nodeox_buf_t *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		char e[3] = { '%', hex[c >> 4], hex[c & 15] };

		if (decide_record_byte_ok(c))
			nodeox_buf_putn(b, s, 1);
		else
			nodeox_buf_putn(b, e, 3);
	}
}

/* One " key=VALUE" word (or " key=FROM->TO" when to is not NULL), appended
 * only if it fits in limit bytes; otherwise its key goes to the cut list. */
static void decide_record_put(nodeox_buf_t *rec, size_t limit, nodeox_buf_t *cut, const char *key,
			      const char *from, const char *to)
{
	char word[NODEOX_STR_MAX]; /* a longer word would not fit anyway */
	nodeox_buf_t w;

	nodeox_buf_init(&w, word, sizeof(word));
	nodeox_buf_printf(&w, " %s=", key);
	decide_record_encode(&w, from);
	if (to) {
		nodeox_buf_puts(&w, "->");
		decide_record_encode(&w, to);
	}
	if (w.overflow || rec->len + w.len >= limit) {
		nodeox_buf_printf(cut, "%s%s", cut->len ? "+" : "", key);
		return;
	}
	nodeox_buf_putn(rec, word, w.len);
}

/* The tag as the policy read it, in canonical spelling. */
static void decide_record_tag(const nodeox_conf_t *conf, const nodeox_tag_t *tag, char *dst, size_t cap)
{
	nodeox_buf_t b;
	int i;

	nodeox_buf_init(&b, dst, cap);
	nodeox_buf_puts(&b, "nodeox:flex");
	if (tag->min_mem_mb % (1024 * 1024) == 0 && tag->min_mem_mb)
		nodeox_buf_printf(&b, ":mem=%lluT", (unsigned long long)(tag->min_mem_mb >> 20));
	else if (tag->min_mem_mb % 1024 == 0 && tag->min_mem_mb)
		nodeox_buf_printf(&b, ":mem=%lluG", (unsigned long long)(tag->min_mem_mb >> 10));
	else if (tag->min_mem_mb)
		nodeox_buf_printf(&b, ":mem=%lluM", (unsigned long long)tag->min_mem_mb);
	for (i = 0; i < tag->nonly; i++)
		nodeox_buf_printf(&b, "%s%s", i ? "+" : ":types=",
				  tag->only[i] >= 0 && tag->only[i] < conf->ntypes
					  ? conf->types[tag->only[i]].name
					  : "?");
	if (tag->uniform)
		nodeox_buf_puts(&b, ":uniform");
	if (tag->workload[0])
		nodeox_buf_printf(&b, ":workload=%s", tag->workload);
}

/* admin_comment: the job's original request and what nodeox made of it. */
static void decide_admin_comment(const nodeox_conf_t *conf, const nodeox_job_t *job, const nodeox_tag_t *tag,
				 const decide_req_t *r, nodeox_decision_t *out)
{
	char type[NODEOX_NAME_MAX], gpus[F_N * 32], tagtxt[NODEOX_STR_MAX], cutbuf[DECIDE_CUT_ROOM];
	char tl_from[16], tl_to[16];
	size_t limit = sizeof(out->admin_comment) - DECIDE_CUT_ROOM;
	nodeox_buf_t rec, cut, g;
	int f, i;

	snprintf(type, sizeof(type), "%.*s", (int)r->type_len, r->type);
	nodeox_buf_init(&g, gpus, sizeof(gpus));
	for (f = 0; f < F_N; f++) {
		uint64_t n = 0;

		if (!r->typed[f])
			continue;
		for (i = 0; i < r->n[f]; i++)
			if (r->e[f][i].type_len)
				n += r->e[f][i].count;
		nodeox_buf_printf(&g, "%s%s:%llu", g.len ? "," : "", nodeox_form_name((nodeox_form_t)f),
				  (unsigned long long)n);
	}
	decide_record_tag(conf, tag, tagtxt, sizeof(tagtxt));
	nodeox_buf_init(&rec, out->admin_comment, sizeof(out->admin_comment));
	nodeox_buf_init(&cut, cutbuf, sizeof(cutbuf));
	nodeox_buf_puts(&rec, out->dryrun ? "nodeox dryrun: would change v=1" : NODEOX_RECORD_MARK " v=1");
	decide_record_put(&rec, limit, &cut, "type", type, NULL);
	decide_record_put(&rec, limit, &cut, "gpus", gpus, NULL);
	decide_record_put(&rec, limit, &cut, "tag", tagtxt, NULL);
	if (out->time_limit_set) {
		snprintf(tl_from, sizeof(tl_from), "%u", job->time_limit);
		snprintf(tl_to, sizeof(tl_to), "%u", out->time_limit);
		decide_record_put(&rec, limit, &cut, "time_limit", tl_from, tl_to);
	}
	for (f = 0; f < F_N; f++)
		if (r->typed[f])
			decide_record_put(&rec, limit, &cut, decide_field_names[f], r->field[f],
					  (const char *)out + decide_field_off[f]);
	decide_record_put(&rec, limit, &cut, "features", job->features, out->features);
	if (out->prefer_set)
		decide_record_put(&rec, limit, &cut, "prefer", "", out->prefer);
	if (cut.len)
		nodeox_buf_printf(&rec, " cut=%s", cutbuf);
}

/* Append " (l40s at 0.41 for workload bert-ft, from 37 jobs; ...)" to the
 * reason for each eligible type whose speed the table gave, if it fits. */
static void decide_speed_note(const nodeox_conf_t *conf, const nodeox_speed_t *const *entry,
			      nodeox_decision_t *out)
{
	char line[NODEOX_ERR_MAX];
	size_t have = strlen(out->reason);
	nodeox_buf_t b;
	int i;

	nodeox_buf_init(&b, line, sizeof(line));
	for (i = 0; i < out->neligible; i++) {
		if (!entry[out->eligible[i]])
			continue;
		nodeox_buf_puts(&b, b.len ? "; " : " (");
		decide_speed_said(conf, out->eligible[i], entry[out->eligible[i]], &b);
	}
	if (!b.len)
		return;
	nodeox_buf_puts(&b, ")");
	if (!b.overflow && have + b.len < sizeof(out->reason))
		memcpy(out->reason + have, line, b.len + 1);
}

static void decide_reason(const nodeox_conf_t *conf, const nodeox_job_t *job, const decide_req_t *r,
			  nodeox_decision_t *out)
{
	nodeox_buf_t b;
	char q[64];
	int i;

	nodeox_util_quote(q, sizeof(q), r->type, r->type_len);
	nodeox_buf_init(&b, out->reason, sizeof(out->reason));
	nodeox_buf_printf(&b, "%sGPU type %s broadened to ", out->dryrun ? "dryrun, not applied: " : "", q);
	for (i = 0; i < out->neligible; i++)
		nodeox_buf_printf(&b, "%s%s", i ? "|" : "", conf->types[out->eligible[i]].name);
	if (out->time_limit_set)
		nodeox_buf_printf(&b, ", time limit %u -> %u min", job->time_limit, out->time_limit);
	if (out->time_capped)
		nodeox_buf_printf(&b, "%s (%u min would allow for the slowest type; capped by %s)",
				  out->time_limit_set ? "" : ", time limit not scaled", out->time_scaled,
				  job->time_cap_what ? job->time_cap_what : "the job's limits");
	if (b.overflow)
		snprintf(out->reason, sizeof(out->reason), "%sGPU type %s broadened to %d types",
			 out->dryrun ? "dryrun, not applied: " : "", q, out->neligible);
}

/* "now", "in under a minute", "in about 4 min": a time t seconds from now. */
static void decide_when(char *dst, size_t cap, int64_t t)
{
	if (t <= 0)
		snprintf(dst, cap, "now");
	else if (t < 60)
		snprintf(dst, cap, "in under a minute");
	else
		snprintf(dst, cap, "in about %lld min", (long long)((t + 30) / 60));
}

/* The eligible types as "a100|l40s". */
static void decide_type_list(const nodeox_conf_t *conf, const nodeox_decision_t *out, nodeox_buf_t *b)
{
	int i;

	for (i = 0; i < out->neligible; i++)
		nodeox_buf_printf(b, "%s%s", i ? "|" : "", conf->types[out->eligible[i]].name);
}

/*
 * Broaden=when-faster: estimate both finishes (policy_estimate.c) and KEEP
 * with the reason when kept is sooner, or not later by WhenFasterMargin.
 * Returns true to go on broadening. Without what an estimate needs (the
 * caller's state, or a time limit) *fallback names why, and the job is
 * decided as Broaden=when-blocked would.
 */
static bool decide_faster(const nodeox_conf_t *conf, const nodeox_job_t *job, const nodeox_cluster_t *cl,
			  int req, const nodeox_shape_t *shape, nodeox_decision_t *out, const char **fallback)
{
	nodeox_estimate_t *e = &out->estimate;
	uint32_t lim = job->time_limit;
	char ks[40], kf[40], bf[40], types[NODEOX_ERR_MAX];
	nodeox_buf_t tb;

	if (lim == NODEOX_TIME_NONE || lim == NODEOX_TIME_INFINITE || !lim)
		lim = job->time_cap;
	if (!lim) {
		*fallback = "when-faster, as when-blocked: the job has no time limit to estimate with";
		return true;
	}
	nodeox_estimate_make(conf, job, cl, req, out->eligible, out->neligible, shape, (int64_t)lim * 60, e);
	if (!e->made) {
		*fallback = e->map_cut	   ? e->map_cut_what
			    : cl->state_cut ? "when-faster, as when-blocked: more nodes or jobs in the cluster "
					      "than the estimate reads"
					    : "when-faster, as when-blocked: no cluster state to estimate with";
		return true;
	}
	if (e->broaden)
		return true;
	nodeox_buf_init(&tb, types, sizeof(types));
	decide_type_list(conf, out, &tb);
	decide_when(ks, sizeof(ks), e->kept_start);
	decide_when(kf, sizeof(kf), e->kept_finish);
	if (e->kept_backfill)
		decide_keep(out,
			    "kept: %s free now for its %u min limit, which ends before the "
			    "jobs ahead can take those GPUs: backfill can start it as asked "
			    "(Broaden=when-faster)",
			    conf->types[req].name, lim);
	else if (e->kept_start < 0 && e->broad_start < 0)
		decide_keep(out,
			    "kept: the jobs ahead want more GPUs than the running jobs "
			    "give back, on %s as on %s: no sooner finish broadened "
			    "(Broaden=when-faster)",
			    conf->types[req].name, types);
	else if (e->broad_start < 0)
		decide_keep(out,
			    "kept: %s expected free %s, finishing there is sooner (%s; "
			    "%s not expected sooner; Broaden=when-faster)",
			    conf->types[req].name, ks, kf, types);
	else if (e->tie_kept) {
		decide_when(bf, sizeof(bf), e->broad_finish);
		decide_keep(out,
			    "kept: %s expected free %s, finishing %s; broadened to %s it "
			    "would finish %s, within backfill's %d s resolution: a tie, "
			    "and the other types' GPUs stay with the jobs that asked for "
			    "them (Broaden=when-faster)",
			    conf->types[req].name, ks, kf, types, bf, NODEOX_MAP_RESOLUTION);
	} else if (e->broad_finish < e->kept_finish) {
		decide_when(bf, sizeof(bf), e->broad_finish);
		decide_keep(out,
			    "kept: %s expected free %s, finishing %s; broadened to %s it "
			    "would finish %s, less than WhenFasterMargin=%g sooner "
			    "(Broaden=when-faster)",
			    conf->types[req].name, ks, kf, types, bf, conf->when_faster_margin);
	} else if (e->broad_finish == e->kept_finish) {
		decide_keep(out,
			    "kept: %s expected free %s, finishing %s; broadened to %s it "
			    "would finish no sooner (Broaden=when-faster)",
			    conf->types[req].name, ks, kf, types);
	} else {
		decide_when(bf, sizeof(bf), e->broad_finish);
		decide_keep(out,
			    "kept: %s expected free %s, finishing there is sooner (%s; "
			    "broadened to %s: %s; Broaden=when-faster)",
			    conf->types[req].name, ks, kf, types, bf);
	}
	return false;
}

/* Append a, b to the reason where both fit whole. */
static void decide_append(nodeox_decision_t *out, const char *a, const char *b)
{
	size_t n = strlen(out->reason), la = strlen(a), lb = strlen(b);

	if (n + la + lb < sizeof(out->reason)) {
		memcpy(out->reason + n, a, la);
		memcpy(out->reason + n + la, b, lb + 1);
	}
}

/* Broadened by the estimate: say why, after what was changed. */
static void decide_faster_why(const nodeox_conf_t *conf, int req, nodeox_decision_t *out)
{
	const nodeox_estimate_t *e = &out->estimate;
	char line[NODEOX_ERR_MAX], bs[40], bf[40], kf[40];
	nodeox_buf_t b;

	decide_when(bs, sizeof(bs), e->broad_start);
	decide_when(bf, sizeof(bf), e->broad_finish);
	nodeox_buf_init(&b, line, sizeof(line));
	nodeox_buf_printf(&b, "; broadened: %s ", conf->types[req].name);
	if (e->kept_start < 0 && e->horizon <= 0) {
		nodeox_buf_puts(&b, "not expected free");
	} else if (e->kept_start < 0) {
		decide_when(kf, sizeof(kf), e->horizon);
		nodeox_buf_printf(&b, "expected free %s at the earliest", kf);
	} else {
		decide_when(kf, sizeof(kf), e->kept_start);
		nodeox_buf_printf(&b, "expected free %s", kf);
	}
	nodeox_buf_printf(&b, ", %s free %s: finishing %s",
			  e->broad_slowest >= 0 ? conf->types[e->broad_slowest].name : "another type", bs,
			  bf);
	if (e->kept_finish >= 0) {
		decide_when(kf, sizeof(kf), e->kept_finish);
		nodeox_buf_printf(&b, " against %s as asked", kf);
	}
	nodeox_buf_puts(&b, " (Broaden=when-faster)");
	if (!b.overflow && strlen(out->reason) + b.len < sizeof(out->reason))
		memcpy(out->reason + strlen(out->reason), line, b.len + 1);
}

void nodeox_policy_decide(const nodeox_conf_t *conf, const nodeox_job_t *job, const nodeox_cluster_t *cluster,
			  nodeox_decision_t *out)
{
	decide_req_t r;
	nodeox_tag_t tag;
	nodeox_shape_t shape;
	const nodeox_speed_t *entry[NODEOX_MAX_TYPES] = { NULL };
	const char *fallback = NULL;
	char name[NODEOX_NAME_MAX], q[64], why[NODEOX_ERR_MAX];
	int f, req, rc;

	memset(out, 0, sizeof(*out));
	out->action = NODEOX_PASS;
	out->requested_type = -1;
	out->run_time_factor = 1.0;
	if (!job)
		return;
	out->time_limit = job->time_limit;
	if (!conf || conf->mode == NODEOX_MODE_OFF)
		return;
	rc = nodeox_tag_parse(job->comment, conf, &tag, out->reason, sizeof(out->reason));
	if (rc == 0)
		return;
	if (rc < 0) {
		out->action = NODEOX_REJECT;
		return;
	}
	if (!nodeox_policy_parts_ok(job->partition, why, sizeof(why))) {
		decide_keep(out, "%s", why);
		return;
	}
	if (!decide_in_scope(conf, job, out) || !decide_request(job, &r, out))
		return;
	nodeox_util_quote(q, sizeof(q), r.type, r.type_len);
	if (r.type_len >= sizeof(name)) {
		decide_keep(out, "not broadened: GPU type %s is not in nodeox.conf", q);
		return;
	}
	memcpy(name, r.type, r.type_len);
	name[r.type_len] = '\0';
	req = nodeox_conf_find_type(conf, name);
	if (req < 0) {
		decide_keep(out, "not broadened: GPU type %s is not in nodeox.conf", q);
		return;
	}
	out->requested_type = req;
	if (!decide_eligible(conf, job, cluster, &tag, req, out, entry))
		return;
	decide_shape(job, &r, &shape);
	shape.speed = out->speed;
	if (conf->broaden == NODEOX_BROADEN_WHEN_FASTER && cluster && out->eligible[0] == req &&
	    !decide_faster(conf, job, cluster, req, &shape, out, &fallback)) {
		decide_speed_note(conf, entry, out);
		return;
	}
	if ((conf->broaden == NODEOX_BROADEN_WHEN_BLOCKED || fallback) && cluster &&
	    out->eligible[0] == req && decide_can_serve(cluster, job, &conf->types[req], &shape)) {
		decide_keep(out, "not broadened: %s can serve the job now (Broaden=%s)",
			    conf->types[req].name, fallback ? fallback : "when-blocked");
		return;
	}
	for (f = 0; f < F_N; f++) {
		if (!r.typed[f])
			continue;
		if (nodeox_tres_untype(r.field[f], r.e[f], r.n[f], (char *)out + decide_field_off[f],
				       NODEOX_STR_MAX)) {
			decide_keep(out, "not broadened: %s would be too long", decide_field_names[f]);
			return;
		}
	}
	out->tres_per_job_set = r.typed[F_JOB];
	out->tres_per_node_set = r.typed[F_NODE];
	out->tres_per_task_set = r.typed[F_TASK];
	out->tres_per_socket_set = r.typed[F_SOCKET];
	if (!decide_features(conf, job, &tag, out))
		return;
	if (conf->prefer_requested && out->eligible[0] == req && decide_empty(job->prefer)) {
		snprintf(out->prefer, sizeof(out->prefer), "%s", conf->types[req].feature);
		out->prefer_set = true;
	}
	decide_time(conf, job, req, out);
	out->action = NODEOX_REWRITE;
	out->dryrun = conf->mode == NODEOX_MODE_DRYRUN;
	decide_admin_comment(conf, job, &tag, &r, out);
	decide_reason(conf, job, &r, out);
	decide_speed_note(conf, entry, out);
	if (out->estimate.made)
		decide_faster_why(conf, req, out);
	else if (fallback)
		decide_append(out, "; ", fallback);
}

const char *nodeox_action_name(nodeox_action_t action)
{
	switch (action) {
	case NODEOX_PASS: return "PASS";
	case NODEOX_KEEP: return "KEEP";
	case NODEOX_REWRITE: return "REWRITE";
	case NODEOX_REJECT: return "REJECT";
	}
	return "?";
}
