#!/bin/sh
# tests/sim/test_speeds_study.sh: tools/speeds-study (make bench-speeds-study)
# still reads what nodeox-sim --jobs/--json and nodeox speeds write, and its
# counts mean what they say, with one replica:
#   the learned table recovers the truth within the records' noise (nlp
#   a100->v100, 0.49 in traces/class-speeds);
#   with Speed= only some jobs move below MinSpeed (nlp a100->v100 at 0.49
#   against Speed= 0.78); with the truth table none do (the policy decides
#   with --speed-table);
#   Gavel's rows become the truth a generation down (a two-model CSV here:
#   cv's P100/V100 is the median of its models);
#   a bad --anchors is refused.
. "$top_srcdir/tests/sim/sim_lib.sh"
nodeox="$(cd "$top_builddir" && pwd)/cli/nodeox"
[ -x "$nodeox" ] || { echo "SKIP: $nodeox not built (no libslurm)"; exit 77; }
study="$top_srcdir/tools/speeds-study"
gavel="$out/gavel.csv"
cat > "$gavel" <<'CSV'
job_type,scale_factor,k80_steps_per_s,k80_unconsolidated_steps_per_s,p100_steps_per_s,p100_unconsolidated_steps_per_s,v100_steps_per_s,v100_unconsolidated_steps_per_s,v100_over_p100,v100_over_k80
"ResNet-18 (batch size 64)",1,1,1,6,6,10,10,1.667,10
"ResNet-50 (batch size 64)",1,2,2,4,4,10,10,2.5,5
"ResNet-50 (batch size 64)",2,2,2,9,9,10,10,1.1,5
CSV
python3 "$study" --sim "$sim" --nodeox "$nodeox" --trace "$top_srcdir/traces/week.csv" \
	--cluster "$top_srcdir/traces/cluster" --truth "$top_srcdir/traces/class-speeds" \
	--gavel "$gavel" --replicas 1 --out "$out/s" > "$out/table.md" 2> "$out/err" ||
	{ rc=$?; cat "$out/err"; fail "speeds-study exited $rc"; }
rows() { grep "^| $1 | $2 | $3 |" "$out/table.md"; }
test "$(grep -c '^| sia |' "$out/table.md")" = 6 || fail "not 6 sia rows"
test "$(grep -c '^| gavel |' "$out/table.md")" = 6 || fail "not 6 gavel rows"
# column 12 of the row (after the leading empty field): below MinSpeed
below() { rows "$@" | awk -F'|' '{ gsub(/ /, "", $13); print $13 }'; }
for b in when-faster always; do
	test "$(below sia $b 'Speed= only')" -gt 0 || fail "$b, Speed= only: no move below MinSpeed"
	test "$(below sia $b 'truth table')" = 0 || fail "$b, truth table: moves below MinSpeed"
done
awk '$1 == "workload" && $2 == "nlp" && $3 == "a100" && $4 == "v100" { ok = ($5 > 0.44 && $5 < 0.54) }
     END { exit !ok }' "$out/s/sia/learned.speeds" || fail "learned nlp a100->v100 not near 0.49"
grep -q '^workload cv a100 v100 0.50 2 0$' "$out/s/gavel/truth.speeds" || fail "Gavel's cv P100/V100 not the median 0.50"
grep -q '^workload cv a100 t4 0.15 2 0$' "$out/s/gavel/truth.speeds" || fail "Gavel's cv K80/V100 not the median 0.15"
grep -q '^GpuType=v100 .*Speed=0.50' "$out/s/gavel/cluster/nodeox.conf" || fail "Gavel's Speed= of v100"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert len(d["sia"]) == 6' "$out/s/results.json" ||
	fail "results.json"
if python3 "$study" --sim "$sim" --nodeox "$nodeox" --anchors nope --out "$out/x" 2> "$out/err"; then
	fail "--anchors nope accepted"
fi
grep -q "^speeds-study: --anchors: 'nope' is neither sia nor gavel" "$out/err" || fail "--anchors nope not said"
echo "PASS: speeds-study"
