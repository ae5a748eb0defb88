"""nodeox.torch: a PyTorch model trained with heterogeneous rounds by nodeox's C engine.

    import nodeox.torch as nxt
    ctx = nxt.init(emulate_speeds=None, emulate_base_ms=20.0)  # MPI up
    tr = nxt.Rounds(model, optimizer, mode="rounds", local_steps=10,
                    combine="fednova", outer_momentum=0.7)  # outer_lr: by optimizer
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

The float32 parameters become views of one flat float32 tensor (and their
.grad of another) when Rounds is created, so the engine works on the
tensors' own memory: no copy per step. bfloat16/float16 parameters keep
their own memory; the flat tensor is their float32 master copy, through
which the engine combines and takes the outer step in float32 (copies once
per round, and per step for the gradients of synchronous steps). Frozen
parameters and buffers are broadcast from rank 0 at the start and never
sent again. CPU tensors use MPI, CUDA tensors the CUDA backend and NCCL (a
build with CUDA and NCCL). All trainable parameters must be on one device.

Any training loop that calls optimizer.step() itself (HF Trainer,
Accelerate, Lightning) takes RoundsOptimizer(inner_optimizer, ...) instead
of Rounds; nodeox.torch.hf.RoundsCallback keeps HF Trainer's steps global.

Run under mpirun or srun --mpi=pmix, one process per worker, with the
interpreter nodeox was pip-installed into (or Debian's /usr/bin/python3
with python3-nodeox). Under torchrun (or any env:// launcher: RANK,
WORLD_SIZE, MASTER_ADDR, MASTER_PORT), where MPI sees a world of one, the
engine communicates through torch.distributed instead (Gloo on CPU, NCCL
on CUDA; nodeox/torch/_dist.py).
"""

import atexit
import collections
import contextlib
import os
import sys

import torch

from .._load import load_engine
from . import _dist

_engine = load_engine()

__all__ = ["init", "Rounds", "RoundsOptimizer", "Context", "finalize", "all_reduce"]

# The launchers' rank variables, removed by init() once MPI has read them:
# transformers/accelerate would otherwise see a multi-process job and try
# to start torch.distributed ("MASTER_ADDR expected, but not set").
_LAUNCHER_VARS = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "PMI_RANK", "PMI_SIZE",
                  "MPI_LOCALRANKID", "MPI_LOCALNRANKS", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                  "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_NODE_RANK",
                  "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_LOCAL_RANK",
                  "MV2_COMM_WORLD_LOCAL_SIZE")
_failed = False  # an uncaught exception: end the job at exit instead of waiting in finalize

_ctx = None
_comm = None  # the torch.distributed collectives the engine uses (torchrun), else None


class Context:
    """Where this process sits: rank, world, local_rank, speed (the speed
    known before training: emulate_speeds, or the nodeox.conf Speed= of the
    GPU type Slurm allocated; None when it will be measured), gpu_type (of
    the allocation, "" when unknown), backend ("cpu" or "cuda") and device
    (the torch.device the model belongs on)."""

    def __init__(self, info, device, launcher_env):
        self.launcher_env = launcher_env  # the variables init() removed
        self.rank = info["rank"]
        self.world = info["world"]
        self.local_rank = info["local_rank"]
        self.speed = info["speed"] if info["speed"] > 0 else None
        self.backend = info["backend"]
        self.comm = info["comm"]  # "MPI" or "torch.distributed" (torchrun)
        self.gpu_type = info["gpu_type"]
        self.device = device

    def share(self, n):
        """This rank's items [first, first + count) of n, in proportion to
        the workers' speeds (as nodeox-run --evaluate splits): a range."""
        first, count = _engine.share(int(n))
        return range(first, first + count)

    def __repr__(self):
        return ("Context(rank=%d, world=%d, local_rank=%d, speed=%r, backend=%r, comm=%r)"
                % (self.rank, self.world, self.local_rank, self.speed, self.backend, self.comm))


def init(emulate_speeds=None, emulate_base_ms=20.0, device=None, peer_timeout_s=120.0):
    """Start MPI and the engine; returns the Context. Under torchrun (its
    RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT set, and MPI a world of
    one) the engine starts torch.distributed's default group (env://, Gloo
    for device "cpu", NCCL for "cuda") and communicates through it;
    finalize() destroys the group.

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
    comm = _dist.TorchComm() if _dist.env_launch() else None  # used if MPI sees a world of one
    info = _engine.init(device, speeds, float(emulate_base_ms), float(peer_timeout_s), comm=comm)
    global _comm
    _comm = comm if comm is not None and info["comm"] == comm.name else None
    if device == "cuda":
        index = info["local_rank"] % max(1, torch.cuda.device_count())
        torch.cuda.set_device(index)
        dev = torch.device("cuda", index)
    else:
        dev = torch.device("cpu")
    removed = {k: os.environ.pop(k) for k in _LAUNCHER_VARS if k in os.environ}
    _ctx = Context(info, dev, removed)
    atexit.register(_at_exit)
    hook = sys.excepthook

    def _excepthook(kind, value, tb):
        global _failed
        _failed = True
        hook(kind, value, tb)
    sys.excepthook = _excepthook
    return _ctx


def _at_exit():
    """finalize() at the interpreter's exit; after an uncaught exception,
    MPI_Abort (the other ranks would otherwise wait for this one)."""
    if _ctx is None:
        return
    if _failed:
        sys.stderr.write("nodeox.torch: rank %d: ending the job after an uncaught exception\n" % _ctx.rank)
        _engine.abort(1)
    finalize()


def finalize():
    """Wait for every rank, stop the watchdog and MPI (and torch.distributed's
    group under torchrun). A collective: every
    rank calls it (it also runs by itself at the interpreter's exit)."""
    global _ctx, _comm
    _engine.finalize()
    if _comm is not None:  # torchrun: the group the engine started
        _comm.stop()
        _comm = None
    _ctx = None
_comm = None  # the torch.distributed collectives the engine uses (torchrun), else None


def broadcast(tensors):
    """Rank 0's values of tensors (any dtype, any device) on every rank, in
    place: a collective."""
    for t in tensors:
        if t.numel() == 0:
            continue
        host = t.detach().to("cpu", copy=True).contiguous()
        _engine.bcast(host.data_ptr(), host.numel() * host.element_size())
        with torch.no_grad():
            t.copy_(host.to(t.device))


def all_reduce(values):
    """Sum a float64 CPU tensor over all ranks, in place (e.g. per-item
    evaluation losses, each item computed by one rank)."""
    if (not isinstance(values, torch.Tensor) or values.dtype != torch.float64 or values.device.type != "cpu"
            or not values.is_contiguous()):
        raise ValueError("nodeox.torch.all_reduce: needs a contiguous float64 CPU tensor")
    _engine.allreduce_host(values.data_ptr(), values.numel())
    return values


def default_outer_lr(optimizer):
    """The outer lr Rounds takes when none is given: 0.9 for an inner
    optimizer of the Adam family (a class named *Adam* in its MRO: Adam,
    AdamW, NAdam, RAdam, Adamax, FusedAdam, AdamW8bit, ...), 0.3 for any
    other (SGD). Measured in doc/runtime.md ("Quality through
    RoundsOptimizer's defaults"): with AdamW, rounds of 10 at 0.3 kept pace
    with sync but no more, and fell behind it in a longer run."""
    if any("adam" in c.__name__.lower() for c in type(optimizer).__mro__):
        return 0.9
    return 0.3


class Rounds:
    """Train model with optimizer in heterogeneous rounds (mode="rounds") or
    synchronous data parallel (mode="sync", the baseline: gradients
    all-reduced every step, every worker at the slowest one's pace).

    local_steps: H, the fastest worker's steps per round; worker i takes
    max(1, ceil(H s_i / max s)) (plan="speed"; "fixed": H for everyone;
    "time" with round_ms). combine: "fednova", "mean" or "samples"
    (batch_size, shard_size: this worker's batch and shard, for the
    samples and FedNova weights; equal by default). outer_lr,
    outer_momentum: the outer Nesterov SGD (default momentum 0.7; outer_lr
    None picks it from the inner optimizer: 0.9 for the Adam family, whose
    steps are normalised per coordinate, so the workers' noisy displacements
    largely cancel in the average (nodeox-run's transformer recipe), 0.3
    otherwise (its MLP recipe; SGD); doc/runtime.md measures both. DiLoCo's
    0.7 / 0.9 is made for rounds of hundreds of AdamW steps and overshoots
    with rounds of 10). sync_warmup: synchronous steps
    before the first round (default 60; 0 starts in rounds). total_steps: when given, the engine's schedule
    (linear warm-up over warmup_steps, cosine to lr_min_ratio at
    total_steps, over the global step counter) scales every param group's
    lr, and the last round ends at total_steps; without it the lr is left
    to the caller. checkpoint_dir / checkpoint_every / resume: the engine's
    checkpoints (outer state, counters, every worker's speeds) every K
    rounds, with this rank's optimizer state beside them
    (rank-R.round-N.inner.pt); resume=True continues from the last one."""

    def __init__(self, model, optimizer, mode="rounds", local_steps=10, combine="fednova",
                 outer_lr=None, outer_momentum=0.7, plan="speed", round_ms=0.0, sync_warmup=60,
                 total_steps=None, warmup_steps=0, lr_min_ratio=0.1, batch_size=1, shard_size=1,
                 checkpoint_dir=None, checkpoint_every=1, resume=False, verbose=False):
        if _ctx is None:
            raise RuntimeError("nodeox.torch: call nxt.init() before Rounds")
        self.model, self.optimizer, self.mode = model, optimizer, mode
        if outer_lr is None:
            outer_lr = default_outer_lr(optimizer)
        self.outer_lr = float(outer_lr)
        self.checkpoint_dir = checkpoint_dir
        self._schedule = total_steps is not None
        self.total_steps = total_steps
        params, seen = [], set()
        source = (model.parameters() if model is not None
                  else (p for g in optimizer.param_groups for p in g["params"]))
        for p in source:
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                params.append(p)
        if not params:
            raise ValueError("nodeox.torch.Rounds: the model has no trainable parameters")
        for p in params:
            if p.dtype not in (torch.float32, torch.bfloat16, torch.float16):
                raise ValueError("nodeox.torch.Rounds: parameter of dtype %s (float32, bfloat16 or "
                                 "float16)" % p.dtype)
            if p.device.type != _ctx.device.type:
                raise ValueError("nodeox.torch.Rounds: parameter on %s but the engine runs on %s "
                                 "(move the model to ctx.device)" % (p.device, _ctx.device))
        opt_params = {id(p) for g in optimizer.param_groups for p in g["params"]}
        missing = [p for p in params if id(p) not in opt_params]
        if missing:
            raise ValueError("nodeox.torch.Rounds: %d trainable parameters are not in the optimizer"
                             % len(missing))
        if model is not None:  # frozen parameters and buffers: rank 0's, once
            broadcast([p for p in model.parameters() if not p.requires_grad] + list(model.buffers()))
        n = sum(p.numel() for p in params)
        dev = params[0].device
        self.flat = torch.empty(n, dtype=torch.float32, device=dev)
        self.flat_grad = torch.zeros(n, dtype=torch.float32, device=dev)
        self._views = []   # float32: (param, grad view) -- the param is a view of flat
        self._shadow = []  # bf16/fp16: (param, flat slice, flat_grad slice, round-start copy)
        off = 0
        with torch.no_grad():
            for p in params:
                k = p.numel()
                self.flat[off:off + k].copy_(p.detach().reshape(-1))
                if p.dtype == torch.float32:
                    p.data = self.flat[off:off + k].view_as(p)
                    g = self.flat_grad[off:off + k].view_as(p)
                    p.grad = g
                    self._views.append((p, g))
                else:
                    self._shadow.append((p, self.flat[off:off + k].view_as(p),
                                         self.flat_grad[off:off + k].view_as(p), None))
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
        self._shadow_from_flat()  # rank 0's (or the checkpoint's) weights
        if self.resumed:
            self._load_inner()

    def _shadow_from_flat(self):
        """bf16/fp16 parameters := the float32 weights the engine left in
        flat (global weights at a round end), rounded; remember them as the
        round's start."""
        with torch.no_grad():
            for i, (p, f, g, _) in enumerate(self._shadow):
                p.copy_(f)
                self._shadow[i] = (p, f, g, p.detach().clone())

    def _shadow_to_flat(self):
        """Before the engine closes an interval: flat := global + (this
        worker's bf16/fp16 weights - their round start), in float32, so the
        pseudo-gradient is the worker's own update and not also the rounding
        of the global weights to its dtype."""
        with torch.no_grad():
            for p, f, g, start in self._shadow:
                f.add_(p.detach().float() - start.float())

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
        prog = _engine.progress()
        if not prog["in_round"]:
            raise RuntimeError("nodeox.torch: step() after training ended (global step %d reached "
                               "total_steps): loop while not opt.done" % prog["global_step"])
        synced = prog["allreduce"]  # of the interval this step is in
        closes = prog["step_in_round"] + 1 >= prog["round_steps"]
        if synced and self._shadow:  # bf16/fp16 gradients through the float32 all-reduce
            with torch.no_grad():
                for p, f, g, _ in self._shadow:
                    g.copy_(p.grad if p.grad is not None else torch.zeros_like(g))
        factor = _engine.grads()  # synchronous intervals: all-reduced in place
        if synced and self._shadow:
            with torch.no_grad():
                for p, f, g, _ in self._shadow:
                    if p.grad is None:
                        p.grad = g.to(p.dtype)
                    else:
                        p.grad.copy_(g)
        if self._schedule:
            for group, base in zip(self.optimizer.param_groups, self._base_lr):
                group["lr"] = base * factor
        self.optimizer.step()
        if self.checkpoint_dir and prog["checkpoint_at_round_end"]:
            self._save_inner()
        if closes and self._shadow:
            self._shadow_to_flat()
        if torch.is_tensor(loss):
            loss = loss.detach()
        r = _engine.end(float(loss) if loss is not None else 0.0)
        if r >= 1 and self._shadow:
            self._shadow_from_flat()
        if r >= 1 and not _engine.progress()["last_finite"]:
            # the state that produced a non-finite update would produce it again
            self.optimizer.state = collections.defaultdict(dict)
        self.round_ended = r >= 1
        return self.round_ended or bool(synced)

    @property
    def done(self):
        """True once total_steps global steps are reached (every rank at the
        same round end); never without total_steps."""
        return self.total_steps is not None and not _engine.progress()["in_round"]

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
        """mode, outer_lr, rounds, global_steps, local_steps (per rank),
        critical_s, train_s, dropped, bytes_communicated (all ranks),
        params_fnv. A collective: every rank calls it."""
        r = _engine.result()
        p = _engine.progress()
        return {"mode": self.mode, "outer_lr": self.outer_lr, "rounds": r["rounds"], "global_steps": r["global_steps"],
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


class RoundsOptimizer(torch.optim.Optimizer):
    """Rounds as a torch.optim.Optimizer, for training loops that call
    optimizer.step() themselves (HF Trainer, Accelerate, Lightning, a plain
    epoch loop):

        opt = nxt.RoundsOptimizer(torch.optim.AdamW(model.parameters(), lr=3e-4),
                                  mode="rounds", local_steps=10, total_steps=1000,
                                  model=model)
        while not opt.done:
            opt.zero_grad(); loss_fn(model(x), y).backward(); opt.step()

    Takes Rounds' options. The trainable parameters are those of the inner
    optimizer (model=: also broadcast its frozen parameters and buffers from
    rank 0). step(closure=None) does what Rounds.step() does (with a
    closure, its loss is the one the engine logs); zero_grad, param_groups,
    state, state_dict and load_state_dict are the inner optimizer's.
    global_step, critical_s, round_ended, done (total_steps global steps
    reached, on every rank at the same round end), pause() and summary()
    are Rounds'. With total_steps the engine's schedule (warm-up, cosine
    over the global step counter) sets each param group's lr at every step,
    over any scheduler's."""

    def __init__(self, optimizer, mode="rounds", local_steps=10, total_steps=None, model=None,
                 **options):
        if isinstance(optimizer, RoundsOptimizer):
            raise ValueError("nodeox.torch.RoundsOptimizer: the inner optimizer is already one")
        self.optimizer = optimizer
        self.defaults = optimizer.defaults
        # torch.optim.Optimizer's bookkeeping, without a second copy of the
        # parameter groups (param_groups and state are the inner optimizer's)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                     "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                     "_optimizer_load_state_dict_pre_hooks", "_optimizer_load_state_dict_post_hooks"):
            setattr(self, name, collections.OrderedDict())
        self.rounds = Rounds(model, optimizer, mode=mode, local_steps=local_steps,
                             total_steps=total_steps, **options)

    # the inner optimizer's state, seen through this one
    @property
    def param_groups(self):
        return self.optimizer.param_groups

    @param_groups.setter
    def param_groups(self, value):
        self.optimizer.param_groups = value

    @property
    def state(self):
        return self.optimizer.state

    @state.setter
    def state(self, value):
        self.optimizer.state = value

    def zero_grad(self, set_to_none=True):
        self.optimizer.zero_grad(set_to_none=set_to_none)

    def state_dict(self):
        return self.optimizer.state_dict()

    def load_state_dict(self, state_dict):
        self.optimizer.load_state_dict(state_dict)

    def add_param_group(self, param_group):
        raise RuntimeError("nodeox.torch.RoundsOptimizer: the engine's parameters are fixed when it "
                           "starts; add the group to the inner optimizer before wrapping it")

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        self.rounds.step(loss)
        return loss

    def __getstate__(self):
        raise TypeError("nodeox.torch.RoundsOptimizer cannot be pickled (it holds the engine)")

    def __repr__(self):
        return "RoundsOptimizer(%r, mode=%r)" % (self.optimizer, self.rounds.mode)

    def pause(self):
        return self.rounds.pause()

    def progress(self):
        return self.rounds.progress()

    def summary(self):
        return self.rounds.summary()


# RoundsOptimizer's progress is Rounds': global_step, critical_s, round_ended,
# done, total_steps (read-only)
for _name in ("global_step", "critical_s", "round_ended", "done", "total_steps"):
    setattr(RoundsOptimizer, _name, property(lambda self, _n=_name: getattr(self.rounds, _n),
                                             doc="Rounds.%s" % _name))
del _name
