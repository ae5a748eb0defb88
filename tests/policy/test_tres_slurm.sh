#!/bin/bash
# test_tres_slurm.sh: the policy library's TRES/GRES reader (policy/
# policy_tres.c, shared by the plugin, nodeox-sim, `nodeox why` and the sacct
# importer) against a real Slurm 22.05 (tests/integration/lib/cluster.sh).
# - Job TRES: for each --gres value, Slurm refuses it as "Invalid generic
#   resource (gres) specification" (24.11: "Invalid Trackable RESource (TRES)
#   specification") exactly when tests/policy/tres_eval calls it invalid
#   (24.11 parses gpu::1 and gpu:a100:1:2 and finds no node for them, which
#   counts as refused, and refuses "gpu:a100: 1", which 22.05 and nodeox
#   read); a count over 2^32-1, which nodeox refuses and Slurm reads, is
#   refused by Slurm too (no node has so many). The "=" spellings are
#   23.11+'s and not asked of 22.05. What Slurm accepts is submitted held and
#   its TresPerNode, as slurmctld writes it back, must read as the expected
#   type and count.
# - Node GRES: scontrol's Gres ("gpu:a100:2(S:0-1)") and, with a job
#   running, GresUsed ("gpu:a100:1(IDX:0)") read as the node's type, total
#   and use.
. "${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib/cluster.sh"
eval_bin="$top_builddir/tests/policy/tres_eval"
[ -x "$eval_bin" ] || cluster_skip "tests/policy/tres_eval is not built"
cluster_init
cluster_add_node n1 gpu=a100:2
cluster_add_node n2 gpu=l40s:2 gres=nic:2
cluster_start

# --gres value | what nodeox reads in "gres:VALUE" ("invalid" or its entries)
while IFS='|' read -r gres want; do
	[ -n "$gres" ] || continue
	out=$(cluster_as "$CLUSTER_USER" sbatch --test-only --gres="$gres" --wrap true 2>&1)
	case $out in
	# 24.11's sbatch words the syntax refusal so; an "allocation failure"
	# naming TRES (22.05, an unknown type) is not one
	*"Invalid generic resource"* | *"error: Invalid Trackable RESource"*) slurm=invalid ;;
	*) slurm=valid ;;
	esac
	ours=$("$eval_bin" "gres:$gres" | tr '\n' ';')
	case $ours in invalid*) verdict=invalid ;; *) verdict=valid ;; esac
	# 24.11 lets two forms 22.05 refuses through its parser (gpu::1,
	# gpu:a100:1:2) and then finds no node for them: nodeox, keeping them
	# as invalid, leaves such a job as asked, which Slurm cannot place anyway.
	if [ "$CLUSTER_SLURM_VNUM" -ge 2411 ] && [ "$verdict" = invalid ] &&
		[[ $out == *"Requested node configuration is not available"* ]]; then
		slurm=invalid
	fi
	# and refuses a blank before the count, which 22.05 (and nodeox, whose
	# grammar is 22.05's) skips: a job asking so never reaches the queue
	if [ "$CLUSTER_SLURM_VNUM" -ge 2411 ] && [ "$gres" = "gpu:a100: 1" ] && [ "$slurm" = invalid ]; then
		check_eq "$verdict" valid "--gres=$gres: 24.11 refuses the blank, nodeox reads it as 22.05 does"
		continue
	fi
	check_eq "$verdict" "$slurm" "--gres=$gres: nodeox says '$ours', Slurm says '${out%%$'\n'*}'"
	check_eq "$ours" "$want" "--gres=$gres: read as expected"
	[ "$slurm" = valid ] || continue
	id=$(cluster_sbatch --hold --gres="$gres" -o /dev/null --wrap true 2> /dev/null) || continue
	tpn=$(job_field "$id" TresPerNode)
	check_eq "$("$eval_bin" "$tpn" | tr '\n' ';')" "$want" \
		"--gres=$gres: TresPerNode=$tpn from slurmctld reads the same"
	scancel "$id"
done <<'CASES'
gpu:a100:1|ok a100 1;
gpu:1|ok - 1;
gpu|ok - 1;
gpu:a100|ok a100 1;
gpu:a100:0|ok a100 0;
gpu:a100: 1|ok a100 1;
gpu:2x|ok 2x 1;
gpu:a100:1,gpu:l40s:1|ok a100 1;ok l40s 1;
nic:1,gpu:l40s:2|ok l40s 2;
gpu:a100:2k|ok a100 2048;
gpu:a100:2kb|ok a100 2000;
gpu:a100:1KiB|ok a100 1024;
gpu:a100:2m|ok a100 2097152;
gpu:a100:|invalid: has no count where one belongs;
gpu:|invalid: has no count where one belongs;
gpu::1|invalid: has an empty GPU type;
gpu:a100:1x|invalid: has a count that is not a number;
gpu:a100:1:2|invalid: has a count that is not a number;
gpu:a100:-1|invalid: has a count that is not a number;
gpu:a100:1(S:0)|invalid: has a count that is not a number;
gpu:a100:1,gpu::|invalid: has an empty GPU type;
CASES

out=$(cluster_as "$CLUSTER_USER" sbatch --test-only --gres=gpu:a100:99999999999 --wrap true 2>&1)
check_eq "$?" 1 "--gres=gpu:a100:99999999999: Slurm refuses it too ($out)"
check_eq "$("$eval_bin" gres:gpu:a100:99999999999)" "invalid: has a count over 4294967295" \
	"--gres=gpu:a100:99999999999: nodeox refuses the count"

# node GRES, idle and with one GPU in use
node_field() { scontrol -d -o show node "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
check_eq "$("$eval_bin" --node "$(node_field n1 Gres)")" "ok a100 2" "n1 Gres=$(node_field n1 Gres)"
id=$(cluster_sbatch -w n1 --gres=gpu:a100:1 -o /dev/null --wrap "sleep 60")
wait_for_state "$id" RUNNING 30
check_eq "$("$eval_bin" --node "$(node_field n1 GresUsed)")" "ok a100 1" \
	"n1 GresUsed=$(node_field n1 GresUsed) with one GPU in use"
check_eq "$("$eval_bin" --node "$(node_field n2 GresUsed)")" "ok l40s 0" \
	"n2 GresUsed=$(node_field n2 GresUsed), idle"
scancel "$id"
cluster_finish
