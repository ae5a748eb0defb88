#!/bin/sh
# tests/traces/test_slurmconf.sh: tools/slurmconf.py, the one module the
# Python tools parse with, keeps the C readers' rules: the time strings and
# refusals of tests/sim/test_slurm_time.c (common/slurm_time.h), the hostlists
# of tests/sim/test_cluster.c (common/hostlist.c), sizes as common/util.c reads
# them, Gres= entries, and MinSpeed as policy/policy_decide.c applies it (a
# group mate slower than MinSpeed times the asked type's speed is left out).
set -eu
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_slurmconf.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cat > "$tmp/nodeox.conf" <<'CONF'
MinSpeed=0.5   # no type under half the asked one's speed
GpuType=h100 Speed=2.0
GpuType=a100 Speed=1.0
GpuType=t4 Speed=0.4
GpuType=l40s
Group=all Types=h100,a100,t4,l40s
CONF
PYTHONDONTWRITEBYTECODE=1 python3 - "$top_srcdir/tools" "$tmp/nodeox.conf" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import slurmconf as s

bad = 0
def check(what, got, want):
    global bad
    print(("ok   " if got == want else "FAIL ") + what + ("" if got == want else f": got {got!r}, expected {want!r}"))
    bad += got != want

def refused(fn, *args):
    try:
        fn(*args)
    except s.ConfError:
        return True
    return False

# common/slurm_time.h (tests/sim/test_slurm_time.c's cases)
for text, unit, want in [("1-02:03:04", 1, 86400 + 7384), ("2-03", 1, 2 * 86400 + 3 * 3600),
                         ("2-03:04", 1, 2 * 86400 + 3 * 3600 + 240), ("02:03:04", 1, 7384),
                         ("03:04", 1, 184), ("90", 1, 90), ("90", 60, 5400), ("0", 60, 0),
                         ("UNLIMITED", 60, None), ("infinite", 1, None),
                         ("Partition_Limit", 60, None), ("", 60, None)]:
    check(f"time {text!r} (bare unit {unit})", s.parse_time(text, unit, "t"), want)
for text in ["1:60", "1:00:60", "1-2-3", "1:2:3:4", "a", "-5", "5-", "1:", ":1", " 5", "5 ",
             "999999999", "1-00:60"]:
    check(f"time {text!r} refused", refused(s.parse_time, text, 60, "t"), True)

# common/hostlist.c (tests/sim/test_cluster.c's cases)
for expr, want in [("a[01-03,7],b1", "a01 a02 a03 a7 b1"),
                   ("r[1-2]n[09-10]", "r1n09 r1n10 r2n09 r2n10"),
                   ("/dev/nvidia[0-3]", "/dev/nvidia0 /dev/nvidia1 /dev/nvidia2 /dev/nvidia3"),
                   ("x", "x"), ("a,,b", "a b")]:
    check(f"hostlist {expr!r}", " ".join(s.hostlist_expand(expr)), want)
for expr in ["a[1-", "a[3-1]", "a[x]", "a]", "a[1,,2]"]:
    check(f"hostlist {expr!r} refused", refused(s.hostlist_expand, expr), True)

# common/util.c's sizes, Gres= entries
for text, want in [("1000", 1000), ("40G", 40960), ("40GB", 40960), ("2t", 2097152), ("512M", 512)]:
    check(f"size {text!r}", s.parse_size_mb(text, "t"), want)
for text in ["40B", "G", "4 G", "-1", "4X"]:
    check(f"size {text!r} refused", refused(s.parse_size_mb, text, "t"), True)
check("gres", s.gres_gpus("nic:1,gpu:a100:4(S:0-1),gpu:2", "t"), [("a100", 4), ("", 2)])
check("gres refused", refused(s.gres_gpus, "gpu:a100:x", "t"), True)

# nodeox.conf: speeds, and MinSpeed (policy/policy_decide.c, decide_exclude)
nc = s.read_nodeox_conf(sys.argv[2])
check("speeds", nc.speeds, {"h100": 2.0, "a100": 1.0, "t4": 0.4, "l40s": 1.0})
check("MinSpeed", nc.min_speed, 0.5)
moves = nc.moves()
check("a100 may move to", moves["a100"], {"h100", "l40s"})   # t4: 0.4 < 0.5 x 1.0
check("h100 may move to", moves.get("h100", set()), {"a100", "l40s"})   # 1.0 >= 0.5 x 2.0
check("t4 may move to", moves["t4"], {"h100", "a100", "l40s"})
nc.min_speed = 0
check("no MinSpeed: every mate", nc.moves()["a100"], {"h100", "t4", "l40s"})
sys.exit(1 if bad else 0)
PY
