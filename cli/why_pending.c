/*
 * why_pending.c: what keeps a pending job from starting, in the job's terms
 * (pure: plain structs in, res->pend out).
 *
 * It starts from the pending reason Slurm gives (Reason=) and turns it into
 * blockers that name the thing in the way and the values compared: the hold
 * and who can release it, the jobs a dependency waits for and their state,
 * the begin time, the higher-priority jobs of the same partitions and the
 * running jobs on the nodes (with backfill's expected start), the partition
 * limit against the job's value, the QOS or association limit, the
 * reservation, the licenses, the nodes that are down or drained, and the CPUs
 * and memory free on the nodes. Whatever the reason, why_never.c is asked
 * whether the job could ever run in its partitions as configured.
 * The GPU view (why_analyze.c) comes after and is only summed up here.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/why.h"

static bool _starts(const char *s, const char *prefix)
{
	return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool _is(const char *s, const char *word)
{
	return s && strcmp(s, word) == 0;
}

/* "2026-11-30T12:18:21", as Slurm prints times (local). */
static void _fmt_when(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!t || !localtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(buf, len, "unknown");
}

static void _job_add(why_blocker_t *b, const why_qjob_t *q)
{
	if (b->njobs < WHY_BLK_MAX_JOBS)
		b->jobs[b->njobs++] = q;
	else
		b->more_jobs++;
}

/* Does the other job share a partition with ours? */
static bool _shares_partition(const why_job_t *job, const char *parts)
{
	return nodeox_util_lists_meet(job->partition, parts);
}

static bool _node_in_job_parts(const why_job_t *job, const why_node_t *n)
{
	return _shares_partition(job, n->partitions);
}

/* Is some node of the comma list in one of the job's partitions? */
static bool _nodes_in_job_parts(const why_job_t *job, const why_cluster_t *cl, const char *list)
{
	for (size_t i = 0; i < cl->nnodes; i++)
		if (why_list_has(list, cl->nodes[i].name) && _node_in_job_parts(job, &cl->nodes[i]))
			return true;
	return false;
}

static bool _same_job(const why_job_t *job, const why_qjob_t *q)
{
	return q->job_id == job->job_id;
}

/* ------------------------------------------------------------- holds */

static void _held(const why_job_t *job, why_pending_t *p)
{
	why_blocker_t *b;

	if (_is(job->reason, "JobHeldUser")) {
		b = why_blockers_add(p, WHY_BLK_HELD_USER, false);
		snprintf(b->detail, sizeof(b->detail),
			 "held by its user (sbatch -H or scontrol hold): it will not start until "
			 "released (scontrol release %u)",
			 job->job_id);
	} else if (_is(job->reason, "JobHeldAdmin")) {
		b = why_blockers_add(p, WHY_BLK_HELD_ADMIN, false);
		snprintf(b->detail, sizeof(b->detail),
			 "held by an administrator%s%s: it will not start until an administrator "
			 "releases it (scontrol release %u); its user cannot",
			 job->reason_desc ? ": " : "", job->reason_desc ? job->reason_desc : "", job->job_id);
	} else {
		return;
	}
	snprintf(b->item, sizeof(b->item), "priority");
	snprintf(b->job_value, sizeof(b->job_value), "%u", job->priority);
}

/* -------------------------------------------------------- dependency */

/* The record of job id (or of its array's first task) in the queue. */
static const why_qjob_t *_qjob_find(const why_cluster_t *cl, uint32_t id)
{
	const why_qjob_t *task = NULL;

	for (size_t i = 0; i < cl->njobs; i++) {
		if (cl->jobs[i].job_id == id)
			return &cl->jobs[i];
		if (!task && cl->jobs[i].array_job_id == id)
			task = &cl->jobs[i];
	}
	return task;
}

/* Could the dependency type still be met by a job in state q? Sets *met. */
static bool _dep_can(const char *type, const why_qjob_t *q, bool *met)
{
	bool ok_end = q->phase == WHY_PHASE_ENDED && _is(q->state_name, "COMPLETED");

	*met = false;
	if (q->phase == WHY_PHASE_PENDING)
		return true;
	if (_is(type, "after")) {
		*met = true;
		return true;
	}
	if (q->phase == WHY_PHASE_ACTIVE)
		return true;
	if (_is(type, "afterany") || _is(type, "afterburstbuffer")) {
		*met = true;
		return true;
	}
	if (_is(type, "afterok") || _is(type, "aftercorr")) {
		*met = ok_end;
		return ok_end;
	}
	if (_is(type, "afternotok")) {
		*met = !ok_end;
		return !ok_end;
	}
	return true;
}

static const char *_dep_wants(const char *type)
{
	if (_is(type, "after"))
		return "until it starts";
	if (_is(type, "afterany"))
		return "until it ends";
	if (_is(type, "afterok"))
		return "until it completes successfully";
	if (_is(type, "afternotok"))
		return "until it fails";
	if (_is(type, "aftercorr"))
		return "until the matching task completes successfully";
	return "";
}

/* One item "afterok:12_3+5(unfulfilled)" or "singleton(unfulfilled)". */
static void _dep_item(const why_job_t *job, const why_cluster_t *cl, const char *item, bool any,
		      why_pending_t *p)
{
	char type[32] = "", state[32] = "", rest[64];
	const char *colon = strchr(item, ':'), *paren = strchr(item, '(');
	size_t tl = colon && (!paren || colon < paren) ? (size_t)(colon - item)
		    : paren                            ? (size_t)(paren - item)
						       : strlen(item);
	why_blocker_t *b;
	const why_qjob_t *q = NULL;
	uint32_t id = 0;
	bool can = true, met = false;

	snprintf(type, sizeof(type), "%.*s", (int)tl, item);
	if (paren)
		snprintf(state, sizeof(state), "%.*s", (int)strcspn(paren + 1, ")"), paren + 1);
	b = why_blockers_add(p, WHY_BLK_DEPENDENCY, false);
	snprintf(b->item, sizeof(b->item), "%s", type);
	if (_is(type, "singleton")) {
		snprintf(b->job_value, sizeof(b->job_value), "singleton");
		snprintf(b->detail, sizeof(b->detail),
			 "singleton: waits until no other job named %s of its user runs",
			 job->name ? job->name : "?");
		for (size_t i = 0; i < cl->njobs; i++) {
			const why_qjob_t *o = &cl->jobs[i];

			if (!_same_job(job, o) && o->phase == WHY_PHASE_ACTIVE && job->name && o->name &&
			    strcmp(o->name, job->name) == 0)
				_job_add(b, o);
		}
		return;
	}
	if (colon)
		id = (uint32_t)strtoul(colon + 1, NULL, 10);
	snprintf(rest, sizeof(rest), "%.*s", (int)((paren ? paren : item + strlen(item)) - item), item);
	snprintf(b->job_value, sizeof(b->job_value), "%s", rest);
	q = id ? _qjob_find(cl, id) : NULL;
	if (_is(state, "failed"))
		can = false;
	if (q) {
		_job_add(b, q);
		can = can && _dep_can(type, q, &met);
		snprintf(b->limit_value, sizeof(b->limit_value), "%s", q->state_name);
		snprintf(b->detail, sizeof(b->detail), "%s on job %u (%s), which is %s%s%s%s: %s", type, id,
			 q->name ? q->name : "?", q->state_name ? q->state_name : "?",
			 q->phase == WHY_PHASE_PENDING && q->reason ? " (Reason=" : "",
			 q->phase == WHY_PHASE_PENDING && q->reason ? q->reason : "",
			 q->phase == WHY_PHASE_PENDING && q->reason ? ")" : "",
			 !can  ? "it can no longer be satisfied: cancel this job or change its dependency "
				 "(scontrol update jobid=N dependency=...)"
			 : met ? "satisfied; Slurm clears it on its next pass"
			       : "");
		if (can && !met) {
			size_t l = strlen(b->detail);

			snprintf(b->detail + l, sizeof(b->detail) - l, "it waits %s", _dep_wants(type));
		}
	} else {
		snprintf(b->limit_value, sizeof(b->limit_value), "%s", "unknown");
		snprintf(b->detail, sizeof(b->detail),
			 "%s on job %u, which slurmctld no longer knows (ended more than MinJobAge ago)%s",
			 type, id, can ? "" : ": it can no longer be satisfied");
	}
	b->never = !can && !any;
}

static void _dependency(const why_job_t *job, const why_cluster_t *cl, why_pending_t *p)
{
	const char *s = job->dependency;
	bool any;
	size_t first = p->nblockers;

	if (!_is(job->reason, "Dependency") && !_is(job->reason, "DependencyNeverSatisfied"))
		return;
	if (!s || !*s || _is(s, "(null)")) {
		why_blocker_t *b = why_blockers_add(p, WHY_BLK_DEPENDENCY, false);

		snprintf(b->detail, sizeof(b->detail), "waits for a dependency slurmctld did not list");
		return;
	}
	any = strchr(s, '?') != NULL;
	while (*s) {
		size_t n = strcspn(s, ",?");
		char item[128];

		snprintf(item, sizeof(item), "%.*s", (int)n, s);
		if (item[0])
			_dep_item(job, cl, item, any, p);
		s += n;
		if (*s)
			s++;
	}
	if (_is(job->reason, "DependencyNeverSatisfied"))
		for (size_t i = first; i < p->nblockers; i++)
			p->blockers[i].never = true;
}

/* -------------------------------------------------------- begin time */

static void _begin(const why_job_t *job, why_pending_t *p)
{
	why_blocker_t *b;
	char when[32];

	if (!_is(job->reason, "BeginTime"))
		return;
	_fmt_when(job->begin_time, when, sizeof(when));
	b = why_blockers_add(p, WHY_BLK_BEGIN_TIME, false);
	snprintf(b->detail, sizeof(b->detail),
		 "it may not start before %s (sbatch --begin); scontrol update jobid=%u "
		 "starttime=now lifts that",
		 when, job->job_id);
	snprintf(b->item, sizeof(b->item), "begin_time");
	snprintf(b->job_value, sizeof(b->job_value), "%s", when);
}

/* ------------------------------------------------ jobs ahead and busy */

static int _cmp_prio(const void *a, const void *b)
{
	const why_qjob_t *x = *(const why_qjob_t *const *)a, *y = *(const why_qjob_t *const *)b;

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

static int _cmp_end(const void *a, const void *b)
{
	const why_qjob_t *x = *(const why_qjob_t *const *)a, *y = *(const why_qjob_t *const *)b;

	if (x->end_time != y->end_time)
		return x->end_time < y->end_time ? -1 : 1;
	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

/* Pending jobs that could start: not held, not waiting on their own
 * dependency, begin time, reservation or limit. */
static bool _competes(const why_qjob_t *q)
{
	static const char *const waiting[] = {
		"JobHeld", "Dependency", "BeginTime", "Reservation",       "QOS",
		"Assoc",   "Partition",  "Licenses",  "JobArrayTaskLimit",
	};

	if (q->phase != WHY_PHASE_PENDING || q->priority == 0)
		return false;
	for (size_t i = 0; i < sizeof(waiting) / sizeof(waiting[0]); i++)
		if (_starts(q->reason, waiting[i]))
			return false;
	return true;
}

static bool _is_ahead(const why_job_t *job, const why_cluster_t *cl, const why_qjob_t *q)
{
	(void)cl;
	if (_same_job(job, q) || !_competes(q) || !_shares_partition(job, q->partition))
		return false;
	return q->priority > job->priority || (q->priority == job->priority && q->job_id < job->job_id);
}

static bool _is_on_nodes(const why_job_t *job, const why_cluster_t *cl, const why_qjob_t *q)
{
	return q->phase == WHY_PHASE_ACTIVE && q->nodes && _nodes_in_job_parts(job, cl, q->nodes);
}

/* A blocker of kind listing the queue's jobs that pick() selects, in cmp
 * order; NULL when there is none. */
static why_blocker_t *_collect(const why_job_t *job, const why_cluster_t *cl,
			       bool (*pick)(const why_job_t *, const why_cluster_t *, const why_qjob_t *),
			       int (*cmp)(const void *, const void *), why_blk_kind_t kind, why_pending_t *p,
			       size_t *count)
{
	const why_qjob_t **list = calloc(cl->njobs ? cl->njobs : 1, sizeof(*list));
	why_blocker_t *b = NULL;
	size_t n = 0;

	if (!list)
		return NULL;
	for (size_t i = 0; i < cl->njobs; i++)
		if (pick(job, cl, &cl->jobs[i]))
			list[n++] = &cl->jobs[i];
	if (n) {
		qsort(list, n, sizeof(*list), cmp);
		b = why_blockers_add(p, kind, false);
		for (size_t i = 0; i < n; i++)
			_job_add(b, list[i]);
	}
	free(list);
	*count = n;
	return b;
}

static void _ahead(const why_job_t *job, const why_cluster_t *cl, why_pending_t *p)
{
	size_t n;
	why_blocker_t *b = _collect(job, cl, _is_ahead, _cmp_prio, WHY_BLK_JOBS_AHEAD, p, &n);
	const why_qjob_t *first;
	char when[32];

	if (!b)
		return;
	first = b->jobs[0];
	_fmt_when(first->start_time, when, sizeof(when));
	snprintf(b->detail, sizeof(b->detail),
		 "%zu pending job%s of its partitions come%s first (higher priority than its %u); "
		 "the first, job %u (priority %u, Reason=%s), is expected to start %s",
		 n, n == 1 ? "" : "s", n == 1 ? "s" : "", job->priority, first->job_id, first->priority,
		 first->reason ? first->reason : "?",
		 first->start_time ? when : "at a time Slurm has not planned yet");
	snprintf(b->item, sizeof(b->item), "priority");
	snprintf(b->job_value, sizeof(b->job_value), "%u", job->priority);
	snprintf(b->limit_value, sizeof(b->limit_value), "%u", first->priority);
}

static void _busy(const why_job_t *job, const why_cluster_t *cl, why_pending_t *p)
{
	size_t n;
	why_blocker_t *b = _collect(job, cl, _is_on_nodes, _cmp_end, WHY_BLK_BUSY, p, &n);
	const why_qjob_t *first;
	char when[32];

	if (!b)
		return;
	first = b->jobs[0];
	_fmt_when(first->end_time, when, sizeof(when));
	/* Slurm gives a job without a time limit an end a year ahead. */
	snprintf(b->detail, sizeof(b->detail),
		 "%zu running job%s hold%s nodes of its partitions; the first to end, job %u "
		 "on %s, ends by %s (%s)",
		 n, n == 1 ? "" : "s", n == 1 ? "s" : "", first->job_id, first->nodes, when,
		 first->end_time - first->start_time >= 365L * 24 * 3600
			 ? "it has no time limit: Slurm puts its end a year ahead"
			 : "its time limit");
	snprintf(b->item, sizeof(b->item), "end_time");
	snprintf(b->limit_value, sizeof(b->limit_value), "%s", when);
}

/* ------------------------------------------------ partitions, limits */

static void _partition_state(const why_job_t *job, const why_cluster_t *cl, why_pending_t *p)
{
	for (size_t i = 0; i < cl->nparts; i++) {
		const why_part_t *pt = &cl->parts[i];
		why_blocker_t *b;

		if (pt->up || !why_list_has(job->partition, pt->name))
			continue;
		b = why_blockers_add(p, WHY_BLK_PART_STATE, false);
		snprintf(b->detail, sizeof(b->detail),
			 "partition %s is %s: it starts no job until an administrator sets it UP "
			 "(scontrol update partition=%s state=up)",
			 pt->name, pt->state_name ? pt->state_name : "not up", pt->name);
		snprintf(b->item, sizeof(b->item), "partition_state");
		snprintf(b->job_value, sizeof(b->job_value), "%s", pt->name);
		snprintf(b->limit_value, sizeof(b->limit_value), "%s", pt->state_name ? pt->state_name : "");
	}
}

/* QOSMaxCpuPerUserLimit -> "MaxCpuPerUser"; AssocGrpGRES -> "GrpGRES". */
static void _limit_name(const char *reason, const char *prefix, char *buf, size_t len)
{
	const char *s = reason + strlen(prefix);
	size_t n = strlen(s);

	if (n > 5 && strcmp(s + n - 5, "Limit") == 0)
		n -= 5;
	snprintf(buf, len, "%.*s", (int)n, s);
}

/* The TRES family a limit name counts: "MaxCpuPerUser" -> "cpu",
 * "GrpGRES" -> "gres/" (any GRES), NULL for limits not counted per TRES
 * (jobs, wall time, minutes). */
static const char *_limit_tres(const char *name)
{
	static const struct {
		const char *word, *tres;
	} words[] = {
		{ "Cpu", "cpu" },   { "CPU", "cpu" },          { "Memory", "mem" },    { "Mem", "mem" },
		{ "Node", "node" }, { "Billing", "billing" },  { "Energy", "energy" }, { "GRES", "gres/" },
		{ "BB", "bb/" },    { "License", "license/" },
	};
	const char *s = name;

	if (strstr(name, "Minutes") || strstr(name, "Jobs") || strstr(name, "Wall") ||
	    strstr(name, "Submit") || strstr(name, "PerNode") || strstr(name, "PerAccount"))
		return NULL;
	if (_starts(s, "Grp"))
		s += 3;
	else if (_starts(s, "Max"))
		s += 3;
	else
		return NULL;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (_starts(s, words[i].word))
			return words[i].tres;
	return NULL;
}

static void _u64(char *buf, size_t len, uint64_t v)
{
	if (v == WHY_ACCT_NONE)
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
}

/* Fill what/job/limit/in_use of a QOS or association blocker from
 * slurmctld's accounting view; returns false when nothing could be read. */
static bool _qos_assoc_values(const why_job_t *job, const why_acct_t *a, bool qos, const char *name,
			      why_blocker_t *b)
{
	const char *fam = _limit_tres(name);
	const uint64_t *lim, *used;
	size_t pick = WHY_ACCT_TRES_MAX;
	size_t flen;

	(void)job;
	if (!a || !a->readable || !fam)
		return false;
	if (qos && !a->qos_found)
		return false;
	if (!qos && !a->assoc_found)
		return false;
	if (_starts(name, "Grp")) {
		lim = qos ? a->qos_grp : a->assoc_grp;
		used = qos ? a->qos_grp_used : a->assoc_grp_used;
	} else if (strstr(name, "PerUser") && qos) {
		lim = a->qos_max_pu;
		used = a->qos_user_used;
	} else if (strstr(name, "PerJob")) {
		lim = qos ? a->qos_max_pj : a->assoc_max_pj;
		used = NULL;
	} else {
		return false;
	}
	flen = strlen(fam);
	/* The TRES of the family the job asks for with a limit set: first one
	 * over its limit, else the first limited one. */
	for (size_t i = 0; i < a->ntres; i++) {
		bool match = fam[flen - 1] == '/' ? strncmp(a->tres[i], fam, flen) == 0
						  : strcmp(a->tres[i], fam) == 0;
		uint64_t u;

		if (!match || lim[i] == WHY_ACCT_NONE || a->job[i] == WHY_ACCT_NONE || !a->job[i])
			continue;
		u = (used && used[i] != WHY_ACCT_NONE) ? used[i] : 0;
		if (pick == WHY_ACCT_TRES_MAX)
			pick = i;
		if (u + a->job[i] > lim[i]) {
			pick = i;
			break;
		}
	}
	if (pick == WHY_ACCT_TRES_MAX)
		return false;
	snprintf(b->item, sizeof(b->item), "%.20s %.26s", name, a->tres[pick]);
	_u64(b->job_value, sizeof(b->job_value), a->job[pick]);
	_u64(b->limit_value, sizeof(b->limit_value), lim[pick]);
	if (used)
		_u64(b->used_value, sizeof(b->used_value), used[pick]);
	return true;
}

static void _qos_assoc(const why_job_t *job, const why_cluster_t *cl, why_pending_t *p)
{
	bool qos = _starts(job->reason, "QOS");
	bool assoc = _starts(job->reason, "Assoc");
	why_blocker_t *b;
	char name[64];

	if (!qos && !assoc)
		return;
	_limit_name(job->reason, qos ? "QOS" : "Assoc", name, sizeof(name));
	b = why_blockers_add(p, qos ? WHY_BLK_QOS : WHY_BLK_ASSOC,
			     strstr(name, "PerJob") != NULL || _starts(name, "Min"));
	snprintf(b->item, sizeof(b->item), "%.47s", name);
	if (qos)
		snprintf(b->detail, sizeof(b->detail), "a limit of its QOS%s%s is reached: %s (%s); %s",
			 job->qos ? " " : "", job->qos ? job->qos : "", name,
			 strstr(name, "PerJob") ? "the job alone exceeds it: shrink the job or change the QOS"
						: "it starts when the use counted against the limit drops",
			 "use and limit: scontrol show assoc_mgr flags=qos");
	else
		snprintf(b->detail, sizeof(b->detail),
			 "a limit of its association (account %s, user %s) is reached: %s (%s); %s",
			 job->account ? job->account : "?", job->user ? job->user : "?", name,
			 strstr(name, "PerJob")
				 ? "the job alone exceeds it: shrink the job or raise the limit"
				 : "it starts when the account's use drops",
			 "use and limit: scontrol show assoc_mgr flags=assoc");
	snprintf(b->job_value, sizeof(b->job_value), "%s",
		 qos ? (job->qos ? job->qos : "") : (job->account ? job->account : ""));
	if (_qos_assoc_values(job, cl->acct, qos, name, b)) {
		size_t l;
		/* The numbers replace the pointer to scontrol. */
		char *cut = strstr(b->detail, "; use and limit: ");

		if (cut)
			*cut = '\0';
		l = strlen(b->detail);
		snprintf(b->detail + l, sizeof(b->detail) - l, "; %s: the job asks %s, %s%slimit %s",
			 strchr(b->item, ' ') + 1, b->job_value, b->used_value,
			 b->used_value[0] ? " in use, " : "", b->limit_value);
	} else if (cl->acct && !cl->acct->readable) {
		size_t l = strlen(b->detail);

		snprintf(b->detail + l, sizeof(b->detail) - l, "; use and limit not readable: %s",
			 cl->acct->why_not);
	}
}

/* ------------------------------------------------------- reservations */

static const why_resv_t *_resv_find(const why_cluster_t *cl, const char *name)
{
	for (size_t i = 0; name && i < cl->nresvs; i++)
		if (cl->resvs[i].name && strcmp(cl->resvs[i].name, name) == 0)
			return &cl->resvs[i];
	return NULL;
}

static void _reservation(const why_job_t *job, const why_cluster_t *cl, why_pending_t *p)
{
	const why_resv_t *r = _resv_find(cl, job->reservation);
	why_blocker_t *b;
	char when[32], end[32];

	if (!_is(job->reason, "Reservation") && !_is(job->reason, "ReqNodeNotAvail") &&
	    !_starts(job->reason, "Resv"))
		return;
	if (!job->reservation || !*job->reservation)
		return;
	b = why_blockers_add(p, WHY_BLK_RESERVATION, false);
	snprintf(b->item, sizeof(b->item), "reservation");
	snprintf(b->job_value, sizeof(b->job_value), "%s", job->reservation);
	if (!r) {
		b->never = true;
		snprintf(b->detail, sizeof(b->detail),
			 "it runs only in reservation %s, which does not exist "
			 "(any more): change it (scontrol update jobid=%u reservation=...)",
			 job->reservation, job->job_id);
		return;
	}
	_fmt_when(r->start_time, when, sizeof(when));
	_fmt_when(r->end_time, end, sizeof(end));
	snprintf(b->limit_value, sizeof(b->limit_value), "%s", when);
	if (r->start_time > cl->now)
		snprintf(b->detail, sizeof(b->detail),
			 "it runs only in reservation %s, which starts at %s (until %s, nodes %s)", r->name,
			 when, end, r->nodes ? r->nodes : "?");
	else
		snprintf(
			b->detail, sizeof(b->detail),
			"it runs only in reservation %s (nodes %s, until %s), whose nodes cannot take it now",
			r->name, r->nodes ? r->nodes : "?", end);
}

/* Reservations the job is not in that hold nodes of its partitions now or
 * before it could end. */
static void _nodes_reserved(const why_job_t *job, const why_cluster_t *cl, why_pending_t *p)
{
	time_t horizon = cl->now;

	if (job->time_limit != NODEOX_TIME_NONE && job->time_limit != NODEOX_TIME_INFINITE)
		horizon += (time_t)job->time_limit * 60;
	else
		horizon += 365L * 24 * 3600;
	for (size_t i = 0; i < cl->nresvs; i++) {
		const why_resv_t *r = &cl->resvs[i];
		why_blocker_t *b;
		char when[32], end[32];

		if (job->reservation && r->name && strcmp(job->reservation, r->name) == 0)
			continue;
		if (r->end_time <= cl->now || r->start_time >= horizon || !r->nodes ||
		    !_nodes_in_job_parts(job, cl, r->nodes))
			continue;
		_fmt_when(r->start_time, when, sizeof(when));
		_fmt_when(r->end_time, end, sizeof(end));
		b = why_blockers_add(p, WHY_BLK_NODES_RESERVED, false);
		snprintf(b->detail, sizeof(b->detail),
			 "reservation %s%s holds %s from %s to %s, and the job is not in it%s", r->name,
			 r->maint ? " (maintenance)" : "", r->nodes, when, end,
			 r->start_time > cl->now ? " (the job would still run when it starts)" : "");
		snprintf(b->item, sizeof(b->item), "reservation");
		snprintf(b->job_value, sizeof(b->job_value), "%s", job->reservation ? job->reservation : "");
		snprintf(b->limit_value, sizeof(b->limit_value), "%s", r->name);
	}
}

/* ------------------------------------------------------------ licenses */

static void _licenses(const why_job_t *job, const why_cluster_t *cl, why_pending_t *p)
{
	const char *s = job->licenses;
	size_t n;

	if (!_is(job->reason, "Licenses") || !s)
		return;
	for (const char *it; nodeox_util_list_next(&s, &it, &n);) {
		char item[128], *sep;
		uint32_t want = 1;
		const why_license_t *lic = NULL;
		why_blocker_t *b;

		snprintf(item, sizeof(item), "%.*s", (int)n, it);
		if ((sep = strpbrk(item, ":=")) != NULL) {
			*sep = '\0';
			want = (uint32_t)strtoul(sep + 1, NULL, 10);
		}
		for (size_t i = 0; i < cl->nlics; i++)
			if (cl->lics[i].name && strcmp(cl->lics[i].name, item) == 0)
				lic = &cl->lics[i];
		if (!lic) {
			b = why_blockers_add(p, WHY_BLK_LICENSES, true);
			snprintf(b->detail, sizeof(b->detail),
				 "it needs license %s, which slurmctld does "
				 "not know",
				 item);
			snprintf(b->item, sizeof(b->item), "%.47s", item);
			snprintf(b->job_value, sizeof(b->job_value), "%u", want);
			continue;
		}
		if (lic->in_use + lic->reserved + want <= lic->total)
			continue;
		b = why_blockers_add(p, WHY_BLK_LICENSES, want > lic->total);
		snprintf(b->item, sizeof(b->item), "%.47s", item);
		snprintf(b->job_value, sizeof(b->job_value), "%u", want);
		snprintf(b->limit_value, sizeof(b->limit_value), "%u", lic->total);
		snprintf(b->used_value, sizeof(b->used_value), "%u", lic->in_use);
		for (size_t i = 0; i < cl->njobs; i++) {
			const why_qjob_t *q = &cl->jobs[i];

			if (q->phase == WHY_PHASE_ACTIVE && q->licenses && strstr(q->licenses, item))
				_job_add(b, q);
		}
		snprintf(b->detail, sizeof(b->detail), "it needs %u %s license%s; %u of %u are in use%s%s",
			 want, item, want == 1 ? "" : "s", lic->in_use, lic->total,
			 lic->reserved ? " and some reserved" : "",
			 b->njobs ? " by the running jobs listed" : "");
	}
}

/* ------------------------------------------- nodes, CPUs, memory now */

/* Walk the nodes of the job's partitions with the request as it stands
 * (GPUs left to why_analyze.c): which are down, which lack free CPUs or
 * memory. Adds blockers when fewer nodes than the job needs could take it,
 * or when the GPU view says the idle GPUs do not cover it. */
static void _nodes_now(const why_job_t *job, const why_fit_t *fit, const why_cluster_t *cl, why_pending_t *p)
{
	const why_request_t *req = &fit->req;
	why_blocker_t *down = NULL, *cpus = NULL, *mem = NULL;
	uint32_t ok = 0, ndown = 0, ncpus = 0, nmem = 0;
	size_t mark = why_blockers_count(p);
	char detail[160];

	for (size_t i = 0; i < cl->nnodes; i++) {
		const why_node_t *n = &cl->nodes[i];
		why_cause_t c;

		if (!_node_in_job_parts(job, n))
			continue;
		c = why_node_check(job, req, n, req->type, detail, sizeof(detail));
		if (c == WHY_CAUSE_GPU_TYPE)
			c = WHY_OK; /* GPUs: the GPU view's business */
		if (c == WHY_OK) {
			ok++;
			continue;
		}
		if (c <= WHY_CAUSE_NODE_UNAVAILABLE) {
			if (!down)
				down = why_blockers_add(p, WHY_BLK_NODES_UNAVAILABLE, false);
			why_list_add(down->limit_value, sizeof(down->limit_value), n->name);
			ndown++;
			if (strlen(down->detail) < 300) {
				size_t l = strlen(down->detail);

				snprintf(down->detail + l, sizeof(down->detail) - l, "%s%s: %s",
					 l ? "; " : "", n->name, detail);
			}
		} else if (c == WHY_CAUSE_CPUS || c == WHY_CAUSE_MEMORY) {
			why_blocker_t **bp = c == WHY_CAUSE_CPUS ? &cpus : &mem;

			if (!*bp)
				*bp = why_blockers_add(p, c == WHY_CAUSE_CPUS ? WHY_BLK_CPUS : WHY_BLK_MEMORY,
						       false);
			*(c == WHY_CAUSE_CPUS ? &ncpus : &nmem) += 1;
			if (strlen((*bp)->detail) < 300) {
				size_t l = strlen((*bp)->detail);

				snprintf((*bp)->detail + l, sizeof((*bp)->detail) - l, "%s%s: %s",
					 l ? "; " : "", n->name, detail);
			}
		}
	}
	if (ok >= req->nodes && (req->per == WHY_PER_NONE || fit->could_start)) {
		/* Enough nodes could take it now: what was found does not block.
		 * (For a GPU job the GPU view decides: the nodes counted here
		 * may lack the GPUs, so what is down or full still counts.) */
		why_blockers_rewind(p, mark);
		return;
	}
	if (down) {
		char buf[512];

		snprintf(buf, sizeof(buf), "%u node%s of its partitions cannot take jobs (%.400s)", ndown,
			 ndown == 1 ? "" : "s", down->detail);
		snprintf(down->detail, sizeof(down->detail), "%s", buf);
		snprintf(down->item, sizeof(down->item), "nodes");
	}
	if (cpus) {
		char buf[512];

		snprintf(buf, sizeof(buf),
			 "it needs %u CPU(s) free on %u node%s; %u node%s lack%s them now (%.400s)",
			 req->cpus_per_node, req->nodes, req->nodes == 1 ? "" : "s", ncpus,
			 ncpus == 1 ? "" : "s", ncpus == 1 ? "s" : "", cpus->detail);
		snprintf(cpus->detail, sizeof(cpus->detail), "%s", buf);
		snprintf(cpus->item, sizeof(cpus->item), "cpus_per_node");
		snprintf(cpus->job_value, sizeof(cpus->job_value), "%u", req->cpus_per_node);
	}
	if (mem) {
		char buf[512];

		snprintf(buf, sizeof(buf),
			 "it needs %llu MB free on %u node%s; %u node%s lack%s it now (%.400s)",
			 (unsigned long long)req->mem_per_node_mb, req->nodes, req->nodes == 1 ? "" : "s",
			 nmem, nmem == 1 ? "" : "s", nmem == 1 ? "s" : "", mem->detail);
		snprintf(mem->detail, sizeof(mem->detail), "%s", buf);
		snprintf(mem->item, sizeof(mem->item), "mem_per_node_mb");
		snprintf(mem->job_value, sizeof(mem->job_value), "%llu",
			 (unsigned long long)req->mem_per_node_mb);
	}
}

static void _gpus_now(const why_result_t *res, why_pending_t *p)
{
	const why_fit_t *f = &res->fit;
	why_blocker_t *b;

	if (f->req.per == WHY_PER_NONE || f->could_start)
		return;
	b = why_blockers_add(p, WHY_BLK_GPUS, false);
	snprintf(b->detail, sizeof(b->detail),
		 "%s (the GPU view below says which idle GPUs "
		 "it cannot use and why)",
		 f->shortfall);
	snprintf(b->item, sizeof(b->item), "gpus");
	snprintf(b->job_value, sizeof(b->job_value), "%u", f->req.total);
	snprintf(b->limit_value, sizeof(b->limit_value), "%u", f->eligible_gpus);
}

/* ----------------------------------------------------------- the whole */

static bool _resource_reason(const char *r)
{
	return !r || _is(r, "Resources") || _is(r, "Priority") || _is(r, "None") ||
	       _starts(r, "ReqNodeNotAvail") || _starts(r, "Nodes") || _is(r, "NodeDown") ||
	       _is(r, "PartitionNodeLimit") || _is(r, "Reservation");
}

void why_pending_explain(const why_cluster_t *cl, why_result_t *res)
{
	const why_job_t *job = res->job;
	why_pending_t *p = &res->pend;
	why_pending_t never;

	memset(p, 0, sizeof(*p));
	if (!job->pending)
		return;

	/* As configured, whatever the reason says. */
	memset(&never, 0, sizeof(never));
	why_never_check(job, &res->fit.req, cl, &never);
	p->never_runs = never.never_runs;
	if (never.never_runs || _starts(job->reason, "Partition")) {
		for (size_t i = 0; i < never.nblockers; i++)
			*why_blockers_add(p, never.blockers[i].kind, true) = never.blockers[i];
		p->more_blockers += never.more_blockers;
	}

	_held(job, p);
	_dependency(job, cl, p);
	_begin(job, p);
	_reservation(job, cl, p);
	_licenses(job, cl, p);
	_qos_assoc(job, cl, p);
	if (_is(job->reason, "PartitionDown") || _is(job->reason, "PartitionInactive"))
		_partition_state(job, cl, p);
	if (_resource_reason(job->reason) && !p->never_runs) {
		size_t mark;

		if (_is(job->reason, "Priority") || _is(job->reason, "Resources"))
			_ahead(job, cl, p);
		/* the running jobs matter when something on the nodes is short */
		mark = why_blockers_count(p);
		_nodes_reserved(job, cl, p);
		_nodes_now(job, &res->fit, cl, p);
		_gpus_now(res, p);
		if (why_blockers_count(p) > mark || _is(job->reason, "Resources"))
			_busy(job, cl, p);
	}
	if (p->nblockers == 0) {
		why_blocker_t *b = why_blockers_add(p, WHY_BLK_OTHER, false);

		if (_is(job->reason, "None"))
			snprintf(b->detail, sizeof(b->detail),
				 "slurmctld has not looked at it yet (Reason=None): it is considered "
				 "on the next scheduling pass");
		else if (_is(job->reason, "Priority") || _is(job->reason, "Resources"))
			snprintf(b->detail, sizeof(b->detail),
				 "Slurm says Reason=%s, but nothing ahead of it or in the way was found "
				 "now: the next scheduling pass should start it",
				 job->reason);
		else
			snprintf(b->detail, sizeof(b->detail),
				 "Slurm says Reason=%s%s%s (not explained further "
				 "by nodeox why)",
				 job->reason ? job->reason : "?", job->reason_desc ? ": " : "",
				 job->reason_desc ? job->reason_desc : "");
		snprintf(b->item, sizeof(b->item), "reason");
		snprintf(b->job_value, sizeof(b->job_value), "%s", job->reason ? job->reason : "");
	}

	/* When Slurm expects it to start. */
	if (job->priority != 0 && !p->never_runs) {
		if (job->start_time > 0) {
			p->expected_start = job->start_time;
			p->expected_source = "backfill";
		}
		if (_is(job->reason, "BeginTime") && job->begin_time >= p->expected_start) {
			p->expected_start = job->begin_time;
			p->expected_source = "begin_time";
		}
		if (_is(job->reason, "Reservation")) {
			const why_resv_t *r = _resv_find(cl, job->reservation);

			if (r && r->start_time > p->expected_start) {
				p->expected_start = r->start_time;
				p->expected_source = "reservation";
			}
		}
	}
}
