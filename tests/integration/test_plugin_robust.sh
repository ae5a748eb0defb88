#!/bin/sh
# tests/integration/test_plugin_robust.sh: hostile and heavy input for
# job_submit/nodeox inside a real slurmctld: format directives, long and
# odd comments, an over-long user constraint, many gres entries, and
# nodeox.conf rewritten over and over while tagged jobs pour in from parallel
# submitters. slurmctld must stay up, every answer must be a clean accept
# (rewritten or left as asked) or a one-line rejection, and the conf must be
# re-read without losing a job.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib/cluster.sh"

cluster_init
cluster_use_plugin
cluster_default_topology gres=nic:2 features=ib
cluster_nodeox_conf_article
cluster_start

# Format directives in the tag: rejected, echoed literally, no crash.
j=$(cluster_sbatch --hold --gres=gpu:a100:1 --comment='nodeox:flex:%n%s%s%x' --wrap true)
check_eq "$j" "" "format directives: rejected"
check_match "$(cluster_submit_msg)" "nodeox: .*%n%s%s%x" "format directives: named literally"
check_true "slurmctld alive after format directives" cluster_alive slurmctld

# Outside the tag they are just text: the tag still works.
j=$(cluster_sbatch --hold --gres=gpu:a100:1 --comment='%n%s%s %p nodeox:flex' --wrap true)
check_eq "$(job_field "$j" TresPerNode)" "$(cluster_tres gres:gpu:1)" "format text around the tag: broadened"

# Slurm itself caps a comment at 1024 characters: a 1000-character comment
# with the tag at its end is broadened, a 2000-character one is refused by
# Slurm ("too long") whether tagged or not, and slurmctld stays up.
long=$(head -c 985 /dev/zero | tr '\0' 'x')
j=$(cluster_sbatch --hold --gres=gpu:a100:1 --comment="$long nodeox:flex" --wrap true)
check_eq "$(job_field "$j" Features)" "a100|l40s" "tag after 985 characters: broadened"
check_eq "$(job_field "$j" Comment)" "$long nodeox:flex" "long comment kept whole"
long=$(head -c 2000 /dev/zero | tr '\0' 'x')
j=$(cluster_sbatch --hold --gres=gpu:a100:1 --comment="nodeox:flex $long" --wrap true)
check_eq "$j" "" "2000-character tagged comment: refused by Slurm"
check_match "$(cluster_submit_msg)" 'too long' "2000-character comment: Slurm says too long"
check_true "slurmctld alive after long comments" cluster_alive slurmctld

# Odd bytes in the tag's options: rejected with a message, no crash.
j=$(cluster_sbatch --hold --gres=gpu:a100:1 --comment="nodeox:flex:types=$(printf 'a\xc3\xa4\x01b')" --wrap true)
check_eq "$j" "" "non-ASCII type name: rejected"
check_eq "$(cluster_submit_msg | grep -c nodeox)" 1 "non-ASCII type name: one line"
j=$(cluster_sbatch --hold --gres=gpu:a100:1 --comment="nodeox:flex:mem=99999999999999999999T" --wrap true)
check_eq "$j" "" "overflowing size: rejected"

# A user constraint so long (1022 characters) that ANDing the types would
# pass Slurm's 1024: left as asked, told why.
feat=$(for i in $(seq 340); do printf 'ib&'; done)ib
j=$(cluster_sbatch --hold --gres=gpu:a100:1 --constraint="$feat" --comment=nodeox:flex --wrap true)
check_true "over-long constraint: accepted" test -n "$j"
check_eq "$(job_field "$j" TresPerNode)" "$(cluster_tres gres:gpu:a100:1)" "over-long constraint: unchanged"
check_match "$(cluster_submit_msg)" 'nodeox: not broadened' "over-long constraint: told why"

# Many gres entries: the GPU one is rewritten, the others kept.
j=$(cluster_sbatch --hold --gres=nic:1,gpu:a100:1 --gpus-per-task=a100:1 -n 1 --comment=nodeox:flex --wrap true)
check_true "several GPU fields: accepted" test -n "$j"
check_true "slurmctld alive after odd input" cluster_alive slurmctld

# nodeox.conf rewritten (enforce <-> dryrun, and briefly broken) while four
# submitters send 40 tagged jobs each.
( for i in $(seq 60); do
	case $((i % 3)) in
	0) cluster_nodeox_conf_article ;;
	1) cluster_nodeox_conf_article Mode=dryrun ;;
	2) printf 'Mode=enforce\nGpuType=a100 Speed=x\n' | cluster_nodeox_conf ;;
	esac
	sleep 0.05
  done ) &
storm=($!)
for k in 1 2 3 4; do
	( for i in $(seq 40); do
		sbatch --hold --parsable -o /dev/null --gres=gpu:a100:1 --comment=nodeox:flex --wrap true 2>/dev/null || echo rejected
	  done > "$CLUSTER_DIR/storm.$k" ) &
	storm+=($!)
done
wait "${storm[@]}"    # not a bare wait: the daemons are our children too
check_eq "$(cat "$CLUSTER_DIR"/storm.* | grep -c rejected)" 0 "conf storm: no submission rejected"
check_eq "$(cat "$CLUSTER_DIR"/storm.* | grep -c '^[0-9]')" 160 "conf storm: 160 jobs accepted"
cluster_nodeox_conf_article
bad=0 nb=0 nk=0
for id in $(cat "$CLUSTER_DIR"/storm.*); do
	t=$(job_field "$id" TresPerNode); f=$(job_field "$id" Features)
	case "$t|$f" in
	"$(cluster_tres gres:gpu:1)|a100|l40s") nb=$((nb + 1)) ;;
	"$(cluster_tres gres:gpu:a100:1)|(null)") nk=$((nk + 1)) ;;
	*) bad=$((bad + 1)); echo "  job $id: TresPerNode=$t Features=$f" ;;
	esac
done
echo "  conf storm: $nb broadened, $nk left as asked (dryrun or broken conf)"
check_eq "$bad" 0 "conf storm: every job either broadened or left as asked, never half"
j=$(cluster_sbatch --hold --gres=gpu:a100:1 --comment=nodeox:flex --wrap true)
check_eq "$(job_field "$j" Features)" "a100|l40s" "after the storm: the last conf applies"
check_true "slurmctld alive after the storm" cluster_alive slurmctld
cluster_finish
