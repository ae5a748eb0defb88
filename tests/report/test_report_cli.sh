#!/bin/sh
# test_report_cli.sh: `nodeox report` on real files: tests/report/data/history.txt
# (a sacct -P -D history with a requeued job, broadened, kept and untagged
# jobs, a foreign AdminComment, a bad time and a line cut short) gives every
# figure that sacct_figures.awk computes again from the same file; the
# Prometheus file passes `promtool check metrics`; bad input is named by line
# and column and the rest reported; a period with no tagged job says so;
# another release's columns (an unknown one, Comment missing) still read;
# the counterfactual carries nodeox-sim's own figures per group as
# accounting tells it (broadened, kept, record_lost, untagged: handed to
# nodeox-sim by job, checked against a run with a labels file written by
# hand, so a label ignored or swapped fails) and all jobs, what happened
# checked by hand for broadened, kept and untagged, and with one replica the
# model's figures of broadened and kept computed again from nodeox-sim's own
# per-job rows; a trace the importer wrote reads as the sacct output it came
# from.
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
# what happened, per counterfactual group, against the awk reading of sacct's rows
figs "$hist" "$tmp/cf.json" || fail "the counterfactual's figures as happened differ from sacct's rows"
# each metric's lines in one group (the exposition format asks it; promtool does not check it)
[ -z "$(awk '!/^#/ {sub(/[{ ].*/, ""); print}' "$tmp/cf.prom" | uniq | sort | uniq -d)" ] ||
	fail "a metric's samples split in two groups"
# broadened: 100, 101, 102: (3610 + 7230 + 1860) / 3; kept: 103 alone
grep -q '^nodeox_report_cf_seconds{group="broadened",figure="turnaround_mean_s",run="happened",stat="value"} 4233.33$' \
	"$tmp/cf.prom" || fail "Prometheus: the broadened jobs' mean turnaround as happened"
grep -q '^nodeox_report_cf_seconds{group="kept",figure="turnaround_mean_s",run="happened",stat="value"} 1200$' \
	"$tmp/cf.prom" || fail "Prometheus: the kept jobs' mean turnaround as happened"
# the untagged jobs (104, 105, 106 requeued, 108): (2400 + 1260 + 2420 + 660) / 4
grep -q '^nodeox_report_cf_seconds{group="untagged",figure="turnaround_mean_s",run="happened",stat="value"} 1685$' \
	"$tmp/cf.prom" || fail "Prometheus: the untagged jobs' mean turnaround as happened"
for g in broadened kept record_lost untagged all; do
	grep -q "^nodeox_report_cf_effect{group=\"$g\",figure=\"wait_mean_s\"," "$tmp/cf.prom" ||
		fail "Prometheus: no plugin effect for the $g group"
	grep -q "^nodeox_report_cf_verdict{group=\"$g\",verdict=\"[a-z ]*\"} 1$" "$tmp/cf.prom" ||
		fail "Prometheus: no verdict for the $g group"
done
grep -q 'group="tagged"' "$tmp/cf.prom" && fail "Prometheus: a tagged group beside broadened and kept"
# --plot: each of the 4 groups' wait and turnaround, happened against the model on and off
for t in "happened" "model, plugin on" "model, plugin off"; do
	[ "$(grep -c "<text>$t</text>" "$tmp/cf.svg")" = 8 ] || fail "--plot: 8 curves '$t'"
done
grep -q "broadened: turnaround" "$tmp/cf.svg" || fail "--plot: group titles"
grep -q "^Counterfactual: nodeox-sim on the same jobs as submitted, 4 replicas" "$tmp/out.txt" || fail "cf table"
cf_rows() {   # cf_rows GROUP: the cf table's rows of GROUP, to its verdict
	sed -n '/^Counterfactual:/,$p' "$tmp/out.txt" | sed -n "/^$1 /,/ verdict: /p" > "$tmp/cf-$1.txt"
}
cf_rows untagged
grep -q "^ *turnaround_mean_s  *1685.0 " "$tmp/cf-untagged.txt" || fail "cf table: the untagged jobs' turnaround"
grep -q "^ *jobs: 4 happened, [0-9]* replayed (plugin on), [0-9]* (off)$" "$tmp/cf-untagged.txt" ||
	fail "cf table: the untagged jobs' count"
cf_rows broadened
cf_rows kept
# GROUP;a line of its rows;what it is (broadened wait p95 as nodeox-sim computes it: 30 + 0.9 x (60 - 30))
while IFS=';' read -r grp pat what; do
	grep -q "$pat" "$tmp/cf-$grp.txt" || fail "cf table: $grp: $what"
done << 'ROWS'
broadened;^broadened  *wait_mean_s  *33.3 ;wait (10 + 30 + 60) / 3
broadened;^ *wait_p95_s  *57.0 ;wait p95
broadened;^ *turnaround_mean_s  *4233.3 ;turnaround
broadened;^ *jobs: 3 happened, 3 replayed (plugin on), 3 (off)$;count
broadened;verdict: with the plugin, broadened jobs finished \(sooner\|later\|within noise\) ;verdict
kept;^kept  *wait_mean_s  *600.0 ;wait
kept;^ *turnaround_mean_s  *1200.0 ;turnaround
kept;^ *jobs: 1 happened, 1 replayed (plugin on), 1 (off)$;count
ROWS
grep -q "^MODEL OFF: kept turnaround_mean_s: 1200.0 s happened; the model's plugin-on prediction is .*: off by .* s more than its range$" \
	"$tmp/out.txt" || fail "cf table: the model's miss said plainly"
"$bld/sim/nodeox-sacct-import" -q -k -o "$tmp/cf-trace.csv" "$hist" 2> /dev/null || fail "import for the cf"
# the groups by hand (history.txt's AdminComments), not by the report's rule
printf 'job_id,label\n100,broadened\n101,broadened\n102,broadened\n103,kept\n104,untagged\n105,untagged\n106,untagged\n107,record_lost\n108,untagged\n' \
	> "$tmp/labels.csv"
"$cf_sim" -q --cluster "$src/tests/sim/data/article" --replicas 4 --labels "$tmp/labels.csv" --json "$tmp/sim.json" \
	"$tmp/cf-trace.csv" || fail "nodeox-sim on the imported trace"
python3 - "$tmp/cf.json" "$tmp/sim.json" << 'PY' || fail "counterfactual figures"
import json, sys
r = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))
cf = r["counterfactual"]; assert cf["replicas"] == 4, cf
g = r["groups"]
names = ("broadened", "kept", "record_lost", "untagged")
assert set(cf["groups"]) == set(names) | {"all"}, cf["groups"].keys()
for n in names:
    assert cf["groups"][n]["jobs"] == g[n]["jobs"], n
assert sum(cf["groups"][n]["jobs"] for n in names) == cf["groups"]["all"]["jobs"] == r["jobs"]
assert sum(cf["groups"][n]["replayed_jobs"] for n in names) == cf["groups"]["all"]["replayed_jobs"]
u = cf["groups"]["untagged"]
assert u["jobs"] == 4 and abs(u["turnaround_mean_s"]["actual"] - (2400 + 1260 + 2420 + 660) / 4) < 1e-3
b = cf["groups"]["broadened"]
assert b["jobs"] == 3 and abs(b["turnaround_mean_s"]["actual"] - (3610 + 7230 + 1860) / 3) < 1e-3, b
assert abs(b["wait_mean_s"]["actual"] - (10 + 30 + 60) / 3) < 1e-3 and b["wait_p50_s"]["actual"] == 30
assert abs(b["wait_p95_s"]["actual"] - 57) < 1e-3 and abs(b["turnaround_p95_s"]["actual"] - (3610 + 0.9 * 3620)) < 1e-3
k = cf["groups"]["kept"]
assert k["jobs"] == 1 and k["wait_mean_s"]["actual"] == 600 and k["turnaround_mean_s"]["actual"] == 1200, k
for name in names + ("all",):
    c = cf["groups"][name]
    sg = lambda run: s[run]["all"] if name == "all" else s[run]["labels"][name]
    assert c["replayed_jobs"] == sg("nodeox")["jobs"] and c["replayed_jobs_off"] == sg("baseline")["jobs"], name
    for key, v in c.items():
        if not isinstance(v, dict):
            continue
        for side, run in (("on", "nodeox"), ("off", "baseline")):
            for st, suffix in (("median", ""), ("lo", "_lo"), ("hi", "_hi")):
                assert abs(v[side][st] - sg(run)[key + suffix]) < 1e-3, (name, key, side, st)
        on, off = v["on"], v["off"]
        want = "sooner" if on["hi"] < off["lo"] else "later" if on["lo"] > off["hi"] else "within noise"
        assert v["plugin"] == want, (name, key, v)
        assert v["model_off"] == (v["actual"] < on["lo"] or v["actual"] > on["hi"]), (name, key, v)
    assert c["verdict"] == c["turnaround_mean_s"]["plugin"], name
print("counterfactual: figures are nodeox-sim's per group, verdicts follow the ranges")
PY
# one replica: the model's figures of broadened and kept are the means of
# nodeox-sim's own per-job rows (--jobs) of those jobs, plugin on and off
NODEOX_SIM=$cf_sim "$nodeox" report --cluster "$src/tests/sim/data/article" --replicas 1 --json "$tmp/cf1.json" \
	"$hist" > /dev/null 2>&1 || fail "counterfactual with one replica"
"$cf_sim" -q --cluster "$src/tests/sim/data/article" --replicas 1 --jobs "$tmp/jobs1.csv" "$tmp/cf-trace.csv" ||
	fail "nodeox-sim --jobs"
python3 - "$tmp/cf1.json" "$tmp/jobs1.csv" << 'PY' || fail "broadened and kept against nodeox-sim's per-job rows"
import csv, json, sys
cf = json.load(open(sys.argv[1]))["counterfactual"]["groups"]
rows = [r for r in csv.DictReader(open(sys.argv[2])) if r["status"] in ("done", "timeout")]
for name, ids in (("broadened", {"100", "101", "102"}), ("kept", {"103"})):
    for side, policy in (("on", "nodeox"), ("off", "baseline")):
        mine = [r for r in rows if r["policy"] == policy and r["job_id"] in ids]
        ta = sum(int(r["end"]) - int(r["submit"]) for r in mine) / len(mine)
        w = sum(int(r["wait"]) for r in mine) / len(mine)
        got = cf[name]
        assert abs(got["turnaround_mean_s"][side]["median"] - ta) < 1e-3, (name, side, got["turnaround_mean_s"], ta)
        assert abs(got["wait_mean_s"][side]["median"] - w) < 1e-3, (name, side, got["wait_mean_s"], w)
        print(f"{name} {side}: turnaround mean {ta:.1f} s, wait mean {w:.1f} s over {len(mine)} jobs")
PY
# a period with no tagged job: broadened and kept have no jobs, said so, no verdict
NODEOX_SIM=$cf_sim "$nodeox" report --cluster "$src/tests/sim/data/article" --replicas 2 --json "$tmp/cfu.json" \
	"$tmp/untagged.txt" > "$tmp/out.txt" 2> /dev/null || fail "counterfactual of an untagged period"
grep -q "^broadened   no jobs in this period, none in the model$" "$tmp/out.txt" || fail "cf: no broadened jobs"
grep -q "^kept        no jobs in this period, none in the model$" "$tmp/out.txt" || fail "cf: no kept jobs"
python3 -c 'import json,sys; g=json.load(open(sys.argv[1]))["counterfactual"]["groups"]
assert g["broadened"]["jobs"] == 0 and g["broadened"]["verdict"] == "no jobs", g["broadened"]
assert g["broadened"]["turnaround_mean_s"]["on"]["median"] is None and g["untagged"]["jobs"] == 4' "$tmp/cfu.json" ||
	fail "cf JSON of an untagged period"
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
