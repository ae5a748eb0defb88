#!/bin/sh
# gen_trace.sh: tools/gen-trace is deterministic and its documented command
# reproduces the committed traces/week.csv byte for byte; the week has the
# properties doc/traces.md promises (the article's situation included).
set -u
src=${top_srcdir:?run from make check}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nodeox-gen-trace.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
gen="python3 $src/tools/gen-trace"

# 1. the documented command (doc/traces.md) regenerates the committed week
$gen --cluster "$src/traces/cluster" --days 7 --load 0.8 --seed 1 -o "$tmp/week.csv" -q \
	|| fail "gen-trace exited $?"
cmp "$tmp/week.csv" "$src/traces/week.csv" || fail "traces/week.csv differs from a regeneration"

# 2. same seed, same bytes; other seed, other trace
$gen --cluster "$src/traces/cluster" --jobs 600 --days 2 --seed 5 -q -o "$tmp/a.csv" || fail "seed 5"
$gen --cluster "$src/traces/cluster" --jobs 600 --days 2 --seed 5 -q > "$tmp/b.csv" || fail "seed 5 stdout"
cmp "$tmp/a.csv" "$tmp/b.csv" || fail "two runs with seed 5 differ"
$gen --cluster "$src/traces/cluster" --jobs 600 --days 2 --seed 6 -q -o "$tmp/c.csv" || fail "seed 6"
cmp -s "$tmp/a.csv" "$tmp/c.csv" && fail "seeds 5 and 6 gave the same trace"
[ "$(wc -l < "$tmp/a.csv")" -eq 601 ] || fail "--jobs 600 did not give 600 rows"

# options change what they say: no untyped jobs, no tags
$gen --cluster "$src/traces/cluster" --days 1 --untyped 0 --flex 0 --seed 3 -q -o "$tmp/d.csv" \
	|| fail "--untyped 0 --flex 0"
grep -q "nodeox:flex" "$tmp/d.csv" && fail "--flex 0 still tagged jobs"
awk -F, 'NR > 1 && $7 == "" { bad = 1 } END { exit bad }' "$tmp/d.csv" || fail "--untyped 0 left untyped jobs"

# 3. properties of the week
python3 - "$src/traces/week.csv" <<'PY' || fail "week.csv properties"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def lim(s):
    d, _, hms = s.rpartition("-")
    h, m, sec = map(int, hms.split(":"))
    return int(d or 0) * 86400 + h * 3600 + m * 60 + sec
n = len(rows)
bad = [r["job_id"] for r in rows if int(r["run_time"]) > lim(r["time_limit"])]
assert not bad, f"run_time above time_limit: jobs {bad[:5]}"
assert all(int(a["submit"]) <= int(b["submit"]) for a, b in zip(rows, rows[1:])), "not in submit order"
assert [int(r["job_id"]) for r in rows] == list(range(1, n + 1)), "job ids not 1..n"
assert 0 <= int(rows[0]["submit"]) and int(rows[-1]["submit"]) < 7 * 86400, "outside the week"
one = sum(r["gpus"] == "1" for r in rows) / n
multi = sum(int(r["nodes"]) > 1 for r in rows)
flex = sum("nodeox:flex" in r["comment"] for r in rows) / n
types = {r["gpu_type"] for r in rows}
a100 = sum(r["gpu_type"] == "a100" for r in rows)
print(f"{n} jobs, 1-GPU {one:.2f}, multi-node {multi}, flex {flex:.2f}, types {sorted(types)}")
assert 2000 <= n <= 6000, "not a few thousand jobs"
assert 0.5 < one < 0.9, "1-GPU share off the Philly shape"
assert multi > 0, "no multi-node jobs"
assert 0.2 < flex < 0.4, "flex share far from 30%"
assert {"a100", "h100", "v100", "l40s", "t4", ""} <= types, "missing GPU types / untyped jobs"
assert max(types - {""}, key=lambda t: sum(r["gpu_type"] == t for r in rows)) == "a100", "a100 not the most asked type"
assert not any("nodeox:flex" in r["comment"] and not r["gpu_type"] for r in rows), "untyped job tagged"
PY

# class-speeds (a speed table, nodeox.conf(5)) speaks of classes the
# generator writes and types the cluster has
python3 - "$src/traces/class-speeds" "$src/traces/week.csv" "$src/traces/cluster/nodeox.conf" <<'PY' || fail "class-speeds"
import csv, re, sys
classes = {r["class"] for r in csv.DictReader(open(sys.argv[2]))}
types = set(re.findall(r"^GpuType=(\S+)", open(sys.argv[3]).read(), re.M))
lines = [l.split("#")[0].split() for l in open(sys.argv[1])]
lines = [w for w in lines if w]
assert lines[0][:2] == ["nodeox-speeds", "v=1"], "no v=1 header"
rows = lines[1:]
assert rows, "no rows"
for scope, c, asked, run, v, jobs, spread in rows:
    assert scope == "workload", f"scope {scope}"
    assert c in classes, f"class {c} not in the week"
    assert asked in types and run in types, f"type {asked} or {run} not in nodeox.conf"
    assert float(v) > 0, f"speed {v}"
PY

# 4. the article's situation occurs in the week (simple greedy replay)
python3 "$src/tools/trace-check" --cluster "$src/traces/cluster" \
	--expect-wrong-type-idle 0.2 "$src/traces/week.csv" || fail "trace-check"

# 5. bad input is refused with a message naming what is wrong
if $gen --cluster "$tmp/nowhere" -q -o "$tmp/x.csv" 2> "$tmp/err"; then fail "missing cluster accepted"; fi
grep -q "nowhere/slurm.conf" "$tmp/err" || fail "missing cluster: message does not name the file"
if $gen --jobs 0 -q -o "$tmp/x.csv" 2> "$tmp/err"; then fail "--jobs 0 accepted"; fi
grep -q -- "--jobs" "$tmp/err" || fail "--jobs 0: message does not name the option"
if $gen --jobs 10 --days 1 --load 0.5 -q 2> "$tmp/err" > /dev/null; then fail "three of jobs/days/load accepted"; fi
if $gen --bias h200=2 -q 2> "$tmp/err" > /dev/null; then fail "unknown type in --bias accepted"; fi
grep -q "h200" "$tmp/err" || fail "--bias: message does not name the type"
echo "PASS"
