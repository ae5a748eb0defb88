/*
 * bench_plugin.c: what job_submit/nodeox costs slurmctld per submission
 * (`make bench-policy`, after bench_policy): the plugin source compiled in
 * and linked with Slurm's real libslurmfull, as tests/plugin/test_glue.c
 * does, so that job_submit() walks real job records, node bitmaps and gres
 * lists with Slurm's own list and allocator, as inside slurmctld. The state
 * is bench_policy's when-faster case: 1000 nodes of 10 GPUs (a100, l40s,
 * h100, v100 in turn), all busy with 10,000 running 1-GPU jobs ending over
 * two hours, and 75 pending jobs wanting 200 a100 and 100 l40s GPUs ahead
 * (BENCH_PENDING=N: N pending jobs, the 51st on wanting l40s).
 * Measured: an untagged job, a tagged one under Broaden=always (no state
 * read) and under Broaden=when-faster: with the state cache dropped before
 * every call (each walks all records and sorts 10,000 holdings: the worst
 * single call), from the cache with nothing changed, and in two bursts
 * whose submissions are queued as slurmctld does (a pending record
 * appended, last_job_update moved on), one paced (BENCH_BURST_RATE a
 * second for BENCH_BURST_SECONDS) and one back to back, with the plugin's
 * own window deciding when to walk again. CPU time of the process per
 * call (mean, and the largest where a walk was done), so other work on a
 * shared machine counts less; slurmctld's locks and its own work around
 * job_submit are not in it. Prints, asserts only that the first cases
 * reached the decision they are meant to measure.
 */
#include "plugin/job_submit_nodeox.c"
#include "tests/plugin/slurmctld_stubs.h"

#define BENCH_NODES 1000
#define BENCH_RUNNING 10000
/* pending jobs: 75, or BENCH_PENDING from the environment (issue 47 asks for
 * 100,000: `BENCH_PENDING=100000 make bench-policy`); the first 50 want 4
 * a100 each, the rest 4 l40s */
static int bench_pending = 75;
/* when-faster calls that each walk job_list: 2000 (100 past 1000 pending
 * jobs), or BENCH_FASTER_ITERS (fewer for a profile under callgrind) */
static long bench_faster_iters = 0;
/* the burst: BENCH_BURST_RATE tagged submissions a second (200) for
 * BENCH_BURST_SECONDS (5), each queued as slurmctld does */
static long bench_burst_rate = 200, bench_burst_seconds = 5;
static long bench_same_iters = 200;

/* A count from the environment (1 to 10^7), or dflt. */
static long bench_env(const char *name, long dflt)
{
	const char *v = getenv(name);

	return v && atol(v) > 0 ? MIN(atol(v), 10000000L) : dflt;
}

static long bench_burst_calls(void)
{
	return bench_burst_rate * bench_burst_seconds;
}

static double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static node_record_t bench_nodes[BENCH_NODES];
static node_record_t *bench_table[BENCH_NODES];
static part_record_t bench_part;
static void *bench_pptr[1] = { &bench_part };
static job_record_t *bench_jobs; /* BENCH_RUNNING + bench_pending */
static nodeox_job_details_t *bench_det;
static char bench_conf[256];
static char bench_speeds[256]; /* SpeedTable= of bench_write_conf when set */

/* slurmctld's, over this program's one partition */
part_record_t *find_part_record(char *name)
{
	return name && !strcmp(name, bench_part.name) ? &bench_part : NULL;
}

static void bench_write_conf(const char *broaden)
{
	FILE *f = fopen(bench_conf, "w");

	if (!f) {
		perror(bench_conf);
		exit(1);
	}
	fprintf(f,
		"Broaden=%s\n"
		"GpuType=h100 Memory=80G Speed=2.0\n"
		"GpuType=a100 Memory=80G Speed=1.0\n"
		"GpuType=l40s Memory=48G Speed=0.6\n"
		"GpuType=v100 Memory=32G Speed=0.45\n"
		"Group=datacenter Types=h100,a100,l40s,v100\n",
		broaden);
	if (bench_speeds[0])
		fprintf(f, "MinSpeed=0.3\nScaleTimeLimit=yes\nSpeedTable=%s\n", bench_speeds);
	fclose(f);
	slurm_mutex_lock(&nx.lock);
	_conf_refresh(true);
	slurm_mutex_unlock(&nx.lock);
}

/* 1000 nodes of 10 GPUs, all allocated, one partition "gpu". */
static void bench_cluster(void)
{
	static const char *types[] = { "a100", "l40s", "h100", "v100" };
	static char names[BENCH_NODES][16];
	int i;

	bench_part.name = "gpu";
	bench_part.max_time = INFINITE;
	for (i = 0; i < BENCH_NODES; i++) {
		node_record_t *n = &bench_nodes[i];
		gres_state_t *gs = xmalloc(sizeof(*gs));
		gres_node_state_t *ns = xmalloc(sizeof(*ns));

		snprintf(names[i], sizeof(names[i]), "n%04d", i);
		n->name = names[i];
		n->features = n->features_act = (char *)types[i % 4];
		n->node_state = NODE_STATE_ALLOCATED;
		n->part_pptr = (__typeof__(n->part_pptr))bench_pptr;
		n->part_cnt = 1;
		ns->gres_cnt_avail = 10;
		ns->gres_cnt_alloc = 10;
		ns->type_cnt = 1;
		ns->type_name = xcalloc(1, sizeof(char *));
		ns->type_name[0] = xstrdup(types[i % 4]);
		gs->gres_name = "gpu";
		gs->gres_data = ns;
		n->gres_list = list_create(NULL);
		list_append(n->gres_list, gs);
		bench_table[i] = n;
	}
	node_record_table_ptr = bench_table;
	node_record_count = BENCH_NODES;
}

/* job_list: 10,000 running 1-GPU jobs, ten on each node (7919 is prime to
 * 1000), ending over two hours in an order unlike job_list's; then the
 * pending ones, 50 of 4 a100 and 25 of 4 l40s. */
static void bench_jobs_fill(time_t now)
{
	int i;

	bench_jobs = xcalloc(BENCH_RUNNING + bench_pending, sizeof(*bench_jobs));
	bench_det = xcalloc(BENCH_RUNNING + bench_pending, sizeof(*bench_det));
	job_list = list_create(NULL);
	for (i = 0; i < BENCH_RUNNING; i++) {
		job_record_t *j = &bench_jobs[i];
		gres_state_t *gs = xmalloc(sizeof(*gs));
		gres_job_state_t *js = xmalloc(sizeof(*js));
		int node = (int)((long)i * 7919 % BENCH_NODES);

		j->job_id = (uint32_t)i + 1;
		j->job_state = JOB_RUNNING;
		j->partition = "gpu";
		j->details = &bench_det[i];
		j->end_time = now + (time_t)(((long)i * 7919 % BENCH_RUNNING) * 7200 / BENCH_RUNNING);
		j->node_bitmap = bit_alloc(BENCH_NODES);
		bit_set(j->node_bitmap, node);
		js->node_cnt = 1;
		js->gres_cnt_node_alloc = xcalloc(1, sizeof(uint64_t));
		js->gres_cnt_node_alloc[0] = 1;
		gs->gres_name = "gpu";
		gs->gres_data = js;
		j->gres_list_alloc = list_create(NULL);
		list_append(j->gres_list_alloc, gs);
		list_append(job_list, j);
	}
	for (i = 0; i < bench_pending; i++) {
		job_record_t *j = &bench_jobs[BENCH_RUNNING + i];

		j->job_id = (uint32_t)(BENCH_RUNNING + i + 1);
		j->job_state = JOB_PENDING;
		j->priority = 1000;
		j->partition = "gpu";
		j->details = &bench_det[BENCH_RUNNING + i];
		j->details->min_nodes = 1;
		j->tres_per_node = i < 50 ? NODEOX_TRES_GPU ":a100:4" : NODEOX_TRES_GPU ":l40s:4";
		list_append(job_list, j);
	}
}

/* How bench_submit runs its calls. */
typedef enum {
	BENCH_SAME,   /* nothing changes between calls */
	BENCH_WALK,   /* the state cache dropped before each call: every call
			* walks job_list (the worst single call) */
	BENCH_QUEUED, /* each submission then queued as slurmctld does (a
			* pending record appended, last_job_update moved on) */
	BENCH_NEWSEC, /* nothing changes, but each call is the first of its
			* second: the view's ends count from a new now, so it
			* and the map's running part are made again */
} bench_mode_t;

/* A burst's queued records (BENCH_QUEUED). */
static job_record_t *bench_queued;
static nodeox_job_details_t *bench_queued_det;
static char (*bench_queued_tres)[64];
static long bench_nqueued;

/* What bench_submit measured: CPU ns per call, mean and largest, and the
 * walks of job_list the calls did. */
typedef struct {
	double mean, max, min, median;
	unsigned long walks;
} bench_stat_t;

static int bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* min and median of n per-call times (sorts them) */
static void bench_dist(double *v, long n, bench_stat_t *r)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp);
	r->min = n ? v[0] : 0;
	r->median = n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : 0;
}

/* Submit the job as sbatch sends it `iters` times, one every gap_ns of
 * wall time (0: back to back; the wait is no CPU time); the message nodeox
 * gave the last into note. */
static bench_stat_t bench_submit(const char *comment, long iters, bench_mode_t mode, long gap_ns, char *note,
				 size_t cap)
{
	bench_stat_t r = { 0 };
	double t0, t, total = 0, *each = xcalloc(iters, sizeof(double));
	unsigned long walks0 = nxs.walks;
	long i;

	note[0] = '\0';
	for (i = 0; i < iters; i++) {
		job_desc_msg_t *j = xmalloc(sizeof(*j));
		char *err = NULL;

		slurm_init_job_desc_msg(j);
		j->comment = xstrdup(comment);
		j->tres_per_node = xstrdup(NODEOX_TRES_GPU ":a100:4");
		j->partition = xstrdup("gpu");
		j->time_limit = 120;
		j->user_id = 1000;
		j->het_job_offset = NO_VAL;
		/* nothing changes between calls: submitted held (sbatch -H), so
		 * the plugin does not count it into the pending jobs ahead (75
		 * stay 75; counted, 1000 calls would pass the map's 1024 and
		 * every later call would decide as when-blocked) */
		if (mode == BENCH_SAME || mode == BENCH_NEWSEC)
			j->priority = 0;
		if (gap_ns) {
			struct timespec gap = { gap_ns / 1000000000L, gap_ns % 1000000000L };

			nanosleep(&gap, NULL);
		}
		if (mode == BENCH_WALK)
			nxs.valid = false;
		if (mode == BENCH_NEWSEC)
			nxs.view_map_n = 0;
		t0 = bench_now();
		if (job_submit(j, 1000, &err) != SLURM_SUCCESS) {
			fprintf(stderr, "bench_plugin: job_submit failed: %s\n", err ? err : "?");
			exit(1);
		}
		t = bench_now() - t0;
		total += t;
		each[i] = t;
		r.max = t > r.max ? t : r.max;
		if (i + 1 == iters)
			snprintf(note, cap, "%s", err ? err : "");
		if (mode == BENCH_QUEUED) { /* slurmctld queues it: _create_job_record */
			job_record_t *q = &bench_queued[bench_nqueued];

			q->job_id = (uint32_t)(BENCH_RUNNING + bench_pending + bench_nqueued + 1);
			q->job_state = JOB_PENDING;
			q->priority = 1000;
			q->partition = "gpu";
			q->details = &bench_queued_det[bench_nqueued];
			q->details->min_nodes = 1;
			snprintf(bench_queued_tres[bench_nqueued], sizeof(bench_queued_tres[0]), "%s",
				 j->tres_per_node);
			q->tres_per_node = bench_queued_tres[bench_nqueued];
			list_append(job_list, q);
			bench_nqueued++;
			last_job_update = time(NULL);
		}
		xfree(err);
		/* what the plugin may have set or replaced (slurm_free_job_desc_msg
		 * would load Slurm's plugins, which needs a slurm.conf) */
		xfree(j->comment);
		xfree(j->tres_per_node);
		xfree(j->tres_per_job);
		xfree(j->partition);
		xfree(j->features);
		xfree(j->prefer);
		xfree(j->admin_comment);
		xfree(j);
	}
	r.mean = total / (double)iters;
	r.walks = nxs.walks - walks0;
	bench_dist(each, iters, &r);
	xfree(each);
	return r;
}

static void bench_line(const char *what, bench_stat_t r, const char *note, const char *want)
{
	printf("%-58s %10.0f ns/call (min %.0f, median %.0f)", what, r.mean, r.min, r.median);
	if (r.walks)
		printf("  (largest %.0f ns; %lu walks of job_list)", r.max, r.walks);
	printf("\n");
	if (want && !strstr(note, want)) {
		fprintf(stderr, "bench_plugin: %s: expected '%s' in the message, got '%s'\n", what, want,
			note);
		exit(1);
	}
}

/* Where a cached when-faster decision's time goes (BENCH_PARTS_ITERS
 * calls, default 2000, nothing changed between them): the node snapshot,
 * the state view from the cache, and the policy's decision (the backfill
 * map in it), each timed per call, min and median; the rest of
 * job_submit (tag, time cap, log line, writing back) is the whole call's
 * time less these. */
#ifndef BENCH_NO_PARTS /* (a plugin from before the kept snapshot: -DBENCH_NO_PARTS) */
static void bench_parts(void)
{
	static const char *what[] = { "  node snapshot (_snapshot_kept)", "  state view (_cluster_state)",
				      "  nodeox_policy_decide (the map in it)" };
	long iters = bench_env("BENCH_PARTS_ITERS", 2000), i;
	double *v[3];
	int k;

	for (k = 0; k < 3; k++)
		v[k] = xcalloc(iters, sizeof(double));
	for (i = 0; i < iters; i++) {
		static nodeox_decision_t d;
		nodeox_job_t job = { .comment = "nodeox:flex:mem=40G",
				     .tres_per_node = NODEOX_TRES_GPU ":a100:4",
				     .partition = "gpu",
				     .time_limit = 120 };
		nodeox_cluster_t cl = { 0 };
		nodeox_state_buf_t *st = xmalloc(sizeof(*st));
		double t[4];

		slurm_mutex_lock(&nx.lock);
		t[0] = bench_now();
		if (_snapshot_kept(job.partition, &cl, st) <= 0) {
			fprintf(stderr, "bench_plugin: no memory for the node snapshot\n");
			exit(1);
		}
		t[1] = bench_now();
		_cluster_state(st, &cl, &job, NULL);
		t[2] = bench_now();
		nodeox_policy_decide(nx.conf, &job, &cl, &d);
		t[3] = bench_now();
		slurm_mutex_unlock(&nx.lock);
		_cluster_state_free(st);
		for (k = 0; k < 3; k++)
			v[k][i] = t[k + 1] - t[k];
	}
	for (k = 0; k < 3; k++) {
		bench_stat_t r = { 0 };

		for (i = 0; i < iters; i++)
			r.mean += v[k][i] / (double)iters;
		bench_dist(v[k], iters, &r);
		printf("%-58s %10.0f ns/call (min %.0f, median %.0f)\n", what[k], r.mean, r.min, r.median);
		xfree(v[k]);
	}
}
#endif

int main(void)
{
	char note[NODEOX_ERR_MAX * 2];
	char what_t[96];
	time_t now = time(NULL);

	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	log_options_t lo = LOG_OPTS_STDERR_ONLY;
	char logf[256];

	/* the plugin's log lines go to a file, as slurmctld's do */
	snprintf(logf, sizeof(logf), "%s/bench_plugin-%d.log", tmp, (int)getpid());
	lo.stderr_level = LOG_LEVEL_ERROR;
	lo.logfile_level = LOG_LEVEL_INFO;
	log_init("bench_plugin", lo, 0, logf);
	snprintf(bench_conf, sizeof(bench_conf), "%s/bench_plugin-%d.conf", tmp, (int)getpid());
	setenv("NODEOX_CONF", bench_conf, 1);
	if (getenv("BENCH_PENDING") && atoi(getenv("BENCH_PENDING")) > 0)
		bench_pending = atoi(getenv("BENCH_PENDING"));
	if (getenv("BENCH_FASTER_ITERS") && atol(getenv("BENCH_FASTER_ITERS")) > 0)
		bench_faster_iters = atol(getenv("BENCH_FASTER_ITERS"));
	if (!bench_faster_iters)
		bench_faster_iters = bench_pending > 1000 ? 100 : 2000;
	if (getenv("BENCH_BURST_RATE") && atol(getenv("BENCH_BURST_RATE")) > 0)
		bench_burst_rate = MIN(atol(getenv("BENCH_BURST_RATE")), 1000000);
	if (getenv("BENCH_BURST_SECONDS") && atol(getenv("BENCH_BURST_SECONDS")) > 0)
		bench_burst_seconds = MIN(atol(getenv("BENCH_BURST_SECONDS")), 3600);
	if (getenv("BENCH_SAME_ITERS") && atol(getenv("BENCH_SAME_ITERS")) > 0)
		bench_same_iters = atol(getenv("BENCH_SAME_ITERS"));
	if (init() != SLURM_SUCCESS)
		return 1;
	bench_cluster();
	bench_jobs_fill(now);
	printf("job_submit/nodeox in-process benchmark (%d nodes, %d running jobs, %d pending)\n\n",
	       BENCH_NODES, BENCH_RUNNING, bench_pending);
	bench_queued = xcalloc(bench_burst_calls() + 2000, sizeof(*bench_queued));
	bench_queued_det = xcalloc(bench_burst_calls() + 2000, sizeof(*bench_queued_det));
	bench_queued_tres = xcalloc(bench_burst_calls() + 2000, sizeof(*bench_queued_tres));
	last_job_update = last_node_update = now - 10; /* changed before the first walk */
	bench_write_conf("always");
	bench_line("untagged job",
		   bench_submit("nightly run 17", bench_env("BENCH_UNTAGGED_ITERS", 200000), BENCH_SAME, 0,
				note, sizeof(note)),
		   note, NULL);
	bench_line("tagged job, Broaden=always",
		   bench_submit("nodeox:flex:mem=40G", bench_env("BENCH_ALWAYS_ITERS", 20000), BENCH_SAME, 0,
				note, sizeof(note)),
		   note, "broadened to");
	{
		/* a speed table of BENCH_SPEED_ENTRIES workload entries (default
		 * 20,000, the table's bound is NODEOX_SPEEDS_MAX): the job's entry
		 * decides MinSpeed and ScaleTimeLimit (issue 46, item 3's cost) */
		long n = bench_env("BENCH_SPEED_ENTRIES", 20000);
		FILE *t;

		snprintf(bench_speeds, sizeof(bench_speeds), "%s/bench_plugin-%d.speeds", tmp, (int)getpid());
		if (!(t = fopen(bench_speeds, "w"))) {
			perror(bench_speeds);
			exit(1);
		}
		fprintf(t, "nodeox-speeds v=1 made=2026-12-05T00:00:00Z from=bench_plugin\n");
		for (long i = 0; i < n / 2; i++)
			fprintf(t, "workload w%ld a100 l40s 0.%02ld 10 0.1\nworkload w%ld a100 v100 0.35 10 0.1\n", i,
				40 + i % 50, i);
		fclose(t);
		bench_write_conf("always");
		snprintf(what_t, sizeof(what_t), "tagged, always, SpeedTable= of %ld entries", n);
		bench_line(what_t,
			   bench_submit("nodeox:flex:mem=40G:workload=w4711", bench_env("BENCH_ALWAYS_ITERS", 20000),
					BENCH_SAME, 0, note, sizeof(note)),
			   note, "broadened to");
		unlink(bench_speeds);
		bench_speeds[0] = '\0';
	}
	bench_write_conf("when-faster");
	bench_line("tagged, when-faster, every call walks job_list",
		   bench_submit("nodeox:flex:mem=40G", bench_faster_iters, BENCH_WALK, 0, note, sizeof(note)),
		   /* past the pending jobs the state keeps for the backfill map
		    * (BENCH_PENDING=100000): no estimate, as when-blocked */
		   note, bench_pending > NODEOX_MAP_LIST ? "as when-blocked: more pending jobs ahead" : "kept: a100 expected free");
	bench_line("tagged, when-faster, nothing changed (cached)",
		   bench_submit("nodeox:flex:mem=40G", bench_same_iters, BENCH_SAME, 0, note, sizeof(note)),
		   note, NULL);
	bench_line("tagged, when-faster, nothing changed, one call every 5 ms",
		   bench_submit("nodeox:flex:mem=40G", bench_env("BENCH_PACED_ITERS", 400), BENCH_SAME, 5000000L,
				note, sizeof(note)),
		   note, NULL);
	bench_line("tagged, when-faster, nothing changed, first call of a second",
		   bench_submit("nodeox:flex:mem=40G", bench_same_iters, BENCH_NEWSEC, 0, note, sizeof(note)),
		   note, NULL);
	bench_line("tagged, when-faster, nothing changed, first of a second, every 5 ms",
		   bench_submit("nodeox:flex:mem=40G", bench_env("BENCH_PACED_ITERS", 400), BENCH_NEWSEC, 5000000L,
				note, sizeof(note)),
		   note, NULL);
#ifndef BENCH_NO_PARTS
	bench_parts();
#endif
	{
		char what[96];

		snprintf(what, sizeof(what), "tagged, when-faster, burst of %ld/s for %ld s, queued",
			 bench_burst_rate, bench_burst_seconds);
		nxs.valid = false;
		bench_line(what,
			   bench_submit("nodeox:flex:mem=40G", bench_burst_calls(), BENCH_QUEUED,
					1000000000L / bench_burst_rate, note, sizeof(note)),
			   note, NULL);
		nxs.valid = false;
		bench_line("tagged, when-faster, burst of 2000 back to back, queued",
			   bench_submit("nodeox:flex:mem=40G", 2000, BENCH_QUEUED, 0, note, sizeof(note)),
			   note, NULL);
	}
	printf("\nlast walk of job_list: %ld us; window: %ld ms (%ld times that, at most %ld ms)\n",
	       nxs.build_us, MIN(nxs.age_factor * nxs.build_us / 1000, nxs.age_max_ms), nxs.age_factor,
	       nxs.age_max_ms);
	fini();
	unlink(bench_conf);
	unlink(logf);
	return 0;
}
