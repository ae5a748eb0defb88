/*
 * fuzz_why.c: libFuzzer target for the strings `nodeox why` reads from
 * slurmctld and takes apart (cli/why_pending.c, cli/why_gres.c): the input's
 * lines are the job's reason, dependency, licenses, TresPerNode, constraint
 * and partition, then the node's Gres and GresUsed; the whole explanation is
 * built and printed as JSON and text to /dev/null.
 * Built and run by `make fuzz-why` (part of `make fuzz`).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/why.h"

#define FIELDS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *f[FIELDS] = { 0 }, *p;
	static const why_part_t part = {
		.name = "gpu", .state_name = "UP", .up = true, .max_time = 30, .max_nodes = 2
	};
	why_qjob_t q = { .job_id = 7,
			 .phase = WHY_PHASE_ACTIVE,
			 .state_name = "RUNNING",
			 .partition = "gpu",
			 .nodes = "a1",
			 .licenses = "matlab:2",
			 .name = "x" };
	why_license_t lic = { .name = "matlab", .total = 2, .in_use = 2 };
	why_resv_t resv = { .name = "r", .nodes = "a1", .start_time = 2000, .end_time = 3000 };
	why_node_t node = { .name = "a1",
			    .partitions = "gpu",
			    .features = "a100",
			    .state_name = "IDLE",
			    .cpus = 8,
			    .mem_mb = 16000 };
	why_job_t job = { .job_id = 42,
			  .pending = true,
			  .state_name = "PENDING",
			  .name = "x",
			  .time_limit = 20,
			  .num_nodes = 1,
			  .num_tasks = 1,
			  .cpus_per_task = 1,
			  .reservation = "r",
			  .priority = 1 };
	why_cluster_t cl = { .nodes = &node,
			     .nnodes = 1,
			     .parts = &part,
			     .nparts = 1,
			     .jobs = &q,
			     .njobs = 1,
			     .resvs = &resv,
			     .nresvs = 1,
			     .lics = &lic,
			     .nlics = 1,
			     .now = 1000 };
	why_result_t res;
	char err[256];
	FILE *out;
	int n = 0;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (p = buf; p && n < FIELDS; n++) {
		f[n] = p;
		p = strchr(p, '\n');
		if (p)
			*p++ = '\0';
	}
	job.reason = f[0];
	job.dependency = f[1];
	job.licenses = f[2];
	job.tres_per_node = f[3];
	job.features = f[4];
	job.partition = f[5] ? f[5] : "gpu";
	node.ngpus = why_gres_parse_node(f[6], f[7], node.gpus, WHY_MAX_NODE_GPUS);
	if (node.ngpus < 0)
		node.ngpus = 0;
	if (why_analyze(&job, &node, 1, NULL, NULL, &res, err, sizeof(err)) == 0) {
		why_pending_explain(&cl, &res);
		out = fopen("/dev/null", "w");
		if (out) {
			why_print_json(out, &res);
			why_print_text(out, &res);
			fclose(out);
		}
		why_result_free(&res);
	}
	free(buf);
	return 0;
}
