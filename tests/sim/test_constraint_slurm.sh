#!/bin/bash
# test_constraint_slurm.sh: the constraint evaluator nodeox-sim and `nodeox
# why` share (common/feature_expr.c) against a real slurmctld 22.05: for each
# expression and each node of a private cluster (tests/integration/lib/
# cluster.sh), `sbatch -w NODE -C EXPR` says whether Slurm accepts the job
# there (it refuses with "Requested node configuration is not available");
# tests/sim/feature_eval must say the same. Not --test-only: its will-run test
# skips the [a|b] set (seen: -w n5 -C '[a|b]&c' passes it, n5 having only c,
# while the real submission is refused). Covers the left-to-right order
# (a|b&c is (a|b)&c), parentheses, the matching set and the comma.
. "${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib/cluster.sh"
eval_bin="$top_builddir/tests/sim/feature_eval"
[ -x "$eval_bin" ] || cluster_skip "tests/sim/feature_eval is not built"
cluster_init
cluster_add_node n1 features=a,c
cluster_add_node n2 features=b
cluster_add_node n3 features=b,c
cluster_add_node n4 features=a
cluster_add_node n5 features=c
cluster_start
sbatch -w n1 --wrap true > /dev/null 2>&1 ||
	cluster_fail "sbatch refused a plain job: $(sbatch -w n1 --wrap true 2>&1)"
declare -A have=([n1]=a,c [n2]=b [n3]=b,c [n4]=a [n5]=c)
for expr in 'a|b&c' 'a&b|c' 'c|a&b' '(a|b)&c' 'a|(b&c)' 'c&(a|b)' '(a&c)|b' \
	'c&(a|b)|a' 'a,c' 'b|c,a' '[a|b]&c' 'c&[a|b]' 'a|b|c&a'; do
	for node in n1 n2 n3 n4 n5; do
		if sbatch -w "$node" -C "$expr" --output=/dev/null --wrap true > /dev/null 2>&1; then
			slurm=1
		else
			slurm=0
		fi
		ours=$("$eval_bin" "$expr" "${have[$node]}")
		check_eq "$ours" "$slurm" "-C '$expr' on $node (features ${have[$node]})"
	done
done
cluster_finish
