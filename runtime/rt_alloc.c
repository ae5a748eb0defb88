/*
 * rt_alloc.c: each rank's GPU type and speed from its Slurm allocation (see
 * rt_alloc.h for the contract).
 *
 * The node comes from SLURMD_NODENAME (set by slurmstepd for every task);
 * its GPU type from the node's GRES as slurmctld reports it (`scontrol show
 * node -o NODE`, run once per rank before MPI starts, with the job's own
 * SLURM_CONF); the speed from the GpuType= line of that type in nodeox.conf,
 * read with the policy library's parser, the same the plugin uses. A type
 * nodeox.conf does not list, a node without typed GPUs or an unreachable
 * slurmctld leave the speed unknown: the rank then runs unemulated and the
 * planner measures its speed in the first round, as it does on real GPUs.
 *
 * The emulated step time is the only thing changed in the engine
 * (rt->emu.step_ms, as --emulate-speeds would set it); the speeds are
 * copied into rt->cfg so the --json summary lists them.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "policy/policy.h"
#include "runtime/rt_alloc.h"
#include "runtime/rt_internal.h"

static const char *_alloc_getenv(const char *name)
{
	return getenv(name);
}

int rt_alloc_gres_type(const char *gres, char *type, size_t len)
{
	nodeox_tres_gpu_t e[NODEOX_TRES_MAX_GPU];
	int n = nodeox_tres_scan(gres, e, NODEOX_TRES_MAX_GPU), distinct = 0;
	if (len)
		type[0] = '\0';
	if (n < 0)
		return -1;
	if (n > NODEOX_TRES_MAX_GPU)
		n = NODEOX_TRES_MAX_GPU;
	for (int i = 0; i < n; i++) {
		if (e[i].type_len == 0)
			continue;
		if (distinct == 0)
			snprintf(type, len, "%.*s", (int)e[i].type_len, gres + e[i].type_off);
		else if (strlen(type) == e[i].type_len &&
			 strncmp(type, gres + e[i].type_off, e[i].type_len) == 0)
			continue;
		distinct++;
	}
	return distinct;
}

void rt_alloc_conf_path(const char *(*getenv_fn)(const char *), char *buf, size_t len)
{
	const char *p = getenv_fn("NODEOX_CONF"), *sc = getenv_fn("SLURM_CONF");
	if (p && *p) {
		snprintf(buf, len, "%s", p);
	} else if (sc && *sc) {
		const char *slash = strrchr(sc, '/');
		if (slash)
			snprintf(buf, len, "%.*s/nodeox.conf", (int)(slash - sc), sc);
		else
			snprintf(buf, len, "nodeox.conf");
	} else {
		snprintf(buf, len, "/etc/slurm/nodeox.conf");
	}
}

/* Run `scontrol show node -o NODE` (no shell: the name is passed as one
 * argument) and copy the value of its Gres= field into gres. */
static int _alloc_node_gres(const char *node, char *gres, size_t len, char *note, size_t notelen)
{
	int fds[2];
	gres[0] = '\0';
	if (pipe(fds) != 0) {
		snprintf(note, notelen, "pipe: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(note, notelen, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execlp("scontrol", "scontrol", "show", "node", "-o", node, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	char out[8192];
	size_t got = 0;
	ssize_t r;
	while ((r = read(fds[0], out + got, sizeof out - 1 - got)) > 0 || (r < 0 && errno == EINTR))
		if (r > 0)
			got += (size_t)r;
	out[got] = '\0';
	close(fds[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(note, notelen, "`scontrol show node -o %s` failed (exit %d)", node,
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return -1;
	}
	const char *g = strstr(out, " Gres=");
	if (g == NULL) {
		snprintf(note, notelen, "scontrol shows no Gres= for node %s", node);
		return -1;
	}
	g += 6;
	size_t n = strcspn(g, " \n");
	snprintf(gres, len, "%.*s", (int)n, g);
	return 0;
}

void rt_alloc_probe(rt_alloc_t *a, const nodeox_rt_config_t *cfg)
{
	char err[512], gres[1024];
	memset(a, 0, sizeof *a);
	const char *node = getenv("SLURMD_NODENAME");
	if (cfg->n_emulate_speeds > 0 || node == NULL || *node == '\0' || getenv("SLURM_JOB_ID") == NULL)
		return;
	a->active = 1;
	snprintf(a->node, sizeof a->node, "%s", node);
	ssize_t l = readlink("/proc/self/ns/net", a->netns, sizeof a->netns - 1);
	a->netns[l > 0 ? l : 0] = '\0';
	if (_alloc_node_gres(node, gres, sizeof gres, a->note, sizeof a->note) != 0)
		return;
	int ntypes = rt_alloc_gres_type(gres, a->gpu_type, sizeof a->gpu_type);
	if (ntypes <= 0) {
		snprintf(a->note, sizeof a->note, "node %s has no typed GPU (Gres=%s)", node, gres);
		return;
	}
	rt_alloc_conf_path(_alloc_getenv, a->conf, sizeof a->conf);
	nodeox_conf_t *conf = NULL;
	if (nodeox_conf_parse_file(a->conf, &conf, err, sizeof err) != 0) {
		snprintf(a->note, sizeof a->note, "%.150s", err);
		return;
	}
	int t = nodeox_conf_find_type(conf, a->gpu_type);
	if (t < 0) {
		snprintf(a->note, sizeof a->note, "%.100s has no GpuType=%s line", a->conf, a->gpu_type);
	} else {
		a->speed = conf->types[t].speed;
		a->conf_line = conf->types[t].line;
		a->emulated = strcmp(cfg->backend, "cpu") == 0;
	}
	nodeox_conf_free(conf);
	if (ntypes > 1)
		snprintf(a->note, sizeof a->note, "node %s has several GPU types (Gres=%.80s); took %s", node,
			 gres, a->gpu_type);
}

void rt_alloc_apply(nodeox_rt_t *rt, const rt_alloc_t *a)
{
	int world = rt->env.world, any = 0;
	rt_alloc_t *all = calloc((size_t)world, sizeof *all);
	if (all == NULL) {
		rt_util_say(rt->env.rank, "out of memory");
		exit(NODEOX_RT_EXIT_USAGE);
	}
	rt_comm_allgather(rt->comm, a, all, sizeof *a, __FILE__, __LINE__);
	for (int i = 0; i < world; i++)
		any |= all[i].active;
	if (!any) {
		free(all);
		return;
	}
	if (a->emulated)
		rt->emu.step_ms = rt->cfg.emulate_base_ms / a->speed;
	int speeds_known = 1;
	for (int i = 0; i < world; i++)
		speeds_known &= all[i].speed > 0;
	if (speeds_known) {
		for (int i = 0; i < world; i++)
			rt->cfg.emulate_speeds[i] = all[i].speed;
		rt->cfg.n_emulate_speeds = world;
	}
	if (rt->env.rank == 0 && !rt->cfg.quiet) {
		for (int i = 0; i < world; i++) {
			const rt_alloc_t *r = &all[i];
			printf("%s: rank %d on node %s (%s): gpu %s", rt_util_name(), i, r->node[0] ? r->node : "?",
			       r->netns[0] ? r->netns : "?", r->gpu_type[0] ? r->gpu_type : "unknown");
			if (r->speed > 0)
				printf(", speed %.2f from %s:%d", r->speed, r->conf, r->conf_line);
			else
				printf(", speed measured in the first round");
			if (r->emulated)
				printf("; emulated on the CPU: a step takes %.1f ms",
				       rt->cfg.emulate_base_ms / r->speed);
			if (r->note[0])
				printf(" (%s)", r->note);
			printf("\n");
		}
		fflush(stdout);
	}
	free(all);
}
