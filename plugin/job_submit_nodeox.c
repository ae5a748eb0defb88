/*
 * job_submit_nodeox.c: the job_submit/nodeox Slurm plugin, thin glue between
 * slurmctld and the policy library (policy/policy.h).
 *
 * For each submission (sbatch, salloc, srun allocations, --test-only, each
 * component of a heterogeneous job, a whole job array at once) and for each
 * `scontrol update` of a pending job's comment or GPU request, it
 *   1. makes sure nodeox.conf is current: at most once a second it stat()s
 *      the path and re-reads the file when inode/size/mtime/ctime changed.
 *      Only a regular file of at most 1 MiB is read, opened non-blocking, so
 *      a FIFO, a device or a directory at the path can never make slurmctld
 *      wait; the stat() itself can, on a dead network mount (the admin
 *      guide: keep nodeox.conf off NFS). A missing or broken file is logged
 *      once per change and lets every job pass unchanged. The speed table
 *      that SpeedTable= names is read with it and whenever its own file
 *      changes, the same way; a bad table leaves the last good one (or
 *      Speed=) in force (_speeds_refresh);
 *   2. copies the job's fields into a nodeox_job_t, with the time limit cap
 *      its partitions (MaxTime) and QOS (MaxWall, where readable) allow;
 *   3. for a tagged job only, snapshots the node table (features, partitions,
 *      GPU type and idle count, usable or not) into a nodeox_cluster_t
 *      without taking locks: slurmctld already holds them around job_submit;
 *      with Broaden=when-faster also job_list (running jobs' GPUs per node
 *      and end times, pending jobs' GPUs by type; _cluster_state, bounded);
 *   4. calls nodeox_policy_decide and writes the changed fields back with
 *      Slurm's allocator, logs one info() line and tells the user one line.
 *
 * job_modify runs BEFORE slurmctld checks who may change the job, how long
 * the comment may be and what the rest of the update does: it therefore only
 * ever fills in the update request (job_desc), never the job record. If the
 * update is refused, nothing of it reaches the job. A consequence on Slurm
 * 22.05: a pending job whose stored GPU request is typed cannot be broadened
 * by an update (Slurm refuses an untyped entry beside the typed one and
 * offers no way to drop the typed one), so tagging such a job by
 * `scontrol update comment=nodeox:flex` is refused with a log line (and, from
 * 23.02 on, a message to the user): tag at submission instead. An update of a
 * broadened job's constraint alone that drops nodeox's type term gives the
 * time limit back as the user asked it (_constraint_update).
 *
 * Concurrency: Slurm 22.05 serialises every job_submit/job_modify call of all
 * job_submit plugins behind its own plugin context mutex (job_submit.c); from
 * 23.02 on slurmctld may call us from several threads at once. nx.lock guards
 * the loaded conf in both cases.
 *
 * Nothing here may crash, block or leak inside slurmctld: every string from
 * the user is passed as an argument, never as a format, and escaped before it
 * reaches a log line; work is bounded: one pass over the node table for the
 * snapshot (at most NODEOX_MAX_NODES; when-faster: and one walk of at most
 * NODEOX_MAX_JOBS_SCANNED job records), then the decision's passes over that
 * snapshot (one per candidate GPU type, and a few more for when-blocked and
 * when-faster: policy_decide.c, policy_estimate.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

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

#include "common/util.h"
#include "policy/policy.h"
#include "plugin/slurm_compat.h"

const char plugin_name[] = "nodeox: broaden typed GPU requests of flexible jobs";
const char plugin_type[] = "job_submit/nodeox";
const uint32_t plugin_version = NODEOX_PLUGIN_VERSION;

#define NODEOX_MAX_NODES 100000 /* bound on the node snapshot */
/* Broaden=when-faster: bounds on what one decision reads of job_list. Past
 * either, the state is marked cut and the decision makes no estimate (it
 * decides as when-blocked and says so). */
#define NODEOX_MAX_JOBS_SCANNED 200000                 /* job records looked at */
#define NODEOX_MAX_RUNNING 200000                      /* running jobs' (job, node) GPU holdings */
#define NODEOX_ADMIN_COMMENT_MAX (16 * NODEOX_STR_MAX) /* admin text + our record */

/* The loaded policy and the identity of the file it came from. */
static struct {
	pthread_mutex_t lock; /* guards everything here (see Concurrency) */
	char *path;           /* xmalloc'd */
	nodeox_conf_t *conf;  /* NULL: missing or broken, pass through */
	bool stat_ok;         /* last stat succeeded */
	int stat_errno;
	struct stat st;         /* identity of the file conf came from */
	bool known;             /* st/stat_errno describe the last look */
	struct timespec looked; /* CLOCK_MONOTONIC time of the last look */
	long look_interval_ms;  /* at most one look per interval (tests: 0) */
	/* SpeedTable=: the last good table, kept while a newer file is bad */
	nodeox_speeds_t *speeds; /* NULL: none loaded, Speed= alone */
	char *speeds_path;       /* xmalloc'd: the file last looked at */
	struct stat speeds_st;   /* its identity then (speeds_errno 0) */
	int speeds_errno;        /* stat's errno then, 0: stat worked */
} nx = { .lock = PTHREAD_MUTEX_INITIALIZER, .look_interval_ms = 1000 };

static bool _same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Drop the conf: jobs pass unchanged until the file is good again. */
static void _conf_drop(const char *why)
{
	nodeox_conf_free(nx.conf);
	nx.conf = NULL;
	error("%s: %s: %s; jobs pass unchanged", plugin_type, nx.path, why);
}

/* Has the look interval passed since the last look? Records this look. */
static bool _conf_look_due(bool force)
{
	struct timespec now;
	long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (now.tv_sec - nx.looked.tv_sec) * 1000 + (now.tv_nsec - nx.looked.tv_nsec) / 1000000;
	if (!force && nx.known && ms >= 0 && ms < nx.look_interval_ms)
		return false;
	nx.looked = now;
	return true;
}

/*
 * Bring nx.conf up to date with the file. Caller holds nx.lock and
 * _conf_refresh has made the look. stat() never opens the file;
 * only a regular file is opened, non-blocking (nodeox_conf_parse_file), so
 * nothing at the path can make slurmctld wait on it, save the stat() itself
 * on a dead network mount (doc/admin-guide.md: keep nodeox.conf off NFS).
 */
static void _conf_reread(void)
{
	char err[NODEOX_ERR_MAX + 600];
	nodeox_conf_t *conf = NULL;
	struct stat st;

	if (stat(nx.path, &st) != 0) {
		int e = errno;

		if (nx.known && !nx.stat_ok && nx.stat_errno == e)
			return;
		nx.known = true;
		nx.stat_ok = false;
		nx.stat_errno = e;
		snprintf(err, sizeof(err), "cannot open: %s", strerror(e));
		_conf_drop(err);
		return;
	}
	if (nx.known && nx.stat_ok && _same_file(&st, &nx.st))
		return;
	nx.known = true;
	nx.stat_ok = true;
	nx.st = st;
	if (!S_ISREG(st.st_mode)) {
		_conf_drop("not a regular file");
		return;
	}
	if (nodeox_conf_parse_file(nx.path, &conf, err, sizeof(err)) != 0) {
		nodeox_conf_free(nx.conf);
		nx.conf = NULL;
		error("%s: %s; jobs pass unchanged", plugin_type, err);
		return;
	}
	nodeox_conf_free(nx.conf);
	nx.conf = conf;
	info("%s: loaded %s: Mode=%s Broaden=%s, %d GPU types, %d groups", plugin_type, nx.path,
	     conf->mode == NODEOX_MODE_ENFORCE  ? "enforce"
	     : conf->mode == NODEOX_MODE_DRYRUN ? "dryrun"
						: "off",
	     conf->broaden == NODEOX_BROADEN_ALWAYS         ? "always"
	     : conf->broaden == NODEOX_BROADEN_WHEN_BLOCKED ? "when-blocked"
							    : "when-faster",
	     conf->ntypes, conf->ngroups);
}

/*
 * Bring the speed table up to date with SpeedTable= of the loaded conf and
 * with its file (read as nodeox.conf is: stat first, a regular file only,
 * opened non-blocking, bounded by NODEOX_SPEEDS_FILE_MAX). A file that is
 * missing or bad leaves the last good table in force, or Speed= when there
 * is none, with one log line per change naming FILE:LINE. Caller holds
 * nx.lock; nx.conf is not NULL.
 */
static void _speeds_refresh(void)
{
	char err[NODEOX_ERR_MAX + 600];
	const char *path = nx.conf->speed_table;
	nodeox_speeds_t *t = NULL;
	struct stat st;
	int e = 0;

	if (!path[0]) {
		if (nx.speeds)
			info("%s: %s names no SpeedTable=: speed table %s dropped, Speed= applies",
			     plugin_type, nx.path, nodeox_speeds_path(nx.speeds));
		nodeox_speeds_free(nx.speeds);
		nx.speeds = NULL;
		xfree(nx.speeds_path);
		nx.conf->speeds = NULL;
		return;
	}
	if (stat(path, &st) != 0)
		e = errno;
	if (nx.speeds_path && !strcmp(nx.speeds_path, path) && nx.speeds_errno == e &&
	    (e || _same_file(&st, &nx.speeds_st))) {
		nx.conf->speeds = nx.speeds; /* nothing new since the last look */
		return;
	}
	xfree(nx.speeds_path);
	nx.speeds_path = xstrdup(path);
	nx.speeds_errno = e;
	nx.speeds_st = st;
	if (e)
		snprintf(err, sizeof(err), "%s: cannot open: %s", path, strerror(e));
	if (e || nodeox_speeds_parse_file(path, &t, err, sizeof(err)) != 0) {
		if (nx.speeds)
			error("%s: speed table %s; keeping the last good table (%s, %zu entries)",
			      plugin_type, err, nodeox_speeds_path(nx.speeds),
			      nodeox_speeds_count(nx.speeds));
		else
			error("%s: speed table %s; Speed= of nodeox.conf applies", plugin_type, err);
	} else {
		nodeox_speeds_free(nx.speeds);
		nx.speeds = t;
		info("%s: loaded speed table %s: %zu entries, made %s from %s", plugin_type, path,
		     nodeox_speeds_count(t), nodeox_speeds_made(t), nodeox_speeds_from(t));
	}
	nx.conf->speeds = nx.speeds;
}

/* Bring the conf and its speed table up to date, at most once per look
 * interval (always when force). Caller holds nx.lock. */
static void _conf_refresh(bool force)
{
	if (!_conf_look_due(force))
		return;
	_conf_reread();
	if (nx.conf)
		_speeds_refresh();
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
	_conf_refresh(true);
	slurm_mutex_unlock(&nx.lock);
	return SLURM_SUCCESS; /* never fail: slurmctld would exit */
}

extern int fini(void)
{
	slurm_mutex_lock(&nx.lock);
	nodeox_conf_free(nx.conf);
	nx.conf = NULL;
	nodeox_speeds_free(nx.speeds);
	nx.speeds = NULL;
	xfree(nx.speeds_path);
	xfree(nx.path);
	nx.known = false;
	slurm_mutex_unlock(&nx.lock);
	return SLURM_SUCCESS;
}


/* list_find_first_ro's test: the GPU entry of a gres list, with its state. */
static int _gres_is_gpu(void *x, void *key)
{
	gres_state_t *gs = x;

	return gs && gs->gres_name && !xstrcmp(gs->gres_name, "gpu") && gs->gres_data;
}

/* GPU type ("" if none or several) and total/idle GPUs of one node (a
 * list_find_first_ro: no iterator to allocate per node, a read lock). */
static void _node_gpus(node_record_t *node_ptr, nodeox_node_t *nd)
{
	gres_state_t *gs;
	gres_node_state_t *ns;

	nd->gpu_type = "";
	if (!node_ptr->gres_list || !(gs = list_find_first_ro(node_ptr->gres_list, _gres_is_gpu, NULL)))
		return;
	ns = gs->gres_data;
	nd->gpus_total = (uint32_t)ns->gres_cnt_avail;
	nd->gpus_idle = ns->gres_cnt_avail > ns->gres_cnt_alloc
				? (uint32_t)(ns->gres_cnt_avail - ns->gres_cnt_alloc)
				: 0;
	if (ns->type_cnt == 1 && ns->type_name && ns->type_name[0])
		nd->gpu_type = ns->type_name[0];
}

/* The first of the node's partitions that the job may use, or NULL. */
static const char *_node_job_part(node_record_t *node_ptr, const char *job_parts)
{
	int i;

	for (i = 0; i < node_ptr->part_cnt; i++) {
		part_record_t *p = node_ptr->part_pptr[i];

		if (p && p->name && (!job_parts || nodeox_util_list_has(job_parts, p->name, strlen(p->name))))
			return p->name;
	}
	return NULL;
}

/*
 * Snapshot the nodes of the job's partitions into cl->nodes (the caller
 * xfree()s them). The strings point into slurmctld's node and partition
 * records, valid while its locks are held, i.e. for the duration of this
 * call. Each node's `partitions` is the one partition through which the job
 * can reach it. map (node_record_count entries, or NULL) gets each node
 * record's index in the snapshot, -1 if left out; past NODEOX_MAX_NODES
 * nodes the rest are left out and cl->state_cut is set (no when-faster
 * estimate from part of the cluster). Returns false, with nothing read, when
 * the snapshot's memory cannot be had (inside slurmctld: no abort).
 */
static bool _cluster_snapshot(const char *job_parts, nodeox_cluster_t *cl, int32_t *map)
{
	nodeox_node_t *nodes;
	node_record_t *node_ptr;
	size_t n = 0;
	int i;

	cl->nodes = NULL;
	cl->nnodes = 0;
	if (map)
		for (i = 0; i < node_record_count; i++)
			map[i] = -1;
	if (!node_record_table_ptr || node_record_count <= 0)
		return true;
	if (!(nodes = try_xcalloc(MIN(node_record_count, NODEOX_MAX_NODES), sizeof(*nodes))))
		return false;
	for (i = 0; i < node_record_count; i++) {
		const char *part;
		nodeox_node_t *nd;
		uint32_t st;

		if (!(node_ptr = node_record_table_ptr[i]) || !node_ptr->name ||
		    !(part = _node_job_part(node_ptr, job_parts)))
			continue;
		if (n >= NODEOX_MAX_NODES) { /* one more of the job's nodes: cut */
			cl->state_cut = true;
			break;
		}
		nd = &nodes[n];
		nd->partitions = part;
		if (map)
			map[i] = (int32_t)n;
		st = node_ptr->node_state;
		nd->name = node_ptr->name;
		nd->features = node_ptr->features_act ? node_ptr->features_act : node_ptr->features;
		nd->usable = !IS_NODE_DOWN(node_ptr) && !IS_NODE_DRAIN(node_ptr) && !IS_NODE_FAIL(node_ptr) &&
			     !IS_NODE_FUTURE(node_ptr) && !NODEOX_NODE_EXTERNAL(node_ptr);
		_node_gpus(node_ptr, nd);
		if (IS_NODE_NO_RESPOND(node_ptr) || (st & NODE_STATE_BASE) == NODE_STATE_UNKNOWN)
			nd->gpus_idle = 0;
		n++;
	}
	cl->nodes = nodes;
	cl->nnodes = n;
	return true;
}

/* Broaden=when-faster's view of job_list (see _cluster_state). */
typedef struct {
	nodeox_running_t *running;  /* xmalloc'd, sorted by end */
	size_t cap;                 /* entries allocated in running */
	nodeox_running_t *sort_tmp; /* nodeox_running_sort's scratch, or NULL */
	nodeox_demand_t ahead[NODEOX_MAX_TYPES + 1];
	char ahead_type[NODEOX_MAX_TYPES + 1][NODEOX_NAME_MAX];
	int32_t *map; /* node record index -> snapshot index */
	uint32_t *scratch;
	bool nomem; /* an allocation failed: no estimate */
} nodeox_state_buf_t;

/* Add a pending job's GPUs to the demand ahead, under its GPU type ("" for
 * an untyped request: one nodeox broadened, or any GPU). */
static void _demand_add(nodeox_state_buf_t *st, nodeox_cluster_t *cl, job_record_t *job_ptr)
{
	const char *field[4] = { job_ptr->tres_per_job, job_ptr->tres_per_node, job_ptr->tres_per_task,
				 job_ptr->tres_per_socket };
	uint32_t nodes = 1, tasks = 1;
	nodeox_tres_gpu_t e[NODEOX_TRES_MAX_GPU];
	char type[NODEOX_NAME_MAX] = "";
	uint64_t gpus = 0;
	size_t k;
	int f, i, n;

	if (job_ptr->details) {
		if (job_ptr->details->min_nodes && job_ptr->details->min_nodes != NO_VAL)
			nodes = job_ptr->details->min_nodes;
		if (job_ptr->details->num_tasks && job_ptr->details->num_tasks != NO_VAL)
			tasks = job_ptr->details->num_tasks;
	}
	for (f = 0; f < 4; f++) {
		n = nodeox_tres_scan(field[f], e, NODEOX_TRES_MAX_GPU);
		for (i = 0; i < n && i < NODEOX_TRES_MAX_GPU; i++) {
			uint64_t c = e[i].count * (f == 1 || f == 3 ? nodes : f == 2 ? tasks : 1);

			gpus = c > UINT64_MAX - gpus ? UINT64_MAX : gpus + c; /* counts < 2^32 */
			if (!type[0] && e[i].type_len)
				nodeox_tres_type_copy(field[f], &e[i], type, sizeof(type));
		}
	}
	/* a pending job array's record stands for all its tasks not yet split
	 * off into records of their own (each of which is counted as a job) */
	if (job_ptr->array_recs && job_ptr->array_recs->task_cnt > 1)
		gpus = gpus > UINT64_MAX / job_ptr->array_recs->task_cnt
			       ? UINT64_MAX
			       : gpus * job_ptr->array_recs->task_cnt;
	if (!gpus)
		return;
	for (k = 0; k < cl->nahead; k++)
		if (!xstrcasecmp(st->ahead_type[k], type))
			break;
	if (k == cl->nahead) {
		if (k >= NODEOX_MAX_TYPES + 1)
			return; /* more types than nodeox.conf can name: none of ours */
		snprintf(st->ahead_type[k], sizeof(st->ahead_type[k]), "%s", type);
		st->ahead[k] = (nodeox_demand_t){ .type = st->ahead_type[k] };
		cl->nahead++;
	}
	nodeox_demand_add(&st->ahead[k], gpus, job_ptr->priority, job_ptr->job_id);
}

/* A running job's GPUs on each of its nodes in the snapshot. Returns false
 * when the running list is full, or could not grow (st->nomem). */
static bool _running_add(nodeox_state_buf_t *st, nodeox_cluster_t *cl, job_record_t *job_ptr, time_t now)
{
	gres_state_t *gs;
	gres_job_state_t *js;
	int64_t n, nbits;
	uint32_t j = 0;

	if (!job_ptr->node_bitmap || !job_ptr->gres_list_alloc ||
	    !(gs = list_find_first_ro(job_ptr->gres_list_alloc, _gres_is_gpu, NULL)) ||
	    !(js = gs->gres_data) || !js->gres_cnt_node_alloc)
		return true;
	/* the job's nodes from its first on, until all js->node_cnt are seen
	 * (no bit_fls: it tests the bitmap's last word bit by bit) */
	nbits = bit_size(job_ptr->node_bitmap);
	for (n = bit_ffs(job_ptr->node_bitmap);
	     n >= 0 && n < nbits && n < node_record_count && j < js->node_cnt; n++) {
		nodeox_running_t *r;

		if (!bit_test(job_ptr->node_bitmap, n))
			continue;
		if (st->map[n] >= 0 && js->gres_cnt_node_alloc[j]) {
			if (cl->nrunning >= st->cap) {
				size_t cap = MIN(st->cap ? 2 * st->cap : 1024, NODEOX_MAX_RUNNING);

				if (st->cap >= NODEOX_MAX_RUNNING)
					return false;
				/* inside slurmctld: a failed allocation must not
				 * abort it (xrecalloc would); no estimate instead */
				if (!try_xrealloc(st->running, cap * sizeof(*st->running))) {
					st->nomem = true;
					return false;
				}
				st->cap = cap;
			}
			r = &st->running[cl->nrunning++];
			r->node = (uint32_t)st->map[n];
			r->gpus = (uint32_t)MIN(js->gres_cnt_node_alloc[j], UINT32_MAX);
			r->end = (int64_t)job_ptr->end_time - (int64_t)now;
		}
		j++;
	}
	return true;
}

/* _cluster_state's walk of job_list: where it is. */
typedef struct {
	nodeox_state_buf_t *st;
	nodeox_cluster_t *cl;
	const nodeox_job_t *job;
	size_t scanned;
	time_t now;
} nodeox_state_walk_t;

/* list_for_each_ro's call per job record: a running job's holdings, a
 * pending one's demand; -1 stops the walk (a cap reached, or no memory). */
static int _state_job(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	nodeox_state_walk_t *w = arg;
	nodeox_cluster_t *cl = w->cl;

	if (++w->scanned > NODEOX_MAX_JOBS_SCANNED) {
		cl->state_cut = true;
		return -1;
	}
	if (IS_JOB_RUNNING(job_ptr)) {
		if (!_running_add(w->st, cl, job_ptr, w->now)) {
			if (w->st->nomem) /* no scratch: no estimate */
				cl->scratch = NULL;
			else
				cl->state_cut = true;
			return -1;
		}
	} else if (IS_JOB_PENDING(job_ptr) && job_ptr->priority && job_ptr->job_id != w->job->job_id &&
		   (!job_ptr->partition || !w->job->partition ||
		    nodeox_util_lists_meet(job_ptr->partition, w->job->partition))) {
		_demand_add(w->st, cl, job_ptr);
	}
	return 0;
}

/*
 * Broaden=when-faster: read job_list for the estimate, under the locks
 * slurmctld holds around job_submit (never taking one of its own but the
 * lists' read locks): every running job's GPUs per node with its expected
 * end (end_time: start plus time limit), and the GPUs every pending, not
 * held job of the job's partitions wants (a new submission is behind all of
 * them in FIFO order). One list_for_each_ro, not an iterator: an iterator
 * takes job_list's write lock once per record (list_next), which was most
 * of this walk's time at 10,000 jobs (`make bench-policy`, bench_plugin).
 * Bounded by NODEOX_MAX_JOBS_SCANNED records and NODEOX_MAX_RUNNING
 * holdings; past either, cl->state_cut is set and the decision makes no
 * estimate.
 */
static void _cluster_state(nodeox_state_buf_t *st, nodeox_cluster_t *cl, const nodeox_job_t *job)
{
	nodeox_state_walk_t w = { .st = st, .cl = cl, .job = job, .now = time(NULL) };

	st->scratch = try_xcalloc(NODEOX_ESTIMATE_SCRATCH(cl->nnodes ? cl->nnodes : 1), sizeof(uint32_t));
	if (!st->scratch) { /* no scratch: the decision makes no estimate */
		st->nomem = true;
		return;
	}
	cl->scratch = st->scratch;
	cl->ahead = st->ahead;
	if (!job_list)
		return;
	(void)list_for_each_ro(job_list, _state_job, &w);
	cl->running = st->running;
	/* the radix sort's scratch; without it, a merge sort in place (the
	 * same order), still no abort */
	if (cl->nrunning > 1)
		st->sort_tmp = try_xmalloc(cl->nrunning * sizeof(*st->sort_tmp));
	nodeox_running_sort(st->running, cl->nrunning, st->sort_tmp);
	xfree(st->sort_tmp);
}

/* Frees st itself too (NULL: nothing). */
static void _cluster_state_free(nodeox_state_buf_t *st)
{
	if (!st)
		return;
	xfree(st->running);
	xfree(st->map);
	xfree(st->scratch);
	xfree(st);
}

/* The account a job without --account will get (NULL if unknown). */
static void _default_account(uint32_t uid, char *buf, size_t len)
{
	slurmdb_user_rec_t user;

	memset(&user, 0, sizeof(user));
	user.uid = uid;
	buf[0] = '\0';
	if (assoc_mgr_fill_in_user(acct_db_conn, &user, accounting_enforce, NULL, false) != SLURM_ERROR &&
	    user.default_acct)
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
 * --prefer for PreferRequested=yes. slurm_free_job_desc_msg frees
 * job_desc->prefer only from 26.05.2 on (NODEOX_SLURM_FREES_PREFER,
 * slurm_compat.h): before, this string (like a user's own --prefer) stays
 * allocated until slurmctld restarts: about 20 bytes per broadened job
 * (doc/admin-guide.md, Pitfalls). It cannot be freed here: slurmctld reads
 * it after the plugin returns (and copies it, on submit and on update). On
 * those releases a function of its own, so that make check-valgrind can
 * name exactly this leak; from 26.05.2 a plain replacement, which Slurm
 * frees with the message, and the suppression matches nothing.
 */
#if NODEOX_SLURM_FREES_PREFER
static void _set_prefer(job_desc_msg_t *job_desc, const char *value)
{
	_replace(&job_desc->prefer, value);
}
#else
static __attribute__((noinline)) void _set_prefer_leaked_by_slurm_2205(job_desc_msg_t *job_desc,
								       const char *value)
{
	_replace(&job_desc->prefer, value);
}
#define _set_prefer _set_prefer_leaked_by_slurm_2205
#endif

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

/*
 * User text (constraints, comments) reaches our log lines inside the reason
 * and the admin comment: copy s to buf with every byte outside printable
 * ASCII written as \xNN, so a newline cannot forge a log line. Bounded.
 */
static const char *_log_safe(const char *s, char *buf, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		bool plain = c >= 0x20 && c < 0x7f && c != '\\';

		if (n + (plain ? 1 : 4) + 4 > cap) { /* room for "..." and NUL */
			memcpy(buf + n, "...", 3);
			n += 3;
			break;
		}
		if (plain) {
			buf[n++] = (char)c;
			continue;
		}
		buf[n++] = '\\';
		buf[n++] = 'x';
		buf[n++] = hex[c >> 4];
		buf[n++] = hex[c & 15];
	}
	buf[n] = '\0';
	return buf;
}

/*
 * The longest time limit the job may have in all of its partitions (MaxTime)
 * and its QOS (MaxWall, when the job names one and slurmctld has the QOS list
 * loaded), as job->time_cap and a few words saying where it comes from.
 * parts: the job's comma list of partitions, NULL for the default one.
 */
static void _time_cap(const char *parts, const char *qos_name, uint32_t qos_id, nodeox_job_t *job, char *what,
		      size_t cap)
{
	char name[NODEOX_NAME_MAX];
	const char *p = parts;
	size_t n;
	uint32_t limit = INFINITE;

	what[0] = '\0';
	if (!p && default_part_loc && default_part_loc->max_time != INFINITE) {
		limit = default_part_loc->max_time;
		snprintf(what, cap, "MaxTime of partition %s", default_part_loc->name);
	}
	for (const char *it; nodeox_util_list_next(&p, &it, &n);) {
		part_record_t *part;

		if (n >= sizeof(name))
			continue;
		memcpy(name, it, n);
		name[n] = '\0';
		part = find_part_record(name);
		if (part && part->max_time != INFINITE && part->max_time < limit) {
			limit = part->max_time;
			snprintf(what, cap, "MaxTime of partition %s", part->name);
		}
	}
	if ((qos_name || qos_id) && assoc_mgr_qos_list) {
		slurmdb_qos_rec_t qos;
		slurmdb_qos_rec_t *qos_ptr = NULL;

		memset(&qos, 0, sizeof(qos));
		qos.name = (char *)qos_name;
		qos.id = qos_name ? 0 : qos_id;
		if (assoc_mgr_fill_in_qos(acct_db_conn, &qos, accounting_enforce, &qos_ptr, false) ==
			    SLURM_SUCCESS &&
		    qos_ptr && qos.max_wall_pj != INFINITE && qos.max_wall_pj != NO_VAL &&
		    qos.max_wall_pj < limit) {
			limit = qos.max_wall_pj;
			snprintf(what, cap, "MaxWall of QOS %s", qos_name ? qos_name : "of the job");
		}
	}
	job->time_cap = limit == INFINITE ? 0 : limit;
	job->time_cap_what = what;
}

/* Append ours to the admin's own admin comment, never dropping theirs. */
static void _set_admin_comment(job_desc_msg_t *job_desc, const char *old, const char *ours)
{
	char *c;

	if (!old || !*old) {
		_replace(&job_desc->admin_comment, ours);
		return;
	}
	if (strlen(old) + strlen(ours) + 2 > NODEOX_ADMIN_COMMENT_MAX) {
		info("%s: admin comment of %zu characters left as it is, nodeox's record "
		     "not appended",
		     plugin_type, strlen(old));
		return;
	}
	c = xstrdup_printf("%s; %s", old, ours);
	xfree(job_desc->admin_comment);
	job_desc->admin_comment = c;
}

/* What job_modify must do besides deciding (NULL for a submission). */
typedef struct {
	job_record_t *job_ptr;  /* the stored job: read, never written */
	bool sets_comment;      /* the update changes the comment */
	bool may_admin_comment; /* the caller may set admin_comment */
} nodeox_update_t;

/* Where the job's time limit cap comes from (read by _time_cap). */
typedef struct {
	const char *parts; /* the job's partitions, NULL: the default one */
	const char *qos;   /* the QOS the job names, or NULL */
	uint32_t qos_id;   /* else the stored job's QOS id, or 0 */
} nodeox_cap_src_t;

/* The decision's own memory could not be had: the job is left as asked
 * (nothing more is allocated to tell the user so). */
static int _out_of_memory(const char *what, uint32_t uid)
{
	error("%s: %s uid=%u: out of memory for the decision: job left as asked", plugin_type, what, uid);
	return SLURM_SUCCESS;
}

/*
 * Decide for job and apply to job_desc. old_admin_comment is kept in front
 * of ours. The time limit cap is looked up (partitions, QOS) only for a
 * tagged job: an untagged one pays nothing for it. Returns the Slurm return
 * code: an error for a malformed tag, and for an update that tags a job
 * nodeox cannot broaden by an update.
 */
static int _decide_apply(nodeox_job_t *job, uint32_t uid, job_desc_msg_t *job_desc,
			 const nodeox_update_t *upd, const nodeox_cap_src_t *cap,
			 const char *old_admin_comment, const char *what, char **err_msg)
{
	char capwhat[NODEOX_NAME_MAX + 32];
	nodeox_cluster_t cluster = { 0 };
	nodeox_state_buf_t *st = NULL;
	nodeox_decision_t *d;
	bool parts_ok, nomem = false;
	nodeox_tag_t tag;
	char tagerr[NODEOX_ERR_MAX], acct[NODEOX_NAME_MAX], reqname[NODEOX_NAME_MAX] = "";
	char safe_reason[4 * NODEOX_ERR_MAX], safe_note[4 * NODEOX_STR_MAX];
	int rc = SLURM_SUCCESS;

	slurm_mutex_lock(&nx.lock);
	_conf_refresh(false);
	if (!nx.conf || nx.conf->mode == NODEOX_MODE_OFF ||
	    nodeox_tag_parse(job->comment, nx.conf, &tag, tagerr, sizeof(tagerr)) == 0) {
		slurm_mutex_unlock(&nx.lock);
		return SLURM_SUCCESS; /* untagged jobs are never touched */
	}
	/* a partition list past the bound: the decision KEEPs the job with the
	 * reason, and nothing is read per partition, node or job for it */
	parts_ok = nodeox_policy_parts_ok(job->partition, NULL, 0);
	if (parts_ok)
		_time_cap(cap->parts, cap->qos, cap->qos_id, job, capwhat, sizeof(capwhat));
	/* the user and account names: for their allow/deny lists, and for the
	 * speed table's user and account entries (a job's own speeds) */
	if (!job->account && (nx.conf->allow_accounts.n || nx.conf->deny_accounts.n || nx.conf->speeds)) {
		_default_account(uid, acct, sizeof(acct));
		if (acct[0])
			job->account = acct;
	}
	if (!job->user && (nx.conf->allow_users.n || nx.conf->deny_users.n || nx.conf->speeds))
		job->user = uid_to_string_cached((uid_t)uid);
	/* a failed allocation must not abort slurmctld: without the snapshot or
	 * the decision's buffer the job is left as asked; without the
	 * when-faster state it is decided as when-blocked */
	if (!(d = try_xmalloc(sizeof(*d)))) {
		slurm_mutex_unlock(&nx.lock);
		return _out_of_memory(what, uid);
	}
	if (parts_ok && nx.conf->broaden == NODEOX_BROADEN_WHEN_FASTER && node_record_count > 0 &&
	    (!(st = try_xmalloc(sizeof(*st))) ||
	     !(st->map = try_xcalloc(node_record_count, sizeof(*st->map)))))
		nomem = true; /* no state read: the decision makes no estimate */
	if (parts_ok && !_cluster_snapshot(job->partition, &cluster, st ? st->map : NULL)) {
		slurm_mutex_unlock(&nx.lock);
		_cluster_state_free(st);
		xfree(d);
		return _out_of_memory(what, uid);
	}
	if (st && st->map && !cluster.state_cut)
		_cluster_state(st, &cluster, job);
	nomem = nomem || (st && st->nomem);
	nodeox_policy_decide(nx.conf, job, &cluster, d);
	if (d->requested_type >= 0) /* the conf may be replaced once unlocked */
		snprintf(reqname, sizeof(reqname), "%s", nx.conf->types[d->requested_type].name);
	slurm_mutex_unlock(&nx.lock);
	if (nomem)
		error("%s: %s uid=%u: out of memory for the when-faster estimate: decided "
		      "as Broaden=when-blocked",
		      plugin_type, what, uid);
	else if (cluster.state_cut)
		info("%s: %s uid=%u: more than %d nodes, %d jobs or %d running GPU holdings in "
		     "slurmctld: no when-faster estimate",
		     plugin_type, what, uid, NODEOX_MAX_NODES, NODEOX_MAX_JOBS_SCANNED, NODEOX_MAX_RUNNING);
	_cluster_state_free(st);
	xfree(cluster.nodes);
	if (d->action == NODEOX_REWRITE && !d->dryrun && upd && _job_gres_typed(upd->job_ptr, reqname)) {
		/* Slurm cannot untype a pending job's stored request: see top. */
		d->action = NODEOX_KEEP;
		snprintf(d->reason, sizeof(d->reason),
			 "not broadened: a pending job whose GPU "
			 "request names a type cannot be broadened by an update; cancel it "
			 "and submit again with --comment=nodeox:flex");
		if (upd->sets_comment)
			rc = ESLURM_NOT_SUPPORTED;
	}

	_log_safe(d->reason, safe_reason, sizeof(safe_reason));
	switch (d->action) {
	case NODEOX_PASS: break;
	case NODEOX_REJECT:
		info("%s: %s uid=%u: REJECT: %s", plugin_type, what, uid, safe_reason);
		_tell_user(err_msg, d->reason);
		rc = SLURM_ERROR;
		break;
	case NODEOX_KEEP:
		info("%s: %s uid=%u: %s: %s", plugin_type, what, uid, rc ? "REFUSED" : "KEEP", safe_reason);
		_tell_user(err_msg, d->reason);
		break;
	case NODEOX_REWRITE:
		info("%s: %s uid=%u: %s: %s; %s", plugin_type, what, uid, d->dryrun ? "DRYRUN" : "REWRITE",
		     safe_reason, _log_safe(d->admin_comment, safe_note, sizeof(safe_note)));
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
			_set_prefer(job_desc, d->prefer);
		if (d->time_limit_set)
			job_desc->time_limit = d->time_limit;
		/* slurmctld refuses a whole update that sets admin_comment for a
		 * caller who is no admin: leave it out then (the log has it). */
		if (!upd || upd->may_admin_comment)
			_set_admin_comment(job_desc, old_admin_comment, d->admin_comment);
		break;
	}
	xfree(d);
	return rc;
}

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	nodeox_job_t job = { 0 };
	nodeox_cap_src_t cap = { 0 };
	char what[64];

	if (!job_desc)
		return SLURM_SUCCESS;
	job.job_id = NODEOX_JOB_DESC_JOB_ID(job_desc) == NO_VAL ? 0 : NODEOX_JOB_DESC_JOB_ID(job_desc);
	job.comment = job_desc->comment;
	job.name = job_desc->name;
	job.tres_per_job = job_desc->tres_per_job;
	job.tres_per_node = job_desc->tres_per_node;
	job.tres_per_task = job_desc->tres_per_task;
	job.tres_per_socket = job_desc->tres_per_socket;
	job.features = job_desc->features;
	job.prefer = job_desc->prefer;
	job.partition = job_desc->partition ? job_desc->partition : default_part_name;
	job.account = job_desc->account;
	job.time_limit = job_desc->time_limit == NO_VAL ? NODEOX_TIME_NONE : job_desc->time_limit;
	cap.parts = job_desc->partition;
	cap.qos = job_desc->qos;
	job.min_nodes = job_desc->min_nodes == NO_VAL ? 0 : job_desc->min_nodes;
	job.num_tasks = job_desc->num_tasks == NO_VAL ? 0 : job_desc->num_tasks;
	if (job_desc->het_job_offset != NO_VAL)
		snprintf(what, sizeof(what), "submit (het component %u)", job_desc->het_job_offset);
	else
		snprintf(what, sizeof(what), "submit%s", job_desc->array_inx ? " (array)" : "");
	return _decide_apply(&job, job_desc->user_id != NO_VAL ? job_desc->user_id : submit_uid, job_desc,
			     NULL, &cap, job_desc->admin_comment, what, err_msg);
}

/*
 * The type term of the constraint nodeox set: what follows its last
 * top-level '&' ("ib&(a100|l40s)" -> "(a100|l40s)"), or all of it.
 */
static const char *_type_term(const char *features)
{
	const char *term = features;

	for (const char *p = features; *(p += nodeox_util_top_span(p, "&"));)
		term = ++p;
	return term;
}

/*
 * scontrol update of a broadened job's constraint alone (Features=...): the
 * time limit nodeox scaled was for the slower types its constraint allowed.
 * If the new constraint drops nodeox's type term, the reason is gone, so the
 * limit goes back to what the user asked (lowering a limit is open to every
 * user). Only when the limit is still the one nodeox set; a caller who sets
 * a limit in the same update decides it. Writes the update request only.
 */
static int _constraint_update(job_desc_msg_t *job_desc, job_record_t *job_ptr, char **err_msg)
{
	nodeox_record_t *rec;
	char err[NODEOX_ERR_MAX], line[NODEOX_ERR_MAX], safe[4 * NODEOX_ERR_MAX];

	if (!job_desc->features || job_desc->time_limit != NO_VAL || !job_ptr->admin_comment)
		return SLURM_SUCCESS;
	if (!(rec = try_xmalloc(sizeof(*rec)))) /* no abort inside slurmctld */
		return SLURM_SUCCESS;
	if (nodeox_record_parse(job_ptr->admin_comment, rec, err, sizeof(err)) == 1 &&
	    rec->time_limit_min > 0 && rec->time_limit_to_min > rec->time_limit_min &&
	    job_ptr->time_limit == (uint32_t)rec->time_limit_to_min && rec->features_to[0] &&
	    !strstr(job_desc->features, _type_term(rec->features_to))) {
		job_desc->time_limit = (uint32_t)rec->time_limit_min;
		snprintf(line, sizeof(line),
			 "the constraint nodeox set is replaced: time limit "
			 "%u -> %u min, as asked (nodeox had scaled it for slower GPU types)",
			 job_ptr->time_limit, job_desc->time_limit);
		info("%s: update JobId=%u: RESTORE: %s", plugin_type, job_ptr->job_id,
		     _log_safe(line, safe, sizeof(safe)));
		_tell_user(err_msg, line);
	}
	xfree(rec);
	return SLURM_SUCCESS;
}

/*
 * scontrol update of a pending job's comment or GPU request: decide again
 * with the job's stored fields where the update does not change them, and
 * write only into the update request (see the top of this file). The time
 * limit is scaled only for operators (Slurm refuses a user's raise) and only
 * once (not again for a job nodeox has already broadened).
 */
static int _modify(job_desc_msg_t *job_desc, job_record_t *job_ptr, uint32_t submit_uid, char **err_msg)
{
	nodeox_job_details_t *det;
	nodeox_job_t job = { 0 };
	nodeox_update_t upd = { 0 };
	nodeox_cap_src_t cap = { 0 };
	char what[64];

	if (!job_desc || !job_ptr || !IS_JOB_PENDING(job_ptr))
		return SLURM_SUCCESS;
	if (!job_desc->comment && !job_desc->tres_per_job && !job_desc->tres_per_node &&
	    !job_desc->tres_per_task && !job_desc->tres_per_socket)
		return _constraint_update(job_desc, job_ptr, err_msg);
	det = job_ptr->details;
	upd.job_ptr = job_ptr;
	upd.sets_comment = job_desc->comment != NULL;
	upd.may_admin_comment = validate_super_user(submit_uid);
	job.job_id = job_ptr->job_id;
#define NX_PICK(f, old) (job_desc->f ? job_desc->f : (old))
	job.comment = NX_PICK(comment, job_ptr->comment);
	job.name = NX_PICK(name, job_ptr->name);
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
	if (!validate_operator(submit_uid) || nodeox_record_present(job_ptr->admin_comment))
		job.time_limit = NODEOX_TIME_NONE; /* not raisable, or scaled already */
	else if (job_desc->time_limit != NO_VAL)
		job.time_limit = job_desc->time_limit;
	else
		job.time_limit = job_ptr->time_limit == NO_VAL ? NODEOX_TIME_NONE : job_ptr->time_limit;
	cap.parts = job.partition;
	cap.qos = job_desc->qos;
	cap.qos_id = job_desc->qos ? 0 : job_ptr->qos_id;
	job.min_nodes = det && det->min_nodes != NO_VAL ? det->min_nodes : 0;
	job.num_tasks = det && det->num_tasks != NO_VAL ? det->num_tasks : 0;
	snprintf(what, sizeof(what), "update JobId=%u", job_ptr->job_id);
	return _decide_apply(&job, job_ptr->user_id, job_desc, &upd, &cap,
			     job_desc->admin_comment ? job_desc->admin_comment : job_ptr->admin_comment, what,
			     err_msg);
}

/* 23.02+ passes err_msg (see slurm_compat.h): the user sees our line. */
extern int job_modify(NODEOX_JOB_MODIFY_ARGS)
{
	return _modify(job_desc, job_ptr, submit_uid, NODEOX_JOB_MODIFY_ERR_MSG);
}
