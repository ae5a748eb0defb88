#!/bin/sh
# tests/integration/test_cluster.sh: proves the integration harness itself,
# without job_submit/nodeox: the article's 4-node fake-GPU cluster comes up,
# Slurm records GPU requests as documented, the article's blocked job pends
# with Reason=Resources while a hand-written untyped request with a feature OR
# starts on the free l40s GPUs, and cluster_stop leaves no daemon behind.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "${top_srcdir:-.}/tests/integration/lib/cluster.sh"

cluster_init
cluster_start

check_eq "$(sinfo -h -N -o '%N %f %G' | sort -u | tr '\n' ';')" \
	"a1 a100 gpu:a100:4(S:0-1);a2 a100 gpu:a100:4(S:0-1);l1 l40s gpu:l40s:4(S:0-1);l2 l40s gpu:l40s:4(S:0-1);" \
	"nodes, features and fake GPUs as configured"

# The article: 2 of a1's a100 busy, a2's all busy.
j1=$(cluster_sbatch -w a1 --gres=gpu:a100:2 --wrap "sleep 300")
j2=$(cluster_sbatch -w a2 --gres=gpu:a100:4 --wrap "sleep 300")
check_true "filler job on a1 runs" wait_for_state "$j1" RUNNING 20
check_true "filler job on a2 runs" wait_for_state "$j2" RUNNING 20
check_eq "$(job_field "$j1" NodeList)" a1 "filler 1 on a1"
check_eq "$(job_field "$j1" TresPerNode)" gres:gpu:a100:2 "--gres recorded in TresPerNode"

# A 4x a100 job waits although 6 GPUs are free.
j3=$(cluster_sbatch --gres=gpu:a100:4 --wrap "sleep 300")
check_true "typed 4x a100 job pends for Resources" wait_for_reason "$j3" Resources 20
check_eq "$(job_state "$j3")" PENDING "typed job still pending"

# What the plugin writes for it: untyped GPUs, OR of the types' features.
j4=$(cluster_sbatch --gpus=4 --constraint="a100|l40s" --wrap "sleep 300")
check_true "untyped job with a100|l40s starts" wait_for_state "$j4" RUNNING 20
check_match "$(job_field "$j4" NodeList)" '^l[12]$' "untyped job runs on an l40s node"
check_eq "$(job_field "$j4" TresPerJob)" gres:gpu:4 "--gpus recorded in TresPerJob"
check_eq "$(job_field "$j4" Features)" "a100|l40s" "constraint recorded in Features"
check_eq "$(job_state "$j3")" PENDING "typed job still pending after the other started"

# cluster_stop stops every recorded daemon and removes the run directory.
pids=$(for e in "${CLUSTER_PIDS[@]}"; do echo "${e#*:}"; done)
dir=$CLUSTER_DIR
check_eq "$(echo "$pids" | wc -l)" 6 "six daemons recorded (munged, slurmctld, 4 slurmd)"
cluster_stop
left=
for p in $pids; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
check_eq "$left" "" "no recorded daemon survives cluster_stop"
check_true "run directory removed" test ! -e "$dir"
cluster_finish
