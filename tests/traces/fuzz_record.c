/*
 * fuzz_record.c: libFuzzer target for the AdminComment record as an
 * interface: the policy library writes it (decide_admin_comment in
 * policy/policy_decide.c) from fuzzed user input, nodeox-sacct-import's
 * reader (policy/policy_record.c) must read it back. Input lines: 1st =
 * tres_per_node, 2nd = tres_per_job, 3rd = the user's constraint, rest = the
 * comment. Checks, for every broadened job: the record is one line of
 * printable ASCII without '|', ';', quotes, backslash or doubled blanks
 * (sacct -P and log lines stay intact), shorter than admin_comment, and
 * reads back, also after an admin's own text, with the type asked for and
 * the unscaled time limit. Built by `make fuzz-sacct`; `make check` replays
 * tests/traces/fuzz_corpus_record through it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "policy/policy.h"

static const char *fuzz_record_conf = "GpuType=a100 Memory=80G Speed=1\n"
				      "GpuType=h100 Memory=80G Speed=2\n"
				      "GpuType=l40s Feature=gpu_l40s Memory=48G Speed=0.5\n"
				      "Group=g Types=a100,h100,l40s\n"
				      "PreferRequested=yes\n";

static char *next_line(char *s)
{
	char *nl = s ? strchr(s, '\n') : NULL;

	if (nl)
		*nl++ = '\0';
	return nl;
}

static void check_record(const nodeox_conf_t *conf, const nodeox_job_t *job, const nodeox_decision_t *d)
{
	static char with_admin[2 * NODEOX_STR_MAX];
	const char *p, *rec_text = d->admin_comment;
	nodeox_record_t rec;
	char err[256];

	if (strnlen(rec_text, NODEOX_STR_MAX) >= NODEOX_STR_MAX)
		abort();
	for (p = rec_text; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f || strchr("|;\"'\\`", *p) ||
		    (*p == ' ' && (p[1] == ' ' || !p[1])))
			abort();
	snprintf(with_admin, sizeof(with_admin), "ops | moved; %s", rec_text);
	for (int i = 0; i < 2; i++) {
		if (nodeox_record_parse(i ? with_admin : rec_text, &rec, err, sizeof(err)) != 1)
			abort();
		if (strcasecmp(rec.type, conf->types[d->requested_type].name))
			abort();
		if (d->time_limit_set && rec.time_limit_min != (int64_t)job->time_limit)
			abort();
		if (!d->time_limit_set && rec.time_limit_min != -1)
			abort();
		if (strncmp(rec.tag, "nodeox:flex", 11))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static nodeox_conf_t *conf;
	static nodeox_decision_t d;
	char *buf, *job_line, *feat_line, *comment, err[NODEOX_ERR_MAX];
	nodeox_job_t job = { .time_limit = 60, .partition = "gpu" };

	if (!conf && nodeox_conf_parse_string(fuzz_record_conf, "fuzz", &conf, err, sizeof(err)))
		abort();
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	job_line = next_line(buf);
	feat_line = next_line(job_line);
	comment = next_line(feat_line);
	job.tres_per_node = buf;
	job.tres_per_job = job_line;
	job.features = feat_line;
	job.comment = comment ? comment : "nodeox:flex";
	nodeox_policy_decide(conf, &job, NULL, &d);
	if (d.action == NODEOX_REWRITE && !d.dryrun)
		check_record(conf, &job, &d);
	free(buf);
	return 0;
}
