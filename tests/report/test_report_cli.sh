#!/bin/sh
# test_report_cli.sh: `nodeox report` on real files: tests/report/data/history.txt
# (a sacct -P -D history with a requeued job, broadened, kept and untagged
# jobs, a foreign AdminComment, a bad time and a line cut short) gives every
# figure that sacct_figures.awk computes again from the same file; the
# Prometheus file passes `promtool check metrics`; bad input is named by line
# and column and the rest reported; a period with no tagged job says so;
# another release's columns (an unknown one, Comment missing) still read;
# the counterfactual carries nodeox-sim's own figures (tagged, untagged and
# all jobs, the untagged ones checked by hand too); a trace the importer
# wrote reads as the sacct output it came from.
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
# 6. the counterfactual: nodeox-sim on the same jobs (the article's cluster),
# 4 replicas; its figures are nodeox-sim's own on the importer's trace of the
# same history, what happened is the report's, and each verdict follows from
# the ranges
cf_sim="$bld/sim/nodeox-sim"
NODEOX_SIM=$cf_sim "$nodeox" report --cluster "$src/tests/sim/data/article" --replicas 4 --json "$tmp/cf.json" \
	--plot "$tmp/cf.svg" --prometheus "$tmp/cf.prom" "$hist" > "$tmp/out.txt" 2> "$tmp/err" || fail "counterfactual run"
if command -v promtool > /dev/null; then
	promtool check metrics < "$tmp/cf.prom" > "$tmp/err" 2>&1 || fail "promtool on the counterfactual's metrics"
fi
# each metric's lines in one group (the exposition format asks it; promtool does not check it)
[ -z "$(awk '!/^#/ {sub(/[{ ].*/, ""); print}' "$tmp/cf.prom" | uniq | sort | uniq -d)" ] ||
	fail "a metric's samples split in two groups"
grep -q '^nodeox_report_cf_seconds{group="tagged",figure="turnaround_mean_s",run="happened",stat="value"} 3140$' \
	"$tmp/cf.prom" || fail "Prometheus: the tagged jobs' mean turnaround as happened"
# the untagged jobs (104, 105, 106 requeued, 108): (2400 + 1260 + 2420 + 660) / 4
grep -q '^nodeox_report_cf_seconds{group="untagged",figure="turnaround_mean_s",run="happened",stat="value"} 1685$' \
	"$tmp/cf.prom" || fail "Prometheus: the untagged jobs' mean turnaround as happened"
for g in tagged untagged all; do
	grep -q "^nodeox_report_cf_effect{group=\"$g\",figure=\"wait_mean_s\"," "$tmp/cf.prom" ||
		fail "Prometheus: no plugin effect for the $g group"
done
# --plot: each of the 4 groups' wait and turnaround, happened against the model on and off
for t in "happened" "model, plugin on" "model, plugin off"; do
	[ "$(grep -c "<text>$t</text>" "$tmp/cf.svg")" = 8 ] || fail "--plot: 8 curves '$t'"
done
grep -q "broadened: turnaround" "$tmp/cf.svg" || fail "--plot: group titles"
grep -q "^Counterfactual: nodeox-sim on the same jobs as submitted, 4 replicas" "$tmp/out.txt" || fail "cf table"
sed -n '/^Counterfactual:/,$p' "$tmp/out.txt" | sed -n '/^untagged /,/ jobs: /p' > "$tmp/cf-untagged.txt"
grep -q "^ *turnaround_mean_s  *1685.0 " "$tmp/cf-untagged.txt" || fail "cf table: the untagged jobs' turnaround"
grep -q "^ *jobs: 4 happened, [0-9]* replayed$" "$tmp/cf-untagged.txt" || fail "cf table: the untagged jobs' count"
"$bld/sim/nodeox-sacct-import" -q -k -o "$tmp/cf-trace.csv" "$hist" 2> /dev/null || fail "import for the cf"
"$cf_sim" -q --cluster "$src/tests/sim/data/article" --replicas 4 --json "$tmp/sim.json" "$tmp/cf-trace.csv" ||
	fail "nodeox-sim on the imported trace"
python3 - "$tmp/cf.json" "$tmp/sim.json" << 'PY' || fail "counterfactual figures"
import json, sys
r = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))
cf = r["counterfactual"]; assert cf["replicas"] == 4, cf
g = r["groups"]
assert cf["groups"]["tagged"]["jobs"] == g["broadened"]["jobs"] + g["kept"]["jobs"] + g["record_lost"]["jobs"]
assert cf["groups"]["all"]["jobs"] == r["jobs"]
# the untagged group: the history's untagged jobs, nodeox-sim's "untagged"
u = cf["groups"]["untagged"]
assert u["jobs"] == g["untagged"]["jobs"] == 4, u["jobs"]
assert u["jobs"] + cf["groups"]["tagged"]["jobs"] == cf["groups"]["all"]["jobs"]
assert u["replayed_jobs"] + cf["groups"]["tagged"]["replayed_jobs"] == cf["groups"]["all"]["replayed_jobs"]
assert abs(u["turnaround_mean_s"]["actual"] - g["untagged"]["turnaround"]["mean"]) < 1e-3
assert abs(u["turnaround_mean_s"]["actual"] - (2400 + 1260 + 2420 + 660) / 4) < 1e-3
assert abs(u["wait_mean_s"]["actual"] - g["untagged"]["wait"]["mean"]) < 1e-3
for name, sg in (("tagged", "flex"), ("untagged", "untagged"), ("all", "all")):
    c = cf["groups"][name]
    assert c["replayed_jobs"] == s["nodeox"][sg]["jobs"], (name, c["replayed_jobs"])
    for key, v in c.items():
        if not isinstance(v, dict):
            continue
        for side, run in (("on", "nodeox"), ("off", "baseline")):
            for k, suffix in (("median", ""), ("lo", "_lo"), ("hi", "_hi")):
                assert abs(v[side][k] - s[run][sg][key + suffix]) < 1e-3, (name, key, side, k)
        on, off = v["on"], v["off"]
        want = "sooner" if on["hi"] < off["lo"] else "later" if on["lo"] > off["hi"] else "within noise"
        assert v["plugin"] == want, (name, key, v)
        assert v["model_off"] == (v["actual"] < on["lo"] or v["actual"] > on["hi"]), (name, key, v)
t = cf["groups"]["tagged"]["turnaround_mean_s"]["actual"]
assert abs(t - (3610 + 7230 + 1860 + 1200 + 1800) / 5) < 1e-3, t
print("counterfactual: figures are nodeox-sim's, verdicts follow the ranges")
PY
# a nodeox-sim that cannot run: said, and the rest of the report still made
NODEOX_SIM=/nonexistent/nodeox-sim "$nodeox" report --cluster "$src/tests/sim/data/article" --json "$tmp/x.json" \
	"$hist" > "$tmp/out.txt" 2> "$tmp/err"
[ $? = 1 ] || fail "a missing nodeox-sim: exit status"
grep -q "counterfactual not made: /nonexistent/nodeox-sim exited with status 127" "$tmp/err" || fail "missing sim message"
grep -q '"counterfactual": null' "$tmp/x.json" || fail "JSON without the counterfactual"
# a gnuplot that fails: said, exit 1, the table still printed
GNUPLOT=false "$nodeox" report --plot "$tmp/y.svg" "$hist" > "$tmp/out.txt" 2> "$tmp/err"
[ $? = 1 ] || fail "a failing gnuplot: exit status"
grep -q "^nodeox report: --plot: false exited with status 1" "$tmp/err" || fail "failing gnuplot message"
grep -q "^9 GPU jobs" "$tmp/out.txt" || fail "table without the plot"
# 7. a trace nodeox-sacct-import wrote, as HISTORY: the same figures as from
# sacct's output; the same counterfactual (nodeox-sim replays the file as it is);
# a bad row named by line and column; an older importer's trace refused
"$bld/sim/nodeox-sacct-import" -q -k -o "$tmp/t.csv" "$hist" 2> /dev/null || fail "import"
NODEOX_SIM=$cf_sim "$nodeox" report --cluster "$src/tests/sim/data/article" --replicas 4 --json "$tmp/t.json" \
	"$tmp/t.csv" > /dev/null 2> "$tmp/err" || fail "report on a trace"
python3 - "$tmp/t.json" "$tmp/cf.json" << 'PY' || fail "trace and sacct output give other figures"
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
for k in ("jobs", "requeues_merged", "groups", "states", "use", "idle_gpu_hours", "counterfactual"):
    assert a[k] == b[k], k
PY
awk -F, 'BEGIN{OFS=","} NR==3{$21="x7"} {print}' "$tmp/t.csv" > "$tmp/bad.csv"
"$nodeox" report "$tmp/bad.csv" > "$tmp/out.txt" 2> "$tmp/err" || fail "report on a trace with a bad row"
grep -q "bad.csv:3: column wait: 'x7' is not a whole number" "$tmp/err" || fail "bad trace row not named"
grep -q "^8 GPU jobs (.*1 malformed lines)" "$tmp/out.txt" || fail "the rest of the trace reported"
cut -d, -f1-19 "$tmp/t.csv" > "$tmp/old.csv"
if "$nodeox" report "$tmp/old.csv" > /dev/null 2> "$tmp/err"; then fail "an older trace accepted"; fi
grep -q "old.csv:1: no alloc_gpus column: not a trace of this nodeox-sacct-import" "$tmp/err" ||
	fail "older trace message"
if "$bld/sim/nodeox-sacct-import" "$tmp/t.csv" > /dev/null 2> "$tmp/err"; then fail "importer took a trace"; fi
grep -q "a trace already" "$tmp/err" || fail "importer's message on a trace"
echo "PASS"
