/*
 * test_tag.c: cmocka tests of the comment tag parser (policy/policy_tag.c):
 * where a tag is recognised, each option, and that every malformed tag is
 * rejected with a one-line, printable reason naming the bad part.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/common/test_main.h"
#include "policy/policy.h"

static const char *conf_text = "GpuType=a100 Memory=80G Speed=1\n"
			       "GpuType=l40s Memory=48G Speed=0.5\n"
			       "GpuType=v100 Memory=32G Speed=0.3\n"
			       "Group=g Types=a100,l40s,v100\n";

static int setup(void **state)
{
	nodeox_conf_t *c;
	char err[NODEOX_ERR_MAX];

	if (nodeox_conf_parse_string(conf_text, "tag.conf", &c, err, sizeof(err)))
		return -1;
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	nodeox_conf_free(*state);
	return 0;
}

static void test_absent(void **state)
{
	static const char *const comments[] = {
		"",
		"just a comment",
		"nodeox",
		"nodeox:fle",
		"mynodeox:flex",
		"x:nodeox:flex",
		"NODEOX:FLEX",
		"nodeox_flex",
		"_nodeox:flex",
	};
	nodeox_tag_t tag;
	char err[NODEOX_ERR_MAX];
	size_t i;

	assert_int_equal(nodeox_tag_parse(NULL, *state, &tag, err, sizeof(err)), 0);
	assert_false(tag.present);
	for (i = 0; i < sizeof(comments) / sizeof(comments[0]); i++) {
		if (nodeox_tag_parse(comments[i], *state, &tag, err, sizeof(err)) != 0)
			fail_msg("\"%s\" taken for a tag", comments[i]);
		assert_false(tag.present);
	}
}

static void test_plain(void **state)
{
	static const char *const comments[] = {
		"nodeox:flex",   "run 12 nodeox:flex", "nodeox:flex, other text", "a;nodeox:flex;b",
		"(nodeox:flex)", "nodeox:flex\tnext",  "x=1 nodeox:flex",
	};
	nodeox_tag_t tag;
	char err[NODEOX_ERR_MAX];
	size_t i;

	for (i = 0; i < sizeof(comments) / sizeof(comments[0]); i++) {
		int rc = nodeox_tag_parse(comments[i], *state, &tag, err, sizeof(err));

		if (rc != 1)
			fail_msg("\"%s\": rc %d (%s)", comments[i], rc, err);
		assert_true(tag.present);
		assert_false(tag.uniform);
		assert_true(tag.min_mem_mb == 0);
		assert_int_equal(tag.nonly, 0);
	}
}

static void test_options(void **state)
{
	nodeox_conf_t *c = *state;
	nodeox_tag_t tag;
	char err[NODEOX_ERR_MAX];

	assert_int_equal(nodeox_tag_parse("nodeox:flex:mem=40G", c, &tag, err, sizeof(err)), 1);
	assert_true(tag.min_mem_mb == 40 * 1024);
	assert_int_equal(nodeox_tag_parse("go nodeox:flex:MEM=40960m now", c, &tag, err, sizeof(err)), 1);
	assert_true(tag.min_mem_mb == 40960);
	assert_int_equal(nodeox_tag_parse("nodeox:flex:uniform", c, &tag, err, sizeof(err)), 1);
	assert_true(tag.uniform);
	assert_int_equal(nodeox_tag_parse("nodeox:flex:mixed", c, &tag, err, sizeof(err)), 1);
	assert_false(tag.uniform);
	assert_int_equal(
		nodeox_tag_parse("nodeox:flex:types=l40s+V100:uniform:mem=30G", c, &tag, err, sizeof(err)),
		1);
	assert_true(tag.uniform);
	assert_true(tag.min_mem_mb == 30 * 1024);
	assert_int_equal(tag.nonly, 2);
	assert_int_equal(tag.only[0], nodeox_conf_find_type(c, "l40s"));
	assert_int_equal(tag.only[1], nodeox_conf_find_type(c, "v100"));
	/* The first tag counts; text after it is not parsed as options. */
	assert_int_equal(nodeox_tag_parse("nodeox:flex:uniform nodeox:flex:bogus", c, &tag, err, sizeof(err)),
			 1);
	assert_true(tag.uniform);
}

static void test_malformed(void **state)
{
	static const nodeox_test_case_t cases[] = {
		{ "nodeox:flex:fast", "unknown option 'fast'" },
		{ "x nodeox:flex:mem=40Q y", "bad size 'mem=40Q'" },
		{ "nodeox:flex:mem=", "bad size 'mem='" },
		{ "nodeox:flex:mem=0G", "bad size 'mem=0G'" },
		{ "nodeox:flex:mem=1G:mem=2G", "mem= given twice" },
		{ "nodeox:flex:types=a100+p100", "unknown GPU type 'p100'" },
		{ "nodeox:flex:types=", "bad types= list ''" },
		{ "nodeox:flex:types=a100++l40s", "bad types= list 'a100++l40s'" },
		{ "nodeox:flex:types=a100+A100", "GPU type 'A100' given twice" },
		{ "nodeox:flex:types=a100:types=l40s", "types= given twice" },
		{ "nodeox:flex:uniform:mixed", "uniform or mixed given twice" },
		{ "nodeox:flex:", "empty option" },
		{ "nodeox:flex::uniform", "empty option" },
		{ "nodeox:flexible", "malformed tag 'nodeox:flexible'" },
		{ "nodeox:flex=1", "malformed tag 'nodeox:flex=1'" },
	};
	nodeox_tag_t tag;
	char err[NODEOX_ERR_MAX];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = nodeox_tag_parse(cases[i].in, *state, &tag, err, sizeof(err));

		if (rc != -1 || !strstr(err, cases[i].want))
			fail_msg("\"%s\": rc %d, err \"%s\", want \"%s\"", cases[i].in, rc, err,
				 cases[i].want);
		assert_true(tag.present);
		assert_null(strchr(err, '\n'));
	}
}

/* Control bytes and '%' come back printable and harmless; long parts are cut. */
static void test_hostile(void **state)
{
	char comment[600], err[NODEOX_ERR_MAX];
	nodeox_tag_t tag;
	size_t i;

	assert_int_equal(nodeox_tag_parse("nodeox:flex:%s%n\x01\x7f", *state, &tag, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'%s%n?"
				    "?'"));
	for (i = 0; err[i]; i++)
		assert_true(err[i] >= 0x20 && err[i] < 0x7f);
	strcpy(comment, "nodeox:flex:");
	memset(comment + 12, 'z', 500);
	comment[512] = '\0';
	assert_int_equal(nodeox_tag_parse(comment, *state, &tag, err, sizeof(err)), -1);
	assert_true(strlen(err) < 200);
	assert_non_null(strstr(err, "zzz..."));
	/* A tiny err buffer is filled, terminated, never overrun. */
	memset(err, 'X', sizeof(err));
	assert_int_equal(nodeox_tag_parse("nodeox:flex:bad", *state, &tag, err, 8), -1);
	assert_int_equal(strlen(err), 7);
	assert_int_equal(err[8], 'X');
}

/* Only the first NODEOX_COMMENT_MAX bytes of a comment are looked at. */
static void test_bounded(void **state)
{
	char *comment = malloc(NODEOX_COMMENT_MAX + 32);
	nodeox_tag_t tag;
	char err[NODEOX_ERR_MAX];

	memset(comment, ' ', NODEOX_COMMENT_MAX + 32);
	strcpy(comment + NODEOX_COMMENT_MAX + 4, "nodeox:flex");
	assert_int_equal(nodeox_tag_parse(comment, *state, &tag, err, sizeof(err)), 0);
	assert_false(tag.present);
	strcpy(comment + NODEOX_COMMENT_MAX - 20, "nodeox:flex");
	assert_int_equal(nodeox_tag_parse(comment, *state, &tag, err, sizeof(err)), 1);
	free(comment);
}

/* A tag that runs on past byte NODEOX_COMMENT_MAX is refused whole, never
 * read cut short (mem=40G as mem=40); one that ends right there is whole. */
static void test_tag_across_bound(void **state)
{
	static const char *cut[] = { "nodeox:flex:mem=40G", "nodeox:flex:types=l40s+v100",
				     "nodeox:flex:uniform" };
	const size_t size = NODEOX_COMMENT_MAX + 64;
	char *comment = malloc(size + 1);
	nodeox_tag_t tag;
	char err[NODEOX_ERR_MAX];
	size_t i, at;

	for (i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
		/* each cut point: within the word nodeox:flex, the tag is not
		 * seen (ignored whole); past it, refused */
		for (at = 1; at < strlen(cut[i]); at++) {
			memset(comment, 'x', size);
			comment[size] = '\0';
			comment[NODEOX_COMMENT_MAX - at - 1] = ' ';
			memcpy(comment + NODEOX_COMMENT_MAX - at, cut[i], strlen(cut[i]));
			comment[NODEOX_COMMENT_MAX - at + strlen(cut[i])] = ' ';
			if (at < strlen("nodeox:flex")) {
				assert_int_equal(nodeox_tag_parse(comment, *state, &tag, err, sizeof(err)),
						 0);
				assert_false(tag.present);
				continue;
			}
			if (nodeox_tag_parse(comment, *state, &tag, err, sizeof(err)) != -1)
				fail_msg("%s cut %zu bytes in: read as a tag (mem=%llu MB, %d types)", cut[i],
					 at, (unsigned long long)tag.min_mem_mb, tag.nonly);
			assert_non_null(strstr(err, "runs past byte 8192 of the comment"));
		}
	}
	/* ending exactly at the bound, then a blank: whole, read in full */
	memset(comment, 'x', size);
	comment[size] = '\0';
	comment[NODEOX_COMMENT_MAX - 20] = ' ';
	memcpy(comment + NODEOX_COMMENT_MAX - 19, "nodeox:flex:mem=40G", 19);
	comment[NODEOX_COMMENT_MAX] = ' ';
	assert_int_equal(nodeox_tag_parse(comment, *state, &tag, err, sizeof(err)), 1);
	assert_true(tag.min_mem_mb == 40 * 1024);
	/* ... and then the end of the comment */
	comment[NODEOX_COMMENT_MAX] = '\0';
	assert_int_equal(nodeox_tag_parse(comment, *state, &tag, err, sizeof(err)), 1);
	assert_true(tag.min_mem_mb == 40 * 1024);
	free(comment);
}

/* Without a conf the syntax is still checked; types stay unresolved (-1). */
static void test_no_conf(void **state)
{
	nodeox_tag_t tag;
	char err[NODEOX_ERR_MAX];

	(void)state;
	assert_int_equal(nodeox_tag_parse("nodeox:flex:types=x+y", NULL, &tag, err, sizeof(err)), 1);
	assert_int_equal(tag.nonly, 2);
	assert_int_equal(tag.only[0], -1);
	assert_int_equal(nodeox_tag_parse("nodeox:flex:nope", NULL, &tag, err, sizeof(err)), -1);
}

NODEOX_TEST_MAIN(setup, teardown, cmocka_unit_test(test_absent), cmocka_unit_test(test_plain),
		 cmocka_unit_test(test_options), cmocka_unit_test(test_malformed),
		 cmocka_unit_test(test_hostile), cmocka_unit_test(test_bounded),
		 cmocka_unit_test(test_tag_across_bound), cmocka_unit_test(test_no_conf))
