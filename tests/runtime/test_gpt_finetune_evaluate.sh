#!/bin/sh
# test_gpt_finetune_evaluate.sh: the transformer's three job kinds chained
# on real text, as a user runs them:
#   1. pretrain on corpus A (dict-gcide, dictionary entries), synchronous on
#      2 ranks, --save-model;
#   2. fine-tune that model on corpus B (fortunes, quips and verse) in
#      rounds on 4 ranks of speeds 1,1,0.5,0.5, --init-model, --save-model;
#   3. --evaluate on B's validation documents: 1 rank, and 4 ranks of
#      unequal speed splitting the windows by speed.
# Asserts: pretraining on A already lowers B's validation loss below the
# untrained model's (about ln 256 = 5.55), fine-tuning lowers it further;
# the 4-rank evaluation reports bitwise the single-rank loss and gives the
# ranks windows in proportion 2:2:1:1.
RT_NEEDS="fortunes gcide"
. "$top_srcdir/tests/runtime/mpi-env.sh"
shape="--workload gpt --layers 2 --channels 32 --heads 2 --context 32 --batch 8 --quiet"
train="--inner adamw --lr 0.003 --weight-decay 0.1 --grad-clip 1 --warmup-steps 10 --eval-every 0"
evaluate() { # NP OUT ARGS...
    np=$1; out=$2; shift 2
    rt_mpi "$np" $shape --corpus fortunes --evaluate --eval-windows 240 --json "$out" "$@" \
        >"$out.log" 2>&1 || { cat "$out.log"; echo "FAIL: evaluate on $np ranks"; exit 1; }
    rt_json "$out" val_loss
}
rt_mpi 2 $shape $train --corpus gcide --max-docs 30000 --eval-windows 100 --mode sync -H 20 --steps 120 \
    --save-model "$RT_WORK/a.model" >"$RT_WORK/a.out" 2>&1 ||
    { cat "$RT_WORK/a.out"; echo "FAIL: pretraining on gcide"; exit 1; }
rt_mpi 4 $shape $train --corpus fortunes --mode rounds -H 10 --steps 120 \
    --emulate-speeds 1,1,0.5,0.5 --emulate-base-ms 10 --init-model "$RT_WORK/a.model" \
    --save-model "$RT_WORK/b.model" >"$RT_WORK/b.out" 2>&1 ||
    { cat "$RT_WORK/b.out"; echo "FAIL: fine-tuning on fortunes"; exit 1; }
untrained=$(evaluate 1 "$RT_WORK/e0.json")
pretrained=$(evaluate 1 "$RT_WORK/ea.json" --init-model "$RT_WORK/a.model")
one=$(evaluate 1 "$RT_WORK/e1.json" --init-model "$RT_WORK/b.model")
four=$(evaluate 4 "$RT_WORK/e4.json" --init-model "$RT_WORK/b.model" --emulate-speeds 1,1,0.5,0.5 \
    --emulate-base-ms 20)
cat "$RT_WORK/e4.json.log"
echo "fortunes validation loss: untrained $untrained, pretrained on gcide $pretrained," \
     "fine-tuned $one (1 rank), $four (4 ranks)"
awk -v u="$untrained" -v p="$pretrained" -v f="$one" 'BEGIN {
    if (!(u > 5.3)) { print "FAIL: the untrained model is not near ln 256"; exit 1 }
    if (!(p < u - 1.0)) { print "FAIL: pretraining on gcide did not lower the fortunes loss by 1 nat"; exit 1 }
    if (!(f < p - 0.1)) { print "FAIL: fine-tuning on fortunes did not lower its loss by 0.1 nat"; exit 1 }
}' || exit 1
[ -n "$one" ] && [ "$one" = "$four" ] || { echo "FAIL: 4-rank evaluation differs from 1 rank"; exit 1; }
grep -q '"items_per_rank": \[80, 80, 40, 40\]' "$RT_WORK/e4.json" ||
    { cat "$RT_WORK/e4.json"; echo "FAIL: windows not split 2:2:1:1 by speed"; exit 1; }
echo PASS
