"""nodeox: the Python side of nodeox's heterogeneous-rounds runtime.

``import nodeox.torch as nxt`` trains a user's own PyTorch model with the C
engine of nodeox-run (round sizes from each worker's speed, FedNova/mean/
samples combine, the outer Nesterov step on the parameters' own memory, MPI
or NCCL collectives, the lost-peer watchdog, checkpoints). See
doc/runtime.md, "PyTorch models (nodeox.torch)".

Install it with pip into the environment that has torch (pip install
/path/to/nodeox builds the extension for that interpreter); Debian's
python3-nodeox serves /usr/bin/python3 and its python3-torch.
"""

__all__ = ["torch"]
