#!/bin/sh
# tests/why/test_why_partlimit.sh: `nodeox why` on jobs over a partition's
# limits, which waiting never lifts. Partition gpu (a1, a2: 8 CPUs, MaxTime
# 30 min), small (a1, a2, MaxNodes=1), wide (w1, 64 CPUs).
#  -c 64 in gpu: PartitionConfig; it can never run in gpu (8 CPUs at most),
#   said plainly; moved to wide, it starts.
#  -t 60 in gpu: PartitionTimeLimit, 60 against 30; MaxTime raised, it starts.
#  -N 2 in small: PartitionNodeLimit, 2 against 1; MaxNodes raised, it starts.
#  gpu set DOWN: PartitionDown; set UP, the job starts.
. "$top_srcdir/tests/why/why_lib.sh"
why_init
cluster_add_node a1 gpu=a100:4
cluster_add_node a2 gpu=a100:4
cluster_add_node w1 cpus=64 mem=40000
cluster_add_partition gpu a1,a2 Default=YES MaxTime=30
cluster_add_partition small a1,a2 MaxNodes=1
cluster_add_partition wide w1
cluster_start

# Slurm 24.11 refuses such a job at submission already ("Requested node
# configuration is not available"); 22.05 queues it on PartitionConfig.
if ! cpu=$(cluster_sbatch -p gpu -c 64 --mem=1000 --wrap "sleep 300"); then
	[ "$CLUSTER_SLURM_VNUM" -ge 2302 ] || cluster_fail "-c 64 rejected"
	check_match "$(cluster_submit_msg)" "Requested node configuration is not available" \
		"-c 64 refused at submission ($CLUSTER_SLURM_VERSION)"
	cpu=
fi
tl=$(cluster_sbatch -p gpu -t 60 --mem=1000 --wrap "sleep 300") || cluster_fail "-t 60 rejected"
nl=$(cluster_sbatch -p small -N 2 --mem=1000 --wrap "sleep 300") || cluster_fail "-N 2 rejected"
[ -z "$cpu" ] || wait_for_reason "$cpu" PartitionConfig 20 || cluster_fail "-c 64 not on PartitionConfig"
wait_for_reason "$tl" PartitionTimeLimit 20 || cluster_fail "-t 60 not on PartitionTimeLimit"
wait_for_reason "$nl" PartitionNodeLimit 20 || cluster_fail "-N 2 not on PartitionNodeLimit"

if [ -n "$cpu" ]; then
	why_run "$cpu"
	why_check_reason "$cpu"
	check_eq "$(jq_py 'j["never_runs"]')" true "-c 64: can never run in gpu"
	check_eq "$(jq_py 'kinds()')" partition_cpus "... because of CPUs"
	check_eq "$(jq_py 'blk("partition_cpus")["values"]["job"]')" 64 "... 64 CPUs asked on a node"
	check_eq "$(jq_py 'blk("partition_cpus")["values"]["limit"]')" 8 "... 8 at most in gpu"
	check_eq "$(jq_py 'blk("partition_cpus")["never"]')" true "... waiting does not change it"
	check_eq "$(jq_py 'j["expected_start"]')" null "no expected start"
	text=$("$WHY_BIN" why "$cpu")
	check_match "$text" "It can never run in its partition as configured \(gpu\)" "text: says it plainly"
	check_match "$text" "needs 64 CPUs on a node; the nodes of partition gpu have at most 8" "text: the values"
	check_match "$text" "The job asks for no GPUs: what holds it is said above" "no 'nothing to explain'"
fi

why_run "$tl"
check_eq "$(jq_py 'kinds()')" partition_time_limit "-t 60: the partition's time limit"
check_eq "$(jq_py 'blk("partition_time_limit")["values"]["what"]')" time_limit_min "... in minutes"
check_eq "$(jq_py 'blk("partition_time_limit")["values"]["job"]')" 60 "... job 60"
check_eq "$(jq_py 'blk("partition_time_limit")["values"]["limit"]')" 30 "... MaxTime 30"
check_eq "$(jq_py 'j["never_runs"]')" true "... never as configured"

why_run "$nl"
check_eq "$(jq_py 'kinds()')" partition_node_limit "-N 2: the partition's node limit"
check_eq "$(jq_py 'blk("partition_node_limit")["values"]["what"]')" max_nodes "... MaxNodes"
check_eq "$(jq_py 'blk("partition_node_limit")["values"]["job"]')" 2 "... job 2"
check_eq "$(jq_py 'blk("partition_node_limit")["values"]["limit"]')" 1 "... limit 1"

# Remove each cause: the job starts.
if [ -n "$cpu" ]; then
	cluster_update_job jobid="$cpu" partition=wide || cluster_fail "cannot move $cpu to wide"
	check_true "-c 64 starts in wide" wait_for_state "$cpu" RUNNING 20
	check_eq "$(job_field "$cpu" NodeList)" w1 "... on w1"
fi
scontrol update partitionname=gpu maxtime=60 || cluster_fail "cannot raise MaxTime"
check_true "-t 60 starts once MaxTime is 60" wait_for_state "$tl" RUNNING 20
scontrol update partitionname=small maxnodes=2 || cluster_fail "cannot raise MaxNodes"
check_true "-N 2 starts once MaxNodes is 2" wait_for_state "$nl" RUNNING 20

# A partition set DOWN: the job waits for an administrator to set it UP.
scontrol update partitionname=gpu state=down || cluster_fail "cannot set gpu down"
pd=$(cluster_sbatch -p gpu -t 10 --mem=1000 --wrap "sleep 300") || cluster_fail "job in gpu rejected"
wait_for_reason "$pd" PartitionDown 20 || cluster_fail "job not waiting on PartitionDown"
why_run "$pd"
why_check_reason "$pd"
check_eq "$(jq_py 'kinds()')" partition_state "PartitionDown: the partition's state"
check_eq "$(jq_py 'blk("partition_state")["values"]["limit"]')" DOWN "... DOWN"
check_eq "$(jq_py 'j["never_runs"]')" false "... not a never"
scontrol update partitionname=gpu state=up || cluster_fail "cannot set gpu up"
check_true "the job starts once gpu is UP" wait_for_state "$pd" RUNNING 20
cluster_finish
