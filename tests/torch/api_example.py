"""api_example.py: issue 27's API exactly as its users' scripts will call it.

The loop below is the issue's example with only the model, data and loss
filled in (a 2-layer MLP on a fixed random task per rank): nxt.init with
the issue's arguments, Rounds with the issue's keywords, step() without a
loss, global_step as the loop bound, critical_s, summary() and finalize.
Checks (rank 0 prints PASS or FAIL: ..., every rank exits 1 on a failure):
ctx has rank, world, local_rank, speed; step() returns True at every step
in sync mode and at least at every round end in rounds mode; global_step
reaches the bound; the summary has the issue's keys with local steps per
rank; critical_s is positive and the summary's; every rank ends with the
same weights (the global ones, after the last round end); the loss fell.

    mpirun -np 4 /usr/bin/python3 api_example.py --mode rounds --steps 200
"""
import argparse
import sys

import torch

import nodeox.torch as nxt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="rounds")
    ap.add_argument("--steps", type=int, default=1500)
    a = ap.parse_args()

    ctx = nxt.init(emulate_speeds=None, emulate_base_ms=20.0)  # MPI up; ctx.rank, ctx.world, ctx.local_rank, ctx.speed
    fields = {k: getattr(ctx, k) for k in ("rank", "world", "local_rank", "speed")}
    torch.manual_seed(0)  # the same initial weights on every rank
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Tanh(), torch.nn.Linear(32, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(100 + ctx.rank)  # each rank its own data
    w = torch.randn(16, 4, generator=torch.Generator().manual_seed(7))
    first = last = None
    steps = updates = round_ends = 0

    tr = nxt.Rounds(model, optimizer, mode=a.mode,            # or "sync": gradients all-reduced every step, the baseline
                    local_steps=10, combine="fednova", outer_lr=0.7, outer_momentum=0.9)
    while tr.global_step < a.steps:
        x = torch.randn(32, 16, generator=g)
        y = (x @ w).argmax(1)
        optimizer.zero_grad(); loss = loss_fn(model(x), y); loss.backward()
        updated = tr.step()   # inner step; True when the global weights were just updated (a round end; every step in sync)
        steps += 1
        updates += bool(updated)
        round_ends += tr.round_ended
        first = loss.item() if first is None else first
        last = loss.item()
    crit = tr.critical_s      # the critical path so far, as nodeox-run's critical_s
    s = tr.summary()          # dict: mode, rounds, global_steps, local steps per rank, critical_s, bytes_communicated

    # every rank holds the same (global) weights: their sum over ranks is world x ours
    mine = tr.flat.detach().double().clone()
    total = nxt.all_reduce(mine.clone())
    spread = (total - ctx.world * mine).abs().max().item()
    errs = []
    if ctx.world < 2 or not 0 <= ctx.rank < ctx.world or ctx.local_rank < 0:
        errs.append("ctx fields %r" % fields)
    if ctx.speed is not None:
        errs.append("ctx.speed %r: no speed is known before training here" % ctx.speed)
    if tr.global_step < a.steps or s["global_steps"] != tr.global_step:
        errs.append("global_step %d, summary %d, bound %d" % (tr.global_step, s["global_steps"], a.steps))
    missing = [k for k in ("mode", "rounds", "global_steps", "local_steps", "critical_s",
                           "bytes_communicated") if k not in s]
    if missing:
        errs.append("summary() lacks %s" % missing)
    elif s["mode"] != a.mode or len(s["local_steps"]) != ctx.world or s["local_steps"][ctx.rank] != steps:
        errs.append("summary mode %r, local_steps %r (this rank took %d)" % (s["mode"], s["local_steps"], steps))
    elif not s["bytes_communicated"] > 0 or not crit > 0 or abs(s["critical_s"] - crit) > 1e-9 * max(1, crit):
        errs.append("critical_s %r / %r, bytes %r" % (crit, s["critical_s"], s["bytes_communicated"]))
    if a.mode == "sync" and updates != steps:
        errs.append("sync: step() True %d times in %d steps" % (updates, steps))
    if a.mode == "rounds" and (updates < round_ends or round_ends != s["rounds"] or updates >= steps):
        errs.append("rounds: step() True %d times, %d round ends, %d rounds, %d steps"
                    % (updates, round_ends, s["rounds"], steps))
    if spread > 1e-9:
        errs.append("ranks end with different weights (max diff %.3g)" % spread)
    if not last < first:
        errs.append("loss %.4f -> %.4f" % (first, last))
    if ctx.rank == 0:
        print("api_example %s: ctx %r; %d steps, step() True %d, round ends %d; loss %.3f -> %.3f; "
              "critical_s %.3f; summary %r" % (a.mode, fields, steps, updates, round_ends, first, last,
                                             crit, {k: s[k] for k in s if k != "params_fnv"}), flush=True)
    for e in errs:
        print("FAIL: rank %d: %s" % (ctx.rank, e), flush=True)
    nxt.finalize()
    if ctx.rank == 0 and not errs:
        print("PASS")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
