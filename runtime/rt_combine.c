/*
 * rt_combine.c: how the workers' pseudo-gradients become one update.
 *
 * Delta_i = theta - theta_i (global weights at the round start minus the
 * worker's weights at its end). Each rule gives weights w_i and
 * Delta = sum_i w_i Delta_i:
 *   mean     (DiLoCo)        w_i = 1 / k
 *   samples                  w_i = n_i / sum_j n_j, n_i samples this round
 *   fednova  (Wang et al.)   p_i = shard share, a_i = tau_i for plain SGD,
 *            a_i = sum_{k=1..tau_i} (1 - rho^k) / (1 - rho) with momentum rho,
 *            tau_eff = sum_j p_j a_j, w_i = p_i tau_eff / a_i
 * where only workers whose Delta_i is finite take part (k of them; p_i and
 * n_i are renormalized over those). rt_combine_weights is a pure function of
 * the all-gathered worker records, so every rank computes the same weights
 * from one small all-gather, which also carries the finite flags: the drop
 * is agreed without an extra collective. The big all-reduce then sums
 * w_i Delta_i (rt_rounds.c), and the outer optimizer steps theta.
 */
#include "config.h"

#include <math.h>

#include "runtime/rt_internal.h"

const char *rt_combine_name(nodeox_combine_t rule)
{
	switch (rule) {
	case NODEOX_COMBINE_MEAN: return "mean";
	case NODEOX_COMBINE_SAMPLES: return "samples";
	case NODEOX_COMBINE_FEDNOVA: return "fednova";
	}
	return "?";
}

double rt_combine_fednova_a(double tau, double rho)
{
	if (rho <= 0)
		return tau;
	/* sum_{k=1..tau} (1 - rho^k) / (1 - rho), summed directly: tau is small. */
	double a = 0, rk = 1;
	for (long k = 1; k <= (long)tau; k++) {
		rk *= rho;
		a += (1 - rk) / (1 - rho);
	}
	return a;
}

int rt_combine_weights(nodeox_combine_t rule, int n, const rt_worker_info_t *info, double rho, double *w)
{
	int kept = 0;
	double sum_samples = 0, sum_shard = 0;
	for (int i = 0; i < n; i++) {
		w[i] = 0;
		if (!info[i].finite)
			continue;
		kept++;
		sum_samples += info[i].samples;
		sum_shard += info[i].shard;
	}
	if (kept == 0)
		return 0;
	switch (rule) {
	case NODEOX_COMBINE_MEAN:
		for (int i = 0; i < n; i++)
			if (info[i].finite)
				w[i] = 1.0 / kept;
		break;
	case NODEOX_COMBINE_SAMPLES:
		for (int i = 0; i < n; i++)
			if (info[i].finite)
				w[i] = sum_samples > 0 ? info[i].samples / sum_samples : 1.0 / kept;
		break;
	case NODEOX_COMBINE_FEDNOVA: {
		double tau_eff = 0;
		for (int i = 0; i < n; i++) {
			if (!info[i].finite)
				continue;
			double p = sum_shard > 0 ? info[i].shard / sum_shard : 1.0 / kept;
			tau_eff += p * rt_combine_fednova_a(info[i].steps, rho);
		}
		for (int i = 0; i < n; i++) {
			if (!info[i].finite)
				continue;
			double p = sum_shard > 0 ? info[i].shard / sum_shard : 1.0 / kept;
			double a = rt_combine_fednova_a(info[i].steps, rho);
			w[i] = a > 0 ? p * tau_eff / a : 0;
		}
		break;
	}
	}
	return kept;
}
