#!/bin/sh
# test_torch_elastic.sh: torchrun's elastic restart with resume=True. Two
# ranks at speeds 1, 0.5 under torchrun --max-restarts 1, checkpoints every
# 2 rounds: rank 1 kills itself (SIGKILL) at the start of round 5 in the
# first attempt; torchrun's agent ends rank 0 and starts both again; the
# new processes find DIR/latest (round 4) and resume there. The job must
# exit 0, say it resumed at round 4, and end with bitwise the same global
# weights (params_fnv), counters and critical path as an uninterrupted run
# under torchrun. A restart that started from scratch (no resume: the
# killed attempt's rounds are trained again from the initial weights, but
# the test then sees no "resumed" line), or one that lost the outer
# momentum, the step counters, the optimizer state or the data position,
# fails here. torchrun's c10d rendezvous (--rdzv-backend c10d): with the
# static one (--master_addr/--master_port) the second attempt finds the
# first attempt's rank addresses in the store and fails to connect, in
# plain torch 2.15 as well (a four-line script: "Gloo connectFullMesh
# failed ... Connection refused"). Needs a torchrun beside the interpreter that starts a job
# (the pip lane's PyPI torch; skipped, 77, otherwise: test_torch_torchrun
# covers env:// launches without one).
. "$top_srcdir/tests/runtime/mpi-env.sh"
. "$top_srcdir/tests/torch/torch-env.sh"
RT_TIMEOUT=400
fail() { echo "FAIL: $*"; exit 1; }
tr_find_torchrun
[ -n "$TR_RUN" ] || { echo "SKIP: no torchrun that starts a job beside $TR_PY"; exit 77; }
echo "launcher: $TR_RUN"
common="--hidden 32 --max-train 4000 --steps 60 --speeds 1,0.5 --base-ms 8 --schedule --warmup-steps 20
        --sync-warmup 0 -H 5"
tr_elastic() { # tr_elastic OUT MAX_RESTARTS ARGS...
    te_out=$1 te_max=$2; shift 2
    timeout "$RT_TIMEOUT" nice "$TR_RUN" --nproc_per_node 2 --max-restarts "$te_max" --rdzv-backend c10d \
        --rdzv-endpoint "127.0.0.1:$(tr_port)" "$TR_DIR/train_mlp.py" "$@" >"$te_out" 2>&1
}
tr_elastic "$RT_WORK/full.out" 0 $common --json "$RT_WORK/full.json" ||
    { cat "$RT_WORK/full.out"; fail "uninterrupted run under torchrun"; }
tr_elastic "$RT_WORK/elastic.out" 1 $common --checkpoint-dir "$RT_WORK/ck" --every 2 --kill-at 1:5 --resume \
    --json "$RT_WORK/elastic.json" || { cat "$RT_WORK/elastic.out"; fail "the restarted job did not end 0"; }
grep "train_mlp:\|restart\|no checkpoint" "$RT_WORK/elastic.out" | head -20
grep -q "rank 1: killing myself in round 5" "$RT_WORK/elastic.out" || fail "rank 1 was not killed in round 5"
grep -q "resumed at round 4, global step" "$RT_WORK/elastic.out" || fail "the second attempt did not resume at round 4"
"$TR_PY" "$TR_DIR/same_run.py" "$RT_WORK/full.json" "$RT_WORK/elastic.json" restarted || exit 1
echo PASS
