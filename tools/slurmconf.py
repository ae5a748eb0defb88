# slurmconf.py: what the Python tools parse, in one module (Python 3 stdlib
# only): Slurm's time strings and hostlists, sizes, Gres= values, Key=Value
# lines, the parts of a Slurm 22.05 slurm.conf the trace tools need (GPU nodes
# by type, partitions) and of nodeox.conf (GPU types' speeds, groups and the
# MinSpeed rule: which types a request may move to).
#
# Used by tools/gen-trace, gen-cluster, trace-check and replay-helper. The
# rules are those of the C readers, which stay the reference: time strings as
# common/slurm_time.h, hostlists as common/hostlist.c, sizes as
# common/util.c (nodeox_util_parse_size_mb), MinSpeed as policy/policy_decide.c
# (decide_exclude); tests/traces/test_slurmconf.sh holds them to the same
# cases. Anything it cannot read is a ConfError naming file:line. The
# simulator has its own, complete slurm.conf reader in C.

import re


class ConfError(Exception):
    """A parse problem, message already "FILE:LINE: what" (or "WHERE: what")."""


HOSTLIST_MAX_NAME = 255          # common/hostlist.c: HOSTLIST_MAX_NAME - 1
HOSTLIST_MAX_NAMES = 1 << 20


def _hostlist_pattern(p, prefix, out, bad):
    """Expand one comma-free pattern p after prefix into out (common/hostlist.c's
    hostlist_pattern: brackets may repeat, a cartesian product)."""
    open_ = p.find('[')
    if open_ < 0:
        name = prefix + p
        if not name or len(name) > HOSTLIST_MAX_NAME or len(out) >= HOSTLIST_MAX_NAMES:
            bad()
        out.append(name)
        return
    close = p.find(']', open_)
    if close < 0:
        bad()
    head, rest = prefix + p[:open_], p[close + 1:]
    inner = p[open_ + 1:close]
    q = 0
    while q < len(inner):
        e = inner.find(',', q)
        e = len(inner) if e < 0 else e
        rng = inner[q:e]
        lo, dash, hi = rng.partition('-')
        if not 0 < len(lo) <= 18 or not lo.isdigit() or (hi and not hi.isdigit()):
            bad()
        lo_v = int(lo)
        hi_v = int(hi) if dash and hi else (0 if dash else lo_v)
        if hi_v < lo_v or hi_v - lo_v > HOSTLIST_MAX_NAMES:
            bad()
        for v in range(lo_v, hi_v + 1):
            _hostlist_pattern(rest, f"{head}{v:0{len(lo)}d}", out, bad)
        q = e + 1


def hostlist_expand(expr, where="hostlist"):
    """'gpua[01-03],gput7' -> ['gpua01', 'gpua02', 'gpua03', 'gput7'], with
    common/hostlist.c's rules: brackets may appear several times in a name,
    ranges keep their zero padding, commas outside brackets separate names
    (empty ones are skipped), unbalanced brackets are an error."""
    def bad():
        raise ConfError(f"{where}: cannot expand hostlist '{expr}'")
    names, p = [], 0
    while p < len(expr):
        e, depth = p, 0
        while e < len(expr) and (depth > 0 or expr[e] != ','):
            depth += {'[': 1, ']': -1}.get(expr[e], 0)
            e += 1
        if depth != 0:
            bad()
        if e > p:
            _hostlist_pattern(expr[p:e], "", names, bad)
        p = e + 1
    return names


def parse_time(value, bare_unit, where):
    """A Slurm time string -> seconds, None for no limit (common/slurm_time.h's
    slurm_time_parse): [D-]HH:MM:SS, D-HH, D-HH:MM, MM:SS, a bare number in
    units of bare_unit seconds (1 in a trace, 60 in slurm.conf and sacct),
    UNLIMITED, INFINITE, Partition_Limit or '' for no limit. Minutes and
    seconds after a colon must be below 60; no spaces."""
    if value == "" or value.upper() in ("UNLIMITED", "INFINITE", "PARTITION_LIMIT"):
        return None
    m = re.fullmatch(r'(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?', value)
    if not m or any(g is not None and int(g) > 100000000 for g in m.groups()):
        raise ConfError(f"{where}: bad time '{value}'")
    d, a, b, c = (None if g is None else int(g) for g in m.groups())
    if (d is not None or c is not None) and ((b or 0) > 59 or (c or 0) > 59):
        raise ConfError(f"{where}: bad time '{value}'")
    if d is not None:      # D-HH, D-HH:MM, D-HH:MM:SS
        return d * 86400 + a * 3600 + (b or 0) * 60 + (c or 0)
    if c is not None:      # HH:MM:SS
        return a * 3600 + b * 60 + c
    if b is not None:      # MM:SS
        if b > 59:
            raise ConfError(f"{where}: bad time '{value}'")
        return a * 60 + b
    return a * bare_unit


def parse_size_mb(value, where):
    """A size as common/util.c reads it (nodeox_util_parse_size_mb): a bare
    number is MB, M/G/T suffixes, an optional B after the suffix."""
    m = re.fullmatch(r'(\d+)(?:([MGTmgt])[Bb]?)?', value)
    if not m:
        raise ConfError(f"{where}: bad size '{value}'")
    return int(m.group(1)) * {None: 1, "M": 1, "G": 1024, "T": 1024 * 1024}[
        m.group(2) and m.group(2).upper()]


def gres_gpus(value, where):
    """Gres=gpu:a100:4(S:0-1),nic:1 -> [('a100', 4)]: the gpu entries in
    order, type '' where untyped; other GRES are left out."""
    out = []
    for g in re.split(r',(?![^(]*\))', value):     # not the commas of "(S:0,1)"
        f = g.split('(')[0].split(':')
        if f[0] != "gpu":
            continue
        if len(f) not in (2, 3):
            raise ConfError(f"{where}: cannot read Gres '{g}'")
        cnt = f[-1]
        if not cnt.isdigit():
            raise ConfError(f"{where}: bad GPU count in Gres '{g}'")
        out.append((f[1] if len(f) == 3 else "", int(cnt)))
    return out


def conf_lines(path):
    """(line number, line) of a Slurm-style file, comments and blank lines
    left out; OSError as ConfError."""
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().split('\n')
    except OSError as e:
        raise ConfError(f"{path}: {e.strerror}")
    for n, raw in enumerate(lines, 1):
        line = raw.split('#', 1)[0].strip()
        if line:
            yield n, line


def kv_line(line):
    """'GpuType=a100 Speed=2' -> {'gputype': 'a100', 'speed': '2'} (keys
    lowercased; a token without '=' gets '')."""
    return {k.lower(): v for k, _, v in (t.partition('=') for t in line.split())}


def _pairs(line, where):
    for tok in line.split():
        if '=' not in tok:
            raise ConfError(f"{where}: expected Key=Value, got '{tok}'")
    return kv_line(line)


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
    for lineno, line in conf_lines(path):
        where = f"{path}:{lineno}"
        low = line.lower()
        if low.startswith("nodename="):
            kv = _pairs(line, where)
            if kv["nodename"].upper() == "DEFAULT":
                continue
            gtype, gpus = "", 0
            for t, n in gres_gpus(kv.get("gres", ""), where):
                gtype, gpus = t or gtype, gpus + n
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
                "max_time_s": parse_time(kv.get("maxtime", "UNLIMITED"), 60, where),
                "default": kv.get("default", "NO").upper() == "YES",
            })
    if not any(g for _, g in cl.nodes.values()):
        raise ConfError(f"{path}: no node with Gres=gpu")
    if not cl.partitions:
        raise ConfError(f"{path}: no PartitionName line")
    return cl


class NodeoxConf:
    """nodeox.conf as the tools need it: speeds (GPU type -> Speed=, 1.0
    where not given, in file order), groups (lists of types), min_speed."""

    def __init__(self):
        self.speeds = {}
        self.groups = []
        self.min_speed = 0.0

    def moves(self):
        """{type: set(types a request for it may move to)}: its group mates
        that MinSpeed leaves (policy/policy_decide.c, decide_exclude: a type
        slower than MinSpeed times the asked type's speed is left out)."""
        out = {}
        for g in self.groups:
            for t in g:
                for u in g:
                    if u == t:
                        continue
                    if self.min_speed > 0 and \
                            self.speeds.get(u, 1.0) < self.min_speed * self.speeds.get(t, 1.0):
                        continue
                    out.setdefault(t, set()).add(u)
        return out


def read_nodeox_conf(path):
    """The GpuType= (Speed=), Group= (Types=) and MinSpeed= settings of the
    nodeox.conf at path; ConfError naming FILE:LINE for a bad number."""
    nc = NodeoxConf()
    for lineno, line in conf_lines(path):
        kv = kv_line(line)
        try:
            if "gputype" in kv:
                nc.speeds[kv["gputype"]] = float(kv.get("speed", "1"))
            elif "group" in kv:
                nc.groups.append([t for t in kv.get("types", "").split(",") if t])
            if "minspeed" in kv:
                nc.min_speed = float(kv["minspeed"])
        except ValueError:
            raise ConfError(f"{path}:{lineno}: bad number")
    return nc
