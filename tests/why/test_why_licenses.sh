#!/bin/sh
# tests/why/test_why_licenses.sh: `nodeox why` on a job waiting for licenses.
# slurm.conf has Licenses=matlab:2; a running job holds both; a job asking 1
# waits (Reason=Licenses): the blocker says 1 asked, 2 in use of 2, held by
# that job. Once the holder is cancelled the job starts.
. "$top_srcdir/tests/why/why_lib.sh"
why_init
cluster_add_node a1 gpu=a100:4
cluster_conf_line "Licenses=matlab:2"
cluster_start

holder=$(cluster_sbatch -L matlab:2 -t 5 --wrap "sleep 300") || cluster_fail "holder rejected"
wait_for_state "$holder" RUNNING 20 || cluster_fail "holder did not start"
job=$(cluster_sbatch -L matlab:1 -t 5 --wrap "sleep 300") || cluster_fail "job rejected"
wait_for_reason "$job" Licenses 20 || cluster_fail "job not waiting on Licenses"
why_run "$job"
why_check_reason "$job"
check_eq "$(jq_py 'kinds()')" licenses "one blocker: licenses"
check_eq "$(jq_py 'blk("licenses")["values"]["what"]')" matlab "... matlab"
check_eq "$(jq_py 'blk("licenses")["values"]["job"]')" 1 "... 1 asked"
check_eq "$(jq_py 'blk("licenses")["values"]["limit"]')" 2 "... 2 in all"
check_eq "$(jq_py 'blk("licenses")["values"]["in_use"]')" 2 "... 2 in use"
check_eq "$(jq_py 'bjobs("licenses")')" "$holder" "... held by the holder"
check_match "$("$WHY_BIN" why "$job")" "licenses: it needs 1 matlab license; 2 of 2 are in use" "text"

scancel "$holder"
check_true "the job starts once the licenses are free" wait_for_state "$job" RUNNING 20
cluster_finish
