#!/bin/sh
# tests/integration/bench_submit.sh: submission throughput of a real slurmctld
# with and without job_submit/nodeox (make bench-slurmctld). For each setting
# it starts the private 4-node cluster (tests/integration/lib/cluster.sh) and
# times N `sbatch --hold` submissions of an untagged and of a tagged
# (--comment=nodeox:flex) `--gres=gpu:a100:4` job, from P parallel
# submitters, best of R rounds; prints jobs/s per setting and job kind, and
# slurmctld's own time per submit RPC from its log (usec=, which includes the
# job_submit plugin), a measure the sbatch process start-up does not blur.
# Knobs: NODEOX_BENCH_N (default 1000), NODEOX_BENCH_P (4), NODEOX_BENCH_R (3).
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "${top_srcdir:-.}/tests/integration/lib/cluster.sh"

N=${NODEOX_BENCH_N:-1000}
P=${NODEOX_BENCH_P:-4}
R=${NODEOX_BENCH_R:-3}

# bench_round ARGS...: submit N held jobs with ARGS from P parallel loops;
# print the elapsed seconds, then cancel them. Fails on any rejected submission.
bench_round()
{
	local t0 t1 k per=$((N / P)) fails
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
	scancel --quiet --user="$(id -un)"
	while [ -n "$(squeue -h -o %i 2>/dev/null | head -n 1)" ]; do sleep 0.2; done
	echo "$t1 - $t0" | bc
}

# bench_rpc_usec FROM_LINE: median and mean of slurmctld's own time per
# submit RPC (the usec= of "_slurm_rpc_submit_batch_job", which includes the
# job_submit plugins) in its log from line FROM_LINE on.
bench_rpc_usec()
{
	tail -n +"$1" "$CLUSTER_DIR/log/slurmctld.log" |
		sed -n 's/.*_slurm_rpc_submit_batch_job: JobId=.* usec=\([0-9]*\).*/\1/p' | sort -n |
		awk '{ v[NR] = $1; s += $1 } END { if (NR) printf "%d %.0f", v[int((NR + 1) / 2)], s / NR; else printf "- -" }'
}

# bench_setting LABEL: time untagged and tagged submissions on the running
# cluster, best of R rounds each; print one result line per kind with the
# client-side rate and slurmctld's median/mean time per submit RPC.
bench_setting()
{
	local label=$1 kind args best s r l0 rpc
	for kind in untagged tagged; do
		args=(--gres=gpu:a100:4)
		[ "$kind" = tagged ] && args+=(--comment=nodeox:flex)
		best=
		l0=$(($(wc -l < "$CLUSTER_DIR/log/slurmctld.log") + 1))
		for ((r = 0; r < R; r++)); do
			s=$(bench_round "${args[@]}")
			if [ -z "$best" ] || [ "$(echo "$s < $best" | bc)" = 1 ]; then best=$s; fi
		done
		rpc=($(bench_rpc_usec "$l0"))
		printf '%-10s %-9s %6d jobs %7.2f s %8.1f jobs/s   rpc median %5s us, mean %5s us\n' \
			"$label" "$kind" $((N / P * P)) "$best" "$(echo "$N / $P * $P / $best" | bc -l)" \
			"${rpc[0]}" "${rpc[1]}" | tee -a "$RESULTS"
	done
}

command -v bc >/dev/null 2>&1 || cluster_skip "bc not found"
RESULTS=$(mktemp)
trap 'rm -f "$RESULTS"; cluster_on_exit' EXIT

cluster_init
cluster_start
cluster_log "without plugin: $N submissions x $R rounds, $P submitters"
bench_setting "no plugin"
cluster_stop

if [ -f "$(cluster_plugin_path)" ]; then
	CLUSTER_STOPPED=0
	cluster_init
	trap 'rm -f "$RESULTS"; cluster_on_exit' EXIT
	cluster_use_plugin
	cluster_nodeox_conf <<-CONF
	Mode=enforce
	GpuType=a100 Feature=a100 Memory=80G Speed=1.0
	GpuType=l40s Feature=l40s Memory=48G Speed=0.6
	Group=train Types=a100,l40s
	ScaleTimeLimit=yes
	CONF
	cluster_start
	cluster_log "with job_submit/nodeox"
	bench_setting "nodeox"
	cluster_stop
else
	cluster_log "job_submit/nodeox not built: measured without the plugin only"
fi
echo "== slurmctld submission throughput (sbatch --hold, $P parallel submitters, best of $R)"
cat "$RESULTS"
