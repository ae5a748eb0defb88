#!/bin/sh
# tests/why/test_why_cpumem.sh: `nodeox why` when the nodes with idle GPUs have
# too few CPUs or too little memory left. a1 and a2 have 4 a100 each, 8 CPUs
# and 16000 MB; a job on a1 takes 1 GPU and 7 CPUs, one on a2 takes 1 GPU and
# 14000 MB. A job asking 2 a100, 4 CPUs and 4000 MB waits with 6 GPUs idle:
# the explanation must blame CPUs on a1 and memory on a2. Then the CPU hog
# ends and Slurm starts the job, as the explanation implies.
. "$top_srcdir/tests/why/why_lib.sh"
why_init
cluster_add_node a1 gpu=a100:4 cpus=8 mem=16000
cluster_add_node a2 gpu=a100:4 cpus=8 mem=16000
cluster_start

cpu_hog=$(cluster_sbatch -w a1 --gres=gpu:a100:1 -c 7 --mem=1000 --wrap "sleep 300") ||
	cluster_fail "cpu hog rejected"
mem_hog=$(cluster_sbatch -w a2 --gres=gpu:a100:1 -c 1 --mem=14000 --wrap "sleep 300") ||
	cluster_fail "memory hog rejected"
wait_for_state "$cpu_hog" RUNNING 20 || cluster_fail "cpu hog did not start"
wait_for_state "$mem_hog" RUNNING 20 || cluster_fail "memory hog did not start"

job=$(cluster_sbatch --gres=gpu:a100:2 -c 4 --mem=4000 --wrap "sleep 300") || cluster_fail "job rejected"
why_wait_pending "$job"
why_run "$job"
why_check_reason "$job"
check_eq "$(jq_py 'j["request"]["cpus_per_node"]')" 4 "4 CPUs needed on a node"
check_eq "$(jq_py 'j["request"]["mem_per_node_mb"]')" 4000 "4000 MB needed on a node"
check_eq "$(jq_py 'j["idle_gpus"]')" 6 "6 GPUs idle"
check_eq "$(jq_py 'j["eligible_gpus"]')" 0 "none usable"
why_check_excluded cpus a100 3 a1 "needs 4 CPUs, 1 of 8 left" \
	"a1's 3 idle a100: not enough CPUs left"
why_check_excluded memory a100 3 a2 "needs 4000 MB, 2000 of 16000 MB left" \
	"a2's 3 idle a100: not enough memory left"
check_eq "$(jq_py 'j["could_start_now"]')" false "cannot start now"
why_check_sum
# Before the GPU view, the blockers say the same in the job's terms.
check_eq "$(jq_py '[k for k in kinds() if k in ("cpus", "memory", "gpus")]')" cpus,memory,gpus \
	"blockers: CPUs, memory, then GPUs"
check_match "$(jq_py 'blk("cpus")["detail"]')" "a1: needs 4 CPUs, 1 of 8 left" "... a1's CPUs"
check_match "$(jq_py 'blk("memory")["detail"]')" "a2: needs 4000 MB, 2000 of 16000 MB left" "... a2's memory"
check_eq "$(jq_py 'j["flex"]["conf"]')" null "no nodeox.conf: no flexible view"
check_match "$(jq_py 'j["flex"]["conf_error"]')" "no nodeox.conf at" "... and it says so"

# --mem-per-cpu: 1500 MB x 4 CPUs = 6000 MB, reckoned per node
job2=$(cluster_sbatch --gres=gpu:a100:1 -c 4 --mem-per-cpu=1500 --wrap "sleep 300") ||
	cluster_fail "job2 rejected"
why_wait_pending "$job2"
why_run "$job2"
check_eq "$(jq_py 'j["request"]["mem_per_node_mb"]')" 6000 "--mem-per-cpu x CPUs"
check_eq "$(jq_py 'gpus("memory")')" 3 "memory still excludes a2"
scancel "$job2"

# One task of a pending array, by JOBID_TASK: the same request is read.
arr=$(cluster_sbatch --array=0-1 --gres=gpu:a100:2 -c 4 --mem=4000 --wrap "sleep 300") ||
	cluster_fail "array rejected"
why_wait_pending "$arr"
why_run "${arr}_1"
check_eq "$(jq_py 'j["request"]["gpus_total"]')" 2 "array task: 2 GPUs"
check_eq "$(jq_py 'gpus("cpus") + gpus("memory")')" 6 "array task: CPUs and memory exclude all 6"
scancel "$arr"

# Without GPUs: 4 CPUs and 4000 MB on one node. a1 has 1 CPU left, a2 2000
# MB: the blockers say so, node by node (never "nothing to explain").
nogpu=$(cluster_sbatch -c 4 --mem=4000 --wrap "sleep 300") || cluster_fail "job without GPUs rejected"
why_wait_pending "$nogpu"
why_run "$nogpu"
why_check_reason "$nogpu"
check_eq "$(jq_py 'j["request"]["gpus_per"]')" none "no GPUs asked"
check_eq "$(jq_py '"cpus" in kinds() and "memory" in kinds()')" true "blockers: CPUs and memory"
check_eq "$(jq_py 'blk("cpus")["values"]["job"]')" 4 "4 CPUs needed on a node"
check_match "$(jq_py 'blk("cpus")["detail"]')" "a1: needs 4 CPUs, 1 of 8 left" "... a1 has 1 of 8"
check_eq "$(jq_py 'blk("memory")["values"]["job"]')" 4000 "4000 MB needed on a node"
check_match "$(jq_py 'blk("memory")["detail"]')" "a2: needs 4000 MB, 2000 of 16000 MB left" \
	"... a2 has 2000 of 16000 MB"
check_eq "$(jq_py 'bjobs("busy")')" "$cpu_hog,$mem_hog" "the running jobs on the nodes, first to end first"
check_eq "$(jq_py 'j["never_runs"]')" false "it could run"
text=$("$WHY_BIN" why "$nogpu")
check_match "$text" "^  - cpus: it needs 4 CPU\(s\) free on 1 node" "text: CPUs first"
check_eq "$(printf '%s\n' "$text" | grep -c "nothing to explain")" 0 "text: never 'nothing to explain'"

# The CPUs were what held it on a1: free them and Slurm starts it there.
scancel "$cpu_hog"
check_true "job starts once a1's CPUs are free" wait_for_state "$job" RUNNING 20
check_eq "$(job_field "$job" NodeList)" a1 "... on a1"
check_true "the job without GPUs starts too (a1: 4 CPUs and 12000 MB left)" \
	wait_for_state "$nogpu" RUNNING 20
cluster_finish
