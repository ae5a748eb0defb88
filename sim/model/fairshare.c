/*
 * fairshare.c: accounts.conf, the association tree and Fair Tree's ranking,
 * ported from Slurm 22.05 (src/plugins/priority/multifactor/fair_tree.c,
 * priority_multifactor.c, src/common/assoc_mgr.c); see fairshare.h.
 */
#include <glib.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/model/fairshare.h"
#include "sim/model/name_conf.h"

int fs_accounts_parse(const char *text, const char *name, fs_accounts_t *out, char *err, size_t errlen)
{
	static const name_conf_t f = { .key = "Account",
				       .num_key = "Fairshare",
				       .what = "account",
				       .num_default = 1,
				       .refuse = "root",
				       .refuse_why = "is the tree's root, not an account under it" };
	memset(out, 0, sizeof(*out));
	return name_conf_parse(&f, text, name, NULL, NULL, 0, &out->name, &out->shares, &out->n, err, errlen);
}

void fs_accounts_free(fs_accounts_t *a)
{
	for (int i = 0; i < a->n; i++)
		g_free(a->name[i]);
	g_free(a->name);
	g_free(a->shares);
	memset(a, 0, sizeof(*a));
}

/* ------------------------------------------------------------ the tree */

typedef struct { /* slurmdb_assoc_rec_t and its usage, what Fair Tree reads */
	char *acct, *user;      /* user NULL: an account */
	int parent;             /* -1: root */
	uint32_t shares_raw;    /* Fairshare= */
	uint32_t level_shares;  /* the siblings' shares, its own included */
	long double usage_raw;  /* decayed usage */
	long double level_fs;   /* shares_norm / usage_efctv */
	double fs_factor;       /* user associations: rank / user associations */
	GArray *children;       /* int */
} fs_assoc_t;

struct fs_tree {
	GArray *a;         /* fs_assoc_t; 0 is root */
	uint32_t nuser;    /* g_user_assoc_count */
};

#define FS_A(t, i) (&g_array_index((t)->a, fs_assoc_t, (i)))

static int fs_tree_push(fs_tree_t *t, const char *acct, const char *user, int parent, uint32_t shares)
{
	fs_assoc_t x = { .acct = g_strdup(acct), .user = g_strdup(user), .parent = parent,
			 .shares_raw = shares, .children = g_array_new(FALSE, FALSE, sizeof(int)) };
	int i = (int)t->a->len;
	g_array_append_val(t->a, x);
	if (parent >= 0) {
		g_array_append_val(FS_A(t, parent)->children, i);
		/* level_shares: the sum over the parent's children
		 * (assoc_mgr.c, _set_children_level_shares) */
		fs_assoc_t *p = FS_A(t, parent);
		uint32_t sum = 0;
		for (guint c = 0; c < p->children->len; c++)
			sum += FS_A(t, g_array_index(p->children, int, c))->shares_raw;
		for (guint c = 0; c < p->children->len; c++)
			FS_A(t, g_array_index(p->children, int, c))->level_shares = sum;
	}
	if (user)
		t->nuser++; /* assoc_mgr.c, _set_assoc_parent_and_user */
	return i;
}

fs_tree_t *fs_tree_new(const fs_accounts_t *a)
{
	fs_tree_t *t = g_new0(fs_tree_t, 1);
	t->a = g_array_new(FALSE, FALSE, sizeof(fs_assoc_t));
	fs_tree_push(t, "root", NULL, -1, 1);
	fs_tree_push(t, "root", "root", 0, 1);
	for (int i = 0; a && i < a->n; i++)
		fs_tree_push(t, a->name[i], NULL, 0, a->shares[i]);
	return t;
}

void fs_tree_free(fs_tree_t *t)
{
	if (!t)
		return;
	for (guint i = 0; i < t->a->len; i++) {
		fs_assoc_t *x = FS_A(t, i);
		g_free(x->acct);
		g_free(x->user);
		g_array_free(x->children, TRUE);
	}
	g_array_free(t->a, TRUE);
	g_free(t);
}

int fs_tree_assoc(fs_tree_t *t, const char *account, const char *user)
{
	if (!account || !*account)
		return -1;
	int acct = -1;
	fs_assoc_t *root = FS_A(t, 0);
	for (guint c = 0; c < root->children->len && acct < 0; c++) {
		int i = g_array_index(root->children, int, c);
		if (!FS_A(t, i)->user && !strcmp(FS_A(t, i)->acct, account))
			acct = i;
	}
	if (acct < 0)
		return -1;
	const char *u = user && *user ? user : "";
	fs_assoc_t *p = FS_A(t, acct);
	for (guint c = 0; c < p->children->len; c++) {
		int i = g_array_index(p->children, int, c);
		if (!strcmp(FS_A(t, i)->user, u))
			return i;
	}
	return fs_tree_push(t, account, u, acct, 1);
}

void fs_tree_decay(fs_tree_t *t, double f)
{
	for (guint i = 0; i < t->a->len; i++)
		FS_A(t, i)->usage_raw *= f;
}

void fs_tree_add(fs_tree_t *t, int assoc, double usage)
{
	for (int i = assoc; i >= 0; i = FS_A(t, i)->parent)
		FS_A(t, i)->usage_raw += (long double)usage;
}

double fs_tree_factor(const fs_tree_t *t, int assoc)
{
	return assoc >= 0 ? g_array_index(t->a, fs_assoc_t, assoc).fs_factor : 0;
}

/* ------------------------------------------------------------ Fair Tree */

/* _calc_assoc_fs: usage_efctv is the usage over the parent's
 * (_ft_set_assoc_usage_efctv; 0 while the parent has none), shares_norm the
 * shares over the level's (_normalize_assoc_shares_fair_tree); level_fs is
 * their quotient, infinite for no usage, 0 for no shares. */
static void fs_calc_assoc(fs_tree_t *t, int i)
{
	fs_assoc_t *x = FS_A(t, i);
	const fs_assoc_t *p = x->parent >= 0 ? FS_A(t, x->parent) : NULL;
	long double U = (!p || !p->usage_raw) ? 0.0L : x->usage_raw / p->usage_raw;
	double shares_norm = x->level_shares ? (double)x->shares_raw / (double)x->level_shares : 0.0;
	long double S = shares_norm;
	x->level_fs = S == 0.0L ? 0.0L : S / U;
}

/* _cmp_level_fs: higher level_fs first; on a tie users before accounts. */
static int fs_cmp_level(const fs_tree_t *t, int ia, int ib)
{
	const fs_assoc_t *a = &g_array_index(t->a, fs_assoc_t, ia), *b = &g_array_index(t->a, fs_assoc_t, ib);
	if (a->level_fs != b->level_fs)
		return a->level_fs < b->level_fs ? 1 : -1;
	if (!a->user == !b->user)
		return 0;
	return a->user ? -1 : 1;
}

/* Slurm sorts with qsort; an insertion sort (a level has a few siblings,
 * and replicas run in threads) orders them the same but for siblings the
 * comparator calls equal, which take the same rank either way. */
static void fs_sort(const fs_tree_t *t, int *sib, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		int x = sib[i];
		size_t k = i;
		while (k > 0 && fs_cmp_level(t, sib[k - 1], x) > 0) {
			sib[k] = sib[k - 1];
			k--;
		}
		sib[k] = x;
	}
}

/* _count_tied_accounts, as 22.05 has it: it stops at the first account after
 * begin, so it counts only users, which sort before accounts: 0 here. */
static size_t fs_count_tied(fs_tree_t *t, const int *sib, size_t n, size_t begin)
{
	size_t tied = 0;
	for (size_t i = begin + 1; i < n; i++) {
		if (!FS_A(t, sib[i])->user)
			break;
		if (FS_A(t, sib[begin])->level_fs != FS_A(t, sib[i])->level_fs)
			break;
		tied++;
	}
	return tied;
}

/* _calc_tree_fs: each sibling's level_fs, the siblings sorted by it, then in
 * that order a user takes the rank (kept from the one before on a tie) and
 * an account recurses into its children (with the accounts tied to it,
 * merged), the tie carried down. */
static void fs_calc_tree(fs_tree_t *t, int *sib, size_t n, uint32_t *rank, uint32_t *rnt, bool account_tied)
{
	long double prev = (long double)0xfffffffe; /* NO_VAL */
	for (size_t i = 0; i < n; i++)
		fs_calc_assoc(t, sib[i]);
	fs_sort(t, sib, n);
	for (size_t i = 0; i < n; i++) {
		fs_assoc_t *x = FS_A(t, sib[i]);
		bool tied = (i == 0 && account_tied) ? true : prev == x->level_fs;
		if (x->user) {
			if (!tied)
				*rank = *rnt;
			x->fs_factor = *rank / (double)t->nuser;
			(*rnt)--;
		} else {
			size_t merge = fs_count_tied(t, sib, n, i);
			GArray *kids = g_array_new(FALSE, FALSE, sizeof(int));
			for (size_t m = i; m <= i + merge; m++)
				g_array_append_vals(kids, FS_A(t, sib[m])->children->data,
						    FS_A(t, sib[m])->children->len);
			if (kids->len)
				fs_calc_tree(t, (int *)(void *)kids->data, kids->len, rank, rnt, tied);
			g_array_free(kids, TRUE);
			i += merge;
		}
		prev = x->level_fs;
	}
}

void fs_tree_rank(fs_tree_t *t)
{
	uint32_t rank = t->nuser, rnt = rank;
	fs_assoc_t *root = FS_A(t, 0);
	int *sib = g_memdup2(root->children->data, sizeof(int) * root->children->len);
	fs_calc_tree(t, sib, root->children->len, &rank, &rnt, false);
	g_free(sib);
}
