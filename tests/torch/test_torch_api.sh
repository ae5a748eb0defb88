#!/bin/sh
# test_torch_api.sh: issue 27's API exactly as written there, under mpirun:
# tests/torch/api_example.py is the loop (nxt.init(emulate_speeds=
# None, emulate_base_ms=20.0), Rounds(model, optimizer, mode=..., local_steps=
# 10, combine="fednova", outer_lr=0.7, outer_momentum=0.9), `while
# tr.global_step < N`, tr.step() without a loss, tr.critical_s, tr.summary(),
# nxt.finalize()) with a small model filled in, on 4 real MPI ranks in each
# mode. It checks ctx's fields, step()'s return (every step in sync; round
# ends and the synchronous warm-up in rounds), the summary's keys, that
# global_step reaches the bound and that every rank ends with the same
# weights. test_torch_srun.sh runs the same script under srun --mpi=pmix.
. "$top_srcdir/tests/runtime/mpi-env.sh"
. "$top_srcdir/tests/torch/torch-env.sh"
RT_TIMEOUT=300
for mode in rounds sync; do
    tr_mpi 4 api_example.py --mode "$mode" --steps 200 >"$RT_WORK/$mode.out" 2>&1
    rc=$?
    cat "$RT_WORK/$mode.out"
    [ "$rc" -eq 0 ] && grep -qx PASS "$RT_WORK/$mode.out" ||
        { echo "FAIL: the issue's API in $mode mode (exit $rc)"; exit 1; }
done
echo PASS
