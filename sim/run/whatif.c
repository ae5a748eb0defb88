/*
 * whatif.c: tag a random fraction of the broadenable jobs (--flex-fraction).
 *
 * One uniform draw per job in trace order from GSL's MT19937 seeded with
 * --seed, whether or not the job can be broadened, so a job's draw does not
 * depend on the others' requests. "Broadenable" is the policy library's own
 * answer for the job with the tag added, on the cluster with every GPU busy
 * (so Broaden=when-blocked says yes whenever a group allows it). Answers are
 * cached per distinct request, since a trace repeats few of them.
 */
#include <stdio.h>

#include <glib.h>
#include <gsl/gsl_rng.h>

#include "sim/model/sched.h"
#include "sim/run/whatif.h"

bool *whatif_flex_fraction(const sim_trace_t *t, const sim_cluster_t *c, const nodeox_conf_t *conf,
			   double fraction, unsigned long seed, size_t *ntagged)
{
	bool *tagged = g_new0(bool, t->njobs ? t->njobs : 1);
	nodeox_node_t *nodes = sched_policy_nodes(c);
	for (int i = 0; i < c->nnodes; i++)
		nodes[i].gpus_idle = 0;
	nodeox_cluster_t view = { .nodes = nodes, .nnodes = (size_t)c->nnodes };
	GHashTable *cache = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	*ntagged = 0;
	for (size_t j = 0; j < t->njobs; j++) {
		const sim_job_t *job = &t->jobs[j];
		double u = gsl_rng_uniform(rng);
		if (u >= fraction || !job->gpu_type)
			continue;
		char *key = g_strdup_printf("%s|%u|%u|%s|%s|%s|%s|%" G_GINT64_FORMAT, job->gpu_type,
					    job->gpus, job->nodes, job->partition ? job->partition : "",
					    job->account ? job->account : "", job->user ? job->user : "",
					    job->features ? job->features : "", job->time_limit);
		gpointer hit = g_hash_table_lookup(cache, key);
		if (!hit) {
			char tres[NODEOX_STR_MAX];
			nodeox_job_t pj;
			nodeox_decision_t d;
			sched_policy_job(c, job, "nodeox:flex", tres, sizeof(tres), &pj);
			nodeox_policy_decide(conf, &pj, &view, &d);
			hit = GINT_TO_POINTER(d.action == NODEOX_REWRITE ? 2 : 1);
			g_hash_table_insert(cache, key, hit);
		} else {
			g_free(key);
		}
		if (GPOINTER_TO_INT(hit) == 2) {
			tagged[j] = true;
			(*ntagged)++;
		}
	}
	gsl_rng_free(rng);
	g_hash_table_destroy(cache);
	sched_policy_nodes_free(nodes);
	return tagged;
}
