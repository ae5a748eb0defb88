#!/bin/sh
# test_torch_gpt.sh: a nanoGPT-style transformer written in plain PyTorch
# (doc/examples/finetune_gpt.py, the documented example: byte-level, 2
# layers, 64 channels, 4 heads, context 64, 137k parameters) through
# nodeox.torch, as the three jobs a user runs:
#   pretrain   2 ranks, synchronous, AdamW, on dict-gcide's text: the
#              validation loss must fall well below the untrained model's
#              (ln 256 = 5.55 nats per byte) and the state_dict is saved;
#   fine-tune  4 ranks at emulated speeds 1,1,0.5,0.5, speed-sized rounds
#              (the slow ranks take fewer steps), on the fortunes: the
#              validation loss on the fortunes must fall below the
#              pretrained model's;
#   evaluate   through the bridge, before and after fine-tuning: the 128
#              validation windows split across ranks by speed (43,43,21,21),
#              the per-window losses summed with nxt.all_reduce, equal to
#              rank 0 evaluating every window itself.
. "$top_srcdir/tests/runtime/mpi-env.sh"
RT_NEEDS="fortunes gcide"
. "$top_srcdir/tests/torch/torch-env.sh"
[ -d /usr/share/games/fortunes ] || { echo "SKIP: no /usr/share/games/fortunes (Debian package fortunes)"; exit 77; }
[ -f /usr/share/dictd/gcide.dict.dz ] || { echo "SKIP: no /usr/share/dictd/gcide.dict.dz (Debian package dict-gcide)"; exit 77; }
RT_TIMEOUT=600
TR_DIR=$top_srcdir/doc/examples
tr_mpi 2 finetune_gpt.py --data /usr/share/dictd/gcide.dict.dz --mode sync --save "$RT_WORK/pre.pt" \
    --steps 200 >"$RT_WORK/pre.out" 2>&1 ||
    { cat "$RT_WORK/pre.out"; echo "FAIL: pretraining"; exit 1; }
cat "$RT_WORK/pre.out"
tr_mpi 4 finetune_gpt.py --data /usr/share/games/fortunes --init "$RT_WORK/pre.pt" --check-eval \
    --steps 100 --speeds 1,1,0.5,0.5 \
    >"$RT_WORK/ft.out" 2>&1 || { cat "$RT_WORK/ft.out"; echo "FAIL: fine-tuning"; exit 1; }
cat "$RT_WORK/ft.out"
cat "$RT_WORK/pre.out" "$RT_WORK/ft.out" | sed -n 's/^finetune_gpt: //p' > "$RT_WORK/results"
"$TR_PY" - "$RT_WORK/results" <<'PY' || exit 1
import json, sys
r = {x["what"] + "/" + x["corpus"]: x for x in map(json.loads, open(sys.argv[1]))}
init, pre = r["before/gcide.dict.dz"], r["after/gcide.dict.dz"]
before, after = r["before/fortunes"], r["after/fortunes"]
ok = True
def check(cond, what):
    global ok
    print(("ok: " if cond else "FAIL: ") + what)
    ok = ok and cond
check(pre["loss"] < 0.75 * init["loss"], "pretraining: gcide loss %.3f -> %.3f" % (init["loss"], pre["loss"]))
check(after["loss"] < before["loss"] - 0.1,
      "fine-tuning: fortunes loss %.3f (pretrained) -> %.3f" % (before["loss"], after["loss"]))
s = after["local_steps"]
check(s[2] < s[0] and s[3] < s[1], "slow ranks took fewer steps: %s" % s)
for x in (before, after):
    check(x["windows_per_rank"] == [43, 43, 21, 21], "windows by speed: %s" % x["windows_per_rank"])
    check(abs(x["loss"] - x["one_rank_loss"]) < 1e-5,
          "split evaluation %.6f = one rank's %.6f" % (x["loss"], x["one_rank_loss"]))
sys.exit(0 if ok else 1)
PY
echo PASS
