#!/bin/sh
# test_torch_torchrun.sh: nodeox.torch under torchrun, with no MPI launcher:
# MPI sees a world of one, so the engine communicates through
# torch.distributed (Gloo on the CPU; python/nodeox/torch/_dist.py). The
# torchrun beside the interpreter (the pip lane's venv) starts the ranks;
# without a working one (Debian's python3-torch 1.13: its torchrun fails
# under Python 3.11 in its own argument handling) a small launcher here
# sets the same env:// variables (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR,
# MASTER_PORT) and, as torchrun's agent, ends the others when one fails. The same run (train_mlp.py, the
# same seeds, emulated speeds, so the same rounds) under mpirun is the
# reference:
#   - 2 ranks at speeds 1, 0.5 (20 synchronous steps, then rounds of 10 and
#     5 steps): every rank's global weights identical, and identical to
#     mpirun's bit for bit (each sum has two terms, a + b == b + a);
#   - 4 ranks at speeds 1, 1, 0.5, 0.5: every rank's weights identical; to
#     mpirun's the same step counts and rounds, and weights equal within
#     |diff| / |weights| < 1e-5 (Gloo and Open MPI add four terms in
#     different orders: about one float32 rounding, 1.2e-7, per sum; the
#     runs measured 1.2e-7 apart; with _dist.py's all-reduce made a no-op,
#     as tried, the 2-rank runs were 0.33 apart and the test failed);
#   - a rank killed in round 3: the job ends non-zero before the timeout;
#   - a rank hanging in round 3: rank 0's watchdog line, the job ends.
. "$top_srcdir/tests/runtime/mpi-env.sh"
. "$top_srcdir/tests/torch/torch-env.sh"
RT_TIMEOUT=300
fail() { echo "FAIL: $*"; exit 1; }
tr_find_torchrun

# tr_env NP SCRIPT ARGS...: SCRIPT on NP ranks of an env:// launch
tr_env() {
    te_np=$1; te_script=$2; shift 2
    te_port=$(tr_port)
    if [ -n "$TR_RUN" ]; then
        timeout "$RT_TIMEOUT" nice "$TR_RUN" --nproc_per_node "$te_np" --master_addr 127.0.0.1 \
            --master_port "$te_port" "$TR_DIR/$te_script" "$@"
        return
    fi
    # as torchrun's agent does: one rank per process, and when one fails
    # the others are ended; past $RT_TIMEOUT all are, with exit 124
    "$TR_PY" - "$te_np" "$te_port" "$RT_TIMEOUT" "$TR_DIR/$te_script" "$@" <<'PY'
import os, subprocess, sys, time
np, port, limit, cmd = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), sys.argv[4:]
procs = [subprocess.Popen(["nice", sys.executable] + cmd, env=dict(
    os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=port, RANK=str(r), LOCAL_RANK=str(r),
    WORLD_SIZE=str(np), LOCAL_WORLD_SIZE=str(np))) for r in range(np)]
rc, t0 = 0, time.time()
while any(p.poll() is None for p in procs):
    failed = [p.returncode for p in procs if p.returncode not in (None, 0)]
    if (failed or time.time() - t0 > limit) and rc == 0:
        rc = failed[0] if failed else 124
        for p in procs:
            if p.poll() is None:
                p.terminate()
    time.sleep(0.2)
rc = rc or next((p.returncode for p in procs if p.returncode != 0), 0)
sys.exit(rc if rc >= 0 else 128 - rc)  # a signal: 128 + its number
PY
}
if [ -n "$TR_RUN" ]; then echo "launcher: $TR_RUN"; else echo "launcher: env:// variables set here"; fi

common="--max-train 4000 --steps 80 --seed 3 --hidden 32 -H 10 --sync-warmup 20 --schedule --warmup-steps 50 --base-ms 8"
for np in 2 4; do
    if [ "$np" = 2 ]; then speeds=1,0.5; else speeds=1,1,0.5,0.5; fi
    tr_env "$np" train_mlp.py $common --speeds "$speeds" --save-ranks "$RT_WORK/tr$np" \
        --json "$RT_WORK/tr$np.json" >"$RT_WORK/tr$np.out" 2>&1 ||
        { cat "$RT_WORK/tr$np.out"; fail "$np ranks under torchrun"; }
    tr_mpi "$np" train_mlp.py $common --speeds "$speeds" --save-ranks "$RT_WORK/mpi$np" \
        --json "$RT_WORK/mpi$np.json" >"$RT_WORK/mpi$np.out" 2>&1 ||
        { cat "$RT_WORK/mpi$np.out"; fail "$np ranks under mpirun"; }
    grep "^train_mlp:" "$RT_WORK/tr$np.out"
    "$TR_PY" - "$RT_WORK" "$np" <<'PY' || exit 1
import json, os, sys
sys.path.insert(0, os.environ["TR_DIR"])
import fmnist
work, np = sys.argv[1], int(sys.argv[2])
ok = True
runs = {}
for run, comm in (("tr", "torch.distributed"), ("mpi", "MPI")):
    s = json.load(open("%s/%s%d.json" % (work, run, np)))
    w = [fmnist.read_model("%s/%s%d.rank%d" % (work, run, np, r)) for r in range(np)]
    same = all(bool((w[0] == x).all()) for x in w[1:])
    print("%s, %d ranks: communicated through %s; steps %s, rounds %d; every rank's weights identical: %s"
          % (run, np, s["comm"], s["local_steps"], s["rounds"], same))
    if s["comm"] != comm or not same:
        ok = False
    runs[run] = (s, w[0])
(st, wt), (sm, wm) = runs["tr"], runs["mpi"]
diff = (wt - wm).abs().max().item()
rel = ((wt - wm).norm() / wm.norm()).item()
print("torchrun against mpirun, %d ranks: max |diff| %.3g, |diff| / |weights| %.3g" % (np, diff, rel))
ok = ok and st["local_steps"] == sm["local_steps"] and st["rounds"] == sm["rounds"] and st["rounds"] > 3
ok = ok and (diff == 0 if np == 2 else rel < 1e-5)
print("PASS" if ok else "FAIL: %d ranks: torchrun's run is not mpirun's" % np)
sys.exit(0 if ok else 1)
PY
done

# a rank lost under torchrun: the job ends, non-zero, well before the timeout
start=$(date +%s)
tr_env 2 train_mlp.py $common --speeds 1,0.5 --kill-at 1:3 --fault-initial 20 >"$RT_WORK/kill.out" 2>&1
rc=$?
took=$(($(date +%s) - start))
tail -5 "$RT_WORK/kill.out"
echo "rank 1 killed in round 3: exit $rc after ${took}s"
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$took" -lt 120 ] || fail "the torchrun job with a killed rank did not end by itself (exit $rc, ${took}s)"
# a rank hanging: torch.distributed waits (Gloo's own timeout is 30 min), the
# engine's watchdog ends rank 0 at its deadline
start=$(date +%s)
tr_env 2 train_mlp.py $common --steps 1000 --speeds 1,0.5 --hang-at 1:3 --fault-initial 10 >"$RT_WORK/hang.out" 2>&1
rc=$?
took=$(($(date +%s) - start))
echo "rank 1 hanging in round 3: exit $rc after ${took}s"
grep "^nodeox.torch: rank 0: all-gather at .* past the deadline" "$RT_WORK/hang.out" ||
    { tail -20 "$RT_WORK/hang.out"; fail "no watchdog line from rank 0"; }
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$took" -lt 150 ] || fail "the torchrun job with a hung rank did not end by itself (exit $rc, ${took}s)"
echo PASS
