/*
 * test_conf.c: cmocka tests of the nodeox.conf parser (policy/policy_conf.c)
 * and the size parser. Good input: tests/policy/conf/good.conf sets every
 * key. Bad input: each tests/policy/conf/bad-*.conf starts with a line
 * "# expect LINE: TEXT"; the parser must fail with "PATH:LINE: ..." where the
 * message contains TEXT.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/common/test_main.h"
#include "common/util.h"
#include "policy/policy.h"

static char conf_dir[1024];

static void test_defaults(void **state)
{
	nodeox_conf_t *c;
	char err[NODEOX_ERR_MAX];

	(void)state;
	assert_int_equal(nodeox_conf_parse_string("# nothing\n\n", "empty", &c, err, sizeof(err)), 0);
	assert_non_null(c);
	assert_int_equal(c->mode, NODEOX_MODE_ENFORCE);
	assert_int_equal(c->broaden, NODEOX_BROADEN_ALWAYS);
	assert_true(c->scale_time_limit);
	assert_false(c->prefer_requested);
	assert_true(c->min_speed == 0.0);
	assert_int_equal(c->ntypes, 0);
	assert_int_equal(c->partitions.n, 0);
	nodeox_conf_free(c);
}

static void test_good_file(void **state)
{
	char path[1200], err[NODEOX_ERR_MAX];
	nodeox_conf_t *c;
	int a100, l40s, h100;

	(void)state;
	snprintf(path, sizeof(path), "%s/good.conf", conf_dir);
	assert_int_equal(nodeox_conf_parse_file(path, &c, err, sizeof(err)), 0);
	assert_string_equal(c->path, path);
	assert_int_equal(c->mode, NODEOX_MODE_DRYRUN);
	assert_int_equal(c->broaden, NODEOX_BROADEN_WHEN_BLOCKED);
	assert_true(c->min_speed == 0.25);
	assert_false(c->scale_time_limit);
	assert_true(c->prefer_requested);
	assert_int_equal(c->ntypes, 3);
	a100 = nodeox_conf_find_type(c, "A100");
	l40s = nodeox_conf_find_type(c, "l40s");
	h100 = nodeox_conf_find_type(c, "h100");
	assert_int_equal(a100, 0);
	assert_int_equal(l40s, 1);
	assert_int_equal(h100, 2);
	assert_int_equal(nodeox_conf_find_type(c, "v100"), -1);
	assert_string_equal(c->types[a100].feature, "gpu_a100");
	assert_string_equal(c->types[l40s].feature, "l40s"); /* defaults to the name */
	assert_true(c->types[a100].mem_mb == 80 * 1024);
	assert_true(c->types[h100].mem_mb == 81920);
	assert_true(c->types[l40s].speed == 0.6);
	assert_int_equal(c->types[l40s].line, 8);
	assert_int_equal(c->ngroups, 1);
	assert_string_equal(c->groups[0].name, "ampere");
	assert_int_equal(c->groups[0].ntypes, 3);
	assert_int_equal(c->groups[0].types[2], h100); /* forward reference resolved */
	assert_int_equal(c->partitions.n, 2);
	assert_string_equal(c->partitions.names[1], "gpu-long");
	assert_int_equal(c->allow_accounts.n, 2);
	assert_string_equal(c->deny_accounts.names[0], "guest");
	assert_string_equal(c->allow_users.names[0], "alice");
	assert_int_equal(c->deny_users.n, 2);
	assert_string_equal(c->deny_users.names[1], "eve");
	nodeox_conf_free(c);
}

/* The fixtures the Makefile lists: blank-separated paths. */
static const char bad_confs[] = NODEOX_BAD_CONFS;

/* Is name (a file in conf_dir) one of them? */
static bool bad_conf_listed(const char *name)
{
	const char *p = bad_confs;
	size_t n = strlen(name);

	while ((p = strstr(p, name))) {
		if (p > bad_confs && p[-1] == '/' && (p[n] == ' ' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

/*
 * Every bad-*.conf fails at the line and with the text its first line names.
 * Exactly the fixtures the Makefile lists (policy_bad_confs, shipped in the
 * tarball) are checked, each once, and the directory holds no bad-* file
 * besides them: a fixture dropped, renamed or left out of the list fails
 * here instead of going unchecked.
 */
static void test_bad_files(void **state)
{
	DIR *d = opendir(conf_dir);
	struct dirent *de;
	int checked = 0, listed = 0;

	(void)state;
	assert_non_null(d);
	for (const char *p = bad_confs; *p;) {
		p += strspn(p, " ");
		if (*p)
			listed++;
		p += strcspn(p, " ");
	}
	while ((de = readdir(d))) {
		char path[1400], first[512], want_prefix[1600], err[NODEOX_ERR_MAX];
		const char *text;
		nodeox_conf_t *c = (nodeox_conf_t *)1;
		FILE *f;
		int line;

		if (strncmp(de->d_name, "bad-", 4))
			continue;
		if (!bad_conf_listed(de->d_name))
			fail_msg("%s/%s is not in policy_bad_confs (policy/Makefile.inc)", conf_dir,
				 de->d_name);
		snprintf(path, sizeof(path), "%s/%s", conf_dir, de->d_name);
		f = fopen(path, "r");
		assert_non_null(f);
		assert_non_null(fgets(first, sizeof(first), f));
		fclose(f);
		first[strcspn(first, "\n")] = '\0';
		assert_int_equal(sscanf(first, "# expect %d:", &line), 1);
		text = strchr(first, ':') + 2;
		assert_int_equal(nodeox_conf_parse_file(path, &c, err, sizeof(err)), -1);
		assert_null(c);
		snprintf(want_prefix, sizeof(want_prefix), "%s:%d: ", path, line);
		if (strncmp(err, want_prefix, strlen(want_prefix)) || !strstr(err, text))
			fail_msg("%s: got \"%s\", want \"%s...%s\"", de->d_name, err, want_prefix, text);
		assert_null(strchr(err, '\n'));
		checked++;
	}
	closedir(d);
	if (checked != listed || !listed)
		fail_msg("checked %d bad-*.conf files in %s, policy_bad_confs lists %d", checked, conf_dir,
			 listed);
}

static void test_missing_file(void **state)
{
	char err[NODEOX_ERR_MAX];
	nodeox_conf_t *c;

	(void)state;
	assert_int_equal(nodeox_conf_parse_file("/nonexistent/nodeox.conf", &c, err, sizeof(err)), -1);
	assert_null(c);
	assert_non_null(strstr(err, "/nonexistent/nodeox.conf: cannot open"));
}

static void test_string_errors(void **state)
{
	static const nodeox_test_case_t cases[] = {
		{ "GpuType=a100\nSpeed=2\n", "s:2: Speed= belongs on a GpuType= line" },
		{ "Mode=off GpuType=a100\n", "s:1: GpuType= must start its line" },
		{ "Types=a,b\n", "s:1: Types= belongs on a Group= line" },
		{ "GpuType=bad/name\n", "s:1: GpuType=bad/name: bad type name" },
		{ "Group=g Types=a,a\nGpuType=a\n", "s:1: Group=g: type a listed twice" },
		{ "Mode=\x01x\n", "s:1: Mode=?x: expected" },
		{ "Partitions=a,b,\n", "s:1: Partitions: bad name ''" },
	};
	char err[NODEOX_ERR_MAX];
	nodeox_conf_t *c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(nodeox_conf_parse_string(cases[i].in, "s", &c, err, sizeof(err)), -1);
		if (strncmp(err, cases[i].want, strlen(cases[i].want)))
			fail_msg("case %zu: got \"%s\", want \"%s\"", i, err, cases[i].want);
	}
}

static void test_long_line_and_limits(void **state)
{
	char *text = malloc(10000), err[NODEOX_ERR_MAX];
	nodeox_conf_t *c;
	size_t off = 0;
	int i;

	(void)state;
	memset(text, 'x', 5000);
	memcpy(text, "Mode=", 5);
	text[5000] = '\0';
	assert_int_equal(nodeox_conf_parse_string(text, "long", &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "long:1: line longer than"));
	for (i = 0; i <= NODEOX_MAX_TYPES; i++)
		off += (size_t)snprintf(text + off, 10000 - off, "GpuType=t%d\n", i);
	assert_int_equal(nodeox_conf_parse_string(text, "many", &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "many:33: more than 32 GpuType= lines"));
	free(text);
}

static void test_parse_size(void **state)
{
	uint64_t mb = 0;

	(void)state;
	assert_int_equal(nodeox_util_parse_size_mb("80G", &mb), 0);
	assert_true(mb == 81920);
	assert_int_equal(nodeox_util_parse_size_mb("40960M", &mb), 0);
	assert_true(mb == 40960);
	assert_int_equal(nodeox_util_parse_size_mb("1t", &mb), 0);
	assert_true(mb == 1024 * 1024);
	assert_int_equal(nodeox_util_parse_size_mb("512", &mb), 0);
	assert_true(mb == 512);
	assert_int_equal(nodeox_util_parse_size_mb("48GB", &mb), 0);
	assert_true(mb == 48 * 1024);
	assert_int_equal(nodeox_util_parse_size_mb("", &mb), -1);
	assert_int_equal(nodeox_util_parse_size_mb("G", &mb), -1);
	assert_int_equal(nodeox_util_parse_size_mb("-1G", &mb), -1);
	assert_int_equal(nodeox_util_parse_size_mb("4X", &mb), -1);
	assert_int_equal(nodeox_util_parse_size_mb("4GG", &mb), -1);
	assert_int_equal(nodeox_util_parse_size_mb("99999999999999999999T", &mb), -1);
	assert_int_equal(nodeox_util_parse_size_mb(NULL, &mb), -1);
}

/* The test files are in tests/policy/conf of the source tree. */
static int setup(void **state)
{
	const char *src = getenv("top_srcdir");

	(void)state;
	snprintf(conf_dir, sizeof(conf_dir), "%s/tests/policy/conf", src ? src : ".");
	return 0;
}

NODEOX_TEST_MAIN(setup, NULL, cmocka_unit_test(test_defaults), cmocka_unit_test(test_good_file),
		 cmocka_unit_test(test_bad_files), cmocka_unit_test(test_missing_file),
		 cmocka_unit_test(test_string_errors), cmocka_unit_test(test_long_line_and_limits),
		 cmocka_unit_test(test_parse_size))
