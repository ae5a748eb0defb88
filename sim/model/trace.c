/*
 * trace.c: read a job trace from CSV (the first stage of nodeox-sim).
 *
 * The header names the columns; they may come in any order and unknown ones
 * are ignored, so an admin's own export works after renaming a few columns.
 * Fields follow RFC 4180 (quotes, doubled quotes, commas and newlines inside
 * quotes). The file is read whole and split in place: one pass, no copies
 * beyond the interned strings. Every error names FILE:LINE and the column.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/util.h"
#include "common/slurm_time.h"
#include "sim/model/trace.h"

enum {
	COL_SUBMIT,
	COL_GPUS,
	COL_RUN_TIME,
	COL_JOB_ID,
	COL_USER,
	COL_ACCOUNT,
	COL_PARTITION,
	COL_GPU_TYPE,
	COL_NODES,
	COL_TIME_LIMIT,
	COL_COMMENT,
	COL_FLEX,
	COL_CLASS,
	COL_CPUS,
	COL_MEM,
	COL_CONSTRAINT,
	COL_ROUNDS,
	COL_CPUS_PER_GPU,
	COL_MEM_PER_GPU,
	COL_QOS,
	COL_N
};
static const char *const trace_col_names[COL_N] = {
	"submit",   "gpus",       "run_time",   "job_id",       "user",        "account", "partition",
	"gpu_type", "nodes",      "time_limit", "comment",      "flex",        "class",   "cpus",
	"mem",      "constraint", "rounds",     "cpus_per_gpu", "mem_per_gpu", "qos",
};
#define TRACE_MAX_FIELDS 256

typedef struct {
	const char *path;
	char *err;
	size_t errlen;
	int line;          /* line where the current record starts */
	int col_of[COL_N]; /* field index of each known column, -1 absent */
	char *fields[TRACE_MAX_FIELDS];
	int nfields;
	int submit_iso; /* -1 unknown, 0 seconds, 1 ISO-8601 */
} trace_reader_t;

/* "PATH:LINE: [column NAME: ]message" into r->err (common/util.h); -1.
 * col is a COL_ index, or -1 for a fault of the record as a whole. */
#define trace_fail(r, col, ...)                                       \
	nodeox_util_fail((r)->err, (r)->errlen, (r)->path, (r)->line, \
			 (col) >= 0 ? trace_col_names[col] : NULL, __VA_ARGS__)

/* Split one record starting at *pos into r->fields, unquoting in place.
 * Returns 1 for a record, 0 at end of input, -1 on a quoting error. */
static int trace_next_record(trace_reader_t *r, char **pos, char *end, int *line)
{
	char *p = *pos;
	if (p >= end)
		return 0;
	r->line = *line;
	r->nfields = 0;
	for (;;) {
		char *out = p, *start = p;
		if (p < end && *p == '"') {
			p++;
			for (;;) {
				if (p >= end)
					return trace_fail(r, -1, "unterminated quoted field");
				if (*p == '"') {
					if (p + 1 < end && p[1] == '"') {
						*out++ = '"';
						p += 2;
						continue;
					}
					p++;
					break;
				}
				if (*p == '\n')
					(*line)++;
				*out++ = *p++;
			}
			if (p < end && *p != ',' && *p != '\n' && *p != '\r')
				return trace_fail(r, -1, "text after a closing quote in field %d",
						  r->nfields + 1);
		} else {
			while (p < end && *p != ',' && *p != '\n')
				p++;
			out = p;
			if (out > start && out[-1] == '\r')
				out--;
		}
		char sep = p < end ? *p : '\n';
		if (sep == '\r')
			sep = (p + 1 < end) ? p[1] : '\n', p++;
		*out = '\0';
		if (r->nfields == TRACE_MAX_FIELDS)
			return trace_fail(r, -1, "more than %d fields", TRACE_MAX_FIELDS);
		r->fields[r->nfields++] = start;
		p++;
		if (sep != ',') {
			(*line)++;
			break;
		}
	}
	*pos = p;
	return 1;
}

static const char *trace_field(const trace_reader_t *r, int col)
{
	int i = r->col_of[col];
	if (i < 0 || i >= r->nfields)
		return NULL;
	const char *s = r->fields[i];
	while (*s == ' ' || *s == '\t')
		s++;
	return *s ? s : NULL;
}

static char *trace_trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

/* Non-negative integer up to max, allowing surrounding blanks. */
static int trace_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	while (*end == ' ' || *end == '\t')
		end++;
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

static int64_t trace_days_from_civil(int64_t y, unsigned m, unsigned d)
{
	/* Howard Hinnant's algorithm: days since 1970-01-01, proleptic Gregorian. */
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

int trace_parse_iso8601(const char *s, int64_t *out)
{
	int y, mo, d, h, mi, sec, n = 0;
	if (!s || sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10)
		return -1;
	s += n;
	if (*s != 'T' && *s != ' ')
		return -1;
	s++;
	n = 0;
	if (sscanf(s, "%2d:%2d:%2d%n", &h, &mi, &sec, &n) != 3 || n != 8)
		return -1;
	s += n;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 || h < 0 || mi < 0 ||
	    sec < 0)
		return -1;
	if (*s == '.' || *s == ',') {
		s++;
		if (!isdigit((unsigned char)*s))
			return -1;
		while (isdigit((unsigned char)*s))
			s++;
	}
	int64_t off = 0;
	if (*s == 'Z') {
		s++;
	} else if (*s == '+' || *s == '-') {
		int oh, om = 0, sign = *s == '-' ? -1 : 1;
		s++;
		n = 0;
		if (sscanf(s, "%2d:%2d%n", &oh, &om, &n) == 2 && n == 5)
			s += 5;
		else if (sscanf(s, "%2d%2d%n", &oh, &om, &n) == 2 && n == 4)
			s += 4;
		else if (sscanf(s, "%2d%n", &oh, &n) == 1 && n == 2)
			s += 2;
		else
			return -1;
		if (oh > 23 || om > 59)
			return -1;
		off = sign * (oh * 3600 + om * 60);
	}
	while (*s == ' ')
		s++;
	if (*s)
		return -1;
	*out = trace_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - off;
	return 0;
}

/* Slurm's time strings (common/slurm_time.h); a bare number is `bare_unit`
 * seconds. */
static int trace_parse_slurm_time(const char *s, int64_t bare_unit, int64_t *out)
{
	char buf[64];
	int64_t t;
	if (!s)
		return -1;
	while (*s == ' ')
		s++;
	size_t n = strlen(s);
	while (n > 0 && s[n - 1] == ' ')
		n--;
	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (slurm_time_parse(buf, bare_unit, &t) < 0)
		return -1;
	*out = t == SLURM_TIME_NONE ? SIM_TIME_NONE : t;
	return 0;
}

int trace_parse_duration(const char *s, int64_t *out)
{
	return trace_parse_slurm_time(s, 1, out);
}

int trace_parse_slurm_minutes(const char *s, int64_t *seconds)
{
	if (trace_parse_slurm_time(s, 60, seconds) < 0)
		return -1;
	/* slurmctld keeps these in whole minutes, rounded up (time_str2mins,
	 * common/parse_time.c): MaxTime=0:01:30 is 2 minutes */
	if (*seconds != SIM_TIME_NONE)
		*seconds = (*seconds + 59) / 60 * 60;
	return 0;
}

/* The tag: with a conf, the plugin's own parser; without one, its prefix. */
static int trace_read_tag(trace_reader_t *r, const sim_trace_opts_t *o, const char *comment, bool *tagged)
{
	if (!comment)
		return 0;
	if (!o->conf) {
		*tagged = *tagged || strstr(comment, "nodeox:flex") != NULL;
		return 0;
	}
	nodeox_tag_t tag;
	char why[NODEOX_ERR_MAX];
	if (nodeox_tag_parse(comment, o->conf, &tag, why, sizeof(why)) < 0)
		return trace_fail(r, COL_COMMENT, "%s", why);
	*tagged = *tagged || tag.present;
	return 0;
}

static const char *trace_intern(sim_trace_t *t, const char *s)
{
	return s ? g_string_chunk_insert_const(t->strings, s) : NULL;
}

/* Fill job from the current record. Returns 0 or -1 (error in r->err). */
static int trace_parse_row(trace_reader_t *r, const sim_trace_opts_t *o, sim_trace_t *t, sim_job_t *job,
			   size_t rowno)
{
	const char *s;
	uint64_t v;
	memset(job, 0, sizeof(*job));
	job->line = r->line;
	job->time_limit = SIM_TIME_NONE;

	s = trace_field(r, COL_SUBMIT);
	if (!s)
		return trace_fail(r, COL_SUBMIT, "missing value");
	if (isdigit((unsigned char)s[0]) && strlen(s) > 10 && s[4] == '-') {
		int64_t epoch;
		if (trace_parse_iso8601(s, &epoch) < 0)
			return trace_fail(r, COL_SUBMIT,
					  "'%s' is not an ISO-8601 time "
					  "(YYYY-MM-DDTHH:MM:SS[Z|+HH:MM])",
					  s);
		if (r->submit_iso == 0)
			return trace_fail(r, COL_SUBMIT, "ISO-8601 time after rows in seconds");
		r->submit_iso = 1;
		job->submit = epoch;
	} else {
		char *end;
		errno = 0;
		double d = strtod(s, &end);
		while (*end == ' ')
			end++;
		if (errno || *end || d < 0 || d > 1e12 || !isdigit((unsigned char)s[0]))
			return trace_fail(r, COL_SUBMIT,
					  "'%s' is neither seconds nor an "
					  "ISO-8601 time",
					  s);
		if (r->submit_iso == 1)
			return trace_fail(r, COL_SUBMIT, "seconds after rows in ISO-8601");
		r->submit_iso = 0;
		job->submit = (int64_t)d;
	}

	if (trace_parse_uint(trace_field(r, COL_GPUS), 1u << 20, &v) < 0)
		return trace_fail(r, COL_GPUS, "'%s' is not a GPU count",
				  trace_field(r, COL_GPUS) ? trace_field(r, COL_GPUS) : "");
	job->gpus = (uint32_t)v;

	s = trace_field(r, COL_RUN_TIME);
	if (trace_parse_duration(s, &job->run_time) < 0 || !s || job->run_time == SIM_TIME_NONE)
		return trace_fail(r, COL_RUN_TIME,
				  "'%s' is not a duration (seconds or "
				  "[D-]HH:MM:SS)",
				  s ? s : "");

	if ((s = trace_field(r, COL_JOB_ID))) {
		if (trace_parse_uint(s, UINT32_MAX, &v) < 0)
			return trace_fail(r, COL_JOB_ID, "'%s' is not a job id", s);
		job->id = (uint32_t)v;
	} else {
		job->id = (uint32_t)rowno;
	}
	if ((s = trace_field(r, COL_NODES))) {
		if (trace_parse_uint(s, 1u << 20, &v) < 0)
			return trace_fail(r, COL_NODES, "'%s' is not a node count", s);
		job->nodes = (uint32_t)v;
		if (job->nodes > 0 && job->gpus % job->nodes)
			return trace_fail(r, COL_NODES, "%u GPUs do not divide over %u nodes", job->gpus,
					  job->nodes);
	}
	if ((s = trace_field(r, COL_CPUS))) {
		if (trace_parse_uint(s, 1u << 24, &v) < 0)
			return trace_fail(r, COL_CPUS, "'%s' is not a CPU count", s);
		job->cpus = (uint32_t)v;
	}
	if ((s = trace_field(r, COL_CPUS_PER_GPU))) {
		if (trace_parse_uint(s, 1u << 16, &v) < 0 || v == 0)
			return trace_fail(r, COL_CPUS_PER_GPU, "'%s' is not a CPU count of at least 1", s);
		job->cpus_per_gpu = (uint32_t)v;
	}
	if ((s = trace_field(r, COL_MEM))) {
		if (nodeox_util_parse_size_mb(s, &job->mem_mb) < 0)
			return trace_fail(r, COL_MEM, "'%s' is not a size (e.g. 64G, 4096M)", s);
	}
	if ((s = trace_field(r, COL_MEM_PER_GPU))) {
		if (nodeox_util_parse_size_mb(s, &job->mem_per_gpu_mb) < 0 || job->mem_per_gpu_mb == 0)
			return trace_fail(r, COL_MEM_PER_GPU,
					  "'%s' is not a size of at least 1M "
					  "(e.g. 40G, 4096M)",
					  s);
	}
	/* sbatch refuses --mem with --mem-per-gpu ("mutually exclusive") */
	if (job->mem_mb && job->mem_per_gpu_mb)
		return trace_fail(r, COL_MEM_PER_GPU,
				  "given with mem: sbatch takes one of --mem "
				  "and --mem-per-gpu");
	if ((job->cpus_per_gpu || job->mem_per_gpu_mb) && job->gpus == 0)
		return trace_fail(r, job->cpus_per_gpu ? COL_CPUS_PER_GPU : COL_MEM_PER_GPU,
				  "given for a job with 0 GPUs");
	if (job->gpus && !job->cpus && !job->cpus_per_gpu)
		job->cpus_per_gpu = o->cpus_per_gpu;
	if (job->gpus && !job->mem_mb && !job->mem_per_gpu_mb)
		job->mem_per_gpu_mb = o->mem_per_gpu_mb;
	if ((s = trace_field(r, COL_TIME_LIMIT))) {
		if (trace_parse_duration(s, &job->time_limit) < 0)
			return trace_fail(r, COL_TIME_LIMIT,
					  "'%s' is not seconds or "
					  "[D-]HH:MM:SS",
					  s);
		if (job->time_limit == 0)
			return trace_fail(r, COL_TIME_LIMIT, "time limit of 0");
	}
	if ((s = trace_field(r, COL_FLEX))) {
		if (strcmp(s, "0") && strcmp(s, "1"))
			return trace_fail(r, COL_FLEX, "'%s' is not 0 or 1", s);
		job->tagged = s[0] == '1';
	}
	if ((s = trace_field(r, COL_ROUNDS))) {
		if (strcmp(s, "0") && strcmp(s, "1"))
			return trace_fail(r, COL_ROUNDS, "'%s' is not 0 or 1", s);
		job->rounds = s[0] == '1';
	}
	s = trace_field(r, COL_COMMENT);
	if (trace_read_tag(r, o, s, &job->tagged) < 0)
		return -1;
	job->comment = trace_intern(t, s);
	job->user = trace_intern(t, trace_field(r, COL_USER));
	job->account = trace_intern(t, trace_field(r, COL_ACCOUNT));
	job->qos = trace_intern(t, trace_field(r, COL_QOS));
	job->partition = trace_intern(t, trace_field(r, COL_PARTITION));
	job->gpu_type = trace_intern(t, trace_field(r, COL_GPU_TYPE));
	job->features = trace_intern(t, trace_field(r, COL_CONSTRAINT));
	job->class_name = trace_intern(t, trace_field(r, COL_CLASS));
	if (job->gpu_type && job->gpus == 0)
		return trace_fail(r, COL_GPU_TYPE, "type '%s' given for a job with 0 GPUs", job->gpu_type);
	return 0;
}

static int trace_cmp_submit(const void *a, const void *b)
{
	const sim_job_t *x = a, *y = b;
	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

static int trace_read_header(trace_reader_t *r, char **pos, char *end, int *line)
{
	int rc = trace_next_record(r, pos, end, line);
	if (rc <= 0)
		return rc < 0 ? -1 : trace_fail(r, -1, "empty file (a header line is needed)");
	for (int c = 0; c < COL_N; c++)
		r->col_of[c] = -1;
	for (int i = 0; i < r->nfields; i++) {
		char *name = trace_trim(r->fields[i]);
		if (i == 0 && (unsigned char)name[0] == 0xef && (unsigned char)name[1] == 0xbb)
			name += 3; /* UTF-8 byte order mark */
		const char *canon = !g_ascii_strcasecmp(name, "features") ? "constraint" : name;
		for (int c = 0; c < COL_N; c++) {
			if (g_ascii_strcasecmp(canon, trace_col_names[c]))
				continue;
			if (r->col_of[c] >= 0)
				return trace_fail(r, c, "appears twice in the header");
			r->col_of[c] = i;
		}
	}
	static const int required[] = { COL_SUBMIT, COL_GPUS, COL_RUN_TIME };
	for (size_t k = 0; k < G_N_ELEMENTS(required); k++)
		if (r->col_of[required[k]] < 0)
			return trace_fail(r, required[k],
					  "missing from the header (required: "
					  "submit, gpus, run_time)");
	return 0;
}

int trace_read(const char *path, const sim_trace_opts_t *opts, sim_trace_t **out, char *err, size_t errlen)
{
	static const sim_trace_opts_t no_opts;
	const sim_trace_opts_t *o = opts ? opts : &no_opts;
	char *buf = NULL;
	gsize len = 0;
	GError *gerr = NULL;
	*out = NULL;
	if (!g_file_get_contents(path, &buf, &len, &gerr)) {
		snprintf(err, errlen, "%s: %s", path, gerr->message);
		g_error_free(gerr);
		return -1;
	}
	trace_reader_t r = { .path = path, .err = err, .errlen = errlen, .submit_iso = -1 };
	char *pos = buf, *end = buf + len;
	int line = 1;
	sim_trace_t *t = g_new0(sim_trace_t, 1);
	t->path = g_strdup(path);
	t->strings = g_string_chunk_new(1 << 16);
	size_t cap = 1024;
	t->jobs = g_new(sim_job_t, cap);
	if (trace_read_header(&r, &pos, end, &line) < 0)
		goto fail;
	for (size_t rowno = 1;; rowno++) {
		int rc = trace_next_record(&r, &pos, end, &line);
		if (rc == 0)
			break;
		if (rc < 0)
			goto fail; /* a broken quote desynchronises the rest */
		if (r.nfields == 1 && r.fields[0][0] == '\0')
			continue; /* blank line */
		if (t->njobs == cap) {
			cap *= 2;
			t->jobs = g_renew(sim_job_t, t->jobs, cap);
		}
		if (trace_parse_row(&r, o, t, &t->jobs[t->njobs], rowno) < 0) {
			if (!o->skip_bad)
				goto fail;
			if (o->warn && t->skipped < 10)
				fprintf(o->warn, "nodeox-sim: skipped: %s\n", err);
			t->skipped++;
			continue;
		}
		t->njobs++;
	}
	if (r.submit_iso == 1 && t->njobs > 0) {
		int64_t first = INT64_MAX;
		for (size_t i = 0; i < t->njobs; i++)
			if (t->jobs[i].submit < first)
				first = t->jobs[i].submit;
		for (size_t i = 0; i < t->njobs; i++)
			t->jobs[i].submit -= first;
		t->epoch = first;
	}
	qsort(t->jobs, t->njobs, sizeof(*t->jobs), trace_cmp_submit);
	if (o->warn && t->skipped > 10)
		fprintf(o->warn, "nodeox-sim: ... and %zu more bad rows skipped\n", t->skipped - 10);
	g_free(buf);
	*out = t;
	return 0;
fail:
	g_free(buf);
	trace_free(t);
	return -1;
}

void trace_free(sim_trace_t *t)
{
	if (!t)
		return;
	g_free(t->path);
	g_free(t->jobs);
	if (t->strings)
		g_string_chunk_free(t->strings);
	g_free(t);
}
