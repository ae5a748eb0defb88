#!/bin/sh
# tests/integration/check_valgrind.sh (make check-valgrind): slurmctld with
# job_submit/nodeox loaded runs under valgrind's memcheck while unprivileged
# users and root send a few hundred mixed submissions and updates: tagged and
# untagged, every request form, malformed tags, odd constraints, cross-user
# and refused updates, and a conf rewritten and broken meanwhile. Then
# slurmctld is stopped and the test fails on any valgrind error, or any leak
# ("definitely lost"), whose stack passes through the plugin or the policy
# library. Slurm's own reports are counted and printed, not judged.
# Bounded: NODEOX_VG_JOBS submissions (default 300). NODEOX_VG_BROADEN (default
# always) is the policy's Broaden=, e.g. when-faster, whose estimate reads
# slurmctld's job list on every tagged submission. Not part of make check
# (slurmctld under valgrind takes a few minutes).
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib/cluster.sh"
command -v valgrind >/dev/null 2>&1 || cluster_skip "valgrind not found (Debian package valgrind)"

jobs=${NODEOX_VG_JOBS:-300}
broaden=${NODEOX_VG_BROADEN:-always}
cluster_init
vglog=$CLUSTER_DIR/log/valgrind.log
# The one leak through our code that is Slurm's (before 26.05.2 Slurm never
# frees a job description's prefer): suppressed by name, counted below.
supp=$top_srcdir/tests/integration/valgrind-slurm.supp
CLUSTER_CTLD_WRAP="valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite
 --num-callers=30 --trace-children=no --suppressions=$supp --log-file=$vglog"
cluster_use_plugin
cluster_default_topology features=ib
cluster_add_partition gpu ALL Default=YES State=UP
cluster_add_partition short ALL MaxTime=90 State=UP
cluster_nodeox_conf_article PreferRequested=yes Broaden=$broaden
cluster_start
A=$CLUSTER_USER B=$CLUSTER_USER2

forms=("--gres=gpu:a100:1" "--gpus=a100:2" "--gpus-per-node=l40s:1" "--gres=gpu:1"
       "--gpus-per-task=a100:1 -n 2" "--gres=gpu:a100:1 --constraint=ib*1"
       "--gres=gpu:a100:1 --constraint=ib|eth" "--gres=gpu:a100:1 -p short -t 60"
       "--gres=gpu:a100:2 --constraint=[a100|l40s]")
tags=("nodeox:flex" "nodeox:flex:uniform" "nodeox:flex:mem=40G" "nodeox:flex:bogus"
      "plain" "nodeox:flex:types=l40s" "%n%s nodeox:flex")
ids=()
for ((i = 0; i < jobs; i++)); do
	who=$A; [ $((i % 3)) = 1 ] && who=$B; [ $((i % 7)) = 0 ] && who=root
	# shellcheck disable=SC2086 # a form is several words
	id=$(cluster_as "$who" sbatch --parsable --hold -t 30 ${forms[$((i % ${#forms[@]}))]} \
		--comment="${tags[$((i % ${#tags[@]}))]}" --wrap true 2>/dev/null) && ids+=("$id")
	if [ $((i % 4)) = 3 ] && [ ${#ids[@]} -gt 0 ]; then
		id=${ids[$((i % ${#ids[@]}))]}
		cluster_as "$B" scontrol update jobid="$id" comment=nodeox:flex >/dev/null 2>&1
		cluster_as "$A" scontrol update jobid="$id" Gres=gpu:a100:2 >/dev/null 2>&1
		scontrol update jobid="$id" comment="nodeox:flex $(head -c 1100 /dev/zero | tr '\0' x)" >/dev/null 2>&1
	fi
	case $((i % 100)) in
	40) cluster_nodeox_conf_article Mode=dryrun Broaden=$broaden ;;
	60) echo "Mode=bogus" | cluster_nodeox_conf ;;
	80) cluster_nodeox_conf_article PreferRequested=yes Broaden=$broaden ;;
	esac
done
echo "  $jobs submissions, ${#ids[@]} accepted, $((jobs / 4 * 3)) updates"
check_true "slurmctld alive after the burst" cluster_alive slurmctld
scancel --quiet $(squeue -h -o %i) 2>/dev/null
cluster_stop_ctld()
{
	local pid
	pid=$(cluster_pid slurmctld)
	kill -TERM "$pid" && cluster_reap "$pid" 300
}
check_true "slurmctld stopped cleanly under valgrind" cluster_stop_ctld
# Each valgrind record starts at a line "==PID== <what>" (no indent) and
# runs to the next blank "==PID==" line; keep the errors and definite leaks
# whose stack passes through nodeox's code.
ours=$(awk '
function flush() {
	if (rec ~ /(job_submit_nodeox|policy_[a-z]+\.c|nodeox_)/ &&
	    rec ~ /(Invalid|uninitialised|definitely lost|Mismatched|overlap|Syscall param|free\(\))/)
		print rec
	rec = ""; inrec = 0
}
/^==[0-9]+== [^ ]/ { if (inrec) flush(); rec = $0 "\n"; inrec = 1; next }
/^==[0-9]+== *$/ { if (inrec) flush(); next }
inrec { rec = rec $0 "\n" }
END { if (inrec) flush() }' "$vglog")
echo "$(grep -c 'Invalid\|uninitialised\|definitely lost in' "$vglog") valgrind records in all (Slurm's own included); summary:"
grep -A6 "LEAK SUMMARY\|ERROR SUMMARY" "$vglog" | sed 's/^/  /' | tail -8
[ -z "$ours" ] || printf '%s\n' "$ours" | head -80
check_eq "$(printf '%s' "$ours" | grep -c .)" 0 "no valgrind error or definite leak through nodeox's code"
cluster_finish
