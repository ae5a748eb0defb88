#!/bin/sh
# tests/integration/test_plugin_hostile.sh: job_submit/nodeox against a
# hostile user and a careful admin, on a real slurmctld, with jobs submitted
# by unprivileged local users. Each case checks what Slurm schedules by (the
# stored request, and where the job actually runs), not only what
# `scontrol show job` prints:
#   - another user's update, and an owner's or root's refused update, leave
#     the job byte for byte as it was, and it never runs off its type;
#   - a node count (*N) in the user's constraint is kept, never AND-ed;
#   - the scaled time limit stops at the partition's MaxTime, and goes back
#     to the user's when an update replaces nodeox's constraint;
#   - a FIFO, a directory, /dev/zero or a 10 MB file at the nodeox.conf path
#     leave sbatch and scontrol answering at once, jobs passing unchanged;
#   - a newline in a constraint never reaches slurmctld's log as a new line;
#   - an admin's own admin comment is kept in front of nodeox's record;
#   - a partition list past nodeox's bound is kept with the reason (slurmctld
#     checks its length only after job_submit).
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib/cluster.sh"

cluster_init
cluster_use_plugin
cluster_default_topology features=ib
cluster_add_node h1 gpu=h100:4 features=ib      # a type in no group
cluster_add_partition gpu ALL Default=YES State=UP
cluster_add_partition short ALL MaxTime=90 State=UP
cluster_conf_line "SchedulerParameters=bf_interval=1"
cluster_nodeox_conf <<'CONF'
Mode=enforce
GpuType=a100 Feature=a100 Memory=80G Speed=1.0
GpuType=l40s Feature=l40s Memory=48G Speed=0.6
GpuType=h100 Feature=h100 Memory=80G Speed=2.0
Group=train Types=a100,l40s
CONF
cluster_start
A=$CLUSTER_USER B=$CLUSTER_USER2

# busy_a100: fill every a100 (as root) so an a100 job can only pend.
busy_a100()
{
	local j
	for j in 1 2; do
		CLUSTER_SUBMIT_USER=root cluster_sbatch --gres=gpu:a100:4 --wrap "sleep 600" >> "$CLUSTER_DIR/busy"
	done
	for j in $(cat "$CLUSTER_DIR/busy"); do wait_for_state "$j" RUNNING 20 || return 1; done
}
free_a100() { scancel $(cat "$CLUSTER_DIR/busy"); : > "$CLUSTER_DIR/busy"; }
: > "$CLUSTER_DIR/busy"

# 1. Another user tags A's typed job: refused, job unchanged, and once
#    released it waits for a100 (never starts on h100 or l40s).
j=$(cluster_sbatch --hold --gres=gpu:a100:1 --wrap "sleep 300")
check_true "A submitted as $A" test -n "$j"
check_eq "$(job_field "$j" UserId | cut -d'(' -f1)" "$A" "job belongs to the unprivileged user"
before=$(job_show "$j")
out=$(cluster_as "$B" scontrol update jobid="$j" comment=nodeox:flex 2>&1)
rc=$?
echo "  $B updates $A's job: rc=$rc $out"
check_true "cross-user update refused" test "$rc" != 0
check_eq "$(job_show "$j")" "$before" "cross-user update: job byte for byte unchanged"
out=$(cluster_as "$B" scontrol update jobid="$j" Gres=gpu:a100:2 comment=nodeox:flex 2>&1)
check_eq "$(job_show "$j")" "$before" "cross-user GPU update: job unchanged"
busy_a100 || check_true "a100 made busy" false
scontrol release "$j"
check_true "released: waits (Resources)" wait_for_reason "$j" Resources 15
check_eq "$(job_state "$j")" PENDING "cross-user update: job still waits for a100"
free_a100
check_true "a100 freed: the job starts" wait_for_state "$j" RUNNING 20
check_match "$(job_field "$j" NodeList)" '^a[12]$' "cross-user update: job ran on a100"
scancel "$j"

# 2. The owner's refused updates change nothing: tag by update (refused by
#    nodeox), and on a broadened job a comment over Slurm's 1024 characters
#    (refused by Slurm after the plugin ran), also from root.
j=$(cluster_sbatch --hold -t 60 --gres=gpu:a100:1 --wrap true)
before=$(job_show "$j")
out=$(cluster_as "$A" scontrol update jobid="$j" comment=nodeox:flex 2>&1)
check_true "owner's tag-by-update refused" test $? != 0
check_eq "$(job_show "$j")" "$before" "owner's refused tag-by-update: job unchanged"
j=$(cluster_sbatch --hold -t 60 --gres=gpu:a100:1 --comment=nodeox:flex --wrap true)
check_eq "$(job_field "$j" TresPerNode)" "$(cluster_tres gres:gpu:1)" "tagged at submission: broadened"
before=$(job_show "$j")
long=$(head -c 1100 /dev/zero | tr '\0' x)
for who in "$A" root; do
	out=$(cluster_as "$who" scontrol update jobid="$j" Gres=gpu:a100:2 comment="nodeox:flex $long" 2>&1)
	check_true "$who: update with a 1100-character comment refused" test $? != 0
	check_eq "$(job_show "$j")" "$before" "$who: refused long-comment update: job unchanged"
done
# ...while an owner's acceptable update of the GPU count goes through, without
# touching the admin comment (only admins may set it) or raising the limit.
out=$(cluster_as "$A" scontrol update jobid="$j" Gres=gpu:a100:2 2>&1)
check_eq "$?" 0 "owner's GPU count update accepted ($out)"
check_eq "$(job_field "$j" TresPerNode)" "$(cluster_tres gres:gpu:2)" "owner's update: untyped again"
check_eq "$(job_field "$j" Features)" "a100|l40s" "owner's update: constraint kept"
check_eq "$(job_field "$j" TimeLimit)" 01:40:00 "owner's update: limit scaled once"
scancel "$j"

# 2b. A constraint-only update: keeping nodeox's type term keeps the scaled
#     limit; replacing it (the owner picks a100) gives the limit back as asked,
#     so the extra time for slower GPUs cannot outlive its reason.
j=$(cluster_sbatch --hold -t 60 --gres=gpu:a100:1 --comment=nodeox:flex --constraint=ib --wrap true)
check_eq "$(job_field "$j" TimeLimit)" 01:40:00 "constraint update: scaled at submission"
out=$(cluster_as "$A" scontrol update jobid="$j" 'Features=ib&(a100|l40s)' 2>&1)
check_eq "$(job_field "$j" TimeLimit)" 01:40:00 "type term kept: limit kept ($out)"
out=$(cluster_as "$A" scontrol update jobid="$j" Features=a100 2>&1)
check_eq "$?" 0 "owner's constraint update accepted ($out)"
check_eq "$(job_field "$j" Features)" a100 "owner's constraint: set"
check_eq "$(job_field "$j" TimeLimit)" 01:00:00 "type term dropped: limit back as asked"
check_match "$(cluster_ctld_log)" "update JobId=$j: RESTORE: the constraint nodeox set is replaced" \
	"limit restored: logged"
scancel "$j"

# 3. A node count in the constraint: kept as asked; with a100 busy the job
#    pends rather than running on h100.
j=$(cluster_sbatch --hold --gres=gpu:a100:1 --constraint='ib*1' --comment=nodeox:flex --wrap "sleep 300")
check_eq "$(job_field "$j" TresPerNode)" "$(cluster_tres gres:gpu:a100:1)" "*N constraint: request kept typed"
check_eq "$(job_field "$j" Features)" 'ib*1' "*N constraint: constraint as asked"
check_match "$(cluster_submit_msg)" 'counts nodes' "*N constraint: user told why"
busy_a100 || check_true "a100 made busy" false
scontrol release "$j"
check_true "*N job waits (Resources)" wait_for_reason "$j" Resources 15
check_eq "$(job_state "$j")" PENDING "*N job: not started on another type"
free_a100
check_true "*N job starts once a100 is free" wait_for_state "$j" RUNNING 20
check_match "$(job_field "$j" NodeList)" '^a[12]$' "*N job ran on a100"
scancel "$j"

# 4. The scaled limit never passes the partition's MaxTime (90 min): 60 min
#    would scale to 100; it is capped, the user told, and the job runs.
j=$(cluster_sbatch --hold -p short -t 60 --gres=gpu:a100:1 --comment=nodeox:flex --wrap "sleep 300")
check_eq "$(job_field "$j" TimeLimit)" 01:30:00 "scaled limit capped at MaxTime"
check_match "$(cluster_submit_msg)" 'capped by MaxTime of partition short' "cap: user told"
scontrol release "$j"
check_true "capped job starts (no PartitionTimeLimit)" wait_for_state "$j" RUNNING 20
check_match "$(job_field "$j" NodeList)" '^(a|l)[12]$' "capped job on an eligible type"
scancel "$j"

# 5. Nothing at the conf path can make slurmctld wait: each answer comes at
#    once (a blocked open would never return; the bound only allows for a
#    slow machine) and tagged jobs pass unchanged.
conf=$CLUSTER_DIR/nodeox.conf
cp "$conf" "$CLUSTER_DIR/nodeox.conf.good"
for kind in fifo dir devzero big; do
	rm -rf "$conf"
	case $kind in
	fifo) mkfifo "$conf" ;;
	dir) mkdir "$conf" ;;
	devzero) ln -s /dev/zero "$conf" ;;
	big) { cat "$CLUSTER_DIR/nodeox.conf.good"; head -c 10000000 /dev/zero | tr '\0' '#'; } > "$conf" ;;
	esac
	cluster_nodeox_conf_settle
	t0=$(date +%s%N)
	j=$(timeout 20 runuser -u "$A" -- env SLURM_CONF="$SLURM_CONF" sbatch --parsable --hold \
		--gres=gpu:a100:1 --comment=nodeox:flex --wrap true 2>/dev/null)
	rc=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	echo "  nodeox.conf is a $kind: sbatch answered in $ms ms (rc=$rc)"
	check_eq "$rc" 0 "conf is a $kind: sbatch answered"
	check_true "conf is a $kind: answered within 3 s (took $ms ms)" test "$ms" -lt 3000
	check_eq "$(job_field "$j" TresPerNode)" "$(cluster_tres gres:gpu:a100:1)" "conf is a $kind: job passes unchanged"
	check_eq "$(timeout 20 scontrol update nodename=h1 comment=probe >/dev/null 2>&1; echo $?)" 0 \
		"conf is a $kind: scontrol update node answers"
	scancel "$j"
done
check_match "$(cluster_ctld_log)" "nodeox.conf: not a regular file; jobs pass unchanged" "non-regular conf logged"
check_match "$(cluster_ctld_log)" "nodeox.conf: larger than 1 MiB; jobs pass unchanged" "10 MB conf logged"
rm -rf "$conf"
cluster_nodeox_conf < "$CLUSTER_DIR/nodeox.conf.good"
j=$(cluster_sbatch --hold --gres=gpu:a100:1 --comment=nodeox:flex --wrap true)
check_eq "$(job_field "$j" TresPerNode)" "$(cluster_tres gres:gpu:1)" "good conf back: broadening again"
scancel "$j"

# 6. A newline in a constraint or comment never forges a log line.
j=$(cluster_sbatch --hold --gres=gpu:a100:1 --constraint="ib
nodeoxforged1" --comment=nodeox:flex --wrap true)
cluster_sbatch --hold --gres=gpu:a100:1 --comment="nodeox:flex:types=a100
nodeoxforged2" --wrap true >/dev/null
check_true "slurmctld alive after control characters" cluster_alive slurmctld
# (Slurm 22.05 itself logs an invalid feature list raw, "JobId=N has invalid
# feature list: ib" + the forged line: not ours; ours is the line before.)
check_eq "$(cluster_ctld_log | grep -B1 '^nodeoxforged' | grep -c 'job_submit/nodeox')" 0 \
	"no line of ours continues on a forged line"
check_match "$(cluster_ctld_log)" "job_submit/nodeox: submit uid=[0-9]*: (KEEP|REJECT): .*'\\?'" \
	"control character shown escaped in the log"
[ -n "$j" ] && scancel "$j"

# 7. An admin's own admin comment stays in front of nodeox's record when an
#    admin's update makes nodeox decide again (sbatch 22.05 has no
#    --admin-comment; an admin sets it with scontrol).
j=$(cluster_sbatch --hold --gres=gpu:a100:1 --comment=nodeox:flex --wrap true)
scontrol update jobid="$j" AdminComment="site: keep"
scontrol update jobid="$j" Gres=gpu:a100:2
check_match "$(job_field "$j" AdminComment)" '^site: keep; nodeox' "admin's text kept first"
check_eq "$(job_field "$j" TresPerNode)" "$(cluster_tres gres:gpu:2)" "admin's update: rewritten"
scancel "$j"

# 8. A partition list past nodeox's bound (64 names, 1024 characters): kept
#    as asked with the reason, before any per-node or per-job work. slurmctld
#    checks the list's length only after job_submit, so nodeox sees a list of
#    any length first.
parts=$(printf 'gpu,%.0s' $(seq 65))
j=$(cluster_sbatch --hold -p "${parts%,}" --gres=gpu:a100:1 --comment=nodeox:flex --wrap true)
check_match "$(cluster_ctld_log)" 'KEEP: not broadened: the job names more than 64 partitions' \
	"65 partitions: kept, logged"
if [ -n "$j" ]; then
	check_eq "$(job_field "$j" TresPerNode)" "$(cluster_tres gres:gpu:a100:1)" "65 partitions: request kept typed"
	scancel "$j"
fi
long=$(printf 'p%.0s' $(seq 1100))
cluster_sbatch --hold -p "$long" --gres=gpu:a100:1 --comment=nodeox:flex --wrap true > /dev/null
check_true "1100-character partition list refused by slurmctld" test $? != 0
check_match "$(cluster_ctld_log)" \
	"KEEP: not broadened: the job's partition list is 1024 characters or longer" \
	"1100-character partition list: nodeox saw it first and kept it"

check_true "slurmctld still runs" cluster_alive slurmctld
cluster_finish
