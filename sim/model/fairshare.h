/*
 * fairshare.h: Slurm 22.05's Fair Tree fair-share factor for a flat
 * association tree (accounts under root, users under the accounts): the
 * accounts and their shares (DIR/accounts.conf), the associations a trace's
 * jobs fall in, usage as priority/multifactor accumulates and decays it, and
 * each user association's factor from its rank (fair_tree.c). What a job's
 * usage is and when it is added is the scheduler's (sched_fair.c).
 */
#ifndef SIM_FAIRSHARE_H
#define SIM_FAIRSHARE_H

#include <stddef.h>
#include <stdint.h>

/* The accounts of accounts.conf, in file order. */
typedef struct {
	char **name;
	uint32_t *shares; /* Fairshare=, 1 where not given (sacctmgr's default) */
	int n;
} fs_accounts_t;

/* Parse accounts.conf's text: one "Account=NAME [Fairshare=N]" per line,
 * '#' comments. 0, or -1 with err naming file:line. */
int fs_accounts_parse(const char *text, const char *name, fs_accounts_t *out, char *err, size_t errlen);
void fs_accounts_free(fs_accounts_t *a);

typedef struct fs_tree fs_tree_t;

/* The associations slurmdbd would hold: root, root's own user association
 * (sacctmgr add cluster makes it), each account under root, and under each
 * account one user association per user that the trace's jobs name with it
 * (Fairshare=1). No account row: fs_tree_new makes the tree without jobs. */
fs_tree_t *fs_tree_new(const fs_accounts_t *a);
void fs_tree_free(fs_tree_t *t);
/* The user association of (account, user), added on first use; -1 if the
 * account is not one of accounts.conf's (such a job has no association:
 * factor 0, as _get_fairshare_priority gives it). */
int fs_tree_assoc(fs_tree_t *t, const char *account, const char *user);

/* Every association's usage times f (_apply_decay). */
void fs_tree_decay(fs_tree_t *t, double f);
/* Usage added to a user association and every parent up to root
 * (_apply_new_usage's loop). */
void fs_tree_add(fs_tree_t *t, int assoc, double usage);
/* Each user association's factor from the usage as it stands (Fair Tree:
 * _apply_priority_fs, _calc_tree_fs). */
void fs_tree_rank(fs_tree_t *t);
/* The factor of a user association as the last fs_tree_rank left it (0 for
 * -1, and before any). */
double fs_tree_factor(const fs_tree_t *t, int assoc);

#endif
