/*
 * bench_policy.c: cost per call of the nodeox decision path (`make
 * bench-policy`): an untagged job (what every ordinary submission pays), a
 * tagged job without and with a cluster snapshot (4 and 1000 nodes, as the
 * plugin passes it), Broaden=when-blocked, what the plugin pays per call to
 * notice an edited nodeox.conf (a clock_gettime; a stat() at most once a
 * second), a full parse of nodeox.conf (open, fstat, read: on change only),
 * and Broaden=when-faster at 1000 nodes (10 GPUs each, all busy) and 10,000
 * running 1-GPU jobs ending over two hours, with 300 GPUs of demand ahead:
 * a 4-GPU job, and a 30-node job of 10 GPUs a node whose walk reads nearly
 * every running job; and the plugin's own step before those, filling and
 * sorting the 10,000 running holdings by end: with the radix sort's scratch
 * as the plugin sorts them, without (the merge sort in place a feeder falls
 * back to when it cannot allocate the scratch) and already in order (its walk of job_list's records is not
 * measured); the speed table (SpeedTable=): a lookup, hit and miss, in a
 * table of 100 and of 100,000 entries (a hash: the same cost), a tagged
 * job decided with a table that has entries for it and one that has none,
 * and parsing the 100,000-entry table (on change only).
 * Prints ns/call of this process's CPU time (CLOCK_PROCESS_CPUTIME_ID, so
 * that other work on a shared machine does not count); measures, asserts
 * nothing. The plugin's whole job_submit() on real Slurm records, job_list's
 * walk included, is tests/plugin/bench_plugin's; doc/admin-guide.md, Numbers,
 * has both programs' figures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "policy/policy.h"

static double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static volatile int bench_sink;
/* a kept map whose running part each call makes again (valid false before
 * each, as after the plugin's new state view); NULL: none */
static nodeox_map_base_t *bench_drop;

static void bench_decide(const char *what, const nodeox_conf_t *conf, const nodeox_job_t *job,
			 const nodeox_cluster_t *cl, long iters)
{
	static nodeox_decision_t d;
	double t0 = bench_now();
	long i;

	for (i = 0; i < iters; i++) {
		if (bench_drop)
			bench_drop->valid = false;
		nodeox_policy_decide(conf, job, cl, &d);
		bench_sink += d.action;
	}
	printf("%-46s %10.0f ns/call  (%s%s)\n", what, (bench_now() - t0) / (double)iters,
	       nodeox_action_name(d.action), d.estimate.map_cut ? ", map past a bound" : "");
}

/* A table of n user entries u0..u(n-1), a100 -> l40s, v100, h100; the
 * workload "bert" a100 -> l40s and v100 on top. malloc'd text. */
static char *bench_table_text(long n)
{
	static const char *const run[] = { "l40s", "v100", "h100" };
	size_t cap = (size_t)n * 48 + 256, len;
	char *text = malloc(cap);
	long i;

	len = (size_t)snprintf(text, cap,
			       "nodeox-speeds v=1 made=bench from=bench\n"
			       "workload bert a100 l40s 0.41 37 0.06\nworkload bert a100 v100 0.5 9 0.1\n");
	for (i = 0; i < n - 2; i++)
		len += (size_t)snprintf(text + len, cap - len, "user u%ld a100 %s 0.%02ld 5 0.1\n", i / 3,
					run[i % 3], 10 + i % 90);
	return text;
}

static void bench_speeds(const nodeox_conf_t *conf, const nodeox_job_t *tagged, const nodeox_cluster_t *big)
{
	static const long sizes[] = { 100, NODEOX_SPEEDS_MAX };
	char err[NODEOX_ERR_MAX], what[64];
	nodeox_speeds_t *t = NULL;
	nodeox_conf_t with = *conf;
	nodeox_job_t job = *tagged;
	double t0;
	long i, k, iters = 2000000;

	for (k = 0; k < 2; k++) {
		char *text = bench_table_text(sizes[k]);

		t0 = bench_now();
		if (nodeox_speeds_parse_string(text, "bench.speeds", &t, err, sizeof(err))) {
			fprintf(stderr, "bench_policy: %s\n", err);
			exit(1);
		}
		if (k == 1)
			printf("%-46s %10.0f ns/call\n", "parse a 100000-entry speed table (on change only)",
			       bench_now() - t0);
		free(text);
		snprintf(what, sizeof(what), "speed table lookup, hit, %ld entries", sizes[k]);
		t0 = bench_now();
		for (i = 0; i < iters; i++)
			bench_sink += nodeox_speeds_find(t, NODEOX_SCOPE_USER, "u21", "a100", "l40s") != NULL;
		printf("%-46s %10.0f ns/call\n", what, (bench_now() - t0) / (double)iters);
		snprintf(what, sizeof(what), "speed table lookup, miss, %ld entries", sizes[k]);
		t0 = bench_now();
		for (i = 0; i < iters; i++)
			bench_sink += nodeox_speeds_find(t, NODEOX_SCOPE_WORKLOAD, "nightly", "a100",
							 "l40s") != NULL;
		printf("%-46s %10.0f ns/call\n", what, (bench_now() - t0) / (double)iters);
		if (k == 1) {
			with.speeds = t;
			job.name = "bert";
			job.user = "u21";
			bench_decide("tagged job, 1000 nodes, table: workload entries", &with, &job, big,
				     20000);
			job.name = "nightly";
			job.user = "nobody";
			job.account = "none";
			bench_decide("tagged job, 1000 nodes, table: no entry (3 misses)", &with, &job, big,
				     20000);
		}
		nodeox_speeds_free(t);
	}
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "plugin/nodeox.conf.example";
	static char names[1000][16], feats[1000][32];
	static nodeox_node_t nodes[1000];
	nodeox_cluster_t small = { .nodes = nodes, .nnodes = 4 };
	nodeox_cluster_t big = { .nodes = nodes, .nnodes = 1000 };
	static nodeox_node_t busy[1000];
	static nodeox_running_t running[10000];
	static uint32_t scratch[NODEOX_ESTIMATE_SCRATCH(1000)];
	static const nodeox_demand_t ahead[] = { { .type = "a100", .gpus = 200, .first = 4 },
						 { .type = "l40s", .gpus = 100, .first = 8 } };
	nodeox_cluster_t state = { .nodes = busy,
				   .nnodes = 1000,
				   .running = running,
				   .nrunning = 10000,
				   .ahead = ahead,
				   .nahead = 2,
				   .scratch = scratch };
	nodeox_conf_t *conf, *wb;
	char err[NODEOX_ERR_MAX];
	struct stat st;
	double t0;
	long i, n = 200;
	nodeox_job_t untagged = { .comment = "nightly run 17",
				  .tres_per_node = "gres:gpu:a100:4",
				  .time_limit = 120,
				  .partition = "gpu" };
	nodeox_job_t tagged = { .comment = "nightly run 17 nodeox:flex:mem=40G",
				.tres_per_node = "gres:gpu:a100:4",
				.features = "ib",
				.time_limit = 120,
				.partition = "gpu" };
	static const char *types[] = { "a100", "l40s", "h100", "v100" };

	if (nodeox_conf_parse_file(path, &conf, err, sizeof(err))) {
		fprintf(stderr, "bench_policy: %s\n", err);
		return 1;
	}
	for (i = 0; i < 1000; i++) {
		snprintf(names[i], sizeof(names[i]), "n%04ld", i);
		snprintf(feats[i], sizeof(feats[i]), "%s,ib,rack%ld", types[i % 4], i / 40);
		nodes[i] = (nodeox_node_t){ names[i], feats[i],          "gpu,long", types[i % 4],
					    4,        (uint32_t)(i % 3), true };
	}
	printf("nodeox policy benchmark (conf %s: %d types, %d groups)\n", path, conf->ntypes, conf->ngroups);
	bench_decide("untagged job", conf, &untagged, &big, 2000000);
	bench_decide("tagged job, no cluster", conf, &tagged, NULL, 200000);
	bench_decide("tagged job, 4-node cluster", conf, &tagged, &small, 200000);
	bench_decide("tagged job, 1000-node cluster", conf, &tagged, &big, 20000);
	{
		/* the same policy with Broaden=when-blocked */
		if (nodeox_conf_parse_file(path, &wb, err, sizeof(err)) == 0) {
			wb->broaden = NODEOX_BROADEN_WHEN_BLOCKED;
			bench_decide("tagged job, when-blocked, 1000-node cluster", wb, &tagged, &big, 20000);
			nodeox_conf_free(wb);
		}
	}
	{
		/* Broaden=when-faster: 10,000 1-GPU jobs on 1000 10-GPU nodes, ten
		 * on each (7919 is prime to 1000), ends spread over two hours,
		 * sorted by construction */
		nodeox_job_t wide = tagged;

		for (i = 0; i < 1000; i++) {
			busy[i] = nodes[i];
			busy[i].gpus_total = 10;
			busy[i].gpus_idle = 0;
		}
		for (i = 0; i < 10000; i++)
			running[i] = (nodeox_running_t){ (uint32_t)(i * 7919 % 1000), 1,
							 (int64_t)i * 7200 / 10000 };
		if (nodeox_conf_parse_file(path, &wb, err, sizeof(err)) == 0) {
			wb->broaden = NODEOX_BROADEN_WHEN_FASTER;
			bench_decide("tagged job, when-faster, 1000 nodes, 10000 running", wb, &tagged,
				     &state, 20000);
			/* 10 per node on 30 nodes: the jobs ahead keep every a100
			 * back until the walk has read nearly all running jobs */
			wide.tres_per_node = "gres:gpu:a100:10";
			wide.min_nodes = 30;
			bench_decide("  the same, 30 nodes of 10: walk through nearly all", wb, &wide, &state,
				     5000);
			{
				/* the backfill map (policy_map.c) from the same state,
				 * with the same demand as 75 pending jobs in priority
				 * order (50 of 4 a100, 25 of 4 l40s, an hour each; a
				 * second time with no limits), as the plugin gives it */
				static nodeox_pending_t pend[75];
				nodeox_cluster_t mapped = state;
				uint32_t a100 = 0, l40s = 0;
				int c;

				for (c = 0; c < wb->ntypes; c++) {
					a100 |= strcmp(wb->types[c].name, "a100") ? 0 : 1u << c;
					l40s |= strcmp(wb->types[c].name, "l40s") ? 0 : 1u << c;
				}
				for (i = 0; i < 75; i++)
					pend[i] = (nodeox_pending_t){ i < 50 ? a100 : l40s, 4, 3600, (uint32_t)i + 1 };
				mapped.map = true;
				mapped.pending = pend;
				mapped.npending = 75;
				bench_decide("tagged job, when-faster map, 10000 running, 75 pending", wb, &tagged,
					     &mapped, 5000);
				for (i = 0; i < 75; i++)
					pend[i].limit = 0;
				bench_decide("  the same, pending jobs without limits", wb, &tagged, &mapped, 5000);
				bench_decide("  the same, 30 nodes of 10", wb, &wide, &mapped, 2000);
				{
					/* the map kept between decisions, as the plugin
					 * keeps it (map_base): the node pass, the running
					 * part and the reservations; then with the running
					 * part and the reservations made again at each
					 * call (the plugin's first decision in a second) */
					static nodeox_map_base_t base;

					for (i = 0; i < 75; i++)
						pend[i].limit = 3600;
					mapped.map_base = &base;
					bench_decide("  the same, 4 GPUs, map kept (map_base)", wb, &tagged, &mapped,
						     20000);
					bench_drop = &base;
					bench_decide("    running part and reservations made again", wb, &tagged,
						     &mapped, 5000);
					bench_drop = NULL;
				}
			}
			nodeox_conf_free(wb);
		}
		{
			/* what the plugin adds per when-faster decision before the
			 * library runs: the holdings array filled (here copied) in
			 * job_list order, not by end, and sorted by end
			 * (nodeox_running_sort with its scratch, as the plugin
			 * calls it; then without, the fallback when the scratch
			 * cannot be allocated (a merge sort in place);
			 * then an array already in order). Slurm's own part,
			 * walking job_list records, node bitmaps and gres lists,
			 * and the plugin's allocations are not in it. */
			static nodeox_running_t order[10000], work[10000], tmp[10000];
			static const char *what[] = { "  plugin's 10000 holdings: fill + sort by end",
						      "    the same, no scratch (merge in place)",
						      "    the same already in order (no scratch)" };
			uint32_t r = 1;
			long k, iters;
			int m;

			for (i = 0; i < 10000; i++)
				order[i] = running[i];
			for (i = 9999; i > 0; i--) { /* a fixed shuffle */
				nodeox_running_t x;

				r = r * 1103515245u + 12345u;
				k = (long)((r >> 8) % (uint32_t)(i + 1));
				x = order[i];
				order[i] = order[k];
				order[k] = x;
			}
			for (m = 0; m < 3; m++) {
				const nodeox_running_t *from = m == 2 ? running : order;

				iters = m == 1 ? 500 : 5000;
				t0 = bench_now();
				for (k = 0; k < iters; k++) {
					memcpy(work, from, sizeof(work));
					nodeox_running_sort(work, 10000, m == 0 ? tmp : NULL);
					bench_sink += (int)work[k % 10000].end;
				}
				printf("%-46s %10.0f ns/call\n", what[m], (bench_now() - t0) / (double)iters);
			}
		}
	}
	t0 = bench_now();
	for (i = 0; i < 2000000; i++) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		bench_sink += (int)ts.tv_nsec;
	}
	printf("%-46s %10.0f ns/call\n", "clock_gettime (every plugin call)", (bench_now() - t0) / 2000000);
	t0 = bench_now();
	for (i = 0; i < 200000; i++)
		bench_sink += stat(path, &st);
	printf("%-46s %10.0f ns/call\n", "stat() of nodeox.conf (at most once a second)",
	       (bench_now() - t0) / 200000);
	n = 20000;
	t0 = bench_now();
	for (i = 0; i < n; i++) {
		nodeox_conf_t *c;

		if (nodeox_conf_parse_file(path, &c, err, sizeof(err)) == 0)
			nodeox_conf_free(c);
	}
	printf("%-46s %10.0f ns/call\n", "parse nodeox.conf (on change only)",
	       (bench_now() - t0) / (double)n);
	bench_speeds(conf, &tagged, &big);
	nodeox_conf_free(conf);
	return 0;
}
