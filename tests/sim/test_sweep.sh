#!/bin/sh
# tests/sim/test_sweep.sh: --sweep. The settings are the cartesian product
# of SPEC, the last key fastest; each setting's baseline and nodeox runs in
# --json are exactly those of a plain compare run with that nodeox.conf
# (written out by hand here) and --flex-fraction, replicas included; a
# quoted value holds commas (Group=); "pareto" is true exactly for the
# settings no other one beats on tagged gain without more untagged cost
# (flex 0.2 and 0.8, so that some settings are off the front: with 0.3 and
# 0.8 all eight lay on it under the replicas' noise of issue 26);
# a GpuType= or Group= value replaces the line of its name only;
# --plot draws the front; a bad SPEC exits 1 naming the key and value,
# with the policy parser's own words for a value it refuses.
. "$top_srcdir/tests/sim/sim_lib.sh"
d="$top_srcdir/tests/fidelity/multifactor"

spec='Broaden=always,when-blocked;Group="train Types=a100,l40s","rev Types=l40s,a100";flex=0.2,0.8'
"$sim" -c "$d" --round-sync 0 --replicas 4 --sweep "$spec" --price a100=2,l40s=1 \
	--json "$out/sweep.json" ${plot:+--plot "$out/front.svg"} "$d/trace.csv" \
	> "$out/sweep.txt" 2> "$out/err" || fail "sweep: $(cat "$out/err")"
grep -q "^nodeox-sim: sweep of 8 settings, 4 replicas each" "$out/sweep.txt" ||
	fail "table header: $(head -1 "$out/sweep.txt")"
[ "$(grep -c '^ *[0-9]  *\(always\|when-blocked\)  ' "$out/sweep.txt")" = 8 ] ||
	fail "table lacks 8 setting rows: $(cat "$out/sweep.txt")"
if [ -n "${plot:-}" ]; then
	grep -q "Pareto front" "$out/front.svg" || fail "--plot: no front in the SVG"
fi

# each setting by hand: its nodeox.conf and flex fraction in a plain run
i=0
for b in always when-blocked; do
	for g in "train Types=a100,l40s" "rev Types=l40s,a100"; do
		for f in 0.2 0.8; do
			grep -v '^Broaden=\|^Group=' "$d/nodeox.conf" > "$out/p$i.conf"
			printf 'Broaden=%s\nGroup=%s\n' "$b" "$g" >> "$out/p$i.conf"
			"$sim" -c "$d" --round-sync 0 --replicas 4 --policy "$out/p$i.conf" \
				--flex-fraction $f --price a100=2,l40s=1 --json "$out/one-$i.json" -q \
				"$d/trace.csv" 2>/dev/null
			i=$((i + 1))
		done
	done
done
python3 - "$out" <<'PY' || fail "sweep JSON does not match the settings run one by one"
import json, sys
d = sys.argv[1]
sw = json.load(open(f"{d}/sweep.json"))
assert sw["replicas"] == 4
rows = sw["sweep"]
assert len(rows) == 8, len(rows)
want = [(b, g, f) for b in ("always", "when-blocked")
        for g in ("train Types=a100,l40s", "rev Types=l40s,a100") for f in ("0.2", "0.8")]
for i, r in enumerate(rows):
    assert r["settings"] == {"Broaden": want[i][0], "Group": want[i][1], "flex": want[i][2]}, r["settings"]
    one = json.load(open(f"{d}/one-{i}.json"))
    for run in ("baseline", "nodeox"):
        assert r[run] == one[run], (i, run)
    ch = lambda base, v: 100 * (v - base) / abs(base) if base else 0
    # the tagged change from the medians in the JSON (rounded there)
    t = ch(r["baseline"]["flex"]["turnaround_mean_s"], r["nodeox"]["flex"]["turnaround_mean_s"])
    assert abs(t - r["tagged_turnaround_change_pct"]) < 0.01, (t, r["tagged_turnaround_change_pct"])
    # and the untagged change from the untagged group's medians
    u = ch(r["baseline"]["untagged"]["turnaround_mean_s"], r["nodeox"]["untagged"]["turnaround_mean_s"])
    assert abs(u - r["untagged_turnaround_change_pct"]) < 0.01, (u, r["untagged_turnaround_change_pct"])
# the front from the two changes
for i, r in enumerate(rows):
    g, c = -r["tagged_turnaround_change_pct"], r["untagged_turnaround_change_pct"]
    beaten = any(-o["tagged_turnaround_change_pct"] >= g and o["untagged_turnaround_change_pct"] <= c and
                 (-o["tagged_turnaround_change_pct"] > g or o["untagged_turnaround_change_pct"] < c)
                 for o in rows)
    assert r["pareto"] == (not beaten), (i, r["pareto"])
assert any(r["pareto"] for r in rows) and not all(r["pareto"] for r in rows)
PY

# GpuType= and Group= values replace the line of their name only: vary one
# type's speed and which types share the group, other lines as they were
sm="$top_srcdir/tests/sim/data/small"
spec2='GpuType="l40s Feature=l40s Memory=48G Speed=0.7","l40s Feature=l40s Memory=48G Speed=0.35";Group="train Types=a100,l40s","train Types=a100,v100"'
"$sim" -c "$sm" --replicas 2 --sweep "$spec2" --json "$out/sweep2.json" -q "$sm/trace.csv" \
	2> "$out/err" || fail "sweep of GpuType and Group: $(cat "$out/err")"
i=0
for sp in 0.7 0.35; do
	for g in a100,l40s a100,v100; do
		sed -e "s/^GpuType=l40s .*/GpuType=l40s Feature=l40s Memory=48G Speed=$sp/" \
			-e "s/^Group=train .*/Group=train Types=$g/" "$sm/nodeox.conf" > "$out/q$i.conf"
		"$sim" -c "$sm" --replicas 2 --policy "$out/q$i.conf" --json "$out/two-$i.json" -q \
			"$sm/trace.csv" 2>/dev/null
		i=$((i + 1))
	done
done
python3 - "$out" <<'PY' || fail "GpuType/Group settings do not match their confs written by hand"
import json, sys
d = sys.argv[1]
rows = json.load(open(f"{d}/sweep2.json"))["sweep"]
assert len(rows) == 4
for i, r in enumerate(rows):
    one = json.load(open(f"{d}/two-{i}.json"))
    assert r["baseline"] == one["baseline"] and r["nodeox"] == one["nodeox"], i
# the values reached the policy and the run times: l40s's speed matters
# while it shares the group (0 vs 2), not once it is out of it (1 = 3)
n = [json.dumps(r["nodeox"]) for r in rows]
assert n[0] != n[1] and n[0] != n[2] and n[1] != n[2] and n[1] == n[3], n
PY

expect() {   # expect PATTERN SPEC: exit 1 and PATTERN on stderr
	set +e
	"$sim" -c "$d" --sweep "$2" "$d/trace.csv" > /dev/null 2> "$out/err"
	rc=$?
	set -e
	[ "$rc" = 1 ] || fail "--sweep '$2': exit $rc, want 1"
	grep -q -- "$1" "$out/err" || fail "--sweep '$2': stderr lacks '$1': $(cat "$out/err")"
}
expect "--sweep: Broaden=sometimes: Broaden=sometimes: expected always, when-blocked or when-faster" 'Broaden=always,sometimes'
expect "--sweep: Frobnicate=1: unknown key 'Frobnicate'" 'MinSpeed=0.5;Frobnicate=1'
expect "--sweep: MinSpeed=2: " 'MinSpeed=2'
expect "--sweep: flex=1.5: expected a fraction" 'flex=0.5,1.5'
expect "--sweep: 'Broaden': expected KEY=v1,v2" 'Broaden'
expect "--sweep: minspeed given twice" 'MinSpeed=0.1;minspeed=0.2'
expect "--sweep: MinSpeed: an empty value" 'MinSpeed=0.1,'
expect "a double quote is not closed" 'Group="train Types=a100'
expect "--sweep: Group=solo Types=a100: Group=solo: a group needs at least two types" 'Group="solo Types=a100"'
expect "--sweep: SPEC holds a control character" "$(printf 'MinSpeed=0.1\n;Broaden=always')"
# sweep.sbatch takes DIR into its #SBATCH lines: no spaces there
set +e
"$sim" -c "$d" --sweep MinSpeed=0.1 --sweep-array "$out/a b" "$d/trace.csv" > /dev/null 2> "$out/err"
rc=$?
set -e
[ "$rc" = 1 ] && grep -q "the directory's path must not hold spaces" "$out/err" ||
	fail "--sweep-array with a space in DIR: exit $rc: $(cat "$out/err")"
[ ! -e "$out/a b" ] || fail "--sweep-array made a directory it refused"
echo "PASS: sweep settings equal plain runs, Pareto front, --plot, SPEC errors"
