#!/bin/sh
# tests/why/test_why_reservation.sh: `nodeox why` and reservations.
#  A job in reservation "later" (starts in an hour, on a1) waits on
#   Reason=Reservation: the blocker names it and its start, which is the
#   expected start; moving the reservation to now starts the job.
#  A maintenance reservation holds a2 from now: a job asking for a2 waits,
#   and the blocker names the reservation; deleting it starts the job.
. "$top_srcdir/tests/why/why_lib.sh"
why_init
cluster_add_node a1 gpu=a100:4
cluster_add_node a2 gpu=a100:4
cluster_start

scontrol create reservation reservationname=later starttime=now+3600 duration=60 nodes=a1 users=root,$CLUSTER_USER \
	>/dev/null || cluster_fail "cannot create reservation later"
job=$(cluster_sbatch --reservation=later -t 5 --wrap "sleep 300") || cluster_fail "job rejected"
wait_for_reason "$job" Reservation 20 || cluster_fail "job not waiting on Reservation"
why_run "$job"
why_check_reason "$job"
start=$(scontrol show reservation later | sed -n 's/.*StartTime=\([^ ]*\).*/\1/p')
check_eq "$(jq_py 'kinds()[0]')" reservation "first blocker: its reservation"
check_eq "$(jq_py 'blk("reservation")["values"]["job"]')" later "... later"
check_eq "$(jq_py 'blk("reservation")["values"]["limit"]')" "$start" "... which starts at its StartTime"
check_eq "$(jq_py 'j["expected_start"]')" "$start" "expected start: the reservation's start"
check_eq "$(jq_py 'j["expected_start_source"]')" reservation "... said so"

scontrol create reservation reservationname=maint starttime=now duration=60 nodes=a2 users=root \
	flags=maint,ignore_jobs >/dev/null || cluster_fail "cannot create reservation maint"
held=$(cluster_sbatch -w a2 -t 5 --wrap "sleep 300") || cluster_fail "job on a2 rejected"
why_wait_pending "$held"
why_run "$held"
check_match "$(job_field "$held" Reason)" "^ReqNodeNotAvail" "Slurm: ReqNodeNotAvail"
check_eq "$(jq_py 'j["reason"]')" ReqNodeNotAvail "... read as such"
check_eq "$(jq_py '"nodes_reserved" in kinds()')" true "job on a2: a reservation holds the node"
check_eq "$(jq_py 'blk("nodes_reserved")["values"]["limit"]')" maint "... maint"
check_match "$(jq_py 'blk("nodes_reserved")["detail"]')" "maint \(maintenance\) holds a2" "... a2, maintenance"

# Remove the causes: the reservation starts now; the maintenance is over.
scontrol update reservationname=later starttime=now >/dev/null || cluster_fail "cannot move later"
check_true "the job starts once its reservation has begun" wait_for_state "$job" RUNNING 20
scontrol delete reservationname=maint || cluster_fail "cannot delete maint"
check_true "the job on a2 starts once the maintenance is gone" wait_for_state "$held" RUNNING 20
cluster_finish
