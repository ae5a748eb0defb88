#!/bin/sh
# test_torch_faults.sh: failures under nodeox.torch, 4 real MPI ranks of
# plain PyTorch at emulated speeds 1,1,0.5,0.5.
# (1) rank 2's weights become NaN at the start of its round 3, so its
#     update is not finite: the engine must drop it from that round's
#     combine with the warning naming round and worker, count it once, and
#     training must go on to a sane accuracy with finite weights (rank 2's
#     SGD momentum is restarted by the bridge).
# (2) rank 1 hangs in round 3 (alive, never reaches the next collective):
#     the others' watchdog must fire at its deadline, name the collective
#     and exit 4; the job ends well within 180 s (the deadline is 4 x the
#     longest round + 15 s; rounds from the start, no warm-up interval).
# (3) rank 2 is killed with SIGKILL in round 3: the job ends non-zero,
#     within 180 s.
# The engine's messages (the drop warning, the watchdog) start with
# "nodeox.torch: rank R:", never nodeox-run's name.
. "$top_srcdir/tests/runtime/mpi-env.sh"
. "$top_srcdir/tests/torch/torch-env.sh"
common="--hidden 32 --max-train 4000 --speeds 1,1,0.5,0.5 --base-ms 8"
RT_TIMEOUT=600
tr_mpi 4 train_mlp.py $common --steps 150 --nan-at 2:3 --json "$RT_WORK/nan.json" >"$RT_WORK/nan.out" 2>&1 ||
    { cat "$RT_WORK/nan.out"; echo "FAIL: exit status with a NaN update"; exit 1; }
cat "$RT_WORK/nan.out"
# anchored at the line start, as the watchdog's line below: the ranks share
# stderr, and the runtime writes each line in one write(2) (rt_util_say), so
# no other rank's prefix lands in front of it (as CI's pip lane saw when a
# warning took three writes: "nodeox.torch: rank 2: warning: nodeox.torch:
# rank 0: warning: round 3: ...")
grep -q "^nodeox.torch: rank 0: warning: round 3: worker 2's pseudo-gradient is not finite; dropped" "$RT_WORK/nan.out" ||
    { echo "FAIL: no drop warning"; exit 1; }
"$TR_PY" - "$RT_WORK/nan.json" <<'PY' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
print("dropped %d, test accuracy %.4f" % (s["dropped"], s["test_accuracy"]))
ok = s["dropped"] == 1 and s["test_accuracy"] >= 0.6
print("ok" if ok else "FAIL: dropped count or accuracy after the drop (NaN averaged in?)")
sys.exit(0 if ok else 1)
PY
RT_TIMEOUT=180
rc=0
tr_mpi 4 train_mlp.py $common --sync-warmup 0 --steps 1000 --hang-at 1:3 >"$RT_WORK/hang.out" 2>&1 || rc=$?
rt_check_lost "$RT_WORK/hang.out" $rc hang
grep -q "^nodeox.torch: rank [0-9]: all-gather at .* past the deadline" "$RT_WORK/hang.out" ||
    { echo "FAIL: the watchdog's message does not start with nodeox.torch"; exit 1; }
rc=0
tr_mpi 4 train_mlp.py $common --sync-warmup 0 --steps 1000 --kill-at 2:3 >"$RT_WORK/kill.out" 2>&1 || rc=$?
rt_check_lost "$RT_WORK/kill.out" $rc kill
grep "nodeox-run" "$RT_WORK/nan.out" "$RT_WORK/hang.out" "$RT_WORK/kill.out" &&
    { echo "FAIL: a message under nodeox.torch names nodeox-run"; exit 1; }
echo PASS
