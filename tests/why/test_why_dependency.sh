#!/bin/sh
# tests/why/test_why_dependency.sh: `nodeox why` on jobs waiting for other
# jobs. Job A is held; B depends afterok:A, so it waits on Dependency: the
# blocker names A, its state (PENDING, held) and that it can still be met. F
# fails (exit 1); C depends afterok:F and can never be satisfied: the blocker
# says so (never). Releasing A lets it complete, and B starts.
. "$top_srcdir/tests/why/why_lib.sh"
why_init
cluster_add_node a1 gpu=a100:4
cluster_start

a=$(cluster_sbatch -H -t 1 --wrap "true") || cluster_fail "A rejected"
b=$(cluster_sbatch --dependency=afterok:"$a" --wrap "sleep 300") || cluster_fail "B rejected"
wait_for_reason "$b" Dependency 20 || cluster_fail "B not waiting on its dependency"
why_run "$b"
why_check_reason "$b"
check_eq "$(jq_py 'kinds()')" dependency "one blocker: the dependency"
check_eq "$(jq_py 'bjobs("dependency")')" "$a" "... on job A"
check_eq "$(jq_py 'blk("dependency")["values"]["what"]')" afterok "... of type afterok"
check_eq "$(jq_py 'blk("dependency")["values"]["job"]')" "afterok:$a" "... as Slurm lists it"
check_eq "$(jq_py 'blk("dependency")["values"]["limit"]')" PENDING "... A is PENDING"
check_match "$(jq_py 'blk("dependency")["detail"]')" "Reason=JobHeldUser.*until it completes successfully" \
	"detail: A is held, B waits until A completes"
check_eq "$(jq_py 'blk("dependency")["never"]')" false "... can still be satisfied"
check_eq "$(jq_py 'j["never_runs"]')" false "B could run"

f=$(cluster_sbatch -t 1 --wrap "false") || cluster_fail "F rejected"
c=$(cluster_sbatch --dependency=afterok:"$f" --wrap "sleep 300") || cluster_fail "C rejected"
wait_for_state "$f" FAILED 20 || cluster_fail "F did not fail"
wait_for_reason "$c" DependencyNeverSatisfied 20 || cluster_fail "C not marked never satisfied"
why_run "$c"
check_eq "$(jq_py 'kinds()[0]')" dependency "C: the dependency"
check_eq "$(jq_py 'bjobs("dependency")')" "$f" "... on F"
check_eq "$(jq_py 'blk("dependency")["values"]["limit"]')" FAILED "... which FAILED"
check_eq "$(jq_py 'blk("dependency")["never"]')" true "... so it can never be satisfied"
check_match "$(jq_py 'blk("dependency")["detail"]')" "can no longer be satisfied" "detail says so"

# Satisfy B's dependency: release A, it completes, B starts.
scontrol release "$a" || cluster_fail "cannot release A"
check_true "A completes" wait_for_state "$a" COMPLETED 20
check_true "B starts once A completed" wait_for_state "$b" RUNNING 20
cluster_finish
