/*
 * fuzz_decide.c: libFuzzer target for the whole broadening decision,
 * nodeox_policy_decide, on generated job descriptions and cluster states.
 *
 * Input layout: the first 16 bytes are knobs (conf variant, time limit and
 * cap, node count and states, task/node counts); the rest is split at '\n'
 * into the job's strings in this order: comment, tres_per_job, tres_per_node,
 * tres_per_task, tres_per_socket, features, prefer, partition (missing ones
 * are NULL). Nodes are drawn from a pool of features, partitions and GPU
 * types by the knob bytes, so the cluster changes with the input too.
 * Knob 14 bit 0 picks a Broaden=when-faster conf, and knobs 14-15 seed the
 * state it reads: up to 31 running holdings (node indexes one past the
 * cluster included, ends from overdue to far off, sorted), up to 3 demand
 * entries (typed, untyped, unknown types, counts up to UINT64_MAX), no
 * scratch (bit 2) or a cut state (bit 1). Knob 13 bit 0 gives the state as
 * the backfill map reads it (policy_map.c): up to 7 pending jobs drawn from
 * the same seed (types masks with bits past the conf's, counts and limits up
 * to INT64/UINT64 extremes, none), the first one's types read from the
 * job's own constraint text (nodeox_pending_types, a user's string), and
 * pending_more (bit 1). Knob 13 bit 5 takes the running holdings' ends from
 * a run-time history (policy_history.c) as the feeders do: finished jobs
 * of a few users with ends and run times from the same seed (negative,
 * zero, INT64 extremes; the same job twice), then each holding's end from
 * nodeox_history_end on its limit's end, which must never be later than
 * that, and later than now where the history gave it; then sorted.
 * A map decision is then made again with the map's
 * kept parts (nodeox_map_base_t: made by a first call on the list less
 * its last job, then extended by a second and served whole to a third, and
 * to a fourth with the running part to make again, as after a new state
 * view; then another job, of 3 a100 or 1 l40s per node, and the first
 * job again), which
 * must decide exactly as without them.
 *
 * Besides fuzz_check.h's invariants, every result must keep the policy's
 * promises: an untagged job (or Mode=off) is PASS; a REWRITE's GPU strings
 * name no type, its constraint has no node count and ends with the eligible
 * types, every eligible type is the requested one or a group mate of it, the
 * time limit never shrinks and never passes max(asked, cap); with
 * Broaden=when-faster, an estimate's fields are consistent (a finish exactly
 * when its start is known, factor >= 1) and a "kept:" KEEP or an estimated
 * REWRITE agrees with the estimate's verdict.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "tests/fuzz/fuzz_check.h"

/* A broken promise: say which (and the decision), then abort for the fuzzer. */
#define FUZZ_DECIDE_FAIL(why, d)                                                                             \
	do {                                                                                                 \
		fprintf(stderr,                                                                              \
			"fuzz_decide: %s: %s \"%s\" features \"%s\" tres \"%s\" "                            \
			"\"%s\" \"%s\" \"%s\"\n",                                                            \
			why, nodeox_action_name((d)->action), (d)->reason, (d)->features, (d)->tres_per_job, \
			(d)->tres_per_node, (d)->tres_per_task, (d)->tres_per_socket);                       \
		abort();                                                                                     \
	} while (0)

static const char *const fuzz_decide_confs[4] = {
	"GpuType=a100 Memory=80G Speed=1\nGpuType=l40s Memory=48G Speed=0.6\n"
	"GpuType=h100 Memory=80G Speed=2\nGroup=train Types=a100,l40s\n",
	"Mode=enforce\nBroaden=when-blocked\nPreferRequested=yes\nMinSpeed=0.5\n"
	"GpuType=a100 Memory=80G Speed=1\nGpuType=l40s Feature=gpu_l40s Memory=48G Speed=0.6\n"
	"GpuType=v100 Memory=32G Speed=0.25\nGroup=g1 Types=a100,l40s\nGroup=g2 Types=l40s,v100\n",
	"Mode=dryrun\nGpuType=a100\nGpuType=l40s Speed=0.5\nGroup=g Types=a100,l40s\n"
	"Partitions=gpu,short\nDenyUsers=mallory\n",
	"Mode=off\nGpuType=a100\nGpuType=l40s\nGroup=g Types=a100,l40s\n",
};
static const char fuzz_decide_faster[] =
	"Broaden=when-faster\nWhenFasterMargin=0.2\nGpuType=a100 Memory=80G Speed=1\n"
	"GpuType=l40s Memory=48G Speed=0.6\nGpuType=h100 Memory=80G Speed=2\n"
	"Group=train Types=a100,l40s,h100\n";

/* Which types share a group with which (conf indexes), per conf variant. */
static bool fuzz_decide_mates(const nodeox_conf_t *conf, int a, int b)
{
	int g, i, in;

	if (a == b)
		return true;
	for (g = 0; g < conf->ngroups; g++) {
		for (in = 0, i = 0; i < conf->groups[g].ntypes; i++)
			in |= (conf->groups[g].types[i] == a) | (conf->groups[g].types[i] == b) << 1;
		if (in == 3)
			return true;
	}
	return false;
}

/* Is s[0..n) a count as Slurm 22.05 reads one ("4", "2k", "2KiB", "2mb",
 * " +4": strtoull's blanks and sign, digits, then one of suffix_mult's
 * suffixes, any case)? */
static bool fuzz_decide_count(const char *s, size_t n)
{
	size_t i = 0, d;

	while (i < n && strchr(" \t\n\v\f\r", s[i]) && s[i])
		i++;
	if (i < n && s[i] == '+')
		i++;
	for (d = i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		;
	if (i == d)
		return false;
	if (i < n && strchr("kKmMgGtTpP", s[i])) {
		i++;
		if (i + 1 == n && (s[i] == 'b' || s[i] == 'B'))
			i++;
		else if (i + 2 == n && (s[i] == 'i' || s[i] == 'I') && (s[i + 1] == 'b' || s[i + 1] == 'B'))
			i += 2;
	}
	return i == n;
}

/* Does a TRES string hold a typed gpu entry: one whose name, after an
 * optional "gres:" or "gres/", is "gpu", followed by ':' and a type, the
 * segment up to the next ':' or '=' when it is not a count ("gpu:a100:4",
 * "gres/gpu:a100=4"; not "gpu:4", "gres/gpu=4", "gpu:", "gpu:=4")? Counts
 * are copied as the user wrote them (Slurm judges them). */
static bool fuzz_decide_typed(const char *s)
{
	while (*s) {
		size_t n = strcspn(s, ","), k = 0, seg;

		if (n >= 5 && (!strncmp(s, "gres:", 5) || !strncmp(s, "gres/", 5)))
			k = 5;
		if (n > k + 4 && !strncmp(s + k, "gpu:", 4)) {
			seg = strcspn(s + k + 4, ":=,");
			if (seg > n - k - 4)
				seg = n - k - 4;
			if (seg && !fuzz_decide_count(s + k + 4, seg))
				return true;
		}
		s += n + (s[n] == ',');
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static nodeox_conf_t *confs[4], *faster;
	static const char *const dtypes[] = { "a100", "", "l40s", "zz", "H100", "l40s" };
	nodeox_running_t run[31];
	nodeox_demand_t ahead[3];
	nodeox_pending_t pend[7];
	uint32_t scratch[NODEOX_ESTIMATE_SCRATCH(8)], lcg;
	int64_t end = -100;
	static const char *const feats[] = { "a100,ib", "gpu_l40s", "l40s", "h100,ib", "v100", "" };
	static const char *const parts[] = { "gpu", "short", "gpu,short", "old" };
	static const char *const types[] = { "a100", "l40s", "l40s", "h100", "v100", "" };
	nodeox_node_t nodes[8];
	nodeox_cluster_t cl = { .nodes = nodes };
	nodeox_decision_t d;
	nodeox_job_t job = { 0 };
	const char *fields[8] = { NULL };
	char err[NODEOX_ERR_MAX], *buf, *p;
	const nodeox_conf_t *conf;
	uint8_t k[16] = { 0 };
	nodeox_tag_t tag;
	size_t i, nk = size < 16 ? size : 16;
	int f;

	for (i = 0; i < 4; i++)
		if (!confs[i] &&
		    nodeox_conf_parse_string(fuzz_decide_confs[i], "fuzz", &confs[i], err, sizeof(err)))
			abort();
	if (!faster && nodeox_conf_parse_string(fuzz_decide_faster, "fuzz", &faster, err, sizeof(err)))
		abort();
	memcpy(k, data, nk);
	conf = k[14] & 1 ? faster : confs[k[0] & 3];
	buf = malloc(size - nk + 1);
	memcpy(buf, data + nk, size - nk);
	buf[size - nk] = '\0';
	for (p = buf, f = 0; p && f < 8; f++) {
		fields[f] = p;
		if ((p = strchr(p, '\n')))
			*p++ = '\0';
	}
	job.comment = fields[0];
	job.tres_per_job = fields[1];
	job.tres_per_node = fields[2];
	job.tres_per_task = fields[3];
	job.tres_per_socket = fields[4];
	job.features = fields[5];
	job.prefer = fields[6];
	job.partition = fields[7];
	job.user = k[0] & 4 ? "mallory" : "alice";
	job.time_limit = k[1] == 255   ? NODEOX_TIME_NONE
			 : k[1] == 254 ? NODEOX_TIME_INFINITE
				       : (uint32_t)k[1] * 7u;
	job.time_cap = (uint32_t)k[2] * 5u;
	job.time_cap_what = "MaxTime of partition fuzz";
	job.min_nodes = k[3] & 7;
	job.num_tasks = k[4] & 15;
	cl.nnodes = k[5] & 7;
	for (i = 0; i < cl.nnodes; i++) {
		uint8_t b = k[6 + i];

		nodes[i] = (nodeox_node_t){ "n",
					    feats[b % 6],
					    parts[(b >> 3) & 3],
					    types[b % 6],
					    4,
					    (uint32_t)((b >> 5) & 7),
					    (b & 0x80) == 0 };
	}
	lcg = (uint32_t)k[14] << 8 | k[15];
	for (i = 0; i < (size_t)(k[15] & 31); i++) {
		lcg = lcg * 1103515245u + 12345u;
		end += (int64_t)((lcg >> 8) % 4000);
		run[i] = (nodeox_running_t){ (uint32_t)((lcg >> 4) % (cl.nnodes + 1)), (lcg >> 16) % 6, end };
	}
	cl.running = run;
	cl.nrunning = k[15] & 31;
	if (k[13] & 0x20) {
		static const int64_t vals[] = { 0, 1, -1, 59, 3600, INT64_MAX, INT64_MIN, INT64_MAX / 2 };
		static nodeox_history_t h;
		const int64_t now = (int64_t)(k[12] & 3) * 1000;
		nodeox_end_from_t from;
		int64_t e;

		nodeox_history_init(&h);
		for (i = 0; i < (size_t)(k[12] >> 2 & 15); i++) {
			lcg = lcg * 1103515245u + 12345u;
			(void)nodeox_history_record(&h, (lcg >> 8) & 3, (lcg >> 10) & 7,
						    (lcg & 0x10000) ? vals[(lcg >> 12) & 7] : (int64_t)(lcg >> 16) % 5000,
						    (lcg & 0x20000) ? vals[(lcg >> 20) & 7] : (int64_t)(lcg >> 18) % 900);
		}
		for (i = 0; i < cl.nrunning; i++) {
			lcg = lcg * 1103515245u + 12345u;
			e = nodeox_history_end(&h, (lcg >> 8) & 3, (lcg & 0x100) ? vals[(lcg >> 12) & 7] : now - 100,
					       run[i].end, now, &from);
			if (e > run[i].end || (from != NODEOX_END_HISTORY && e != run[i].end) ||
			    (from == NODEOX_END_HISTORY && e <= now)) {
				fprintf(stderr, "fuzz_decide: history end %lld from %s, limit's end %lld, now %lld\n",
					(long long)e, nodeox_end_from_name(from), (long long)run[i].end, (long long)now);
				abort();
			}
			run[i].end = e - now;
		}
		nodeox_running_sort(run, cl.nrunning, NULL);
	}
	for (i = 0; i < (size_t)((k[14] >> 3) & 3); i++) {
		lcg = lcg * 1103515245u + 12345u;
		ahead[i] = (nodeox_demand_t){ .type = dtypes[(lcg >> 8) % 6],
					      .gpus = (lcg & 0x100) ? UINT64_MAX - 3 : (lcg >> 12) % 20,
					      .first = (lcg >> 20) % 24 };
	}
	cl.ahead = ahead;
	cl.nahead = (k[14] >> 3) & 3;
	cl.scratch = k[14] & 4 ? NULL : scratch;
	cl.state_cut = (k[14] & 2) != 0;
	if (k[13] & 1) {
		static const int64_t lims[] = { 60, 0, -5, 3600, INT64_MAX, INT64_MAX / 4 - 1 };

		cl.map = true;
		cl.pending_more = (k[13] & 2) != 0;
		cl.pending = pend;
		cl.npending = (k[13] >> 2) & 7;
		for (i = 0; i < cl.npending; i++) {
			lcg = lcg * 1103515245u + 12345u;
			pend[i] = (nodeox_pending_t){ .types = (lcg & 0x200) ? 0x80000000u | (lcg >> 8) : (lcg >> 8) & 7,
						      .gpus = (lcg & 0x400) ? UINT64_MAX : (lcg >> 12) % 12,
						      .limit = lims[(lcg >> 20) % 6],
						      .id = (uint32_t)i };
		}
		if (cl.npending && !nodeox_pending_types(conf, (lcg & 0x800) ? "l40s" : "", job.features,
							 &pend[0].types))
			pend[0].types = 0;
	}
	nodeox_policy_decide(conf, &job, k[0] & 8 ? NULL : &cl, &d);
	if (cl.map && cl.scratch && !(k[0] & 8)) {
		/* the kept parts of the map decide as the map made afresh */
		static nodeox_map_base_t base;
		static nodeox_decision_t d2, o1, o2;
		nodeox_cluster_t kept = cl;
		nodeox_job_t other = job;
		int call;

		memset(&base, 0, sizeof(base));
		kept.map_base = &base;
		for (call = 0; call < 4; call++) {
			kept.npending = cl.npending - (call == 0 && cl.npending);
			base.valid = base.valid && call < 3;
			nodeox_policy_decide(conf, &job, &kept, &d2);
			if (call && (d2.action != d.action || strcmp(d2.reason, d.reason) ||
				     memcmp(&d2.estimate, &d.estimate, sizeof(d.estimate))))
				FUZZ_DECIDE_FAIL("the map's kept parts decide otherwise", &d2);
		}
		other.tres_per_job = other.tres_per_task = other.tres_per_socket = NULL;
		other.tres_per_node = k[12] & 1 ? "gres:gpu:a100:3" : "gres:gpu:l40s:1";
		nodeox_policy_decide(conf, &other, &cl, &o1);
		nodeox_policy_decide(conf, &other, &kept, &o2);
		if (o2.action != o1.action || strcmp(o2.reason, o1.reason) ||
		    memcmp(&o2.estimate, &o1.estimate, sizeof(o1.estimate)))
			FUZZ_DECIDE_FAIL("the map's kept parts decide otherwise for another job", &o2);
		nodeox_policy_decide(conf, &job, &kept, &d2);
		if (d2.action != d.action || strcmp(d2.reason, d.reason) ||
		    memcmp(&d2.estimate, &d.estimate, sizeof(d.estimate)))
			FUZZ_DECIDE_FAIL("the map's kept parts decide otherwise after another job", &d2);
	}
#ifdef FUZZ_DECIDE_PRINT
	/* (a differential against another build: one line per input) */
	printf("%d %s | %d %lld %lld %lld %lld %d %d\n", d.action, d.reason, d.estimate.made,
	       (long long)d.estimate.kept_start, (long long)d.estimate.broad_start,
	       (long long)d.estimate.kept_finish, (long long)d.estimate.broad_finish, d.estimate.map_reserved,
	       d.estimate.map_cut);
#endif
	fuzz_check_decision(&d);
	fuzz_check_line(d.reason, sizeof(d.reason));
	/* untagged or off: untouched */
	if ((conf->mode == NODEOX_MODE_OFF ||
	     nodeox_tag_parse(job.comment, conf, &tag, err, sizeof(err)) == 0) &&
	    d.action != NODEOX_PASS)
		FUZZ_DECIDE_FAIL("untagged or Mode=off, yet not PASS", &d);
	if (d.estimate.made) {
		const nodeox_estimate_t *e = &d.estimate;

		if ((e->kept_start < 0) != (e->kept_finish < 0) ||
		    (e->broad_start < 0) != (e->broad_finish < 0) || e->broad_factor < 1.0 ||
		    (e->kept_start >= 0 && e->kept_finish < e->kept_start) ||
		    (e->broad_start >= 0 && e->broad_finish < e->broad_start))
			FUZZ_DECIDE_FAIL("an inconsistent estimate", &d);
		if (e->map && (e->map_cut || e->map_reserved > (int)cl.npending ||
			       (e->broad_start >= 0 && e->broad_limit < (int64_t)job.time_limit * 60 &&
				job.time_limit < NODEOX_TIME_NONE) ||
			       (e->kept_backfill && e->kept_start != 0)))
			FUZZ_DECIDE_FAIL("an inconsistent backfill map", &d);
		if ((d.action == NODEOX_KEEP && !strncmp(d.reason, "kept:", 5) && e->broaden) ||
		    (d.action == NODEOX_REWRITE && !e->broaden))
			FUZZ_DECIDE_FAIL("the decision disagrees with the estimate", &d);
	}
	if (d.action == NODEOX_REWRITE) {
		const char *tres[4] = { d.tres_per_job, d.tres_per_node, d.tres_per_task, d.tres_per_socket };
		const char *last;

		for (f = 0; f < 4; f++)
			if (fuzz_decide_typed(tres[f]))
				FUZZ_DECIDE_FAIL("a GPU entry still typed", &d);
		if (strchr(d.features, '*'))
			FUZZ_DECIDE_FAIL("a node count in the new constraint", &d);
		/* the constraint ends with the eligible types' OR, alone or in () or [] */
		{
			char term[NODEOX_STR_MAX] = "";
			size_t tl, fl = strlen(d.features);

			for (i = 0; i < (size_t)d.neligible; i++)
				snprintf(term + strlen(term), sizeof(term) - strlen(term), "%s%s",
					 i ? "|" : "", conf->types[d.eligible[i]].feature);
			tl = strlen(term);
			last = d.features + (fl > tl ? fl - tl : 0);
			if (fl > tl && strchr(")]", *(d.features + fl - 1)))
				last = d.features + fl - tl - 1;
			if (fl < tl || strncmp(last, term, tl) ||
			    (last > d.features && !strchr("([&", last[-1])))
				FUZZ_DECIDE_FAIL("the type term does not close the constraint", &d);
		}
		for (i = 0; i < (size_t)d.neligible; i++)
			if (d.requested_type < 0 || !fuzz_decide_mates(conf, d.requested_type, d.eligible[i]))
				FUZZ_DECIDE_FAIL("a type outside the requested one's groups", &d);
		if (d.time_limit_set &&
		    (d.time_limit < job.time_limit ||
		     (job.time_cap && d.time_limit > job.time_cap && d.time_limit > job.time_limit)))
			FUZZ_DECIDE_FAIL("time limit shrunk or past the cap", &d);
	}
	free(buf);
	return 0;
}
