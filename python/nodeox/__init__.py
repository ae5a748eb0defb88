"""nodeox: the Python side of nodeox's heterogeneous-rounds runtime.

``import nodeox.torch as nxt`` trains a user's own PyTorch model with the C
engine of nodeox-run (round sizes from each worker's speed, FedNova/mean/
samples combine, the outer Nesterov step on the parameters' own memory, MPI
or NCCL collectives, the lost-peer watchdog, checkpoints). See
doc/runtime.md, "PyTorch models (nodeox.torch)".

Debian's python3-torch installs into /usr/bin/python3; run the scripts with
that interpreter (a python3 earlier on PATH, e.g. pyenv's, has no torch).
"""

__all__ = ["torch"]
