/*
 * fuzz_speeds.c: libFuzzer target for the speed table parser
 * (policy/policy_speeds.c). A table that parses is looked up for every
 * entry it holds (each must be found, as itself), written back by the
 * writer (which must take what the reader took) and used for one decision;
 * a refused one must leave no table and a one-line "fuzz.speeds:LINE:"
 * message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "tests/fuzz/fuzz_check.h"

static const char fuzz_conf[] = "GpuType=a100 Speed=1\nGpuType=l40s Speed=0.5\nGpuType=v100 Speed=0.8\n"
				"Group=g Types=a100,l40s,v100\nMinSpeed=0.3\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[NODEOX_ERR_MAX], line[512];
	const nodeox_speed_t *e;
	nodeox_speeds_t *t = NULL;
	nodeox_conf_t *conf = NULL;
	nodeox_decision_t d;
	nodeox_job_t job = { .comment = "nodeox:flex:workload=w",
			     .tres_per_node = "gres:gpu:a100:2",
			     .user = "u",
			     .account = "a",
			     .time_limit = 100 };

	memcpy(text, data, size);
	text[size] = '\0';
	if (nodeox_speeds_parse_string(text, "fuzz.speeds", &t, err, sizeof(err)) == 0) {
		if (!t || nodeox_speeds_count(t) > NODEOX_SPEEDS_MAX)
			abort();
		fuzz_check_line(nodeox_speeds_made(t), 256);
		fuzz_check_line(nodeox_speeds_from(t), 256);
		/* what the reader took, the writer writes */
		if (nodeox_speeds_format_header(nodeox_speeds_made(t), nodeox_speeds_from(t), line,
						sizeof(line)) < 0)
			abort();
		for (size_t i = 0; (e = nodeox_speeds_entry(t, i)); i++)
			if (nodeox_speeds_format_entry(e, line, sizeof(line)) < 0 ||
			    nodeox_speeds_find(t, e->scope, e->name, e->asked, e->run) != e)
				abort();
		if (nodeox_conf_parse_string(fuzz_conf, "fuzz.conf", &conf, err, sizeof(err)))
			abort();
		conf->speeds = t;
		nodeox_policy_decide(conf, &job, NULL, &d);
		fuzz_check_decision(&d);
		if (d.action == NODEOX_REWRITE && d.time_limit_set && d.time_limit < 100)
			abort();
		nodeox_conf_free(conf);
		nodeox_speeds_free(t);
	} else {
		if (t || strncmp(err, "fuzz.speeds:", 12))
			abort();
		fuzz_check_line(err, sizeof(err));
	}
	free(text);
	return 0;
}
