#!/bin/sh
# tests/integration/test_cluster.sh: proves the integration harness itself,
# without job_submit/nodeox: the article's 4-node fake-GPU cluster comes up,
# Slurm records GPU requests as documented, the article's blocked job pends
# with Reason=Resources while a hand-written untyped request with a feature OR
# starts on the free l40s GPUs, and cluster_stop leaves no daemon behind, nor
# does a test that fails or is killed (TERM, or KILL via the watchdog).
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib/cluster.sh"

cluster_init
cluster_start

check_eq "$(sinfo -h -N -o '%N %f %G' | sort -u | tr '\n' ';')" \
	"a1 a100 gpu:a100:4(S:0-1);a2 a100 gpu:a100:4(S:0-1);l1 l40s gpu:l40s:4(S:0-1);l2 l40s gpu:l40s:4(S:0-1);" \
	"nodes, features and fake GPUs as configured"

# The article: 2 of a1's a100 busy, a2's all busy.
cluster_filler j1 a1 gpu:a100:2
cluster_filler j2 a2 gpu:a100:4
check_eq "$(job_field "$j1" NodeList)" a1 "filler 1 on a1"
check_eq "$(job_field "$j1" TresPerNode)" "$(cluster_tres gres:gpu:a100:2)" "--gres recorded in TresPerNode"

# A 4x a100 job waits although 6 GPUs are free.
j3=$(cluster_sbatch --gres=gpu:a100:4 --wrap "sleep 300")
check_true "typed 4x a100 job pends for Resources" wait_for_reason "$j3" Resources 20
check_eq "$(job_state "$j3")" PENDING "typed job still pending"

# What the plugin writes for it: untyped GPUs, OR of the types' features.
j4=$(cluster_sbatch --gpus=4 --constraint="a100|l40s" --wrap "sleep 300")
check_true "untyped job with a100|l40s starts" wait_for_state "$j4" RUNNING 20
check_match "$(job_field "$j4" NodeList)" '^l[12]$' "untyped job runs on an l40s node"
check_eq "$(job_field "$j4" TresPerJob)" "$(cluster_tres gres:gpu:4)" "--gpus recorded in TresPerJob"
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

# A failing test, and one killed by a signal, stop their daemons too.
# child_cluster HOW: start a cluster in a child bash that then fails (exit 3)
# or waits to be killed (HOW=term: TERM, HOW=kill: KILL, when only the
# watchdog can clean up); print "STATUS|DIR|PIDS" of the child.
child_cluster()
{
	local info=$CLUSTER_CHILD_INFO cpid rc
	: > "$info"
	bash -c '. "$top_srcdir/tests/integration/lib/cluster.sh"
		cluster_init > /dev/null; cluster_start > /dev/null
		echo "$CLUSTER_DIR|$(for e in "${CLUSTER_PIDS[@]}"; do printf "%s " "${e#*:}"; done)" > "$1"
		[ "$2" = fail ] && exit 3
		sleep 60 & wait $!' child "$info" "$1" > /dev/null 2>&1 &
	cpid=$!
	if [ "$1" != fail ]; then
		for i in $(seq 100); do [ -s "$info" ] && break; sleep 0.2; done
		kill -"${1^^}" "$cpid"
	fi
	wait "$cpid"
	rc=$?
	echo "$rc|$(cat "$info")"
}
CLUSTER_CHILD_INFO=$(mktemp)
for how in fail term kill; do
	out=$(child_cluster "$how"); echo "  child ($how): $out"
	IFS="|" read -r rc dir pids <<< "$out"
	case $how in fail) want=3 ;; term) want=143 ;; kill) want=137 ;; esac
	check_eq "$rc" "$want" "$how: child's exit status kept"
	check_match "$pids" '^([0-9]+ ){6}$' "$how: child started six daemons"
	# After SIGKILL no trap runs: the watchdog cleans up within a few seconds.
	for i in $(seq 50); do
		left=
		for p in $pids; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
		[ -z "$left" ] && [ ! -e "$dir" ] && break
		sleep 0.2
	done
	check_eq "$left" "" "$how: no daemon of the child survives"
	check_true "$how: child's run directory removed" test -n "$dir" -a ! -e "$dir"
done
rm -f "$CLUSTER_CHILD_INFO"
cluster_finish
