/*
 * test_tres.c: the one reader of GPU entries in TRES and GRES strings
 * (policy/policy_tres.c) that the plugin, nodeox-sim, `nodeox why` and
 * nodeox-sacct-import share. Cases worked by hand from Slurm 22.05's
 * _get_next_gres (src/common/gres.c) and suffix_mult: every spelling of a job
 * entry, node GRES with "(S:..)", "(IDX:..)" and "(null)", counts with
 * suffixes, malformed entries, bounds, and the untyping rewrite.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "tests/common/test_main.h"
#include "policy/policy.h"

/* One entry as "form type count problem", for compact expectations. */
static const char *show(const char *s, const nodeox_tres_gpu_t *e)
{
	static char out[128];
	static const char *const forms[] = { "bare", "colon", "slash", "slash_eq" };

	snprintf(out, sizeof(out), "%s '%.*s' %llu %d", forms[e->form], (int)e->type_len, s + e->type_off,
		 (unsigned long long)e->count, (int)e->problem);
	return out;
}

/* The only gpu entry of s, read by scan (job TRES or node GRES), shown. */
static const char *one(int (*scan)(const char *, nodeox_tres_gpu_t *, int), const char *s)
{
	nodeox_tres_gpu_t e[4];
	int n = scan(s, e, 4);

	if (n != 1)
		fail_msg("'%s': %d gpu entries, want 1", s, n);
	return show(s, &e[0]);
}

#define job1(s) one(nodeox_tres_scan, s)
#define node1(s) one(nodeox_tres_scan_node, s)

static void test_job_forms(void **state)
{
	(void)state;
	assert_string_equal(job1("gres:gpu:a100:4"), "colon 'a100' 4 0");
	assert_string_equal(job1("gres/gpu:a100:4"), "slash 'a100' 4 0");
	assert_string_equal(job1("gres/gpu:a100=4"), "slash_eq 'a100' 4 0");
	assert_string_equal(job1("gres/gpu=4"), "slash_eq '' 4 0");
	assert_string_equal(job1("gpu:a100:4"), "bare 'a100' 4 0");
	assert_string_equal(job1("gres:gpu"), "colon '' 1 0"); /* one GPU */
	assert_string_equal(job1("gres:gpu:4"), "colon '' 4 0");
	assert_string_equal(job1("gres:gpu:a100"), "colon 'a100' 1 0"); /* one a100 */
	assert_string_equal(job1("gres:gpu:2x"), "colon '2x' 1 0");     /* not a count: a type */
	assert_string_equal(job1("gres:gpu:0"), "colon '' 0 0");
	/* other entries are not GPUs, however close their names */
	assert_string_equal(job1("cpu=4,gres:nvme:1,gres/gpumem=40G,gres:gpu:l40s:2,gres:mps:100,"
				 "gpus:3,mem=8G"),
			    "colon 'l40s' 2 0");
	assert_int_equal(nodeox_tres_scan("gres:gpux:1,gres/gpumem=4,cpu=1,gres:mps:100", NULL, 0), 0);
	assert_int_equal(nodeox_tres_scan("", NULL, 0), 0);
	assert_int_equal(nodeox_tres_scan(",,,", NULL, 0), 0);
	assert_int_equal(nodeox_tres_scan(NULL, NULL, 0), 0);
}

static void test_job_offsets(void **state)
{
	const char *s = "gres:nic:1,gres:gpu:a100:16,gres/gpu=2";
	nodeox_tres_gpu_t e[2];

	(void)state;
	assert_int_equal(nodeox_tres_scan(s, e, 2), 2);
	assert_int_equal(e[0].start, 11);
	assert_int_equal(e[0].end, 27);
	assert_int_equal(e[0].type_off, 20);
	assert_int_equal(e[0].type_len, 4);
	assert_int_equal(e[0].cnt_off, 25);
	assert_int_equal(e[0].cnt_len, 2);
	assert_int_equal(e[1].start, 28);
	assert_int_equal(e[1].end, strlen(s));
	assert_int_equal(e[1].cnt_off, 37);
	/* more entries than room: all counted, the first max stored */
	assert_int_equal(nodeox_tres_scan("gpu:a:1,gpu:b:2,gpu:c:3", e, 2), 3);
	assert_int_equal(e[1].count, 2);
}

static void test_counts(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_string_equal(job1("gres:gpu:a100:2k"), "colon 'a100' 2048 0");
	assert_string_equal(job1("gres:gpu:a100:2K"), "colon 'a100' 2048 0");
	assert_string_equal(job1("gres:gpu:a100:2kb"), "colon 'a100' 2000 0");
	assert_string_equal(job1("gres:gpu:a100:3KiB"), "colon 'a100' 3072 0");
	assert_string_equal(job1("gres:gpu:a100:1m"), "colon 'a100' 1048576 0");
	assert_string_equal(job1("gres:gpu:a100:3g"), "colon 'a100' 3221225472 0");
	assert_string_equal(job1("gres:gpu:2k"), "colon '' 2048 0"); /* a count, not a type */
	assert_string_equal(job1("gres:gpu:a100:4294967295"), "colon 'a100' 4294967295 0");
	assert_int_equal(nodeox_tres_count_parse("007", 3, &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(nodeox_tres_count_parse(" +3", 3, &v), 0); /* as strtoull */
	assert_int_equal(v, 3);
	assert_string_equal(job1("gres:gpu:a100: 1"), "colon 'a100' 1 0");
	assert_string_equal(job1("gres:gpu: 2"), "colon '' 2 0");
	/* refused: not a number, or too large */
	assert_int_equal(nodeox_tres_count_parse("", 0, &v), -1);
	assert_int_equal(nodeox_tres_count_parse("k", 1, &v), -1);
	assert_int_equal(nodeox_tres_count_parse("4kk", 3, &v), -1);
	assert_int_equal(nodeox_tres_count_parse("4 ", 2, &v), -1);
	assert_int_equal(nodeox_tres_count_parse("-4", 2, &v), -1);
	assert_int_equal(nodeox_tres_count_parse(" ", 1, &v), -1);
	assert_int_equal(nodeox_tres_count_parse("+", 1, &v), -1);
	assert_int_equal(nodeox_tres_count_parse("++1", 3, &v), -1);
	assert_int_equal(nodeox_tres_count_parse("4x", 2, &v), -1);
	assert_int_equal(nodeox_tres_count_parse("99999999999999999999999x", 24, &v), -1);
	assert_int_equal(nodeox_tres_count_parse("4294967296", 10, &v), -2);
	assert_int_equal(nodeox_tres_count_parse("4g", 2, &v), -2);
	assert_int_equal(nodeox_tres_count_parse("1p", 2, &v), -2);
	assert_int_equal(nodeox_tres_count_parse("99999999999999999999999", 23, &v), -2);
	assert_int_equal(nodeox_tres_count_parse("0p", 2, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(nodeox_tres_count_parse("4kb,", 3, &v), 0); /* only n bytes read */
	assert_int_equal(v, 4000);
}

static void test_malformed(void **state)
{
	(void)state;
	/* what Slurm refuses as "Invalid GRES": the problem says which */
	assert_string_equal(job1("gres:gpu:"), "colon '' 0 2");
	assert_string_equal(job1("gres:gpu::4"), "colon '' 0 1");
	assert_string_equal(job1("gres:gpu:a100:"), "colon 'a100' 0 2");
	assert_string_equal(job1("gres/gpu="), "slash_eq '' 0 2");
	assert_string_equal(job1("gres/gpu:a100="), "slash_eq 'a100' 0 2");
	assert_string_equal(job1("gres/gpu=x"), "slash_eq '' 0 3");
	assert_string_equal(job1("gres:gpu:a100:4x"), "colon 'a100' 0 3");
	assert_string_equal(job1("gres:gpu:a100:4:5"), "colon 'a100' 0 3");
	assert_string_equal(job1("gres:gpu:a100:2\x05"), "colon 'a100' 0 3");
	assert_string_equal(job1("gres:gpu:a100:4294967296"), "colon 'a100' 0 4");
	assert_string_equal(job1("gres:gpu:a100:8g"), "colon 'a100' 0 4");
	assert_string_equal(job1("gres:gpu:99999999999"), "colon '' 0 4");
	assert_string_equal(nodeox_tres_problem_text(NODEOX_TRES_BAD_COUNT),
			    "has a count that is not a number");
	assert_string_equal(nodeox_tres_problem_text(NODEOX_TRES_OK), "");
}

static void test_bounds(void **state)
{
	char s[NODEOX_STR_MAX + 1];
	nodeox_tres_gpu_t e[1];

	(void)state;
	memset(s, 'x', sizeof(s));
	memcpy(s, "gres:gpu:a100:1,", 16);
	s[NODEOX_STR_MAX] = '\0'; /* 1024 bytes: too long */
	assert_int_equal(nodeox_tres_scan(s, e, 1), -1);
	assert_int_equal(nodeox_tres_scan_node(s, e, 1), -1);
	s[NODEOX_STR_MAX - 1] = '\0'; /* 1023: read */
	assert_int_equal(nodeox_tres_scan(s, e, 1), 1);
	assert_int_equal(nodeox_tres_scan_node("gpu:a:1("
					       "((((((((((,gpu:b:1",
					       e, 1),
			 1);
}

static void test_node(void **state)
{
	nodeox_tres_gpu_t e[4];
	const char *s;

	(void)state;
	assert_string_equal(node1("gpu:a100:4(S:0-1)"), "bare 'a100' 4 0");
	assert_string_equal(node1("gpu:a100:2(IDX:0,2)"), "bare 'a100' 2 0");
	assert_string_equal(node1("gpu:a100:0(IDX:N/A)"), "bare 'a100' 0 0");
	assert_string_equal(node1("gpu:(null):3(IDX:0-2)"), "bare '' 3 0");
	assert_string_equal(node1("gpu:(null)"), "bare '' 1 0");
	assert_string_equal(node1("gpu:4"), "bare '' 4 0");
	assert_string_equal(node1("gpu"), "bare '' 1 0");
	assert_string_equal(node1("gpu(S:0)"), "bare '' 1 0");
	assert_string_equal(node1("gpu:a100"), "bare 'a100' 1 0");
	assert_string_equal(node1("gpu:a100:x"), "bare 'a100' 0 3");
	assert_string_equal(node1("gpu:a100:4(S:0"), "bare 'a100' 4 0"); /* unclosed: rest is its */
	assert_string_equal(node1("mps:100,gpumem:4,gpu:l40s:2(S:1),nic:1"), "bare 'l40s' 2 0");
	/* the gres prefix and '=' are job TRES spellings, not node GRES */
	assert_int_equal(nodeox_tres_scan_node("gres:gpu:a100:4,(null),,", e, 4), 0);
	assert_int_equal(nodeox_tres_scan_node(NULL, e, 4), 0);

	s = "gpu:a100:2(S:0),gpu:l40s:2(IDX:1,3),mps:100";
	assert_int_equal(nodeox_tres_scan_node(s, e, 4), 2);
	assert_string_equal(show(s, &e[1]), "bare 'l40s' 2 0");
	assert_int_equal(e[1].start, 16);
	assert_int_equal(e[1].end, 35); /* with its "(IDX:1,3)" */
	/* the same text as job TRES: the comma in (IDX:1,3) splits, no harm */
	assert_int_equal(nodeox_tres_scan(s, e, 4), 2);
}

static void test_type_copy(void **state)
{
	const char *s = "gres:gpu:a100:4";
	nodeox_tres_gpu_t e;
	char t[8];

	(void)state;
	assert_int_equal(nodeox_tres_scan(s, &e, 1), 1);
	assert_int_equal(nodeox_tres_type_copy(s, &e, t, sizeof(t)), 0);
	assert_string_equal(t, "a100");
	assert_int_equal(nodeox_tres_type_copy(s, &e, t, 3), -1);
	assert_string_equal(t, "a1");
	s = "gres:gpu:4";
	assert_int_equal(nodeox_tres_scan(s, &e, 1), 1);
	assert_int_equal(nodeox_tres_type_copy(s, &e, t, sizeof(t)), 0);
	assert_string_equal(t, "");
}

static void test_untype(void **state)
{
	static const nodeox_test_case_t cases[] = {
		{ "gres:gpu:a100:4", "gres:gpu:4" },
		{ "gres:nic:1,gres:gpu:a100:4,gres:nvme:2", "gres:nic:1,gres:gpu:4,gres:nvme:2" },
		{ "gres/gpu:a100:4", "gres/gpu:4" },
		{ "gres/gpu:a100=4", "gres/gpu=4" },
		{ "gpu:a100:2k", "gpu:2k" },
		{ "gres:gpu:a100", "gres:gpu:1" },
		{ "gres:gpu:4,gres:gpu:a100:1", "gres:gpu:4,gres:gpu:1" },
		{ "cpu=4", "cpu=4" },
	};
	nodeox_tres_gpu_t e[4];
	char out[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = nodeox_tres_scan(cases[i].in, e, 4);

		assert_int_equal(nodeox_tres_untype(cases[i].in, e, n, out, sizeof(out)), 0);
		assert_string_equal(out, cases[i].want);
	}
	assert_int_equal(nodeox_tres_scan(cases[1].in, e, 4), 1);
	assert_int_equal(nodeox_tres_untype(cases[1].in, e, 1, out, 12), -1);
}

NODEOX_TEST_MAIN(NULL, NULL, cmocka_unit_test(test_job_forms), cmocka_unit_test(test_job_offsets),
		 cmocka_unit_test(test_counts), cmocka_unit_test(test_malformed),
		 cmocka_unit_test(test_bounds), cmocka_unit_test(test_node), cmocka_unit_test(test_type_copy),
		 cmocka_unit_test(test_untype))
