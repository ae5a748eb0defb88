/*
 * name_conf.h: the small sacctmgr-like files nodeox-sim reads beside
 * slurm.conf (accounts.conf, qos.conf): one "KEY=NAME [NUMKEY=N]" a line,
 * '#' comments, each name once.
 */
#ifndef SIM_NAME_CONF_H
#define SIM_NAME_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
	const char *key, *num_key; /* "Account", "Fairshare" */
	const char *what;          /* the names' kind in messages: "account" */
	uint32_t num_default;      /* a line without num_key */
	bool nocase;               /* names match case-blind */
	const char *refuse;        /* a name no line may give, or NULL, */
	const char *refuse_why;    /* and why: "NAME WHY" */
} name_conf_t;

/* Parse text (file `name`, for messages) into n names (g_strdup'd, in file
 * order, after the `nfirst` given first, e.g. a built-in one; a line naming
 * one of those replaces its number once) and their numbers (g_new).
 * 0, or -1 with err naming file:line (nothing left allocated). */
int name_conf_parse(const name_conf_t *f, const char *text, const char *name, const char *const *first,
		    const uint32_t *first_num, int nfirst, char ***names, uint32_t **nums, int *n, char *err,
		    size_t errlen);

#endif
