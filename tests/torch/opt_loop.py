"""opt_loop.py: nxt.RoundsOptimizer in the loops users write (issue 44).

    mpirun -np 3 python opt_loop.py --case done --dtype bfloat16

--case done   `while not opt.done:` with a closure step, speeds 1, 0.5, ...
              (rounds of different sizes), a frozen layer and a buffer that
              start different on every rank, no nxt.finalize() (it runs at
              exit). Checks: every rank stops at total_steps; the trainable
              weights, the frozen layer and the buffer are the same on every
              rank (rank 0's for the last two); the engine holds the
              trainable values alone (the frozen layer is not sent at round
              ends); parameters keep --dtype; with
              bfloat16/float16 the engine's master copy (opt.rounds.flat)
              holds float32 values the dtype cannot (a float32 master); the
              loss fell; zero_grad/param_groups/state_dict reach the inner
              optimizer. Rank 0 prints PASS.
--case epoch  a fixed number of batches per rank (an epoch loop) in rounds
              with speeds 1, 0.5, ...: must stop with the engine's "ranks out
              of step" message (the shell test checks it), not MPI_ERR_TRUNCATE.
--case rank0  summary() on rank 0 only, after training: the same.
"""
import argparse
import sys

import torch

import nodeox.torch as nxt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", default="done")
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--steps", type=int, default=120)
    a = ap.parse_args()
    dtype = getattr(torch, a.dtype)

    import os
    world = int(os.environ.get("OMPI_COMM_WORLD_SIZE", "1"))
    ctx = nxt.init(emulate_speeds=[1.0] + [0.5] * (world - 1), emulate_base_ms=2.0)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Tanh(), torch.nn.Linear(32, 32),
                                torch.nn.Tanh(), torch.nn.Linear(32, 4))
    with torch.no_grad():  # a frozen layer and a buffer that differ per rank before the start
        model[2].weight.add_(ctx.rank)
        model[2].weight.requires_grad_(False)
        model[2].bias.requires_grad_(False)
        model.register_buffer("scale", torch.full((4,), 1.0 + ctx.rank))
    model = model.to(dtype)
    # pure float16 AdamW needs an eps float16 can hold (1e-8 is 0 there)
    inner = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-3,
                              eps=1e-4 if dtype == torch.float16 else 1e-8)
    opt = nxt.RoundsOptimizer(inner, mode="rounds", local_steps=8, total_steps=a.steps, model=model,
                              sync_warmup=16)
    g = torch.Generator().manual_seed(100 + ctx.rank)
    w = torch.randn(16, 4, generator=torch.Generator().manual_seed(7))
    loss_fn = torch.nn.CrossEntropyLoss()

    def batch():
        x = torch.randn(32, 16, generator=g)
        return x.to(dtype), (x @ w).argmax(1)

    losses, errs = [], []
    if a.case == "epoch":
        for _ in range(60):  # the same number of batches on every rank
            x, y = batch()
            opt.zero_grad()
            loss_fn(model(x).float() * model.scale.float(), y).backward()
            opt.step()
        print("rank %d: epoch done at global step %d" % (ctx.rank, opt.global_step), flush=True)
        opt.summary()
        return 0
    while not opt.done:
        x, y = batch()

        def closure():
            opt.zero_grad()
            loss = loss_fn(model(x).float() * model.scale.float(), y)
            loss.backward()
            return loss
        losses.append(float(opt.step(closure).detach()))
    if a.case == "rank0":
        if ctx.rank == 0:
            print(opt.summary(), flush=True)
        return 0

    s = opt.summary()
    flat = opt.rounds.flat.detach().double()
    spread = (nxt.all_reduce(flat.clone()) - ctx.world * flat).abs().max().item()
    frozen = model[2].weight.detach().double().reshape(-1)
    f_spread = (nxt.all_reduce(frozen.clone()) - ctx.world * frozen).abs().max().item()
    torch.manual_seed(0)
    ref = torch.nn.Linear(16, 32), torch.nn.Linear(32, 32)  # rank 0's frozen layer before training
    ref0 = ref[1].weight.detach().to(dtype).double().reshape(-1)
    if opt.global_step != a.steps or s["global_steps"] != a.steps:
        errs.append("global step %d / summary %d, total_steps %d" % (opt.global_step, s["global_steps"], a.steps))
    if spread > 1e-9:
        errs.append("trainable weights differ between ranks (%.3g)" % spread)
    if f_spread > 0 or (frozen - ref0).abs().max().item() > 0:
        errs.append("frozen layer not rank 0's on every rank (spread %.3g)" % f_spread)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    if opt.rounds.flat.numel() != trainable:  # the frozen layer would be sent at every round end
        errs.append("the engine holds %d values, the trainable parameters %d"
                    % (opt.rounds.flat.numel(), trainable))
    if model.scale.float().tolist() != [1.0] * 4:
        errs.append("buffer %r is not rank 0's [1.0, ...]" % model.scale.tolist())
    if any(p.dtype != dtype for p in model.parameters()):
        errs.append("parameters changed dtype")
    if dtype != torch.float32:
        master = opt.rounds.flat.detach()
        if (master - master.to(dtype).float()).abs().max().item() == 0:
            errs.append("the master copy holds only %s values (no float32 master)" % a.dtype)
        for p in model.parameters():
            if p.requires_grad:
                break
        if p.data_ptr() == master.data_ptr():
            errs.append("a %s parameter shares the engine's float32 memory" % a.dtype)
    if not sum(losses[-10:]) < sum(losses[:10]):
        errs.append("loss %.3f -> %.3f" % (sum(losses[:10]) / 10, sum(losses[-10:]) / 10))
    if opt.param_groups is not inner.param_groups or opt.state_dict()["state"].keys() != inner.state_dict()["state"].keys():
        errs.append("param_groups / state_dict are not the inner optimizer's")
    if s["local_steps"][0] <= s["local_steps"][-1] and ctx.world > 1:
        errs.append("rounds not sized by speed: local steps %r" % s["local_steps"])
    if ctx.rank == 0:
        print("opt_loop %s: global %d, local steps %r, loss %.3f -> %.3f, critical_s %.3f" % (
            a.dtype, opt.global_step, s["local_steps"], sum(losses[:10]) / 10, sum(losses[-10:]) / 10,
            opt.critical_s), flush=True)
    for e in errs:
        print("FAIL: rank %d: %s" % (ctx.rank, e), flush=True)
    if ctx.rank == 0 and not errs:
        print("PASS", flush=True)
    return 1 if errs else 0  # no nxt.finalize(): it runs at exit


if __name__ == "__main__":
    sys.exit(main())
