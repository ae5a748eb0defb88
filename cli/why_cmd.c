/*
 * why_cmd.c: the `nodeox why [--json] [--conf FILE] JOBID` command: reads
 * the options, finds nodeox.conf, and runs load -> analyze -> print.
 *
 * nodeox.conf is looked for where job_submit/nodeox looks: next to
 * slurm.conf (the directory of $SLURM_CONF, else the configured Slurm
 * config directory). --conf FILE or $NODEOX_CONF name it explicitly; an
 * explicit file that cannot be read is an error, a default one that is
 * missing only leaves out the flexible view. The speed table is the one
 * SpeedTable= names, or --speed-table FILE: decided with as the plugin does;
 * a bad one named by the conf is a warning (Speed= then), by the option an
 * error.
 *
 * Exit status (nodeox(1)): 0 a pending job explained, 1 slurmctld could not
 * be read or an explicit nodeox.conf is bad, 2 usage, 3 the job has started
 * (running, suspended, completing), 4 the job has ended, 5 slurmctld does not
 * know the job.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "cli/why.h"

enum {
	WHY_EXIT_PENDING = 0,
	WHY_EXIT_ERROR = 1,
	WHY_EXIT_USAGE = 2,
	WHY_EXIT_STARTED = 3,
	WHY_EXIT_ENDED = 4,
	WHY_EXIT_UNKNOWN = 5,
};

static void _usage(FILE *out)
{
	fprintf(out, "usage: nodeox why [--json] [--conf FILE] [--speed-table FILE] JOBID[_TASK]\n"
		     "Explain why a pending job waits: first what Slurm's pending reason means\n"
		     "for it (hold, dependency, jobs ahead, limits, reservation, licenses,\n"
		     "nodes, CPUs, memory) and when Slurm expects it to start, then the idle\n"
		     "GPUs it can and cannot use, and what tagging it --comment=nodeox:flex\n"
		     "would change under nodeox.conf. A job that is not pending gets one line.\n"
		     "  -j, --json       write JSON (keys in doc/why.md)\n"
		     "  -c, --conf FILE  nodeox.conf to use (default: $NODEOX_CONF, else\n"
		     "                   nodeox.conf next to slurm.conf)\n"
		     "  -s, --speed-table FILE  speed table to decide with (default:\n"
		     "                   SpeedTable= of nodeox.conf)\n"
		     "  -h, --help       this text\n"
		     "Exit: 0 pending job explained, 1 error, 2 usage, 3 job started,\n"
		     "4 job ended, 5 job unknown to slurmctld.\n");
}

/* JOBID or JOBID_TASK. Returns 0 or -1. */
static int _parse_job_id(const char *s, uint32_t *id, uint32_t *task)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || v == 0 || v > 0xfffffff0UL || *s == '-')
		return -1;
	*id = (uint32_t)v;
	*task = WHY_NO_TASK;
	if (*end == '_') {
		const char *t = end + 1;

		v = strtoul(t, &end, 10);
		if (errno || end == t || v > 0xfffffff0UL || *t == '-')
			return -1;
		*task = (uint32_t)v;
	}
	return *end ? -1 : 0;
}

/* Where nodeox.conf is, and whether the user named it. */
static bool _conf_path(const char *opt, char *path, size_t len)
{
	const char *env = getenv("NODEOX_CONF");
	const char *slurm_conf = getenv("SLURM_CONF");

	if (opt) {
		snprintf(path, len, "%s", opt);
		return true;
	}
	if (env && *env) {
		snprintf(path, len, "%s", env);
		return true;
	}
	if (slurm_conf && *slurm_conf) {
		char dir[512];

		snprintf(dir, sizeof(dir), "%s", slurm_conf);
		snprintf(path, len, "%s/nodeox.conf", dirname(dir));
	} else {
		snprintf(path, len, "%s/nodeox.conf", NODEOX_SYSCONFDIR);
	}
	return false;
}

int why_cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "conf", required_argument, NULL, 'c' },
		{ "speed-table", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *conf_opt = NULL, *speeds_opt = NULL;
	nodeox_speeds_t *speeds = NULL;
	bool json = false, explicit_conf;
	char path[512], err[NODEOX_ERR_MAX + 64], conf_err[NODEOX_ERR_MAX + 512];
	uint32_t job_id, task;
	nodeox_conf_t *conf = NULL;
	why_load_t *ld;
	why_result_t res;
	const why_node_t *nodes;
	const why_job_t *job;
	size_t nnodes;
	bool unknown;
	int c, rc = WHY_EXIT_PENDING;

	optind = 1;
	while ((c = getopt_long(argc, argv, "jc:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'c': conf_opt = optarg; break;
		case 's': speeds_opt = optarg; break;
		case 'h': _usage(stdout); return 0;
		default: _usage(stderr); return WHY_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "nodeox why: %s\n", optind >= argc ? "no JOBID given" : "one JOBID only");
		_usage(stderr);
		return WHY_EXIT_USAGE;
	}
	if (_parse_job_id(argv[optind], &job_id, &task) < 0) {
		fprintf(stderr, "nodeox why: '%s' is not a job id (JOBID or JOBID_TASK)\n", argv[optind]);
		return WHY_EXIT_USAGE;
	}

	explicit_conf = _conf_path(conf_opt, path, sizeof(path));
	conf_err[0] = '\0';
	if (access(path, F_OK) != 0) {
		snprintf(conf_err, sizeof(conf_err), "no nodeox.conf at %s", path);
		if (explicit_conf) {
			fprintf(stderr, "nodeox why: %s: %s\n", path, strerror(errno));
			return 1;
		}
	} else if (nodeox_conf_parse_file(path, &conf, conf_err, sizeof(conf_err)) < 0) {
		if (explicit_conf) {
			fprintf(stderr, "nodeox why: %s\n", conf_err);
			return 1;
		}
		fprintf(stderr, "nodeox why: warning: %s (flexible view left out)\n", conf_err);
	}
	if (conf && (speeds_opt || conf->speed_table[0])) {
		if (nodeox_speeds_parse_file(speeds_opt ? speeds_opt : conf->speed_table, &speeds, err,
					     sizeof(err)) < 0) {
			fprintf(stderr, "nodeox why: %s%s\n", speeds_opt ? "" : "warning: speed table ", err);
			if (speeds_opt) {
				nodeox_conf_free(conf);
				nodeox_speeds_free(speeds);
				return 1;
			}
		}
		conf->speeds = speeds;
	}

	slurm_init(NULL);
	ld = why_load(job_id, task, &unknown, err, sizeof(err));
	if (!ld) {
		if (unknown && json)
			printf("{\"job_id\": %u, \"state\": \"UNKNOWN\", \"pending\": false, "
			       "\"reason\": null, \"blockers\": [], \"expected_start\": null}\n",
			       job_id);
		else if (unknown)
			printf("nodeox why: %s\n", err);
		else
			fprintf(stderr, "nodeox why: %s\n", err);
		nodeox_conf_free(conf);
		nodeox_speeds_free(speeds);
		slurm_fini();
		return unknown ? WHY_EXIT_UNKNOWN : WHY_EXIT_ERROR;
	}
	job = why_load_job(ld);
	if (!job->pending) {
		if (json)
			why_print_done_json(stdout, job);
		else
			why_print_done_text(stdout, job);
		rc = job->phase == WHY_PHASE_ACTIVE ? WHY_EXIT_STARTED : WHY_EXIT_ENDED;
		why_load_free(ld);
		nodeox_conf_free(conf);
		nodeox_speeds_free(speeds);
		slurm_fini();
		return fflush(stdout) != 0 ? WHY_EXIT_ERROR : rc;
	}
	nodes = why_load_nodes(ld, &nnodes);
	if (why_analyze(job, nodes, nnodes, why_load_cluster(ld), conf, &res, err, sizeof(err)) < 0) {
		fprintf(stderr, "nodeox why: %s\n", err);
		rc = WHY_EXIT_ERROR;
	} else {
		why_pending_explain(why_load_cluster(ld), &res);
		if (conf)
			snprintf(res.flex.conf_path, sizeof(res.flex.conf_path), "%s", path);
		else
			snprintf(res.flex.conf_error, sizeof(res.flex.conf_error), "%s", conf_err);
		if (json)
			why_print_json(stdout, &res);
		else
			why_print_text(stdout, &res);
		why_result_free(&res);
	}
	why_load_free(ld);
	nodeox_conf_free(conf);
	nodeox_speeds_free(speeds);
	slurm_fini();
	if (fflush(stdout) != 0)
		rc = WHY_EXIT_ERROR;
	return rc;
}
