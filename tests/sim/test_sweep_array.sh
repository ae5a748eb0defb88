#!/bin/bash
# tests/sim/test_sweep_array.sh: a sweep as a real Slurm job array on the
# private test cluster (tests/integration/lib/cluster.sh). nodeox-sim
# --sweep-array writes DIR/sweep.sbatch and copies of its inputs; the
# unprivileged test user submits it with sbatch; every array task runs one
# setting on a compute node (its log says so); --merge DIR prints the local
# sweep's table and writes its JSON byte for byte (DIR/sweep.json too); a
# task rerun by hand (SLURM_ARRAY_TASK_ID=1 bash DIR/sweep.sbatch) gives the
# same result file; a missing result makes --merge fail naming the task and
# how to rerun it.
. "${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib/cluster.sh"
sim="$(cd "$top_builddir" && pwd)/sim/nodeox-sim"
[ -x "$sim" ] || cluster_skip "sim/nodeox-sim is not built"
cluster_init
cluster_start
d="$top_srcdir/tests/fidelity/multifactor"
spec='Broaden=always,when-blocked;flex=0.3,0.8'
opts=(-c "$d" --round-sync 0 --replicas 4 --price a100=2,l40s=1)
dir="$CLUSTER_DIR/sweep"
out="$CLUSTER_DIR/sweep-out"
mkdir -p "$out"

"$sim" "${opts[@]}" --sweep "$spec" --json "$out/local.json" "$d/trace.csv" \
	> "$out/local.txt" 2> "$out/local.err"
check_eq "$?" 0 "local sweep runs ($(tail -1 "$out/local.err"))"
"$sim" "${opts[@]}" --sweep "$spec" --sweep-array "$dir" "$d/trace.csv" > "$out/write.txt" 2>&1
check_eq "$?" 0 "--sweep-array writes $dir ($(tail -1 "$out/write.txt"))"
check_match "$(grep -- '--array' "$dir/sweep.sbatch")" '^#SBATCH --array=0-3$' "one array task per setting"
for f in trace.csv nodeox.conf cluster/slurm.conf sweep.args sweep.info; do
	check_true "$f copied/written" test -s "$dir/$f"
done
check_match "$(grep -- '^--slurm-version=' "$dir/sweep.args")" '^--slurm-version=2[2-6]\.[01][15](\.[0-9]+)?$' \
	"the tasks read slurm.conf with this command's Slurm release"
chown -R "$CLUSTER_USER" "$dir"

job=$(cluster_as "$CLUSTER_USER" sbatch --parsable "$dir/sweep.sbatch" 2>&1)
check_match "$job" '^[0-9]+$' "the test user submits the array with sbatch"
end=$((SECONDS + 120))
while [ $SECONDS -le $end ] && [ -n "$(squeue -h -j "$job" 2>/dev/null)" ]; do sleep 1; done
check_eq "$(squeue -h -j "$job" 2>/dev/null)" "" "the array's 4 tasks finished"
for i in 0 1 2 3; do
	check_true "task $i wrote result-$i.txt" test -s "$dir/result-$i.txt"
	check_match "$(cat "$dir/task-$i.log" 2>&1)" "sweep task $i of 4: .* written to result-$i.txt" \
		"task $i ran under Slurm (its --output log)"
	check_eq "$(stat -c %U "$dir/result-$i.txt")" "$CLUSTER_USER" "task $i ran as the test user"
done

"$sim" --merge "$dir" --json "$out/merged.json" > "$out/merged.txt" 2> "$out/merge.err"
check_eq "$?" 0 "--merge combines the results ($(tail -1 "$out/merge.err"))"
check_true "merged JSON = local sweep's JSON" cmp "$out/merged.json" "$out/local.json"
check_true "DIR/sweep.json = local sweep's JSON" cmp "$dir/sweep.json" "$out/local.json"
check_true "merged table = local sweep's table" cmp "$out/merged.txt" "$out/local.txt"

# one task again by hand, as a site reruns one
cp "$dir/result-1.txt" "$out/result-1.before"
rm "$dir/result-1.txt"
cluster_as "$CLUSTER_USER" env SLURM_ARRAY_TASK_ID=1 bash "$dir/sweep.sbatch" > "$out/hand.txt" 2>&1
check_eq "$?" 0 "task 1 by hand ($(tail -1 "$out/hand.txt"))"
check_true "task 1 by hand = task 1 under Slurm" cmp "$dir/result-1.txt" "$out/result-1.before"

rm "$dir/result-2.txt"
"$sim" --merge "$dir" > /dev/null 2> "$out/missing.err"
check_eq "$?" 1 "--merge with a result missing exits 1"
check_match "$(cat "$out/missing.err")" "no result of array task 2 yet .*SLURM_ARRAY_TASK_ID=2 bash .*/sweep.sbatch" \
	"--merge names the missing task and how to rerun it"
cluster_finish
