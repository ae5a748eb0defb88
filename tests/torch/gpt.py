"""gpt.py: a nanoGPT-style byte-level transformer in plain PyTorch, pretrained,
fine-tuned and evaluated through nodeox.torch (tests/torch/test_torch_gpt.sh).

  --phase pretrain   sync data parallel on dict-gcide's text, save a state_dict
  --phase finetune   load it, evaluate on the fortunes' validation windows,
                     fine-tune in speed-sized rounds on the fortunes, evaluate again
Evaluation goes through the bridge: the validation windows are split across
the ranks in proportion to their speeds (ctx.share), each rank sums its
windows' losses into one float64 vector, nxt.all_reduce adds the ranks'
vectors. Every 10th 64-byte window of a corpus is validation, the rest is
training. Rank 0 prints one JSON line per result. Run with /usr/bin/python3.
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


def corpus(name, limit):
    if name == "gcide":
        with gzip.open("/usr/share/dictd/gcide.dict.dz", "rb") as f:
            data = f.read(limit)
    else:
        parts = []
        for p in sorted(glob.glob("/usr/share/games/fortunes/*")):
            if not p.endswith((".dat", ".u8")) and os.path.isfile(p):
                with open(p, "rb") as f:
                    parts.append(f.read())
        data = b"".join(parts)[:limit]
    return torch.frombuffer(bytearray(data), dtype=torch.uint8).long()


def windows(data, context):
    """(train starts, validation starts): every 10th window is validation."""
    n = (data.numel() - 1) // context
    starts = torch.arange(n) * context
    val = torch.arange(n) % 10 == 9
    return starts[~val], starts[val]


def batch(data, starts, context):
    x = torch.stack([data[s:s + context] for s in starts.tolist()])
    y = torch.stack([data[s + 1:s + 1 + context] for s in starts.tolist()])
    return x, y


def evaluate(ctx, model, data, val, context, check=False):
    """Mean loss per byte over the validation windows, split by speed."""
    n = val.numel()
    mine = ctx.share(n)
    sums = torch.zeros(n, dtype=torch.float64)
    with torch.no_grad():
        for i in range(mine.start, mine.stop, 16):
            j = min(i + 16, mine.stop)
            x, y = batch(data, val[i:j], context)
            loss = F.cross_entropy(model(x).reshape(-1, 256), y.reshape(-1), reduction="none")
            sums[i:j] = loss.view(j - i, context).sum(1).double()
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
                x, y = batch(data, val[i:i + 16], context)
                total += F.cross_entropy(model(x).reshape(-1, 256), y.reshape(-1), reduction="sum").item()
        out["one_rank_loss"] = total / (n * context)
    return out


def train(ctx, tr, opt, model, data, train_starts, context, batch_size, steps, seed):
    g = torch.Generator().manual_seed(seed * 1000 + ctx.rank)
    mine = train_starts[ctx.rank::ctx.world]
    while tr.global_step < steps:
        idx = mine[torch.randint(len(mine), (batch_size,), generator=g)]
        x, y = batch(data, idx, context)
        opt.zero_grad()
        loss = F.cross_entropy(model(x).reshape(-1, 256), y.reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        tr.step(loss.item())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--phase", required=True, choices=["pretrain", "finetune"])
    ap.add_argument("--model", required=True)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--speeds", default=None)
    ap.add_argument("--base-ms", type=float, default=40)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--bytes", type=int, default=1 << 20)
    a = ap.parse_args()
    torch.set_num_threads(1)
    context = 64
    speeds = [float(s) for s in a.speeds.split(",")] if a.speeds else None
    ctx = nxt.init(emulate_speeds=speeds, emulate_base_ms=a.base_ms, device="cpu")
    torch.manual_seed(1)
    model = GPT(context=context)
    name = "gcide" if a.phase == "pretrain" else "fortunes"
    data = corpus(name, a.bytes)
    tr_starts, val = windows(data, context)
    val = val[:128]

    def report(what, r):
        if ctx.rank == 0:
            r.update(what=what, corpus=name, world=ctx.world)
            print("gpt: " + json.dumps(r), flush=True)

    if a.phase == "finetune":
        model.load_state_dict(torch.load(a.model))
        report("pretrained", evaluate(ctx, model, data, val, context, check=True))
    else:
        report("initial", evaluate(ctx, model, data, val, context))
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, betas=(0.9, 0.95), weight_decay=0.1)
    mode = "sync" if a.phase == "pretrain" else "rounds"
    tr = nxt.Rounds(model, opt, mode=mode, total_steps=a.steps, warmup_steps=20, lr_min_ratio=0.1)
    train(ctx, tr, opt, model, data, tr_starts, context, a.batch, a.steps, 7)
    s = tr.summary()
    r = evaluate(ctx, model, data, val, context, check=a.phase == "finetune")
    r.update(local_steps=s["local_steps"], rounds=s["rounds"], critical_s=s["critical_s"],
             nparams=sum(p.numel() for p in model.parameters()))
    report("pretrained" if a.phase == "pretrain" else "finetuned", r)
    if a.phase == "pretrain" and ctx.rank == 0:
        torch.save(model.state_dict(), a.model)
    nxt.finalize()


if __name__ == "__main__":
    sys.exit(main())
