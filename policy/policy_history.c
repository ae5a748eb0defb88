/*
 * policy_history.c: how long users' jobs really ran, and from that when a
 * running job is expected to end (nodeox_history_*), for Broaden=when-faster's
 * backfill map. The plugin, nodeox-sim and `nodeox why` record the finished
 * jobs they see and ask for running jobs' ends here, so all three expect the
 * same ends from the same history.
 *
 * The rule (Tsafrir, Etsion and Feitelson 2007, "Backfilling using
 * system-generated predictions rather than user runtime estimates"): a
 * running job's predicted run time is the mean of the run times of its
 * user's last two finished jobs (the last one alone where only one is
 * known). Its expected end is its start plus that, never later than its
 * limit's end. No history for the user: the limit's end. A job already
 * running past its prediction is not "free now": its end goes back to its
 * limit's end (the paper's own fallback when a prediction proves short;
 * the map then plans as it did without history for that job).
 *
 * Only users are keyed, not accounts: one user's consecutive jobs are alike
 * (the locality the paper's rule rests on), while an account mixes users and
 * workloads, and a prediction too short makes the map plan with GPUs that
 * are not free yet.
 *
 * Bounds: a fixed table of NODEOX_HISTORY_USERS slots in memory the caller
 * gives (nodeox_history_t, about 200 KiB; the plugin allocates it once
 * with Slurm's allocator), open addressing with linear probing over at most
 * NODEOX_HISTORY_PROBE slots; a user past a full probe window takes the
 * slot in it whose latest job ended longest ago. Slots are never emptied,
 * so a look-up stops at the first empty slot or after the window. Every
 * call is O(NODEOX_HISTORY_PROBE); nothing allocates, asserts or aborts;
 * times and run lengths are clamped and added with saturation.
 */
#include <string.h>

#include "policy/policy_internal.h"

/* Run lengths longer than this (a year) are taken as this. */
#define HISTORY_RUN_MAX (366 * 86400LL)

static int64_t history_add_sat(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < INT64_MIN - b)
		return INT64_MIN;
	return a + b;
}

/* Where uid's probe window starts (a multiplicative hash: uids are dense,
 * so neighbours must not collide). */
static size_t history_home(uint32_t uid)
{
	return (size_t)(((uint64_t)uid * 2654435761u) >> 7) % NODEOX_HISTORY_USERS;
}

/* uid's slot, or NULL. */
static const nodeox_history_user_t *history_find(const nodeox_history_t *h, uint32_t uid)
{
	size_t i, at = history_home(uid);

	for (i = 0; i < NODEOX_HISTORY_PROBE; i++) {
		const nodeox_history_user_t *u = &h->slot[(at + i) % NODEOX_HISTORY_USERS];

		if (!u->njobs)
			return NULL;
		if (u->uid == uid)
			return u;
	}
	return NULL;
}

void nodeox_history_init(nodeox_history_t *h)
{
	if (h)
		memset(h, 0, sizeof(*h));
}

bool nodeox_history_record(nodeox_history_t *h, uint32_t uid, uint32_t job_id, int64_t end, int64_t run)
{
	nodeox_history_user_t *u = NULL, *oldest = NULL;
	size_t i, at;

	if (!h || run < 0) {
		if (h)
			h->ignored++;
		return false;
	}
	if (run > HISTORY_RUN_MAX)
		run = HISTORY_RUN_MAX;
	at = history_home(uid);
	for (i = 0; i < NODEOX_HISTORY_PROBE; i++) {
		nodeox_history_user_t *s = &h->slot[(at + i) % NODEOX_HISTORY_USERS];

		if (!s->njobs || s->uid == uid) {
			u = s;
			break;
		}
		if (!oldest || s->end[0] < oldest->end[0])
			oldest = s;
	}
	if (!u) { /* the window is full: its stalest user makes room */
		u = oldest;
		memset(u, 0, sizeof(*u));
		u->uid = uid;
		h->evicted++;
	} else if (!u->njobs) {
		u->uid = uid;
		h->users++;
	} else {
		/* seen already (a walk sees a finished job until MinJobAge) */
		for (i = 0; i < u->njobs; i++)
			if (u->id[i] == job_id && u->end[i] == end)
				return false;
		/* older than both kept: not among the user's last two */
		if (u->njobs == 2 && (end < u->end[1] || (end == u->end[1] && job_id < u->id[1])))
			return false;
	}
	/* keep [0] the latest, [1] the one before */
	if (u->njobs && (end > u->end[0] || (end == u->end[0] && job_id > u->id[0]))) {
		u->id[1] = u->id[0];
		u->end[1] = u->end[0];
		u->run[1] = u->run[0];
		u->id[0] = job_id;
		u->end[0] = end;
		u->run[0] = run;
	} else {
		i = u->njobs ? 1 : 0;
		u->id[i] = job_id;
		u->end[i] = end;
		u->run[i] = run;
	}
	if (u->njobs < 2)
		u->njobs++;
	h->recorded++;
	return true;
}

int64_t nodeox_history_run(const nodeox_history_t *h, uint32_t uid)
{
	const nodeox_history_user_t *u = h ? history_find(h, uid) : NULL;

	if (!u)
		return -1;
	/* each run is at most HISTORY_RUN_MAX: the sum cannot overflow */
	return u->njobs == 2 ? (u->run[0] + u->run[1] + 1) / 2 : u->run[0];
}

int64_t nodeox_history_end(const nodeox_history_t *h, uint32_t uid, int64_t start, int64_t limit_end,
			   int64_t now, nodeox_end_from_t *from)
{
	int64_t run = h ? nodeox_history_run(h, uid) : -1, end;
	nodeox_end_from_t f = NODEOX_END_LIMIT;

	if (run >= 0) {
		end = history_add_sat(start, run);
		if (end >= limit_end)
			f = NODEOX_END_LIMIT; /* no sooner than the limit: the limit */
		else if (end <= now)
			f = NODEOX_END_OUTLIVED; /* ran past its prediction */
		else
			f = NODEOX_END_HISTORY;
		if (f == NODEOX_END_HISTORY)
			limit_end = end;
	}
	if (from)
		*from = f;
	return limit_end;
}

const char *nodeox_end_from_name(nodeox_end_from_t from)
{
	switch (from) {
	case NODEOX_END_HISTORY: return "history";
	case NODEOX_END_OUTLIVED: return "outlived";
	case NODEOX_END_LIMIT: break;
	}
	return "limit";
}
