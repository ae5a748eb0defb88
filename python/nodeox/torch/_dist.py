"""nodeox.torch._dist: the engine's collectives through torch.distributed.

Under torchrun (or any env:// launcher: RANK, WORLD_SIZE, MASTER_ADDR,
MASTER_PORT) MPI sees a world of one; init() then hands the engine a
TorchComm, and the engine's all-reduces, all-gathers, broadcasts and
barriers (runtime/rt_comm.c) call its methods with the addresses and sizes
of the engine's own buffers. Each buffer is wrapped as a tensor over that
memory (torch.frombuffer on the host, __cuda_array_interface__ on the
device): no copies. Gloo carries host buffers; with NCCL (CUDA) device
buffers go through NCCL and host buffers (the engine's small records)
through a second, Gloo group. NCCL refuses two ranks on one GPU
("Duplicate GPU detected"): where ranks share a GPU (several processes per
GPU, or one GPU for a test), device buffers go through the Gloo group too,
which copies them through host memory, and rank 0 says so.
"""

import ctypes
import os
import socket
import sys

import torch
import torch.distributed as dist

# the variables of an env:// launch (torchrun sets them all)
ENV_VARS = ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")

_DTYPES = (torch.float32, torch.float64)  # the engine's NODEOX_COMM_F32, _F64


def env_launch():
    """True when an env:// launcher's variables are all set."""
    return all(os.environ.get(k) for k in ENV_VARS)


class _DeviceBuffer:
    """n floats of device memory at addr, as torch.as_tensor takes them."""

    def __init__(self, addr, n, dtype):
        typestr = "<f4" if dtype == torch.float32 else "<f8"
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": typestr, "data": (addr, False),
                                         "version": 2}


class TorchComm:
    """The collectives the engine calls (python/nodeox/_engine.c's
    nodeox_comm_ops_t). Exceptions go back to the engine, which names the
    call and stops the rank."""

    name = "torch.distributed"

    def __init__(self):
        self.backend = None
        self.host_group = None  # None: the default group carries host buffers too
        self.device_group = None  # None: the default group (NCCL) carries device buffers
        self.created = False    # the default group is ours (stop() destroys it)
        self._tensors = {}      # (addr, size, dtype, device) -> tensor over that memory

    def start(self, on_device):
        self.backend = "nccl" if on_device else "gloo"
        if on_device:  # NCCL works on the current device: the one the engine picks
            torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")) % torch.cuda.device_count())
        if not dist.is_initialized():
            try:
                self._init_group()
            except RuntimeError as e:
                # torch 2.4+ asks for libuv's TCPStore by default; a torch built
                # without it (Debian 13's 2.6) refuses: use the classic store
                if "libuv" not in str(e) or os.environ.get("USE_LIBUV") == "0":
                    raise
                os.environ["USE_LIBUV"] = "0"
                self._init_group()
            self.created = True
        elif dist.get_backend() != self.backend:
            raise RuntimeError("torch.distributed is already up with backend %s; the engine needs %s"
                               % (dist.get_backend(), self.backend))
        if self.backend == "nccl":
            self.host_group = dist.new_group(backend="gloo")
            shared = self._shared_device()
            if shared:
                self.device_group = self.host_group
                if dist.get_rank() == 0:
                    print("nodeox.torch: ranks %d and %d share the GPU %s on %s: NCCL needs one GPU per "
                          "rank, so the engine's device buffers go through Gloo (copied through host "
                          "memory)" % shared, file=sys.stderr, flush=True)
        return dist.get_rank(), dist.get_world_size()

    def _init_group(self):
        """The default group, env://. After torchrun --max-restarts restarted
        the workers (TORCHELASTIC_RESTART_COUNT > 0) the agent's store still
        holds the failed attempt's keys, the ranks' addresses among them,
        and a new rank that reads its predecessor's address fails ("Gloo
        connectFullMesh failed ... Connection refused"; plain torch 2.15
        does the same, depending on which rank starts first): each
        attempt's keys get their own prefix."""
        attempt = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
        if attempt == "0":
            dist.init_process_group(backend=self.backend, init_method="env://")
            return
        store, rank, world = next(dist.rendezvous("env://"))
        dist.init_process_group(backend=self.backend, store=dist.PrefixStore("nodeox/attempt_" + attempt, store),
                                rank=rank, world_size=world)

    def _shared_device(self):
        """(rank, rank, device, host) of the first two ranks on one GPU, or
        None. NCCL creates its communicator at the first collective, so
        nothing has touched it yet."""
        index = torch.cuda.current_device()
        props = torch.cuda.get_device_properties(index)
        key = (socket.gethostname(), str(getattr(props, "uuid", index)))
        keys = [None] * dist.get_world_size()
        dist.all_gather_object(keys, key, group=self.host_group)
        seen = {}
        for r, k in enumerate(keys):
            if tuple(k) in seen:
                return (seen[tuple(k)], r, k[1], k[0])
            seen[tuple(k)] = r
        return None

    def stop(self):
        if self.created and dist.is_initialized():
            dist.destroy_process_group()
        elif self.host_group is not None:
            dist.destroy_process_group(self.host_group)
        self._tensors.clear()

    def _host(self, addr, nbytes, dtype, keep=False):
        """keep: a buffer the engine reuses (its parameters, gradients and
        deltas), kept wrapped; records and one-off buffers are not."""
        key = (addr, nbytes, dtype, "cpu")
        t = self._tensors.get(key)
        if t is None:
            t = torch.frombuffer((ctypes.c_char * nbytes).from_address(addr), dtype=dtype)
            if keep:
                self._tensors[key] = t
        return t

    def _device(self, addr, n, dtype):
        key = (addr, n, dtype, "cuda")
        t = self._tensors.get(key)
        if t is None:
            t = torch.as_tensor(_DeviceBuffer(addr, n, dtype), device="cuda")
            self._tensors[key] = t
        return t

    def allreduce(self, addr, n, dtype, on_device):
        if n == 0:
            return
        dt = _DTYPES[dtype]
        if on_device:
            dist.all_reduce(self._device(addr, n, dt), group=self.device_group)
            torch.cuda.current_stream().synchronize()  # the engine reads it next
        else:
            t = self._host(addr, n * (4 if dt == torch.float32 else 8), dt, keep=dt == torch.float32)
            dist.all_reduce(t, group=self.host_group)

    def allgather(self, send, recv, nbytes):
        world = dist.get_world_size()
        s = self._host(send, nbytes, torch.uint8)
        r = self._host(recv, nbytes * world, torch.uint8)
        dist.all_gather(list(r.split(nbytes)), s, group=self.host_group)

    def bcast(self, addr, nbytes, root):
        if nbytes == 0:
            return
        dist.broadcast(self._host(addr, nbytes, torch.uint8), src=root, group=self.host_group)

    def barrier(self):
        dist.barrier(group=self.host_group)
