/*
 * fuzz_conf.c: libFuzzer target for the nodeox.conf parser. A conf that
 * parses is used for one decision, so whatever the parser accepts must be
 * safe for the decision code too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "tests/fuzz/fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[NODEOX_ERR_MAX];
	nodeox_conf_t *conf = NULL;
	nodeox_decision_t d;
	nodeox_job_t job = { .comment = "nodeox:flex:mem=8G",
			     .tres_per_node = "gres:gpu:a100:2",
			     .features = "ib",
			     .time_limit = 100,
			     .partition = "gpu" };
	int i;

	memcpy(text, data, size);
	text[size] = '\0';
	if (nodeox_conf_parse_string(text, "fuzz.conf", &conf, err, sizeof(err)) == 0) {
		if (!conf || conf->ntypes > NODEOX_MAX_TYPES || conf->ngroups > NODEOX_MAX_GROUPS)
			abort();
		for (i = 0; i < conf->ngroups; i++)
			if (conf->groups[i].ntypes < 2)
				abort();
		for (i = 0; i < conf->ntypes; i++)
			if (!(conf->types[i].speed > 0))
				abort();
		nodeox_policy_decide(conf, &job, NULL, &d);
		fuzz_check_decision(&d);
		nodeox_conf_free(conf);
	} else {
		if (conf || strncmp(err, "fuzz.conf:", 10))
			abort();
		fuzz_check_line(err, sizeof(err));
	}
	free(text);
	return 0;
}
