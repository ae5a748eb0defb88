"""fmnist.py: what the nodeox.torch tests and bench share about Fashion-MNIST.

Reads Debian's dataset-fashion-mnist IDX files, normalizes pixels as
runtime/workload_mlp.c does ((x / 255 - 0.2860) / 0.3530), and reproduces
nodeox-run's sample stream exactly: rank r's shard is every world-th sample
from r, reshuffled each epoch by splitmix64 from (seed, rank, epoch) with
Fisher-Yates, so a bridge run can see the very batches nodeox-run trains on.
Model files (runtime/rt_model.c's format: "NDXMODL1", name[64], nparams,
float32 weights, FNV-1a) carry identical initial weights between the two.
"""

import gzip
import os
import struct

import torch

DATA = os.environ.get("FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist")
M64 = (1 << 64) - 1


def _idx(name, limit=0):
    path = os.path.join(DATA, name)
    opener = open
    if not os.path.exists(path):
        path, opener = path + ".gz", gzip.open
    with opener(path, "rb") as f:
        data = f.read()
    magic, count = struct.unpack(">II", data[:8])
    dims = magic & 0xff
    shape = struct.unpack(">" + "I" * dims, data[4:4 + 4 * dims])
    off = 4 + 4 * dims
    rows = shape[0] if not limit else min(limit, shape[0])
    per = 1
    for d in shape[1:]:
        per *= d
    t = torch.frombuffer(bytearray(data[off:off + rows * per]), dtype=torch.uint8)
    return t.reshape(rows, per) if dims > 1 else t.reshape(rows)


def norm(x):
    """uint8 pixels -> float32, standardized as runtime/workload_mlp.c does."""
    return ((x.float() * (1.0 / 255.0) - 0.2860) * (1.0 / 0.3530)).contiguous()


def load(max_train=0):
    """(train_x uint8 [n, 784], train_y int64, test_x uint8, test_y): pixels
    stay bytes (60k x 784 floats would be 188 MB in every rank); norm()
    converts a batch."""
    tx = _idx("train-images-idx3-ubyte", max_train)
    ty = _idx("train-labels-idx1-ubyte", max_train).long()
    ex = _idx("t10k-images-idx3-ubyte")
    ey = _idx("t10k-labels-idx1-ubyte").long()
    return tx, ty, ex, ey


def _splitmix(s):
    s = (s + 0x9e3779b97f4a7c15) & M64
    z = s
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
    return s, z ^ (z >> 31)


class Stream:
    """Rank's sample stream of runtime/workload_mlp.c: batches of indices."""

    def __init__(self, n, rank, world, seed=1, pos=0):
        self.shard = list(range(rank, n, world))
        self.rank, self.seed, self.pos = rank, seed, pos
        self.epoch, self.perm = None, None

    def _shuffle(self, epoch):
        if self.epoch == epoch:
            return
        s = self.seed ^ 0x6a09e667f3bcc909
        s, z = _splitmix(s)
        s = z ^ ((self.rank * 0x9e3779b97f4a7c15) & M64)
        s, z = _splitmix(s)
        s = z ^ ((epoch * 0xd1b54a32d192ed03) & M64)
        perm = list(self.shard)
        for i in range(len(perm), 1, -1):
            s, z = _splitmix(s)
            j = z % i
            perm[i - 1], perm[j] = perm[j], perm[i - 1]
        self.epoch, self.perm = epoch, perm

    def next(self, batch):
        n = len(self.shard)
        out = []
        for q in range(self.pos, self.pos + batch):
            self._shuffle(q // n)
            out.append(self.perm[q % n])
        self.pos += batch
        return torch.tensor(out)


def mlp(hidden, seed=1):
    """784 - hidden... - 10 with ReLU: nodeox-run's MLP layout (W out x in, then b)."""
    torch.manual_seed(seed)
    layers, d = [], 784
    for h in hidden:
        layers += [torch.nn.Linear(d, h), torch.nn.ReLU()]
        d = h
    layers.append(torch.nn.Linear(d, 10))
    return torch.nn.Sequential(*layers)


def model_name(hidden):
    return "mlp-784-" + "-".join(str(h) for h in hidden) + "-10"


def _fnv(h, b):
    if h == 0:
        h = 1469598103934665603
    for x in b:
        h = ((h ^ x) * 1099511628211) & M64
    return h


def write_model(path, name, flat):
    """flat: float32 CPU tensor, written as rt_model.c writes --save-model."""
    nm = name.encode().ljust(64, b"\0")
    body = b"NDXMODL1" + nm + struct.pack("=Q", flat.numel()) + flat.contiguous().numpy().tobytes()
    with open(path, "wb") as f:
        f.write(body + struct.pack("=Q", _fnv(0, body)))


def read_model(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"NDXMODL1":
        raise ValueError("%s: not a nodeox model file" % path)
    (n,) = struct.unpack("=Q", data[72:80])
    return torch.frombuffer(bytearray(data[80:80 + 4 * n]), dtype=torch.float32).clone()


def flat_params(model):
    return torch.cat([p.detach().reshape(-1) for p in model.parameters()])


def accuracy(model, x, y):
    """Test accuracy on uint8 images x, 1000 at a time."""
    correct = 0
    with torch.no_grad():
        for i in range(0, x.shape[0], 1000):
            correct += (model(norm(x[i:i + 1000])).argmax(1) == y[i:i + 1000]).sum().item()
    return correct / x.shape[0]
