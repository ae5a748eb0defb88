/*
 * fuzz_tag.c: libFuzzer target for the comment tag parser and, through it,
 * the whole decision path. Input lines: 1st = tres_per_node, 2nd = the
 * user's constraint, rest = the comment. Checks that every result string is
 * terminated inside its field and that reasons are one printable line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "tests/fuzz/fuzz_check.h"

static const char *fuzz_tag_conf = "GpuType=a100 Memory=80G Speed=1\n"
				   "GpuType=h100 Memory=80G Speed=2\n"
				   "GpuType=l40s Feature=gpu_l40s Memory=48G Speed=0.5\n"
				   "GpuType=v100 Memory=32G Speed=0.25\n"
				   "Group=g Types=a100,h100,l40s,v100\n"
				   "PreferRequested=yes\n";

static const nodeox_node_t fuzz_nodes[] = {
	{ "a1", "a100,ib", "gpu", "a100", 4, 2, true },
	{ "l1", "gpu_l40s", "gpu", "l40s", 4, 4, true },
	{ "v1", "v100", "old", "v100", 4, 4, true },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static nodeox_conf_t *conf;
	char *buf, *line2 = NULL, *rest = NULL, err[NODEOX_ERR_MAX];
	nodeox_cluster_t cl = { fuzz_nodes, 3 };
	nodeox_decision_t d;
	nodeox_tag_t tag;
	nodeox_job_t job = { .time_limit = 60, .partition = "gpu" };

	if (!conf && nodeox_conf_parse_string(fuzz_tag_conf, "fuzz", &conf, err, sizeof(err)))
		abort();
	buf = malloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = '\0';
	if ((line2 = strchr(buf, '\n'))) {
		*line2++ = '\0';
		if ((rest = strchr(line2, '\n')))
			*rest++ = '\0';
	}
	/* the raw input as a comment */
	if (nodeox_tag_parse(buf, conf, &tag, err, sizeof(err)) < 0)
		fuzz_check_line(err, sizeof(err));
	job.tres_per_node = buf;
	job.features = line2;
	job.comment = rest ? rest : buf;
	nodeox_policy_decide(conf, &job, size & 1 ? &cl : NULL, &d);
	fuzz_check_decision(&d);
	free(buf);
	return 0;
}
