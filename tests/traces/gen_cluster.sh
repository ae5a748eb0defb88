#!/bin/sh
# gen_cluster.sh: tools/gen-cluster writes a cluster of the size asked for
# (the simulator benchmark's 1000 nodes / 8000 GPUs), reproduces the default
# cluster at its own size, and both, plus traces/cluster itself, are accepted
# by Slurm's own parser (`slurmd -G` reads slurm.conf and gres.conf and prints
# the GPUs a node would offer). nodeox.conf names every GPU type with a Feature
# the nodes carry. Without slurmd (or munged for 23.11+, or a cgroup
# filesystem for 22.05) it is a skip, exit 77.
set -u
src=${top_srcdir:?run from make check}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nodeox-gen-cluster.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; [ -f "$tmp/err" ] && cat "$tmp/err"; exit 1; }
gc="python3 $src/tools/gen-cluster"

# 1. 1000 nodes x 8 GPUs; same again gives the same bytes
$gc --nodes 1000 --gpus-per-node 8 -o "$tmp/big" 2> "$tmp/err" || fail "gen-cluster exited $?"
$gc --nodes 1000 --gpus-per-node 8 -o "$tmp/big2" 2> /dev/null || fail "second run"
for f in slurm.conf gres.conf nodeox.conf; do
	cmp "$tmp/big/$f" "$tmp/big2/$f" || fail "$f differs between two runs"
done

# 2. counts, partitions, features vs nodeox.conf (read with the tools' own reader)
python3 - "$src/tools" "$tmp/big" "$src/traces/cluster" <<'PY' || fail "cluster contents"
import sys, re
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import slurmconf
for d, nodes, gpus in ((sys.argv[2], 1000, 8000), (sys.argv[3], 44, 280)):
    cl = slurmconf.read(d + "/slurm.conf")
    gp = [g for _, g in cl.nodes.values()]
    assert len(gp) == nodes, f"{d}: {len(gp)} nodes, want {nodes}"
    assert sum(gp) == gpus, f"{d}: {sum(gp)} GPUs, want {gpus}"
    types = set(cl.types())
    assert len(types) >= 4, f"{d}: only {types}"
    assert cl.default_partition()["name"] == "gpu"
    assert set(cl.default_partition()["nodes"]) == set(cl.nodes), "default partition is not all nodes"
    conf = open(d + "/slurm.conf").read()
    policy = open(d + "/nodeox.conf").read()
    ptypes = dict(re.findall(r"^GpuType=(\S+)\s+Feature=(\S+)", policy, re.M))
    assert types == set(ptypes), f"{d}: nodeox.conf types {set(ptypes)} vs nodes {types}"
    for line in conf.splitlines():
        m = re.match(r"NodeName=\S+ .*Gres=gpu:(\w+):\d+ .*Feature=(\S+)", line)
        if m:
            assert ptypes[m.group(1)] in m.group(2).split(","), f"{d}: feature missing: {line}"
    print(f"{d}: {nodes} nodes, {gpus} GPUs, types {sorted(types)}")
PY

# 3. at the template's size, the template comes back (comments aside)
$gc --nodes 44 -o "$tmp/same" 2> /dev/null || fail "gen-cluster --nodes 44"
for f in slurm.conf gres.conf; do
	grep -v '^#' "$tmp/same/$f" | grep -v '^$' > "$tmp/a"
	grep -v '^#' "$src/traces/cluster/$f" | grep -v '^$' > "$tmp/b"
	cmp "$tmp/a" "$tmp/b" || fail "--nodes 44 does not reproduce traces/cluster/$f"
done

# 4. bad arguments
if $gc --nodes 3 -o "$tmp/x" 2> "$tmp/err"; then fail "--nodes 3 accepted"; fi
grep -q "at least 5" "$tmp/err" || fail "--nodes 3 message"
if $gc --nodes 10 --from "$tmp/none" -o "$tmp/x" 2> "$tmp/err"; then fail "missing template accepted"; fi
grep -q "none/slurm.conf" "$tmp/err" || fail "missing template message"

# 5. Slurm's parser accepts both clusters (slurmd -G prints each node's GRES)
# Where it cannot run, the test is a skip (exit 77), not a pass: checks 1-4
# held, but the one that needs Slurm did not run. NODEOX_SLURMD names the
# slurmd to use ("" for none: how tests/traces/gen_cluster_skip.sh checks this).
skip() { echo "SKIP: checks 1-4 passed; $*"; exit 77; }
slurmd=${NODEOX_SLURMD-$(command -v slurmd || ls /usr/sbin/slurmd 2>/dev/null)}
[ -n "$slurmd" ] && [ -x "$slurmd" ] || skip "slurmd not found: Slurm's own parse check did not run"
# Slurm 23.11+ (tested: 24.11): slurmd -G sets up authentication first, so it
# gets a private munged, and is told CgroupPlugin=disabled (it needs no cgroup
# filesystem then); 22.05 needs neither munged nor cgroup.conf, but a cgroup
# filesystem.
vnum=$("$slurmd" -V 2>/dev/null | awk '{ split($2, v, "."); print v[1] * 100 + v[2]; exit }')
munged_pid=
if [ "${vnum:-0}" -ge 2311 ]; then
	munged=$(command -v munged || ls /usr/sbin/munged 2>/dev/null)
	[ -n "$munged" ] || skip "munged not found, which slurmd -G $vnum needs: Slurm's own parse check did not run"
	dd if=/dev/urandom of="$tmp/munge.key" bs=1024 count=1 2>/dev/null; chmod 600 "$tmp/munge.key"
	"$munged" -F --force --socket="$tmp/munge.sock" --key-file="$tmp/munge.key" \
		--pid-file="$tmp/munged.pid" --log-file="$tmp/munged.log" --seed-file="$tmp/munged.seed" \
		</dev/null >/dev/null 2>&1 &
	munged_pid=$!
	trap 'kill "$munged_pid" 2>/dev/null; wait "$munged_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
	i=0; while [ $i -lt 50 ] && [ ! -S "$tmp/munge.sock" ]; do sleep 0.1; i=$((i + 1)); done
elif [ -z "$(ls -A /sys/fs/cgroup 2>/dev/null)" ]; then
	skip "no cgroup filesystem, which slurmd 22.05 needs: Slurm's own parse check did not run"
fi
slurm_check() {   # $1 = cluster dir, $2 = node, $3 = type, $4 = GPUs
	d="$tmp/chk"; rm -rf "$d"; mkdir -p "$d/dev" "$d/spool" "$d/log"
	i=0
	while [ $i -lt 64 ]; do
		mknod "$d/dev/nvidia$i" c 1 3 2>/dev/null || : > "$d/dev/nvidia$i"; i=$((i + 1))
	done
	sed -e "s#/dev/#$d/dev/#" "$1/gres.conf" > "$d/gres.conf"
	# this machine has fewer cores than the nodes: let slurmd believe the file
	sed -e "s#/var/lib/slurm#$d/spool#; s#/var/log/slurm#$d/log#; s#/run/#$d/#" "$1/slurm.conf" > "$d/slurm.conf"
	echo "SlurmdParameters=config_overrides" >> "$d/slurm.conf"
	if [ -n "$munged_pid" ]; then
		echo "AuthInfo=socket=$tmp/munge.sock" >> "$d/slurm.conf"
		echo "CgroupPlugin=disabled" > "$d/cgroup.conf"
	fi
	timeout 30 "$slurmd" -N "$2" -G -f "$d/slurm.conf" > "$d/out" 2>&1 || {
		cat "$d/out"; fail "slurmd -G rejected $1 (node $2)"; }
	if grep -E "fatal|Parse error|Invalid GRES|unrecognized key" "$d/out"; then fail "slurmd -G: errors for $1"; fi
	n=$(sed -n "s/.*Gres Name=gpu Type=$3 Count=\([0-9]*\).*/\1/p" "$d/out" | awk '{s += $1} END {print s + 0}')
	[ "$n" -eq "$4" ] || { cat "$d/out"; fail "slurmd -G: node $2 offers $n GPUs of type $3, want $4"; }
}
slurm_check "$src/traces/cluster" gpua01 a100 8
slurm_check "$src/traces/cluster" gpul10 l40s 4
slurm_check "$src/traces/cluster" gput03 t4 4
slurm_check "$tmp/big" gpuh091 h100 8
slurm_check "$tmp/big" gput182 t4 8
echo "PASS"
