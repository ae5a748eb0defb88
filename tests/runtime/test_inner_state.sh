#!/bin/sh
# test_inner_state.sh: --inner-state keep|reset|average, read from the
# workers' checkpoint files (each rank writes its own inner optimizer state
# last, before an 8-byte checksum: SGD's momentum, or AdamW's two moments).
# Four ranks at emulated speeds 1,1,0.5,0.5 (fast and slow workers take
# different steps, so their states differ unless something makes them
# equal), a small MLP (784-16-10: 12,730 parameters), checkpoint at the
# last round:
#   keep      (default) the ranks' states differ
#   reset     every rank's state is zero
#   average   every rank's state is the same and not zero, and training
#             differs from keep's (params_fnv)
#   adamw     average with AdamW: both moments the same on every rank
#   nan       average with worker 2's pseudo-gradient made NaN in round 3:
#             the run ends finite and worker 2 holds the others' average
# and a bad value is refused naming the option.
. "$top_srcdir/tests/runtime/mpi-env.sh"
set -e
n=12730
job="--mode rounds --combine fednova -H 10 --steps 100 --hidden 16 --eval-every 0 --quiet
     --emulate-speeds 1,1,0.5,0.5 --emulate-base-ms 2 --checkpoint-every 5"
# state_sum RUN RANK VECTORS: checksum of the last VECTORS * n floats before the checksum
state_sum() {
    ss_dir="$RT_WORK/$1.ck"
    ss_file="$ss_dir/rank-$2.round-$(cat "$ss_dir/latest").ckpt"
    tail -c $(($3 * 4 * n + 8)) "$ss_file" | head -c $(($3 * 4 * n)) | cksum
}
zero_sum() { head -c $(($1 * 4 * n)) /dev/zero | cksum; }
for run in keep reset average adamw nan; do
    case $run in
    keep) opt="--inner-state keep" ;; reset) opt="--inner-state reset" ;; average) opt="--inner-state average" ;;
    adamw) opt="--inner-state average --inner adamw --lr 0.002" ;;
    nan) opt="--inner-state average --inject-nan 2:3" ;;
    esac
    rt_mpi 4 $job $opt --checkpoint-dir "$RT_WORK/$run.ck" --json "$RT_WORK/$run.json" \
        >"$RT_WORK/$run.out" 2>&1 || { cat "$RT_WORK/$run.out"; echo "FAIL: $run: nodeox-run exited non-zero"; exit 1; }
    echo "$run: latest round $(cat "$RT_WORK/$run.ck/latest"), params $(rt_json "$RT_WORK/$run.json" params_fnv)"
done
for r in 1 2 3; do
    [ "$(state_sum keep $r 1)" != "$(state_sum keep 0 1)" ] ||
        { echo "FAIL: keep: rank $r's momentum equals rank 0's"; exit 1; }
    [ "$(state_sum reset $r 1)" = "$(zero_sum 1)" ] || { echo "FAIL: reset: rank $r's momentum is not zero"; exit 1; }
    for run in average nan; do
        [ "$(state_sum $run $r 1)" = "$(state_sum $run 0 1)" ] ||
            { echo "FAIL: $run: rank $r's momentum differs from rank 0's"; exit 1; }
    done
    [ "$(state_sum adamw $r 2)" = "$(state_sum adamw 0 2)" ] ||
        { echo "FAIL: adamw: rank $r's moments differ from rank 0's"; exit 1; }
done
[ "$(state_sum average 0 1)" != "$(zero_sum 1)" ] || { echo "FAIL: average: the momentum is zero"; exit 1; }
[ "$(rt_json "$RT_WORK/average.json" params_fnv)" != "$(rt_json "$RT_WORK/keep.json" params_fnv)" ] ||
    { echo "FAIL: average trained the same weights as keep"; exit 1; }
[ "$(rt_json "$RT_WORK/nan.json" dropped)" = 1 ] || { echo "FAIL: nan: not one dropped pseudo-gradient"; exit 1; }
grep -q 'not finite' "$RT_WORK/nan.out" || { echo "FAIL: nan: no warning"; exit 1; }
rc=0
"$RT_RUN" --inner-state mean >"$RT_WORK/bad.out" 2>&1 || rc=$?
cat "$RT_WORK/bad.out"
[ "$rc" = 2 ] && grep -q -- "--inner-state: 'mean' is not one of keep, reset, average" "$RT_WORK/bad.out" ||
    { echo "FAIL: a bad --inner-state value was not refused (exit $rc)"; exit 1; }
echo PASS
