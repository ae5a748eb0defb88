"""train_mlp.py: a Fashion-MNIST MLP in plain PyTorch, trained through nodeox.torch.

One rank per process (mpirun or srun). The tests and `make bench-torch`
run it in different ways:
  --init-model F / --save F   start from / write the global weights in
                              nodeox-run's model file format (the equality test)
  --nan-at R:N                rank R's weights become NaN in its round N
  --kill-at R:N / --hang-at R:N   rank R kills itself (SIGKILL) / stops at round N
                              (under torchrun --max-restarts: in the first
                              attempt only, TORCHELASTIC_RESTART_COUNT 0)
  --checkpoint-dir, --every, --resume   checkpoints; the data stream resumes at tr.data_pos
  --eval-every K, --target A  rank 0 evaluates test accuracy every K rounds
                              (inside tr.pause()) until A is reached, then
                              every 10 K; the summary records the critical
                              path when A was first reached
  --json F                    rank 0 writes the summary
  --save-ranks P              every rank writes its global weights to P.rankR
Run it with /usr/bin/python3 (Debian's python3-torch lives there), or the
pip lane's venv; under mpirun, srun or torchrun.
"""

import argparse
import json
import os
import signal
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fmnist  # noqa: E402
import nodeox.torch as nxt  # noqa: E402


def rank_round(s):
    r, n = s.split(":")
    return int(r), int(n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="rounds")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--hidden", default="32")
    ap.add_argument("--max-train", type=int, default=0)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--schedule", action="store_true",
                    help="the engine's warm-up + cosine schedule over --steps (as nodeox-run)")
    ap.add_argument("--warmup-steps", type=int, default=50)
    ap.add_argument("--speeds", default=None)
    ap.add_argument("--base-ms", type=float, default=20.0)
    ap.add_argument("-H", "--local-steps", type=int, default=None)
    ap.add_argument("--combine", default=None)
    ap.add_argument("--outer-lr", type=float, default=None)
    ap.add_argument("--outer-momentum", type=float, default=None)
    ap.add_argument("--sync-warmup", type=int, default=None)
    ap.add_argument("--seed", type=int, default=1, help="data order (as nodeox-run --seed)")
    ap.add_argument("--init-seed", type=int, default=1, help="torch initialization")
    ap.add_argument("--init-model", default=None)
    ap.add_argument("--save", default=None)
    ap.add_argument("--nan-at", type=rank_round, default=None)
    ap.add_argument("--kill-at", type=rank_round, default=None)
    ap.add_argument("--hang-at", type=rank_round, default=None)
    ap.add_argument("--checkpoint-dir", default=None)
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--eval-every", type=int, default=0)
    ap.add_argument("--target", type=float, default=0.85)
    ap.add_argument("--fault-initial", type=float, default=120.0)
    ap.add_argument("--json", default=None)
    ap.add_argument("--save-ranks", default=None)
    a = ap.parse_args()

    torch.set_num_threads(1)
    speeds = [float(s) for s in a.speeds.split(",")] if a.speeds else None
    ctx = nxt.init(emulate_speeds=speeds, emulate_base_ms=a.base_ms, device="cpu",
                   peer_timeout_s=a.fault_initial)
    hidden = [int(h) for h in a.hidden.split(",")]
    model = fmnist.mlp(hidden, a.init_seed + 1000 * ctx.rank)  # differs per rank: rank 0's wins
    if a.init_model:
        flat = fmnist.read_model(a.init_model)
        off = 0
        with torch.no_grad():
            for p in model.parameters():
                p.copy_(flat[off:off + p.numel()].view_as(p))
                off += p.numel()
    tx, ty, ex, ey = fmnist.load(a.max_train)
    stream = fmnist.Stream(tx.shape[0], ctx.rank, ctx.world, a.seed)
    opt = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=a.momentum)
    kw = {}
    for name in ("local_steps", "combine", "outer_lr", "outer_momentum", "sync_warmup"):
        v = getattr(a, name)
        if v is not None:
            kw[name] = v
    if a.schedule:
        kw.update(total_steps=a.steps, warmup_steps=a.warmup_steps, lr_min_ratio=0.1)
    tr = nxt.Rounds(model, opt, mode=a.mode, batch_size=a.batch, shard_size=len(stream.shard),
                    checkpoint_dir=a.checkpoint_dir, checkpoint_every=a.every, resume=a.resume, **kw)
    stream.pos = tr.data_pos  # 0, or where the checkpoint left this rank's data
    if tr.resumed and ctx.rank == 0:
        print("train_mlp: resumed at round %d, global step %d" % (tr.round, tr.global_step), flush=True)
    loss_fn = torch.nn.CrossEntropyLoss()
    evals, reached = [], None
    updates = round_ends = 0  # step() returning True, and rounds closed (this rank)
    t0 = time.time()
    first_attempt = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0") == "0"
    while tr.global_step < a.steps:
        rnd = tr.round + 1
        if a.kill_at and a.kill_at == (ctx.rank, rnd) and first_attempt:
            print("train_mlp: rank %d: killing myself in round %d" % (ctx.rank, rnd), flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
        if a.hang_at and a.hang_at == (ctx.rank, rnd):
            print("train_mlp: rank %d: hanging in round %d" % (ctx.rank, rnd), flush=True)
            while True:
                time.sleep(1)
        idx = stream.next(a.batch)
        opt.zero_grad()
        loss = loss_fn(model(fmnist.norm(tx[idx])), ty[idx])
        loss.backward()
        if a.nan_at and a.nan_at == (ctx.rank, rnd) and tr.progress()["step_in_round"] == 0:
            with torch.no_grad():  # this worker's update of the round becomes NaN
                next(model.parameters()).view(-1)[0] = float("nan")
        # every eval_every rounds until the target is reached, then 10x rarer
        # (the final accuracy is measured at the end in any case)
        every = a.eval_every * (1 if reached is None else 10)
        updates += tr.step(loss.item())
        round_ends += tr.round_ended
        if tr.round_ended and a.eval_every and tr.round % every == 0:
            with tr.pause():
                if ctx.rank == 0:
                    acc = fmnist.accuracy(model, ex, ey)
                    evals.append((tr.global_step, tr.critical_s, acc))
                    if reached is None and acc >= a.target:
                        reached = tr.critical_s
    s = tr.summary()
    final = fmnist.accuracy(model, ex, ey) if ctx.rank == 0 else None
    if ctx.rank == 0:
        s.update(updates_rank0=updates, round_ends_rank0=round_ends)
        s.update(test_accuracy=final, critical_to_target_s=reached, target=a.target,
                 wall_s=time.time() - t0, evals=evals, world=ctx.world, comm=ctx.comm)
        print("train_mlp: %s" % json.dumps({k: v for k, v in s.items() if k != "evals"}), flush=True)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(s, f, indent=1)
        if a.save:
            fmnist.write_model(a.save, fmnist.model_name(hidden), tr.flat.cpu())
    if a.save_ranks:
        fmnist.write_model("%s.rank%d" % (a.save_ranks, ctx.rank), fmnist.model_name(hidden), tr.flat.cpu())
    nxt.finalize()


if __name__ == "__main__":
    main()
