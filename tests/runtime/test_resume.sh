#!/bin/sh
# test_resume.sh: a run whose rank 1 is killed (SIGKILL) in round 5, resumed
# from the last complete checkpoint (round 4) with --resume, ends with
# bitwise the same global weights (FNV-1a of theta in the --json summary)
# as the same run uninterrupted. Covers AdamW state, outer momentum, step
# counters, data position and the round plan carried in the checkpoint.
. "$top_srcdir/tests/runtime/mpi-env.sh"
common="--mode rounds --combine fednova --inner adamw --lr 0.002 -H 10 --steps 100 --eval-every 0
        --emulate-speeds 1,1,0.5,0.5 --emulate-base-ms 20 --quiet"
rt_mpi 4 $common --json "$RT_WORK/full.json" >"$RT_WORK/full.out" 2>&1 ||
    { cat "$RT_WORK/full.out"; echo "FAIL: uninterrupted run"; exit 1; }
if rt_mpi 4 $common --checkpoint-dir "$RT_WORK/ck" --checkpoint-every 2 --inject-exit 1:5 \
    >"$RT_WORK/crash.out" 2>&1; then
    cat "$RT_WORK/crash.out"; echo "FAIL: the run with a killed rank exited 0"; exit 1
fi
[ "$(cat "$RT_WORK/ck/latest")" = 4 ] || { echo "FAIL: latest checkpoint is not round 4"; ls "$RT_WORK/ck"; exit 1; }
rt_mpi 4 $common --checkpoint-dir "$RT_WORK/ck" --checkpoint-every 2 --resume \
    --json "$RT_WORK/resumed.json" >"$RT_WORK/resumed.out" 2>&1 ||
    { cat "$RT_WORK/resumed.out"; echo "FAIL: resumed run"; exit 1; }
cat "$RT_WORK/resumed.out"
grep -q "resumed from .* at round 4" "$RT_WORK/resumed.out" || { echo "FAIL: did not resume at round 4"; exit 1; }
a=$(rt_json "$RT_WORK/full.json" params_fnv)
b=$(rt_json "$RT_WORK/resumed.json" params_fnv)
echo "uninterrupted $a, resumed $b"
[ -n "$a" ] && [ "$a" = "$b" ] || { echo "FAIL: resumed weights differ"; exit 1; }
[ "$(rt_json "$RT_WORK/full.json" global_steps)" = "$(rt_json "$RT_WORK/resumed.json" global_steps)" ] ||
    { echo "FAIL: step counters differ"; exit 1; }
echo PASS
