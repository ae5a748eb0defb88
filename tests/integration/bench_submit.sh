#!/bin/sh
# tests/integration/bench_submit.sh: submission throughput of a real slurmctld
# with and without job_submit/nodeox (make bench-slurmctld). Each measurement
# starts a fresh private 4-node cluster (tests/integration/lib/cluster.sh;
# empty job table, so earlier rounds do not slow later ones) with
# JobSubmitPlugins empty or nodeox, and times N `sbatch --hold` submissions of
# an untagged or a tagged (--comment=nodeox:flex) `--gres=gpu:a100:4` job from
# P parallel submitters; and, without the plugin, the job as the plugin
# rewrites it, written by hand (`byhand`: --gres=gpu:4 --constraint=a100|l40s),
# which separates the cost of the plugin from that of the rewritten job's
# constraint in slurmctld. The order of settings alternates between rounds so
# drift in the machine's load hits both alike; best of R rounds. Prints jobs/s
# and slurmctld's mean time per submit RPC (sdiag: the whole RPC handler,
# job_submit plugins included), which sbatch's process start-up does not blur.
# Knobs: NODEOX_BENCH_N (default 1000), NODEOX_BENCH_P (4), NODEOX_BENCH_R (3).
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib/cluster.sh"

N=${NODEOX_BENCH_N:-1000}
P=${NODEOX_BENCH_P:-4}
R=${NODEOX_BENCH_R:-3}
N=$((N / P * P))

# bench_round ARGS...: submit N held jobs with ARGS from P parallel loops and
# print the elapsed seconds. Fails on any rejected submission.
bench_round()
{
	local t0 t1 k i per=$((N / P)) fails
	t0=$(date +%s.%N)
	for ((k = 0; k < P; k++)); do
		( for ((i = 0; i < per; i++)); do
			sbatch --hold --parsable -o /dev/null "$@" --wrap true > /dev/null 2>> "$CLUSTER_DIR/bench.err" || echo x
		  done ) > "$CLUSTER_DIR/bench.fail.$k" &
	done
	wait
	t1=$(date +%s.%N)
	fails=$(cat "$CLUSTER_DIR"/bench.fail.* | wc -l)
	[ "$fails" = 0 ] || cluster_fail "$fails submissions failed: $(tail -n 2 "$CLUSTER_DIR/bench.err")"
	echo "$t1 - $t0" | bc
}

# bench_rpc_usec: slurmctld's mean time per submit RPC (sdiag's ave_time for
# REQUEST_SUBMIT_BATCH_JOB, microseconds).
bench_rpc_usec()
{
	sdiag | awk '/REQUEST_SUBMIT_BATCH_JOB/ { for (i = 1; i <= NF; i++) if ($i ~ /^ave_time:/) { sub(/ave_time:/, "", $i); print $i } }'
}

# bench_measure SETTING KIND: one measurement on a fresh cluster; sets S
# (seconds) and U (RPC mean, us).
bench_measure()
{
	local args=(--gres=gpu:a100:4)
	[ "$2" = tagged ] && args+=(--comment=nodeox:flex)
	[ "$2" = byhand ] && args=(--gres=gpu:4 --constraint="a100|l40s" --comment=nodeox:flex)
	cluster_init > /dev/null
	if [ "$1" = nodeox ]; then
		cluster_use_plugin
		cluster_nodeox_conf_article
	fi
	cluster_start > /dev/null
	S=$(bench_round "${args[@]}")
	U=$(bench_rpc_usec)
	if [ "$1" = nodeox ] && [ "$2" = tagged ]; then
		cluster_ctld_log | grep -q 'job_submit/nodeox: .*REWRITE' ||
			cluster_fail "tagged jobs were not rewritten by the plugin"
	fi
	cluster_stop
}

command -v bc >/dev/null 2>&1 || cluster_skip "bc not found"
[ -f "$(cluster_plugin_path)" ] || cluster_skip "job_submit/nodeox is not built ($(cluster_plugin_path) missing)"
cluster_log "$N submissions per measurement, $P submitters, best of $R rounds"
declare -A best rpc
for ((r = 0; r < R; r++)); do
	order="none nodeox"
	[ $((r % 2)) = 1 ] && order="nodeox none"
	for setting in $order; do
		for kind in untagged tagged byhand; do
			[ "$setting" = nodeox ] && [ "$kind" = byhand ] && continue
			bench_measure "$setting" "$kind"
			cluster_log "round $r $setting $kind: $S s, submit RPC mean ${U:--} us"
			k="$setting $kind"
			if [ -z "${best[$k]}" ] || [ "$(echo "$S < ${best[$k]}" | bc)" = 1 ]; then
				best[$k]=$S; rpc[$k]=$U
			fi
		done
	done
done

echo "== slurmctld submission throughput: sbatch --hold, $N jobs, $P submitters, best of $R"
for setting in none nodeox; do
	for kind in untagged tagged byhand; do
		k="$setting $kind"
		[ -n "${best[$k]}" ] || continue
		printf '%-24s %-9s %7.2f s %8.1f jobs/s   submit RPC mean %6s us\n' \
			"JobSubmitPlugins=${setting#none}" "$kind" "${best[$k]}" \
			"$(echo "$N / ${best[$k]}" | bc -l)" "${rpc[$k]:--}"
	done
done
