/*
 * sacct_import.c: the conversion behind nodeox-sacct-import, from the fields
 * of `sacct -a -X -P --format=...` (doc/nodeox-sacct-import.1) to trace rows.
 *
 * Every parser here reports what it could not read instead of guessing: the
 * caller turns that into "FILE:LINE: field NAME: reason". Nothing is static
 * state, so the functions can be unit-tested one by one (tests/traces/).
 */
#include "sim/sacct_import.h"
#include "sim/csv_write.h"
#include "sim/slurm_time.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const col_names[SACCT_NCOLS] = {
	[SACCT_COL_JOBID] = "JobIDRaw",
	[SACCT_COL_USER] = "User",
	[SACCT_COL_ACCOUNT] = "Account",
	[SACCT_COL_PARTITION] = "Partition",
	[SACCT_COL_SUBMIT] = "Submit",
	[SACCT_COL_START] = "Start",
	[SACCT_COL_END] = "End",
	[SACCT_COL_TIMELIMIT] = "Timelimit",
	[SACCT_COL_REQTRES] = "ReqTRES",
	[SACCT_COL_ALLOCTRES] = "AllocTRES",
	[SACCT_COL_COMMENT] = "Comment",
	[SACCT_COL_NNODES] = "NNodes",
	[SACCT_COL_STATE] = "State",
};

/* Columns without which a trace row cannot be made. */
static const sacct_col_t required[] = {
	SACCT_COL_JOBID, SACCT_COL_SUBMIT, SACCT_COL_START, SACCT_COL_END,
	SACCT_COL_REQTRES, SACCT_COL_ALLOCTRES,
};

const char *sacct_col_name(sacct_col_t col)
{
	return (col >= 0 && col < SACCT_NCOLS) ? col_names[col] : "?";
}

/* Split line at '|' into at most max fields; returns the count (or max+1 if more). */
static int split_bars(char *line, char **fields, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		if (n == max)
			return max + 1;
		fields[n++] = p;
		p = strchr(p, '|');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

int sacct_parse_header(char *line, sacct_header_t *h, char *err, size_t errlen)
{
	char *f[SACCT_MAX_COLS];
	int n, i, c;

	chomp(line);
	n = split_bars(line, f, SACCT_MAX_COLS);
	if (n > SACCT_MAX_COLS) {
		snprintf(err, errlen, "header has more than %d columns", SACCT_MAX_COLS);
		return -1;
	}
	if (n > 1 && f[n - 1][0] == '\0')       /* `sacct -p`: trailing '|' */
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
				 "output with its header line?)", col_names[required[i]]);
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
	tm.tm_isdst = -1;       /* sacct prints local time; let the zone decide DST */
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

	if (slurm_time_parse(s, 60, &t) < 0)   /* sacct prints minutes bare */
		return -1;
	if (t == SLURM_TIME_NONE || t == 0)    /* --time=0 asks Slurm for no limit */
		return 1;
	*secs = t;
	return 0;
}

int sacct_parse_tres_gpus(const char *tres, sacct_gpus_t *out, char *err, size_t errlen)
{
	const char *p = tres;
	int64_t typed_sum = 0, untyped = -1;

	memset(out, 0, sizeof(*out));
	out->total = -1;
	while (*p) {
		const char *end = strchr(p, ','), *eq;
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char item[256];

		if (len >= sizeof(item)) {
			snprintf(err, errlen, "entry too long at '%.40s...'", p);
			return -1;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		p += len + (end ? 1 : 0);
		if (!len)
			continue;
		if (strncmp(item, "gres/gpu", 8) != 0 || (item[8] != '=' && item[8] != ':'))
			continue;       /* cpu=, mem=, gres/gpumem=, other gres */
		eq = strchr(item, '=');
		if (!eq) {
			snprintf(err, errlen, "'%s' has no '=COUNT'", item);
			return -1;
		}
		const char *num = eq + 1;
		int64_t cnt = digits(&num);

		if (cnt < 0 || *num) {
			snprintf(err, errlen, "'%s': count is not a number", item);
			return -1;
		}
		if (item[8] == '=') {
			untyped = cnt;
			continue;
		}
		/* gres/gpu:TYPE=N */
		size_t tlen = (size_t)(eq - (item + 9));

		if (!tlen || tlen >= SACCT_TYPE_MAX) {
			snprintf(err, errlen, "'%s': bad GPU type", item);
			return -1;
		}
		typed_sum += cnt;
		out->ntypes++;
		if (cnt > out->type_count || out->ntypes == 1) {
			memcpy(out->type, item + 9, tlen);
			out->type[tlen] = '\0';
			out->type_count = cnt;
		}
	}
	out->total = untyped >= 0 ? untyped : (out->ntypes ? typed_sum : -1);
	return 0;
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
	free(job->job_id);
	free(job->user);
	free(job->account);
	free(job->partition);
	free(job->comment);
	free(job->state);
	memset(job, 0, sizeof(*job));
}

#define FIELD(c) (h->index[c] >= 0 ? f[h->index[c]] : "")

sacct_line_t sacct_parse_line(const sacct_header_t *h, char *line, sacct_job_t *job,
			      char *err, size_t errlen)
{
	char *f[SACCT_MAX_COLS + 1];
	char comment_buf[8192];
	int n, ci = h->index[SACCT_COL_COMMENT];
	sacct_gpus_t req, alloc;
	time_t submit, start, end;
	int rs, rst, ren;
	char terr[SACCT_ERR_MAX];
	const char *jid, *state;

	memset(job, 0, sizeof(*job));
	chomp(line);
	n = split_bars(line, f, SACCT_MAX_COLS + 1);
	if (n > SACCT_MAX_COLS + 1)
		n = SACCT_MAX_COLS + 1;
	if (n == h->ncols + 1 && f[n - 1][0] == '\0')
		n--;                    /* `sacct -p`: trailing '|' */
	if (n > h->ncols && ci >= 0 && n <= SACCT_MAX_COLS) {
		/* A '|' inside the comment: glue the extra fields back into it. */
		int extra = n - h->ncols, k;
		size_t used = 0;

		comment_buf[0] = '\0';
		for (k = ci; k <= ci + extra; k++) {
			used += (size_t)snprintf(comment_buf + used,
						 used < sizeof(comment_buf) ? sizeof(comment_buf) - used : 0,
						 "%s%s", k > ci ? "|" : "", f[k]);
			if (used >= sizeof(comment_buf))
				used = sizeof(comment_buf) - 1;
		}
		f[ci] = comment_buf;
		for (k = ci + 1; k + extra < n; k++)
			f[k] = f[k + extra];
		n = h->ncols;
	}
	if (n != h->ncols) {
		snprintf(err, errlen, "%d fields, the header has %d", n, h->ncols);
		return SACCT_LINE_ERROR;
	}
	jid = FIELD(SACCT_COL_JOBID);
	if (!*jid) {
		snprintf(err, errlen, "field %s: empty", col_names[SACCT_COL_JOBID]);
		return SACCT_LINE_ERROR;
	}
	if (strchr(jid, '.'))
		return SACCT_LINE_STEP;

#define TIME_FIELD(col, var, rc)                                                    \
	do {                                                                        \
		rc = sacct_parse_time(FIELD(col), &var);                            \
		if (rc < 0) {                                                       \
			snprintf(err, errlen, "field %s: '%.40s' is not a time "     \
				 "YYYY-MM-DDTHH:MM:SS, Unknown or None",            \
				 col_names[col], FIELD(col));                       \
			return SACCT_LINE_ERROR;                                    \
		}                                                                   \
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
			snprintf(err, errlen, "field %s: '%.40s' is not [D-]HH:MM:SS, "
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
	state = FIELD(SACCT_COL_STATE);
	if (req.total <= 0 && alloc.total <= 0)
		return SACCT_LINE_NO_GPU;
	/* Never ran: no start, pending, or nothing allocated (cancelled while
	 * pending: Slurm sets Start = End there but allocates nothing). */
	if (rst != 0 || !strncmp(state, "PENDING", 7) || alloc.total <= 0)
		return SACCT_LINE_UNSTARTED;
	if (ren != 0 || !strncmp(state, "RUNNING", 7))
		return SACCT_LINE_RUNNING;
	if (end < start) {
		snprintf(err, errlen, "field %s: ends before it starts", col_names[SACCT_COL_END]);
		return SACCT_LINE_ERROR;
	}

	job->gpus = req.total > 0 ? req.total : alloc.total;
	snprintf(job->req_type, sizeof(job->req_type), "%s", req.type);
	snprintf(job->alloc_type, sizeof(job->alloc_type), "%s", alloc.type);
	job->multi_type = req.ntypes > 1;
	job->submit = submit;
	job->run_time = (int64_t)(end - start);
	job->job_id = dup_or_empty(jid);
	job->user = dup_or_empty(FIELD(SACCT_COL_USER));
	job->account = dup_or_empty(FIELD(SACCT_COL_ACCOUNT));
	job->partition = dup_or_empty(FIELD(SACCT_COL_PARTITION));
	job->comment = dup_or_empty(FIELD(SACCT_COL_COMMENT));
	job->state = dup_or_empty(state);
	char *sp = strchr(job->state, ' ');     /* "CANCELLED by 1000" */
	if (sp)
		*sp = '\0';
	return SACCT_LINE_JOB;
}

void sacct_write_header(FILE *out)
{
	fputs("job_id,submit,user,account,partition,gpu_type,gpus,nodes,run_time,"
	      "time_limit,comment,state,alloc_gpu_type\n", out);
}

void sacct_write_job(FILE *out, const sacct_job_t *job, time_t t0)
{
	csv_write_field(out, job->job_id);
	fprintf(out, ",%lld,", (long long)(job->submit - t0));
	csv_write_field(out, job->user);
	fputc(',', out);
	csv_write_field(out, job->account);
	fputc(',', out);
	csv_write_field(out, job->partition);
	fputc(',', out);
	csv_write_field(out, job->req_type);
	fprintf(out, ",%lld,", (long long)job->gpus);
	if (job->nodes > 0)
		fprintf(out, "%lld", (long long)job->nodes);
	fprintf(out, ",%lld,", (long long)job->run_time);
	if (job->time_limit >= 0)
		fprintf(out, "%lld", (long long)job->time_limit);
	fputc(',', out);
	csv_write_field(out, job->comment);
	fputc(',', out);
	csv_write_field(out, job->state);
	fputc(',', out);
	csv_write_field(out, job->alloc_type);
	fputc('\n', out);
}
