/*
 * cluster.c: read the cluster from an admin's slurm.conf and gres.conf.
 *
 * Reads what the scheduler model needs and ignores the rest: NodeName lines
 * (hostlist ranges, NodeName=DEFAULT, CPUs or Boards*Sockets*Cores*Threads,
 * RealMemory, Features, Gres=gpu[:TYPE]:N, State), PartitionName lines
 * (Nodes=, ALL, Default=, MaxTime=, DefaultTime=, State=, DEFAULT), the
 * scheduler's SchedulerParameters (bf_*) and Priority* weights, and Include.
 * gres.conf (optional) supplies GPU types for nodes whose Gres= is untyped
 * and must agree with slurm.conf on counts. Errors are "FILE:LINE: what".
 *
 * Files are read as the Slurm release the caller names reads them (22.05
 * to 26.05 read the keys above the same way but for two defaults, both
 * changed in 23.11, cluster_finish_defaults): without PriorityType, 22.05
 * is FIFO (priority/basic: the weights unused), 23.11 on priority/
 * multifactor; without SelectTypeParameters, memory is allocated where the
 * select plugin is cons_tres (CR_Core_Memory in all), which 23.11 on also
 * is without SelectType (22.05: select/linear, no memory). A gres.conf
 * MultipleFiles= line is one GPU. Which release changed what else the
 * scheduler model follows is cluster_change_micro's table, here, read by
 * cluster_slurm_has.
 * Scheduling keys that Slurm gained after 22.05 and the model leaves out
 * (cluster_newer_keys) are ignored with a note on stderr, once per key; other
 * keys the model does not need are ignored silently.
 */
#include "common/free_all.h"
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "common/hostlist.h"
#include "common/util.h"
#include "policy/policy.h"
#include "sim/model/cluster.h"
#include "sim/model/trace.h"

#define CONF_MAX_TOKENS 128
#define CLUSTER_UNTYPED (-3) /* Gres=gpu:N with no type (yet) */

typedef struct {
	char *key, *val;
} kv_t;

typedef struct { /* NodeName= settings being applied */
	uint32_t cpus, boards, sockets, cores, threads;
	uint32_t weight; /* Weight=, 0: not given (Slurm's default 1) */
	uint64_t mem_mb;
	char *features, *gres, *state;
} node_defaults_t;

typedef struct {
	sim_cluster_t *c;
	GHashTable *node_index; /* name -> index+1 */
	GHashTable *feature_index;
	char *err;
	size_t errlen;
	const char *name; /* current file, for errors */
	int line;
	node_defaults_t ndef;
	sim_part_t pdef;
	char *pdef_nodes;
	int include_depth;
	GArray *nodes;        /* sim_node_t */
	uint32_t *gres_count; /* per node, from gres.conf */
	bool *gres_seen;
	bool priority_set;   /* PriorityType given */
	bool priority_basic; /* PriorityType=priority/basic: weights unused */
	bool select_set;     /* SelectType given */
	bool select_cons;    /* SelectType is select/cons_tres (or 22.05's cons_res) */
	bool params_set;     /* SelectTypeParameters given */
	bool params_mem;     /* SelectTypeParameters names memory */
	unsigned noted;      /* cluster_newer_keys already noted (bits) */
} cparse_t;

/* Keys new since Slurm 22.05 (checked against the read_config.c of each
 * release to 26.05.3) that change scheduling but are not modelled:
 * 23.11's MaxCPUsPerSocket, PowerDownOnIdle, PreemptParameters and
 * MaxBatchRequeue, 24.05's RestrictedCoresPerGPU and ExclusiveTopo, 25.05's
 * Topology (a partition's own topology, topology.yaml). The keys 24.11 to
 * 26.05 added besides (certificates, TLS, HTTP, metrics, namespaces,
 * Prolog/EpilogTimeout, HealthCheckTimeout, LicenseParameters, PowerAction,
 * GresConf, ...) schedule nothing the model models and are read as any
 * other unknown key: ignored. */
static const char *const cluster_newer_keys[] = {
	"RestrictedCoresPerGPU", "ExclusiveTopo",   "MaxCPUsPerSocket", "PowerDownOnIdle",
	"PreemptParameters",     "MaxBatchRequeue", "Topology",
};

/* Note (once per key) that a newer key is ignored. */
static void cluster_note_newer(cparse_t *p, const char *k)
{
	for (size_t i = 0; i < G_N_ELEMENTS(cluster_newer_keys); i++) {
		if (g_ascii_strcasecmp(k, cluster_newer_keys[i]) || (p->noted & (1u << i)))
			continue;
		p->noted |= 1u << i;
		g_printerr("nodeox-sim: note: %s:%d: %s (new since Slurm 22.05) is not modelled; "
			   "ignored\n",
			   p->name, p->line, cluster_newer_keys[i]);
	}
}

/* "NAME:LINE: message" into p->err (common/util.h); -1. */
#define cluster_fail(p, ...) nodeox_util_fail((p)->err, (p)->errlen, (p)->name, (p)->line, NULL, __VA_ARGS__)

void cluster_params_default(sim_sched_params_t *p)
{
	p->bf_window_min = 1440;
	p->bf_resolution_s = 60;
	p->bf_origin_s = 0;
	p->limit_origin_s = 0;
	p->bf_max_job_test = 500;
	p->bf_interval_s = 30;
	p->default_queue_depth = 100;
	p->sched_interval_s = 60;
	p->batch_sched_delay_s = 3;
	p->bf_max_job_part = p->bf_max_job_user = p->bf_max_job_user_part = 0;
	p->partition_job_depth = p->sched_max_job_start = 0;
	p->bf_continue = false;
	p->weight_age = 0;
	p->weight_job_size = 0;
	p->max_age_s = 7 * 86400;
	p->calc_period_s = 300;
	p->end_latency_s = 0;
	p->latency_seed = 0;
	p->bf_phase = NULL;
	p->end_overhead_s = 0.075;
	p->submit_phase_s = 0;
	p->favor_small = false;
	p->weight_partition = 0;
	p->size_relative = p->no_normal_part = false;
	p->weight_fs = 0;
	p->weight_qos = 0;
	p->no_normal_qos = false;
	p->decay_hl_s = 7 * 86400;
	p->no_fair_tree = false;
	p->enforce_limits = false;
	p->prio_zero = NULL;
	p->slurmdbd = false;
}

int cluster_find_type(const sim_cluster_t *c, const char *name)
{
	for (int i = 0; i < c->ntypes; i++)
		if (!strcmp(c->types[i], name))
			return i;
	return -1;
}

int cluster_find_partition(const sim_cluster_t *c, const char *name)
{
	for (int i = 0; i < c->nparts; i++)
		if (!strcmp(c->parts[i].name, name))
			return i;
	return -1;
}

int cluster_find_feature(const sim_cluster_t *c, const char *name)
{
	for (int i = 0; i < c->nfeatures; i++)
		if (!strcmp(c->features[i], name))
			return i;
	return -1;
}

/* Split a line into Key=Value tokens (values may be "quoted"). */
static int cluster_tokens(cparse_t *p, char *s, kv_t *kv)
{
	int n = 0;
	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			return n;
		if (n == CONF_MAX_TOKENS)
			return cluster_fail(p, "more than %d settings on one line", CONF_MAX_TOKENS);
		kv[n].key = s;
		while (*s && *s != '=' && !isspace((unsigned char)*s))
			s++;
		if (*s != '=') {
			char c = *s;
			*s = '\0';
			if (!g_ascii_strcasecmp(kv[n].key, "Include") && c) {
				kv[n].val = s + 1;
				while (isspace((unsigned char)*kv[n].val))
					kv[n].val++;
				n++;
				return n;
			}
			return cluster_fail(p, "'%s' is not Key=Value", kv[n].key);
		}
		*s++ = '\0';
		if (*s == '"') {
			kv[n].val = ++s;
			while (*s && *s != '"')
				s++;
			if (!*s)
				return cluster_fail(p, "unterminated quote after %s=", kv[n].key);
			*s++ = '\0';
		} else {
			kv[n].val = s;
			while (*s && !isspace((unsigned char)*s))
				s++;
			if (*s)
				*s++ = '\0';
		}
		n++;
	}
}

static int cluster_uint(cparse_t *p, const char *key, const char *val, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(val, &end, 10);
	if (!isdigit((unsigned char)*val) || *end || v > max)
		return cluster_fail(p, "%s=%s is not a number", key, val);
	*out = v;
	return 0;
}

static int cluster_feature_bit(cparse_t *p, const char *name, uint64_t *mask)
{
	gpointer v = g_hash_table_lookup(p->feature_index, name);
	int f;
	if (v) {
		f = GPOINTER_TO_INT(v) - 1;
	} else {
		if (p->c->nfeatures == SIM_MAX_FEATURES)
			return cluster_fail(p, "more than %d distinct node features", SIM_MAX_FEATURES);
		f = p->c->nfeatures++;
		p->c->features[f] = g_strdup(name);
		g_hash_table_insert(p->feature_index, p->c->features[f], GINT_TO_POINTER(f + 1));
	}
	*mask |= 1ull << f;
	return 0;
}

static int cluster_type_index(cparse_t *p, const char *name)
{
	int t = cluster_find_type(p->c, name);
	if (t >= 0)
		return t;
	if (p->c->ntypes == SIM_MAX_TYPES)
		return cluster_fail(p, "more than %d GPU types", SIM_MAX_TYPES), -2;
	p->c->types[p->c->ntypes] = g_strdup(name);
	return p->c->ntypes++;
}

/* Gres=gpu:a100:8,mps:100 -> type index (or -1 for untyped) and count, read
 * by the policy library's node GRES reader (policy/policy.h) as
 * slurmctld reads it: "gpu:a100" is one a100, counts take k/m/g suffixes. */
static int cluster_parse_gres(cparse_t *p, const char *gres, int *type, uint32_t *count)
{
	nodeox_tres_gpu_t e[2];
	char tname[NODEOX_NAME_MAX];
	int n, t;

	*type = -1;
	*count = 0;
	if (!gres || !*gres || !g_ascii_strcasecmp(gres, "(null)"))
		return 0;
	n = nodeox_tres_scan_node(gres, e, 2);
	if (n < 0)
		return cluster_fail(p, "Gres=%.40s...: longer than %d bytes", gres, NODEOX_STR_MAX - 1);
	if (n == 0)
		return 0;
	if (e[0].problem != NODEOX_TRES_OK || e[0].count > 1024 ||
	    nodeox_tres_type_copy(gres, &e[0], tname, sizeof(tname)) < 0)
		return cluster_fail(p, "Gres=%s: expected gpu[:TYPE]:COUNT", gres);
	if (n > 1)
		return cluster_fail(p,
				    "Gres=%s: more than one GPU type on a node is not "
				    "modelled",
				    gres);
	/* untyped: gres.conf may name the type; decided at the end */
	t = *tname ? cluster_type_index(p, tname) : CLUSTER_UNTYPED;
	if (t == -2)
		return -1;
	*type = t;
	*count = (uint32_t)e[0].count;
	return 0;
}

static void cluster_collect(const char *name, void *arg)
{
	g_ptr_array_add(arg, g_strdup(name));
}

static GPtrArray *cluster_expand(cparse_t *p, const char *list, const char *what)
{
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	if (hostlist_expand(list, cluster_collect, names) < 0) {
		cluster_fail(p, "%s=%s is not a valid hostlist", what, list);
		g_ptr_array_free(names, TRUE);
		return NULL;
	}
	return names;
}

static int cluster_node_line(cparse_t *p, kv_t *kv, int n)
{
	node_defaults_t d = p->ndef;
	const char *names = kv[0].val;
	for (int i = 1; i < n; i++) {
		const char *k = kv[i].key, *v = kv[i].val;
		uint64_t x;
		if (!g_ascii_strcasecmp(k, "CPUs") || !g_ascii_strcasecmp(k, "Procs")) {
			if (cluster_uint(p, k, v, 1 << 20, &x) < 0)
				return -1;
			d.cpus = (uint32_t)x;
		} else if (!g_ascii_strcasecmp(k, "Boards") || !g_ascii_strcasecmp(k, "Sockets") ||
			   !g_ascii_strcasecmp(k, "SocketsPerBoard") ||
			   !g_ascii_strcasecmp(k, "CoresPerSocket") ||
			   !g_ascii_strcasecmp(k, "ThreadsPerCore")) {
			if (cluster_uint(p, k, v, 1 << 16, &x) < 0 || x == 0)
				return x == 0 ? cluster_fail(p, "%s=0", k) : -1;
			if (!g_ascii_strcasecmp(k, "Boards"))
				d.boards = (uint32_t)x;
			else if (!g_ascii_strcasecmp(k, "CoresPerSocket"))
				d.cores = (uint32_t)x;
			else if (!g_ascii_strcasecmp(k, "ThreadsPerCore"))
				d.threads = (uint32_t)x;
			else
				d.sockets = (uint32_t)x;
		} else if (!g_ascii_strcasecmp(k, "RealMemory")) {
			if (cluster_uint(p, k, v, UINT64_MAX / 2, &x) < 0)
				return -1;
			d.mem_mb = x;
		} else if (!g_ascii_strcasecmp(k, "Weight")) {
			if (cluster_uint(p, k, v, UINT32_MAX - 1, &x) < 0)
				return -1;
			d.weight = x ? (uint32_t)x : 1;
		} else if (!g_ascii_strcasecmp(k, "Features") || !g_ascii_strcasecmp(k, "Feature") ||
			   !g_ascii_strcasecmp(k, "AvailableFeatures")) {
			d.features = (char *)v;
		} else if (!g_ascii_strcasecmp(k, "Gres")) {
			d.gres = (char *)v;
		} else if (!g_ascii_strcasecmp(k, "State")) {
			d.state = (char *)v;
		} else {
			cluster_note_newer(p, k);
		}
	}
	if (!g_ascii_strcasecmp(names, "DEFAULT")) {
		/* keep the strings alive: they point into the line buffer */
		d.features = d.features ? g_strdup(d.features) : NULL;
		d.gres = d.gres ? g_strdup(d.gres) : NULL;
		d.state = d.state ? g_strdup(d.state) : NULL;
		nodeox_g_free_all(p->ndef.features, p->ndef.gres, p->ndef.state);
		p->ndef = d;
		return 0;
	}
	sim_node_t proto = { 0 };
	proto.cpus = d.cpus ? d.cpus : d.boards * d.sockets * d.cores * d.threads;
	proto.mem_mb = d.mem_mb;
	proto.weight = d.weight ? d.weight : 1;
	proto.sockets = 1; /* set once the GPU count is known */
	proto.usable = true;
	if (d.state) {
		static const char *const bad[] = { "DOWN", "DRAIN", "FAIL", "FUTURE", "INVAL" };
		for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
			if (!g_ascii_strncasecmp(d.state, bad[i], strlen(bad[i])))
				proto.usable = false;
	}
	if (d.features && *d.features) {
		gchar **fs = g_strsplit(d.features, ",", -1);
		for (gchar **f = fs; *f; f++)
			if (**f && cluster_feature_bit(p, *f, &proto.features) < 0) {
				g_strfreev(fs);
				return -1;
			}
		g_strfreev(fs);
	}
	if (cluster_parse_gres(p, d.gres, &proto.type, &proto.gpus) < 0)
		return -1;
	if (proto.gpus == 0)
		proto.type = -1;
	uint32_t sk = d.boards * d.sockets;
	if (sk > 1 && sk <= SIM_MAX_SOCKETS && proto.gpus && proto.gpus % sk == 0 && proto.cpus % sk == 0)
		proto.sockets = sk;
	GPtrArray *list = cluster_expand(p, names, "NodeName");
	if (!list)
		return -1;
	for (guint i = 0; i < list->len; i++) {
		const char *nm = g_ptr_array_index(list, i);
		if (g_hash_table_contains(p->node_index, nm)) {
			cluster_fail(p, "node %s defined twice", nm);
			g_ptr_array_free(list, TRUE);
			return -1;
		}
		sim_node_t node = proto;
		node.name = g_strdup(nm);
		g_array_append_val(p->nodes, node);
		g_hash_table_insert(p->node_index, node.name, GINT_TO_POINTER(p->nodes->len));
	}
	g_ptr_array_free(list, TRUE);
	return 0;
}

static int cluster_time_value(cparse_t *p, const char *k, const char *v, int64_t *out)
{
	if (trace_parse_slurm_minutes(v, out) < 0)
		return cluster_fail(p,
				    "%s=%s is not a Slurm time ([D-]HH:MM:SS, minutes or "
				    "UNLIMITED)",
				    k, v);
	return 0;
}

/* DefMemPerCPU, DefMemPerNode, MaxMemPerCPU, MaxMemPerNode, DefMemPerGPU,
 * DefCpuPerGPU (MB, CPUs) into d, as slurm.conf and PartitionName lines
 * give them. Returns 1 when k is one of them, 0 when not, -1 on a bad value. */
static int cluster_job_default(cparse_t *p, const char *k, const char *v, sim_job_defaults_t *d)
{
	static const char *const keys[] = { "DefMemPerCPU",  "DefMemPerNode", "MaxMemPerCPU",
					    "MaxMemPerNode", "DefMemPerGPU",  "DefCpuPerGPU" };
	size_t i = 0;
	while (i < G_N_ELEMENTS(keys) && g_ascii_strcasecmp(k, keys[i]))
		i++;
	if (i == G_N_ELEMENTS(keys))
		return 0;
	uint64_t x;
	if (cluster_uint(p, k, v, i == 5 ? UINT16_MAX : UINT64_MAX / 2, &x) < 0)
		return -1;
	switch (i) {
	case 0:
	case 1:
		d->def_mem = x;
		d->def_mem_per_cpu = i == 0;
		break;
	case 2:
	case 3:
		d->max_mem = x;
		d->max_mem_per_cpu = i == 2;
		break;
	case 4: d->def_mem_per_gpu = x; break;
	default: d->def_cpu_per_gpu = (uint32_t)x; break;
	}
	return 1;
}

static int cluster_partition_line(cparse_t *p, kv_t *kv, int n)
{
	sim_part_t part = p->pdef;
	const char *nodes = p->pdef_nodes;
	for (int i = 1; i < n; i++) {
		const char *k = kv[i].key, *v = kv[i].val;
		if (!g_ascii_strcasecmp(k, "Nodes")) {
			nodes = v;
		} else if (!g_ascii_strcasecmp(k, "Default")) {
			part.is_default = !g_ascii_strcasecmp(v, "YES");
		} else if (!g_ascii_strcasecmp(k, "State")) {
			part.up = !g_ascii_strcasecmp(v, "UP");
		} else if (!g_ascii_strcasecmp(k, "MaxTime")) {
			if (cluster_time_value(p, k, v, &part.max_time) < 0)
				return -1;
		} else if (!g_ascii_strcasecmp(k, "DefaultTime")) {
			if (cluster_time_value(p, k, v, &part.default_time) < 0)
				return -1;
		} else if (!g_ascii_strcasecmp(k, "PriorityTier")) {
			char *end;
			unsigned long t = strtoul(v, &end, 10);
			if (!*v || *end || t > 65533)
				return cluster_fail(p, "PriorityTier=%s: expected 0 to 65533", v);
			part.tier = (int)t;
		} else if (!g_ascii_strcasecmp(k, "PriorityJobFactor") ||
			   !g_ascii_strcasecmp(k, "Priority")) {
			/* Priority= (older) sets both (common/read_config.c) */
			char *end;
			unsigned long t = strtoul(v, &end, 10);
			if (!*v || *end || t > 65533)
				return cluster_fail(p, "%s=%s: expected 0 to 65533", k, v);
			part.job_factor = (uint32_t)t;
			if (!g_ascii_strcasecmp(k, "Priority"))
				part.tier = (int)t;
		} else {
			int rc = cluster_job_default(p, k, v, &part.defs);
			if (rc < 0)
				return -1;
			if (rc == 0)
				cluster_note_newer(p, k);
		}
	}
	if (!g_ascii_strcasecmp(kv[0].val, "DEFAULT")) {
		p->pdef = part;
		p->pdef.is_default = false;
		if (nodes != p->pdef_nodes) {
			g_free(p->pdef_nodes);
			p->pdef_nodes = g_strdup(nodes);
		}
		return 0;
	}
	sim_cluster_t *c = p->c;
	if (cluster_find_partition(c, kv[0].val) >= 0)
		return cluster_fail(p, "partition %s defined twice", kv[0].val);
	if (c->nparts == SIM_MAX_PARTITIONS)
		return cluster_fail(p, "more than %d partitions", SIM_MAX_PARTITIONS);
	int pi = c->nparts++;
	part.name = g_strdup(kv[0].val);
	c->parts[pi] = part;
	if (part.is_default)
		c->default_part = pi;
	if (!nodes)
		return 0;
	sim_node_t *all = (sim_node_t *)(void *)p->nodes->data;
	if (!g_ascii_strcasecmp(nodes, "ALL")) {
		for (guint i = 0; i < p->nodes->len; i++)
			all[i].partitions |= 1ull << pi;
		return 0;
	}
	GPtrArray *list = cluster_expand(p, nodes, "Nodes");
	if (!list)
		return -1;
	for (guint i = 0; i < list->len; i++) {
		const char *nm = g_ptr_array_index(list, i);
		gpointer idx = g_hash_table_lookup(p->node_index, nm);
		if (!idx) {
			cluster_fail(p, "partition %s: node %s is not defined by a NodeName line", part.name,
				     nm);
			g_ptr_array_free(list, TRUE);
			return -1;
		}
		all[GPOINTER_TO_INT(idx) - 1].partitions |= 1ull << pi;
	}
	g_ptr_array_free(list, TRUE);
	return 0;
}

static int cluster_sched_params(cparse_t *p, const char *v)
{
	sim_sched_params_t *s = &p->c->params;
	gchar **items = g_strsplit(v, ",", -1);
	int rc = 0;
	for (gchar **it = items; *it && rc == 0; it++) {
		char *eq = strchr(*it, '=');
		if (!eq) {
			if (!strcmp(g_strstrip(*it), "bf_continue"))
				s->bf_continue = true;
			continue;
		}
		*eq = '\0';
		uint64_t x;
		const char *k = *it;
		int64_t *dst64 = NULL;
		int *dst = NULL, *dst0 = NULL;
		if (!strcmp(k, "bf_window"))
			dst64 = &s->bf_window_min;
		else if (!strcmp(k, "bf_resolution"))
			dst64 = &s->bf_resolution_s;
		else if (!strcmp(k, "bf_interval"))
			dst64 = &s->bf_interval_s;
		else if (!strcmp(k, "bf_max_job_test"))
			dst = &s->bf_max_job_test;
		else if (!strcmp(k, "default_queue_depth"))
			dst = &s->default_queue_depth;
		else if (!strcmp(k, "bf_max_job_part"))
			dst0 = &s->bf_max_job_part;
		else if (!strcmp(k, "bf_max_job_user"))
			dst0 = &s->bf_max_job_user;
		else if (!strcmp(k, "bf_max_job_user_part"))
			dst0 = &s->bf_max_job_user_part;
		else if (!strcmp(k, "partition_job_depth"))
			dst0 = &s->partition_job_depth;
		else if (!strcmp(k, "sched_max_job_start"))
			dst0 = &s->sched_max_job_start;
		else if (!strcmp(k, "batch_sched_delay")) {
			/* 0: every tick of the background loop */
			if (cluster_uint(p, k, eq + 1, 1u << 30, &x) < 0) {
				rc = -1;
				break;
			}
			s->batch_sched_delay_s = (int64_t)x;
			continue;
		} else if (!strcmp(k, "sched_interval")) {
			/* 0: slurmctld's background loop (once a second)
			 * finds the interval passed every time */
			if (eq[1] == '-') {
				rc = cluster_fail(p,
						  "SchedulerParameters sched_interval=%s: "
						  "no main scheduler is not modelled",
						  eq + 1);
				break;
			}
			if (cluster_uint(p, k, eq + 1, 1u << 30, &x) < 0) {
				rc = -1;
				break;
			}
			s->sched_interval_s = x ? (int64_t)x : 1;
			continue;
		} else
			continue;
		if (dst0) { /* 0: no limit, as in Slurm */
			if (cluster_uint(p, k, eq + 1, 1u << 30, &x) < 0) {
				rc = -1;
				break;
			}
			*dst0 = (int)x;
			continue;
		}
		if (cluster_uint(p, k, eq + 1, 1u << 30, &x) < 0 || x == 0) {
			rc = x == 0 ? cluster_fail(p, "SchedulerParameters %s=0", k) : -1;
			break;
		}
		if (dst64)
			*dst64 = (int64_t)x;
		else
			*dst = (int)x;
	}
	g_strfreev(items);
	return rc;
}

static int cluster_read_text(cparse_t *p, char *text, const char *name, bool gres);

static int cluster_include(cparse_t *p, const char *path, bool gres)
{
	if (p->include_depth > 8)
		return cluster_fail(p, "Include nested too deep");
	char *full = g_path_is_absolute(path) ? g_strdup(path)
					      : g_build_filename(p->c->dir ? p->c->dir : ".", path, NULL);
	char *text = NULL;
	GError *e = NULL;
	if (!g_file_get_contents(full, &text, NULL, &e)) {
		cluster_fail(p, "Include %s: %s", full, e->message);
		g_error_free(e);
		g_free(full);
		return -1;
	}
	const char *saved_name = p->name;
	int saved_line = p->line;
	p->include_depth++;
	int rc = cluster_read_text(p, text, full, gres);
	p->include_depth--;
	p->name = saved_name;
	p->line = saved_line;
	g_free(text);
	g_free(full); /* on error, p->err already holds the name */
	return rc;
}

static int cluster_gres_line(cparse_t *p, kv_t *kv, int n)
{
	const char *nodes = NULL, *gname = NULL, *type = NULL, *file = NULL, *count = NULL;
	for (int i = 0; i < n; i++) {
		const char *k = kv[i].key;
		if (!g_ascii_strcasecmp(k, "NodeName"))
			nodes = kv[i].val;
		else if (!g_ascii_strcasecmp(k, "Name"))
			gname = kv[i].val;
		else if (!g_ascii_strcasecmp(k, "Type"))
			type = kv[i].val;
		else if (!g_ascii_strcasecmp(k, "File") || !g_ascii_strcasecmp(k, "Files"))
			file = kv[i].val;
		else if (!g_ascii_strcasecmp(k, "Count"))
			count = kv[i].val;
	}
	if (!gname || strcmp(gname, "gpu"))
		return 0; /* AutoDetect=, other gres: not modelled */
	uint64_t cnt = 1; /* also a MultipleFiles= line: one GPU, several files */
	if (count) {
		if (cluster_uint(p, "Count", count, 1024, &cnt) < 0)
			return -1;
	} else if (file) {
		int k = hostlist_expand(file, NULL, NULL);
		if (k < 0)
			return cluster_fail(p, "File=%s is not a valid device list", file);
		cnt = (uint64_t)k;
	}
	int t = type ? cluster_type_index(p, type) : -1;
	if (t < -1)
		return -1;
	sim_node_t *all = (sim_node_t *)(void *)p->nodes->data;
	GPtrArray *list = NULL;
	if (nodes && !(list = cluster_expand(p, nodes, "NodeName")))
		return -1;
	guint nn = list ? list->len : p->nodes->len;
	int rc = 0;
	for (guint i = 0; i < nn && rc == 0; i++) {
		int idx;
		if (list) {
			gpointer v = g_hash_table_lookup(p->node_index, g_ptr_array_index(list, i));
			if (!v) {
				rc = cluster_fail(p, "node %s is not in slurm.conf",
						  (char *)g_ptr_array_index(list, i));
				break;
			}
			idx = GPOINTER_TO_INT(v) - 1;
		} else {
			idx = (int)i;
		}
		sim_node_t *nd = &all[idx];
		if (t >= 0) {
			if (nd->type >= 0 && nd->type != t)
				rc = cluster_fail(p, "node %s: gres.conf says type %s, slurm.conf says %s",
						  nd->name, p->c->types[t], p->c->types[nd->type]);
			else if (nd->gpus > 0)
				nd->type = t;
		}
		p->gres_seen[idx] = true;
		p->gres_count[idx] += (uint32_t)cnt;
	}
	if (list)
		g_ptr_array_free(list, TRUE);
	return rc;
}

/* Read one file's text (slurm.conf or, with gres, gres.conf). */
static int cluster_read_text(cparse_t *p, char *text, const char *name, bool gres)
{
	p->name = name;
	p->line = 0;
	kv_t kv[CONF_MAX_TOKENS];
	GString *joined = g_string_new(NULL);
	char *line = text;
	int rc = 0;
	while (line && rc == 0) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		p->line++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		size_t len = strlen(line);
		while (len && isspace((unsigned char)line[len - 1]))
			line[--len] = '\0';
		if (len && line[len - 1] == '\\') { /* continuation */
			line[len - 1] = ' ';
			g_string_append(joined, line);
			line = nl ? nl + 1 : NULL;
			continue;
		}
		g_string_append(joined, line);
		int n = cluster_tokens(p, joined->str, kv);
		if (n < 0) {
			rc = -1;
		} else if (n > 0) {
			const char *k0 = kv[0].key;
			if (!g_ascii_strcasecmp(k0, "Include"))
				rc = cluster_include(p, kv[0].val, gres);
			else if (gres)
				rc = cluster_gres_line(p, kv, n);
			else if (!g_ascii_strcasecmp(k0, "NodeName"))
				rc = cluster_node_line(p, kv, n);
			else if (!g_ascii_strcasecmp(k0, "PartitionName"))
				rc = cluster_partition_line(p, kv, n);
			else
				for (int i = 0; i < n && rc == 0; i++) {
					const char *k = kv[i].key, *v = kv[i].val;
					uint64_t x;
					sim_sched_params_t *s = &p->c->params;
					if (!g_ascii_strcasecmp(k, "SchedulerParameters"))
						rc = cluster_sched_params(p, v);
					else if (!g_ascii_strcasecmp(k, "PriorityWeightAge")) {
						rc = cluster_uint(p, k, v, UINT32_MAX, &x);
						s->weight_age = (double)x;
					} else if (!g_ascii_strcasecmp(k, "PriorityWeightJobSize")) {
						rc = cluster_uint(p, k, v, UINT32_MAX, &x);
						s->weight_job_size = (double)x;
					} else if (!g_ascii_strcasecmp(k, "PriorityMaxAge")) {
						rc = cluster_time_value(p, k, v, &s->max_age_s);
						if (rc == 0 &&
						    (s->max_age_s == SIM_TIME_NONE || s->max_age_s == 0))
							rc = cluster_fail(p, "PriorityMaxAge=%s", v);
					} else if (!g_ascii_strcasecmp(k, "PriorityCalcPeriod")) {
						rc = cluster_time_value(p, k, v, &s->calc_period_s);
						if (rc == 0 && (s->calc_period_s == SIM_TIME_NONE ||
								s->calc_period_s == 0))
							rc = cluster_fail(p, "PriorityCalcPeriod=%s", v);
					} else if (!g_ascii_strcasecmp(k, "AccountingStorageEnforce")) {
						/* _validate_accounting_storage_enforce
						 * (read_config.c): limits, 2, safe or all */
						gchar **tok = g_strsplit(v, ",", -1);
						s->enforce_limits = false;
						for (int t = 0; tok[t]; t++)
							s->enforce_limits |= !g_ascii_strcasecmp(tok[t], "limits") ||
									     !strcmp(tok[t], "2") ||
									     !g_ascii_strcasecmp(tok[t], "safe") ||
									     !g_ascii_strcasecmp(tok[t], "all");
						g_strfreev(tok);
					} else if (!g_ascii_strcasecmp(k, "AccountingStorageType")) {
						s->slurmdbd =
							!g_ascii_strcasecmp(v, "accounting_storage/slurmdbd");
					} else if (!g_ascii_strcasecmp(k, "PriorityWeightPartition")) {
						rc = cluster_uint(p, k, v, UINT32_MAX, &x);
						s->weight_partition = (double)x;
					} else if (!g_ascii_strcasecmp(k, "PriorityWeightFairshare")) {
						rc = cluster_uint(p, k, v, UINT32_MAX, &x);
						s->weight_fs = (double)x;
					} else if (!g_ascii_strcasecmp(k, "PriorityDecayHalfLife")) {
						rc = cluster_time_value(p, k, v, &s->decay_hl_s);
						if (rc == 0 && s->decay_hl_s == SIM_TIME_NONE)
							rc = cluster_fail(p, "PriorityDecayHalfLife=%s", v);
					} else if (!g_ascii_strcasecmp(k, "PriorityWeightQOS")) {
						rc = cluster_uint(p, k, v, UINT32_MAX, &x);
						s->weight_qos = (double)x;
					} else if (!g_ascii_strcasecmp(k, "PriorityWeightAssoc") ||
						   !g_ascii_strcasecmp(k, "PriorityWeightTRES")) {
						/* the model has no association priorities or TRES usage */
						if (strspn(v, "0") != strlen(v) && !s->prio_zero)
							s->prio_zero = g_intern_string(k);
					} else if (!g_ascii_strcasecmp(k, "PriorityFlags")) {
						/* matched as substrings, as read_config.c does */
						gchar *up = g_ascii_strup(v, -1);
						s->size_relative =
							strstr(up, "SMALL_RELATIVE_TO_TIME") != NULL;
						s->no_normal_part = strstr(up, "NO_NORMAL_PART") != NULL ||
								    strstr(up, "NO_NORMAL_ALL") != NULL;
						s->no_fair_tree = strstr(up, "NO_FAIR_TREE") != NULL;
						s->no_normal_qos = strstr(up, "NO_NORMAL_QOS") != NULL ||
								   strstr(up, "NO_NORMAL_ALL") != NULL;
						g_free(up);
					} else if (!g_ascii_strcasecmp(k, "PriorityFavorSmall")) {
						s->favor_small = !g_ascii_strcasecmp(v, "YES");
					} else if (!g_ascii_strcasecmp(k, "PriorityType")) {
						p->priority_set = true;
						p->priority_basic = !g_ascii_strcasecmp(v, "priority/basic");
					} else if (!g_ascii_strcasecmp(k, "SelectType")) {
						gchar *low = g_ascii_strdown(v, -1);
						p->select_set = true;
						p->select_cons =
							strstr(low, "cons_tres") || strstr(low, "cons_res");
						g_free(low);
					} else if (!g_ascii_strcasecmp(k, "SelectTypeParameters")) {
						gchar *low = g_ascii_strdown(v, -1);
						p->params_set = true;
						p->params_mem = strstr(low, "memory") != NULL;
						g_free(low);
					} else if ((rc = cluster_job_default(p, k, v, &p->c->defs)) != 0) {
						rc = rc < 0 ? -1 : 0;
					} else {
						cluster_note_newer(p, k);
					}
				}
		}
		g_string_truncate(joined, 0);
		line = nl ? nl + 1 : NULL;
	}
	g_string_free(joined, TRUE);
	return rc;
}

static char *cluster_mask_names(char *const *names, int n, uint64_t mask)
{
	GString *s = g_string_new(NULL);
	for (int i = 0; i < n; i++)
		if (mask & (1ull << i))
			g_string_append_printf(s, "%s%s", s->len ? "," : "", names[i]);
	return g_string_free(s, FALSE);
}

/* Group nodes into classes and fill the derived fields. */
static int cluster_finish(cparse_t *p)
{
	sim_cluster_t *c = p->c;
	c->nnodes = (int)p->nodes->len;
	c->nodes = (sim_node_t *)(void *)g_array_free(p->nodes, FALSE);
	p->nodes = NULL;
	if (c->nnodes == 0)
		return cluster_fail(p, "no NodeName lines");
	if (c->nparts == 0)
		return cluster_fail(p, "no PartitionName lines");
	uint32_t max_factor = 1; /* DEF_PART_MAX_PRIORITY (slurmctld/read_config.c) */
	for (int i = 0; i < c->nparts; i++)
		max_factor = MAX(max_factor, c->parts[i].job_factor);
	for (int i = 0; i < c->nparts; i++)
		c->parts[i].norm_job = (double)c->parts[i].job_factor / max_factor;
	char *part_names[SIM_MAX_PARTITIONS];
	for (int i = 0; i < c->nparts; i++)
		part_names[i] = c->parts[i].name;
	GHashTable *cls = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	GArray *classes = g_array_new(FALSE, TRUE, sizeof(sim_class_t));
	for (int i = 0; i < c->nnodes; i++) {
		sim_node_t *nd = &c->nodes[i];
		if (nd->type == CLUSTER_UNTYPED) {
			nd->type = cluster_type_index(p, "");
			if (nd->type < 0) {
				g_hash_table_destroy(cls);
				g_array_free(classes, TRUE);
				return -1;
			}
		}
		if (p->gres_seen && p->gres_seen[i] && p->gres_count[i] != nd->gpus) {
			cluster_fail(p, "node %s: gres.conf has %u GPUs, slurm.conf Gres= has %u", nd->name,
				     p->gres_count[i], nd->gpus);
			g_hash_table_destroy(cls);
			g_array_free(classes, TRUE);
			return -1;
		}
		nd->features_str = cluster_mask_names(c->features, c->nfeatures, nd->features);
		nd->partitions_str = cluster_mask_names(part_names, c->nparts, nd->partitions);
		c->total_gpus += nd->usable ? nd->gpus : 0;
		c->total_cpus += nd->cpus; /* every node, as slurmctld's cluster_cpus */
		char *key = g_strdup_printf("%d/%u/%u/%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
					    "/%" G_GUINT64_FORMAT "/%d/%u",
					    nd->type, nd->gpus, nd->cpus, nd->mem_mb, nd->features,
					    nd->partitions, nd->usable, nd->weight);
		gpointer v = g_hash_table_lookup(cls, key);
		if (!v) {
			sim_class_t k = { .first = i };
			g_array_append_val(classes, k);
			v = GINT_TO_POINTER(classes->len);
			g_hash_table_insert(cls, key, v);
		} else {
			g_free(key);
		}
		nd->cls = GPOINTER_TO_INT(v) - 1;
		g_array_index(classes, sim_class_t, nd->cls).nnodes++;
	}
	g_hash_table_destroy(cls);
	c->nclasses = (int)classes->len;
	c->classes = (sim_class_t *)(void *)g_array_free(classes, FALSE);
	for (int k = 0; k < c->nclasses; k++) {
		c->classes[k].nodes = g_new(int, c->classes[k].nnodes);
		c->classes[k].nnodes = 0;
	}
	for (int i = 0; i < c->nnodes; i++) {
		sim_class_t *k = &c->classes[c->nodes[i].cls];
		k->nodes[k->nnodes++] = i;
	}
	return 0;
}

static const struct {
	const char *name;
	sim_slurm_version_t v;
} cluster_releases[] = {
	{ "22.05", SIM_SLURM_2205 }, { "23.11", SIM_SLURM_2311 }, { "24.05", SIM_SLURM_2405 },
	{ "24.11", SIM_SLURM_2411 }, { "25.05", SIM_SLURM_2505 }, { "25.11", SIM_SLURM_2511 },
	{ "26.05", SIM_SLURM_2605 },
};
#define CLUSTER_NRELEASES ((int)G_N_ELEMENTS(cluster_releases))

/* The one home of which release has which modelled change: per change, the
 * first micro release of each release above that has it (-1: none of that
 * release does). Read from SchedMD's source at the release tags
 * (doc/simulator.md, "Slurm releases", names file and function). */
static const int8_t cluster_change_micro[SIM_CHG_COUNT][7] = {
	/*                            22.05 23.11 24.05 24.11 25.05 25.11 26.05 */
	[SIM_CHG_MIN_CPUS_PER_GRES] = { -1, -1, 0, 0, 0, 0, 0 },
	[SIM_CHG_WR_RELEVANT_JOB] = { -1, -1, -1, -1, 1, 0, 0 },
	[SIM_CHG_WR_YEAR_CAP] = { -1, -1, -1, -1, 6, 1, 0 },
	/* SchedMD's 24.11.0; the 24.11 model keeps 22.05's rounding down,
	 * which its fidelity replays were checked with (doc/simulator.md) */
	[SIM_CHG_BF_END_ROUNDUP] = { -1, -1, -1, -1, 0, 0, 0 },
	[SIM_CHG_PREFER_KEEPS_PART] = { -1, -1, -1, -1, -1, 1, 0 },
	[SIM_CHG_ONE_NODE_FIRST_FIT] = { -1, -1, -1, -1, -1, -1, 0 },
};

static int cluster_release_index(sim_slurm_version_t v)
{
	for (int i = 0; i < CLUSTER_NRELEASES; i++)
		if (cluster_releases[i].v == v)
			return i;
	return 0;
}

int cluster_version_parse(const char *s, sim_slurm_version_t *out, int *micro)
{
	for (int i = 0; s && i < CLUSTER_NRELEASES; i++) {
		size_t n = strlen(cluster_releases[i].name);
		if (strncmp(s, cluster_releases[i].name, n))
			continue;
		const char *r = s + n; /* "", or ".MICRO" */
		long m = -1;
		if (*r == '.' && isdigit((unsigned char)r[1])) {
			char *endp;
			m = strtol(r + 1, &endp, 10);
			r = m > 99 ? r : endp;
		}
		if (*r)
			continue;
		*out = cluster_releases[i].v;
		if (micro)
			*micro = (int)m;
		return 0;
	}
	return -1;
}

const char *cluster_version_name(sim_slurm_version_t v)
{
	return cluster_releases[cluster_release_index(v)].name;
}

const char *cluster_version_list(void)
{
	return "22.05, 23.11, 24.05, 24.11, 25.05, 25.11 or 26.05";
}

void cluster_version_set(sim_cluster_t *c, sim_slurm_version_t v, int micro)
{
	int i = cluster_release_index(v);
	c->slurm_version = v;
	c->slurm_micro = micro;
	c->slurm_changes = 0;
	for (int ch = 0; ch < SIM_CHG_COUNT; ch++) {
		int first = cluster_change_micro[ch][i];
		if (first >= 0 && (micro < 0 || micro >= first))
			c->slurm_changes |= 1u << ch;
	}
}

void cluster_version_label(sim_slurm_version_t v, int micro, char *buf, size_t len)
{
	int i = cluster_release_index(v);
	bool micro_matters = false;
	for (int ch = 0; ch < SIM_CHG_COUNT; ch++)
		micro_matters |= cluster_change_micro[ch][i] > 0;
	if (micro >= 0 && micro_matters)
		snprintf(buf, len, "%s.%d", cluster_releases[i].name, micro);
	else
		snprintf(buf, len, "%s", cluster_releases[i].name);
}

sim_slurm_version_t cluster_version_built(int *micro)
{
	*micro = -1;
#ifdef NODEOX_SLURM_VERSION_NUMBER
	unsigned major = (NODEOX_SLURM_VERSION_NUMBER >> 16) & 255;
	unsigned minor = (NODEOX_SLURM_VERSION_NUMBER >> 8) & 255;
	unsigned rel = major * 100 + minor;
	sim_slurm_version_t v = SIM_SLURM_2205;
	for (int i = 0; i < CLUSTER_NRELEASES; i++)
		if ((unsigned)cluster_releases[i].v <= rel)
			v = cluster_releases[i].v;
	if ((unsigned)v == rel)
		*micro = (int)(NODEOX_SLURM_VERSION_NUMBER & 255);
	return v;
#else
	return SIM_SLURM_2411;
#endif
}

/* What the file leaves out, as release ver fills it in. PriorityType:
 * read_config.c, `if (!s_p_get_string(&conf->priority_type, "PriorityType",
 * ...)) conf->priority_type = xstrdup(DEFAULT_PRIORITY_TYPE)`, which
 * read_config.h defines as "priority/basic" in 22.05 and
 * "priority/multifactor" in 24.11. Memory: SelectType defaults to
 * DEFAULT_SELECT_TYPE, "select/linear" in 22.05 and "select/cons_tres" in
 * 24.11; without SelectTypeParameters, cons_tres counts memory in both
 * (22.05: cons_common.c select_p_node_init, "SelectTypeParameters not
 * specified, using default value: CR_Core_Memory"; 24.11: read_config.c,
 * `else if (xstrstr(conf->select_type, "cons_tres")) select_type_param =
 * (CR_CORE | CR_MEMORY)`), any other plugin none (select_type_param = 0). */
static void cluster_finish_defaults(cparse_t *p, sim_slurm_version_t ver)
{
	if (!p->priority_set)
		p->priority_basic = ver < SIM_SLURM_2311;
	bool cons = p->select_set ? p->select_cons : ver >= SIM_SLURM_2311;
	p->c->mem_counted = p->params_set ? p->params_mem : cons;
	cluster_version_set(p->c, ver, -1);
}

static int cluster_parse(const char *slurm_conf, const char *gres_conf, const char *name,
			 sim_slurm_version_t ver, sim_cluster_t **out, char *err, size_t errlen);

/* A priority weight the model cannot follow here counts as 0: say so, and
 * name it to the footer (the first such). */
static void cluster_weight_zero(sim_sched_params_t *p, const char *name, const char *key, const char *why,
				double *weight)
{
	g_printerr("nodeox-sim: note: %s: %s counted as 0: %s\n", name, key, why);
	*weight = 0;
	if (!p->prio_zero)
		p->prio_zero = key;
}

/* Fair-share as the model can follow it: Fair Tree (22.05's default;
 * PriorityFlags=NO_FAIR_TREE's classic algorithm is not modelled) over the
 * associations of accounts.conf, with slurmdbd (without it there are no
 * associations, and every job's factor is 0). Otherwise the weight counts
 * as 0 and the run says so. accounts_text NULL: no accounts.conf. */
static int cluster_fairshare_finish(sim_cluster_t *c, const char *accounts_text, const char *aname,
				    const char *name, char *err, size_t errlen)
{
	sim_sched_params_t *p = &c->params;
	if (accounts_text && fs_accounts_parse(accounts_text, aname, &c->accounts, err, errlen) < 0)
		return -1;
	if (p->weight_fs <= 0)
		return 0;
	const char *why = !p->slurmdbd	       ? "without slurmdbd there are no associations"
			  : p->no_fair_tree    ? "PriorityFlags=NO_FAIR_TREE's classic algorithm is not modelled"
			  : !c->accounts.n     ? "no accounts.conf beside slurm.conf names the accounts"
					       : NULL;
	if (why)
		cluster_weight_zero(p, name, "PriorityWeightFairshare", why, &p->weight_fs);
	return 0;
}

/* The QOS factor as the model can follow it: with slurmdbd (without it jobs
 * have no QOS, and the factor is 0) and the QOS of qos.conf (their
 * priorities are slurmdbd's, which slurm.conf does not hold). Otherwise the
 * weight counts as 0 and the run says so. qos_text NULL: no qos.conf. */
static int cluster_qos_finish(sim_cluster_t *c, const char *qos_text, const char *qname, const char *name,
			      char *err, size_t errlen)
{
	sim_sched_params_t *p = &c->params;
	if (qos_text && qos_parse(qos_text, qname, &c->qos, err, errlen) < 0)
		return -1;
	if (p->weight_qos <= 0)
		return 0;
	const char *why = !p->slurmdbd ? "without slurmdbd jobs have no QOS"
			  : !c->qos.n	 ? "no qos.conf beside slurm.conf gives the QOS' priorities"
					 : NULL;
	if (why)
		cluster_weight_zero(p, name, "PriorityWeightQOS", why, &p->weight_qos);
	return 0;
}

int cluster_read_strings(const char *slurm_conf, const char *gres_conf, const char *name,
			 sim_slurm_version_t ver, sim_cluster_t **out, char *err, size_t errlen)
{
	if (cluster_parse(slurm_conf, gres_conf, name, ver, out, err, errlen) < 0)
		return -1;
	if (cluster_fairshare_finish(*out, NULL, NULL, name, err, errlen) < 0 ||
	    cluster_qos_finish(*out, NULL, NULL, name, err, errlen) < 0) {
		cluster_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

static int cluster_parse(const char *slurm_conf, const char *gres_conf, const char *name,
			 sim_slurm_version_t ver, sim_cluster_t **out, char *err, size_t errlen)
{
	sim_cluster_t *c = g_new0(sim_cluster_t, 1);
	cluster_params_default(&c->params);
	c->default_part = -1;
	c->dir = g_path_get_dirname(name);
	cparse_t p = {
		.c = c,
		.err = err,
		.errlen = errlen,
		.node_index = g_hash_table_new(g_str_hash, g_str_equal),
		.feature_index = g_hash_table_new(g_str_hash, g_str_equal),
		.ndef = { .boards = 1, .sockets = 1, .cores = 1, .threads = 1, .mem_mb = 1 },
		.pdef = { .up = true,
			  .max_time = SIM_TIME_NONE,
			  .default_time = SIM_TIME_NONE,
			  .tier = 1,
			  .job_factor = 1 },
		.nodes = g_array_new(FALSE, TRUE, sizeof(sim_node_t)),
	};
	char *text = g_strdup(slurm_conf);
	int rc = cluster_read_text(&p, text, name, false);
	g_free(text);
	if (rc == 0 && gres_conf) {
		char *gname = g_build_filename(c->dir, "gres.conf", NULL);
		p.gres_count = g_new0(uint32_t, p.nodes->len);
		p.gres_seen = g_new0(bool, p.nodes->len);
		text = g_strdup(gres_conf);
		rc = cluster_read_text(&p, text, gname, true);
		g_free(text);
		g_free(gname); /* on error, err already holds the name */
		p.name = name;
		p.line = 0;
	}
	p.name = name;
	p.line = 0;
	if (rc == 0)
		cluster_finish_defaults(&p, ver);
	if (rc == 0 && p.priority_basic) { /* FIFO: Slurm ignores the weights */
		c->params.weight_age = c->params.weight_job_size = c->params.weight_partition = 0;
		c->params.weight_fs = c->params.weight_qos = 0;
		c->params.prio_zero = NULL;
	}
	/* priority/multifactor without slurmdbd: "PriorityWeightAge can only be
	 * used with SlurmDBD, ignoring" (22.05 to 24.11), and no decay thread. */
	if (rc == 0 && c->params.weight_age > 0 && !c->params.slurmdbd) {
		g_printerr("nodeox-sim: note: %s: PriorityWeightAge ignored, as Slurm does without "
			   "AccountingStorageType=accounting_storage/slurmdbd\n",
			   name);
		c->params.weight_age = 0;
	}
	if (rc == 0)
		rc = cluster_finish(&p);
	if (p.nodes) {
		for (guint i = 0; i < p.nodes->len; i++)
			g_free(g_array_index(p.nodes, sim_node_t, i).name);
		g_array_free(p.nodes, TRUE);
	}
	g_hash_table_destroy(p.node_index);
	g_hash_table_destroy(p.feature_index);
	nodeox_g_free_all(p.ndef.features, p.ndef.gres, p.ndef.state, p.pdef_nodes, p.gres_count,
			  p.gres_seen);
	if (rc < 0) {
		cluster_free(c);
		*out = NULL;
		return -1;
	}
	*out = c;
	return 0;
}

int cluster_read(const char *dir, sim_slurm_version_t ver, sim_cluster_t **out, char *err, size_t errlen)
{
	char *sc = g_build_filename(dir, "slurm.conf", NULL);
	char *gc = g_build_filename(dir, "gres.conf", NULL);
	char *stext = NULL, *gtext = NULL;
	GError *e = NULL;
	int rc = -1;
	*out = NULL;
	if (!g_file_get_contents(sc, &stext, NULL, &e)) {
		snprintf(err, errlen, "%s: %s", sc, e->message);
		g_error_free(e);
	} else {
		if (!g_file_get_contents(gc, &gtext, NULL, NULL))
			gtext = NULL; /* gres.conf is optional */
		rc = cluster_parse(stext, gtext, sc, ver, out, err, errlen);
	}
	char *ac = g_build_filename(dir, "accounts.conf", NULL), *atext = NULL;
	if (rc == 0 && !g_file_get_contents(ac, &atext, NULL, NULL))
		atext = NULL; /* accounts.conf is optional */
	char *qc = g_build_filename(dir, "qos.conf", NULL), *qtext = NULL;
	if (rc == 0 && !g_file_get_contents(qc, &qtext, NULL, NULL))
		qtext = NULL; /* qos.conf is optional */
	if (rc == 0 && (cluster_fairshare_finish(*out, atext, ac, sc, err, errlen) < 0 ||
			cluster_qos_finish(*out, qtext, qc, sc, err, errlen) < 0)) {
		cluster_free(*out);
		*out = NULL;
		rc = -1;
	}
	nodeox_g_free_all(stext, gtext, sc, gc, ac, atext, qc, qtext);
	return rc;
}

void cluster_free(sim_cluster_t *c)
{
	if (!c)
		return;
	for (int i = 0; c->nodes && i < c->nnodes; i++) {
		nodeox_g_free_all(c->nodes[i].name, c->nodes[i].features_str, c->nodes[i].partitions_str);
	}
	g_free(c->nodes);
	for (int i = 0; i < c->ntypes; i++)
		g_free(c->types[i]);
	for (int i = 0; i < c->nfeatures; i++)
		g_free(c->features[i]);
	for (int i = 0; i < c->nparts; i++)
		g_free(c->parts[i].name);
	for (int k = 0; c->classes && k < c->nclasses; k++)
		g_free(c->classes[k].nodes);
	fs_accounts_free(&c->accounts);
	qos_free(&c->qos);
	nodeox_g_free_all(c->classes, c->dir, c);
}
