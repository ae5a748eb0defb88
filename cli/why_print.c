/*
 * why_print.c: writes a why_result_t for people (why_print_text) or for
 * programs (why_print_json, keys documented in doc/why.md).
 *
 * The blockers (why_pending.c, why_never.c) come first, then the request and
 * the GPU view (why_analyze.c). Nothing is decided here: every number
 * printed comes from those files.
 */
#include <string.h>
#include <time.h>

#include "cli/why.h"
#include "common/json_write.h"

static const char *_per_name(why_per_t per)
{
	switch (per) {
	case WHY_PER_NODE: return "node";
	case WHY_PER_JOB: return "job";
	case WHY_PER_TASK: return "task";
	case WHY_PER_SOCKET: return "socket";
	default: return "none";
	}
}

static const char *_per_option(why_per_t per)
{
	switch (per) {
	case WHY_PER_NODE: return "--gres / --gpus-per-node";
	case WHY_PER_JOB: return "--gpus";
	case WHY_PER_TASK: return "--gpus-per-task";
	case WHY_PER_SOCKET: return "--gpus-per-socket";
	default: return "";
	}
}

/* Slurm's [D-]HH:MM:SS for a limit in minutes. */
static void _fmt_time(uint32_t min, char *buf, size_t len)
{
	if (min == NODEOX_TIME_NONE)
		snprintf(buf, len, "none given");
	else if (min == NODEOX_TIME_INFINITE)
		snprintf(buf, len, "UNLIMITED");
	else if (min >= 24 * 60)
		snprintf(buf, len, "%u-%02u:%02u:00", min / (24 * 60), min / 60 % 24, min % 60);
	else
		snprintf(buf, len, "%02u:%02u:00", min / 60, min % 60);
}

static const char *_or(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

/* A time as Slurm prints it (local, 2026-11-30T12:18:21). */
static void _fmt_when(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!t || !localtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(buf, len, "unknown");
}

/* ------------------------------------------------------------------ text */

static void _text_qjob(FILE *out, const why_qjob_t *q)
{
	char when[32];

	fprintf(out, "      job %u", q->job_id);
	if (q->name)
		fprintf(out, " (%s)", q->name);
	fprintf(out, " %s", _or(q->state_name, "?"));
	if (q->phase == WHY_PHASE_PENDING) {
		_fmt_when(q->start_time, when, sizeof(when));
		fprintf(out, ", priority %u, Reason=%s, expected start %s", q->priority, _or(q->reason, "?"),
			q->start_time ? when : "not planned");
	} else if (q->phase == WHY_PHASE_ACTIVE) {
		_fmt_when(q->end_time, when, sizeof(when));
		fprintf(out, " on %s, ends by %s", _or(q->nodes, "?"), when);
	} else {
		_fmt_when(q->end_time, when, sizeof(when));
		fprintf(out, " at %s", when);
	}
	fprintf(out, "\n");
}

static void _text_pending(FILE *out, const why_result_t *res)
{
	const why_pending_t *p = &res->pend;
	const why_job_t *job = res->job;
	char when[32];

	/* Slurm's detail often repeats the reason ("ReqNodeNotAvail, May be ..."). */
	if (job->reason_desc && job->reason &&
	    strncmp(job->reason_desc, job->reason, strlen(job->reason)) == 0)
		fprintf(out, "Job %u: %s, Reason=%s\n", job->job_id, _or(job->state_name, "?"),
			job->reason_desc);
	else
		fprintf(out, "Job %u: %s, Reason=%s%s%s%s\n", job->job_id, _or(job->state_name, "?"),
			_or(job->reason, "None"), job->reason_desc ? " (" : "", _or(job->reason_desc, ""),
			job->reason_desc ? ")" : "");
	if (p->never_runs)
		fprintf(out,
			"It can never run in its partition%s as configured (%s): it waits for "
			"nothing that will come.\n",
			job->partition && strchr(job->partition, ',') ? "s" : "",
			_or(job->partition, "default partition"));
	fprintf(out, "Why it waits:\n");
	for (size_t i = 0; i < p->nblockers; i++) {
		const why_blocker_t *b = &p->blockers[i];

		fprintf(out, "  - %s: %s%s\n", why_blk_name(b->kind), b->detail,
			b->never && !p->never_runs ? " (waiting does not change this)" : "");
		for (size_t k = 0; k < b->njobs; k++)
			_text_qjob(out, b->jobs[k]);
		if (b->more_jobs)
			fprintf(out, "      ... and %zu more\n", b->more_jobs);
	}
	if (p->more_blockers)
		fprintf(out, "  ... and %zu more not listed\n", p->more_blockers);
	_fmt_when(p->expected_start, when, sizeof(when));
	if (p->expected_start)
		fprintf(out, "Expected start: %s (%s)\n", when,
			strcmp(p->expected_source, "backfill") == 0
				? "slurmctld's backfill plan, as squeue --start shows"
			: strcmp(p->expected_source, "begin_time") == 0 ? "its begin time"
									: "the start of its reservation");
	else
		fprintf(out, "Expected start: %s\n",
			p->never_runs        ? "never, as configured"
			: job->priority == 0 ? "none while it is held"
					     : "not planned by Slurm yet");
	if (res->flex.analysed && res->flex.fit.could_start && !res->flex.tagged && !p->never_runs)
		fprintf(out, "Tagged --comment=nodeox:flex it could start now on idle GPUs of other "
			     "types (see below).\n");
}

static void _text_request(FILE *out, const why_job_t *job, const why_request_t *r)
{
	char tl[32];

	fprintf(out, "It asks for:\n");
	if (r->per == WHY_PER_NONE)
		fprintf(out, "  GPUs        none\n");
	else
		fprintf(out, "  GPUs        %u x %s per %s (%s): %u in all, at least %u on a node%s\n",
			r->count, r->type[0] ? r->type : "any type", _per_name(r->per), _per_option(r->per),
			r->total, r->per_node_min,
			r->several ? " (more GPU entries: only the first is explained)" : "");
	fprintf(out, "  nodes       %u", r->nodes);
	if (job->max_nodes && job->max_nodes != r->nodes)
		fprintf(out, " to %u", job->max_nodes);
	else if (!job->max_nodes)
		fprintf(out, " or more");
	fprintf(out, "\n  tasks       %u, %u CPU(s) each; at least %u CPU(s) free on a node\n",
		job->num_tasks ? job->num_tasks : 1, job->cpus_per_task ? job->cpus_per_task : 1,
		r->cpus_per_node);
	if (r->mem_per_node_mb)
		fprintf(out, "  memory      at least %llu MB free on a node\n",
			(unsigned long long)r->mem_per_node_mb);
	else
		fprintf(out, "  memory      none asked%s\n",
			job->mem_tracked ? " (so a whole node's memory)" : "");
	fprintf(out, "  partition   %s\n", _or(job->partition, "(default)"));
	fprintf(out, "  constraint  %s\n", _or(job->features, "(none)"));
	if (job->req_nodes && *job->req_nodes)
		fprintf(out, "  nodelist    %s\n", job->req_nodes);
	if (job->exc_nodes && *job->exc_nodes)
		fprintf(out, "  exclude     %s\n", job->exc_nodes);
	_fmt_time(job->time_limit, tl, sizeof(tl));
	fprintf(out, "  time limit  %s\n", tl);
}

static void _text_fit(FILE *out, const why_fit_t *f, const char *indent)
{
	const why_request_t *r = &f->req;

	fprintf(out, "%sIdle GPUs: %u in the cluster; the request can use %u (on %u node%s).\n", indent,
		f->idle_gpus, f->eligible_gpus, f->eligible_nodes, f->eligible_nodes == 1 ? "" : "s");
	for (size_t i = 0; i < f->nverdicts; i++) {
		const why_verdict_t *v = &f->verdicts[i];

		if (v->cause == WHY_OK && r->per != WHY_PER_NONE)
			fprintf(out, "%s  usable: %u %s on %s\n", indent, v->idle,
				v->type[0] ? v->type : "GPU", v->node->name);
	}
	if (f->nexcluded)
		fprintf(out, "%sExcluded idle GPUs, by cause:\n", indent);
	for (size_t i = 0; i < f->nexcluded; i++) {
		const why_excluded_t *g = &f->excluded[i];

		fprintf(out, "%s  %-30s %3u %-6s on %s (%s)\n", indent, why_cause_text(g->cause), g->gpus,
			g->type[0] ? g->type : "GPU", g->nodes, g->detail);
	}
	if (r->per == WHY_PER_NONE)
		fprintf(out, "%sThe job asks for no GPUs: what holds it is said above.\n", indent);
	else if (f->could_start)
		fprintf(out, "%sThe usable idle GPUs cover the request now.\n", indent);
	else
		fprintf(out, "%sBlocked: %s.\n", indent, f->shortfall);
}

/* Seconds from now as the estimate line shows them. */
static void _text_secs(FILE *out, const char *what, int64_t start, int64_t finish)
{
	if (start < 0) {
		fprintf(out, "%snot within the running jobs' limits", what);
		return;
	}
	fprintf(out, "%sstart in %lld s, finish in %lld s", what, (long long)start, (long long)finish);
}

/* What the estimate does not model (nodeox.conf(5), WhenFasterMargin), said
 * where the estimate is shown: the backfill map's list (policy_map.c), and
 * the older per-type estimate's for a state without it. */
static const char _not_modelled_map[] =
	"GPUs per node (counted per type), CPUs and memory, the job's own priority (it counts "
	"after every pending job), running jobs ending before their limits, ends past the map's "
	"first 64 rounded up; here a running job's GPUs are spread evenly over its nodes";
static const char _not_modelled_old[] =
	"backfill beyond the hole for the job as asked, the reservations of all but the first "
	"job ahead of a type, CPUs and memory, priorities other than FIFO (every pending job "
	"counts as ahead), running jobs ending before their limits; here a running job's GPUs "
	"are spread evenly over its nodes";
#define _not_modelled(e) ((e)->map ? _not_modelled_map : _not_modelled_old)

/* One side's deciders: running jobs ending at its start, demand ahead. */
static void _text_side_by(FILE *out, const why_plan_t *p, const why_by_t *by, int nby, bool kept, bool map)
{
	bool any = false;

	for (int i = 0; i < nby; i++)
		fprintf(out, "%s job %u (ends in %lld s)", i ? "," : "      decided by running", by[i].job_id,
			(long long)by[i].end);
	if (nby)
		fputc('\n', out);
	for (size_t i = 0; i < p->nahead; i++) {
		const why_ahead_t *a = &p->ahead[i];

		if (kept ? !a->kept : !a->broad)
			continue;
		if (map)
			fprintf(out, "%s job %u (priority %u, %llu %s GPU%s)",
				any ? ";" : "      reservations of pending jobs ahead:", a->first_id, a->first_prio,
				(unsigned long long)a->gpus, a->type[0] ? a->type : "any", a->gpus == 1 ? "" : "s");
		else
			fprintf(out, "%s %llu %s GPU%s (first: job %u, priority %u)",
				any ? ";" : "      pending jobs ahead want", (unsigned long long)a->gpus,
				a->type[0] ? a->type : "untyped", a->gpus == 1 ? "" : "s", a->first_id,
				a->first_prio);
		any = true;
	}
	if (any)
		fputc('\n', out);
}

/* Broaden=when-faster: the estimate the decision acts on now, and what
 * decides each side. */
static void _text_estimate(FILE *out, const why_flex_t *fx)
{
	const nodeox_estimate_t *e = &fx->decision.estimate;
	const why_plan_t *p = &fx->plan;

	fputs("  when-faster estimate now (Broaden=when-faster, as job_submit/nodeox would decide it):\n",
	      out);
	fprintf(out, "    as asked (%s): ", p->type[0] ? p->type : "?");
	_text_secs(out, "", e->kept_start, e->kept_finish);
	if (e->kept_backfill)
		fputs(" (backfill: fits now, ends before the jobs ahead can start)", out);
	fprintf(out, "; GPUs %llu idle, %llu held\n", (unsigned long long)e->kept_idle,
		(unsigned long long)e->kept_held);
	_text_side_by(out, p, p->kept_by, p->nkept_by, true, e->map);
	fputs("    broadened (", out);
	for (int i = 0; i < fx->neligible; i++)
		fprintf(out, "%s%s", i ? "," : "", fx->eligible_types[i]);
	fputs("): ", out);
	_text_secs(out, "", e->broad_start, e->broad_finish);
	if (e->broad_start >= 0)
		fprintf(out, " (limit x%.2f)", e->broad_factor);
	fprintf(out, "; GPUs %llu idle, %llu held\n", (unsigned long long)e->broad_idle,
		(unsigned long long)e->broad_held);
	_text_side_by(out, p, p->broad_by, p->nbroad_by, false, e->map);
	fprintf(out, "    %s-> %s\n", e->extrapolated ? "(extrapolated past the running jobs) " : "",
		e->broaden ? "broaden" : "keep");
	if (e->map)
		fprintf(out, "    backfill map: %d reservation%s of pending jobs ahead\n", e->map_reserved,
			e->map_reserved == 1 ? "" : "s");
	fprintf(out, "    not modelled: %s\n", _not_modelled(e));
}

static void _text_flex(FILE *out, const why_result_t *res)
{
	const why_flex_t *fx = &res->flex;
	const nodeox_decision_t *d = &fx->decision;

	fprintf(out, "\nWith nodeox");
	if (!fx->conf_loaded) {
		fprintf(out, ": no policy (%s)\n", _or(fx->conf_error, "no nodeox.conf"));
		return;
	}
	fprintf(out, " (%s):\n", fx->conf_path);
	if (fx->tagged && fx->tag_error[0] && d->action == NODEOX_REJECT) {
		fprintf(out, "  the job's tag is malformed: %s\n", fx->tag_error);
		return;
	}
	if (fx->applied) {
		fprintf(out, "  tagged flexible and already broadened by the plugin to: %s\n",
			_or(res->job->features, "?"));
		fprintf(out, "  the plugin's record (AdminComment): %s\n", _or(res->job->admin_comment, "?"));
		fprintf(out, "  eligible types:");
		for (int i = 0; i < fx->neligible; i++)
			fprintf(out, "%s%s", i ? ", " : " ", fx->eligible_types[i]);
		fprintf(out, "%s\n", fx->neligible ? "" : " (none found in the constraint)");
		if (fx->run_time_factor > 0)
			fprintf(out, "  expected run time: up to x%.2f on the slowest eligible type\n",
				fx->run_time_factor);
		fprintf(out, "  %s\n",
			res->fit.could_start
				? "the idle GPUs it may use cover it now"
				: "even broadened, the idle GPUs it may use do not cover it (see above)");
		return;
	}
	fprintf(out, "  %s, the policy %s %s%s: %s\n",
		fx->tagged ? "Tagged nodeox:flex" : "Not tagged. Tagged --comment=nodeox:flex",
		fx->tagged ? "says" : "would say", nodeox_action_name(d->action),
		d->dryrun ? " (Mode=dryrun: reported, not applied)" : "", d->reason);
	if (d->estimate.made)
		_text_estimate(out, fx);
	if (d->action != NODEOX_REWRITE || !fx->analysed)
		return;
	fprintf(out, "  eligible types:");
	for (int i = 0; i < fx->neligible; i++)
		fprintf(out, "%s%s", i ? ", " : " ", fx->eligible_types[i]);
	fprintf(out, "\n  broadened request: %s%s%s%s%s, constraint %s\n",
		d->tres_per_node_set ? d->tres_per_node : "", d->tres_per_job_set ? d->tres_per_job : "",
		d->tres_per_task_set ? d->tres_per_task : "",
		d->tres_per_socket_set ? d->tres_per_socket : "",
		(d->tres_per_node_set || d->tres_per_job_set || d->tres_per_task_set ||
		 d->tres_per_socket_set)
			? ""
			: "(GPU request unchanged)",
		d->features_set ? _or(d->features, "(none)") : _or(res->job->features, "(none)"));
	_text_fit(out, &fx->fit, "  ");
	fprintf(out, "  could start now on idle GPUs: %s\n", fx->fit.could_start ? "yes" : "no");
	fprintf(out, "  expected run time: x%.2f (speed of the requested type over the slowest eligible)",
		fx->run_time_factor);
	if (d->time_limit_set) {
		char a[32], b[32];

		_fmt_time(res->job->time_limit, a, sizeof(a));
		_fmt_time(d->time_limit, b, sizeof(b));
		fprintf(out, "; time limit %s -> %s", a, b);
	}
	fprintf(out, "\n");
}

void why_print_text(FILE *out, const why_result_t *res)
{
	const why_job_t *job = res->job;

	_text_pending(out, res);
	fprintf(out, "\n");
	_text_request(out, job, &res->fit.req);
	fprintf(out, "\n");
	_text_fit(out, &res->fit, "");
	if (job->pending && res->fit.could_start && res->fit.req.per != WHY_PER_NONE)
		fprintf(out,
			"So GPUs are not what holds it: Slurm says Reason=%s (priority, "
			"dependency, limits, or the next scheduling pass).\n",
			_or(job->reason, "None"));
	_text_flex(out, res);
}

/* ------------------------------------------------------------------ JSON */

/*
 * Each field after an object's first is written by one call that takes its
 * key and writes `, "key": ` and then the value; the writers below differ
 * only in the value.
 */
static void _json_key(FILE *out, const char *key)
{
	fprintf(out, ", \"%s\": ", key);
}

/* A string (null for NULL). */
static void _json_kv(FILE *out, const char *key, const char *val)
{
	_json_key(out, key);
	json_write_string(out, val);
}

/* A comma list as a JSON array of strings. */
static void _json_list(FILE *out, const char *key, const char *list)
{
	const char *it;
	size_t n;
	bool first = true;

	_json_key(out, key);
	fputc('[', out);
	for (const char *c = list; nodeox_util_list_next(&c, &it, &n);) {
		char item[NODEOX_NAME_MAX + 8];

		snprintf(item, sizeof(item), "%.*s", (int)n, it);
		if (!first)
			fputs(", ", out);
		json_write_string(out, item);
		first = false;
	}
	fputc(']', out);
}

/* A time limit in minutes, null for none or infinite. */
static void _json_time(FILE *out, const char *key, uint32_t min)
{
	_json_key(out, key);
	if (min == NODEOX_TIME_NONE || min == NODEOX_TIME_INFINITE)
		fputs("null", out);
	else
		fprintf(out, "%u", min);
}

static void _json_excluded(FILE *out, const why_fit_t *f)
{
	fputc('[', out);
	for (size_t i = 0; i < f->nexcluded; i++) {
		const why_excluded_t *g = &f->excluded[i];

		fprintf(out, "%s{\"cause\": ", i ? ", " : "");
		json_write_string(out, why_cause_name(g->cause));
		fprintf(out, ", \"gpus\": %u", g->gpus);
		_json_kv(out, "type", g->type);
		_json_list(out, "nodes", g->nodes);
		_json_kv(out, "detail", g->detail);
		fputc('}', out);
	}
	fputc(']', out);
}

static void _json_verdicts(FILE *out, const why_fit_t *f)
{
	fputc('[', out);
	for (size_t i = 0; i < f->nverdicts; i++) {
		const why_verdict_t *v = &f->verdicts[i];

		fprintf(out, "%s{\"node\": ", i ? ", " : "");
		json_write_string(out, v->node->name);
		_json_kv(out, "type", v->type);
		fprintf(out, ", \"idle\": %u", v->idle);
		_json_kv(out, "cause", why_cause_name(v->cause));
		_json_kv(out, "detail", v->detail);
		fputc('}', out);
	}
	fputc(']', out);
}

/* One side of the when-faster estimate: its GPUs and what decides it. */
static void _json_side(FILE *out, const char *key, const why_flex_t *fx, bool kept)
{
	const nodeox_estimate_t *e = &fx->decision.estimate;
	const why_plan_t *p = &fx->plan;
	const why_by_t *by = kept ? p->kept_by : p->broad_by;
	int nby = kept ? p->nkept_by : p->nbroad_by;
	bool first = true;

	_json_key(out, key);
	fprintf(out, "{\"idle_gpus\": %llu, \"held_gpus\": %llu, \"ahead_gpus\": %llu, \"running\": [",
		(unsigned long long)(kept ? e->kept_idle : e->broad_idle),
		(unsigned long long)(kept ? e->kept_held : e->broad_held),
		(unsigned long long)(kept ? e->kept_ahead : e->broad_ahead));
	for (int i = 0; i < nby; i++)
		fprintf(out, "%s{\"job_id\": %u, \"end_s\": %lld}", i ? ", " : "", by[i].job_id,
			(long long)by[i].end);
	fputs("], \"ahead\": [", out);
	for (size_t i = 0; i < p->nahead; i++) {
		const why_ahead_t *a = &p->ahead[i];

		if (kept ? !a->kept : !a->broad)
			continue;
		fputs(first ? "{" : ", {", out);
		first = false;
		fputs("\"type\": ", out);
		json_write_string(out, a->type);
		fprintf(out, ", \"gpus\": %llu, \"first_job_id\": %u, \"first_priority\": %u}",
			(unsigned long long)a->gpus, a->first_id, a->first_prio);
	}
	fputs("]}", out);
}

static void _json_flex(FILE *out, const why_result_t *res)
{
	const why_flex_t *fx = &res->flex;
	const nodeox_decision_t *d = &fx->decision;
	const why_fit_t *f = fx->analysed ? &fx->fit : &res->fit;

	fprintf(out, "{\"tagged\": %s, \"applied\": %s, \"dryrun\": %s", fx->tagged ? "true" : "false",
		fx->applied ? "true" : "false", d->dryrun ? "true" : "false");
	_json_kv(out, "conf", fx->conf_loaded ? fx->conf_path : NULL);
	_json_kv(out, "conf_error", fx->conf_error[0] ? fx->conf_error : NULL);
	_json_kv(out, "tag_error", fx->tag_error[0] ? fx->tag_error : NULL);
	_json_kv(out, "action", fx->conf_loaded ? nodeox_action_name(d->action) : NULL);
	_json_kv(out, "policy_reason", fx->conf_loaded ? d->reason : NULL);
	fputs(", \"eligible_types\": [", out);
	for (int i = 0; i < fx->neligible; i++) {
		fputs(i ? ", " : "", out);
		json_write_string(out, fx->eligible_types[i]);
	}
	fprintf(out, "], \"eligible_gpus\": %u, \"could_start_now\": %s, \"run_time_factor\": ",
		fx->conf_loaded ? f->eligible_gpus : 0, fx->conf_loaded && f->could_start ? "true" : "false");
	if (fx->run_time_factor > 0)
		fprintf(out, "%.4g", fx->run_time_factor);
	else
		fputs("null", out);
	_json_time(out, "time_limit_min", d->time_limit_set ? d->time_limit : res->job->time_limit);
	if (d->estimate.made)
		fprintf(out,
			", \"estimate\": {\"kept_start_s\": %lld, \"kept_finish_s\": %lld, "
			"\"broadened_start_s\": %lld, \"broadened_finish_s\": %lld, "
			"\"broadened_factor\": %.4g, \"extrapolated\": %s, \"kept_backfill\": %s, "
			"\"broaden\": %s",
			(long long)d->estimate.kept_start, (long long)d->estimate.kept_finish,
			(long long)d->estimate.broad_start, (long long)d->estimate.broad_finish,
			d->estimate.broad_factor, d->estimate.extrapolated ? "true" : "false",
			d->estimate.kept_backfill ? "true" : "false", d->estimate.broaden ? "true" : "false");
	if (d->estimate.made) {
		fprintf(out, ", \"backfill_map\": %s, \"reservations\": %d", d->estimate.map ? "true" : "false",
			d->estimate.map_reserved);
		_json_kv(out, "type", fx->plan.type);
		_json_side(out, "as_asked", fx, true);
		_json_side(out, "broadened", fx, false);
		_json_kv(out, "not_modelled", _not_modelled(&d->estimate));
		fputc('}', out);
	} else {
		fputs(", \"estimate\": null", out);
	}
	_json_kv(out, "constraint", d->features_set ? d->features : res->job->features);
	fputs(", \"excluded\": ", out);
	if (fx->analysed)
		_json_excluded(out, &fx->fit);
	else
		fputs("null", out);
	fputc('}', out);
}

/* A compared value: a number when it is one, a string, or null for "". */
static void _json_compared(FILE *out, const char *v)
{
	if (!v[0])
		fputs("null", out);
	else if (strspn(v, "0123456789") == strlen(v) && strlen(v) < 19)
		fputs(v, out);
	else
		json_write_string(out, v);
}

static void _json_value(FILE *out, const char *key, const char *v)
{
	_json_key(out, key);
	_json_compared(out, v);
}

/* A time of day, null for none. */
static void _json_when(FILE *out, const char *key, time_t t)
{
	char when[32];

	_json_key(out, key);
	if (!t) {
		fputs("null", out);
		return;
	}
	_fmt_when(t, when, sizeof(when));
	json_write_string(out, when);
}

static void _json_qjob(FILE *out, const why_qjob_t *q)
{
	fprintf(out, "{\"job_id\": %u", q->job_id);
	_json_kv(out, "state", q->state_name);
	_json_kv(out, "reason", q->phase == WHY_PHASE_PENDING ? q->reason : NULL);
	_json_kv(out, "name", q->name);
	_json_kv(out, "partition", q->partition);
	fprintf(out, ", \"priority\": %u", q->priority);
	_json_list(out, "nodes", q->nodes);
	_json_when(out, "start_time", q->start_time);
	_json_when(out, "end_time", q->end_time);
	fputc('}', out);
}

static void _json_blockers(FILE *out, const why_pending_t *p)
{
	fputc('[', out);
	for (size_t i = 0; i < p->nblockers; i++) {
		const why_blocker_t *b = &p->blockers[i];

		fprintf(out, "%s\n  {\"kind\": ", i ? "," : "");
		json_write_string(out, why_blk_name(b->kind));
		fprintf(out, ", \"never\": %s", b->never ? "true" : "false");
		_json_kv(out, "detail", b->detail);
		fputs(", \"values\": {\"what\": ", out);
		_json_compared(out, b->item);
		_json_value(out, "job", b->job_value);
		_json_value(out, "limit", b->limit_value);
		_json_value(out, "in_use", b->used_value);
		fputs("}, \"jobs\": [", out);
		for (size_t k = 0; k < b->njobs; k++) {
			fputs(k ? ", " : "", out);
			_json_qjob(out, b->jobs[k]);
		}
		fprintf(out, "], \"more_jobs\": %zu}", b->more_jobs);
	}
	fputc(']', out);
}

void why_print_json(FILE *out, const why_result_t *res)
{
	const why_job_t *job = res->job;
	const why_fit_t *f = &res->fit;
	const why_request_t *r = &f->req;
	const why_pending_t *p = &res->pend;

	fprintf(out, "{\"job_id\": %u", job->job_id);
	_json_kv(out, "state", job->state_name);
	fprintf(out, ", \"pending\": %s", job->pending ? "true" : "false");
	_json_kv(out, "reason", job->reason);
	_json_kv(out, "reason_detail", job->reason_desc);
	fprintf(out, ", \"never_runs\": %s", p->never_runs ? "true" : "false");
	_json_when(out, "expected_start", p->expected_start);
	_json_kv(out, "expected_start_source", p->expected_start ? p->expected_source : NULL);
	fputs(",\n \"blockers\": ", out);
	_json_blockers(out, p);
	fprintf(out, ", \"more_blockers\": %zu", p->more_blockers);
	fputs(",\n \"request\": {\"gpus_per\": ", out);
	json_write_string(out, _per_name(r->per));
	_json_kv(out, "gpu_type", r->per == WHY_PER_NONE ? NULL : r->type);
	fprintf(out,
		", \"gpu_count\": %u, \"gpus_total\": %u, \"gpus_per_node_min\": %u, "
		"\"nodes\": %u, \"max_nodes\": %u, \"tasks\": %u, \"cpus_per_task\": %u, "
		"\"cpus_per_node\": %u, \"mem_per_node_mb\": %llu",
		r->count, r->total, r->per_node_min, r->nodes, job->max_nodes,
		job->num_tasks ? job->num_tasks : 1, job->cpus_per_task ? job->cpus_per_task : 1,
		r->cpus_per_node, (unsigned long long)r->mem_per_node_mb);
	_json_time(out, "time_limit_min", job->time_limit);
	_json_kv(out, "partition", job->partition);
	_json_kv(out, "constraint", job->features);
	_json_kv(out, "tres_per_node", job->tres_per_node);
	_json_kv(out, "tres_per_job", job->tres_per_job);
	_json_kv(out, "tres_per_task", job->tres_per_task);
	_json_kv(out, "tres_per_socket", job->tres_per_socket);
	_json_kv(out, "comment", job->comment);
	_json_kv(out, "admin_comment", job->admin_comment);
	fprintf(out,
		"},\n \"idle_gpus\": %u, \"eligible_gpus\": %u, \"eligible_nodes\": %u, "
		"\"could_start_now\": %s",
		f->idle_gpus, f->eligible_gpus, f->eligible_nodes, f->could_start ? "true" : "false");
	_json_kv(out, "shortfall", f->could_start ? NULL : f->shortfall);
	fputs(",\n \"excluded\": ", out);
	_json_excluded(out, f);
	fputs(",\n \"gpu_nodes\": ", out);
	_json_verdicts(out, f);
	fputs(",\n \"flex\": ", out);
	_json_flex(out, res);
	fputs("}\n", out);
}

/* ------------------------------------------------------ not pending */

void why_print_done_text(FILE *out, const why_job_t *job)
{
	char start[32], end[32];

	_fmt_when(job->start_time, start, sizeof(start));
	_fmt_when(job->end_time, end, sizeof(end));
	if (job->phase == WHY_PHASE_ACTIVE)
		fprintf(out, "Job %u is not pending: %s on %s since %s.\n", job->job_id,
			_or(job->state_name, "?"), _or(job->alloc_nodes, "?"), start);
	else if (job->exit_status >= 0)
		fprintf(out, "Job %u is not pending: it ended %s at %s, exit status %d.\n", job->job_id,
			_or(job->state_name, "?"), end, job->exit_status);
	else
		fprintf(out, "Job %u is not pending: it ended %s at %s, killed by a signal.\n", job->job_id,
			_or(job->state_name, "?"), end);
}

void why_print_done_json(FILE *out, const why_job_t *job)
{
	fprintf(out, "{\"job_id\": %u", job->job_id);
	_json_kv(out, "state", job->state_name);
	fputs(", \"pending\": false", out);
	_json_kv(out, "reason", job->reason);
	_json_kv(out, "nodes", job->alloc_nodes);
	_json_when(out, "start_time", job->start_time);
	_json_when(out, "end_time", job->end_time);
	_json_key(out, "exit_status");
	if (job->phase == WHY_PHASE_ENDED && job->exit_status >= 0)
		fprintf(out, "%d", job->exit_status);
	else
		fputs("null", out);
	fputs(", \"blockers\": [], \"expected_start\": null}\n", out);
}
