#!/bin/sh
# test_speeds_cli.sh: `nodeox speeds` on real files. tests/speeds/data/history.txt
# is sacct -P output with speed records in the jobs' Comment (the user's tag
# and text before them): a workload measured on a100 (4 jobs) and, broadened,
# on l40s (3 jobs), another with one job on each type, a damaged record and
# one of a later version. The table is expected.speeds byte for byte; what is
# left out is said; nodeox-sim takes the table as its --speed-table;
# nodeox-sacct-import counts the records and its trace gives the same
# entries; the options move what is kept; a history without Comment, with no
# record, and bad options are said.
set -u
src=${top_srcdir:?run from make check}
bld=${top_builddir:?run from make check}
nodeox="$bld/cli/nodeox"
[ -x "$nodeox" ] || { echo "SKIP: $nodeox not built (no libslurm)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nodeox-speeds.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; [ -f "$tmp/err" ] && cat "$tmp/err"; exit 1; }
TZ=UTC
export TZ
hist="$src/tests/speeds/data/history.txt"
made=2026-12-05T00:00:00Z
entries() { grep -v '^#' "$1" | grep -v '^nodeox-speeds '; }

# 1. the table, byte for byte; what was skipped and left out said
"$nodeox" speeds --made $made "$hist" > "$tmp/out" 2> "$tmp/err" || fail "speeds exited $?"
diff "$src/tests/speeds/data/expected.speeds" "$tmp/out" || fail "table differs from expected.speeds"
grep -q '^nodeox speeds: 1 unreadable speed records skipped (first: job 209: g=a100: step time not a number' \
	"$tmp/err" || fail "damaged record not named"
grep -q '^nodeox speeds: 1 speed records of a later version skipped' "$tmp/err" || fail "later version not said"
grep -q '^nodeox speeds: left out workload resnet a100<->l40s: 1 jobs measured on a100 and 1 on l40s, fewer than --min-jobs 3$' \
	"$tmp/err" || fail "few jobs not said"
grep -q '^nodeox speeds: left out user bob a100<->l40s' "$tmp/err" || fail "user scope not said"
grep -q 'from=history.txt:2026-11-02..2026-11-04$' "$tmp/out" || fail "header's from="

# 2. -o: written whole (no temporary left), and read by the policy's reader
"$nodeox" speeds --made $made -o "$tmp/t.speeds" "$hist" 2> /dev/null || fail "-o exited $?"
cmp -s "$tmp/t.speeds" "$tmp/out" || fail "-o wrote another table"
ls "$tmp" | grep -q '\.tmp\.' && fail "temporary file left behind"
sim="$bld/sim/nodeox-sim"
if [ -x "$sim" ]; then
	"$sim" --replicas 1 --speed-table "$tmp/t.speeds" "$src/traces/week.csv" > /dev/null 2> "$tmp/err" ||
		fail "nodeox-sim refused the table"
fi

# 3. nodeox-sacct-import counts the records; its trace gives the same entries
"$bld/sim/nodeox-sacct-import" -o "$tmp/trace.csv" "$hist" 2> "$tmp/err" || fail "importer exited $?"
grep -q 'nodeox-sacct-import: 9 jobs with a speed record in their Comment .*; 1 unreadable, 1 of a later version' \
	"$tmp/err" || fail "importer's count"
grep -q 'first unreadable speed record: job 209' "$tmp/err" || fail "importer: damaged record not named"
"$nodeox" speeds --made $made "$tmp/trace.csv" > "$tmp/tr" 2> "$tmp/err" || fail "speeds on the trace exited $?"
entries "$tmp/tr" > "$tmp/tr.e"
entries "$tmp/out" > "$tmp/out.e"
test -s "$tmp/out.e" || fail "no entries"
cmp -s "$tmp/tr.e" "$tmp/out.e" || fail "the trace gives other entries"
grep -q 'from=trace.csv:trace$' "$tmp/tr" || fail "trace's from="

# 4. options: fewer jobs keep resnet (40/64 against 80.5/64 ms per sample);
# a tighter spread leaves bert-ft out (0.02 + 0.04)
"$nodeox" speeds --made $made --min-jobs 1 "$hist" > "$tmp/o" 2> /dev/null || fail "--min-jobs 1"
grep -q '^workload resnet a100 l40s 0.496894 2 0$' "$tmp/o" || fail "--min-jobs 1: resnet entry"
"$nodeox" speeds --made $made --max-spread 0.05 "$hist" > "$tmp/o" 2> "$tmp/err" || fail "--max-spread"
test -z "$(entries "$tmp/o")" || fail "--max-spread 0.05 kept entries"
grep -q '^nodeox speeds: left out workload bert-ft a100<->l40s: spread 0.06 (a100 0.02 over 4 jobs, l40s 0.04 over 3) above --max-spread 0.05$' \
	"$tmp/err" || fail "wide spread not said"

# 5. no Comment column; no record; bad options
cut -d'|' -f1-12 "$hist" > "$tmp/nocomment.txt"
if "$nodeox" speeds "$tmp/nocomment.txt" > /dev/null 2> "$tmp/err"; then fail "no Comment column accepted"; fi
grep -q 'no Comment column' "$tmp/err" || fail "no Comment column not said"
grep -v 'nodeox-speeds:' "$hist" > "$tmp/none.txt"
"$nodeox" speeds --made $made "$tmp/none.txt" > "$tmp/o" 2> "$tmp/err" || fail "no records: exited $?"
grep -q 'has a speed record .*AccountingStoreFlags=job_comment' "$tmp/err" || fail "no records not said"
test -z "$(entries "$tmp/o")" || fail "entries from no records"
head -1 "$tmp/o" | grep -q '^nodeox-speeds v=1 made=2026-12-05T00:00:00Z from=none.txt:no-records$' || fail "empty table's header"
for bad in "--min-jobs 0" "--max-spread -1" "--made a#b"; do
	# shellcheck disable=SC2086
	"$nodeox" speeds $bad "$hist" > /dev/null 2> "$tmp/err"
	test $? -eq 2 || fail "$bad: not a usage error"
done
echo "PASS"
