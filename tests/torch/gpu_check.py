"""gpu_check.py: the CUDA path of nodeox.torch, for tools/gpu-check (needs a GPU).

  --part engine   without torch: device buffers from cudaMalloc (ctypes over
                  libcudart) handed to nodeox._engine with the CUDA backend,
                  one rank: the engine's pseudo-gradient, FedNova combine,
                  NCCL all-reduce and outer Nesterov step run on device
                  memory; the host drives a known inner optimizer (gradient
                  steps on a quadratic) through cudaMemcpy. The weights
                  after 10 rounds must equal the same rounds computed in
                  plain Python to float tolerance.
  --part torch    with a CUDA build of torch (Debian's python3-torch has no
                  CUDA: skipped, exit 77, when torch.cuda is unavailable): an
                  MLP on the GPU trained through nxt.Rounds; the loss must
                  fall and the weights stay finite and on the device.
  --cpu           (with --part engine) the same on host memory and the CPU
                  backend, to check this script on a machine without a GPU.
One GPU means one rank: NCCL across ranks is not measured here.
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


def torch_part():
    import torch
    if not torch.cuda.is_available():
        print("SKIP: this torch has no CUDA (%s)" % torch.__version__)
        return 77
    import nodeox.torch as nxt
    ctx = nxt.init(device="cuda")
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)).to(ctx.device)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    tr = nxt.Rounds(model, opt, local_steps=10)
    w = torch.randn(64, 10, device=ctx.device)
    first = last = None
    while tr.global_step < 300:
        x = torch.randn(128, 64, device=ctx.device)
        y = (x @ w).argmax(1)
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        tr.step()
        first = loss.item() if first is None else first
        last = loss.item()
    s = tr.summary()
    finite = bool(torch.isfinite(tr.flat).all())
    print("ctx %s; loss %.3f -> %.3f; %s; weights on %s, finite %s" %
          (ctx, first, last, s, tr.flat.device, finite))
    nxt.finalize()
    ok = last < 0.7 * first and finite and tr.flat.is_cuda
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    part = sys.argv[sys.argv.index("--part") + 1] if "--part" in sys.argv else "engine"
    sys.exit(engine_part("--cpu" in sys.argv) if part == "engine" else torch_part())
