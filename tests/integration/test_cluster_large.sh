#!/bin/sh
# tests/integration/test_cluster_large.sh: a cluster larger than one port
# block (cluster_plan_size): 40 slurmd on ports of their own, the block and
# the one after it claimed with their locks (which no daemon inherits), every
# node up, and one job spanning all of them. The large fidelity replays
# (tools/replay, 160 nodes) take the same way.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib/cluster.sh"

cluster_plan_size 40
cluster_init
check_eq "$CLUSTER_PORT_SPAN" 64 "40 nodes take two 32-port blocks"
for b in 0 32; do
	check_true "port block $((CLUSTER_PORT + b)) is locked" \
		eval "! flock -n /tmp/nodeox-it-port.$((CLUSTER_PORT + b)).lock true"
done
for i in $(seq 40); do cluster_add_node "n$i" gpu=a100:1 cpus=2; done
cluster_start

check_eq "$(sinfo -h -N -t idle -o %N | sort -u | wc -l)" 40 "all 40 nodes idle"
ports=$(sed -n 's/^NodeName=.* Port=\([0-9]*\) .*/\1/p' "$CLUSTER_DIR/slurm.conf" | sort -un)
check_eq "$(echo "$ports" | wc -l) $(echo "$ports" | head -n 1) $(echo "$ports" | tail -n 1)" \
	"40 $((CLUSTER_PORT + 1)) $((CLUSTER_PORT + 40))" "each slurmd on a port of its own, inside the block"
held=0
for e in "${CLUSTER_PIDS[@]}"; do
	[ -n "$e" ] || continue
	ls -l "/proc/${e#*:}/fd" 2>/dev/null | grep -q 'nodeox-it-port\.' && held=$((held + 1))
done
check_eq "$held" 0 "no daemon holds a port block's lock"

j=$(cluster_sbatch -N 40 --gres=gpu:a100:1 --wrap "sleep 300")
check_true "40-node job runs" wait_for_state "$j" RUNNING 30
check_eq "$(scontrol show hostnames "$(job_field "$j" NodeList)" | wc -l)" 40 "the job has all 40 nodes"
cluster_finish
