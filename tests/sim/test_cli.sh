#!/bin/sh
# tests/sim/test_cli.sh: nodeox-sim's command line: usage errors exit 2 naming
# the option, bad input exits 1 naming FILE:LINE and the column, --skip-bad
# counts, --mode baseline needs no nodeox.conf, --json has every key.
set -eu
sim="$top_builddir/sim/nodeox-sim"
data="$top_srcdir/tests/sim/data/small"
out=$(mktemp -d "${TMPDIR:-/tmp}/test_cli.XXXXXX")
trap 'rm -rf "$out"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }

expect() {   # expect STATUS PATTERN ARGS...: exit status and a line of stderr
	want=$1 pat=$2; shift 2
	set +e
	"$sim" "$@" > "$out/stdout" 2> "$out/stderr"
	got=$?
	set -e
	[ "$got" = "$want" ] || fail "nodeox-sim $*: exit $got, want $want ($(cat "$out/stderr"))"
	grep -q -- "$pat" "$out/stderr" || fail "nodeox-sim $*: stderr lacks '$pat': $(cat "$out/stderr")"
}

expect 2 "no trace given" --cluster "$data"
expect 2 "mode=bogus: expected compare, baseline or nodeox" --mode bogus "$data/trace.csv"
expect 2 "flex-fraction must be between 0 and 1" --flex-fraction 1.5 "$data/trace.csv"
expect 2 "round-sync" --round-sync 1 "$data/trace.csv"
expect 1 "$out/none/slurm.conf" --cluster "$out/none" "$data/trace.csv"
expect 1 "bf-window must be at least 1" --cluster "$data" --bf-window 0 "$data/trace.csv"

printf 'submit,gpus,run_time,gpu_type\n0,1,60,a100\n5,many,60,a100\n9,2,zz,v100\n12,1,60,v100\n' \
	> "$out/bad.csv"
expect 1 "$out/bad.csv:3: column gpus: 'many' is not a GPU count" --cluster "$data" "$out/bad.csv"
expect 0 "$out/bad.csv:4: column run_time" --cluster "$data" --skip-bad "$out/bad.csv"
grep -q "2 jobs (0 tagged, 2 bad rows skipped)" "$out/stdout" || fail "skip count missing: $(head -1 "$out/stdout")"

mkdir "$out/nopolicy"
cp "$data/slurm.conf" "$out/nopolicy/"
expect 1 "nopolicy/nodeox.conf" --cluster "$out/nopolicy" "$data/trace.csv"
"$sim" --cluster "$out/nopolicy" --mode baseline --json "$out/b.json" "$data/trace.csv" > "$out/b.txt"
grep -q '"baseline"' "$out/b.json" || fail "baseline JSON lacks baseline"
if grep -q '"nodeox"' "$out/b.json"; then fail "baseline JSON has a nodeox run"; fi

"$sim" --cluster "$data" -q --json "$out/r.json" "$data/trace.csv" > "$out/q.txt"
[ ! -s "$out/q.txt" ] || fail "--quiet printed a table"
for k in baseline nodeox all flex jobs wait_mean_s wait_p50_s wait_p95_s run_mean_s \
	turnaround_mean_s turnaround_p50_s turnaround_p95_s gpu_hours utilization makespan_s; do
	grep -q "\"$k\":" "$out/r.json" || fail "--json lacks \"$k\""
done
n=$(grep -o '"[a-z0-9_]*":' "$out/r.json" | wc -l)
[ "$n" = 46 ] || fail "--json has $n keys, want 46 (2 runs x (run + all + flex + 2 x 9 + utilization + makespan_s))"
echo "PASS: usage and input errors, --skip-bad, baseline without policy, JSON keys"
