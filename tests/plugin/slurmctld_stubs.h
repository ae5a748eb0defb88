/*
 * slurmctld_stubs.h: the few symbols job_submit_nodeox.c uses that live in
 * the slurmctld binary itself, not in libslurmfull, defined for a program
 * that compiles the plugin source in (tests/plugin/test_glue.c,
 * tests/plugin/bench_plugin.c). job_list and the node table are the
 * including program's to fill. Include once, after the plugin source.
 */
#ifndef NODEOX_SLURMCTLD_STUBS_H
#define NODEOX_SLURMCTLD_STUBS_H

char *default_part_name = "gpu";
void *acct_db_conn = NULL;
uint16_t accounting_enforce = 0;
part_record_t *default_part_loc = NULL;
__typeof__(job_list) job_list = NULL; /* Broaden=when-faster reads it */
time_t last_job_update = 0;           /* and this (last_node_update is libslurmfull's) */
time_t last_part_update = 0;          /* and the kept node snapshot this */
bool validate_operator(uid_t uid)
{
	return uid == 0;
}
bool validate_super_user(uid_t uid)
{
	return uid == 0;
}

#endif
