#!/bin/sh
# tests/why/test_why_qos.sh: `nodeox why` on jobs held back by QOS and
# association limits, with the use against the limit read from slurmctld's
# assoc_mgr. A real accounting stack (tests/integration/lib/accounting.sh:
# MariaDB, slurmdbd) with AccountingStorageEnforce=associations,limits,qos;
# the test user's association in account proj, QOS capped with
# MaxTRESPerUser=cpu=2. Job 1 (2 CPUs) runs; job 2 (2 CPUs) pends on
# QOSMaxCpuPerUserLimit: the blocker is qos_limit with job 2, limit 2, in use
# 2. Raising the limit with sacctmgr starts it. Then the association gets
# GrpTRES=cpu=4 (4 in use); job 3 pends on AssocGrpCpuLimit with job 2,
# limit 4, in use 4; cancelling job 1 starts it.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$top_srcdir/tests/integration/lib/accounting.sh"
. "$top_srcdir/tests/why/why_lib.sh"
why_init accounting_init cpu,mem,node
cluster_conf_line "AccountingStorageEnforce=associations,limits,qos"
cluster_add_node a1 gpu=a100:4 cpus=8
cluster_start

sacctmgr -i add qos capped MaxTRESPerUser=cpu=2 > /dev/null || cluster_fail "sacctmgr add qos"
sacctmgr -i add account proj > /dev/null || cluster_fail "sacctmgr add account"
sacctmgr -i add user "$CLUSTER_USER" account=proj qos=normal,capped defaultqos=capped > /dev/null ||
	cluster_fail "sacctmgr add user"
# slurmdbd pushes the change to slurmctld: wait until it knows the user.
for i in $(seq 50); do
	scontrol show assoc_mgr users="$CLUSTER_USER" flags=assoc 2>/dev/null | grep -q "Account=proj" && break
	sleep 0.2
done

# check_blocker KIND WHAT JOB LIMIT IN_USE: the first blocker and its values.
check_blocker()
{
	check_eq "$(jq_py 'kinds()[0]')" "$1" "first blocker: $1"
	check_eq "$(jq_py "blk('$1')['values']['what']")" "$2" "what: $2"
	check_eq "$(jq_py "blk('$1')['values']['job']")" "$3" "the job asks $3"
	check_eq "$(jq_py "blk('$1')['values']['limit']")" "$4" "the limit is $4"
	check_eq "$(jq_py "blk('$1')['values']['in_use']")" "$5" "$5 in use"
}

w=(-A proj -q capped -n 1 -c 2 -t 5 --wrap "sleep 300")
j1=$(cluster_sbatch "${w[@]}") || cluster_fail "job 1 rejected"
wait_for_state "$j1" RUNNING 20 || cluster_fail "job 1 did not start"
j2=$(cluster_sbatch "${w[@]}") || cluster_fail "job 2 rejected"
wait_for_reason "$j2" QOSMaxCpuPerUserLimit 20 || cluster_fail "job 2 not held by the QOS"
why_run "$j2"
why_check_reason "$j2"
# 2 CPUs asked, 2 allowed per user, 2 in use by job 1.
check_blocker qos_limit "MaxCpuPerUser cpu" 2 2 2
check_match "$(jq_py 'blk("qos_limit")["detail"]')" "capped.*cpu: the job asks 2, 2 in use, limit 2" \
	"detail says the numbers"
check_match "$("$WHY_BIN" why "$j2")" "qos_limit: .*2 in use, limit 2" "text: the numbers too"

sacctmgr -i modify qos capped set MaxTRESPerUser=cpu=4 > /dev/null || cluster_fail "sacctmgr modify qos"
check_true "limit raised, job 2 starts" wait_for_state "$j2" RUNNING 30

# The association's GrpTRES: 4 CPUs, all in use by jobs 1 and 2.
sacctmgr -i modify user "$CLUSTER_USER" where account=proj set GrpTRES=cpu=4 > /dev/null ||
	cluster_fail "sacctmgr modify user"
j3=$(cluster_sbatch -A proj -q normal -n 1 -c 2 -t 5 --wrap "sleep 300") || cluster_fail "job 3 rejected"
wait_for_reason "$j3" AssocGrpCpuLimit 30 || cluster_fail "job 3 not held by the association"
why_run "$j3"
why_check_reason "$j3"
# 2 CPUs asked, 4 allowed to the association, 4 in use by jobs 1 and 2.
check_blocker assoc_limit "GrpCpu cpu" 2 4 4
scancel "$j1"
check_true "job 1 cancelled, job 3 starts" wait_for_state "$j3" RUNNING 30
cluster_finish
