#!/bin/sh
# tests/why/test_why_priority.sh: `nodeox why` on jobs waiting for other
# jobs to finish or go first. J1 runs on both nodes (exclusive, 10 min). J2
# wants both nodes too (Reason=Resources): the blocker names J1 with its end,
# and the expected start is backfill's, the job's StartTime. J3 wants one node
# for 20 min, so it cannot backfill before J2 (Reason=Priority): the first
# blocker lists J2 ahead with its priority and expected start, and J3's own
# expected start is its StartTime. Cancelling J1 and J2 lets J3 start.
. "$top_srcdir/tests/why/why_lib.sh"
why_init
cluster_add_node a1 gpu=a100:4
cluster_add_node a2 gpu=a100:4
cluster_start

j1=$(cluster_sbatch -N2 --exclusive -t 10 --wrap "sleep 300") || cluster_fail "J1 rejected"
wait_for_state "$j1" RUNNING 20 || cluster_fail "J1 did not start"
j2=$(cluster_sbatch -N2 --exclusive -t 10 --wrap "sleep 300") || cluster_fail "J2 rejected"
j3=$(cluster_sbatch -N1 -t 20 --wrap "sleep 300") || cluster_fail "J3 rejected"
wait_for_reason "$j2" Resources 20 || cluster_fail "J2 not waiting on Resources"
wait_for_reason "$j3" Priority 20 || cluster_fail "J3 not waiting on Priority"
# backfill plans both (bf_interval=1): wait until squeue --start has a time.
for i in $(seq 30); do
	[ "$(job_field "$j3" StartTime)" != Unknown ] && [ "$(job_field "$j2" StartTime)" != Unknown ] && break
	sleep 0.3
done

why_run "$j2"
why_check_reason "$j2"
check_eq "$(jq_py '"busy" in kinds()')" true "J2: running jobs hold the nodes"
check_eq "$(jq_py 'bjobs("busy")')" "$j1" "... J1"
check_eq "$(jq_py 'blk("busy")["jobs"][0]["end_time"]')" "$(job_field "$j1" EndTime)" "... with J1's end"
check_eq "$(jq_py '"jobs_ahead" in kinds()')" false "nothing ahead of J2"
check_eq "$(jq_py 'j["expected_start"]')" "$(job_field "$j2" StartTime)" "J2's expected start is its StartTime"
check_eq "$(jq_py 'j["expected_start_source"]')" backfill "... from backfill"

why_run "$j3"
why_check_reason "$j3"
check_eq "$(jq_py 'kinds()[0]')" jobs_ahead "J3: the first blocker is the jobs ahead"
check_eq "$(jq_py 'bjobs("jobs_ahead")')" "$j2" "... J2"
check_eq "$(jq_py 'blk("jobs_ahead")["values"]["limit"]')" "$(job_field "$j2" Priority)" "... with J2's priority"
check_eq "$(jq_py 'blk("jobs_ahead")["values"]["job"]')" "$(job_field "$j3" Priority)" "... against J3's"
check_eq "$(jq_py 'blk("jobs_ahead")["jobs"][0]["start_time"]')" "$(job_field "$j2" StartTime)" \
	"... and J2's expected start"
check_eq "$(jq_py 'j["expected_start"]')" "$(job_field "$j3" StartTime)" "J3's expected start is its StartTime"
check_eq "$(jq_py 'bjobs("busy")')" "$j1" "J3: J1 holds the nodes"
check_match "$("$WHY_BIN" why "$j3")" "^Expected start: $(job_field "$j3" StartTime) \(slurmctld's backfill" \
	"text: expected start"

# Remove the cause: J1 and J2 go, J3 starts.
scancel "$j1" "$j2"
check_true "J3 starts once the jobs ahead are gone" wait_for_state "$j3" RUNNING 20
cluster_finish
