#!/bin/sh
# tests/integration/test_plugin_alloc.sh: the other ways a job enters
# slurmctld, with job_submit/nodeox loaded: salloc and srun allocations, a job
# array, each component of a heterogeneous job, and `scontrol update` of the
# comment or the GPU request (job_modify): tagged ones are broadened as with
# sbatch, untagged ones are left alone.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib/cluster.sh"

cluster_init
cluster_use_plugin
cluster_nodeox_conf_article
cluster_start

# Keep the a100 busy so broadened jobs must land on l40s.
cluster_filler f1 a1 gpu:a100:4
cluster_filler f2 a2 gpu:a100:4

# salloc: allocation without a shell.
out=$(salloc --no-shell -J alloc1 --gres=gpu:a100:1 --comment=nodeox:flex 2>&1)
echo "$out"
check_match "$out" 'salloc: nodeox: ' "salloc: user told"
j=$(squeue -h -n alloc1 -o %i)
check_eq "$(job_field "$j" JobState)" RUNNING "salloc: allocation granted"
check_match "$(job_field "$j" NodeList)" '^l[12]$' "salloc: on l40s"
check_eq "$(job_field "$j" TresPerNode)" "$(cluster_tres gres:gpu:1)" "salloc: request untyped"
check_eq "$(job_field "$j" Features)" "a100|l40s" "salloc: constraint"

# srun: its allocation is broadened too. Its step still asks for gpu:a100,
# which an untyped allocation on l40s cannot serve (the documented pitfall:
# "Step requested GRES (gpu:a100) not found in the job"); the step's outcome
# is printed, not asserted.
out=$(timeout 60 srun -J srun1 --gpus=a100:1 --comment=nodeox:flex hostname 2>&1)
echo "$out"
check_match "$out" 'srun: nodeox: ' "srun: user told"
j=$(squeue -h -t all -n srun1 -o %i)
check_true "srun: allocation made" test -n "$j"
check_eq "$(job_field "$j" TresPerJob)" "$(cluster_tres gres:gpu:1)" "srun: allocation untyped"
check_eq "$(job_field "$j" Features)" "a100|l40s" "srun: constraint"
check_match "$(job_field "$j" NodeList)" '^l[12]$' "srun: allocated on l40s"
# srun with an untyped step in a tagged allocation runs on l40s.
out=$(timeout 60 srun -J srun2 --gpus=1 --comment=nodeox:flex bash -c 'echo "node=$SLURMD_NODENAME"' 2>&1)
check_match "$out" '^node=l[12]$' "srun untyped: step ran on l40s"

# Untagged salloc pends on the busy a100 (--immediate: gives up at once).
out=$(salloc --no-shell --immediate=2 --gres=gpu:a100:1 2>&1)
check_eq "$(echo "$out" | grep -c nodeox)" 0 "untagged salloc: no message"

# Job array: every task broadened.
a=$(cluster_sbatch --array=0-2 --gres=gpu:a100:1 --comment=nodeox:flex --wrap "sleep 300")
check_true "array task 2 runs" wait_for_state "${a}_2" RUNNING 20
for t in 0 1 2; do
	check_eq "$(job_field "${a}_$t" TresPerNode)" "$(cluster_tres gres:gpu:1)" "array task $t: untyped"
	check_eq "$(job_field "${a}_$t" Features)" "a100|l40s" "array task $t: constraint"
	check_match "$(job_field "${a}_$t" NodeList)" '^l[12]$' "array task $t: on l40s"
done

# Heterogeneous job: component 0 tagged a100, component 1 untagged l40s.
h=$(cluster_sbatch --hold --gres=gpu:a100:1 --comment=nodeox:flex : --gres=gpu:l40s:1 --comment=plain --wrap true)
check_eq "$(job_field "$h+0" TresPerNode)" "$(cluster_tres gres:gpu:1)" "het component 0: untyped"
check_eq "$(job_field "$h+0" Features)" "a100|l40s" "het component 0: constraint"
check_eq "$(job_field "$h+1" TresPerNode)" "$(cluster_tres gres:gpu:l40s:1)" "het component 1 (untagged): unchanged"
check_eq "$(job_field "$h+1" Features)" "(null)" "het component 1 (untagged): no constraint"
h2=$(cluster_sbatch --hold --gres=gpu:a100:1 --comment=nodeox:flex : --gres=gpu:a100:2 --comment=nodeox:flex --wrap true)
check_eq "$(job_field "$h2+1" TresPerNode)" "$(cluster_tres gres:gpu:2)" "het component 1 (tagged): untyped"
check_eq "$(job_field "$h2+1" Features)" "a100|l40s" "het component 1 (tagged): constraint"

# job_modify, GPU request: a tagged (already untyped) job whose request is
# updated to another typed count is rewritten again. Without the plugin
# Slurm refuses this update ("with and without type identification").
t=$(cluster_sbatch --hold -t 60 --gres=gpu:a100:2 --comment=nodeox:flex --wrap true)
check_eq "$(job_field "$t" TimeLimit)" 01:40:00 "tagged job: time limit scaled once"
out=$(scontrol update jobid="$t" Gres=gpu:a100:3 2>&1)
rc=$?
echo "  scontrol update Gres=gpu:a100:3: rc=$rc $out"
check_eq "$rc" 0 "update of a tagged job's GPU request accepted"
check_eq "$(job_field "$t" TresPerNode)" "$(cluster_tres gres:gpu:3)" "update: new request untyped"
check_eq "$(job_field "$t" Features)" "a100|l40s" "update: constraint kept, not AND-ed with itself"
check_eq "$(job_field "$t" TimeLimit)" 01:40:00 "update: time limit not scaled twice"

# job_modify, comment: tagging a pending typed job by update cannot broaden
# it on Slurm (it refuses an untyped entry beside the stored typed one, and
# the plugin never writes the stored job), so the update is refused and the
# job stays exactly as it was, for its owner and for root alike.
u=$(cluster_sbatch --hold -t 60 --gres=gpu:a100:2 --wrap true)
before=$(job_show "$u")
for who in "$CLUSTER_USER" root; do
	out=$(cluster_as "$who" scontrol update jobid="$u" comment=nodeox:flex 2>&1)
	rc=$?
	echo "  $who: scontrol update comment=nodeox:flex: rc=$rc $out"
	check_true "tagging a typed job by update ($who): refused" test "$rc" != 0
	check_eq "$(job_show "$u")" "$before" "tagging by update refused ($who): job unchanged"
	# job_modify has err_msg from 23.02 on: 24.11's scontrol shows the
	# plugin's line; 22.05's shows only Slurm's error text.
	if [ "$CLUSTER_SLURM_VNUM" -ge 2302 ]; then
		check_match "$out" 'nodeox: not broadened: a pending job whose GPU request names a type' \
			"tagging by update ($who): told why ($CLUSTER_SLURM_VERSION)"
	fi
done
check_match "$(cluster_ctld_log)" "update JobId=$u uid=[0-9]*: REFUSED: not broadened: a pending job whose GPU request names a type" \
	"refused tag-by-update: the reason in slurmctld's log"

# An update that the plugin accepts but Slurm then refuses (a feature no node
# has) leaves the job exactly as it was: still a typed a100 job, so with every
# a100 busy it must not start on l40s once released.
w=$(cluster_sbatch --hold --gres=gpu:a100:2 --wrap "sleep 300")
out=$(scontrol update jobid="$w" comment=nodeox:flex Features=nosuchfeature 2>&1)
rc=$?
echo "  scontrol update comment=nodeox:flex Features=nosuchfeature: rc=$rc $out"
check_true "update with an unknown feature refused" test "$rc" != 0
check_eq "$(job_field "$w" TresPerNode)" "$(cluster_tres gres:gpu:a100:2)" "refused update: request unchanged"
scontrol release "$w"
check_true "refused update: job waits for a100" wait_for_reason "$w" Resources 20
check_eq "$(job_state "$w")" PENDING "refused update: job not started"
check_match "$(job_field "$w" NodeList)" '^(|\(null\)|a[12])$' "refused update: not on an l40s node"
echo "  $(job_show "$w")"

# ... and a malformed tag in an update is refused.
out=$(scontrol update jobid="$t" comment=nodeox:flex:bogus 2>&1)
rc=$?
echo "  scontrol update comment=nodeox:flex:bogus: rc=$rc $out"
check_true "update with malformed tag refused" test "$rc" != 0
if [ "$CLUSTER_SLURM_VNUM" -ge 2302 ]; then
	check_match "$out" "nodeox: unknown option 'bogus'" "malformed update: the user gets the reason ($CLUSTER_SLURM_VERSION)"
else
	check_match "$out" "Unspecified error" "malformed update: Slurm's generic error ($CLUSTER_SLURM_VERSION)"
fi
check_eq "$(job_field "$t" Comment)" nodeox:flex "malformed update: comment unchanged"
# An untagged update of an untagged job changes nothing else.
v=$(cluster_sbatch --hold --gres=gpu:a100:2 --wrap true)
scontrol update jobid="$v" comment=hello
check_eq "$(job_field "$v" TresPerNode)" "$(cluster_tres gres:gpu:a100:2)" "untagged update: request unchanged"
check_eq "$(job_field "$v" Features)" "(null)" "untagged update: no constraint"
check_true "slurmctld still runs" cluster_alive slurmctld
cluster_finish
