#!/bin/sh
# bench_gpt.sh (make bench-runtime, second table): fine-tuning the byte-level
# transformer, synchronous against heterogeneous rounds. A model pretrained
# on corpus A (dict-gcide) is fine-tuned on corpus B (fortunes) by 4 CPU
# ranks at emulated speeds 1,1,0.5,0.5; quality is B's validation loss.
# Columns as in bench_runtime.sh: critical-path and measured time to the
# target loss, final loss, speed-up over sync. A measurement, not a test.
# Knobs: BENCH_GPT_STEPS (300), BENCH_GPT_H (10), BENCH_GPT_BASE_MS (25),
# BENCH_GPT_TARGET (2.65), BENCH_GPT_PRETRAIN (300 steps),
# BENCH_GPT_MODEL (a pretrained model file to reuse instead),
# BENCH_GPT_RUNS (labels MODE[:COMBINE[:STEPS]]), BENCH_GPT_EXTRA (options
# for the rounds runs). Rounds use the transformer's recipe (samples-weighted
# combine, outer lr 0.9 / momentum 0.7, 20 synchronous warm-up steps) unless
# BENCH_GPT_EXTRA says otherwise. rounds:samples:400 is the equal-samples
# budget: at speeds 1,1,0.5,0.5 a global step of rounds processes 3 batches
# against sync's 4, so 400 global steps see the data 300 sync steps see.
# Both modes are evaluated on the same grid of critical-path time: a round
# takes H x base (the fast workers' H steps), a synchronous step the slowest
# worker's 2 x base, so sync is evaluated every H/2 steps (every H would let
# it cross the target up to one interval late).
RT_NEEDS="fortunes gcide"
. "$top_srcdir/tests/runtime/mpi-env.sh"
steps=${BENCH_GPT_STEPS:-300}
H=${BENCH_GPT_H:-10}
base=${BENCH_GPT_BASE_MS:-25}
target=${BENCH_GPT_TARGET:-2.65}
pre=${BENCH_GPT_PRETRAIN:-300}
shape="--workload gpt --layers 2 --channels 32 --heads 2 --context 32 --batch 8 --quiet"
train="--inner adamw --lr 0.003 --weight-decay 0.1 --grad-clip 1 --warmup-steps 20"
model=${BENCH_GPT_MODEL:-$RT_WORK/pre.model}
if [ ! -f "$model" ]; then
    rt_mpi 2 $shape $train --corpus gcide --max-docs 60000 --eval-windows 200 --mode sync -H 50 --steps "$pre" \
        --eval-every 0 --save-model "$model" >"$RT_WORK/pre.out" 2>&1 ||
        { cat "$RT_WORK/pre.out"; echo "bench: pretraining on gcide failed"; exit 1; }
fi
common="$shape $train --corpus fortunes --init-model $model --steps $steps -H $H
        --eval-every 1 --eval-windows 200 --target-loss $target
        --emulate-speeds 1,1,0.5,0.5 --emulate-base-ms $base"
echo "| run | critical s to $target | measured s | final loss | steps per worker | MB | speed-up |"
echo "| --- | ---: | ---: | ---: | --- | ---: | ---: |"
for run in ${BENCH_GPT_RUNS:-sync rounds:mean rounds:samples rounds:samples:400}; do
    case $run in
    sync) opts="--mode sync -H $(( (H + 1) / 2 ))" ;;
    rounds:*:*) c=${run#rounds:}; opts="--mode rounds --combine ${c%%:*} --steps ${c#*:} ${BENCH_GPT_EXTRA:-}" ;;
    rounds:*) opts="--mode rounds --combine ${run#rounds:} ${BENCH_GPT_EXTRA:-}" ;;
    esac
    rt_bench_row "$run" val_loss "$common $opts"
done
echo "(gpt-L2-C32-H2-T32 pretrained on gcide, fine-tuned on fortunes: 4 ranks, speeds 1,1,0.5,0.5,"
echo " base $base ms/step, H $H, $steps global steps, $(nproc) cores)"
