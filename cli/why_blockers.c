/*
 * why_blockers.c: the blocker list of a pending job (why_pending_t), the one
 * place that adds to it, rewinds it and names its kinds.
 *
 * The list holds WHY_MAX_BLOCKERS entries. A blocker added when it is full
 * is filled into a spill slot that is never shown and only counted
 * (more_blockers), so the first ones found stay as they were and the output
 * says "and N more" instead of silently replacing the last one. Both
 * why_pending.c and why_never.c add here; neither calls the other for it.
 */
#include <string.h>

#include "cli/why.h"

static const char *const _blk_names[WHY_BLK_COUNT] = {
	[WHY_BLK_HELD_USER] = "held_user",
	[WHY_BLK_HELD_ADMIN] = "held_admin",
	[WHY_BLK_DEPENDENCY] = "dependency",
	[WHY_BLK_BEGIN_TIME] = "begin_time",
	[WHY_BLK_JOBS_AHEAD] = "jobs_ahead",
	[WHY_BLK_BUSY] = "busy",
	[WHY_BLK_PART_TIME] = "partition_time_limit",
	[WHY_BLK_PART_NODES] = "partition_node_limit",
	[WHY_BLK_PART_CPUS] = "partition_cpus",
	[WHY_BLK_PART_MEMORY] = "partition_memory",
	[WHY_BLK_PART_GPUS] = "partition_gpus",
	[WHY_BLK_PART_FEATURE] = "partition_features",
	[WHY_BLK_PART_STATE] = "partition_state",
	[WHY_BLK_PART_UNKNOWN] = "partition_unknown",
	[WHY_BLK_QOS] = "qos_limit",
	[WHY_BLK_ASSOC] = "assoc_limit",
	[WHY_BLK_RESERVATION] = "reservation",
	[WHY_BLK_NODES_RESERVED] = "nodes_reserved",
	[WHY_BLK_LICENSES] = "licenses",
	[WHY_BLK_NODES_UNAVAILABLE] = "nodes_unavailable",
	[WHY_BLK_CPUS] = "cpus",
	[WHY_BLK_MEMORY] = "memory",
	[WHY_BLK_GPUS] = "gpus",
	[WHY_BLK_OTHER] = "other",
};

const char *why_blk_name(why_blk_kind_t kind)
{
	return kind < WHY_BLK_COUNT ? _blk_names[kind] : "other";
}

why_blocker_t *why_blockers_add(why_pending_t *p, why_blk_kind_t kind, bool never)
{
	why_blocker_t *b;

	if (p->nblockers < WHY_MAX_BLOCKERS) {
		b = &p->blockers[p->nblockers++];
	} else {
		b = &p->spill;
		p->more_blockers++;
	}
	memset(b, 0, sizeof(*b));
	b->kind = kind;
	b->never = never;
	return b;
}

size_t why_blockers_count(const why_pending_t *p)
{
	return p->nblockers + p->more_blockers;
}

void why_blockers_rewind(why_pending_t *p, size_t count)
{
	if (count <= p->nblockers) {
		p->nblockers = count;
		p->more_blockers = 0;
	} else if (count < why_blockers_count(p)) {
		p->more_blockers = count - p->nblockers;
	}
}
