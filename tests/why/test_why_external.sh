#!/bin/sh
# tests/why/test_why_external.sh: `nodeox why` does not count GPUs of a node in
# the EXTERNAL state (Slurm 25.05 and later: State=EXTERNAL in slurm.conf, a
# node without slurmd) as usable. a1 has 4 a100 and runs a job on all of them;
# e1, external, has 4 a100 too. A job asking 4 a100 waits: e1's GPUs are shown
# as on an unavailable node whose state is EXTERNAL, none eligible. Skipped
# before 25.05.
. "$top_srcdir/tests/why/why_lib.sh"
why_init
cluster_slurm_version
[ "$CLUSTER_SLURM_VNUM" -ge 2505 ] ||
	cluster_skip "Slurm $CLUSTER_SLURM_VERSION has no EXTERNAL node state (25.05 and later)"
cluster_add_node a1 gpu=a100:4
cluster_conf_line "NodeName=e1 NodeAddr=127.0.0.1 CPUs=8 RealMemory=16000 Gres=gpu:a100:4 Feature=a100 State=EXTERNAL"
cluster_start
sinfo -N -o '%N %t %G' | tee -a "$CLUSTER_DIR/sinfo.txt"
check_match "$(scontrol show node e1 | sed -n 's/^ *State=\([^ ]*\).*/\1/p')" "EXTERNAL" "e1 is EXTERNAL"

busy=$(cluster_sbatch -w a1 --gres=gpu:a100:4 --mem=1000 --wrap "sleep 300") || cluster_fail "busy job rejected"
wait_for_state "$busy" RUNNING 20 || cluster_fail "busy job did not start"
job=$(cluster_sbatch --gres=gpu:a100:4 --mem=1000 --wrap "sleep 300") || cluster_fail "job rejected"
why_wait_pending "$job"
why_run "$job"
check_eq "$(jq_py 'j["eligible_gpus"]')" 0 "none usable"
check_eq "$(jq_py 'gpus("node_unavailable")')" 4 "e1's 4: node unavailable"
check_eq "$(jq_py 'nodes("node_unavailable")')" e1 "... on e1"
check_match "$(jq_py 'detail("node_unavailable")')" "state EXTERNAL" "... named EXTERNAL"
cluster_finish
