#!/bin/sh
# tests/integration/test_plugin_conf.sh: nodeox.conf and the tag's bad input
# in a real slurmctld with job_submit/nodeox: malformed tags are rejected with
# one line naming the bad part; Mode=dryrun says what it would do and changes
# nothing; Mode=off is silent; edits are picked up without restarting
# slurmctld; a broken or missing nodeox.conf leaves slurmctld running (also
# when it starts with it) and jobs passing through, with the file:line in the
# log; PreferRequested, Partitions=, MinSpeed, ScaleTimeLimit, Allow/DenyUsers
# and Broaden=when-blocked act as documented; NODEOX_CONF names another file.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib/cluster.sh"

cluster_init
cluster_use_plugin
cluster_default_topology
cluster_add_partition gpu ALL Default=YES
cluster_add_partition other ALL
cluster_nodeox_conf_article
cluster_start

# tagged_job [ARGS...]: submit a held, tagged 2x a100 job, 60 min; print its id.
tagged_job()
{
	cluster_sbatch --hold -t 60 --gres=gpu:a100:2 --comment=nodeox:flex "$@" --wrap true
}

# check_unchanged ID WHAT: the job kept its typed request and got no constraint.
check_unchanged()
{
	check_eq "$(job_field "$1" TresPerNode)" "$(cluster_tres gres:gpu:a100:2)" "$2: request unchanged"
	check_eq "$(job_field "$1" Features)" "(null)" "$2: no constraint"
	check_eq "$(job_field "$1" TimeLimit)" 01:00:00 "$2: time limit unchanged"
}

# check_rewritten ID WHAT: the job was broadened.
check_rewritten()
{
	check_eq "$(job_field "$1" TresPerNode)" "$(cluster_tres gres:gpu:2)" "$2: request untyped"
	check_eq "$(job_field "$1" Features)" "a100|l40s" "$2: constraint a100|l40s"
	check_eq "$(job_field "$1" TimeLimit)" 01:40:00 "$2: time limit scaled"
}

j=$(tagged_job)
check_rewritten "$j" "enforce"

# Malformed tags: rejected, one line naming the bad part.
for bad in "nodeox:flex:bogus" "nodeox:flex:mem=40Q" "nodeox:flex:types=v999"; do
	part=${bad##*:}; part=${part#*=}
	n=$(squeue -h | wc -l)
	if cluster_sbatch --gres=gpu:a100:2 --comment="$bad" --wrap true > /dev/null; then
		check_true "'$bad' rejected" false
	else
		check_true "'$bad' rejected" true
	fi
	check_match "$(cluster_submit_msg)" "nodeox.*$part" "'$bad': error names '$part'"
	# sbatch adds its own "Batch job submission failed" line.
	check_eq "$(cluster_submit_msg | grep -c nodeox)" 1 "'$bad': one line from nodeox"
	check_eq "$(squeue -h | wc -l)" "$n" "'$bad': no job queued"
done

# Mode=dryrun: told what would happen, nothing changed.
cluster_nodeox_conf_article Mode=dryrun
j=$(tagged_job)
check_match "$(cluster_submit_msg)" '^sbatch: nodeox: .*dryrun' "dryrun: user told"
check_unchanged "$j" "dryrun"
check_match "$(cluster_ctld_log | grep -c 'nodeox.*dryrun')" '^[1-9]' "dryrun: logged"

# Mode=off: silent pass-through.
cluster_nodeox_conf_article Mode=off
j=$(tagged_job)
check_eq "$(cluster_submit_msg)" "" "off: nothing said"
check_unchanged "$j" "off"

# Back to enforce, picked up live.
cluster_nodeox_conf_article
j=$(tagged_job)
check_rewritten "$j" "edited back to enforce"

# PreferRequested=yes: the requested type becomes a soft preference.
cluster_nodeox_conf_article PreferRequested=yes
j=$(tagged_job)
check_rewritten "$j" "PreferRequested"
check_eq "$(job_field "$j" Prefer)" a100 "PreferRequested: Prefer=a100"

# Partitions=: only jobs in listed partitions are broadened.
cluster_nodeox_conf_article Partitions=gpu
j=$(tagged_job -p other)
check_match "$(cluster_submit_msg)" 'nodeox: .*other' "Partitions: told partition other is out of scope"
check_unchanged "$j" "partition other"
j=$(tagged_job -p gpu)
check_rewritten "$j" "partition gpu"

# MinSpeed=0.7: l40s (0.6 of a100) is too slow, nothing left to broaden to.
cluster_nodeox_conf_article MinSpeed=0.7
j=$(tagged_job)
check_match "$(cluster_submit_msg)" 'nodeox: not broadened: .*MinSpeed' "MinSpeed: told l40s is below it"
check_unchanged "$j" "MinSpeed=0.7"

# ScaleTimeLimit=no: broadened, time limit as asked.
cluster_nodeox_conf_article ScaleTimeLimit=no
j=$(tagged_job)
check_eq "$(job_field "$j" Features)" "a100|l40s" "ScaleTimeLimit=no: broadened"
check_eq "$(job_field "$j" TimeLimit)" 01:00:00 "ScaleTimeLimit=no: time limit as asked"

# DenyUsers / AllowUsers: the admin decides who.
cluster_nodeox_conf_article DenyUsers="$CLUSTER_USER"
j=$(tagged_job)
check_match "$(cluster_submit_msg)" "nodeox: not broadened: user $CLUSTER_USER is denied" "DenyUsers: told"
check_unchanged "$j" "DenyUsers"
cluster_nodeox_conf_article AllowUsers=someoneelse
j=$(tagged_job)
check_unchanged "$j" "AllowUsers without us"
cluster_nodeox_conf_article AllowUsers="someoneelse,$CLUSTER_USER"
j=$(tagged_job)
check_rewritten "$j" "AllowUsers with us"

# Broaden=when-blocked: typed while a100 are idle, broadened once they are busy.
cluster_nodeox_conf_article Broaden=when-blocked
j=$(tagged_job)
check_match "$(cluster_submit_msg)" 'nodeox: .*can serve' "when-blocked, a100 idle: told it stays"
check_unchanged "$j" "when-blocked, a100 idle"
cluster_filler f1 a1 gpu:a100:4
cluster_filler f2 a2 gpu:a100:4
j=$(tagged_job)
check_rewritten "$j" "when-blocked, a100 busy"

# A broken nodeox.conf: slurmctld runs on, jobs pass through, file:line logged.
printf 'Mode=enforce\nGpuType=a100 Feature=a100 Speed=1.0\nGpuType=l40s Speed=fast\nGroup=train Types=a100,l40s\n' | cluster_nodeox_conf
j=$(tagged_job)
check_true "broken conf: slurmctld alive" cluster_alive slurmctld
check_true "broken conf: job accepted" test -n "$j"
check_unchanged "$j" "broken conf"
check_match "$(cluster_ctld_log | grep 'nodeox' | grep -c "nodeox.conf:3")" '^[1-9]' "broken conf: log names nodeox.conf:3"

# ... also when slurmctld starts with it.
cluster_restart_ctld
check_true "broken conf at start: slurmctld alive" cluster_alive slurmctld
j=$(tagged_job)
check_unchanged "$j" "broken conf at start"

# Fixed again: picked up live.
cluster_nodeox_conf_article
j=$(tagged_job)
check_rewritten "$j" "fixed conf"

# Missing nodeox.conf: pass-through, logged.
rm -f "$CLUSTER_DIR/nodeox.conf"
cluster_nodeox_conf_settle
j=$(tagged_job)
check_true "missing conf: slurmctld alive" cluster_alive slurmctld
check_unchanged "$j" "missing conf"
check_match "$(cluster_ctld_log | grep -c 'nodeox.*nodeox.conf')" '^[1-9]' "missing conf: logged"

# NODEOX_CONF in slurmctld's environment names another file.
cluster_nodeox_conf_article
cp "$CLUSTER_DIR/nodeox.conf" "$CLUSTER_DIR/alt.conf"
sed -i 's/^Mode=enforce$/Mode=dryrun/' "$CLUSTER_DIR/alt.conf"
export NODEOX_CONF="$CLUSTER_DIR/alt.conf"
cluster_restart_ctld
unset NODEOX_CONF
j=$(tagged_job)
check_match "$(cluster_submit_msg)" 'nodeox: .*dryrun' "NODEOX_CONF: its Mode=dryrun applies"
check_unchanged "$j" "NODEOX_CONF dryrun"
check_match "$(cluster_ctld_log | grep -c "nodeox.*alt.conf")" '^[1-9]' "NODEOX_CONF: log names alt.conf"
cluster_finish
