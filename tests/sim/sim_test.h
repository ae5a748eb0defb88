/*
 * sim_test.h: what the simulator's unit tests share: a cluster read from
 * slurm.conf text, the test failing with the reader's message if it cannot
 * be. Include after <cmocka.h>.
 */
#ifndef NODEOX_TESTS_SIM_TEST_H
#define NODEOX_TESTS_SIM_TEST_H

#include "sim/model/cluster.h"

/* The cluster of slurm.conf text conf (no gres.conf), called name in the
 * reader's messages. */
static inline sim_cluster_t *cluster_from_text(const char *conf, const char *name)
{
	sim_cluster_t *c = NULL;
	char err[512];

	if (cluster_read_strings(conf, NULL, name, SIM_SLURM_2205, &c, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	return c;
}

#endif /* NODEOX_TESTS_SIM_TEST_H */
