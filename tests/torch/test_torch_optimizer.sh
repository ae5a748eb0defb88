#!/bin/sh
# test_torch_optimizer.sh: nxt.RoundsOptimizer in the loops users write,
# on real MPI ranks (tests/torch/opt_loop.py says what each case checks):
#   - `while not opt.done` at speeds 1, 0.5, 0.5 (float32 and bfloat16
#     parameters; float16 where torch's CPU matmul has it, torch >= 2):
#     equal weights on every rank, frozen layer and buffer broadcast from
#     rank 0, a float32 master copy, no nxt.finalize() (atexit);
#   - an epoch loop (fixed batches per rank) and summary() on rank 0 only:
#     every rank stops with "ranks out of step", naming the calls, never
#     MPI_ERR_TRUNCATE;
#   - two processes started with torchrun's RANK/WORLD_SIZE but no MPI
#     launcher and no MASTER_ADDR/MASTER_PORT (so not torch.distributed
#     either: tests/torch/test_torch_torchrun.sh): each stops ("MPI sees a
#     world of one"), none trains alone.
. "$top_srcdir/tests/runtime/mpi-env.sh"
. "$top_srcdir/tests/torch/torch-env.sh"
RT_TIMEOUT=300
fail() { echo "FAIL: $*"; exit 1; }
dtypes="float32 bfloat16"
"$TR_PY" -c 'import sys, torch; sys.exit(int(torch.__version__.split(".")[0]) < 2)' && dtypes="$dtypes float16"
for dt in $dtypes; do
    tr_mpi 3 opt_loop.py --case done --dtype "$dt" >"$RT_WORK/done-$dt.out" 2>&1
    rc=$?
    cat "$RT_WORK/done-$dt.out"
    [ "$rc" -eq 0 ] && grep -qx PASS "$RT_WORK/done-$dt.out" || fail "while not opt.done, $dt (exit $rc)"
done
for case in epoch rank0; do
    tr_mpi 3 opt_loop.py --case "$case" >"$RT_WORK/$case.out" 2>&1
    rc=$?
    grep "nodeox.torch: rank 0" "$RT_WORK/$case.out"
    [ "$rc" -ne 0 ] || fail "$case: exit 0, but the ranks were out of step"
    grep -q "MPI_ERR_TRUNCATE" "$RT_WORK/$case.out" && fail "$case: MPI_ERR_TRUNCATE"
    grep -q "nodeox.torch: rank 0: ranks out of step: rank 0 called summary() while rank [12] called" \
        "$RT_WORK/$case.out" || { cat "$RT_WORK/$case.out"; fail "$case: no 'ranks out of step' message"; }
done
grep -q "called step() (its round end)" "$RT_WORK/epoch.out" || fail "epoch: the round end is not named"
grep -q "called finalize() (or the interpreter's exit)" "$RT_WORK/rank0.out" || fail "rank0: finalize is not named"
# torchrun's variables without MPI: two worlds of one
for r in 0 1; do
    RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r ${RT_TIMEOUT:+timeout "$RT_TIMEOUT"} "$TR_PY" -c \
        'import nodeox.torch as nxt; nxt.init(); print("trained alone")' >"$RT_WORK/torchrun-$r.out" 2>&1 &
done
wait
cat "$RT_WORK"/torchrun-*.out
grep -q "trained alone" "$RT_WORK"/torchrun-*.out && fail "a process of a torchrun-style job trained alone"
[ "$(grep -l "the torchrun environment says rank . of 2, but MPI sees a world of one" "$RT_WORK"/torchrun-*.out | wc -l)" -eq 2 ] ||
    fail "torchrun-style start: not both processes stopped with the world-of-one message"
echo PASS
