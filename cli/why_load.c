/*
 * why_load.c: reads the job, the nodes and the partitions from slurmctld
 * through libslurm's public C API, and turns them into why_job_t and
 * why_node_t (why.h). The only file of `nodeox why` that talks to Slurm.
 *
 * What comes from where (Slurm 22.05 to 26.05; the API differences between
 * them are named in why_compat.h):
 *   job       slurm_load_job(SHOW_DETAIL): tres_per_*, features, partition,
 *             pn_min_memory (MEM_PER_CPU flag), num_nodes/max_nodes, ...
 *   nodes     slurm_load_node: gres, gres_used ("gpu:a100:2(IDX:0-1)"),
 *             features_act, node_state, cpus, real_memory; allocated CPUs and
 *             memory (why_slurm_node_alloc: select_nodeinfo, or alloc_cpus/_memory)
 *   partitions slurm_load_partitions + slurm_populate_node_partitions fill
 *             node_info_t.partitions, as scontrol does
 *   config    slurm_load_ctl_conf: whether memory is a consumable (CR_/SELECT_MEMORY)
 *   queue     slurm_load_jobs: every job, for the jobs ahead, the jobs on the
 *             nodes, dependency targets and license holders
 *   reservations slurm_load_reservations; licenses slurm_load_licenses
 *   accounting slurm_load_assoc_mgr_info (slurmctld's assoc_mgr): the job's
 *             QOS (limits by TRES position, grp_used_tres, the user's entry
 *             of user_limit_list) and its user association with the accounts
 *             above it (grp_tres_ctld, usage->grp_used_tres); the job's
 *             request from job_info_t.tres_req_str
 * The pending reason is handed on as Slurm's word (slurm_job_reason_string,
 * e.g. "JobHeldUser"), not as the enum, whose numbers change between
 * versions: porting to another Slurm means this file only.
 */
#include <pwd.h>
#include <sys/wait.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurmdb.h>

#include "cli/why.h"
#include "cli/why_compat.h"
#include "common/free_all.h"


struct why_load {
	job_info_msg_t *jobs;
	job_info_msg_t *queue_msg; /* every job */
	node_info_msg_t *nodes_msg;
	partition_info_msg_t *parts;
	reserve_info_msg_t *resv_msg;
	license_info_msg_t *lic_msg;
	why_job_t job;
	why_node_t *nodes;
	size_t nnodes;
	why_part_t *wparts;
	why_qjob_t *qjobs;
	char **qnodes; /* per queue job, expanded, malloc'd */
	why_resv_t *resvs;
	char **rnodes; /* per reservation, expanded, malloc'd */
	why_license_t *lics;
	why_acct_t acct;
	why_cluster_t cluster;
	char user[64];
	char *req_nodes, *exc_nodes; /* expanded, malloc'd */
	char **state_names;          /* per node, malloc'd */
};

/* "a[1-2],l1" -> "a1,a2,l1" (malloc'd), NULL for NULL/"". */
static char *_expand_hosts(const char *expr)
{
	why_hostlist_t hl;
	char *host, *out = NULL;
	size_t len = 0;

	if (!expr || !*expr || !(hl = slurm_hostlist_create(expr)))
		return NULL;
	while ((host = slurm_hostlist_shift(hl))) {
		size_t n = strlen(host);
		char *grown = realloc(out, len + n + 2);

		if (grown) {
			out = grown;
			if (len)
				out[len++] = ',';
			memcpy(out + len, host, n + 1);
			len += n;
		}
		free(host);
	}
	slurm_hostlist_destroy(hl);
	return out;
}

static uint32_t _val32(uint32_t v)
{
	return (v == NO_VAL || v == INFINITE) ? 0 : v;
}

static why_phase_t _phase(uint32_t st)
{
	uint32_t base = st & JOB_STATE_BASE;

	if (base == JOB_PENDING)
		return WHY_PHASE_PENDING;
	if (base == JOB_RUNNING || base == JOB_SUSPENDED || (st & (JOB_COMPLETING | JOB_CONFIGURING)))
		return WHY_PHASE_ACTIVE;
	return WHY_PHASE_ENDED;
}

/* Exit status of an ended job, -1 for a signal. */
static int _exit_status(uint32_t code)
{
	int st = (int)code;

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static uint32_t _minutes(uint32_t v)
{
	if (v == NO_VAL)
		return NODEOX_TIME_NONE;
	if (v == INFINITE)
		return NODEOX_TIME_INFINITE;
	return v;
}

static const char *_str(const char *s)
{
	return s && *s && strcmp(s, "(null)") != 0 ? s : NULL;
}

static why_node_state_t _node_state(uint32_t st)
{
	uint32_t base = st & NODE_STATE_BASE;

	if (base == NODE_STATE_DOWN || (st & NODE_STATE_FAIL))
		return WHY_NODE_DOWN;
	if (st & NODE_STATE_DRAIN)
		return WHY_NODE_DRAINED;
	if (st & NODE_STATE_NO_RESPOND)
		return WHY_NODE_NOT_RESPONDING;
	if (base == NODE_STATE_FUTURE || base == NODE_STATE_UNKNOWN || (st & WHY_NODE_STATE_EXTERNAL) ||
	    (st & (NODE_STATE_POWERED_DOWN | NODE_STATE_POWERING_UP | NODE_STATE_POWERING_DOWN |
		   NODE_STATE_MAINT | NODE_STATE_REBOOT_ISSUED | NODE_STATE_INVALID_REG)))
		return WHY_NODE_UNAVAILABLE;
	return WHY_NODE_UP;
}

/* Pick the record asked for: a plain job, or one task of an array. Tasks
 * of an array that have not started yet share one record (array_task_id
 * NO_VAL, the pending remainder), so JOBID_TASK falls back to it. */
static job_info_t *_pick_job(job_info_msg_t *msg, uint32_t job_id, uint32_t task)
{
	job_info_t *rest = NULL;

	for (uint32_t i = 0; i < msg->record_count; i++) {
		job_info_t *j = &msg->job_array[i];

		if (task == WHY_NO_TASK && j->job_id == job_id)
			return j;
		if (task != WHY_NO_TASK && j->array_job_id == job_id && j->array_task_id == task)
			return j;
		if (j->array_job_id == job_id && j->array_task_id == NO_VAL &&
		    (j->job_state & JOB_STATE_BASE) == JOB_PENDING)
			rest = j;
	}
	if (rest || task != WHY_NO_TASK)
		return rest;
	return msg->record_count ? &msg->job_array[0] : NULL;
}

static void _load_job(why_load_t *ld, const job_info_t *j, bool mem_tracked)
{
	why_job_t *w = &ld->job;
	struct passwd *pw;

	w->job_id = j->job_id;
	w->phase = _phase(j->job_state);
	w->pending = w->phase == WHY_PHASE_PENDING;
	w->state_name = slurm_job_state_string(j->job_state);
	w->reason = why_job_reason_string(j->state_reason);
	w->reason_desc = _str(j->state_desc);
	w->name = j->name;
	w->priority = j->priority;
	w->dependency = _str(j->dependency);
	w->reservation = _str(j->resv_name);
	w->licenses = _str(j->licenses);
	w->qos = _str(j->qos);
	w->alloc_nodes = _str(j->nodes);
	w->begin_time = j->eligible_time > j->submit_time ? j->eligible_time : 0;
	w->start_time = j->start_time;
	w->end_time = j->end_time;
	w->exit_status = _exit_status(j->exit_code);
	if (j->user_name)
		snprintf(ld->user, sizeof(ld->user), "%s", j->user_name);
	else if ((pw = getpwuid(j->user_id)))
		snprintf(ld->user, sizeof(ld->user), "%s", pw->pw_name);
	else
		snprintf(ld->user, sizeof(ld->user), "%u", j->user_id);
	w->user = ld->user;
	w->account = j->account;
	w->partition = j->partition;
	w->features = j->features;
	w->prefer = j->prefer;
	w->comment = j->comment;
	w->admin_comment = j->admin_comment;
	w->tres_per_job = j->tres_per_job;
	w->tres_per_node = j->tres_per_node;
	w->tres_per_task = j->tres_per_task;
	w->tres_per_socket = j->tres_per_socket;
	w->cpus_per_tres = j->cpus_per_tres;
	w->mem_per_tres = j->mem_per_tres;
	ld->req_nodes = _expand_hosts(j->req_nodes);
	ld->exc_nodes = _expand_hosts(j->exc_nodes);
	w->req_nodes = ld->req_nodes;
	w->exc_nodes = ld->exc_nodes;
	w->time_limit = _minutes(j->time_limit);
	w->num_nodes = _val32(j->num_nodes);
	w->max_nodes = _val32(j->max_nodes);
	w->num_tasks = _val32(j->num_tasks);
	w->num_cpus = _val32(j->num_cpus);
	w->pn_min_cpus = j->pn_min_cpus == NO_VAL16 ? 0 : j->pn_min_cpus;
	w->cpus_per_task = (j->cpus_per_task == NO_VAL16 || !j->cpus_per_task) ? 1 : j->cpus_per_task;
	if (j->pn_min_memory != NO_VAL64 && j->pn_min_memory != INFINITE64) {
		if (j->pn_min_memory & MEM_PER_CPU)
			w->mem_per_cpu_mb = j->pn_min_memory & ~MEM_PER_CPU;
		else
			w->mem_per_node_mb = j->pn_min_memory;
	}
	w->mem_tracked = mem_tracked;
}

static int _load_nodes(why_load_t *ld, char *err, size_t errlen)
{
	node_info_msg_t *msg = ld->nodes_msg;

	ld->nodes = calloc(msg->record_count ? msg->record_count : 1, sizeof(*ld->nodes));
	ld->state_names = calloc(msg->record_count ? msg->record_count : 1, sizeof(char *));
	if (!ld->nodes || !ld->state_names) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (uint32_t i = 0; i < msg->record_count; i++) {
		node_info_t *n = &msg->node_array[i];
		why_node_t *w = &ld->nodes[ld->nnodes];
		uint16_t alloc_cpus = 0;
		uint64_t alloc_mem = 0;
		int ng;

		if (!n->name)
			continue;
		w->name = n->name;
		w->features = n->features_act ? n->features_act : n->features;
		w->partitions = n->partitions;
		ng = why_gres_parse_node(n->gres, n->gres_used, w->gpus, WHY_MAX_NODE_GPUS);
		if (ng < 0) {
			snprintf(err, errlen, "node %s: cannot read Gres=%s GresUsed=%s", n->name,
				 n->gres ? n->gres : "", n->gres_used ? n->gres_used : "");
			return -1;
		}
		w->state = _node_state(n->node_state);
		/* Slurm's word for IDLE+EXTERNAL may be another flag's (PLANNED
		 * when backfill plans a job there): name the one that excludes it. */
		ld->state_names[ld->nnodes] = strdup((n->node_state & WHY_NODE_STATE_EXTERNAL)
							     ? "EXTERNAL"
							     : slurm_node_state_string(n->node_state));
		w->state_name = ld->state_names[ld->nnodes];
		w->state_reason = n->reason;
		w->ngpus = ng;
		why_slurm_node_alloc(n, &alloc_cpus, &alloc_mem);
		w->cpus = n->cpus;
		w->cpus_alloc = alloc_cpus;
		w->mem_mb = n->real_memory > n->mem_spec_limit ? n->real_memory - n->mem_spec_limit : 0;
		w->mem_alloc_mb = alloc_mem;
		ld->nnodes++;
	}
	return 0;
}

static int _load_parts(why_load_t *ld)
{
	partition_info_msg_t *msg = ld->parts;

	ld->wparts = calloc(msg->record_count ? msg->record_count : 1, sizeof(*ld->wparts));
	if (!ld->wparts)
		return -1;
	for (uint32_t i = 0; i < msg->record_count; i++) {
		partition_info_t *pt = &msg->partition_array[i];
		why_part_t *w = &ld->wparts[i];

		w->name = pt->name;
		w->up = pt->state_up == PARTITION_UP;
		w->state_name = pt->state_up == PARTITION_UP      ? "UP"
				: pt->state_up == PARTITION_DOWN  ? "DOWN"
				: pt->state_up == PARTITION_DRAIN ? "DRAIN"
								  : "INACTIVE";
		w->max_time = pt->max_time == INFINITE || pt->max_time == NO_VAL ? NODEOX_TIME_INFINITE
										 : pt->max_time;
		w->max_nodes = _val32(pt->max_nodes);
		w->min_nodes = _val32(pt->min_nodes);
		w->max_cpus_per_node = _val32(pt->max_cpus_per_node);
		if (pt->max_mem_per_cpu != NO_VAL64 && pt->max_mem_per_cpu != INFINITE64 &&
		    pt->max_mem_per_cpu && !(pt->max_mem_per_cpu & MEM_PER_CPU))
			w->max_mem_per_node_mb = pt->max_mem_per_cpu;
	}
	ld->cluster.parts = ld->wparts;
	ld->cluster.nparts = msg->record_count;
	return 0;
}

static int _load_queue(why_load_t *ld)
{
	job_info_msg_t *msg = ld->queue_msg;
	uint32_t n = msg->record_count;

	ld->qjobs = calloc(n ? n : 1, sizeof(*ld->qjobs));
	ld->qnodes = calloc(n ? n : 1, sizeof(char *));
	if (!ld->qjobs || !ld->qnodes)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		job_info_t *j = &msg->job_array[i];
		why_qjob_t *q = &ld->qjobs[i];

		q->job_id = j->job_id;
		q->array_job_id = j->array_job_id;
		q->array_task_id = j->array_task_id;
		q->phase = _phase(j->job_state);
		q->state_name = slurm_job_state_string(j->job_state);
		q->reason = why_job_reason_string(j->state_reason);
		q->name = j->name;
		q->user = j->user_name;
		q->partition = j->partition;
		ld->qnodes[i] = q->phase == WHY_PHASE_PENDING ? NULL : _expand_hosts(j->nodes);
		q->nodes = ld->qnodes[i];
		q->licenses = _str(j->licenses);
		q->priority = j->priority;
		q->num_nodes = _val32(j->num_nodes);
		q->num_cpus = _val32(j->num_cpus);
		q->num_tasks = _val32(j->num_tasks);
		q->tres_alloc = j->tres_alloc_str;
		q->tres_per_job = j->tres_per_job;
		q->tres_per_node = j->tres_per_node;
		q->tres_per_task = j->tres_per_task;
		q->tres_per_socket = j->tres_per_socket;
		q->start_time = j->start_time;
		q->end_time = j->end_time;
		q->user_id = j->user_id;
		{
			uint32_t base = j->job_state & JOB_STATE_BASE;

			q->ended_own = q->phase == WHY_PHASE_ENDED &&
				       (base == JOB_COMPLETE || base == JOB_FAILED || base == JOB_TIMEOUT ||
					base == JOB_OOM);
		}
		q->exit_status = _exit_status(j->exit_code);
		q->time_limit = _minutes(j->time_limit);
		q->features = j->features;
	}
	ld->cluster.jobs = ld->qjobs;
	ld->cluster.njobs = n;
	return 0;
}

static int _load_resvs(why_load_t *ld)
{
	uint32_t n = ld->resv_msg ? ld->resv_msg->record_count : 0;

	ld->resvs = calloc(n ? n : 1, sizeof(*ld->resvs));
	ld->rnodes = calloc(n ? n : 1, sizeof(char *));
	if (!ld->resvs || !ld->rnodes)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		reserve_info_t *r = &ld->resv_msg->reservation_array[i];
		why_resv_t *w = &ld->resvs[i];

		w->name = r->name;
		ld->rnodes[i] = _expand_hosts(r->node_list);
		w->nodes = ld->rnodes[i];
		w->users = r->users;
		w->accounts = r->accounts;
		w->start_time = r->start_time;
		w->end_time = r->end_time;
		w->maint = (r->flags & RESERVE_FLAG_MAINT) != 0;
	}
	ld->cluster.resvs = ld->resvs;
	ld->cluster.nresvs = n;
	return 0;
}

static int _load_lics(why_load_t *ld)
{
	uint32_t n = ld->lic_msg ? ld->lic_msg->num_lic : 0;

	ld->lics = calloc(n ? n : 1, sizeof(*ld->lics));
	if (!ld->lics)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		slurm_license_info_t *l = &ld->lic_msg->lic_array[i];

		ld->lics[i].name = l->name;
		ld->lics[i].total = l->total;
		ld->lics[i].in_use = l->in_use;
		ld->lics[i].reserved = l->reserved;
	}
	ld->cluster.lics = ld->lics;
	ld->cluster.nlics = n;
	return 0;
}

/* One limit array of assoc_mgr (by TRES position) into ours. */
static void _acct_copy(uint64_t *dst, const uint64_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = (!src || src[i] == INFINITE64 || src[i] == NO_VAL64) ? WHY_ACCT_NONE : src[i];
}

/* "cpu=2,mem=100M,node=1,gres/gpu=1" -> acct->job by TRES name (mem in MB). */
static void _acct_job(why_acct_t *a, const char *req)
{
	const char *p = req;

	while (p && *p) {
		const char *eq = strchr(p, '='), *end = strchr(p, ',');
		size_t n;

		if (!end)
			end = p + strlen(p);
		if (eq && eq < end) {
			char *unit;
			unsigned long long v = strtoull(eq + 1, &unit, 10);

			if (*unit == 'G')
				v *= 1024;
			else if (*unit == 'T')
				v *= 1024 * 1024;
			n = (size_t)(eq - p);
			for (size_t i = 0; i < a->ntres; i++)
				if (strlen(a->tres[i]) == n && strncmp(a->tres[i], p, n) == 0)
					a->job[i] = v;
		}
		p = *end ? end + 1 : end;
	}
}

static slurmdb_assoc_rec_t *_acct_assoc_find(void *list, const char *acct, const char *user, uint32_t id)
{
	why_list_itr_t it = slurm_list_iterator_create(list);
	slurmdb_assoc_rec_t *a, *hit = NULL;

	while ((a = slurm_list_next(it))) {
		if (id ? a->id == id
		       : (a->acct && a->user && strcmp(a->acct, acct) == 0 && strcmp(a->user, user) == 0 &&
			  (!a->partition || !*a->partition))) {
			hit = a;
			break;
		}
	}
	slurm_list_iterator_destroy(it);
	return hit;
}

/* The job's QOS and association as slurmctld's assoc_mgr has them. Never
 * fails the load: what cannot be read is said in acct->why_not. */
static void _load_acct(why_load_t *ld, const job_info_t *j, bool has_dbd)
{
	why_acct_t *a = &ld->acct;
	assoc_mgr_info_request_msg_t req;
	assoc_mgr_info_msg_t *msg = NULL;
	size_t n;

	ld->cluster.acct = a;
	for (size_t i = 0; i < WHY_ACCT_TRES_MAX; i++)
		a->job[i] = a->qos_max_pu[i] = a->qos_user_used[i] = a->qos_max_pj[i] = a->qos_grp[i] =
			a->qos_grp_used[i] = a->assoc_grp[i] = a->assoc_grp_used[i] = a->assoc_max_pj[i] =
				WHY_ACCT_NONE;
	if (!has_dbd) {
		snprintf(a->why_not, sizeof(a->why_not),
			 "slurmctld keeps no accounting (AccountingStorageType is not slurmdbd)");
		return;
	}
	memset(&req, 0, sizeof(req));
	req.flags = ASSOC_MGR_INFO_FLAG_ASSOC | ASSOC_MGR_INFO_FLAG_QOS;
	if (slurm_load_assoc_mgr_info(&req, &msg) != SLURM_SUCCESS || !msg) {
		snprintf(a->why_not, sizeof(a->why_not), "slurmctld gives no accounting view (%s)",
			 slurm_strerror(why_slurm_errno()));
		return;
	}
	if (!msg->tres_cnt || !msg->tres_names || (!msg->qos_list && !msg->assoc_list)) {
		snprintf(a->why_not, sizeof(a->why_not),
			 "slurmctld's accounting view is empty (no QOS, no association)");
		slurm_free_assoc_mgr_info_msg(msg);
		return;
	}
	n = msg->tres_cnt < WHY_ACCT_TRES_MAX ? msg->tres_cnt : WHY_ACCT_TRES_MAX;
	a->ntres = n;
	for (size_t i = 0; i < n; i++)
		snprintf(a->tres[i], sizeof(a->tres[i]), "%s", msg->tres_names[i] ? msg->tres_names[i] : "");
	a->readable = true;
	_acct_job(a, j->tres_req_str);
	if (msg->qos_list && j->qos) {
		why_list_itr_t it = slurm_list_iterator_create(msg->qos_list);
		slurmdb_qos_rec_t *q;

		while ((q = slurm_list_next(it))) {
			if (!q->name || strcmp(q->name, j->qos) != 0)
				continue;
			a->qos_found = true;
			_acct_copy(a->qos_max_pu, q->max_tres_pu_ctld, n);
			_acct_copy(a->qos_max_pj, q->max_tres_pj_ctld, n);
			_acct_copy(a->qos_grp, q->grp_tres_ctld, n);
			if (q->usage) {
				_acct_copy(a->qos_grp_used, q->usage->grp_used_tres, n);
				for (size_t i = 0; i < n; i++)
					a->qos_user_used[i] = 0;
				if (q->usage->user_limit_list) {
					why_list_itr_t ut =
						slurm_list_iterator_create(q->usage->user_limit_list);
					slurmdb_used_limits_t *u;

					while ((u = slurm_list_next(ut)))
						if (u->uid == j->user_id && u->tres)
							_acct_copy(a->qos_user_used, u->tres, n);
					slurm_list_iterator_destroy(ut);
				}
			}
			break;
		}
		slurm_list_iterator_destroy(it);
	}
	if (msg->assoc_list && j->account && ld->job.user) {
		slurmdb_assoc_rec_t *as = _acct_assoc_find(msg->assoc_list, j->account, ld->job.user, 0);

		a->assoc_found = as != NULL;
		if (as)
			_acct_copy(a->assoc_max_pj, as->max_tres_ctld, n);
		/* GrpTRES: the nearest level that sets it, user up to root. */
		for (int depth = 0; as && depth < 64; depth++) {
			for (size_t i = 0; i < n; i++) {
				if (a->assoc_grp[i] != WHY_ACCT_NONE || !as->grp_tres_ctld ||
				    as->grp_tres_ctld[i] == INFINITE64 || as->grp_tres_ctld[i] == NO_VAL64)
					continue;
				a->assoc_grp[i] = as->grp_tres_ctld[i];
				a->assoc_grp_used[i] = (as->usage && as->usage->grp_used_tres)
							       ? as->usage->grp_used_tres[i]
							       : WHY_ACCT_NONE;
			}
			as = as->parent_id ? _acct_assoc_find(msg->assoc_list, NULL, NULL, as->parent_id)
					   : NULL;
		}
	}
	slurm_free_assoc_mgr_info_msg(msg);
}

why_load_t *why_load(uint32_t job_id, uint32_t array_task, bool *unknown, char *err, size_t errlen)
{
	why_load_t *ld = calloc(1, sizeof(*ld));
	slurm_conf_t *ctl = NULL;
	job_info_t *j;
	bool mem_tracked = false, has_dbd = false;

	*unknown = false;
	if (!ld) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (why_slurm_load_job(&ld->jobs, job_id, SHOW_DETAIL) != SLURM_SUCCESS) {
		int e = why_slurm_errno();

		*unknown = e == ESLURM_INVALID_JOB_ID;
		snprintf(err, errlen, "job %u: %s", job_id,
			 *unknown ? "unknown to slurmctld (never submitted, or ended more than "
				    "MinJobAge ago)"
				  : slurm_strerror(e));
		goto fail;
	}
	j = _pick_job(ld->jobs, job_id, array_task);
	if (!j) {
		*unknown = true;
		if (array_task == WHY_NO_TASK)
			snprintf(err, errlen, "job %u: unknown to slurmctld", job_id);
		else
			snprintf(err, errlen, "job %u_%u: unknown to slurmctld", job_id, array_task);
		goto fail;
	}
	if (slurm_load_node(0, &ld->nodes_msg, SHOW_ALL | SHOW_DETAIL) != SLURM_SUCCESS) {
		snprintf(err, errlen, "cannot load nodes: %s", slurm_strerror(why_slurm_errno()));
		goto fail;
	}
	if (slurm_load_partitions(0, &ld->parts, SHOW_ALL) != SLURM_SUCCESS) {
		snprintf(err, errlen, "cannot load partitions: %s", slurm_strerror(why_slurm_errno()));
		goto fail;
	}
	slurm_populate_node_partitions(ld->nodes_msg, ld->parts);
	if (slurm_load_ctl_conf(0, &ctl) == SLURM_SUCCESS) {
		mem_tracked = (ctl->select_type_param & WHY_SELECT_MEMORY) != 0;
		has_dbd = ctl->accounting_storage_type &&
			  strstr(ctl->accounting_storage_type, "slurmdbd") != NULL;
		why_slurm_free_conf(ctl);
	}
	_load_job(ld, j, mem_tracked);
	if (_load_nodes(ld, err, errlen) < 0)
		goto fail;
	ld->cluster.nodes = ld->nodes;
	ld->cluster.nnodes = ld->nnodes;
	ld->cluster.now = time(NULL);
	if (!ld->job.pending)
		return ld;
	/* What the explanation of a pending job needs besides. */
	if (slurm_load_jobs(0, &ld->queue_msg, SHOW_ALL) != SLURM_SUCCESS) {
		snprintf(err, errlen, "cannot load the queue: %s", slurm_strerror(why_slurm_errno()));
		goto fail;
	}
	if (slurm_load_reservations(0, &ld->resv_msg) != SLURM_SUCCESS)
		ld->resv_msg = NULL; /* none readable: none explained */
	if (slurm_load_licenses(0, &ld->lic_msg, SHOW_ALL) != SLURM_SUCCESS)
		ld->lic_msg = NULL;
	_load_acct(ld, j, has_dbd);
	if (_load_parts(ld) < 0 || _load_queue(ld) < 0 || _load_resvs(ld) < 0 || _load_lics(ld) < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	return ld;
fail:
	why_load_free(ld);
	return NULL;
}

const why_job_t *why_load_job(const why_load_t *ld)
{
	return &ld->job;
}

const why_node_t *why_load_nodes(const why_load_t *ld, size_t *nnodes)
{
	*nnodes = ld->nnodes;
	return ld->nodes;
}

const why_cluster_t *why_load_cluster(const why_load_t *ld)
{
	return &ld->cluster;
}

void why_load_free(why_load_t *ld)
{
	if (!ld)
		return;
	if (ld->state_names)
		for (size_t i = 0; i < ld->nnodes; i++)
			free(ld->state_names[i]);
	free(ld->state_names);
	if (ld->qnodes)
		for (size_t i = 0; i < ld->cluster.njobs; i++)
			free(ld->qnodes[i]);
	if (ld->rnodes)
		for (size_t i = 0; i < ld->cluster.nresvs; i++)
			free(ld->rnodes[i]);
	nodeox_free_all(ld->qnodes, ld->rnodes, ld->qjobs, ld->resvs, ld->lics, ld->wparts, ld->nodes,
			ld->req_nodes, ld->exc_nodes);
	if (ld->jobs)
		slurm_free_job_info_msg(ld->jobs);
	if (ld->nodes_msg)
		slurm_free_node_info_msg(ld->nodes_msg);
	if (ld->parts)
		slurm_free_partition_info_msg(ld->parts);
	if (ld->queue_msg)
		slurm_free_job_info_msg(ld->queue_msg);
	if (ld->resv_msg)
		slurm_free_reservation_info_msg(ld->resv_msg);
	if (ld->lic_msg)
		slurm_free_license_info_msg(ld->lic_msg);
	free(ld);
}
