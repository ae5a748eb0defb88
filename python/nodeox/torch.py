"""nodeox.torch: a PyTorch model trained with heterogeneous rounds by nodeox's C engine.

    import nodeox.torch as nxt
    ctx = nxt.init(emulate_speeds=None, emulate_base_ms=20.0)  # MPI up
    tr = nxt.Rounds(model, optimizer, mode="rounds", local_steps=10,
                    combine="fednova", outer_lr=0.3, outer_momentum=0.7)
    while tr.global_step < 1500:
        optimizer.zero_grad(); loss = loss_fn(model(x), y); loss.backward()
        updated = tr.step(loss)    # inner step; True when the global weights
                                   # were just updated (every step in sync)
    print(tr.summary())            # every rank calls it (a collective)
    nxt.finalize()

What is where. Python holds the model, the data and the inner optimizer
(any torch.optim optimizer: tr.step() calls its step()). The engine
(runtime/nodeox_rt.h, the code nodeox-run runs) plans each worker's local
steps per round from its speed, all-reduces gradients in synchronous
intervals, combines the pseudo-gradients (mean, samples, FedNova; a
non-finite one is dropped), runs the outer Nesterov step, checkpoints the
outer state and ends every rank within a deadline when a peer is lost.

The parameters become views of one flat float32 tensor (and their .grad of
another) when Rounds is created, so the engine works on the tensors' own
memory: no copy per step. CPU tensors use MPI, CUDA tensors the CUDA
backend and NCCL (a build with CUDA and NCCL). All parameters must be
float32 and on one device.

Run under mpirun or srun --mpi=pmix, one process per worker, with the
interpreter that has torch: on Debian /usr/bin/python3 (python3-torch).
"""

import collections
import contextlib
import os

import torch

from ._load import load_engine

_engine = load_engine()

__all__ = ["init", "Rounds", "Context", "finalize", "all_reduce"]

_ctx = None


class Context:
    """Where this process sits: rank, world, local_rank, speed (the speed
    known before training: emulate_speeds, or the nodeox.conf Speed= of the
    GPU type Slurm allocated; None when it will be measured), gpu_type (of
    the allocation, "" when unknown), backend ("cpu" or "cuda") and device
    (the torch.device the model belongs on)."""

    def __init__(self, info, device):
        self.rank = info["rank"]
        self.world = info["world"]
        self.local_rank = info["local_rank"]
        self.speed = info["speed"] if info["speed"] > 0 else None
        self.backend = info["backend"]
        self.gpu_type = info["gpu_type"]
        self.device = device

    def share(self, n):
        """This rank's items [first, first + count) of n, in proportion to
        the workers' speeds (as nodeox-run --evaluate splits): a range."""
        first, count = _engine.share(int(n))
        return range(first, first + count)

    def __repr__(self):
        return ("Context(rank=%d, world=%d, local_rank=%d, speed=%r, backend=%r)"
                % (self.rank, self.world, self.local_rank, self.speed, self.backend))


def init(emulate_speeds=None, emulate_base_ms=20.0, device=None, peer_timeout_s=120.0):
    """Start MPI and the engine; returns the Context.

    emulate_speeds: one factor per rank (e.g. [1, 1, 0.5, 0.5]): every step
    of rank i then lasts emulate_base_ms / speed_i (as nodeox-run
    --emulate-speeds), so one machine measures what mixed GPUs would do.
    device: "cpu" or "cuda" (default: cuda when torch sees a GPU). A CUDA
    rank uses GPU local_rank % (GPUs on the node), as nodeox-run does.
    peer_timeout_s: the deadline of a collective before any round time is
    known (later: 4 x the longest round + 15 s)."""
    global _ctx
    if _ctx is not None:
        raise RuntimeError("nodeox.torch.init() called twice")
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    device = str(device)
    if device not in ("cpu", "cuda"):
        raise ValueError("nodeox.torch.init: device %r (cpu or cuda)" % device)
    speeds = None if emulate_speeds is None else [float(s) for s in emulate_speeds]
    info = _engine.init(device, speeds, float(emulate_base_ms), float(peer_timeout_s))
    if device == "cuda":
        index = info["local_rank"] % max(1, torch.cuda.device_count())
        torch.cuda.set_device(index)
        dev = torch.device("cuda", index)
    else:
        dev = torch.device("cpu")
    _ctx = Context(info, dev)
    return _ctx


def finalize():
    """Wait for every rank, stop the watchdog and MPI."""
    global _ctx
    _engine.finalize()
    _ctx = None


def all_reduce(values):
    """Sum a float64 CPU tensor over all ranks, in place (e.g. per-item
    evaluation losses, each item computed by one rank)."""
    if values.dtype != torch.float64 or values.device.type != "cpu" or not values.is_contiguous():
        raise ValueError("nodeox.torch.all_reduce: needs a contiguous float64 CPU tensor")
    _engine.allreduce_host(values.data_ptr(), values.numel())
    return values


class Rounds:
    """Train model with optimizer in heterogeneous rounds (mode="rounds") or
    synchronous data parallel (mode="sync", the baseline: gradients
    all-reduced every step, every worker at the slowest one's pace).

    local_steps: H, the fastest worker's steps per round; worker i takes
    max(1, ceil(H s_i / max s)) (plan="speed"; "fixed": H for everyone;
    "time" with round_ms). combine: "fednova", "mean" or "samples"
    (batch_size, shard_size: this worker's batch and shard, for the
    samples and FedNova weights; equal by default). outer_lr,
    outer_momentum: the outer Nesterov SGD (default 0.3 / 0.7, nodeox-run's
    MLP recipe: DiLoCo's 0.7 / 0.9 is made for rounds of hundreds of AdamW
    steps and overshoots with rounds of 10). sync_warmup: synchronous steps
    before the first round (default 60; 0 starts in rounds). total_steps: when given, the engine's schedule
    (linear warm-up over warmup_steps, cosine to lr_min_ratio at
    total_steps, over the global step counter) scales every param group's
    lr, and the last round ends at total_steps; without it the lr is left
    to the caller. checkpoint_dir / checkpoint_every / resume: the engine's
    checkpoints (outer state, counters, every worker's speeds) every K
    rounds, with this rank's optimizer state beside them
    (rank-R.round-N.inner.pt); resume=True continues from the last one."""

    def __init__(self, model, optimizer, mode="rounds", local_steps=10, combine="fednova",
                 outer_lr=0.3, outer_momentum=0.7, plan="speed", round_ms=0.0, sync_warmup=60,
                 total_steps=None, warmup_steps=0, lr_min_ratio=0.1, batch_size=1, shard_size=1,
                 checkpoint_dir=None, checkpoint_every=1, resume=False, verbose=False):
        if _ctx is None:
            raise RuntimeError("nodeox.torch: call nxt.init() before Rounds")
        self.model, self.optimizer, self.mode = model, optimizer, mode
        self.checkpoint_dir = checkpoint_dir
        self._schedule = total_steps is not None
        params, seen = [], set()
        for p in model.parameters():
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                params.append(p)
        if not params:
            raise ValueError("nodeox.torch.Rounds: the model has no trainable parameters")
        for p in params:
            if p.dtype != torch.float32:
                raise ValueError("nodeox.torch.Rounds: parameter of dtype %s; the engine works on float32"
                                 % p.dtype)
            if p.device.type != _ctx.device.type:
                raise ValueError("nodeox.torch.Rounds: parameter on %s but the engine runs on %s "
                                 "(move the model to ctx.device)" % (p.device, _ctx.device))
        opt_params = {id(p) for g in optimizer.param_groups for p in g["params"]}
        missing = [p for p in params if id(p) not in opt_params]
        if missing:
            raise ValueError("nodeox.torch.Rounds: %d trainable parameters are not in the optimizer"
                             % len(missing))
        n = sum(p.numel() for p in params)
        dev = params[0].device
        self.flat = torch.empty(n, dtype=torch.float32, device=dev)
        self.flat_grad = torch.zeros(n, dtype=torch.float32, device=dev)
        self._views = []
        off = 0
        with torch.no_grad():
            for p in params:
                k = p.numel()
                self.flat[off:off + k].copy_(p.detach().reshape(-1))
                p.data = self.flat[off:off + k].view_as(p)
                g = self.flat_grad[off:off + k].view_as(p)
                p.grad = g
                self._views.append((p, g))
                off += k
        self._base_lr = [g["lr"] for g in optimizer.param_groups]
        self._saved = []
        resumed = _engine.attach(
            self.flat.data_ptr(), self.flat_grad.data_ptr(), n, mode=mode, combine=combine,
            local_steps=int(local_steps), outer_lr=float(outer_lr),
            outer_momentum=float(outer_momentum), plan=plan, round_ms=float(round_ms),
            sync_warmup=int(sync_warmup), total_steps=int(total_steps or 0),
            warmup_steps=int(warmup_steps), lr_min_ratio=float(lr_min_ratio),
            batch_size=int(batch_size), shard_size=int(shard_size),
            checkpoint_dir=checkpoint_dir, checkpoint_every=int(checkpoint_every),
            resume=bool(resume), verbose=bool(verbose), name="torch-%d" % n)
        self.resumed = bool(resumed)
        self.round_ended = False
        if self.resumed:
            self._load_inner()

    # ------------------------------------------------------------ the step
    def step(self, loss=None):
        """The inner step, after backward. Returns True when the global
        weights were just updated: at every step whose gradients were
        all-reduced (every step in sync mode, and the synchronous warm-up of
        rounds mode) and at every round end. round_ended says whether this
        step closed a round (in sync mode: an interval of local_steps steps,
        over which the engine counts global_step), e.g. to evaluate at round
        ends."""
        for p, g in self._views:  # backward may have replaced a .grad (set_to_none)
            if p.grad is not g:
                if p.grad is None:
                    g.zero_()
                else:
                    g.copy_(p.grad)
                p.grad = g
        synced = _engine.progress()["allreduce"]  # of the interval this step is in
        factor = _engine.grads()  # synchronous intervals: all-reduced in place
        if self._schedule:
            for group, base in zip(self.optimizer.param_groups, self._base_lr):
                group["lr"] = base * factor
        self.optimizer.step()
        if self.checkpoint_dir and _engine.progress()["checkpoint_at_round_end"]:
            self._save_inner()
        r = _engine.end(float(loss) if loss is not None else 0.0)
        if r >= 1 and not _engine.progress()["last_finite"]:
            # the state that produced a non-finite update would produce it again
            self.optimizer.state = collections.defaultdict(dict)
        self.round_ended = r >= 1
        return self.round_ended or bool(synced)

    @contextlib.contextmanager
    def pause(self):
        """Time that belongs to no training step (evaluation, logging): not
        counted in the next step's duration, and the watchdog allows at
        least its initial deadline meanwhile. Use it on every rank."""
        _engine.pause(True)
        try:
            yield
        finally:
            _engine.pause(False)

    # ------------------------------------------------------------ progress
    @property
    def global_step(self):
        """The global step counter: advances for everyone at round ends."""
        return _engine.progress()["global_step"]

    @property
    def round(self):
        return _engine.progress()["round"]

    @property
    def critical_s(self):
        """The critical path so far (as nodeox-run's critical_s): the sum
        over rounds of the slowest worker's steps x step time."""
        return _engine.progress()["critical_s"]

    @property
    def local_steps(self):
        """This worker's steps in completed rounds."""
        return _engine.progress()["local_steps"]

    @property
    def data_pos(self):
        """Samples this worker consumed (batch_size per step), restored by
        resume: where a resumed run's data loader continues."""
        return _engine.progress()["data_pos"]

    @property
    def lr_factor(self):
        """The engine's schedule at the step in progress (1 without total_steps)."""
        return _engine.progress()["lr"]

    def progress(self):
        """This rank's counters (a dict; no communication)."""
        return _engine.progress()

    def summary(self):
        """mode, rounds, global_steps, local_steps (per rank), critical_s,
        train_s, dropped, bytes_communicated (all ranks), params_fnv. A
        collective: every rank calls it."""
        r = _engine.result()
        p = _engine.progress()
        return {"mode": self.mode, "rounds": r["rounds"], "global_steps": r["global_steps"],
                "local_steps": list(p["steps_per_worker"]), "critical_s": r["critical_s"],
                "train_s": r["train_s"], "dropped": r["dropped"],
                "bytes_communicated": r["bytes_communicated"], "params_fnv": r["params_fnv"],
                "overruns": p["overruns"]}

    # ------------------------------------------------------------ inner state files
    def _inner_path(self, rnd):
        return os.path.join(self.checkpoint_dir, "rank-%d.round-%d.inner.pt" % (_ctx.rank, rnd))

    def _save_inner(self):
        """Before the engine writes round N's checkpoint (and DIR/latest):
        this rank's optimizer state for that round, tmp + rename."""
        rnd = _engine.progress()["round"] + 1
        os.makedirs(self.checkpoint_dir, exist_ok=True)
        path = self._inner_path(rnd)
        torch.save(self.optimizer.state_dict(), path + ".tmp")
        os.replace(path + ".tmp", path)
        self._saved.append(path)
        while len(self._saved) > 2:  # the engine, too, keeps its last two
            old = self._saved.pop(0)
            if os.path.exists(old):
                os.remove(old)

    def _load_inner(self):
        path = self._inner_path(_engine.progress()["round"])
        if not os.path.exists(path):
            raise RuntimeError("nodeox.torch: resume: %s is missing (the optimizer state of the "
                               "checkpoint DIR/latest names)" % path)
        lrs = [g["lr"] for g in self.optimizer.param_groups]
        self.optimizer.load_state_dict(torch.load(path, map_location=_ctx.device))
        for group, lr in zip(self.optimizer.param_groups, lrs):  # the saved lr was scaled
            group["lr"] = lr
        self._saved.append(path)
