/*
 * why_gres.c: the strings `nodeox why` reads from Slurm.
 *
 * A node's GRES as slurmctld reports it ("gpu:a100:4(S:0-1)", in use
 * "gpu:a100:2(IDX:0,2)": commas may hide inside the parentheses), a job's
 * TRES request ("gres:gpu:a100:4" in 22.05, "gres/gpu:a100=4" from 23.11),
 * both read by the policy library's parser (policy/policy.h), and plain
 * comma lists (partitions, features, node names).
 */
#include <string.h>

#include "cli/why.h"
#include "common/util.h"
#include "policy/policy.h"

/* A node has at most WHY_MAX_NODE_GPUS types; GresUsed is read up to this. */
#define WHY_GRES_USED_MAX 32

int why_gres_parse_node(const char *gres, const char *used, why_gpu_t *gpus, int max)
{
	nodeox_tres_gpu_t e[WHY_MAX_NODE_GPUS], u[WHY_GRES_USED_MAX];
	int n, nu;

	if (max > WHY_MAX_NODE_GPUS)
		max = WHY_MAX_NODE_GPUS;
	n = nodeox_tres_scan_node(gres, e, max);
	if (n < 0 || n > max)
		return -1;
	for (int i = 0; i < n; i++) {
		if (e[i].problem != NODEOX_TRES_OK)
			return -1;
		memset(&gpus[i], 0, sizeof(gpus[i]));
		nodeox_tres_type_copy(gres, &e[i], gpus[i].type, sizeof(gpus[i].type));
		gpus[i].total = (uint32_t)e[i].count;
	}
	nu = nodeox_tres_scan_node(used, u, WHY_GRES_USED_MAX);
	if (nu > WHY_GRES_USED_MAX)
		nu = WHY_GRES_USED_MAX;
	for (int j = 0; j < nu; j++) {
		char type[WHY_NAME_MAX];

		/* "gpu:a100:0(IDX:N/A)" reads as 0; a junk count is ignored */
		if (u[j].problem != NODEOX_TRES_OK)
			continue;
		nodeox_tres_type_copy(used, &u[j], type, sizeof(type));
		for (int i = 0; i < n; i++) {
			if (strcmp(gpus[i].type, type) == 0) {
				gpus[i].used =
					u[j].count > gpus[i].total ? gpus[i].total : (uint32_t)u[j].count;
				break;
			}
		}
	}
	return n;
}

int why_gres_parse_job(const char *tres, char *type, size_t typelen, uint32_t *count, bool *more)
{
	nodeox_tres_gpu_t e[NODEOX_TRES_MAX_GPU];
	int n = nodeox_tres_scan(tres, e, NODEOX_TRES_MAX_GPU);

	*more = false;
	if (n < 0)
		return -1;
	for (int i = 0; i < n && i < NODEOX_TRES_MAX_GPU; i++)
		if (e[i].problem != NODEOX_TRES_OK)
			return -1;
	if (!n)
		return 0;
	nodeox_tres_type_copy(tres, &e[0], type, typelen);
	*count = (uint32_t)e[0].count;
	*more = n > 1;
	return 1;
}

bool why_list_has(const char *list, const char *name)
{
	return list && name && *name && nodeox_util_list_has(list, name, strlen(name));
}

void why_list_add(char *buf, size_t len, const char *name)
{
	size_t used = strlen(buf);
	size_t need = strlen(name) + (used ? 1 : 0);

	if (used >= 3 && strcmp(buf + used - 3, "...") == 0)
		return;
	if (used + need + 4 >= len) { /* keep room for ",..." */
		if (used + 4 < len)
			strcat(buf, used ? ",..." : "...");
		return;
	}
	if (used)
		strcat(buf, ",");
	strcat(buf, name);
}
