#!/bin/sh
# test_eval_ema.sh: --eval-ema evaluates a moving average of the weights
# and leaves training alone. Three 4-rank runs of the same short job
# (rounds after a synchronous warm-up, so both update paths are used:
# every all-reduced step and every combine; emulated speeds make the
# rounds' plan, hence the weights, repeat exactly):
#   raw       no average
#   ema       --eval-ema 0.9: the same final weights (params_fnv), but the
#             evaluated accuracies differ from raw's (the average is not
#             the last iterate)
#   nokeep    --eval-ema 1e-300: a decay that keeps nothing makes the
#             average the last weights, so every accuracy equals raw's
#             (the average is swapped in and the weights restored exactly)
. "$top_srcdir/tests/runtime/mpi-env.sh"
set -e
job="--mode rounds --combine fednova -H 10 --sync-warmup 20 --steps 200 --eval-every 4
     --emulate-speeds 1,1,0.5,0.5 --emulate-base-ms 2"
for run in raw ema nokeep; do
    case $run in raw) opt= ;; ema) opt="--eval-ema 0.9" ;; nokeep) opt="--eval-ema 1e-300" ;; esac
    rt_mpi 4 $job $opt --json "$RT_WORK/$run.json" >"$RT_WORK/$run.out" 2>&1 ||
        { cat "$RT_WORK/$run.out"; echo "FAIL: $run: nodeox-run exited non-zero"; exit 1; }
    sed -n 's/^round \([0-9]*\) .* acc \([0-9.]*\) .*/\1 \2/p' "$RT_WORK/$run.out" >"$RT_WORK/$run.acc"
    echo "$run: params $(rt_json "$RT_WORK/$run.json" params_fnv), accuracy by round:" $(cat "$RT_WORK/$run.acc")
done
[ "$(wc -l <"$RT_WORK/raw.acc")" -ge 4 ] || { echo "FAIL: fewer than 4 evaluations logged"; exit 1; }
for run in ema nokeep; do
    [ "$(rt_json "$RT_WORK/$run.json" params_fnv)" = "$(rt_json "$RT_WORK/raw.json" params_fnv)" ] ||
        { echo "FAIL: $run: --eval-ema changed the trained weights"; exit 1; }
done
cmp -s "$RT_WORK/raw.acc" "$RT_WORK/nokeep.acc" ||
    { echo "FAIL: an average that keeps nothing is not evaluated as the last weights"; exit 1; }
if cmp -s "$RT_WORK/raw.acc" "$RT_WORK/ema.acc"; then
    echo "FAIL: --eval-ema 0.9 evaluated the same accuracies as the raw weights"; exit 1
fi
echo PASS
