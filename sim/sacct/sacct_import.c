/*
 * sacct_import.c: the conversion behind nodeox-sacct-import, from the fields
 * of `sacct -a -X -P --format=...` (doc/nodeox-sacct-import.1) to trace rows.
 *
 * Every parser here reports what it could not read instead of guessing: the
 * caller turns that into "FILE:LINE: field NAME: reason". Nothing is static
 * state, so the functions can be unit-tested one by one (tests/traces/).
 */
#include "sim/sacct/sacct_import.h"
#include "policy/policy.h"
#include "common/csv_write.h"
#include "common/slurm_time.h"
#include "common/util.h"
#include "common/free_all.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const col_names[SACCT_NCOLS] = {
	[SACCT_COL_JOBID] = "JobIDRaw",  [SACCT_COL_USER] = "User",
	[SACCT_COL_ACCOUNT] = "Account", [SACCT_COL_PARTITION] = "Partition",
	[SACCT_COL_SUBMIT] = "Submit",   [SACCT_COL_START] = "Start",
	[SACCT_COL_END] = "End",         [SACCT_COL_TIMELIMIT] = "Timelimit",
	[SACCT_COL_REQTRES] = "ReqTRES", [SACCT_COL_ALLOCTRES] = "AllocTRES",
	[SACCT_COL_COMMENT] = "Comment", [SACCT_COL_NNODES] = "NNodes",
	[SACCT_COL_STATE] = "State",     [SACCT_COL_ADMINCOMMENT] = "AdminComment",
};

/* Columns without which a trace row cannot be made. */
static const sacct_col_t required[] = {
	SACCT_COL_JOBID, SACCT_COL_SUBMIT,  SACCT_COL_START,
	SACCT_COL_END,   SACCT_COL_REQTRES, SACCT_COL_ALLOCTRES,
};

/* Split line at each delim into at most max fields; returns the count (or
 * max+1 if more). */
static int split_fields(char *line, const char *delim, char **fields, int max)
{
	size_t dl = strlen(delim);
	int n = 0;
	char *p = line;

	for (;;) {
		if (n == max)
			return max + 1;
		fields[n++] = p;
		p = strstr(p, delim);
		if (!p)
			break;
		*p = '\0';
		p += dl;
	}
	return n;
}

static const char *delim_of(const sacct_header_t *h)
{
	return h->delim && *h->delim ? h->delim : "|";
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

int sacct_parse_header(char *line, const char *delim, sacct_header_t *h, char *err, size_t errlen)
{
	char *f[SACCT_MAX_COLS];
	int n, i, c;

	h->delim = delim;
	chomp(line);
	n = split_fields(line, delim_of(h), f, SACCT_MAX_COLS);
	if (n > SACCT_MAX_COLS) {
		snprintf(err, errlen, "header has more than %d columns", SACCT_MAX_COLS);
		return -1;
	}
	if (n > 1 && f[n - 1][0] == '\0') /* `sacct -p`: trailing delimiter */
		n--;
	h->ncols = n;
	for (c = 0; c < SACCT_NCOLS; c++)
		h->index[c] = -1;
	for (i = 0; i < n; i++) {
		for (c = 0; c < SACCT_NCOLS; c++)
			if (!strcasecmp(f[i], col_names[c]))
				h->index[c] = i;
		if (!strcasecmp(f[i], "JobID") && h->index[SACCT_COL_JOBID] < 0)
			h->index[SACCT_COL_JOBID] = i;
	}
	for (i = 0; i < (int)(sizeof(required) / sizeof(required[0])); i++) {
		if (h->index[required[i]] < 0) {
			snprintf(err, errlen,
				 "no %s column in the header (is this `sacct -P --format=...` "
				 "output with its header line?)",
				 col_names[required[i]]);
			return -1;
		}
	}
	return 0;
}

int sacct_parse_time(const char *s, time_t *out)
{
	struct tm tm;
	int y, mo, d, hh, mm, ss, used = 0;

	if (!*s || !strcmp(s, "Unknown") || !strcmp(s, "None"))
		return 1;
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &hh, &mm, &ss, &used) != 6 ||
	    s[used] != '\0' || used != 19)
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || hh > 23 || mm > 59 || ss > 60 || y < 1970)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = hh;
	tm.tm_min = mm;
	tm.tm_sec = ss;
	tm.tm_isdst = -1; /* sacct prints local time; let the zone decide DST */
	*out = mktime(&tm);
	if (*out == (time_t)-1)
		return -1;
	return 0;
}

/* Read a run of digits; returns the value or -1 (none, or too large). */
static int64_t digits(const char **p)
{
	int64_t v = 0;
	const char *s = *p;

	if (!isdigit((unsigned char)*s))
		return -1;
	while (isdigit((unsigned char)*s)) {
		if (v > 100000000)
			return -1;
		v = v * 10 + (*s++ - '0');
	}
	*p = s;
	return v;
}

int sacct_parse_timelimit(const char *s, int64_t *secs)
{
	int64_t t;

	if (slurm_time_parse(s, 60, &t) < 0) /* sacct prints minutes bare */
		return -1;
	if (t == SLURM_TIME_NONE || t == 0) /* --time=0 asks Slurm for no limit */
		return 1;
	*secs = t;
	return 0;
}

int sacct_parse_tres_gpus(const char *tres, sacct_gpus_t *out, char *err, size_t errlen)
{
	nodeox_tres_gpu_t e[SACCT_TRES_MAX_GPU];
	int64_t typed_sum = 0, untyped = -1;
	int n = nodeox_tres_scan(tres, e, SACCT_TRES_MAX_GPU);

	memset(out, 0, sizeof(*out));
	out->total = -1;
	if (n < 0 || n > SACCT_TRES_MAX_GPU) {
		snprintf(err, errlen, "too long, or more than %d GPU entries, at '%.40s...'",
			 SACCT_TRES_MAX_GPU, tres);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const nodeox_tres_gpu_t *g = &e[i];
		int len = (int)(g->end - g->start);

		/* sacct writes gres/gpu=N and gres/gpu:TYPE=N, always with a count */
		if (g->form != NODEOX_TRES_SLASH_EQ || !g->cnt_len) {
			snprintf(err, errlen, "'%.*s' has no '=COUNT'", len, tres + g->start);
			return -1;
		}
		if (g->problem == NODEOX_TRES_NO_TYPE || g->type_len >= SACCT_TYPE_MAX) {
			snprintf(err, errlen, "'%.*s': bad GPU type", len, tres + g->start);
			return -1;
		}
		if (g->problem != NODEOX_TRES_OK) {
			snprintf(err, errlen, "'%.*s': count is not a number (%s)", len, tres + g->start,
				 nodeox_tres_problem_text(g->problem));
			return -1;
		}
		if (!g->type_len) {
			untyped = (int64_t)g->count;
			continue;
		}
		typed_sum += (int64_t)g->count;
		out->ntypes++;
		if ((int64_t)g->count > out->type_count || out->ntypes == 1) {
			nodeox_tres_type_copy(tres, g, out->type, sizeof(out->type));
			out->type_count = (int64_t)g->count;
		}
	}
	out->total = untyped >= 0 ? untyped : (out->ntypes ? typed_sum : -1);
	return 0;
}

int64_t sacct_parse_tres_count(const char *tres, const char *name)
{
	size_t nl = strlen(name), n;
	const char *it;

	for (const char *c = tres; nodeox_util_list_next(&c, &it, &n);) {
		if (n > nl && !strncmp(it, name, nl) && it[nl] == '=') {
			const char *q = it + nl + 1;
			int64_t v = digits(&q);
			int64_t mult = 1;

			if (v < 0)
				return -2;
			if (!strcmp(name, "mem")) {
				switch (*q) {
				case 'K':
					q++;
					v = (v + 1023) / 1024;
					break;
				case 'M': q++; break;
				case 'G':
					q++;
					mult = 1024;
					break;
				case 'T':
					q++;
					mult = 1024 * 1024;
					break;
				default: break;
				}
			}
			if (q != it + n)
				return -2;
			return v * mult;
		}
	}
	return -1;
}

static char *dup_or_empty(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d) {
		fprintf(stderr, "nodeox-sacct-import: out of memory\n");
		exit(2);
	}
	return d;
}

void sacct_job_clear(sacct_job_t *job)
{
	free(job->speeds);
	nodeox_free_all(job->job_id, job->user, job->account, job->partition, job->comment, job->state);
	memset(job, 0, sizeof(*job));
}

int sacct_job_speeds(sacct_job_t *job, char *err, size_t errlen)
{
	speedrec_t r;

	free(job->speeds);
	job->speeds = NULL;
	job->speeds_rc = speedrec_find(job->comment, &r, err, errlen);
	if (job->speeds_rc == 1) {
		if (!(job->speeds = malloc(sizeof(*job->speeds)))) {
			snprintf(err, errlen, "out of memory");
			return job->speeds_rc = -1;
		}
		*job->speeds = r;
	}
	return job->speeds_rc;
}

/* Join pieces f[a..b] into buf (cap bytes) with the delimiter between them. */
static char *join_pieces(char **f, int a, int b, const char *delim, char *buf, size_t cap)
{
	size_t used = 0;
	int k;

	buf[0] = '\0';
	for (k = a; k <= b; k++) {
		used += (size_t)snprintf(buf + used, cap - used, "%s%s", k > a ? delim : "", f[k]);
		if (used >= cap)
			used = cap - 1;
	}
	return buf;
}

/*
 * A line with n > h->ncols fields: the extra delimiters are inside the
 * free-text columns (Comment, AdminComment). Put the pieces f[0..n) back
 * together into g[0..h->ncols), giving comment_extra of the extra pieces to
 * Comment and the rest to AdminComment (all to the one present if only one).
 */
static void glue_free_text(const sacct_header_t *h, char **f, int n, int comment_extra, char **g, char *cbuf,
			   char *abuf, size_t cap)
{
	int ci = h->index[SACCT_COL_COMMENT], ai = h->index[SACCT_COL_ADMINCOMMENT];
	int extra = n - h->ncols, c, p = 0;

	for (c = 0; c < h->ncols; c++) {
		int take = 0;

		if (c == ci)
			take = ai >= 0 ? comment_extra : extra;
		else if (c == ai)
			take = ci >= 0 ? extra - comment_extra : extra;
		g[c] = take ? join_pieces(f, p, p + take, delim_of(h), c == ci ? cbuf : abuf, cap) : f[p];
		p += take + 1;
	}
}

/*
 * How many extra pieces Comment most likely has when both free-text columns
 * are asked for: records never contain '|' (an old one may, after its
 * start), so AdminComment starts at the last piece that can start it and
 * holds the record mark; without one, all extras are Comment's (admins'
 * own texts rarely hold a '|', users' comments do).
 */
static int glue_guess(const sacct_header_t *h, char **f, int n)
{
	int ci = h->index[SACCT_COL_COMMENT], ai = h->index[SACCT_COL_ADMINCOMMENT];
	int extra = n - h->ncols, k;

	for (k = extra; k >= 0; k--)
		if (nodeox_record_present(f[ai + (ai > ci ? k : 0)]))
			return k;
	return extra;
}

/*
 * Put back what job_submit/nodeox changed, from its record: the type asked
 * for (the rewritten request is untyped), the unscaled time limit, and the
 * GPU count when accounting kept none (no gres/gpu in AccountingStorageTRES):
 * then the count form says how to total it.
 */
static int record_apply(const nodeox_record_t *rec, sacct_job_t *job, char *err, size_t errlen)
{
	job->recovered = 1;
	job->record_legacy = rec->legacy;
	if (rec->type[0]) {
		snprintf(job->req_type, sizeof(job->req_type), "%s", rec->type);
		job->multi_type = 0;
	}
	if (rec->time_limit_min > 0)
		job->time_limit = rec->time_limit_min * 60;
	if (job->gpus > 0)
		return 0;
	for (int f = 0; f < NODEOX_NFORMS; f++)
		if (rec->count[f] > NODEOX_RECORD_COUNT_MAX) {
			snprintf(err, errlen,
				 "field %s: nodeox record: gpus= %s:%lld is not a "
				 "plausible count",
				 col_names[SACCT_COL_ADMINCOMMENT], nodeox_form_name((nodeox_form_t)f),
				 (long long)rec->count[f]);
			return -1;
		}
	if (rec->count[NODEOX_FORM_TASK] >= 0 || rec->count[NODEOX_FORM_SOCKET] >= 0 ||
	    (rec->count[NODEOX_FORM_NODE] >= 0 && job->nodes <= 0) ||
	    (rec->count[NODEOX_FORM_NODE] < 0 && rec->count[NODEOX_FORM_JOB] < 0)) {
		snprintf(err, errlen,
			 "field %s: no gres/gpu count, and the nodeox record's gpus= "
			 "cannot give the total (AccountingStorageTRES must list gres/gpu)",
			 col_names[SACCT_COL_REQTRES]);
		return -1;
	}
	job->gpus = rec->count[NODEOX_FORM_NODE] >= 0 ? rec->count[NODEOX_FORM_NODE] * job->nodes : 0;
	if (rec->count[NODEOX_FORM_JOB] > job->gpus)
		job->gpus = rec->count[NODEOX_FORM_JOB];
	if (job->gpus <= 0) {
		snprintf(err, errlen,
			 "field %s: no gres/gpu count, and the nodeox record's gpus= "
			 "counts no GPUs",
			 col_names[SACCT_COL_REQTRES]);
		return -1;
	}
	return 0;
}

/* The job's comment, with the recorded tag added when the comment lacks one
 * (Slurm stores --comment only with AccountingStoreFlags=job_comment). */
static char *comment_with_tag(const char *comment, const char *tag)
{
	char *out;
	size_t n;

	if (!*tag || strstr(comment, "nodeox:flex"))
		return dup_or_empty(comment);
	n = strlen(comment) + strlen(tag) + 2;
	out = malloc(n);
	if (!out) {
		fprintf(stderr, "nodeox-sacct-import: out of memory\n");
		exit(2);
	}
	snprintf(out, n, "%s%s%s", comment, *comment ? " " : "", tag);
	return out;
}

/* What an AdminComment holds, from nodeox_record_parse's answer rc: a
 * record of any version is nodeox's; its dryrun record says "would change";
 * any other text is someone else's. */
static sacct_record_t record_kind(int rc, const char *admin_comment)
{
	if (rc >= 1)
		return SACCT_RECORD_REWRITE;
	if (!*admin_comment)
		return SACCT_RECORD_NONE;
	if (strstr(admin_comment, "nodeox dryrun: would change"))
		return SACCT_RECORD_DRYRUN;
	return SACCT_RECORD_FOREIGN;
}

const char *sacct_record_name(sacct_record_t r)
{
	switch (r) {
	case SACCT_RECORD_REWRITE: return "rewrite";
	case SACCT_RECORD_DRYRUN: return "dryrun";
	case SACCT_RECORD_FOREIGN: return "foreign";
	case SACCT_RECORD_NONE: break;
	}
	return "";
}

#define FIELD(c) (h->index[c] >= 0 ? f[h->index[c]] : "")

/* What the job got per GPU, where sacct cannot say what it asked. sacct has
 * no column for --cpus-per-gpu or --mem-per-gpu (nor for the partition's
 * DefCpuPerGPU or DefMemPerGPU that stand in for them), and ReqTRES is
 * slurmctld's count at submission: one CPU per task (slurm_opt.c
 * _fill_job_desc_from_opts: min_cpus = ntasks x cpus_per_task; the per-GPU
 * CPUs are added only when cons_tres allocates) and DefMemPerCPU x those
 * CPUs. So a --cpus-per-gpu=2 job of 2 GPUs reads ReqTRES cpu=1,mem=500M,
 * AllocTRES cpu=4,mem=2000M on 22.05 (24.11 counts the per-GPU CPUs at
 * submission, ReqTRES cpu=4: the rule leaves it). The rule:
 *  - CPUs: where ReqTRES cpu is one per task (the nodes of a per-node row,
 *    else 1: no -c or -n, which sbatch does not take with --cpus-per-gpu)
 *    and AllocTRES cpu is larger and a whole number per GPU, the row asks
 *    cpus_per_gpu = AllocTRES cpu / GPUs and leaves cpus empty (the default,
 *    one per task: what the job-size priority counts, as slurmctld does);
 *  - memory: where AllocTRES mem is larger than ReqTRES mem and a whole
 *    number of MB per GPU, mem_per_gpu = AllocTRES mem / GPUs, mem empty
 *    (sbatch takes one of --mem and --mem-per-gpu);
 *  - otherwise cpus and mem stay ReqTRES's.
 * nodeox-sim then allocates what Slurm did (sched_request.c: a per-node
 * row gets MAX(CPUs per task, cpus_per_gpu x its GPUs on the node), a
 * per-job one cpus_per_gpu with each GPU; mem_per_gpu x the GPUs). The
 * job's alloc_cpus and alloc_mem columns are unchanged. */
static void sacct_per_gpu(sacct_job_t *job)
{
	int64_t tasks = job->nodes > 0 ? job->nodes : 1;

	if (job->gpus <= 0)
		return;
	if (job->cpus == tasks && job->alloc_cpus > job->cpus && job->alloc_cpus % job->gpus == 0) {
		job->cpus_per_gpu = job->alloc_cpus / job->gpus;
		job->cpus = -1;
	}
	if (job->mem_mb > 0 && job->alloc_mem_mb > job->mem_mb && job->alloc_mem_mb % job->gpus == 0) {
		job->mem_per_gpu_mb = job->alloc_mem_mb / job->gpus;
		job->mem_mb = -1;
	}
}

/* One line's fields, one per header column: the job, or why not. */
static sacct_line_t parse_fields(const sacct_header_t *h, char **f, sacct_job_t *job, char *err,
				 size_t errlen)
{
	int rrc = 0, gpu_tres;
	sacct_gpus_t req, alloc;
	nodeox_record_t rec;
	time_t submit, start, end;
	int rs, rst, ren;
	char terr[SACCT_ERR_MAX];
	const char *jid, *state;

	memset(job, 0, sizeof(*job));
	jid = FIELD(SACCT_COL_JOBID);
	if (!*jid) {
		snprintf(err, errlen, "field %s: empty", col_names[SACCT_COL_JOBID]);
		return SACCT_LINE_ERROR;
	}
	if (strchr(jid, '.'))
		return SACCT_LINE_STEP;

#define TIME_FIELD(col, var, rc)                                         \
	do {                                                             \
		rc = sacct_parse_time(FIELD(col), &var);                 \
		if (rc < 0) {                                            \
			snprintf(err, errlen,                            \
				 "field %s: '%.40s' is not a time "      \
				 "YYYY-MM-DDTHH:MM:SS, Unknown or None", \
				 col_names[col], FIELD(col));            \
			return SACCT_LINE_ERROR;                         \
		}                                                        \
	} while (0)

	TIME_FIELD(SACCT_COL_SUBMIT, submit, rs);
	TIME_FIELD(SACCT_COL_START, start, rst);
	TIME_FIELD(SACCT_COL_END, end, ren);
	if (rs != 0) {
		snprintf(err, errlen, "field %s: no submit time", col_names[SACCT_COL_SUBMIT]);
		return SACCT_LINE_ERROR;
	}
	if (sacct_parse_tres_gpus(FIELD(SACCT_COL_REQTRES), &req, terr, sizeof(terr)) < 0) {
		snprintf(err, errlen, "field %s: %s", col_names[SACCT_COL_REQTRES], terr);
		return SACCT_LINE_ERROR;
	}
	if (sacct_parse_tres_gpus(FIELD(SACCT_COL_ALLOCTRES), &alloc, terr, sizeof(terr)) < 0) {
		snprintf(err, errlen, "field %s: %s", col_names[SACCT_COL_ALLOCTRES], terr);
		return SACCT_LINE_ERROR;
	}
	job->time_limit = -1;
	if (h->index[SACCT_COL_TIMELIMIT] >= 0) {
		int r = sacct_parse_timelimit(FIELD(SACCT_COL_TIMELIMIT), &job->time_limit);

		if (r < 0) {
			snprintf(err, errlen,
				 "field %s: '%.40s' is not [D-]HH:MM:SS, "
				 "UNLIMITED or Partition_Limit",
				 col_names[SACCT_COL_TIMELIMIT], FIELD(SACCT_COL_TIMELIMIT));
			return SACCT_LINE_ERROR;
		}
		if (r > 0)
			job->time_limit = -1;
	}
	job->nodes = 0;
	if (h->index[SACCT_COL_NNODES] >= 0 && *FIELD(SACCT_COL_NNODES)) {
		const char *p = FIELD(SACCT_COL_NNODES);
		int64_t v = digits(&p);

		if (v < 0 || *p) {
			snprintf(err, errlen, "field %s: '%.40s' is not a number",
				 col_names[SACCT_COL_NNODES], FIELD(SACCT_COL_NNODES));
			return SACCT_LINE_ERROR;
		}
		job->nodes = v;
	}
	if (h->index[SACCT_COL_ADMINCOMMENT] >= 0 && *FIELD(SACCT_COL_ADMINCOMMENT)) {
		rrc = nodeox_record_parse(FIELD(SACCT_COL_ADMINCOMMENT), &rec, terr, sizeof(terr));
		if (rrc < 0) {
			snprintf(err, errlen, "field %s: %s", col_names[SACCT_COL_ADMINCOMMENT], terr);
			return SACCT_LINE_ERROR;
		}
	}
	state = FIELD(SACCT_COL_STATE);
	gpu_tres = req.total > 0 || alloc.total > 0;
	if (!gpu_tres && rrc != 1)
		return SACCT_LINE_NO_GPU;
	/* Never ran: no start, pending, or nothing allocated (cancelled while
	 * pending: Slurm sets Start = End there but allocates nothing). */
	if (rst != 0 || !strncmp(state, "PENDING", 7) || (gpu_tres && alloc.total <= 0))
		return SACCT_LINE_UNSTARTED;
	if (ren != 0 || !strncmp(state, "RUNNING", 7))
		return SACCT_LINE_RUNNING;
	if (end < start) {
		snprintf(err, errlen, "field %s: ends before it starts", col_names[SACCT_COL_END]);
		return SACCT_LINE_ERROR;
	}

	job->gpus = req.total > 0 ? req.total : alloc.total;
	job->cpus = sacct_parse_tres_count(FIELD(SACCT_COL_REQTRES), "cpu");
	job->mem_mb = sacct_parse_tres_count(FIELD(SACCT_COL_REQTRES), "mem");
	job->alloc_cpus = sacct_parse_tres_count(FIELD(SACCT_COL_ALLOCTRES), "cpu");
	job->alloc_mem_mb = sacct_parse_tres_count(FIELD(SACCT_COL_ALLOCTRES), "mem");
	if (job->cpus < -1 || job->mem_mb < -1 || job->alloc_cpus < -1 || job->alloc_mem_mb < -1) {
		snprintf(err, errlen, "field %s: cpu= or mem= is not a count",
			 col_names[job->cpus < -1 || job->mem_mb < -1 ? SACCT_COL_REQTRES
								      : SACCT_COL_ALLOCTRES]);
		return SACCT_LINE_ERROR;
	}
	snprintf(job->req_type, sizeof(job->req_type), "%s", req.type);
	snprintf(job->alloc_type, sizeof(job->alloc_type), "%s", alloc.type);
	job->multi_type = req.ntypes > 1;
	job->typed_tres = req.ntypes > 0 || alloc.ntypes > 0;
	job->record_unknown = rrc == 2;
	if (rrc == 1 && record_apply(&rec, job, err, errlen) < 0)
		return SACCT_LINE_ERROR;
	/* nodes is what the job asked (-N); NNodes is what it got. A job that
	 * asked fewer nodes than it got (ReqTRES node= below NNodes: --gpus=6
	 * without -N, spread 4 + 2 over two nodes) asked its GPUs per job, which
	 * a trace says with nodes left empty (nodeox-sim refuses a count of GPUs
	 * that does not divide over nodes). A per-node record keeps NNodes. */
	int64_t req_nodes = sacct_parse_tres_count(FIELD(SACCT_COL_REQTRES), "node");
	if (req_nodes > 0 && req_nodes < job->nodes && !(rrc == 1 && rec.count[NODEOX_FORM_NODE] >= 0))
		job->nodes = 0;
	sacct_per_gpu(job);
	job->submit = submit;
	job->run_time = (int64_t)(end - start);
	job->job_id = dup_or_empty(jid);
	job->user = dup_or_empty(FIELD(SACCT_COL_USER));
	job->account = dup_or_empty(FIELD(SACCT_COL_ACCOUNT));
	job->partition = dup_or_empty(FIELD(SACCT_COL_PARTITION));
	job->had_comment = *FIELD(SACCT_COL_COMMENT) != '\0';
	job->comment = comment_with_tag(FIELD(SACCT_COL_COMMENT), rrc == 1 ? rec.tag : "");
	job->state = dup_or_empty(state);
	char *sp = strchr(job->state, ' '); /* "CANCELLED by 1000" */
	if (sp)
		*sp = '\0';
	job->start = start;
	job->end = end;
	job->wait = (int64_t)(start - submit);
	job->alloc_gpus = alloc.total > 0 ? alloc.total : job->gpus;
	job->gpu_seconds = job->alloc_gpus * job->run_time;
	job->tagged = strstr(job->comment, "nodeox:flex") != NULL;
	job->record = record_kind(rrc, FIELD(SACCT_COL_ADMINCOMMENT));
	return SACCT_LINE_JOB;
}

sacct_line_t sacct_parse_line(const sacct_header_t *h, char *line, sacct_job_t *job, char *err, size_t errlen)
{
	char *f[SACCT_MAX_COLS + 1], *g[SACCT_MAX_COLS];
	char cbuf[SACCT_TEXT_MAX], abuf[SACCT_TEXT_MAX], cand_err[SACCT_ERR_MAX];
	int n, extra, ncand, guess, i, k, both;
	sacct_line_t rc;

	memset(job, 0, sizeof(*job));
	chomp(line);
	n = split_fields(line, delim_of(h), f, SACCT_MAX_COLS + 1);
	if (n > SACCT_MAX_COLS + 1)
		n = SACCT_MAX_COLS + 1;
	if (n == h->ncols + 1 && f[n - 1][0] == '\0')
		n--; /* `sacct -p`: trailing delimiter */
	if (n == h->ncols)
		return parse_fields(h, f, job, err, errlen);
	if (n < h->ncols || n > SACCT_MAX_COLS ||
	    (h->index[SACCT_COL_COMMENT] < 0 && h->index[SACCT_COL_ADMINCOMMENT] < 0)) {
		if (n < h->ncols) {
			/* cut short (a truncated file), or another release's columns */
			int c, missing = -1;

			for (c = 0; c < SACCT_NCOLS; c++)
				if (h->index[c] >= n && (missing < 0 || h->index[c] < h->index[missing]))
					missing = c;
			snprintf(err, errlen,
				 "%d fields, the header has %d: column %d%s%s%s and after it missing "
				 "(line cut short?)",
				 n, h->ncols, n + 1, missing >= 0 ? " (first known: " : "",
				 missing >= 0 ? col_names[missing] : "", missing >= 0 ? ")" : "");
			return SACCT_LINE_ERROR;
		}
		snprintf(err, errlen, "%d fields, the header has %d", n, h->ncols);
		return SACCT_LINE_ERROR;
	}
	/* Extra delimiters inside Comment/AdminComment. With both, try the
	 * likely split first, then every other one; the first that parses wins. */
	extra = n - h->ncols;
	both = h->index[SACCT_COL_COMMENT] >= 0 && h->index[SACCT_COL_ADMINCOMMENT] >= 0;
	ncand = both ? extra + 1 : 1;
	guess = both ? glue_guess(h, f, n) : extra;
	for (i = 0; i < ncand; i++) {
		k = i == 0 ? guess : extra - (i - 1);
		if (i > 0 && k <= guess)
			k--; /* skip the guess, tried first */
		glue_free_text(h, f, n, k, g, cbuf, abuf, sizeof(cbuf));
		rc = parse_fields(h, g, job, i ? cand_err : err, i ? sizeof(cand_err) : errlen);
		if (rc != SACCT_LINE_ERROR)
			return rc;
	}
	if (both && ncand > 1) {
		size_t used = strlen(err);

		snprintf(err + used, errlen - used,
			 " (with the delimiter inside Comment or "
			 "AdminComment, no way of placing it parses; use sacct --delimiter and -d)");
	}
	return SACCT_LINE_ERROR;
}

void sacct_write_header(FILE *out)
{
	fputs("job_id,submit,user,account,partition,gpu_type,gpus,nodes,run_time,time_limit,"
	      "comment,state,alloc_gpu_type,cpus,mem,cpus_per_gpu,mem_per_gpu,alloc_cpus,alloc_mem,"
	      "alloc_gpus,wait,turnaround,requeues,gpu_seconds,record\n",
	      out);
}

/* A count with its unit, empty when not known (<= 0), then `after`. */
static void write_count(FILE *out, int64_t v, const char *unit, const char *after)
{
	if (v > 0)
		fprintf(out, "%lld%s", (long long)v, unit);
	fputs(after, out);
}

void sacct_write_job(FILE *out, const sacct_job_t *job, time_t t0)
{
	csv_write_field(out, job->job_id, ',');
	fprintf(out, "%lld,", (long long)(job->submit - t0));
	csv_write_field(out, job->user, ',');
	csv_write_field(out, job->account, ',');
	csv_write_field(out, job->partition, ',');
	csv_write_field(out, job->req_type, ',');
	fprintf(out, "%lld,", (long long)job->gpus);
	write_count(out, job->nodes, "", "");
	fprintf(out, ",%lld,", (long long)job->run_time);
	if (job->time_limit >= 0)
		fprintf(out, "%lld", (long long)job->time_limit);
	fputc(',', out);
	csv_write_field(out, job->comment, ',');
	csv_write_field(out, job->state, ',');
	csv_write_field(out, job->alloc_type, ',');
	write_count(out, job->cpus, "", ",");
	write_count(out, job->mem_mb, "M", ",");
	write_count(out, job->cpus_per_gpu, "", ",");
	write_count(out, job->mem_per_gpu_mb, "M", ",");
	write_count(out, job->alloc_cpus, "", ",");
	write_count(out, job->alloc_mem_mb, "M", ",");
	fprintf(out, "%lld,%lld,%lld,%d,%lld,%s\n", (long long)job->alloc_gpus, (long long)job->wait,
		(long long)(job->end - job->submit), job->requeues, (long long)job->gpu_seconds,
		sacct_record_name(job->record));
}
