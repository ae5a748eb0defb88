/*
 * hostlist.h: Slurm hostlists ("gpu[01-16,20],login1", "r[1-2]n[1-4]"), one
 * expander for slurm.conf's NodeName= and Nodes= and gres.conf's File=
 * (sim/model/cluster.c); tools/slurmconf.py keeps the same rules for the Python
 * tools. No glib, nothing allocated.
 */
#ifndef NODEOX_HOSTLIST_H
#define NODEOX_HOSTLIST_H

/* Expand a Slurm hostlist ("a[01-03,7],b1") calling fn (if not NULL) for
 * each name. Returns the number of names, or -1 on a syntax error. */
int hostlist_expand(const char *list, void (*fn)(const char *name, void *arg), void *arg);

#endif
