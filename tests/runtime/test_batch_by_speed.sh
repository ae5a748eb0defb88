#!/bin/sh
# test_batch_by_speed.sh: --batch-by-speed sizes each rank's batch to its
# speed and makes a step's (emulated) time follow its batch. Four ranks at
# speeds 1,1,0.5,0.5, batch 64, base 2 ms, a small MLP (784-16-10):
#   sync          plain: 40 steps at the slowest rank's 4 ms: critical 0.160 s
#   sync-bbs      batches 64,64,32,32, every step 2 ms: critical 0.080 s, and
#                 other weights than plain sync (its gradient mean is over
#                 192 samples, each worker weighted by its share)
#   rounds        plain, H 10: steps 60,60,35,35 (the first round, unmeasured,
#                 is H everywhere)
#   rounds-bbs    samples combine: steps 60,60,60,60, critical 0.120 s
#   equal         --batch-by-speed at equal speeds is plain sync, to the bit
#   tiny          batch 3 at speeds 1,0.1 (2 ranks): batches 3,1 (at least 1)
# and --batch-by-speed without speeds is refused naming the option.
. "$top_srcdir/tests/runtime/mpi-env.sh"
set -e
small="--hidden 16 --eval-every 0 --quiet --emulate-base-ms 2"
for run in sync sync-bbs rounds rounds-bbs equal-plain equal tiny; do
    np=4 speeds=1,1,0.5,0.5
    case $run in
    sync) opt="--mode sync -H 5 --steps 40" ;;
    sync-bbs) opt="--mode sync -H 5 --steps 40 --batch-by-speed" ;;
    rounds) opt="--mode rounds --combine samples -H 10 --sync-warmup 0 --steps 60" ;;
    rounds-bbs) opt="--mode rounds --combine samples -H 10 --sync-warmup 0 --steps 60 --batch-by-speed" ;;
    equal-plain) opt="--mode sync -H 5 --steps 40"; speeds=1,1,1,1 ;;
    equal) opt="--mode sync -H 5 --steps 40 --batch-by-speed"; speeds=1,1,1,1 ;;
    tiny) opt="--mode sync -H 5 --steps 4 --batch 3 --batch-by-speed"; np=2 speeds=1,0.1 ;;
    esac
    rt_mpi $np $small $opt --emulate-speeds $speeds --json "$RT_WORK/$run.json" >"$RT_WORK/$run.out" 2>&1 ||
        { cat "$RT_WORK/$run.out"; echo "FAIL: $run: nodeox-run exited non-zero"; exit 1; }
    eval "steps_$(echo $run | tr - _)=\"\$(sed -n 's/^  \"steps\": \[\(.*\)\],\$/\1/p' \"\$RT_WORK/\$run.json\" | tr -d ' ')\""
    eval "batches_$(echo $run | tr - _)=\"\$(sed -n 's/^  \"batches\": \[\(.*\)\],\$/\1/p' \"\$RT_WORK/\$run.json\" | tr -d ' ')\""
    eval "echo \"$run: steps \$steps_$(echo $run | tr - _), batches \$batches_$(echo $run | tr - _)\"" \
        "critical $(rt_json "$RT_WORK/$run.json" critical_s) s, params $(rt_json "$RT_WORK/$run.json" params_fnv)"
done
expect() { [ "$2" = "$3" ] || { echo "FAIL: $1: got '$2', want '$3'"; exit 1; }; }
expect "sync batches" "$batches_sync" 64,64,64,64
expect "sync critical path" "$(rt_json "$RT_WORK/sync.json" critical_s)" 0.160
expect "sync-bbs batches" "$batches_sync_bbs" 64,64,32,32
expect "sync-bbs critical path" "$(rt_json "$RT_WORK/sync-bbs.json" critical_s)" 0.080
[ "$(rt_json "$RT_WORK/sync.json" params_fnv)" != "$(rt_json "$RT_WORK/sync-bbs.json" params_fnv)" ] ||
    { echo "FAIL: sync-bbs trained the same weights as plain sync"; exit 1; }
expect "rounds steps" "$steps_rounds" 60,60,35,35
expect "rounds-bbs steps" "$steps_rounds_bbs" 60,60,60,60
expect "rounds-bbs batches" "$batches_rounds_bbs" 64,64,32,32
expect "rounds-bbs critical path" "$(rt_json "$RT_WORK/rounds-bbs.json" critical_s)" 0.120
expect "equal speeds: weights" "$(rt_json "$RT_WORK/equal.json" params_fnv)" \
    "$(rt_json "$RT_WORK/equal-plain.json" params_fnv)"
expect "tiny batches" "$batches_tiny" 3,1
rc=0
rt_mpi 2 $small --steps 4 --batch-by-speed >"$RT_WORK/bad.out" 2>&1 || rc=$?
cat "$RT_WORK/bad.out"
[ "$rc" = 2 ] && grep -q -- "--batch-by-speed needs every rank's speed" "$RT_WORK/bad.out" ||
    { echo "FAIL: --batch-by-speed without speeds was not refused (exit $rc)"; exit 1; }
echo PASS
