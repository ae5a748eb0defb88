#!/bin/sh
# bench_runtime.sh (make bench-runtime): synchronous data parallel against
# heterogeneous rounds with each combine rule, 4 CPU ranks at emulated speeds
# 1,1,0.5,0.5 (a step takes BASE_MS / speed). For each: training time to
# 0.85 test accuracy (evaluation excluded), final accuracy after the same
# global-step budget, and the speed-up over synchronous. Ideal here: 1.5x
# (throughput 3 units against 4 x 0.5 = 2). A measurement, not a test.
# Knobs: BENCH_STEPS (1500), BENCH_H (20), BENCH_BASE_MS (20), BENCH_TARGET (0.85).
. "$top_srcdir/tests/runtime/mpi-env.sh"
steps=${BENCH_STEPS:-1500}
H=${BENCH_H:-20}
base=${BENCH_BASE_MS:-20}
target=${BENCH_TARGET:-0.85}
common="--steps $steps -H $H --eval-every 1 --target-acc $target --quiet
        --emulate-speeds 1,1,0.5,0.5 --emulate-base-ms $base"
printf '%-8s %-9s %14s %10s %8s %22s %12s %8s\n' mode combine "time_to_$target" final_acc rounds \
    steps_per_worker MB_comm speedup
sync_t=
for run in sync:allreduce rounds:mean rounds:samples rounds:fednova; do
    mode=${run%%:*}
    combine=${run#*:}
    extra="--mode $mode"
    [ "$mode" = rounds ] && extra="$extra --combine $combine"
    j="$RT_WORK/$mode-$combine.json"
    rt_mpi 4 $common $extra --json "$j" >"$RT_WORK/$mode-$combine.out" 2>&1 ||
        { cat "$RT_WORK/$mode-$combine.out"; echo "bench: $run failed"; exit 1; }
    t=$(rt_json "$j" time_to_target_s)
    acc=$(rt_json "$j" test_accuracy)
    rounds=$(rt_json "$j" rounds)
    spw=$(sed -n 's/^  "steps": \[\(.*\)\],$/\1/p' "$j" | tr -d ' ')
    mb=$(awk -v b="$(rt_json "$j" bytes_communicated)" 'BEGIN { printf "%.0f", b / 1e6 }')
    [ "$mode" = sync ] && sync_t=$t
    speedup=$(awk -v s="$sync_t" -v t="$t" 'BEGIN {
        if (s == "null" || t == "null" || s == "" || t == "") print "-"; else printf "%.2fx", s / t }')
    printf '%-8s %-9s %14s %10s %8s %22s %12s %8s\n' "$mode" "$combine" "$t" "$acc" "$rounds" "$spw" \
        "$mb" "$speedup"
done
echo "(4 ranks, speeds 1,1,0.5,0.5, base $base ms/step, H $H, $steps global steps, $(nproc) cores;"
echo " time = training time in seconds at the first evaluation >= $target, evaluation excluded)"
