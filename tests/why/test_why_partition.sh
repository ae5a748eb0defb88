#!/bin/sh
# tests/why/test_why_partition.sh: `nodeox why` when idle GPUs sit in another
# partition. Partition gpu has a1 (4 a100, 2 busy) and l1 (4 l40s); partition
# other has a2 (4 a100, idle). A job in gpu asking 4 a100 per node waits: a2's
# 4 a100 are excluded by partition, l1's by type, a1's 2 as too few per node.
# Tagged flexible it could start on l1. The same request in partition other
# starts on a2, as the explanation implies.
. "$top_srcdir/tests/why/why_lib.sh"
why_init
cluster_add_node a1 gpu=a100:4
cluster_add_node l1 gpu=l40s:4
cluster_add_node a2 gpu=a100:4
cluster_add_partition gpu a1,l1 Default=YES
cluster_add_partition other a2
cluster_nodeox_conf <<'CONF'
GpuType=a100 Speed=1.0
GpuType=l40s Speed=0.5
Group=train Types=a100,l40s
CONF
cluster_start

busy=$(cluster_sbatch --gres=gpu:a100:2 --mem=1000 --wrap "sleep 300") || cluster_fail "busy job rejected"
wait_for_state "$busy" RUNNING 20 || cluster_fail "busy job did not start"

job=$(cluster_sbatch -p gpu --gres=gpu:a100:4 --mem=1000 --wrap "sleep 300") || cluster_fail "job rejected"
why_wait_pending "$job"
why_run "$job"
why_check_reason "$job"
check_eq "$(jq_py 'j["request"]["partition"]')" gpu "partition gpu"
check_eq "$(jq_py 'j["idle_gpus"]')" 10 "10 GPUs idle"
check_eq "$(jq_py 'j["eligible_gpus"]')" 0 "none usable"
why_check_excluded partition a100 4 a2 "node in other, job in gpu" "a2's 4 a100: other partition"
check_eq "$(jq_py 'gpus("gpu_type", "l40s")')" 4 "l1's l40s: wrong type"
check_eq "$(jq_py 'gpus("gpus_per_node", "a100")')" 2 "a1's 2 a100: too few per node"
why_check_sum
check_eq "$(jq_py 'j["flex"]["eligible_types"]')" a100,l40s "flexible: a100 and l40s"
check_eq "$(jq_py 'j["flex"]["could_start_now"]')" true "flexible: could start on l1"
check_eq "$(jq_py 'fgpus("partition")')" 4 "flexible: a2 still in the other partition"
check_eq "$(jq_py 'abs(j["flex"]["run_time_factor"] - 2.0) < 1e-3')" true "run time x2 on l40s"

# nodeox.conf named explicitly: a missing or broken file is an error naming it.
out=$("$WHY_BIN" why --conf "$CLUSTER_DIR/none.conf" "$job" 2>&1); rc=$?
check_eq "$rc" 1 "--conf missing file: exit 1"
check_match "$out" "none.conf" "... naming the file"
printf 'GpuType=a100 Speed=1.0\nGpuType=l40s Speed=fast\n' > "$CLUSTER_DIR/bad.conf"
out=$(NODEOX_CONF="$CLUSTER_DIR/bad.conf" "$WHY_BIN" why "$job" 2>&1); rc=$?
check_eq "$rc" 1 "NODEOX_CONF broken file: exit 1"
check_match "$out" "bad.conf:2" "... naming file:line"
# Scoped out by Partitions=: the flexible view says so.
printf 'Partitions=other\nGpuType=a100 Speed=1.0\nGpuType=l40s Speed=0.5\nGroup=g Types=a100,l40s\n' \
	> "$CLUSTER_DIR/scoped.conf"
why_run "$job" --conf "$CLUSTER_DIR/scoped.conf"
check_eq "$(jq_py 'j["flex"]["action"]')" KEEP "Partitions=other: not broadened"
check_match "$(jq_py 'j["flex"]["policy_reason"]')" "partition" "... and the reason names the partition"
check_eq "$(jq_py 'j["flex"]["could_start_now"]')" false "... so it still cannot start"

# The partition was what kept a2 out: the same request in partition other runs there.
other=$(cluster_sbatch -p other --gres=gpu:a100:4 --mem=1000 --wrap "sleep 300") ||
	cluster_fail "job in other rejected"
check_true "the request starts in partition other" wait_for_state "$other" RUNNING 20
check_eq "$(job_field "$other" NodeList)" a2 "... on a2"
cluster_finish
