#!/bin/sh
# tests/integration/test_plugin_article.sh: the background article's scenario
# end to end through job_submit/nodeox in a real slurmctld: with 2 of a1's
# a100 busy and a2 full, an untagged 4x a100 job pends (Reason=Resources) and
# stays as asked, while the same job tagged nodeox:flex is rewritten (untyped
# GPUs, a100|l40s constraint, scaled time limit, admin comment, user message)
# and starts on the free l40s GPUs. Also: the tag among other comment text,
# uniform ([...]) AND-ed with a user constraint, a mem= the l40s cannot meet
# (left as asked, with a message), and a 2-node job placed mixed (a100 +
# l40s) by default and on one type with :uniform.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib/cluster.sh"

cluster_init
cluster_use_plugin
cluster_default_topology features=ib
cluster_nodeox_conf_article
cluster_start

# Fillers (untagged): 2 a100 on a1, all 4 on a2.
cluster_filler j1 a1 gpu:a100:2
cluster_filler j2 a2 gpu:a100:4

# Untagged 4x a100: pends, untouched, nothing said.
j3=$(cluster_sbatch -t 60 --gres=gpu:a100:4 --wrap "sleep 300")
check_eq "$(cluster_submit_msg)" "" "untagged job: no message"
check_true "untagged 4x a100 pends for Resources" wait_for_reason "$j3" Resources 20
check_eq "$(job_field "$j3" TresPerNode)" "$(cluster_tres gres:gpu:a100:4)" "untagged job keeps its typed request"
check_eq "$(job_field "$j3" Features)" "(null)" "untagged job gets no constraint"
check_eq "$(job_field "$j3" AdminComment)" "" "untagged job gets no admin comment"
check_eq "$(job_field "$j3" TimeLimit)" 01:00:00 "untagged job keeps its time limit"

# The same job tagged: rewritten, starts on l40s.
j4=$(cluster_sbatch -t 60 --gres=gpu:a100:4 --comment=nodeox:flex --wrap "sleep 300")
check_match "$(cluster_submit_msg)" '^sbatch: nodeox: .*a100' "tagged job: one line to the user"
check_eq "$(echo "$(cluster_submit_msg)" | wc -l)" 1 "tagged job: exactly one line"
check_true "tagged 4x a100 job starts" wait_for_state "$j4" RUNNING 20
check_match "$(job_field "$j4" NodeList)" '^l[12]$' "tagged job runs on an l40s node"
check_eq "$(job_field "$j4" TresPerNode)" "$(cluster_tres gres:gpu:4)" "tagged job: GPU request untyped"
check_eq "$(job_field "$j4" Features)" "a100|l40s" "tagged job: constraint is the OR of the group"
check_eq "$(job_field "$j4" TimeLimit)" 01:40:00 "tagged job: 60 min scaled by 1.0/0.6"
check_match "$(job_field "$j4" AdminComment)" "$(cluster_tres gres:gpu:a100:4)" "admin comment records the original request"
check_match "$(job_field "$j4" AdminComment)" 'features=->a100%7Cl40s' "admin comment records the change ('|' percent-encoded, nodeox.conf(5))"
check_eq "$(job_field "$j4" Comment)" nodeox:flex "user comment kept"
check_eq "$(job_state "$j3")" PENDING "untagged job still waits"
check_match "$(cluster_ctld_log | grep -c 'nodeox.*a100|l40s')" '^[1-9]' "slurmctld log has the decision"

# Tag among other text, uniform, AND-ed with the user's constraint.
j5=$(cluster_sbatch --hold --constraint=ib --gpus=a100:2 --comment="run 7 nodeox:flex:uniform seed=3" --wrap true)
check_match "$(job_field "$j5" Features)" '^\(?ib\)?&\[a100\|l40s\]$' "uniform: [a100|l40s] AND-ed with ib"
check_eq "$(job_field "$j5" TresPerJob)" "$(cluster_tres gres:gpu:2)" "--gpus rewritten untyped"
check_eq "$(job_field "$j5" Comment)" "run 7 nodeox:flex:uniform seed=3" "comment with other text kept"

# Plain mixed tag AND-ed with the user's constraint.
j6=$(cluster_sbatch --hold --constraint=ib --gres=gpu:a100:1 --comment=nodeox:flex --wrap true)
check_match "$(job_field "$j6" Features)" '^\(?ib\)?&\(a100\|l40s\)$' "mixed: (a100|l40s) AND-ed with ib"

# mem=60G: l40s (48G) is not eligible, nothing beyond a100: left as asked.
j7=$(cluster_sbatch --hold --gres=gpu:a100:4 --comment=nodeox:flex:mem=60G --wrap true)
check_match "$(cluster_submit_msg)" '^sbatch: nodeox: .*not broadened' "mem=60G: told why not broadened"
check_eq "$(job_field "$j7" TresPerNode)" "$(cluster_tres gres:gpu:a100:4)" "mem=60G: request unchanged"
check_eq "$(job_field "$j7" Features)" "(null)" "mem=60G: no constraint"

# mem=40G: l40s qualifies.
j8=$(cluster_sbatch --hold --gres=gpu:a100:4 --comment=nodeox:flex:mem=40G --wrap true)
check_eq "$(job_field "$j8" Features)" "a100|l40s" "mem=40G: l40s eligible"
# Two nodes of 4 GPUs, with a1 half busy and everything else free: mixed
# (the default) may pair a2 with an l40s node; uniform must take l1+l2.
for id in $(squeue -h -o %i); do [ "$id" = "$j1" ] || scancel "$id"; done
check_true "only the a1 filler left" wait_for_queue_size 1 20
m=$(cluster_sbatch -N 2 --gres=gpu:a100:4 --comment=nodeox:flex --wrap "sleep 300")
check_true "mixed 2-node job starts" wait_for_state "$m" RUNNING 20
check_match "$(job_field "$m" NodeList)" '^a2,l[12]$' "mixed: a2 plus an l40s node"
scancel "$m"
check_true "mixed job gone" wait_for_queue_size 1 20
u=$(cluster_sbatch -N 2 --gres=gpu:a100:4 --comment=nodeox:flex:uniform --wrap "sleep 300")
check_eq "$(job_field "$u" Features)" "[a100|l40s]" "uniform: matching OR"
check_true "uniform 2-node job starts" wait_for_state "$u" RUNNING 20
check_eq "$(job_field "$u" NodeList)" "l[1-2]" "uniform: both nodes l40s"
check_true "slurmctld still runs" cluster_alive slurmctld
cluster_finish
