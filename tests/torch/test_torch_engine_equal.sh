#!/bin/sh
# test_torch_engine_equal.sh: nodeox.torch trains what nodeox-run's engine
# trains. The same MLP (784-32-10), the same initial weights (written by
# the bridge's script as a model file, read by nodeox-run --init-model),
# the same batches (tests/torch/fmnist.py reproduces nodeox-run's sample
# stream), the same inner SGD with momentum and schedule: after 8 rounds of
# speed-sized rounds (speeds 1,1,0.5,0.5: 10,10,5,5 steps after the first
# round, FedNova, outer Nesterov 0.7/0.9) and after 8 synchronous
# intervals, the global weights agree within float tolerance (PyTorch's
# and nodeox's kernels sum in different orders). The step counts per
# worker must be identical. Fails if the bridge dropped the outer step,
# combined with other weights, planned other rounds or all-reduced
# nothing.
. "$top_srcdir/tests/runtime/mpi-env.sh"
. "$top_srcdir/tests/torch/torch-env.sh"
RT_TIMEOUT=600
common="--max-train 4000 --steps 80 --seed 3"
init="$RT_WORK/init.model"
"$TR_PY" -c "
import sys; sys.path.insert(0, '$TR_DIR'); import fmnist
m = fmnist.mlp([32], 11)
fmnist.write_model('$init', fmnist.model_name([32]), fmnist.flat_params(m))" || { echo "FAIL: init model"; exit 1; }
for mode in rounds sync; do
    rt_mpi 4 --mode "$mode" --hidden 32 $common --combine fednova -H 10 --outer-lr 0.7 --outer-momentum 0.9 \
        --sync-warmup 0 --inner-state keep --lr 0.05 --momentum 0.9 --warmup-steps 50 --eval-every 0 \
        --emulate-speeds 1,1,0.5,0.5 --emulate-base-ms 8 --init-model "$init" --save-model "$RT_WORK/c-$mode.model" \
        --json "$RT_WORK/c-$mode.json" >"$RT_WORK/c-$mode.out" 2>&1 ||
        { cat "$RT_WORK/c-$mode.out"; echo "FAIL: nodeox-run --mode $mode"; exit 1; }
    tr_mpi 4 train_mlp.py --mode "$mode" --hidden 32 $common --combine fednova -H 10 --outer-lr 0.7 \
        --outer-momentum 0.9 --sync-warmup 0 --lr 0.05 --momentum 0.9 --schedule --warmup-steps 50 \
        --speeds 1,1,0.5,0.5 --base-ms 8 --init-model "$init" --save "$RT_WORK/py-$mode.model" \
        --json "$RT_WORK/py-$mode.json" >"$RT_WORK/py-$mode.out" 2>&1 ||
        { cat "$RT_WORK/py-$mode.out"; echo "FAIL: bridge --mode $mode"; exit 1; }
    cat "$RT_WORK/py-$mode.out"
    "$TR_PY" - "$RT_WORK" "$mode" <<'PY' || exit 1
import json, sys
sys.path.insert(0, __import__("os").environ["TR_DIR"])
import fmnist
work, mode = sys.argv[1], sys.argv[2]
c = fmnist.read_model("%s/c-%s.model" % (work, mode))
p = fmnist.read_model("%s/py-%s.model" % (work, mode))
i = fmnist.read_model("%s/init.model" % work)
cj = json.load(open("%s/c-%s.json" % (work, mode)))
pj = json.load(open("%s/py-%s.json" % (work, mode)))
moved = (c - i).norm().item()
diff = (c - p).abs().max().item()
rel = ((c - p).norm() / (c - i).norm()).item()
print("%s: nodeox-run steps %s, bridge steps %s; weights moved %.4f from init; "
      "max |diff| %.3g, |diff| / |moved| %.3g; rounds %d / %d" % (
      mode, cj["steps"], pj["local_steps"], moved, diff, rel, cj["rounds"], pj["rounds"]))
ok = cj["steps"] == pj["local_steps"] and cj["rounds"] == pj["rounds"] and moved > 0.1
ok = ok and diff < 2e-4 and rel < 1e-4
print("PASS" if ok else "FAIL: %s: the bridge's weights differ from nodeox-run's" % mode)
sys.exit(0 if ok else 1)
PY
done
echo PASS
