#!/bin/sh
# tests/why/test_why_begin.sh: `nodeox why` on a job submitted with --begin
# an hour ahead (Reason=BeginTime): the blocker gives the begin time, the
# expected start is that time; `scontrol update starttime=now` lifts it and
# the job starts.
. "$top_srcdir/tests/why/why_lib.sh"
why_init
cluster_add_node a1 gpu=a100:4
cluster_start

job=$(cluster_sbatch --begin=now+3600 -t 5 --wrap "sleep 300") || cluster_fail "job rejected"
wait_for_reason "$job" BeginTime 20 || cluster_fail "job not waiting on BeginTime"
why_run "$job"
why_check_reason "$job"
begin=$(job_field "$job" EligibleTime)
check_eq "$(jq_py 'kinds()')" begin_time "one blocker: the begin time"
check_eq "$(jq_py 'blk("begin_time")["values"]["job"]')" "$begin" "... the job's EligibleTime"
check_eq "$(jq_py 'j["expected_start"]')" "$begin" "expected start: the begin time"
check_eq "$(jq_py 'j["expected_start_source"]')" begin_time "... said so"
text=$("$WHY_BIN" why "$job")
check_match "$text" "begin_time: it may not start before $begin" "text: the begin time"
check_match "$text" "scontrol update jobid=$job starttime=now lifts that" "text: how to lift it"

scontrol update jobid="$job" starttime=now || cluster_fail "cannot move the begin time"
check_true "the job starts once its begin time is now" wait_for_state "$job" RUNNING 20
cluster_finish
