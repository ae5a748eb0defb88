"""bench_quality.py (make bench-torch): quality through nxt.RoundsOptimizer
with the defaults a user gets, rounds against sync (the same wrapper,
mode="sync"), in an ordinary training loop:

    opt = nxt.RoundsOptimizer(inner, mode=MODE, total_steps=STEPS, model=model)
    while not opt.done:
        opt.zero_grad(); loss_fn(model(x), y).backward(); opt.step()

Only mode and total_steps are given: local_steps 10, FedNova, outer
Nesterov momentum 0.7 with the outer lr the inner optimizer picks (0.3 for
the MLP's SGD, 0.9 for GPT-2's AdamW: nxt.default_outer_lr), 60
synchronous warm-up steps, no lr warm-up, cosine to 0.1 of the inner lr at
total_steps are the wrapper's defaults.
  --model mlp    tests/torch/fmnist.py's MLP (784-256-10), SGD lr 0.05,
                 momentum 0.9, batch 64 per rank; held-out loss: cross
                 entropy on the 10,000 Fashion-MNIST test images
  --model gpt2   a transformers GPT2LMHeadModel built from a config (byte
                 vocabulary 256, context 64, 2 layers, 64 wide, 4 heads:
                 no download), AdamW lr 3e-3 (betas 0.9 / 0.95, weight
                 decay 0.1), batch 8 windows, gradient clipping 1.0, on
                 the fortunes' text (1 MiB); held-out loss: nats per byte
                 on 128 windows never trained on (every 10th window)
--seed sets the initial weights (rank 0's win) and the data order. Rank 0
evaluates the held-out loss inside opt.pause() (no step's time) at the first
round end past every --eval-every global steps, and writes --json: the
curve [(global step, critical s, loss)], the summary and the final loss.
"""

import argparse
import glob
import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fmnist  # noqa: E402
import nodeox.torch as nxt  # noqa: E402


def fortunes(limit, context):
    """(data, train window starts, held-out window starts) of the fortunes' text."""
    parts, size = [], 0
    for p in sorted(glob.glob("/usr/share/games/fortunes/*")):
        if os.path.isfile(p) and not p.endswith((".dat", ".u8")):
            with open(p, "rb") as f:
                parts.append(f.read(limit - size))
            size += len(parts[-1])
            if size >= limit:
                break
    data = torch.frombuffer(bytearray(b"".join(parts)), dtype=torch.uint8).long()
    n = (data.numel() - 1) // context
    starts = torch.arange(n) * context
    val = torch.arange(n) % 10 == 9
    return data, starts[~val], starts[val][:128]


def windows(data, starts, context):
    x = torch.stack([data[s:s + context] for s in starts.tolist()])
    y = torch.stack([data[s + 1:s + 1 + context] for s in starts.tolist()])
    return x, y


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", choices=["mlp", "gpt2"], required=True)
    ap.add_argument("--mode", choices=["rounds", "sync"], required=True)
    ap.add_argument("--steps", type=int, required=True, help="global steps (total_steps)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--speeds", default="1,1,0.5,0.5")
    ap.add_argument("--base-ms", type=float, default=20.0)
    ap.add_argument("--eval-every", type=int, default=10)
    ap.add_argument("--opts", default="{}", help="JSON: more RoundsOptimizer options (tuning)")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    torch.set_num_threads(1)
    ctx = nxt.init(emulate_speeds=[float(s) for s in a.speeds.split(",")], emulate_base_ms=a.base_ms,
                   device="cpu")
    torch.manual_seed(a.seed * 100 + ctx.rank)  # differs per rank: rank 0's weights win
    g = torch.Generator().manual_seed(a.seed * 1000 + ctx.rank)
    if a.model == "mlp":
        model = fmnist.mlp([256], a.seed * 100 + ctx.rank)
        tx, ty, ex, ey = fmnist.load(0)
        stream = fmnist.Stream(tx.shape[0], ctx.rank, ctx.world, a.seed)
        inner = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

        def batch():
            idx = stream.next(64)
            return fmnist.norm(tx[idx]), ty[idx]

        def loss_of(x, y):
            return F.cross_entropy(model(x), y)

        def held_out():
            with torch.no_grad():
                return F.cross_entropy(model(fmnist.norm(ex)), ey).item()
    else:
        from transformers import GPT2Config, GPT2LMHeadModel
        context = 64
        model = GPT2LMHeadModel(GPT2Config(vocab_size=256, n_positions=context, n_embd=64, n_layer=2,
                                           n_head=4))
        data, train, val = fortunes(1 << 20, context)
        mine = train[ctx.rank::ctx.world]
        vx, vy = windows(data, val, context)
        inner = torch.optim.AdamW(model.parameters(), lr=3e-3, betas=(0.9, 0.95), weight_decay=0.1)

        def batch():
            return windows(data, mine[torch.randint(len(mine), (8,), generator=g)], context)

        def loss_of(x, y):
            return F.cross_entropy(model(input_ids=x).logits.reshape(-1, 256), y.reshape(-1))

        def held_out():
            model.eval()
            with torch.no_grad():
                r = sum(F.cross_entropy(model(input_ids=vx[i:i + 32]).logits.reshape(-1, 256),
                                        vy[i:i + 32].reshape(-1), reduction="sum").item()
                        for i in range(0, len(vx), 32)) / vy.numel()
            model.train()
            return r
    opt = nxt.RoundsOptimizer(inner, mode=a.mode, total_steps=a.steps, model=model, **json.loads(a.opts))
    curve, nxt_eval = [], a.eval_every
    while not opt.done:
        x, y = batch()
        opt.zero_grad()
        loss = loss_of(x, y)
        loss.backward()
        if a.model == "gpt2":
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if opt.round_ended and (opt.global_step >= nxt_eval or opt.done):
            nxt_eval = (opt.global_step // a.eval_every + 1) * a.eval_every
            with opt.pause():
                if ctx.rank == 0:
                    curve.append((opt.global_step, opt.critical_s, held_out()))
    s = opt.summary()
    if ctx.rank == 0:
        final = held_out()
        if not curve or curve[-1][0] != opt.global_step:
            curve.append((opt.global_step, opt.critical_s, final))
        s.update(model=a.model, mode=a.mode, seed=a.seed, final_loss=final, curve=curve,
                 opts=json.loads(a.opts))
        print("bench_quality: %s %s seed %d: held-out loss %.4f, critical %.2f s, local steps %s" % (
            a.model, a.mode, a.seed, final, s["critical_s"], s.get("local_steps")), flush=True)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(s, f, indent=1)
    nxt.finalize()


if __name__ == "__main__":
    sys.exit(main())
