#!/bin/sh
# test_torch_hf.sh: HF transformers' Trainer trains a GPT-2 (built from a
# config, no download) in rounds through nxt.RoundsOptimizer and
# nodeox.torch.hf.RoundsCallback on 3 real MPI ranks at speeds 1, 0.5, 0.5
# (tests/torch/hf_trainer.py says what it checks: the same global steps on
# every rank for Trainer's logging and saving, equal weights, no
# torch.distributed), then, where peft is installed, a LoRA fine-tune of it
# (adapters alone in the engine, the frozen base rank 0's); then, where a
# working torchrun sits beside the interpreter, the first case again under
# torchrun (the engine then communicates through torch.distributed, and
# Trainer must still see one process: no DistributedDataParallel). Skips
# (77) where the interpreter has no transformers (Debian 12's python3-torch
# lane); the pip lane (tools/test-pip) has it.
. "$top_srcdir/tests/runtime/mpi-env.sh"
. "$top_srcdir/tests/torch/torch-env.sh"
"$TR_PY" -c 'import transformers, accelerate' 2>/dev/null ||
    { echo "SKIP: $TR_PY has no transformers/accelerate"; exit 77; }
RT_TIMEOUT=600
tr_mpi 3 hf_trainer.py --out "$RT_WORK/hf" >"$RT_WORK/hf.out" 2>&1
rc=$?
grep -v "^\[vm\|warn" "$RT_WORK/hf.out" | tail -30
[ "$rc" -eq 0 ] && grep -qx PASS "$RT_WORK/hf.out" || { echo "FAIL: HF Trainer in rounds (exit $rc)"; exit 1; }
# a PEFT LoRA fine-tune of the same model, where peft is installed
if "$TR_PY" -c 'import peft' 2>/dev/null; then
    tr_mpi 3 hf_trainer.py --lora --out "$RT_WORK/lora" >"$RT_WORK/lora.out" 2>&1
    rc=$?
    grep "^hf_trainer\|^FAIL" "$RT_WORK/lora.out"
    [ "$rc" -eq 0 ] && grep -qx PASS "$RT_WORK/lora.out" || { echo "FAIL: PEFT LoRA in rounds (exit $rc)"; exit 1; }
else
    echo "test_torch_hf: no peft in $TR_PY: the LoRA case is left out"
fi
tr_find_torchrun
if [ -n "$TR_RUN" ]; then
    timeout "$RT_TIMEOUT" nice "$TR_RUN" --nproc_per_node 3 --master_addr 127.0.0.1 --master_port "$(tr_port)" \
        "$TR_DIR/hf_trainer.py" --out "$RT_WORK/hf-torchrun" >"$RT_WORK/hf-torchrun.out" 2>&1
    rc=$?
    grep "^hf_trainer\|^FAIL" "$RT_WORK/hf-torchrun.out"
    [ "$rc" -eq 0 ] && grep -qx PASS "$RT_WORK/hf-torchrun.out" || { echo "FAIL: HF Trainer in rounds under torchrun (exit $rc)"; exit 1; }
else
    echo "test_torch_hf: the torchrun case is left out"
fi
echo PASS
