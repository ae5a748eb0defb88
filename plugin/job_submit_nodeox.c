/*
 * job_submit_nodeox.c: the job_submit/nodeox Slurm plugin, thin glue between
 * slurmctld and the policy library (plugin/policy.h).
 *
 * For each submission (sbatch, salloc, srun allocations, --test-only, each
 * component of a heterogeneous job, a whole job array at once) and for each
 * `scontrol update` of a pending job's comment or GPU request, it
 *   1. makes sure nodeox.conf is current (stat on every call, re-parse when
 *      inode/size/mtime/ctime changed; a missing or broken file is logged once
 *      per change and lets every job pass unchanged),
 *   2. copies the job's fields into a nodeox_job_t,
 *   3. for a tagged job only, snapshots the node table (features, partitions,
 *      GPU type and idle count, usable or not) into a nodeox_cluster_t
 *      without taking locks: slurmctld already holds them around job_submit,
 *   4. calls nodeox_policy_decide and writes the changed fields back with
 *      Slurm's allocator, logs one info() line and tells the user one line.
 * Nothing here may crash, block or leak inside slurmctld: every string from
 * the user is passed as an argument, never as a format; work is one pass over
 * the node table.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"
#include "src/common/slurm_xlator.h"
#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/uid.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "plugin/policy.h"
#include "plugin/slurm_compat.h"

const char plugin_name[] = "nodeox: broaden typed GPU requests of flexible jobs";
const char plugin_type[] = "job_submit/nodeox";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

#define NODEOX_MAX_NODES 100000 /* bound on the node snapshot */

/* The loaded policy and the identity of the file it came from. */
static struct {
	pthread_mutex_t lock;      /* 23.02+ may call us concurrently */
	char *path;                /* xmalloc'd */
	nodeox_conf_t *conf;       /* NULL: missing or broken, pass through */
	bool stat_ok;              /* last stat succeeded */
	int stat_errno;
	struct stat st;            /* identity of the file conf came from */
	bool known;                /* st/stat_errno describe the last look */
} nx = { .lock = PTHREAD_MUTEX_INITIALIZER };

static bool _same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Bring nx.conf up to date with the file. Caller holds nx.lock. */
static void _conf_refresh(void)
{
	char err[NODEOX_ERR_MAX + 600];
	nodeox_conf_t *conf = NULL;
	struct stat st;

	if (stat(nx.path, &st) != 0) {
		int e = errno;

		if (nx.known && !nx.stat_ok && nx.stat_errno == e)
			return;
		nodeox_conf_free(nx.conf);
		nx.conf = NULL;
		nx.known = true;
		nx.stat_ok = false;
		nx.stat_errno = e;
		error("%s: %s: cannot open: %s; jobs pass unchanged", plugin_type, nx.path,
		      strerror(e));
		return;
	}
	if (nx.known && nx.stat_ok && _same_file(&st, &nx.st))
		return;
	nx.known = true;
	nx.stat_ok = true;
	nx.st = st;
	nodeox_conf_free(nx.conf);
	nx.conf = NULL;
	if (nodeox_conf_parse_file(nx.path, &conf, err, sizeof(err)) != 0) {
		error("%s: %s; jobs pass unchanged", plugin_type, err);
		return;
	}
	nx.conf = conf;
	info("%s: loaded %s: Mode=%s Broaden=%s, %d GPU types, %d groups", plugin_type, nx.path,
	     conf->mode == NODEOX_MODE_ENFORCE ? "enforce" :
	     conf->mode == NODEOX_MODE_DRYRUN ? "dryrun" : "off",
	     conf->broaden == NODEOX_BROADEN_ALWAYS ? "always" : "when-blocked", conf->ntypes,
	     conf->ngroups);
}

extern int init(void)
{
	const char *env = getenv("NODEOX_CONF");

	slurm_mutex_lock(&nx.lock);
	xfree(nx.path);
	if (env && *env)
		nx.path = xstrdup(env);
	else
		nx.path = get_extra_conf_path("nodeox.conf");
	nx.known = false;
	_conf_refresh();
	slurm_mutex_unlock(&nx.lock);
	return SLURM_SUCCESS; /* never fail: slurmctld would exit */
}

extern int fini(void)
{
	slurm_mutex_lock(&nx.lock);
	nodeox_conf_free(nx.conf);
	nx.conf = NULL;
	xfree(nx.path);
	nx.known = false;
	slurm_mutex_unlock(&nx.lock);
	return SLURM_SUCCESS;
}

/* GPU type ("" if none or several) and total/idle GPUs of one node. */
static void _node_gpus(node_record_t *node_ptr, nodeox_node_t *nd)
{
	ListIterator it;
	gres_state_t *gs;

	nd->gpu_type = "";
	if (!node_ptr->gres_list)
		return;
	it = list_iterator_create(node_ptr->gres_list);
	while ((gs = list_next(it))) {
		gres_node_state_t *ns = gs->gres_data;

		if (!gs->gres_name || xstrcmp(gs->gres_name, "gpu") || !ns)
			continue;
		nd->gpus_total = (uint32_t)ns->gres_cnt_avail;
		nd->gpus_idle = ns->gres_cnt_avail > ns->gres_cnt_alloc ?
			(uint32_t)(ns->gres_cnt_avail - ns->gres_cnt_alloc) : 0;
		if (ns->type_cnt == 1 && ns->type_name && ns->type_name[0])
			nd->gpu_type = ns->type_name[0];
		break;
	}
	list_iterator_destroy(it);
}

/* The first of the node's partitions that the job may use, or NULL. */
static const char *_node_job_part(node_record_t *node_ptr, const char *job_parts)
{
	int i;

	for (i = 0; i < node_ptr->part_cnt; i++) {
		part_record_t *p = node_ptr->part_pptr[i];

		if (p && p->name &&
		    (!job_parts || nodeox_util_list_has(job_parts, p->name, strlen(p->name))))
			return p->name;
	}
	return NULL;
}

/*
 * Snapshot the nodes of the job's partitions. The strings point into
 * slurmctld's node and partition records, valid while its locks are held,
 * i.e. for the duration of this call. Each node's `partitions` is the one
 * partition through which the job can reach it. Returns xmalloc'd nodes.
 */
static nodeox_node_t *_cluster_snapshot(const char *job_parts, size_t *nnodes)
{
	nodeox_node_t *nodes;
	node_record_t *node_ptr;
	size_t n = 0;
	int i;

	*nnodes = 0;
	if (!node_record_table_ptr || node_record_count <= 0)
		return NULL;
	nodes = xcalloc(MIN(node_record_count, NODEOX_MAX_NODES), sizeof(*nodes));
	for (i = 0; i < node_record_count && n < NODEOX_MAX_NODES; i++) {
		nodeox_node_t *nd = &nodes[n];
		uint32_t st;

		if (!(node_ptr = node_record_table_ptr[i]) || !node_ptr->name)
			continue;
		if (!(nd->partitions = _node_job_part(node_ptr, job_parts)))
			continue;
		st = node_ptr->node_state;
		nd->name = node_ptr->name;
		nd->features = node_ptr->features_act ? node_ptr->features_act :
			node_ptr->features;
		nd->usable = !IS_NODE_DOWN(node_ptr) && !IS_NODE_DRAIN(node_ptr) &&
			     !IS_NODE_FAIL(node_ptr) && !IS_NODE_FUTURE(node_ptr);
		_node_gpus(node_ptr, nd);
		if (IS_NODE_NO_RESPOND(node_ptr) || (st & NODE_STATE_BASE) == NODE_STATE_UNKNOWN)
			nd->gpus_idle = 0;
		n++;
	}
	*nnodes = n;
	return nodes;
}

/* The account a job without --account will get (NULL if unknown). */
static void _default_account(uint32_t uid, char *buf, size_t len)
{
	slurmdb_user_rec_t user;

	memset(&user, 0, sizeof(user));
	user.uid = uid;
	buf[0] = '\0';
	if (assoc_mgr_fill_in_user(acct_db_conn, &user, accounting_enforce, NULL, false) !=
	    SLURM_ERROR && user.default_acct)
		snprintf(buf, len, "%s", user.default_acct);
}

/* Hand the user one more line (het components share err_msg). */
static void _tell_user(char **err_msg, const char *line)
{
	if (!err_msg)
		return;
	if (*err_msg)
		xstrfmtcat(*err_msg, "\nnodeox: %s", line);
	else
		*err_msg = xstrdup_printf("nodeox: %s", line);
}

static void _replace(char **field, const char *value)
{
	xfree(*field);
	*field = value[0] ? xstrdup(value) : NULL;
}

/*
 * job_modify only: Slurm 22.05 validates an updated GRES request against the
 * job's existing request list and refuses a typed and an untyped gpu entry
 * side by side ("with and without type identification"), so an untyped
 * rewrite of a typed pending job can never pass on its own. We therefore drop
 * the type from the job's requested gpu entries of that type (the same change
 * the rewrite makes to the strings); update_job then matches our untyped
 * entry to them and rebuilds the list and strings. Called with the job write
 * lock held, as job_modify always is.
 */
static void _untype_job_gres(job_record_t *job_ptr, const char *type)
{
	ListIterator it;
	gres_state_t *gs;

	if (!job_ptr || !job_ptr->gres_list_req)
		return;
	it = list_iterator_create(job_ptr->gres_list_req);
	while ((gs = list_next(it))) {
		gres_job_state_t *js = gs->gres_data;

		if (!gs->gres_name || xstrcmp(gs->gres_name, "gpu") || !js || !js->type_name ||
		    xstrcasecmp(js->type_name, type))
			continue;
		xfree(js->type_name);
		js->type_id = 0;
	}
	list_iterator_destroy(it);
}

/* Does job_ptr's stored request hold a gpu entry of this type? */
static bool _job_gres_typed(job_record_t *job_ptr, const char *type)
{
	ListIterator it;
	gres_state_t *gs;
	bool found = false;

	if (!job_ptr || !job_ptr->gres_list_req)
		return false;
	it = list_iterator_create(job_ptr->gres_list_req);
	while (!found && (gs = list_next(it))) {
		gres_job_state_t *js = gs->gres_data;

		found = gs->gres_name && !xstrcmp(gs->gres_name, "gpu") && js && js->type_name &&
			!xstrcasecmp(js->type_name, type);
	}
	list_iterator_destroy(it);
	return found;
}

/* Does some node list feature f (len bytes) among its configured features? */
static bool _feature_exists(const char *f, size_t len)
{
	int i;

	for (i = 0; i < node_record_count && i < NODEOX_MAX_NODES; i++) {
		node_record_t *node_ptr = node_record_table_ptr[i];

		if (node_ptr && node_ptr->features &&
		    nodeox_util_list_has(node_ptr->features, f, len))
			return true;
	}
	return false;
}

/* The first feature name in a constraint that no node has, copied to buf. */
static bool _unknown_feature(const char *constraint, char *buf, size_t cap)
{
	const char *p = constraint;
	int n = 0;

	while (p && *p && n++ < 64) {
		size_t len = strcspn(p, "&|,()[]*");

		if (len && !_feature_exists(p, len)) {
			snprintf(buf, cap, "%.*s", (int)MIN(len, 60), p);
			return true;
		}
		p += len;
		if (*p == '*') /* skip a count */
			p += 1 + strspn(p + 1, "0123456789");
		else if (*p)
			p++;
	}
	return false;
}

/*
 * For an update that must drop the type of the job's stored GPU request
 * (see _untype_job_gres): why it must not, or NULL. That change to job_ptr
 * survives a failed update, so it is made only when the rest of the update
 * cannot fail: no field besides comment, GPU request, constraint and prefer
 * is changed, and the constraint and prefer name only existing features.
 */
static const char *_update_blocker(job_desc_msg_t *d, char *buf, size_t cap)
{
	static const char *const other = "the same update changes other fields";
	char f[64];

	if (d->partition || d->account || d->qos || d->reservation || d->req_nodes ||
	    d->exc_nodes || d->licenses || d->cpus_per_tres || d->mem_per_tres ||
	    d->dependency || d->array_inx || d->burst_buffer || d->clusters ||
	    d->cluster_features || d->name || d->wckey || d->mcs_label || d->network ||
	    d->batch_features || d->tres_freq || d->extra || d->admin_comment)
		return other;
	if (d->num_tasks != NO_VAL || d->min_nodes != NO_VAL || d->max_nodes != NO_VAL ||
	    d->min_cpus != NO_VAL || d->max_cpus != NO_VAL || d->cpus_per_task != NO_VAL16 ||
	    d->ntasks_per_node != NO_VAL16 || d->ntasks_per_socket != NO_VAL16 ||
	    d->ntasks_per_tres != NO_VAL16 || d->sockets_per_node != NO_VAL16 ||
	    d->cores_per_socket != NO_VAL16 || d->threads_per_core != NO_VAL16 ||
	    d->pn_min_cpus != NO_VAL16 || d->pn_min_memory != NO_VAL64 ||
	    d->pn_min_tmp_disk != NO_VAL || d->time_limit != NO_VAL || d->time_min != NO_VAL ||
	    d->priority != NO_VAL || d->nice != NO_VAL || d->begin_time || d->deadline ||
	    d->shared != NO_VAL16 || d->contiguous != NO_VAL16 || d->core_spec != NO_VAL16 ||
	    d->site_factor != NO_VAL || d->requeue != NO_VAL16 || d->reboot != NO_VAL16)
		return other;
	if ((d->features && _unknown_feature(d->features, f, sizeof(f))) ||
	    (d->prefer && _unknown_feature(d->prefer, f, sizeof(f)))) {
		snprintf(buf, cap, "no node has feature %s", f);
		return buf;
	}
	return NULL;
}

/*
 * Decide for job and apply to job_desc (and, for an update, job_ptr's GRES
 * request list). old_admin_comment is kept in front of ours. Returns the
 * Slurm return code (an error only for a malformed tag).
 */
static int _decide_apply(nodeox_job_t *job, uint32_t uid, job_desc_msg_t *job_desc,
			 job_record_t *job_ptr, const char *blocker, const char *old_admin_comment,
			 const char *what, char **err_msg)
{
	nodeox_cluster_t cluster = { 0 };
	nodeox_node_t *nodes = NULL;
	nodeox_decision_t *d;
	nodeox_tag_t tag;
	char tagerr[NODEOX_ERR_MAX], acct[NODEOX_NAME_MAX], reqname[NODEOX_NAME_MAX] = "";
	int rc = SLURM_SUCCESS;

	slurm_mutex_lock(&nx.lock);
	_conf_refresh();
	if (!nx.conf || nx.conf->mode == NODEOX_MODE_OFF ||
	    nodeox_tag_parse(job->comment, nx.conf, &tag, tagerr, sizeof(tagerr)) == 0) {
		slurm_mutex_unlock(&nx.lock);
		return SLURM_SUCCESS; /* untagged jobs are never touched */
	}
	if (!job->account && (nx.conf->allow_accounts.n || nx.conf->deny_accounts.n)) {
		_default_account(uid, acct, sizeof(acct));
		if (acct[0])
			job->account = acct;
	}
	if (!job->user && (nx.conf->allow_users.n || nx.conf->deny_users.n))
		job->user = uid_to_string_cached((uid_t)uid);
	nodes = _cluster_snapshot(job->partition, &cluster.nnodes);
	cluster.nodes = nodes;
	d = xmalloc(sizeof(*d));
	nodeox_policy_decide(nx.conf, job, &cluster, d);
	if (d->requested_type >= 0) /* the conf may be replaced once unlocked */
		snprintf(reqname, sizeof(reqname), "%s", nx.conf->types[d->requested_type].name);
	slurm_mutex_unlock(&nx.lock);
	xfree(nodes);
	if (d->action == NODEOX_REWRITE && !d->dryrun && job_ptr && blocker &&
	    _job_gres_typed(job_ptr, reqname)) {
		d->action = NODEOX_KEEP;
		snprintf(d->reason, sizeof(d->reason), "not broadened: Slurm 22.05 can untype "
			 "a pending job's GPU request only in an update of the comment or GPU "
			 "request alone (%s)", blocker);
	}

	switch (d->action) {
	case NODEOX_PASS:
		break;
	case NODEOX_REJECT:
		info("%s: %s uid=%u: REJECT: %s", plugin_type, what, uid, d->reason);
		_tell_user(err_msg, d->reason);
		rc = SLURM_ERROR;
		break;
	case NODEOX_KEEP:
		info("%s: %s uid=%u: KEEP: %s", plugin_type, what, uid, d->reason);
		_tell_user(err_msg, d->reason);
		break;
	case NODEOX_REWRITE:
		info("%s: %s uid=%u: %s: %s; %s", plugin_type, what, uid,
		     d->dryrun ? "DRYRUN" : "REWRITE", d->reason, d->admin_comment);
		_tell_user(err_msg, d->reason);
		if (d->dryrun)
			break;
		if (d->tres_per_job_set)
			_replace(&job_desc->tres_per_job, d->tres_per_job);
		if (d->tres_per_node_set)
			_replace(&job_desc->tres_per_node, d->tres_per_node);
		if (d->tres_per_task_set)
			_replace(&job_desc->tres_per_task, d->tres_per_task);
		if (d->tres_per_socket_set)
			_replace(&job_desc->tres_per_socket, d->tres_per_socket);
		if (d->features_set)
			_replace(&job_desc->features, d->features);
		if (d->prefer_set)
			_replace(&job_desc->prefer, d->prefer);
		if (d->time_limit_set)
			job_desc->time_limit = d->time_limit;
		if (job_ptr && reqname[0]) /* blocker checked above */
			_untype_job_gres(job_ptr, reqname);
		if (old_admin_comment && *old_admin_comment &&
		    strlen(old_admin_comment) < NODEOX_STR_MAX) {
			char *c = xstrdup_printf("%s; %s", old_admin_comment, d->admin_comment);

			xfree(job_desc->admin_comment);
			job_desc->admin_comment = c;
		} else {
			_replace(&job_desc->admin_comment, d->admin_comment);
		}
		break;
	}
	xfree(d);
	return rc;
}

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	nodeox_job_t job = { 0 };
	char what[64];

	if (!job_desc)
		return SLURM_SUCCESS;
	job.job_id = job_desc->job_id == NO_VAL ? 0 : job_desc->job_id;
	job.comment = job_desc->comment;
	job.tres_per_job = job_desc->tres_per_job;
	job.tres_per_node = job_desc->tres_per_node;
	job.tres_per_task = job_desc->tres_per_task;
	job.tres_per_socket = job_desc->tres_per_socket;
	job.features = job_desc->features;
	job.prefer = job_desc->prefer;
	job.partition = job_desc->partition ? job_desc->partition : default_part_name;
	job.account = job_desc->account;
	job.time_limit = job_desc->time_limit == NO_VAL ? NODEOX_TIME_NONE :
		job_desc->time_limit;
	job.min_nodes = job_desc->min_nodes == NO_VAL ? 0 : job_desc->min_nodes;
	job.num_tasks = job_desc->num_tasks == NO_VAL ? 0 : job_desc->num_tasks;
	if (job_desc->het_job_offset != NO_VAL)
		snprintf(what, sizeof(what), "submit (het component %u)",
			 job_desc->het_job_offset);
	else
		snprintf(what, sizeof(what), "submit%s", job_desc->array_inx ? " (array)" : "");
	return _decide_apply(&job, job_desc->user_id != NO_VAL ? job_desc->user_id : submit_uid,
			     job_desc, NULL, NULL, job_desc->admin_comment, what, err_msg);
}

/*
 * scontrol update of a pending job's comment or GPU request: decide again
 * with the job's stored fields where the update does not change them. The
 * time limit is scaled only for operators (Slurm refuses a user's raise) and
 * only once (not again for a job nodeox has already broadened).
 */
static int _modify(job_desc_msg_t *job_desc, job_record_t *job_ptr, uint32_t submit_uid,
		   char **err_msg)
{
	nodeox_job_details_t *det;
	nodeox_job_t job = { 0 };
	char what[64], blockbuf[128];
	const char *blocker;

	if (!job_desc || !job_ptr || !IS_JOB_PENDING(job_ptr))
		return SLURM_SUCCESS;
	if (!job_desc->comment && !job_desc->tres_per_job && !job_desc->tres_per_node &&
	    !job_desc->tres_per_task && !job_desc->tres_per_socket)
		return SLURM_SUCCESS;
	blocker = _update_blocker(job_desc, blockbuf, sizeof(blockbuf)); /* before we fill in */
	det = job_ptr->details;
	job.job_id = job_ptr->job_id;
#define NX_PICK(f, old) (job_desc->f ? job_desc->f : (old))
	job.comment = NX_PICK(comment, job_ptr->comment);
	job.tres_per_job = NX_PICK(tres_per_job, job_ptr->tres_per_job);
	job.tres_per_node = NX_PICK(tres_per_node, job_ptr->tres_per_node);
	job.tres_per_task = NX_PICK(tres_per_task, job_ptr->tres_per_task);
	job.tres_per_socket = NX_PICK(tres_per_socket, job_ptr->tres_per_socket);
	job.features = NX_PICK(features, det ? det->features : NULL);
	job.prefer = NX_PICK(prefer, det ? det->prefer : NULL);
	job.partition = NX_PICK(partition, job_ptr->partition);
	job.account = NX_PICK(account, job_ptr->account);
	job.user = job_ptr->user_name;
#undef NX_PICK
	if (!validate_operator(submit_uid) ||
	    (job_ptr->admin_comment && strstr(job_ptr->admin_comment, "nodeox: changed")))
		job.time_limit = NODEOX_TIME_NONE; /* not raisable, or scaled already */
	else if (job_desc->time_limit != NO_VAL)
		job.time_limit = job_desc->time_limit;
	else
		job.time_limit = job_ptr->time_limit == NO_VAL ? NODEOX_TIME_NONE :
			job_ptr->time_limit;
	job.min_nodes = det && det->min_nodes != NO_VAL ? det->min_nodes : 0;
	job.num_tasks = det && det->num_tasks != NO_VAL ? det->num_tasks : 0;
	snprintf(what, sizeof(what), "update JobId=%u", job_ptr->job_id);
	return _decide_apply(&job, job_ptr->user_id, job_desc, job_ptr, blocker,
			     job_ptr->admin_comment, what, err_msg);
}

/* 23.02+ passes err_msg (see slurm_compat.h): the user sees our line. */
extern int job_modify(NODEOX_JOB_MODIFY_ARGS)
{
	return _modify(job_desc, job_ptr, submit_uid, NODEOX_JOB_MODIFY_ERR_MSG);
}
