#!/bin/sh
# tests/integration/test_cluster_custom.sh: the harness with a non-default
# topology (as other tests build for memory, CPU, partition and drain
# scenarios): per-node CPUs, memory, features and extra gres, two partitions,
# extra slurm.conf lines, and a drained node; checks that Slurm sees exactly
# that and schedules by it.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "${top_srcdir:-.}/tests/integration/lib/cluster.sh"

cluster_init
cluster_add_node big gpu=a100:2 cpus=16 mem=64000 features=ib gres=nic:1
cluster_add_node small cpus=3 mem=4000
cluster_add_node cpu1 cpus=4 mem=8000 features=ib
cluster_add_partition main big,small Default=YES
cluster_add_partition cpu cpu1 MaxTime=30
cluster_conf_line "MaxJobCount=5000"
cluster_start

check_eq "$(sinfo -h -N -o '%N %c %m %f %G %P' | sort | tr '\n' ';')" \
	"big 16 64000 ib,a100 gpu:a100:2(S:0-1),nic:1 main*;cpu1 4 8000 ib (null) cpu;small 3 4000 (null) (null) main*;" \
	"nodes have the CPUs, memory, features, gres and partitions asked for"
check_eq "$(scontrol show config | sed -n 's/^MaxJobCount *= *//p')" 5000 "extra slurm.conf line applied"

# Memory decides placement: 10 GB fits only on big.
j=$(cluster_sbatch --mem=10G --wrap "sleep 300")
check_true "10G job runs" wait_for_state "$j" RUNNING 20
check_eq "$(job_field "$j" NodeList)" big "10G job on the only node with enough memory"
# More memory than any node of the partition: rejected at submit.
check_true "100G job rejected" eval '! cluster_sbatch --mem=100G --wrap true >/dev/null'
# CPUs: 4 tasks fit on cpu1 in partition cpu, whose MaxTime is 30 min.
j=$(cluster_sbatch -p cpu -n 4 --wrap "sleep 300")
check_true "4-task job runs in partition cpu" wait_for_state "$j" RUNNING 20
check_eq "$(job_field "$j" NodeList)" cpu1 "4-task job on cpu1"
check_eq "$(job_field "$j" TimeLimit)" 00:30:00 "partition MaxTime applies"

# A drained node gets no new job.
cluster_drain small "harness test"
check_match "$(sinfo -h -n small -o '%t %E')" '^drain.* harness test$' "small drained with its reason"
j=$(cluster_sbatch -w small --wrap "sleep 300")
check_true "job for the drained node pends" wait_for_reason "$j" ReqNodeNotAvail 20
cluster_finish
