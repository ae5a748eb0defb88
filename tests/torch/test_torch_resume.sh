#!/bin/sh
# test_torch_resume.sh: checkpoints of the outer state through nodeox.torch.
# The run with checkpoints every 2 rounds is killed (rank 1, SIGKILL, at the
# start of round 5) and resumed: DIR/latest must name round 4, the engine's
# files (global weights, outer momentum, counters, every worker's step times)
# and the bridge's optimizer-state files (rank-R.round-4.inner.pt) must be
# there, the resumed run must say it resumed at round 4, global step 40, and
# end with bitwise the same global weights (params_fnv) and counters as an
# uninterrupted run. A resume that lost the outer momentum, the step
# counters, the optimizer state or the data position would differ.
. "$top_srcdir/tests/runtime/mpi-env.sh"
. "$top_srcdir/tests/torch/torch-env.sh"
RT_TIMEOUT=600
common="--hidden 32 --max-train 4000 --steps 100 --speeds 1,1,0.5,0.5 --base-ms 8 --schedule --warmup-steps 20
        --sync-warmup 0"
tr_mpi 4 train_mlp.py $common --json "$RT_WORK/full.json" >"$RT_WORK/full.out" 2>&1 ||
    { cat "$RT_WORK/full.out"; echo "FAIL: uninterrupted run"; exit 1; }
if tr_mpi 4 train_mlp.py $common --checkpoint-dir "$RT_WORK/ck" --every 2 --kill-at 1:5 \
    >"$RT_WORK/crash.out" 2>&1; then
    cat "$RT_WORK/crash.out"; echo "FAIL: the run with a killed rank exited 0"; exit 1
fi
[ "$(cat "$RT_WORK/ck/latest")" = 4 ] || { echo "FAIL: latest checkpoint is not round 4"; ls "$RT_WORK/ck"; exit 1; }
for r in 0 1 2 3; do
    [ -f "$RT_WORK/ck/rank-$r.round-4.ckpt" ] && [ -f "$RT_WORK/ck/rank-$r.round-4.inner.pt" ] ||
        { echo "FAIL: rank $r's round-4 files"; ls "$RT_WORK/ck"; exit 1; }
done
tr_mpi 4 train_mlp.py $common --checkpoint-dir "$RT_WORK/ck" --every 2 --resume \
    --json "$RT_WORK/resumed.json" >"$RT_WORK/resumed.out" 2>&1 ||
    { cat "$RT_WORK/resumed.out"; echo "FAIL: resumed run"; exit 1; }
cat "$RT_WORK/resumed.out"
grep -q "resumed at round 4, global step 40" "$RT_WORK/resumed.out" || { echo "FAIL: did not resume at round 4"; exit 1; }
"$TR_PY" "$TR_DIR/same_run.py" "$RT_WORK/full.json" "$RT_WORK/resumed.json" resumed || exit 1
echo PASS
