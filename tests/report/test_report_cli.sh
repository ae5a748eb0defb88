#!/bin/sh
# test_report_cli.sh: `nodeox report` on real files: tests/report/data/history.txt
# (a sacct -P -D history with a requeued job, broadened, kept and untagged
# jobs, a foreign AdminComment, a bad time and a line cut short) gives every
# figure that sacct_figures.awk computes again from the same file; the
# Prometheus file passes `promtool check metrics`; bad input is named by line
# and column and the rest reported; a period with no tagged job says so;
# another release's columns (an unknown one, Comment missing) still read.
set -u
src=${top_srcdir:?run from make check}
bld=${top_builddir:?run from make check}
nodeox="$bld/cli/nodeox"
[ -x "$nodeox" ] || { echo "SKIP: $nodeox not built (no libslurm)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nodeox-report.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; [ -f "$tmp/err" ] && cat "$tmp/err"; exit 1; }
TZ=UTC
export TZ
hist="$src/tests/report/data/history.txt"
figs() { awk -f "$src/tests/report/sacct_figures.awk" "$1" > "$tmp/figs.txt" &&
	python3 "$src/tests/report/compare_figures.py" "$tmp/figs.txt" "$2"; }

# 1. every figure against the awk reading of the same file; bad lines named
"$nodeox" report --price a100=2.5,l40s=1 --json "$tmp/r.json" --prometheus "$tmp/r.prom" "$hist" \
	> "$tmp/out.txt" 2> "$tmp/err" || fail "report exited $?"
grep -q "history.txt:13: field Start: '2026-11-02T08:09:0x' is not a time" "$tmp/err" || fail "bad time not named"
grep -q "history.txt:14: 9 fields, the header has 14: column 10 (first known: AllocTRES) and after it missing" \
	"$tmp/err" || fail "line cut short not named"
grep -q "^9 GPU jobs (.*2 malformed lines)" "$tmp/out.txt" || fail "job count"
figs "$hist" "$tmp/r.json" || fail "figures differ from sacct's rows"
grep -q "Record lost: 1 tagged jobs .*: 107" "$tmp/out.txt" || fail "foreign record not named"
grep -q "^  l40s .* 6.333 .* 6.33$" "$tmp/out.txt" || fail "l40s GPU-hours and cost"
grep -q "^  a100 .* 3.350 .* 8.38$" "$tmp/out.txt" || fail "a100 GPU-hours and cost (3.35 h x 2.5)"
grep -q "ran 5.000 GPU-hours on types other than the one asked" "$tmp/out.txt" || fail "idle capacity"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert set(d["groups"]) >= {"broadened","kept","untagged"}
assert d["requeues_merged"] == 1 and d["groups"]["record_lost"]["job_ids"] == ["107"]
assert abs(sum(u["cost"] for u in d["use"]) - (6.3333333 + 3.35 * 2.5)) < 1e-3' "$tmp/r.json" || fail "JSON"
if command -v promtool > /dev/null; then
	promtool check metrics < "$tmp/r.prom" > "$tmp/err" 2>&1 || fail "promtool check metrics"
else
	echo "note: promtool not found (Debian package prometheus): the exposition format not checked"
fi
grep -q '^nodeox_report_gpu_seconds{group="broadened",asked="a100",ran="l40s",account="nlp",partition="gpu"} 14400$' \
	"$tmp/r.prom" || fail "Prometheus: broadened a100 job on l40s"
grep -q '^nodeox_report_state_jobs{asked="a100",ran="l40s",state="TIMEOUT"} 1$' "$tmp/r.prom" || fail "Prometheus: state"

# 2. the kept job's reason from the policy
"$nodeox" report --policy "$src/tests/sim/data/article/nodeox.conf" "$hist" > "$tmp/out.txt" 2> /dev/null ||
	fail "--policy"
grep -q "^ *1  not broadened: no type eligible beyond a100 (l40s too little memory)" "$tmp/out.txt" ||
	fail "kept job's reason"

# 3. no tagged job in the period
grep -v 'nodeox' "$hist" > "$tmp/untagged.txt"
"$nodeox" report --json "$tmp/u.json" "$tmp/untagged.txt" > "$tmp/out.txt" 2> /dev/null || fail "untagged period"
grep -q "No tagged job in this period" "$tmp/out.txt" || fail "no-tagged message"
figs "$tmp/untagged.txt" "$tmp/u.json" || fail "untagged period's figures"

# 4. another release's columns: one more (unknown) column, Comment gone
awk -F'|' 'BEGIN{OFS="|"} {c=$13; $13=(NR==1?"QOS":"normal"); print $0, (NR==1?"Extra":"x")}' "$hist" > "$tmp/other.txt"
"$nodeox" report --json "$tmp/o.json" "$tmp/other.txt" > "$tmp/out.txt" 2> "$tmp/err" || fail "other columns"
figs "$tmp/other.txt" "$tmp/o.json" || fail "figures with another release's columns"

# 5. what cannot be read at all: a header without ReqTRES; a bad --price
sed '1s/ReqTRES/ReqTres2/' "$hist" > "$tmp/nohdr.txt"
if "$nodeox" report "$tmp/nohdr.txt" > /dev/null 2> "$tmp/err"; then fail "header without ReqTRES accepted"; fi
grep -q "nohdr.txt:1: no ReqTRES column in the header" "$tmp/err" || fail "header message"
"$nodeox" report --price a100=x "$hist" > /dev/null 2> "$tmp/err"
[ $? = 2 ] || fail "bad --price: exit status"
grep -q "'x' is not a cost" "$tmp/err" || fail "bad --price message"
echo "PASS"
