#!/bin/sh
# tests/why/test_why_nodestate.sh: `nodeox why` when the nodes with idle GPUs
# are drained or down. a1, a2, a3 have 4 a100 each; an admin drains a1 ("fan
# broken") and downs a2, and a3 runs a job on 2 GPUs. A job asking 4 a100 per
# node waits with 10 GPUs idle: drained a1, down a2, too few on a3. After the
# admin resumes a1, Slurm starts the job there, as the explanation implies.
. "$top_srcdir/tests/why/why_lib.sh"
why_init
cluster_add_node a1 gpu=a100:4
cluster_add_node a2 gpu=a100:4
cluster_add_node a3 gpu=a100:4
cluster_start

cluster_drain a1 "fan broken"
scontrol update nodename=a2 state=down reason="bad dimm" || cluster_fail "cannot down a2"
busy=$(cluster_sbatch -w a3 --gres=gpu:a100:2 --mem=1000 --wrap "sleep 300") || cluster_fail "busy job rejected"
wait_for_state "$busy" RUNNING 20 || cluster_fail "busy job did not start"

job=$(cluster_sbatch --gres=gpu:a100:4 --mem=1000 --wrap "sleep 300") || cluster_fail "job rejected"
why_wait_pending "$job"
why_run "$job"
why_check_reason "$job"
check_eq "$(jq_py 'j["idle_gpus"]')" 10 "10 GPUs idle"
check_eq "$(jq_py 'j["eligible_gpus"]')" 0 "none usable"
why_check_excluded node_drained "" 4 a1 "DRAIN.*fan broken" \
	"a1's 4: node drained (the detail with the admin's reason)"
why_check_excluded node_down "" 4 a2 "DOWN.*bad dimm" \
	"a2's 4: node down (the detail with the admin's reason)"
check_eq "$(jq_py 'gpus("gpus_per_node")')" 2 "a3's 2: too few per node"
why_check_sum
check_eq "$(jq_py '"nodes_unavailable" in kinds() and "gpus" in kinds()')" true \
	"blockers: nodes unavailable, GPUs"
check_eq "$(jq_py 'blk("nodes_unavailable")["values"]["limit"]')" a1,a2 "... a1 and a2"
check_match "$(jq_py 'blk("nodes_unavailable")["detail"]')" "a1: state .*DRAIN.*fan broken" \
	"... a1 drained, with the admin's reason"
check_match "$(jq_py 'blk("nodes_unavailable")["detail"]')" "a2: state DOWN.*bad dimm" "... a2 down"
text=$("$WHY_BIN" why "$job")
check_match "$text" "node drained +4 a100 +on a1" "text: drained a1"
check_match "$text" "node down +4 a100 +on a2" "text: down a2"

# Resuming a1 removes the cause: Slurm starts the job there.
scontrol update nodename=a1 state=resume || cluster_fail "cannot resume a1"
check_true "job starts once a1 is resumed" wait_for_state "$job" RUNNING 20
check_eq "$(job_field "$job" NodeList)" a1 "... on a1"
cluster_finish
