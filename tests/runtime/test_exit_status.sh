#!/bin/sh
# test_exit_status.sh: each class of failure has its own exit status
# (nodeox-run(1), EXIT STATUS) and a message naming what failed: a bad
# option 2, a model file that is missing or of another shape 5, a missing
# corpus 7, an unwritable --json file 10, --backend cuda without a usable
# device 9 (where none is present).
RT_NEEDS=fortunes
. "$top_srcdir/tests/runtime/mpi-env.sh"
small="--workload gpt --layers 1 --channels 16 --heads 2 --context 16 --steps 4 -H 2 --eval-windows 4 --quiet"
expect() { # STATUS PATTERN ARGS...
    want=$1; pattern=$2; shift 2
    rc=0
    rt_mpi 1 "$@" >"$RT_WORK/out" 2>&1 || rc=$?
    if [ "$rc" != "$want" ] || ! grep -q -- "$pattern" "$RT_WORK/out"; then
        cat "$RT_WORK/out"; echo "FAIL: $* exited $rc (want $want) or did not say '$pattern'"; exit 1
    fi
    echo "ok: exit $rc: $(grep -- "$pattern" "$RT_WORK/out" | head -1)"
}
expect 2 "--steps: 'x' is not an integer" $small --steps x
expect 2 "--channels 16 is not a multiple of --heads 3" $small --heads 3
expect 7 "/nonexistent/corpus: not found" $small --corpus /nonexistent/corpus
expect 5 "model file $RT_WORK/none.model: cannot open" $small --init-model "$RT_WORK/none.model"
rt_mpi 1 $small --save-model "$RT_WORK/l1.model" >"$RT_WORK/out" 2>&1 || { cat "$RT_WORK/out"; exit 1; }
expect 5 "holds gpt-L1-C16-H2-T16" $small --layers 2 --init-model "$RT_WORK/l1.model"
expect 10 "cannot write the --json file /nonexistent/dir/r.json" $small --json /nonexistent/dir/r.json
if ! ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
    expect 9 "CUDA" $small --backend cuda
fi
echo PASS
