/*
 * tres_eval.c: what the policy library's TRES reader (policy/policy_tres.c)
 * makes of one string: "ok TYPE COUNT" per GPU entry ("-" for no type), or
 * "invalid: WHAT" for the first malformed one. For test_tres_slurm.sh, which
 * asks a real slurmctld the same question.
 *
 *   tres_eval TRES            a job TRES list ("gres:gpu:a100:2,gres:nic:1")
 *   tres_eval --node GRES     a node's Gres or GresUsed ("gpu:a100:2(S:0-1)")
 */
#include <stdio.h>
#include <string.h>

#include "policy/policy.h"

int main(int argc, char **argv)
{
	nodeox_tres_gpu_t e[NODEOX_TRES_MAX_GPU];
	bool node = argc == 3 && !strcmp(argv[1], "--node");
	const char *s = argv[argc - 1];
	int n;

	if (argc != 2 && !node) {
		fprintf(stderr, "usage: tres_eval [--node] STRING\n");
		return 2;
	}
	n = node ? nodeox_tres_scan_node(s, e, NODEOX_TRES_MAX_GPU)
		 : nodeox_tres_scan(s, e, NODEOX_TRES_MAX_GPU);
	if (n < 0 || n > NODEOX_TRES_MAX_GPU) {
		printf("invalid: too long or too many GPU entries\n");
		return 0;
	}
	for (int i = 0; i < n; i++)
		if (e[i].problem != NODEOX_TRES_OK) {
			printf("invalid: %s\n", nodeox_tres_problem_text(e[i].problem));
			return 0;
		}
	for (int i = 0; i < n; i++)
		printf("ok %.*s %llu\n", e[i].type_len ? (int)e[i].type_len : 1,
		       e[i].type_len ? s + e[i].type_off : "-", (unsigned long long)e[i].count);
	return 0;
}
