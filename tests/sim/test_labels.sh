#!/bin/sh
# tests/sim/test_labels.sh: nodeox-sim --labels FILE counts the jobs of each
# label apart, and only by the label it is given: on the small trace, the
# tagged jobs labelled "t" and the rest "u" give exactly the figures of its
# own flex and untagged groups in both runs and every replica range; swapped
# labels give the swapped figures; a label holding every job is "all";
# GPU-hours of a label (summed from each job's types) add up to the run's.
# A bad file is named by FILE:LINE and column; --labels with --sweep is a
# usage error.
. "$top_srcdir/tests/sim/sim_lib.sh"
data="$top_srcdir/tests/sim/data/small"

awk -F, 'NR == 1 {print "job_id,label"; next} {print $1 "," (/nodeox:flex/ ? "t" : "u")}' \
	"$data/trace.csv" > "$out/tu.csv"
awk -F, 'NR == 1 {print; next} {print $1 "," ($2 == "t" ? "u" : "t")}' "$out/tu.csv" > "$out/swapped.csv"
awk -F, 'NR == 1 {print; next} {print $1 ",every"}' "$out/tu.csv" > "$out/all.csv"
for f in tu swapped all; do
	"$sim" -q --cluster "$data" --replicas 3 --labels "$out/$f.csv" --json "$out/$f.json" "$data/trace.csv" ||
		fail "nodeox-sim --labels $f.csv"
done
python3 - "$out" << 'PY' || fail "label figures differ from the groups they name"
import json, sys
d = sys.argv[1]
tu, sw, al = (json.load(open(f"{d}/{n}.json")) for n in ("tu", "swapped", "all"))
n = 0
for run in ("baseline", "nodeox"):
    for labels, pairs in ((tu, (("t", "flex"), ("u", "untagged"))), (sw, (("u", "flex"), ("t", "untagged"))),
                          (al, (("every", "all"),))):
        r = labels[run]
        assert set(r["labels"]) == {p[0] for p in pairs}, r["labels"].keys()
        for label, group in pairs:
            for key, v in r[group].items():
                got = r["labels"][label][key]
                assert abs(got - v) < 1e-3 * max(1, abs(v)), (run, label, group, key, got, v)
                n += 1
    assert r["labels"]["every"]["jobs"] > 0
print(f"{n} figures equal")
PY

# bad files: named by line and column
expect_bad() {   # expect_bad PATTERN: the file $out/bad.csv refused with PATTERN
	if "$sim" -q --cluster "$data" --replicas 1 --labels "$out/bad.csv" "$data/trace.csv" 2> "$out/err"; then
		fail "bad labels accepted: $(cat "$out/bad.csv")"
	fi
	grep -q -- "$1" "$out/err" || fail "want '$1', got: $(cat "$out/err")"
}
printf 'job,label\n1,a\n' > "$out/bad.csv"
expect_bad "bad.csv:1: the header must be \"job_id,label\""
printf 'job_id,label\n1,a\n99999,b\n' > "$out/bad.csv"
expect_bad "bad.csv:3: column job_id: job 99999 is not in the trace"
printf 'job_id,label\n1,a\n1,b\n' > "$out/bad.csv"
expect_bad "bad.csv:3: column job_id: job 1 is named twice"
printf 'job_id,label\n1,a b\n' > "$out/bad.csv"
expect_bad "bad.csv:2: column label: 'a b' is not a label"
printf 'job_id,label\n1,a\n2,b\n3,c\n4,d\n5,e\n' > "$out/bad.csv"
expect_bad "bad.csv:6: column label: 'e' is a label beyond the 4 allowed"
if "$sim" -q --cluster "$data" --labels "$out/tu.csv" --sweep 'flex=0.2,0.5' "$data/trace.csv" 2> "$out/err"; then
	fail "--labels with --sweep accepted"
fi
grep -q -- "--labels is for one run, not a sweep" "$out/err" || fail "sweep message: $(cat "$out/err")"
echo "PASS: --labels counts each label's jobs as the groups they name, swapped labels swap, bad files named"
