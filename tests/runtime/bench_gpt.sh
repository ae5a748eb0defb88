#!/bin/sh
# bench_gpt.sh (make bench-runtime, second table): fine-tuning the byte-level
# transformer, synchronous against heterogeneous rounds. A model pretrained
# on corpus A (dict-gcide) is fine-tuned on corpus B (fortunes) by 4 CPU
# ranks at emulated speeds 1,1,0.5,0.5; quality is B's validation loss.
# For each run: training time to the target loss (evaluation excluded), the
# final loss after the same global-step budget, and the speed-up over sync.
# A measurement, not a test.  Knobs: BENCH_GPT_STEPS (300), BENCH_GPT_H (10),
# BENCH_GPT_BASE_MS (25), BENCH_GPT_TARGET (3.0), BENCH_GPT_PRETRAIN (300),
# BENCH_GPT_RUNS ("sync:allreduce rounds:mean rounds:samples"), BENCH_GPT_EXTRA
# (more nodeox-run options for the rounds runs, e.g. --outer-lr 0.5).
RT_NEEDS="fortunes gcide"
. "$top_srcdir/tests/runtime/mpi-env.sh"
steps=${BENCH_GPT_STEPS:-300}
H=${BENCH_GPT_H:-10}
base=${BENCH_GPT_BASE_MS:-25}
target=${BENCH_GPT_TARGET:-3.0}
pre=${BENCH_GPT_PRETRAIN:-300}
runs=${BENCH_GPT_RUNS:-sync:allreduce rounds:mean rounds:samples}
shape="--workload gpt --layers 2 --channels 32 --heads 2 --context 32 --batch 8 --quiet"
train="--inner adamw --lr 0.003 --weight-decay 0.1 --grad-clip 1 --warmup-steps 20"
rt_mpi 2 $shape $train --corpus gcide --max-docs 60000 --mode sync -H 50 --steps "$pre" \
    --eval-every 0 --save-model "$RT_WORK/pre.model" >"$RT_WORK/pre.out" 2>&1 ||
    { cat "$RT_WORK/pre.out"; echo "bench: pretraining on gcide failed"; exit 1; }
common="$shape $train --corpus fortunes --init-model $RT_WORK/pre.model --steps $steps -H $H
        --eval-every 1 --eval-windows 200 --target-loss $target
        --emulate-speeds 1,1,0.5,0.5 --emulate-base-ms $base"
printf '%-8s %-9s %14s %10s %8s %18s %10s %8s\n' mode combine "time_to_$target" final_loss rounds \
    steps_per_worker MB_comm speedup
sync_t=
for run in $runs; do
    mode=${run%%:*}
    combine=${run#*:}
    extra="--mode $mode"
    [ "$mode" = rounds ] && extra="$extra --combine $combine ${BENCH_GPT_EXTRA:-}"
    j="$RT_WORK/gpt-$mode-$combine.json"
    rt_mpi 4 $common $extra --json "$j" >"$RT_WORK/gpt-$mode-$combine.out" 2>&1 ||
        { cat "$RT_WORK/gpt-$mode-$combine.out"; echo "bench: $run failed"; exit 1; }
    t=$(rt_json "$j" time_to_target_s)
    loss=$(rt_json "$j" val_loss)
    rounds=$(rt_json "$j" rounds)
    spw=$(sed -n 's/^  "steps": \[\(.*\)\],$/\1/p' "$j" | tr -d ' ')
    mb=$(awk -v b="$(rt_json "$j" bytes_communicated)" 'BEGIN { printf "%.0f", b / 1e6 }')
    [ "$mode" = sync ] && sync_t=$t
    speedup=$(awk -v s="$sync_t" -v t="$t" 'BEGIN {
        if (s == "null" || t == "null" || s == "" || t == "") print "-"; else printf "%.2fx", s / t }')
    printf '%-8s %-9s %14s %10s %8s %18s %10s %8s\n' "$mode" "$combine" "$t" "$loss" "$rounds" "$spw" \
        "$mb" "$speedup"
done
echo "(gpt-L2-C32-H2-T32 pretrained $pre steps on gcide, fine-tuned on fortunes: 4 ranks, speeds"
echo " 1,1,0.5,0.5, base $base ms/step, H $H, $steps global steps, $(nproc) cores; time = training"
echo " time in seconds at the first evaluation <= $target, evaluation excluded)"
