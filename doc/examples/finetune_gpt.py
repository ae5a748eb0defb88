"""finetune_gpt.py: fine-tune (or pretrain) your own PyTorch transformer with nodeox.torch.

A complete example: a nanoGPT-style byte-level transformer in plain PyTorch
(the model is yours; swap in any nn.Module), trained across ranks of
different speeds by nodeox's engine: each rank takes as many local AdamW
steps per round as its speed allows, the updates are combined (FedNova) and
the outer Nesterov step moves the weights. Evaluation is split across the
ranks by speed and summed with nxt.all_reduce.

    # pretrain synchronously on one corpus, save the weights
    mpirun -np 2 /usr/bin/python3 finetune_gpt.py --data /usr/share/dictd/gcide.dict.dz \
        --mode sync --steps 2000 --save pre.pt
    # fine-tune in speed-sized rounds on another, evaluate before and after
    srun --mpi=pmix -n 4 /usr/bin/python3 finetune_gpt.py --data /usr/share/games/fortunes \
        --init pre.pt --steps 1000 --save ft.pt --checkpoint-dir ck --resume

(finetune_gpt.sbatch is the batch script for the second.) --data is a text
file (.gz/.dz read through gzip) or a directory of them (fortune's .dat and
.u8 index files are skipped); every 10th 64-byte window is validation.
Under Slurm each rank's speed comes from the GPU type it was allocated
(nodeox.conf's Speed=); --speeds 1,1,0.5,0.5 emulates mixed GPUs on one
machine. --dtype bfloat16 trains bfloat16 parameters (the engine keeps a
float32 master copy; make bench-torch compares it with float32). Rank 0 prints one JSON line per evaluation. Run it with the
python3 that has torch: Debian's /usr/bin/python3 (python3-torch).
tests/torch/test_torch_gpt.sh runs this very script.
"""

import argparse
import glob
import gzip
import json
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import nodeox.torch as nxt


class Block(nn.Module):
    def __init__(self, c, heads):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(c), nn.LayerNorm(c)
        self.qkv, self.proj = nn.Linear(c, 3 * c), nn.Linear(c, c)
        self.fc, self.out = nn.Linear(c, 4 * c), nn.Linear(4 * c, c)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(c // self.heads)
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        att = att.masked_fill(~mask, float("-inf")).softmax(-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, c)
        x = x + self.proj(y)
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, layers=2, c=64, heads=4, context=64):
        super().__init__()
        self.tok, self.pos = nn.Embedding(256, c), nn.Embedding(context, c)
        self.blocks = nn.ModuleList(Block(c, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(c)
        self.head = nn.Linear(c, 256, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln(x))


def corpus(path, limit):
    """The first limit bytes of a text file, or of a directory's files."""
    files = [path] if os.path.isfile(path) else [
        p for p in sorted(glob.glob(os.path.join(path, "*")))
        if os.path.isfile(p) and not p.endswith((".dat", ".u8"))]
    if not files:
        raise SystemExit("finetune_gpt: --data %s: no text files" % path)
    parts, size = [], 0
    for p in files:
        with (gzip.open if p.endswith((".gz", ".dz")) else open)(p, "rb") as f:
            parts.append(f.read(limit - size))
        size += len(parts[-1])
        if size >= limit:
            break
    return torch.frombuffer(bytearray(b"".join(parts)), dtype=torch.uint8).long()


def windows(data, context):
    """(train starts, validation starts): every 10th window is validation."""
    n = (data.numel() - 1) // context
    starts = torch.arange(n) * context
    val = torch.arange(n) % 10 == 9
    return starts[~val], starts[val]


def batch(data, starts, context, device):
    x = torch.stack([data[s:s + context] for s in starts.tolist()])
    y = torch.stack([data[s + 1:s + 1 + context] for s in starts.tolist()])
    return x.to(device), y.to(device)


def evaluate(ctx, model, data, val, context, check=False):
    """Mean loss per byte over the validation windows, split by speed."""
    n = val.numel()
    mine = ctx.share(n)
    sums = torch.zeros(n, dtype=torch.float64)
    with torch.no_grad():
        for i in range(mine.start, mine.stop, 16):
            j = min(i + 16, mine.stop)
            x, y = batch(data, val[i:j], context, ctx.device)
            loss = F.cross_entropy(model(x).float().reshape(-1, 256), y.reshape(-1), reduction="none")
            sums[i:j] = loss.view(j - i, context).sum(1).double().cpu()
    nxt.all_reduce(sums)
    counts = torch.zeros(ctx.world, dtype=torch.float64)
    counts[ctx.rank] = len(mine)
    nxt.all_reduce(counts)
    out = {"loss": sums.sum().item() / (n * context), "windows": n,
           "windows_per_rank": [int(c) for c in counts.tolist()]}
    if check and ctx.rank == 0:  # the same windows on one rank, for the test
        total = 0.0
        with torch.no_grad():
            for i in range(0, n, 16):
                x, y = batch(data, val[i:i + 16], context, ctx.device)
                total += F.cross_entropy(model(x).float().reshape(-1, 256), y.reshape(-1), reduction="sum").item()
        out["one_rank_loss"] = total / (n * context)
    return out


def train(ctx, tr, opt, model, data, train_starts, context, batch_size, steps, seed):
    # this rank's windows; a resumed run draws on from where it stopped
    g = torch.Generator().manual_seed(seed * 1000 + ctx.rank)
    mine = train_starts[ctx.rank::ctx.world]
    for _ in range(tr.local_steps):
        torch.randint(len(mine), (batch_size,), generator=g)
    while tr.global_step < steps:
        idx = mine[torch.randint(len(mine), (batch_size,), generator=g)]
        x, y = batch(data, idx, context, ctx.device)
        opt.zero_grad()
        loss = F.cross_entropy(model(x).float().reshape(-1, 256), y.reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        tr.step(loss.item())


def main():
    ap = argparse.ArgumentParser(description="fine-tune a byte-level transformer with nodeox.torch")
    ap.add_argument("--data", required=True, help="text file or directory")
    ap.add_argument("--init", default=None, help="state_dict to start from (else: pretraining)")
    ap.add_argument("--save", default=None, help="write the final state_dict here (rank 0)")
    ap.add_argument("--mode", default="rounds", choices=["rounds", "sync"])
    ap.add_argument("--steps", type=int, default=1000, help="global steps")
    ap.add_argument("--speeds", default=None, help="emulated speeds, one per rank")
    ap.add_argument("--base-ms", type=float, default=40, help="emulated step time at speed 1")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--batch", type=int, default=8, help="windows per rank and step")
    ap.add_argument("--bytes", type=int, default=1 << 20, help="read this much of --data")
    ap.add_argument("--eval-windows", type=int, default=128)
    ap.add_argument("--checkpoint-dir", default=None)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"],
                    help="the parameters' dtype (the engine keeps a float32 master copy)")
    ap.add_argument("--check-eval", action="store_true",
                    help="rank 0 also evaluates every window alone (tests the split)")
    a = ap.parse_args()
    torch.set_num_threads(1)
    context = 64
    speeds = [float(s) for s in a.speeds.split(",")] if a.speeds else None
    ctx = nxt.init(emulate_speeds=speeds, emulate_base_ms=a.base_ms)
    torch.manual_seed(1)
    model = GPT(context=context).to(ctx.device)
    name = os.path.basename(a.data.rstrip("/"))
    data = corpus(a.data, a.bytes)
    tr_starts, val = windows(data, context)
    val = val[:a.eval_windows]

    def report(what, r):
        if ctx.rank == 0:
            r.update(what=what, corpus=name, world=ctx.world)
            print("finetune_gpt: " + json.dumps(r), flush=True)

    if a.init:
        model.load_state_dict(torch.load(a.init, map_location=ctx.device))
    model = model.to(getattr(torch, a.dtype))  # logits go to float32 for the loss
    report("before", evaluate(ctx, model, data, val, context, check=a.check_eval))
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, betas=(0.9, 0.95), weight_decay=0.1)
    tr = nxt.Rounds(model, opt, mode=a.mode, total_steps=a.steps, warmup_steps=20, lr_min_ratio=0.1,
                    checkpoint_dir=a.checkpoint_dir, resume=a.resume)
    train(ctx, tr, opt, model, data, tr_starts, context, a.batch, a.steps, 7)
    s = tr.summary()
    r = evaluate(ctx, model, data, val, context, check=a.check_eval)
    r.update(local_steps=s["local_steps"], rounds=s["rounds"], critical_s=s["critical_s"],
             nparams=sum(p.numel() for p in model.parameters()), dtype=a.dtype)
    report("after", r)
    if a.save and ctx.rank == 0:
        torch.save(model.state_dict(), a.save)
    nxt.finalize()


if __name__ == "__main__":
    sys.exit(main())
