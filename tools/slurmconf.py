# slurmconf.py: the few parts of a Slurm 22.05 slurm.conf that the trace tools
# need (GPU nodes by type, partitions), read without Slurm. Python 3 stdlib only.
#
# Used by tools/gen-trace and tools/trace-check. It is deliberately small: it
# reads NodeName= and PartitionName= lines, expands hostlists ("gpua[01-16]",
# "n[1-3,7],m5"), takes the GPU type and count from Gres=gpu:TYPE:N, and
# MaxTime/Default/Nodes from partitions. Anything it cannot read is an error
# naming file:line. The simulator has its own, complete reader in C.

import re

class ConfError(Exception):
    """A slurm.conf problem, message already "FILE:LINE: what"."""


def hostlist_expand(expr, where="hostlist"):
    """'gpua[01-03],gput7' -> ['gpua01', 'gpua02', 'gpua03', 'gput7']."""
    names = []
    # split on commas that are not inside brackets
    depth, start, parts = 0, 0, []
    for i, ch in enumerate(expr):
        if ch == '[':
            depth += 1
        elif ch == ']':
            depth -= 1
        elif ch == ',' and depth == 0:
            parts.append(expr[start:i])
            start = i + 1
    parts.append(expr[start:])
    for part in parts:
        if not part:
            raise ConfError(f"{where}: empty name in '{expr}'")
        m = re.fullmatch(r'([^\[\]]*)\[([0-9,\-]+)\]([^\[\]]*)', part)
        if not m:
            if '[' in part or ']' in part:
                raise ConfError(f"{where}: cannot expand '{part}'")
            names.append(part)
            continue
        prefix, ranges, suffix = m.groups()
        for rng in ranges.split(','):
            lo, _, hi = rng.partition('-')
            if not lo.isdigit() or (hi and not hi.isdigit()):
                raise ConfError(f"{where}: bad range '{rng}' in '{part}'")
            width = len(lo)
            for n in range(int(lo), int(hi or lo) + 1):
                names.append(f"{prefix}{n:0{width}d}{suffix}")
    return names


def parse_time_s(value, where):
    """Slurm time ([D-]HH:MM:SS, MM, MM:SS, H:MM:SS) -> seconds; None = unlimited."""
    v = value.strip()
    if v.upper() in ("UNLIMITED", "INFINITE"):
        return None
    m = re.fullmatch(r'(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?', v)
    if not m:
        raise ConfError(f"{where}: bad time '{value}'")
    d, a, b, c = m.groups()
    if d is not None:  # D-HH[:MM[:SS]]
        return int(d) * 86400 + int(a) * 3600 + int(b or 0) * 60 + int(c or 0)
    if c is not None:  # HH:MM:SS
        return int(a) * 3600 + int(b) * 60 + int(c)
    if b is not None:  # MM:SS
        return int(a) * 60 + int(b)
    return int(a) * 60  # minutes


def _pairs(line, where):
    out = {}
    for tok in line.split():
        key, eq, val = tok.partition('=')
        if not eq:
            raise ConfError(f"{where}: expected Key=Value, got '{tok}'")
        out[key.lower()] = val
    return out


class Cluster:
    """nodes: name -> (gpu_type, gpus); partitions: list of dicts with
    name, nodes (list), max_time_s (None = unlimited), default (bool)."""

    def __init__(self):
        self.nodes = {}
        self.node_order = []
        self.partitions = []

    def types(self):
        """GPU types in order of first appearance -> [total GPUs, GPUs per node]."""
        out = {}
        for name in self.node_order:
            t, g = self.nodes[name]
            if g == 0:
                continue
            if t not in out:
                out[t] = [0, g]
            out[t][0] += g
            out[t][1] = max(out[t][1], g)
        return out

    def default_partition(self):
        for p in self.partitions:
            if p["default"]:
                return p
        return self.partitions[0] if self.partitions else None


def read(path):
    """Parse slurm.conf at path into a Cluster."""
    cl = Cluster()
    try:
        fh = open(path, encoding="utf-8")
    except OSError as e:
        raise ConfError(f"{path}: {e.strerror}")
    with fh:
        lines = fh.read().split('\n')
    for lineno, raw in enumerate(lines, 1):
        line = raw.split('#', 1)[0].strip()
        if not line:
            continue
        where = f"{path}:{lineno}"
        low = line.lower()
        if low.startswith("nodename="):
            kv = _pairs(line, where)
            if kv["nodename"].upper() == "DEFAULT":
                continue
            gtype, gpus = "", 0
            for g in kv.get("gres", "").split(','):
                f = g.split(':')
                if f[0] != "gpu":
                    continue
                if len(f) == 3:
                    gtype, cnt = f[1], f[2]
                elif len(f) == 2:
                    cnt = f[1]
                else:
                    raise ConfError(f"{where}: cannot read Gres '{g}'")
                cnt = cnt.split('(')[0]
                if not cnt.isdigit():
                    raise ConfError(f"{where}: bad GPU count in Gres '{g}'")
                gpus += int(cnt)
            for n in hostlist_expand(kv["nodename"], where):
                if n not in cl.nodes:
                    cl.node_order.append(n)
                cl.nodes[n] = (gtype, gpus)
        elif low.startswith("partitionname="):
            kv = _pairs(line, where)
            if kv["partitionname"].upper() == "DEFAULT":
                continue
            nodes = kv.get("nodes", "")
            if nodes.upper() == "ALL":
                members = list(cl.node_order)
            else:
                members = hostlist_expand(nodes, where) if nodes else []
            for n in members:
                if n not in cl.nodes:
                    raise ConfError(f"{where}: partition {kv['partitionname']} names unknown node {n}")
            cl.partitions.append({
                "name": kv["partitionname"],
                "nodes": members,
                "max_time_s": parse_time_s(kv.get("maxtime", "UNLIMITED"), where),
                "default": kv.get("default", "NO").upper() == "YES",
            })
    if not any(g for _, g in cl.nodes.values()):
        raise ConfError(f"{path}: no node with Gres=gpu")
    if not cl.partitions:
        raise ConfError(f"{path}: no PartitionName line")
    return cl
