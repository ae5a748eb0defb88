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
 *      and end times, pending jobs' GPUs by type), through the state cache:
 *      walked again only when slurmctld changed a job or node record and
 *      the cache is older than its window (_state_fresh, bounded); the
 *      node snapshot is then kept too, taken again when slurmctld changed a
 *      node or partition record (_snapshot_kept), with the backfill map's
 *      kept parts (nxs.base, policy_map.c);
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
 * the loaded conf and the when-faster state cache (nxs) in both cases: a
 * decision holds it from its conf check to its count into the cache.
 *
 * Nothing here may crash, block or leak inside slurmctld: every string from
 * the user is passed as an argument, never as a format, and escaped before it
 * reaches a log line; work is bounded: one pass over the node table for the
 * snapshot (at most NODEOX_MAX_NODES; when-faster: a pass over the cached
 * holdings and partition lists, and, at most once per window, one walk of
 * at most NODEOX_MAX_JOBS_SCANNED job records), then the decision's passes over that
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
	unsigned long conf_gen;  /* moves on at every conf change (the
				  * backfill map kept is for one conf) */
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
	nx.conf_gen++;
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
	nx.conf_gen++;
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

static void _state_clear(bool free_all);

extern int fini(void)
{
	slurm_mutex_lock(&nx.lock);
	_state_clear(true); /* Broaden=when-faster's state cache */
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

/* Which partitions the job may use, as a snapshot learns them: a node table
 * has few partitions and every node points to the same records, so each is
 * matched against the job's list once per snapshot, not once per node. */
#define NODEOX_PART_MEMO 16
typedef struct {
	const part_record_t *part[NODEOX_PART_MEMO];
	bool ok[NODEOX_PART_MEMO];
	int n;
} nodeox_part_memo_t;

/* The first of the node's partitions that the job may use, or NULL. */
static const char *_node_job_part(node_record_t *node_ptr, const char *job_parts, nodeox_part_memo_t *memo)
{
	int i, k;

	for (i = 0; i < node_ptr->part_cnt; i++) {
		part_record_t *p = node_ptr->part_pptr[i];
		bool ok;

		if (!p || !p->name)
			continue;
		if (!job_parts)
			return p->name;
		for (k = 0; k < memo->n && memo->part[k] != p; k++)
			;
		if (k < memo->n) {
			ok = memo->ok[k];
		} else {
			ok = nodeox_util_list_has(job_parts, p->name, strlen(p->name));
			if (memo->n < NODEOX_PART_MEMO) {
				memo->part[memo->n] = p;
				memo->ok[memo->n++] = ok;
			}
		}
		if (ok)
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
	nodeox_part_memo_t memo = { .n = 0 };
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
		    !(part = _node_job_part(node_ptr, job_parts, &memo)))
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

/*
 * Broaden=when-faster's state cache: what the last walk of job_list found,
 * kept under nx.lock between decisions, so that a tagged decision need not
 * read every job record again. It holds copies only (no pointer into
 * slurmctld's records, which may be freed between calls):
 *   - every running job's GPUs per node (node record index, absolute
 *     expected end), sorted by end: its end_time (start plus limit), or
 *     sooner from its user's run-time history (RunTimeHistory=yes, the
 *     default): the same walk records every finished job slurmctld still
 *     holds (MinJobAge) into nxs.hist, which outlives the walks (a
 *     bounded table: policy_history.c), and the running jobs' ends are
 *     taken from it once the walk is done (_running_ends);
 *   - the GPUs pending, not held jobs want, summed per partition list (as the
 *     jobs name it) and GPU type, with the first two in priority order.
 * A decision narrows that to the job's own partitions and nodes (_state_view)
 * in time linear in the holdings and the partition lists, and reads no job
 * record. The walk is done again (_state_fresh) when slurmctld changed a job
 * or node record since (last_job_update, last_node_update: a second's
 * resolution) and the cache is older than age_factor times the last walk's
 * own time, at most age_max_ms: walks then take at most 1/age_factor of
 * slurmctld's time, whatever the rate of submissions, and the state a
 * decision reads is at most that old (the log line says how old).
 * Every submission changes a job record (slurmctld's _create_job_record sets
 * last_job_update), so without that window consecutive submissions would
 * each walk again. Between walks, each tagged submission nodeox decided is
 * counted into the pending demand as slurmctld will queue it (its GPUs as
 * written back, last in priority order), so a burst of tagged jobs sees
 * itself; untagged submissions and other changes show at the next walk.
 */
#define NODEOX_STATE_GROUPS 256 /* distinct partition lists of pending jobs */
/* Pending GPU jobs the cache keeps one by one for the backfill map
 * (policy_map.c), the first in priority order: a decision needs the first
 * NODEOX_MAP_LIST of its partitions. Past them the jobs are only
 * counted (nodeox_part_demand_t.dropped), and a decision whose partitions
 * lost one makes no estimate (nodeox_cluster_t.pending_more). */
#define NODEOX_STATE_PENDING NODEOX_MAP_LIST

/* A running job's holding as the walk found it: what its expected end is
 * made from once the walk is done (_running_ends). */
typedef struct {
	uint32_t job_id, uid;
	time_t start;
} nodeox_state_run_t;

/* One pending job as the map reads it, with its place in priority order. */
typedef struct {
	nodeox_pending_t p;
	uint32_t prio;
	uint32_t group; /* index into nxs.groups: its partition list */
} nodeox_state_pending_t;

/* Pending jobs of one partition list wanting one GPU type ("" untyped). */
typedef struct {
	char type[NODEOX_NAME_MAX];
	uint64_t gpus;          /* summed, saturating */
	uint64_t first, second; /* the first two in priority order (0: none) */
	uint32_t first_prio, first_id, second_prio, second_id;
} nodeox_type_demand_t;

typedef struct {
	char *parts;     /* xmalloc'd copy of the jobs' partition list, NULL: none */
	uint64_t dropped; /* its pending jobs past NODEOX_STATE_PENDING */
	size_t ntypes;
	nodeox_type_demand_t t[NODEOX_MAX_TYPES + 1];
} nodeox_part_demand_t;

static struct {
	bool valid;           /* built and not failed since */
	bool cut;             /* a bound was reached: no estimate from it */
	time_t job_stamp;     /* last_job_update when built */
	time_t node_stamp;    /* last_node_update when built */
	time_t built_at;      /* time() of the walk */
	struct timespec done; /* CLOCK_MONOTONIC end of the walk */
	long build_us;        /* the walk's own time */
	int node_count;       /* node table and job list it was built from */
	const void *table, *list;
	nodeox_running_t *running; /* node: record index, end: expected end */
	size_t nrunning, cap;
	nodeox_state_run_t *run;   /* per holding: its job, for its end */
	nodeox_history_t *hist;    /* run-time history (NULL: none yet, or no
				    * memory: ends from limits) */
	uint32_t ends[3];          /* running jobs by where their ends came
				    * from (nodeox_end_from_t), at the walk */
	nodeox_running_t *view; /* a call's holdings, in snapshot terms */
	size_t view_cap, nview;
	int32_t *view_map;        /* the node map the view was made for */
	int view_map_n;           /* its entries, 0: no view */
	time_t view_now;          /* the time its ends count from */
	unsigned long view_walks; /* the walk it was made from */
	unsigned long view_snaps; /* the kept snapshot it was made for (nxs.snaps;
				   * 0: another node map) */
	nodeox_part_demand_t *groups;
	size_t ngroups, gcap;
	nodeox_state_pending_t *pend; /* NODEOX_STATE_PENDING + counted submissions:
				       * while walking a heap (the last in priority
				       * order on top), then sorted, first first */
	size_t npend, pcap;
	uint32_t counted; /* submissions counted since the walk (their order) */
	nodeox_map_base_t base; /* the backfill map's running part for the view
				 * (policy_map.c fills it; invalid when the view
				 * is made again) */
	unsigned long base_conf_gen; /* nx.conf_gen the base was made under */
	/* the node snapshot kept for the decisions (_snapshot_kept) */
	bool snap_valid;
	const nodeox_node_t *snap; /* its nodes (strings into slurmctld's records) */
	size_t nsnap;
	bool snap_cut;          /* cut at NODEOX_MAX_NODES */
	int32_t *snap_map;      /* node record index -> snapshot index */
	uint32_t *snap_scratch; /* the map's scratch, kept with it */
	size_t snap_scratch_n;
	char *snap_parts; /* the partition list it was taken for */
	size_t snap_parts_cap;
	bool snap_parts_set; /* (NULL: none) */
	const void *snap_table;
	int snap_count;
	time_t snap_node_stamp, snap_part_stamp, snap_at;
	unsigned long snaps; /* snapshots taken (tests, bench) */
	unsigned long walks; /* walks done (tests, bench) */
	long age_factor;     /* see above; tests: 0 (walk at every change) */
	long age_max_ms;
} nxs = { .age_factor = 100, .age_max_ms = 10000 };

/* Broaden=when-faster's per-call view (see _cluster_state). */
typedef struct {
	nodeox_pending_t pending[NODEOX_MAP_LIST];
	int8_t meet[NODEOX_STATE_GROUPS]; /* group meets the job's partitions: 0 not
					   * asked yet, 1 yes, -1 no */
	nodeox_demand_t ahead[NODEOX_MAX_TYPES + 1];
	char ahead_type[NODEOX_MAX_TYPES + 1][NODEOX_NAME_MAX];
	int32_t *map; /* node record index -> snapshot index */
	uint32_t *scratch;
	bool kept;   /* map, scratch and the nodes are the kept snapshot's */
	bool nomem;  /* an allocation failed: no estimate */
	bool walked; /* this call walked job_list */
	long age_ms; /* else: how old the cached state was */
} nodeox_state_buf_t;

/* GPUs a job asks for in its four TRES fields, with the type of its first
 * typed entry ("" if none): per node and per socket entries count once per
 * node, per task ones once per task. Saturating. */
static uint64_t _gpus_wanted(const char *const field[4], uint32_t nodes, uint32_t tasks, char *type,
			     size_t cap)
{
	nodeox_tres_gpu_t e[NODEOX_TRES_MAX_GPU];
	uint64_t gpus = 0;
	int f, i, n;

	type[0] = '\0';
	for (f = 0; f < 4; f++) {
		n = nodeox_tres_scan(field[f], e, NODEOX_TRES_MAX_GPU);
		for (i = 0; i < n && i < NODEOX_TRES_MAX_GPU; i++) {
			uint64_t c = e[i].count * (f == 1 || f == 3 ? nodes : f == 2 ? tasks : 1);

			gpus = c > UINT64_MAX - gpus ? UINT64_MAX : gpus + c; /* counts < 2^32 */
			if (!type[0] && e[i].type_len)
				nodeox_tres_type_copy(field[f], &e[i], type, cap);
		}
	}
	return gpus;
}

/* A pending job record's GPUs and their type ("" for an untyped request:
 * one nodeox broadened, or any GPU). */
static uint64_t _job_demand(job_record_t *job_ptr, char *type, size_t cap)
{
	const char *const field[4] = { job_ptr->tres_per_job, job_ptr->tres_per_node, job_ptr->tres_per_task,
				       job_ptr->tres_per_socket };
	uint32_t nodes = 1, tasks = 1;
	uint64_t gpus;

	if (job_ptr->details) {
		if (job_ptr->details->min_nodes && job_ptr->details->min_nodes != NO_VAL)
			nodes = job_ptr->details->min_nodes;
		if (job_ptr->details->num_tasks && job_ptr->details->num_tasks != NO_VAL)
			tasks = job_ptr->details->num_tasks;
	}
	gpus = _gpus_wanted(field, nodes, tasks, type, cap);
	/* a pending job array's record stands for all its tasks not yet split
	 * off into records of their own (each of which is counted as a job) */
	if (job_ptr->array_recs && job_ptr->array_recs->task_cnt > 1)
		gpus = gpus > UINT64_MAX / job_ptr->array_recs->task_cnt
			       ? UINT64_MAX
			       : gpus * job_ptr->array_recs->task_cnt;
	return gpus;
}

/* Does a (priority, id) come before b in priority order? As
 * nodeox_demand_add: higher priority, or equal and a lower id. */
static bool _prio_before(uint32_t pa, uint32_t ia, uint32_t pb, uint32_t ib)
{
	return pa > pb || (pa == pb && ia < ib);
}

/* The demand entry of partition list parts and GPU type, made if missing;
 * NULL past the bounds (more lists than NODEOX_STATE_GROUPS: nxs.cut; more
 * types than nodeox.conf can name: none of ours) or without memory (*nomem). */
static nodeox_type_demand_t *_state_demand(const char *parts, const char *type, bool *nomem, size_t *gi)
{
	nodeox_part_demand_t *g = NULL;
	size_t i;

	for (i = 0; i < nxs.ngroups; i++)
		if (!xstrcmp(nxs.groups[i].parts, parts)) {
			g = &nxs.groups[i];
			break;
		}
	if (!g) {
		if (nxs.ngroups >= NODEOX_STATE_GROUPS) {
			nxs.cut = true;
			return NULL;
		}
		if (nxs.ngroups == nxs.gcap) {
			size_t cap = MIN(nxs.gcap ? 2 * nxs.gcap : 4, NODEOX_STATE_GROUPS);

			if (!try_xrealloc(nxs.groups, cap * sizeof(*nxs.groups))) {
				*nomem = true;
				return NULL;
			}
			nxs.gcap = cap;
		}
		g = &nxs.groups[nxs.ngroups];
		g->ntypes = 0;
		g->dropped = 0;
		g->parts = NULL;
		if (parts) { /* xstrdup would abort slurmctld without memory */
			size_t len = strlen(parts) + 1;

			if (!(g->parts = try_xmalloc(len))) {
				*nomem = true;
				return NULL;
			}
			memcpy(g->parts, parts, len);
		}
		nxs.ngroups++;
	}
	*gi = (size_t)(g - nxs.groups);
	for (i = 0; i < g->ntypes; i++)
		if (!xstrcasecmp(g->t[i].type, type))
			return &g->t[i];
	if (g->ntypes >= NODEOX_MAX_TYPES + 1)
		return NULL;
	g->t[g->ntypes] = (nodeox_type_demand_t){ .gpus = 0 };
	snprintf(g->t[g->ntypes].type, sizeof(g->t[0].type), "%s", type);
	return &g->t[g->ntypes++];
}

/* Count a pending job's GPUs into its entry, keeping the first two. */
static void _type_demand_add(nodeox_type_demand_t *t, uint64_t gpus, uint32_t prio, uint32_t id)
{
	if (!t->first || _prio_before(prio, id, t->first_prio, t->first_id)) {
		t->second = t->first;
		t->second_prio = t->first_prio;
		t->second_id = t->first_id;
		t->first = gpus;
		t->first_prio = prio;
		t->first_id = id;
	} else if (!t->second || _prio_before(prio, id, t->second_prio, t->second_id)) {
		t->second = gpus;
		t->second_prio = prio;
		t->second_id = id;
	}
	t->gpus = gpus > UINT64_MAX - t->gpus ? UINT64_MAX : t->gpus + gpus;
}

/* Does pending entry a come after b in priority order (a worse)? */
static bool _pend_after(const nodeox_state_pending_t *a, const nodeox_state_pending_t *b)
{
	return _prio_before(b->prio, b->p.id, a->prio, a->p.id);
}

static void _pend_swap(size_t i, size_t j)
{
	nodeox_state_pending_t x = nxs.pend[i];

	nxs.pend[i] = nxs.pend[j];
	nxs.pend[j] = x;
}

/* Sift entry i of the heap nxs.pend[0..n) down (the last in priority
 * order on top). */
static void _pend_down(size_t i, size_t n)
{
	for (;;) {
		size_t l = 2 * i + 1, w = i;

		if (l < n && _pend_after(&nxs.pend[l], &nxs.pend[w]))
			w = l;
		if (l + 1 < n && _pend_after(&nxs.pend[l + 1], &nxs.pend[w]))
			w = l + 1;
		if (w == i)
			return;
		_pend_swap(i, w);
		i = w;
	}
}

/* Keep a pending job for the map while the walk goes: among the first
 * NODEOX_STATE_PENDING in priority order (a heap of them), else counted as
 * dropped for its partition list. Returns false without memory. */
static bool _pend_keep(const nodeox_state_pending_t *e)
{
	size_t i;

	if (nxs.npend >= NODEOX_STATE_PENDING) {
		if (!_pend_after(&nxs.pend[0], e)) {
			nxs.groups[e->group].dropped++;
			return true;
		}
		nxs.groups[nxs.pend[0].group].dropped++;
		nxs.pend[0] = *e;
		_pend_down(0, nxs.npend);
		return true;
	}
	if (nxs.npend == nxs.pcap) {
		size_t cap = MIN(nxs.pcap ? 2 * nxs.pcap : 64, NODEOX_STATE_PENDING + 64);

		if (!try_xrealloc(nxs.pend, cap * sizeof(*nxs.pend)))
			return false;
		nxs.pcap = cap;
	}
	i = nxs.npend++;
	nxs.pend[i] = *e;
	while (i > 0 && _pend_after(&nxs.pend[i], &nxs.pend[(i - 1) / 2])) {
		_pend_swap(i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	return true;
}

/* The heap into priority order, first first (a heap sort: no allocation). */
static void _pend_sort(void)
{
	size_t n;

	for (n = nxs.npend; n > 1; n--) {
		_pend_swap(0, n - 1);
		_pend_down(0, n - 1);
	}
}

/* A pending job's time limit for the map, in seconds (0: none): its own,
 * else its partition's MaxTime, as backfill takes it. */
static int64_t _pend_limit(job_record_t *job_ptr)
{
	uint32_t lim = job_ptr->time_limit;

	if ((lim == NO_VAL || lim == INFINITE) && job_ptr->part_ptr)
		lim = job_ptr->part_ptr->max_time;
	return lim == NO_VAL || lim == INFINITE ? 0 : (int64_t)lim * 60;
}

/* Empty the cache (its buffers stay for the next walk); free: and them. */
static void _state_clear(bool free_all)
{
	size_t i;

	for (i = 0; i < nxs.ngroups; i++)
		xfree(nxs.groups[i].parts);
	nxs.ngroups = 0;
	nxs.nrunning = 0;
	memset(nxs.ends, 0, sizeof(nxs.ends));
	nxs.npend = 0;
	nxs.counted = 0;
	nxs.base.valid = false;
	nxs.valid = false;
	nxs.cut = false;
	if (!free_all)
		return; /* (the node snapshot stays: a walk reads no node) */
	nxs.snap_valid = false;
	nxs.base.placed = false; /* (its scratch is freed) */
	xfree(nxs.groups);
	xfree(nxs.pend);
	nxs.pcap = 0;
	xfree(nxs.running);
	xfree(nxs.run);
	xfree(nxs.hist);
	xfree(nxs.view);
	xfree(nxs.view_map);
	xfree(nxs.snap);
	xfree(nxs.snap_map);
	xfree(nxs.snap_scratch);
	xfree(nxs.snap_parts);
	nxs.nsnap = nxs.snap_scratch_n = nxs.snap_parts_cap = 0;
	nxs.gcap = nxs.cap = nxs.view_cap = 0;
	nxs.view_map_n = 0;
}

/* A running job's GPUs on each of its nodes. Returns false when the
 * holdings are full (nxs.cut) or could not grow (*nomem). */
static bool _running_add(job_record_t *job_ptr, bool *nomem)
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
		if (js->gres_cnt_node_alloc[j]) {
			if (nxs.nrunning >= nxs.cap) {
				size_t cap = MIN(nxs.cap ? 2 * nxs.cap : 1024, NODEOX_MAX_RUNNING);

				if (nxs.cap >= NODEOX_MAX_RUNNING) {
					nxs.cut = true;
					return false;
				}
				/* inside slurmctld: a failed allocation must not
				 * abort it (xrecalloc would); no estimate instead */
				if (!try_xrealloc(nxs.running, cap * sizeof(*nxs.running)) ||
				    !try_xrealloc(nxs.run, cap * sizeof(*nxs.run))) {
					*nomem = true;
					return false;
				}
				nxs.cap = cap;
			}
			nxs.run[nxs.nrunning] = (nodeox_state_run_t){ job_ptr->job_id, job_ptr->user_id,
								      job_ptr->start_time };
			r = &nxs.running[nxs.nrunning++];
			r->node = (uint32_t)n;
			r->gpus = (uint32_t)MIN(js->gres_cnt_node_alloc[j], UINT32_MAX);
			r->end = (int64_t)job_ptr->end_time;
		}
		j++;
	}
	return true;
}

/* _state_walk's walk of job_list: where it is. */
typedef struct {
	size_t scanned;
	bool nomem;
	bool hist; /* RunTimeHistory=yes and nxs.hist there */
} nodeox_state_walk_t;

/* A finished job the walk meets (slurmctld keeps its record MinJobAge
 * seconds): how long it ran, into the history. Only jobs that ended on
 * their own count (completed, failed, timed out, out of memory): a
 * cancelled job's length is when someone cancelled it, and a job that
 * never started (no nodes) has none. Run time less suspended time. */
static void _finished_add(job_record_t *job_ptr)
{
	uint32_t base = job_ptr->job_state & JOB_STATE_BASE;
	time_t sus = job_ptr->tot_sus_time > 0 ? job_ptr->tot_sus_time : 0;

	if ((base != JOB_COMPLETE && base != JOB_FAILED && base != JOB_TIMEOUT && base != JOB_OOM) ||
	    !job_ptr->nodes || !job_ptr->nodes[0] || job_ptr->start_time <= 0 ||
	    job_ptr->end_time < job_ptr->start_time)
		return;
	(void)nodeox_history_record(nxs.hist, job_ptr->user_id, job_ptr->job_id, (int64_t)job_ptr->end_time,
				    (int64_t)(job_ptr->end_time - job_ptr->start_time) - (int64_t)sus);
}

/* Once the walk is done (the history holds what it found): each running
 * job's expected end, the same for all its holdings, counted by where it
 * came from. hist NULL: every end is the limit's. O(holdings). */
static void _running_ends(const nodeox_history_t *hist, time_t now)
{
	size_t i;
	int64_t end = 0;
	nodeox_end_from_t from = NODEOX_END_LIMIT;

	if (!hist || !hist->users) { /* every end its limit's: count the jobs */
		for (i = 0; i < nxs.nrunning; i++)
			if (!i || nxs.run[i].job_id != nxs.run[i - 1].job_id ||
			    nxs.run[i].start != nxs.run[i - 1].start)
				nxs.ends[NODEOX_END_LIMIT]++;
		return;
	}
	for (i = 0; i < nxs.nrunning; i++) {
		const nodeox_state_run_t *j = &nxs.run[i];

		if (!i || j->job_id != nxs.run[i - 1].job_id || j->start != nxs.run[i - 1].start) {
			end = nodeox_history_end(hist, j->uid, (int64_t)j->start, nxs.running[i].end,
						 (int64_t)now, &from);
			nxs.ends[from]++;
		}
		nxs.running[i].end = end;
	}
}

/* list_for_each_ro's call per job record: a running job's holdings, a
 * pending one's demand; -1 stops the walk (a bound reached, or no memory). */
static int _state_job(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	nodeox_state_walk_t *w = arg;

	if (++w->scanned > NODEOX_MAX_JOBS_SCANNED) {
		nxs.cut = true;
		return -1;
	}
	if (IS_JOB_RUNNING(job_ptr)) {
		if (!_running_add(job_ptr, &w->nomem))
			return -1;
	} else if (IS_JOB_FINISHED(job_ptr)) {
		if (w->hist)
			_finished_add(job_ptr);
	} else if (IS_JOB_PENDING(job_ptr) && job_ptr->priority) {
		nodeox_type_demand_t *t;
		nodeox_state_pending_t e = { .prio = job_ptr->priority };
		char type[NODEOX_NAME_MAX];
		uint64_t gpus = _job_demand(job_ptr, type, sizeof(type));
		size_t gi;

		if (!gpus)
			return 0;
		if ((t = _state_demand(job_ptr->partition, type, &w->nomem, &gi)))
			_type_demand_add(t, gpus, job_ptr->priority, job_ptr->job_id);
		else if (nxs.cut || w->nomem)
			return -1; /* (a type past the bound is skipped) */
		else
			return 0;
		/* for the map: a type nodeox.conf does not name runs on nodes
		 * the map does not hold; one that comes after all the heap
		 * keeps (when full) is only counted, its types not read */
		e.p.id = job_ptr->job_id;
		if (nxs.npend >= NODEOX_STATE_PENDING && !_pend_after(&nxs.pend[0], &e)) {
			nxs.groups[gi].dropped++;
			return 0;
		}
		if (nx.conf && nodeox_pending_types(nx.conf, type,
						    job_ptr->details ? job_ptr->details->features : NULL,
						    &e.p.types)) {
			/* a pending array's record: one job per task not split
			 * off yet (the map reserves each on its own), up to one
			 * more than the map reserves for (past it, it makes no
			 * estimate anyway) */
			uint32_t tasks = job_ptr->array_recs && job_ptr->array_recs->task_cnt > 1
						 ? job_ptr->array_recs->task_cnt
						 : 1,
				 k;

			e.p.gpus = gpus == UINT64_MAX ? gpus : gpus / tasks;
			e.p.limit = _pend_limit(job_ptr);
			e.p.id = job_ptr->job_id;
			e.group = (uint32_t)gi;
			for (k = 0; k < tasks && k <= NODEOX_MAP_PENDING; k++)
				if (!_pend_keep(&e)) {
					w->nomem = true;
					return -1;
				}
			if (tasks > NODEOX_MAP_PENDING + 1)
				nxs.groups[gi].dropped++;
		}
	}
	return 0;
}

/*
 * Walk job_list into the cache, under the locks slurmctld holds around
 * job_submit (never taking one of its own but the lists' read locks). One
 * list_for_each_ro, not an iterator: an iterator takes job_list's write
 * lock once per record (list_next), which was most of this walk's time at
 * 10,000 jobs (`make bench-policy`, bench_plugin). Bounded by
 * NODEOX_MAX_JOBS_SCANNED records, NODEOX_MAX_RUNNING holdings and
 * NODEOX_STATE_GROUPS partition lists; past any, nxs.cut is set and no
 * decision makes an estimate from it. Returns false without memory (the
 * cache stays invalid).
 */
static bool _state_walk(void)
{
	nodeox_state_walk_t w = { 0 };
	nodeox_running_t *tmp = NULL;
	struct timespec t0;

	_state_clear(false);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	nxs.built_at = time(NULL);
	nxs.job_stamp = last_job_update;
	nxs.node_stamp = last_node_update;
	nxs.node_count = node_record_count;
	nxs.table = node_record_table_ptr;
	nxs.list = job_list;
	/* the history outlives the walks (a finished job leaves job_list
	 * MinJobAge after its end); allocated once, kept till fini */
	w.hist = nx.conf && nx.conf->run_time_history;
	if (w.hist && !nxs.hist && (nxs.hist = try_xmalloc(sizeof(*nxs.hist))))
		nodeox_history_init(nxs.hist);
	w.hist = w.hist && nxs.hist;
	if (job_list)
		(void)list_for_each_ro(job_list, _state_job, &w);
	if (w.nomem) {
		_state_clear(false);
		return false;
	}
	_running_ends(w.hist ? nxs.hist : NULL, nxs.built_at);
	/* the radix sort's scratch; without it, a merge sort in place (the
	 * same order), still no abort */
	if (nxs.nrunning > 1)
		tmp = try_xmalloc(nxs.nrunning * sizeof(*tmp));
	nodeox_running_sort(nxs.running, nxs.nrunning, tmp);
	xfree(tmp);
	_pend_sort();
	clock_gettime(CLOCK_MONOTONIC, &nxs.done);
	nxs.build_us = (nxs.done.tv_sec - t0.tv_sec) * 1000000L + (nxs.done.tv_nsec - t0.tv_nsec) / 1000;
	nxs.valid = true;
	nxs.walks++;
	return true;
}

/* May the cache serve a decision now? Sets *age_ms to its age. Yes when
 * slurmctld changed no job or node record since the walk (stamps older
 * than the walk's second and unchanged), or when it is younger than the
 * window (see the top of this section). */
static bool _state_fresh(long *age_ms)
{
	struct timespec now;
	long age_us;

	*age_ms = 0;
	if (!nxs.valid || nxs.node_count != node_record_count || nxs.table != (void *)node_record_table_ptr ||
	    nxs.list != (void *)job_list)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &now);
	age_us = (now.tv_sec - nxs.done.tv_sec) * 1000000L + (now.tv_nsec - nxs.done.tv_nsec) / 1000;
	*age_ms = age_us / 1000;
	if (last_job_update == nxs.job_stamp && last_node_update == nxs.node_stamp &&
	    nxs.job_stamp < nxs.built_at && nxs.node_stamp < nxs.built_at)
		return true; /* nothing changed since */
	return age_us >= 0 && age_us < MIN(nxs.age_factor * nxs.build_us, nxs.age_max_ms * 1000L);
}

/* Count demand into the call's view, by type: first (its priority and id)
 * as nodeox_demand_add does, the rest without a say in who is first. */
static void _ahead_add(nodeox_state_buf_t *st, nodeox_cluster_t *cl, const char *type, uint64_t first,
		       uint32_t prio, uint32_t id, uint64_t gpus)
{
	size_t k;

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
	nodeox_demand_add(&st->ahead[k], first, prio, id);
	gpus -= MIN(gpus, first);
	st->ahead[k].gpus = gpus > UINT64_MAX - st->ahead[k].gpus ? UINT64_MAX : st->ahead[k].gpus + gpus;
}

/* Does cached partition list gi meet the job's (memo in st->meet)? */
static bool _state_meets(nodeox_state_buf_t *st, size_t gi, const nodeox_job_t *job)
{
	const char *parts = nxs.groups[gi].parts;

	if (!st->meet[gi])
		st->meet[gi] = !parts || !job->partition || nodeox_util_lists_meet(parts, job->partition) ? 1 : -1;
	return st->meet[gi] > 0;
}

/*
 * The backfill map's list for the call: the cached pending jobs of the
 * partitions that meet the job's, in priority order, less the job being
 * updated (excl), at most NODEOX_MAP_LIST; pending_more where there are
 * more, or jobs of those partitions were dropped by the cache. Bounded by the cache's entries.
 */
static void _state_pending(nodeox_state_buf_t *st, nodeox_cluster_t *cl, const nodeox_job_t *job,
			   job_record_t *excl)
{
	size_t i, n = 0;

	memset(st->meet, 0, sizeof(st->meet));
	for (i = 0; i < nxs.npend && !cl->pending_more; i++) {
		const nodeox_state_pending_t *e = &nxs.pend[i];

		if ((excl && e->p.id == excl->job_id && e->prio) || !_state_meets(st, e->group, job))
			continue;
		if (n == NODEOX_MAP_LIST)
			cl->pending_more = true;
		else
			st->pending[n++] = e->p;
	}
	for (i = 0; i < nxs.ngroups && !cl->pending_more; i++)
		if (nxs.groups[i].dropped && _state_meets(st, i, job))
			cl->pending_more = true;
	cl->map = true;
	cl->pending = st->pending;
	cl->npending = n;
	cl->map_base = &nxs.base;
}

/*
 * The call's view of the cache: the holdings on the snapshot's nodes with
 * their ends from now (still sorted), and the demand of the pending jobs
 * whose partitions meet the job's, less the job being updated (excl, else
 * NULL), as the walk the decision once did itself would have found them.
 * Returns false when the view's buffer cannot grow.
 */
static bool _state_view(nodeox_state_buf_t *st, nodeox_cluster_t *cl, const nodeox_job_t *job,
			job_record_t *excl, time_t now)
{
	char xtype[NODEOX_NAME_MAX];
	uint64_t xgpus = 0;
	size_t i, k, n = 0;

	_state_pending(st, cl, job, excl);
	if (cl->pending_more) {
		/* past the pending jobs the state keeps, the map makes no
		 * estimate (the job is decided as when-blocked): the running
		 * jobs are not read for it */
		cl->running = NULL;
		cl->nrunning = 0;
		goto ahead;
	}
	/* the last call's view serves again for the same walk, node map and
	 * second (consecutive submissions to the same partitions) */
	if (nxs.view_map_n == node_record_count && nxs.view_now == now && nxs.view_walks == nxs.walks &&
	    ((st->kept && nxs.view_snaps == nxs.snaps) ||
	     !memcmp(nxs.view_map, st->map, node_record_count * sizeof(*st->map)))) {
		n = nxs.nview;
		goto demand;
	}
	nxs.view_map_n = 0;
	nxs.base.valid = false;
	if (nxs.nrunning > nxs.view_cap) {
		if (!try_xrealloc(nxs.view, nxs.nrunning * sizeof(*nxs.view)))
			return false;
		nxs.view_cap = nxs.nrunning;
	}
	for (i = 0; i < nxs.nrunning; i++) {
		const nodeox_running_t *r = &nxs.running[i];
		int32_t m = r->node < (uint32_t)node_record_count ? st->map[r->node] : -1;

		if (m < 0)
			continue;
		nxs.view[n].node = (uint32_t)m;
		nxs.view[n].gpus = r->gpus;
		nxs.view[n].end = r->end - (int64_t)now;
		n++;
	}
	nxs.nview = n;
	if (try_xrealloc(nxs.view_map, node_record_count * sizeof(*nxs.view_map))) {
		memcpy(nxs.view_map, st->map, node_record_count * sizeof(*st->map));
		nxs.view_map_n = node_record_count;
		nxs.view_now = now;
		nxs.view_walks = nxs.walks;
		nxs.view_snaps = st->kept ? nxs.snaps : 0;
	} /* (without memory: no reuse, the view is made again next time) */
demand:
	cl->running = nxs.view;
	cl->nrunning = n;
ahead:
	if (excl && IS_JOB_PENDING(excl) && excl->priority)
		xgpus = _job_demand(excl, xtype, sizeof(xtype));
	for (i = 0; i < nxs.ngroups; i++) {
		const nodeox_part_demand_t *g = &nxs.groups[i];
		bool xg = xgpus && !xstrcmp(g->parts, excl->partition);

		if (g->parts && job->partition && !nodeox_util_lists_meet(g->parts, job->partition))
			continue;
		for (k = 0; k < g->ntypes; k++) {
			const nodeox_type_demand_t *t = &g->t[k];
			uint64_t gpus = t->gpus, first = t->first;
			uint32_t prio = t->first_prio, id = t->first_id;

			if (xg && !xstrcasecmp(t->type, xtype)) {
				if (gpus != UINT64_MAX)
					gpus -= MIN(gpus, xgpus);
				if (id == excl->job_id) {
					first = t->second;
					prio = t->second_prio;
					id = t->second_id;
				}
			}
			if (gpus)
				_ahead_add(st, cl, t->type, first ? first : gpus, prio, id, gpus);
		}
	}
	return true;
}

/* May the kept node snapshot serve a decision for the partitions parts?
 * Yes while slurmctld changed no node or partition record since it was
 * taken (last_node_update, last_part_update: older than its second and
 * unchanged; a job's start and end move last_node_update, with the GPUs
 * it takes or gives back) and the node table is the same. */
static bool _snapshot_fresh(const char *parts)
{
	return nxs.snap_valid && nxs.snap_table == (void *)node_record_table_ptr &&
	       nxs.snap_count == node_record_count && last_node_update == nxs.snap_node_stamp &&
	       last_part_update == nxs.snap_part_stamp && nxs.snap_node_stamp < nxs.snap_at &&
	       nxs.snap_part_stamp < nxs.snap_at && nxs.snap_parts_set == (parts != NULL) &&
	       (!parts || !strcmp(nxs.snap_parts, parts));
}

/*
 * Broaden=when-faster's node snapshot, kept between decisions while
 * _snapshot_fresh says so (else taken again), with the node map and the
 * map's scratch: a decision then reads no node record, and the backfill
 * map's kept parts (nxs.base) serve, as they are for these nodes. The
 * strings point into slurmctld's records, which stay as they were while
 * the stamps do. Returns 1; 0 without memory for what is kept (the caller
 * takes a snapshot of its own); -1 without memory for the snapshot itself
 * (as _cluster_snapshot: nothing to decide with).
 */
static int _snapshot_kept(const char *parts, nodeox_cluster_t *cl, nodeox_state_buf_t *st)
{
	if (!_snapshot_fresh(parts)) {
		nodeox_cluster_t fresh = { 0 };
		size_t plen = parts ? strlen(parts) + 1 : 0, need;

		nxs.snap_valid = false;
		nxs.base.valid = false; /* the map's kept parts were for the old nodes */
		nxs.base.placed = false;
		if (!try_xrealloc(nxs.snap_map, node_record_count * sizeof(*nxs.snap_map)))
			return 0;
		if (plen > nxs.snap_parts_cap) {
			if (!try_xrealloc(nxs.snap_parts, plen))
				return 0;
			nxs.snap_parts_cap = plen;
		}
		nxs.snap_at = time(NULL);
		nxs.snap_node_stamp = last_node_update;
		nxs.snap_part_stamp = last_part_update;
		if (!_cluster_snapshot(parts, &fresh, nxs.snap_map))
			return -1;
		need = NODEOX_ESTIMATE_SCRATCH(fresh.nnodes ? fresh.nnodes : 1);
		if (need > nxs.snap_scratch_n) {
			if (!try_xrealloc(nxs.snap_scratch, need * sizeof(*nxs.snap_scratch))) {
				xfree(fresh.nodes);
				return 0;
			}
			nxs.snap_scratch_n = need;
		}
		xfree(nxs.snap);
		nxs.snap = fresh.nodes;
		nxs.nsnap = fresh.nnodes;
		nxs.snap_cut = fresh.state_cut;
		nxs.snap_parts_set = parts != NULL;
		if (parts)
			memcpy(nxs.snap_parts, parts, plen);
		nxs.snap_table = node_record_table_ptr;
		nxs.snap_count = node_record_count;
		nxs.snap_valid = true;
		nxs.snaps++;
	}
	cl->nodes = nxs.snap;
	cl->nnodes = nxs.nsnap;
	cl->state_cut = nxs.snap_cut;
	st->map = nxs.snap_map;
	st->scratch = nxs.snap_scratch;
	st->kept = true;
	return 1;
}

/*
 * Broaden=when-faster's state for one decision: the cache, walked again
 * first where _state_fresh says so, then narrowed to the job (_state_view).
 * Without memory the decision makes no estimate (cl->scratch NULL,
 * st->nomem); from a cache cut short, none either (cl->state_cut).
 */
static void _cluster_state(nodeox_state_buf_t *st, nodeox_cluster_t *cl, const nodeox_job_t *job,
			   job_record_t *excl)
{
	if (!st->kept)
		st->scratch = try_xcalloc(NODEOX_ESTIMATE_SCRATCH(cl->nnodes ? cl->nnodes : 1), sizeof(uint32_t));
	if (!st->scratch) { /* no scratch: the decision makes no estimate */
		st->nomem = true;
		return;
	}
	if (!_state_fresh(&st->age_ms)) {
		st->walked = true;
		if (!_state_walk()) {
			st->nomem = true;
			return;
		}
	}
	if (nxs.cut) {
		cl->state_cut = true;
		return;
	}
	if (!_state_view(st, cl, job, excl, time(NULL))) {
		st->nomem = true;
		cl->running = NULL;
		cl->nrunning = 0;
		return;
	}
	cl->scratch = st->scratch;
	cl->ahead = st->ahead;
	/* the map's kept parts serve only with the kept snapshot and scratch,
	 * and for the conf they were made under */
	if (nxs.base_conf_gen != nx.conf_gen) {
		nxs.base.valid = false;
		nxs.base.placed = false;
		nxs.base_conf_gen = nx.conf_gen;
	}
	if (!st->kept)
		cl->map_base = NULL;
}

/* A tagged submission just decided: slurmctld will queue it pending (its
 * GPUs as nodeox wrote them back), so the cached demand counts it now,
 * last in priority order, until the next walk finds its record. A held
 * submission (priority 0) is not counted, as the walk would not. */
static void _state_count_submission(const nodeox_job_t *job, const nodeox_decision_t *d, bool held)
{
	const bool w = d->action == NODEOX_REWRITE && !d->dryrun;
	const char *const field[4] = { w && d->tres_per_job_set ? d->tres_per_job : job->tres_per_job,
				       w && d->tres_per_node_set ? d->tres_per_node : job->tres_per_node,
				       w && d->tres_per_task_set ? d->tres_per_task : job->tres_per_task,
				       w && d->tres_per_socket_set ? d->tres_per_socket
								   : job->tres_per_socket };
	nodeox_type_demand_t *t;
	char type[NODEOX_NAME_MAX];
	bool nomem = false;
	uint64_t gpus;
	size_t gi;
	uint32_t lim = w && d->time_limit_set ? d->time_limit : job->time_limit;
	nodeox_state_pending_t e = { .prio = 0 };

	if (!nxs.valid || nxs.cut || held || (d->action != NODEOX_KEEP && d->action != NODEOX_REWRITE))
		return;
	gpus = _gpus_wanted(field, job->min_nodes ? job->min_nodes : 1, job->num_tasks ? job->num_tasks : 1,
			    type, sizeof(type));
	if (!gpus)
		return;
	if ((t = _state_demand(job->partition, type, &nomem, &gi))) {
		_type_demand_add(t, gpus, 0, UINT32_MAX);
		/* for the map: after every job the walk found (priority 0
		 * there is a held job, never kept), in the order counted */
		if (nodeox_pending_types(nx.conf, type, w && d->features_set ? d->features : job->features,
					 &e.p.types)) {
			e.p.gpus = gpus;
			e.p.limit = lim == NODEOX_TIME_NONE || lim == NODEOX_TIME_INFINITE ? 0 : (int64_t)lim * 60;
			e.p.id = nxs.counted++;
			e.group = (uint32_t)gi;
			if (nxs.npend == nxs.pcap && nxs.pcap < 2 * NODEOX_STATE_PENDING) {
				size_t cap = MIN(nxs.pcap ? 2 * nxs.pcap : 64, 2 * NODEOX_STATE_PENDING);

				if (try_xrealloc(nxs.pend, cap * sizeof(*nxs.pend)))
					nxs.pcap = cap;
			}
			if (nxs.npend < nxs.pcap)
				nxs.pend[nxs.npend++] = e; /* last in order: stays sorted */
			else
				nxs.groups[gi].dropped++; /* (no room: the next walk finds it) */
		}
	} else if (nomem || nxs.cut) {
		/* no memory to count it, or one partition list too many: the
		 * next decision walks (and finds the bound there, if it holds) */
		nxs.cut = false;
		nxs.valid = false;
	}
}

/* Which ends the cached running jobs have, for the log line. */
static void _ends_note(char *note, size_t cap)
{
	size_t n = strlen(note);

	if (n >= cap)
		return;
	if (nx.conf && nx.conf->run_time_history && nxs.hist)
		snprintf(note + n, cap - n, "; ends: %u from history, %u from limits, %u past their prediction",
			 nxs.ends[NODEOX_END_HISTORY], nxs.ends[NODEOX_END_LIMIT],
			 nxs.ends[NODEOX_END_OUTLIVED]);
	else
		snprintf(note + n, cap - n, "; ends: %u from limits (%s)",
			 nxs.ends[NODEOX_END_LIMIT] + nxs.ends[NODEOX_END_HISTORY] + nxs.ends[NODEOX_END_OUTLIVED],
			 nx.conf && !nx.conf->run_time_history ? "RunTimeHistory=no" : "no memory for history");
}

/* Frees st itself too (NULL: nothing); the cache stays. */
static void _cluster_state_free(nodeox_state_buf_t *st)
{
	if (!st)
		return;
	if (!st->kept) {
		xfree(st->map);
		xfree(st->scratch);
	}
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
	int kept = 0; /* the kept node snapshot: 1 serves, -1 no memory for it */
	nodeox_tag_t tag;
	char tagerr[NODEOX_ERR_MAX], acct[NODEOX_NAME_MAX], reqname[NODEOX_NAME_MAX] = "";
	char safe_reason[4 * NODEOX_ERR_MAX], safe_note[4 * NODEOX_STR_MAX], statenote[256] = "";
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
	     (!(kept = _snapshot_kept(job->partition, &cluster, st)) &&
	      !(st->map = try_xcalloc(node_record_count, sizeof(*st->map))))))
		nomem = true; /* no state read: the decision makes no estimate */
	if (parts_ok && (kept < 0 || (!kept && !_cluster_snapshot(job->partition, &cluster, st ? st->map : NULL)))) {
		slurm_mutex_unlock(&nx.lock);
		_cluster_state_free(st);
		xfree(d);
		return _out_of_memory(what, uid);
	}
	if (st && st->map && !cluster.state_cut)
		_cluster_state(st, &cluster, job, upd ? upd->job_ptr : NULL);
	nomem = nomem || (st && st->nomem);
	nodeox_policy_decide(nx.conf, job, &cluster, d);
	if (st && !nomem && !cluster.state_cut) {
		/* how old the state was: the log line says it */
		if (st->walked)
			snprintf(statenote, sizeof(statenote), "; job_list read now (%ld us)", nxs.build_us);
		else
			snprintf(statenote, sizeof(statenote),
				 "; job_list as read %ld ms ago (read again at a change once %ld ms old)",
				 st->age_ms, MIN(nxs.age_factor * nxs.build_us / 1000, nxs.age_max_ms));
		_ends_note(statenote, sizeof(statenote));
		if (!upd) /* sbatch -H: priority 0, held */
			_state_count_submission(job, d, job_desc->priority == 0);
	}
	if (d->requested_type >= 0) /* the conf may be replaced once unlocked */
		snprintf(reqname, sizeof(reqname), "%s", nx.conf->types[d->requested_type].name);
	slurm_mutex_unlock(&nx.lock);
	if (nomem)
		error("%s: %s uid=%u: out of memory for the when-faster estimate: decided "
		      "as Broaden=when-blocked",
		      plugin_type, what, uid);
	else if (cluster.state_cut)
		info("%s: %s uid=%u: more than %d nodes, %d jobs, %d running GPU holdings or %d "
		     "partition lists of pending jobs in slurmctld: no when-faster estimate, "
		     "decided as Broaden=when-blocked",
		     plugin_type, what, uid, NODEOX_MAX_NODES, NODEOX_MAX_JOBS_SCANNED, NODEOX_MAX_RUNNING,
		     NODEOX_STATE_GROUPS);
	if (!(st && st->kept))
		xfree(cluster.nodes);
	_cluster_state_free(st);
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
		info("%s: %s uid=%u: %s: %s%s", plugin_type, what, uid, rc ? "REFUSED" : "KEEP", safe_reason,
		     statenote);
		_tell_user(err_msg, d->reason);
		break;
	case NODEOX_REWRITE:
		info("%s: %s uid=%u: %s: %s; %s%s", plugin_type, what, uid, d->dryrun ? "DRYRUN" : "REWRITE",
		     safe_reason, _log_safe(d->admin_comment, safe_note, sizeof(safe_note)), statenote);
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
