/*
 * test_fairshare.c: accounts.conf and Fair Tree's factors (sim/model/fairshare.c)
 * worked out by hand from Slurm 22.05's fair_tree.c: no usage ties every
 * user association at 1; usage ranks the accounts by shares over usage, a
 * tie keeping the rank while the count still goes down (fb below the tied
 * fc and fd gets 2 of 5, not 4); decay keeps the ranks; a job without a
 * known account has no association and factor 0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <glib.h>
#include <math.h>

#include "tests/common/test_main.h"
#include "sim/model/fairshare.h"

static const char *conf = "# shares\n"
			  "Account=fa Fairshare=40\n"
			  "account=fb fairshare=30  # comment\n"
			  "\n"
			  "Account=fc Fairshare=20\n"
			  "Account=fd Fairshare=10\n";

static void test_parse(void **state)
{
	(void)state;
	fs_accounts_t a;
	char err[256];
	assert_int_equal(fs_accounts_parse(conf, "accounts.conf", &a, err, sizeof(err)), 0);
	assert_int_equal(a.n, 4);
	assert_string_equal(a.name[1], "fb");
	assert_int_equal(a.shares[1], 30);
	fs_accounts_free(&a);
	assert_int_equal(fs_accounts_parse("Account=x\n", "f", &a, err, sizeof(err)), 0);
	assert_int_equal(a.shares[0], 1); /* sacctmgr's default */
	fs_accounts_free(&a);
	const char *bad[] = { "Account=x Fairshare=-1\n", "Account=x Parent=y\n", "Fairshare=3\n",
			      "Account=x\nAccount=x\n", "Account=root\n", "Account=x Fairshare=2k\n" };
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		assert_int_equal(fs_accounts_parse(bad[i], "f", &a, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "f:"));
	}
	assert_int_equal(fs_accounts_parse("Account=x\nAccount=x\n", "f", &a, err, sizeof(err)), -1);
	assert_string_equal(err, "f:2: account x given twice");
}

static void test_ranks(void **state)
{
	(void)state;
	fs_accounts_t a;
	char err[256];
	assert_int_equal(fs_accounts_parse(conf, "accounts.conf", &a, err, sizeof(err)), 0);
	fs_tree_t *t = fs_tree_new(&a);
	int ua = fs_tree_assoc(t, "fa", "ua"), ub = fs_tree_assoc(t, "fb", "ub");
	int uc = fs_tree_assoc(t, "fc", "uc"), ud = fs_tree_assoc(t, "fd", "ud");
	assert_int_equal(fs_tree_assoc(t, "fa", "ua"), ua);
	assert_int_equal(fs_tree_assoc(t, "nope", "ua"), -1);
	assert_int_equal(fs_tree_assoc(t, NULL, "ua"), -1);
	assert_true(fs_tree_factor(t, -1) == 0);
	/* five user associations (root's own and one per account), no usage:
	 * every level_fs infinite, all tied at rank 5 */
	fs_tree_rank(t);
	assert_true(fs_tree_factor(t, ua) == 1.0 && fs_tree_factor(t, ud) == 1.0);
	/* fa 100 of 110 for 40 of 101 shares: 0.436; fb 10 for 30: 3.27; fc and
	 * fd none: infinite, tied with root's user (rank 5, the count going to
	 * 2), then fb 2/5, fa 1/5 */
	fs_tree_add(t, ua, 100);
	fs_tree_add(t, ub, 10);
	fs_tree_rank(t);
	assert_true(fs_tree_factor(t, uc) == 1.0 && fs_tree_factor(t, ud) == 1.0);
	assert_true(fabs(fs_tree_factor(t, ub) - 0.4) < 1e-12);
	assert_true(fabs(fs_tree_factor(t, ua) - 0.2) < 1e-12);
	/* decay scales every usage alike: the same ranks */
	fs_tree_decay(t, 0.5);
	fs_tree_rank(t);
	assert_true(fabs(fs_tree_factor(t, ub) - 0.4) < 1e-12);
	/* fd then uses 30 (of 85 in all, for 10 shares): 0.28, below fa (50 of
	 * 85 for 40: 0.67) and fb (5.05): fc alone ties with root's user
	 * (rank 5, the count going to 3), then fb 3, fa 2, fd 1 */
	fs_tree_add(t, ud, 30);
	fs_tree_rank(t);
	assert_true(fs_tree_factor(t, uc) == 1.0);
	assert_true(fabs(fs_tree_factor(t, ub) - 0.6) < 1e-12);
	assert_true(fabs(fs_tree_factor(t, ua) - 0.4) < 1e-12);
	assert_true(fabs(fs_tree_factor(t, ud) - 0.2) < 1e-12);
	fs_tree_free(t);
	fs_accounts_free(&a);
}

/* Two users in one account: ranked within it by their own usage, the account's
 * place deciding where their ranks fall. */
static void test_users(void **state)
{
	(void)state;
	fs_accounts_t a;
	char err[256];
	assert_int_equal(fs_accounts_parse("Account=p Fairshare=1\nAccount=q Fairshare=1\n", "f", &a, err,
					   sizeof(err)),
			 0);
	fs_tree_t *t = fs_tree_new(&a);
	int p1 = fs_tree_assoc(t, "p", "u1"), p2 = fs_tree_assoc(t, "p", "u2"), q1 = fs_tree_assoc(t, "q", "u1");
	/* root's user (inf), p (1/3 over 10/30), q (1/3 over 20/30); in p: u2
	 * (0.5 / 0.1) before u1 (0.5 / 0.9). Four users: 4, p's 3 and 2, q 1 */
	fs_tree_add(t, p1, 9);
	fs_tree_add(t, p2, 1);
	fs_tree_add(t, q1, 20);
	fs_tree_rank(t);
	assert_true(fabs(fs_tree_factor(t, p2) - 0.75) < 1e-12);
	assert_true(fabs(fs_tree_factor(t, p1) - 0.5) < 1e-12);
	assert_true(fabs(fs_tree_factor(t, q1) - 0.25) < 1e-12);
	fs_tree_free(t);
	fs_accounts_free(&a);
}

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_parse), cmocka_unit_test(test_ranks),
		 cmocka_unit_test(test_users))
