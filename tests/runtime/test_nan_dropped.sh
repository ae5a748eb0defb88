#!/bin/sh
# test_nan_dropped.sh: worker 2's pseudo-gradient is made non-finite in round
# 3 (--inject-nan 2:3). It must be dropped from that round's combine with a
# warning naming the round and worker, counted once in the summary, and the
# global weights must stay finite: training goes on to a sane accuracy.
. "$top_srcdir/tests/runtime/mpi-env.sh"
rt_mpi 4 --mode rounds --combine samples -H 10 --steps 200 --eval-every 0 \
    --emulate-speeds 1,1,0.5,0.5 --emulate-base-ms 10 --inject-nan 2:3 \
    --json "$RT_WORK/n.json" >"$RT_WORK/out" 2>&1 || { cat "$RT_WORK/out"; echo "FAIL: exit status"; exit 1; }
cat "$RT_WORK/out"
grep -q "warning: round 3: worker 2's pseudo-gradient is not finite; dropped" "$RT_WORK/out" ||
    { echo "FAIL: no drop warning"; exit 1; }
[ "$(rt_json "$RT_WORK/n.json" dropped)" = 1 ] || { echo "FAIL: dropped count"; exit 1; }
acc=$(rt_json "$RT_WORK/n.json" test_accuracy)
awk -v a="$acc" 'BEGIN { exit !(a >= 0.6) }' || { echo "FAIL: accuracy $acc after the drop (NaN averaged in?)"; exit 1; }
echo PASS
