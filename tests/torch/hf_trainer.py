"""hf_trainer.py: HF transformers' Trainer in rounds (issue 44); --lora: a
PEFT LoRA fine-tune of the same model (only the adapters are trained and
sent; the frozen base, made different on every rank first, is rank 0's).

    mpirun -np 3 python hf_trainer.py --out DIR
    torchrun --nproc-per-node 3 hf_trainer.py --out DIR

A GPT-2 built from a config (2 layers, 32 wide, vocab 64: no download), a
random token data set per rank, Trainer with nxt.RoundsOptimizer(AdamW,
total_steps=60) and nodeox.torch.hf.RoundsCallback, at speeds 1, 0.5, ...
Checks (rank 0 prints PASS): Trainer ends at global step 60 on every rank;
every rank logged at the same global steps (logging_steps 10), each a
multiple crossing, and evaluated at global steps 30 and 60 (eval_steps 30;
its own 16 windows);
rank 0 alone saved, at the steps save_steps 30 gives
(DIR/checkpoint-30, checkpoint-60); the weights are equal on every rank;
the loss fell; the launcher's variables are gone, so accelerate saw one
process and did not start torch.distributed (under torchrun the engine's
torch.distributed group is up, and Trainer must still see one process and
not wrap the model in DistributedDataParallel).
"""
import argparse
import os
import sys

import torch

import nodeox.torch as nxt
from nodeox.torch.hf import RoundsCallback


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--lora", action="store_true", help="a PEFT LoRA fine-tune (frozen base)")
    a = ap.parse_args()
    world = int(os.environ.get("OMPI_COMM_WORLD_SIZE", os.environ.get("WORLD_SIZE", "1")))  # mpirun, torchrun
    ctx = nxt.init(emulate_speeds=[1.0] + [0.5] * (world - 1), emulate_base_ms=5.0, device="cpu")
    from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainerCallback, TrainingArguments

    torch.manual_seed(0)
    cfg = GPT2Config(vocab_size=64, n_positions=32, n_embd=32, n_layer=2, n_head=2)
    model = GPT2LMHeadModel(cfg)
    if a.lora:  # a frozen base that differs per rank before the start: rank 0's must win
        from peft import LoraConfig, get_peft_model
        with torch.no_grad():
            model.transformer.wte.weight.add_(0.01 * ctx.rank)
        model = get_peft_model(model, LoraConfig(r=4, lora_alpha=8, target_modules=["c_attn", "c_fc"],
                                                 lora_dropout=0.0, fan_in_fan_out=True))
    g = torch.Generator().manual_seed(10 + ctx.rank)
    base = torch.randint(0, 64, (1, 16), generator=g)
    # a learnable task: sequences that repeat a pattern, per rank its own shard
    data = [{"input_ids": torch.cat([base[0, :8], base[0, :8]]).roll(int(i) % 8),
             "labels": torch.cat([base[0, :8], base[0, :8]]).roll(int(i) % 8)} for i in range(400)]
    # LoRA's adapters take a larger step (1e-2: loss 3.81 -> 3.66 over 60 steps; 3e-3: 3.89 -> 3.85)
    inner = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2 if a.lora else 3e-3)
    opt = nxt.RoundsOptimizer(inner, local_steps=10, total_steps=a.steps, model=model, sync_warmup=10)
    args = TrainingArguments(output_dir=a.out, max_steps=a.steps, per_device_train_batch_size=8,
                             logging_steps=10, save_steps=30, save_strategy="steps",
                             eval_strategy="steps", eval_steps=30, per_device_eval_batch_size=8,
                             lr_scheduler_type="constant", report_to=[], use_cpu=True,
                             disable_tqdm=True, seed=0, save_only_model=False)
    logged, evaluated = [], []

    class Record(TrainerCallback):
        def on_log(self, args, state, control, logs=None, **kw):
            if logs and "loss" in logs:
                logged.append((state.global_step, logs["loss"]))

        def on_evaluate(self, args, state, control, metrics=None, **kw):
            evaluated.append(state.global_step)

    trainer = Trainer(model=model, args=args, train_dataset=data, eval_dataset=data[:16], optimizers=(opt, None),
                      callbacks=[RoundsCallback(), Record()])
    gone = [k for k in ("OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMI_SIZE", "WORLD_SIZE",
                        "LOCAL_RANK") if k in os.environ]
    result = trainer.train()
    errs = []
    if gone:
        errs.append("launcher variables still set: %s" % gone)
    # under torchrun torch.distributed is the engine's (ctx.comm): Trainer must still see one process
    if trainer.args.world_size != 1 or (torch.distributed.is_initialized() and ctx.comm == "MPI"):
        errs.append("accelerate started torch.distributed (world_size %d)" % trainer.args.world_size)
    if isinstance(trainer.model_wrapped, torch.nn.parallel.DistributedDataParallel):
        errs.append("Trainer wrapped the model in DistributedDataParallel")
    if trainer.state.global_step != a.steps or opt.global_step != a.steps or not opt.done:
        errs.append("Trainer ended at global step %d, engine %d" % (trainer.state.global_step, opt.global_step))
    steps = [s for s, _ in logged]
    mine = torch.tensor(steps + [-1] * (16 - len(steps)), dtype=torch.float64)
    if len(steps) > 16 or (nxt.all_reduce(mine.clone()) - ctx.world * mine).abs().max().item() != 0:
        errs.append("ranks logged at different global steps (this rank: %r)" % steps)
    if steps != sorted(set(steps)) or not steps or steps[-1] != a.steps:
        errs.append("logged at global steps %r" % steps)
    if evaluated != [30, 60]:  # eval_steps 30, in global steps, on every rank
        errs.append("evaluated at global steps %r (want [30, 60])" % evaluated)
    flat = opt.rounds.flat.detach().double()
    if (nxt.all_reduce(flat.clone()) - ctx.world * flat).abs().max().item() > 1e-9:
        errs.append("weights differ between ranks")
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    frozen = torch.cat([p.detach().double().reshape(-1) for p in model.parameters() if not p.requires_grad]) \
        if a.lora else torch.zeros(1, dtype=torch.float64)
    if a.lora and (opt.rounds.flat.numel() != trainable or
                   trainable >= sum(p.numel() for p in model.parameters()) // 4):
        errs.append("LoRA: the engine holds %d values, the adapters %d" % (opt.rounds.flat.numel(), trainable))
    if (nxt.all_reduce(frozen.clone()) - ctx.world * frozen).abs().max().item() != 0:
        errs.append("the frozen base differs between ranks")
    saved = sorted(d for d in os.listdir(a.out) if d.startswith("checkpoint-")) if os.path.isdir(a.out) else []
    if ctx.rank == 0 and saved != ["checkpoint-30", "checkpoint-60"]:
        errs.append("checkpoints %r (want checkpoint-30, checkpoint-60, by rank 0)" % saved)
    if not logged or not logged[-1][1] < logged[0][1] - (0.05 if a.lora else 0):
        errs.append("loss did not fall: %r" % logged)
    if ctx.rank == 0:
        print("hf_trainer: logged %r; local steps %r; train_loss %.3f" % (
            logged, opt.summary()["local_steps"], result.training_loss), flush=True)
    else:
        opt.summary()
    for e in errs:
        print("FAIL: rank %d: %s" % (ctx.rank, e), flush=True)
    if ctx.rank == 0 and not errs:
        print("PASS", flush=True)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
