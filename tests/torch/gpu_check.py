"""gpu_check.py: the CUDA path of nodeox.torch, for tools/gpu-check (needs a GPU).

  --part engine   without torch: device buffers from cudaMalloc (ctypes over
                  libcudart) handed to nodeox._engine with the CUDA backend,
                  one rank: the engine's pseudo-gradient, FedNova combine,
                  NCCL all-reduce and outer Nesterov step run on device
                  memory; the host drives a known inner optimizer (gradient
                  steps on a quadratic) through cudaMemcpy. The weights
                  after 10 rounds must equal the same rounds computed in
                  plain Python to float tolerance.
  --part torch [--model fp32|bf16|gpt2]  with a CUDA build of torch
                  (Debian's python3-torch has no CUDA: skipped, exit 77, when
                  torch.cuda is unavailable), one rank, one model per process:
                  fp32, an MLP on the GPU trained through nxt.Rounds (the
                  loss must fall, the weights stay finite and on the
                  device); bf16, the same MLP in bfloat16 through
                  RoundsOptimizer (the engine's master copy float32, the
                  parameters still bfloat16, the loss falls); gpt2, a
                  transformers GPT-2 built from a small config, in bfloat16,
                  through RoundsOptimizer (its loss halves; skipped, not
                  failed, without transformers).
  --part ranks OUT  one rank of a launch (mpirun or torchrun, every rank on
                  the one GPU): an MLP through RoundsOptimizer at emulated
                  speeds 1, 0.5, ..., mode from --mode (rounds or sync);
                  writes OUT.rankR.json (critical path, global steps, held-out
                  loss, the weights). Ranks that share a GPU cannot use NCCL
                  (it refuses two ranks on one device): the engine combines
                  through MPI on host memory under mpirun and through Gloo
                  under torchrun, and says so.
  --part compare DIR  the ranks runs in DIR: every rank of a run has the
                  same weights; mpirun's and torchrun's rounds runs agree
                  (relative difference < 1e-4: sums in different orders);
                  rounds' critical path is shorter than sync's and its
                  held-out loss within 25% of sync's.
  --cpu           the same on host memory and the CPU backend, to check
                  this script on a machine without a GPU.
"""

import ctypes
import os
import sys


class _HostMemory:
    """--cpu: the same driver on host buffers and the CPU backend (checks
    this script where there is no GPU)."""

    def __init__(self, n):
        import array
        self.grads = array.array("f", [0.0] * n)

    def cudaMalloc(self, ptr, nbytes):
        ptr._obj.value = self.grads.buffer_info()[0] if ptr._obj.value is None else ptr._obj.value
        return 0

    def cudaMemcpy(self, dst, src, nbytes, kind):
        ctypes.memmove(dst, src, nbytes)

    def cudaMemset(self, p, v, nbytes):
        ctypes.memset(p, v, nbytes)


def engine_part(cpu):
    import array
    from nodeox import _engine
    n, H, rounds, lr = 4096, 5, 10, 0.1
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    rt = _HostMemory(n) if cpu else None
    for name in () if cpu else (cuda + "/lib64/libcudart.so", "libcudart.so"):
        try:
            rt = ctypes.CDLL(name)
            break
        except OSError:
            pass
    if rt is None:
        print("SKIP: no libcudart.so")
        return 77
    target = [((i * 37) % 101) / 50.0 - 1.0 for i in range(n)]
    host = array.array("f", [0.0] * n)
    nbytes = 4 * n
    p, g = ctypes.c_void_p(), ctypes.c_void_p()
    if cpu:
        dev = array.array("f", [0.0] * n)  # the "device" weights
        p.value = dev.buffer_info()[0]
    if rt.cudaMalloc(ctypes.byref(p), nbytes) or rt.cudaMalloc(ctypes.byref(g), nbytes):
        print("FAIL: cudaMalloc")
        return 1
    h2d, d2h = 1, 2
    addr = host.buffer_info()[0]
    rt.cudaMemcpy(p, ctypes.c_void_p(addr), nbytes, h2d)
    rt.cudaMemset(g, 0, nbytes)
    info = _engine.init("cpu" if cpu else "cuda", None, 20.0)
    print("engine:", info)
    _engine.attach(p.value, g.value, n, mode="rounds", combine="fednova", local_steps=H,
                   outer_lr=0.7, outer_momentum=0.9, sync_warmup=0, total_steps=H * rounds)
    while True:
        _engine.grads()
        rt.cudaMemcpy(ctypes.c_void_p(addr), p, nbytes, d2h)
        for i in range(n):
            host[i] -= lr * (host[i] - target[i])
        rt.cudaMemcpy(p, ctypes.c_void_p(addr), nbytes, h2d)
        if _engine.end(0.0) == 2:
            break
    rt.cudaMemcpy(ctypes.c_void_p(addr), p, nbytes, d2h)
    res = _engine.result()
    # the same rounds in plain Python: theta, outer momentum, H inner steps
    theta, mom, worst = [0.0] * n, [0.0] * n, 0.0
    for i in range(n):
        th, m = 0.0, 0.0
        for _ in range(rounds):
            x = th
            for _ in range(H):
                x -= lr * (x - target[i])
            d = th - x
            m = 0.9 * m + d
            th -= 0.7 * (d + 0.9 * m)
        worst = max(worst, abs(th - host[i]))
    _engine.finalize()
    print("rounds %d, global steps %d, max |device - expected| %.3g" %
          (res["rounds"], res["global_steps"], worst))
    ok = res["rounds"] == rounds and worst < 1e-4
    print("PASS" if ok else "FAIL: the outer step on device memory differs")
    return 0 if ok else 1


def _mlp(torch, dev, dtype=None):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    return model.to(dev) if dtype is None else model.to(dev, dtype)


def _batch(torch, gen, w, dev, dtype=None):
    x = torch.randn(128, 64, generator=gen).to(dev)
    y = (x @ w).argmax(1)
    return (x if dtype is None else x.to(dtype)), y


def _train(torch, nxt, model, opt, w, dev, dtype=None, seed=1):
    """Run opt (a RoundsOptimizer) to its total_steps; first and last loss."""
    gen = torch.Generator().manual_seed(seed)
    first = last = None
    while not opt.done:
        x, y = _batch(torch, gen, w, dev, dtype)
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x).float(), y)
        loss.backward()
        opt.step()
        first = loss.item() if first is None else first
        last = loss.item()
    return first, last


def _gpt2(torch, nxt, dev):
    """A transformers GPT-2 from a small config, bfloat16, one rank."""
    try:
        import transformers
    except ImportError:
        print("gpt2: SKIP: this interpreter has no transformers")
        return True
    cfg = transformers.GPT2Config(vocab_size=256, n_positions=64, n_embd=128, n_layer=2, n_head=4,
                                   bos_token_id=0, eos_token_id=0)
    torch.manual_seed(0)
    model = transformers.GPT2LMHeadModel(cfg).to(dev, torch.bfloat16)
    opt = nxt.RoundsOptimizer(torch.optim.AdamW(model.parameters(), lr=1e-3), local_steps=10,
                              total_steps=200, sync_warmup=20, model=model)
    # a learnable byte stream: a repeated text with a shifting start
    text = (b"heterogeneous rounds train each GPU for a round sized to its speed. " * 40)
    data = torch.tensor(list(text), dtype=torch.long)
    gen = torch.Generator().manual_seed(2)
    first = last = None
    while not opt.done:
        i = torch.randint(0, len(data) - 65, (16,), generator=gen)
        ids = torch.stack([data[j:j + 64] for j in i.tolist()]).to(dev)
        opt.zero_grad()
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        first = loss.item() if first is None else first
        last = loss.item()
    dtypes = sorted({str(p.dtype) for p in model.parameters()})
    ok = last < 0.5 * first and dtypes == ["torch.bfloat16"] and opt.rounds.flat.dtype == torch.float32
    print("gpt2 bf16 (transformers %s): loss %.3f -> %.3f; parameters %s, master %s; %s: %s" %
          (transformers.__version__, first, last, dtypes, opt.rounds.flat.dtype, opt.summary(),
           "PASS" if ok else "FAIL"))
    return ok


def torch_part(cpu, which):
    """One model per process (the engine takes one Rounds per process)."""
    import torch
    if not cpu and not torch.cuda.is_available():
        print("SKIP: this torch has no CUDA (%s)" % torch.__version__)
        return 77
    import nodeox.torch as nxt
    ctx = nxt.init(device="cpu" if cpu else "cuda")
    dev = ctx.device
    w = torch.randn(64, 10, generator=torch.Generator().manual_seed(7))
    if which == "gpt2":
        ok = _gpt2(torch, nxt, dev)
    elif which == "bf16":
        # bfloat16 parameters through RoundsOptimizer: a float32 master copy
        model = _mlp(torch, dev, torch.bfloat16)
        ropt = nxt.RoundsOptimizer(torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9),
                                   local_steps=10, total_steps=300, model=model)
        first, last = _train(torch, nxt, model, ropt, w, dev, torch.bfloat16)
        dtypes = sorted({str(p.dtype) for p in model.parameters()})
        ok = (last < 0.7 * first and dtypes == ["torch.bfloat16"] and
              ropt.rounds.flat.dtype == torch.float32 and bool(torch.isfinite(ropt.rounds.flat).all()))
        print("bf16: ctx %s; loss %.3f -> %.3f; parameters %s, master %s on %s: %s" %
              (ctx, first, last, dtypes, ropt.rounds.flat.dtype, ropt.rounds.flat.device,
               "PASS" if ok else "FAIL"))
    else:
        # float32 through nxt.Rounds
        model = _mlp(torch, dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        tr = nxt.Rounds(model, opt, local_steps=10)
        gen = torch.Generator().manual_seed(1)
        first = last = None
        while tr.global_step < 300:
            x, y = _batch(torch, gen, w, dev)
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            tr.step()
            first = loss.item() if first is None else first
            last = loss.item()
        s = tr.summary()
        finite = bool(torch.isfinite(tr.flat).all())
        ok = last < 0.7 * first and finite and tr.flat.device.type == dev.type
        print("fp32: ctx %s; loss %.3f -> %.3f; %s; weights on %s, finite %s: %s" %
              (ctx, first, last, s, tr.flat.device, finite, "PASS" if ok else "FAIL"))
    nxt.finalize()
    return 0 if ok else 1


def ranks_part(out, mode, cpu):
    import json
    import torch
    import nodeox.torch as nxt
    world = int(os.environ.get("WORLD_SIZE") or os.environ.get("OMPI_COMM_WORLD_SIZE") or 1)
    speeds = [1.0 if r % 2 == 0 else 0.5 for r in range(world)]
    ctx = nxt.init(emulate_speeds=speeds, emulate_base_ms=5.0, device="cpu" if cpu else "cuda")
    dev, rank = ctx.device, ctx.rank
    w = torch.randn(64, 10, generator=torch.Generator().manual_seed(7))
    model = _mlp(torch, dev)
    opt = nxt.RoundsOptimizer(torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9), mode=mode,
                              local_steps=10, total_steps=400, sync_warmup=20, model=model)
    _train(torch, nxt, model, opt, w, dev, seed=100 + rank)
    x, y = _batch(torch, torch.Generator().manual_seed(99), w, dev)
    with torch.no_grad():
        held = torch.nn.functional.cross_entropy(model(x), y).item()
    s = opt.summary()
    flat = torch.cat([p.detach().float().flatten().cpu() for p in model.parameters()])
    with open("%s.rank%d.json" % (out, rank), "w") as f:
        json.dump({"mode": mode, "rank": rank, "world": world, "comm": ctx.comm,
                   "context": repr(ctx), "summary": s, "held_out_loss": held,
                   "weights": flat.tolist()}, f)
    print("rank %d: %s, held-out loss %.4f, %s" % (rank, ctx, held, s))
    nxt.finalize()
    return 0


def compare_part(d):
    import glob
    import json
    runs = {}
    for f in sorted(glob.glob(os.path.join(d, "*.rank*.json"))):
        run = os.path.basename(f).split(".rank")[0]
        runs.setdefault(run, []).append(json.load(open(f)))
    if not runs:
        print("FAIL: no runs in %s" % d)
        return 1
    ok = True

    def rel(a, b):
        return max(abs(x - y) for x, y in zip(a, b)) / max(1e-12, max(abs(x) for x in a))
    for run, ranks in sorted(runs.items()):
        worst = max(rel(ranks[0]["weights"], r["weights"]) for r in ranks)
        s = ranks[0]["summary"]
        print("%-16s %d ranks, %s: critical path %.2f s, %d global steps, rounds %d, held-out loss %.4f, "
              "ranks' weights apart %.2g" % (run, len(ranks), ranks[0]["context"], s["critical_s"],
                                            s["global_steps"], s["rounds"], ranks[0]["held_out_loss"], worst))
        if worst > 0:
            print("  FAIL: the ranks of %s end with different weights" % run)
            ok = False
    for launcher in ("mpirun", "torchrun"):
        r, y = runs.get(launcher + "-rounds"), runs.get(launcher + "-sync")
        if r and y:
            cr, cy = r[0]["summary"]["critical_s"], y[0]["summary"]["critical_s"]
            lr_, ly = r[0]["held_out_loss"], y[0]["held_out_loss"]
            good = cr < cy and lr_ < 1.25 * ly
            print("%s: rounds against sync: critical path %.2f / %.2f s (%.2fx), held-out loss %.4f / %.4f: %s"
                  % (launcher, cr, cy, cy / max(cr, 1e-9), lr_, ly, "PASS" if good else "FAIL"))
            ok &= good
    a, b = runs.get("mpirun-rounds"), runs.get("torchrun-rounds")
    if a and b:
        d_ = rel(a[0]["weights"], b[0]["weights"])
        good = d_ < 1e-4 and a[0]["summary"]["global_steps"] == b[0]["summary"]["global_steps"]
        print("mpirun against torchrun (rounds): weights apart %.2g relative, global steps %d / %d: %s" %
              (d_, a[0]["summary"]["global_steps"], b[0]["summary"]["global_steps"], "PASS" if good else "FAIL"))
        ok &= good
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    argv = sys.argv[1:]
    cpu = "--cpu" in argv
    part = argv[argv.index("--part") + 1] if "--part" in argv else "engine"
    if part == "engine":
        sys.exit(engine_part(cpu))
    if part == "torch":
        sys.exit(torch_part(cpu, argv[argv.index("--model") + 1] if "--model" in argv else "fp32"))
    if part == "ranks":
        mode = argv[argv.index("--mode") + 1] if "--mode" in argv else "rounds"
        sys.exit(ranks_part(argv[argv.index("ranks") + 1], mode, cpu))
    if part == "compare":
        sys.exit(compare_part(argv[argv.index("compare") + 1]))
    print("gpu_check.py: --part engine, torch, ranks OUT or compare DIR")
    sys.exit(2)
