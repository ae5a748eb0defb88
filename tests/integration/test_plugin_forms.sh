#!/bin/sh
# tests/integration/test_plugin_forms.sh: every way a GPU type can be asked
# for in Slurm 22.05 (--gres, --gpus, --gpus-per-node, --gpus-per-task,
# --gpus-per-socket, lists with another gres) goes through job_submit/nodeox
# in a real slurmctld: tagged, the typed entry becomes untyped in the field
# Slurm keeps it in, other entries stay, the constraint names both types and
# the job starts; untagged, Slurm records exactly what was asked. Requests the
# policy cannot serve (two types, untyped) pass unchanged with a reason, and
# sbatch --test-only goes through the plugin too.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib/cluster.sh"

cluster_init
cluster_use_plugin
cluster_default_topology gres=nic:2
cluster_nodeox_conf_article
cluster_start

# form_check WHAT FIELD TAGGED_VALUE UNTAGGED_VALUE SBATCH_ARGS...: submit the
# request untagged (held) and tagged (to run); check FIELD of both. Values are
# spelled as 22.05 writes them (cluster_tres turns them into this Slurm's).
form_check()
{
	local what=$1 field=$2 want_tagged want_untagged u t
	want_tagged=$(cluster_tres "$3" "$field") want_untagged=$(cluster_tres "$4" "$field")
	shift 4
	u=$(cluster_sbatch --hold "$@" --wrap true)
	check_eq "$(job_field "$u" "$field")" "$want_untagged" "$what untagged: $field as asked"
	check_eq "$(job_field "$u" Features)" "(null)" "$what untagged: no constraint"
	t=$(cluster_sbatch "$@" --comment=nodeox:flex --wrap "sleep 300")
	check_match "$(cluster_submit_msg)" '^sbatch: nodeox: ' "$what tagged: user told"
	check_eq "$(job_field "$t" "$field")" "$want_tagged" "$what tagged: $field untyped"
	check_eq "$(job_field "$t" Features)" "a100|l40s" "$what tagged: constraint"
	check_true "$what tagged: job starts" wait_for_state "$t" RUNNING 20
}

form_check "--gres=gpu:a100:2" TresPerNode gres:gpu:2 gres:gpu:a100:2 --gres=gpu:a100:2
form_check "--gpus=a100:2" TresPerJob gres:gpu:2 gres:gpu:a100:2 --gpus=a100:2
form_check "--gpus-per-node=a100:1" TresPerNode gres:gpu:1 gres:gpu:a100:1 --gpus-per-node=a100:1
form_check "--gpus-per-task=a100:1 -n 2" TresPerTask gres:gpu:1 gres:gpu:a100:1 -n 2 --gpus-per-task=a100:1
form_check "--gpus-per-socket=a100:1" TresPerSocket gres:gpu:1 gres:gpu:a100:1 --sockets-per-node=2 --gpus-per-socket=a100:1
form_check "--gres list" TresPerNode gres:gpu:1,gres:nic:1 gres:gpu:a100:1,gres:nic:1 --gres=gpu:a100:1,nic:1
# sbatch puts --gpus-per-node before the --gres entries (seen on 22.05).
form_check "--gres=nic + --gpus-per-node" TresPerNode gres:gpu:1,gres:nic:1 gres:gpu:a100:1,gres:nic:1 --gres=nic:1 --gpus-per-node=a100:1

# Two GPU types in one request: unchanged, told why.
j=$(cluster_sbatch --hold --gres=gpu:a100:1,gpu:l40s:1 --comment=nodeox:flex --wrap true)
check_match "$(cluster_submit_msg)" '^sbatch: nodeox: .*two GPU types' "two types: told why"
check_eq "$(job_field "$j" TresPerNode)" "$(cluster_tres gres:gpu:a100:1,gres:gpu:l40s:1)" "two types: unchanged"
check_eq "$(job_field "$j" Features)" "(null)" "two types: no constraint"

# Untyped request: nothing to broaden.
j=$(cluster_sbatch --hold --gres=gpu:2 --comment=nodeox:flex --wrap true)
check_eq "$(job_field "$j" TresPerNode)" "$(cluster_tres gres:gpu:2)" "untyped: unchanged"
check_eq "$(job_field "$j" Features)" "(null)" "untyped: no constraint"

# --test-only passes through the plugin: with all a100 busy, Slurm finds room
# for the tagged job on l40s.
scancel --user="$CLUSTER_USER"
check_true "queue drained" wait_for_empty_queue 20
cluster_filler f1 a1 gpu:a100:4
cluster_filler f2 a2 gpu:a100:4
out=$(sbatch --test-only --gres=gpu:a100:4 --comment=nodeox:flex --wrap true 2>&1)
echo "$out"
check_match "$out" 'sbatch: nodeox: ' "--test-only: plugin message shown"
check_match "$out" 'to start at .* on nodes l[12]' "--test-only: would start on free l40s"
out=$(sbatch --test-only --gres=gpu:a100:4 --wrap true 2>&1)
check_eq "$(echo "$out" | grep -c nodeox)" 0 "--test-only untagged: no message"
check_true "slurmctld still runs" cluster_alive slurmctld
cluster_finish
