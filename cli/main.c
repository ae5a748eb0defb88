/*
 * main.c: the `nodeox` command, a front door for subcommands: `nodeox why
 * JOBID` (why_cmd.c), `nodeox report HISTORY` (report_cmd.c) and `nodeox
 * speeds HISTORY` (speeds_cmd.c); new ones
 * get a line in _cmds.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli/report.h"
#include "cli/speeds.h"
#include "cli/why.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
} _cmds[] = {
	{ "why", why_cmd_run, "explain why a pending job waits, and what nodeox:flex would change" },
	{ "report", report_cmd_run, "what job_submit/nodeox did and what it cost, from sacct's history" },
	{ "speeds", speeds_cmd_run, "the speed table (SpeedTable=) from the speeds jobs recorded" },
};

static void _usage(FILE *out)
{
	fprintf(out, "usage: nodeox COMMAND [ARGS]   (nodeox COMMAND --help for more)\n");
	for (size_t i = 0; i < sizeof(_cmds) / sizeof(_cmds[0]); i++)
		fprintf(out, "  %-6s %s\n", _cmds[i].name, _cmds[i].help);
	fprintf(out, "  nodeox --version\nSee nodeox(1).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		_usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("nodeox %s (built against Slurm %s)\n", PACKAGE_VERSION, NODEOX_SLURM_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(_cmds) / sizeof(_cmds[0]); i++)
		if (!strcmp(argv[1], _cmds[i].name))
			return _cmds[i].run(argc - 1, argv + 1);
	fprintf(stderr, "nodeox: unknown command '%s'\n", argv[1]);
	_usage(stderr);
	return 2;
}
