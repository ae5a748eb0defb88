#!/bin/sh
# sacct_import.sh: nodeox-sacct-import on a real-looking `sacct -a -X -P`
# sample, on stdin, and on malformed input, where it must stop with FILE:LINE
# and the field (or, with --skip-bad, count them).
#
# The expected trace, sacct_sample.expected.csv, is the importer's own output
# (git log: written with it in f334947 and re-recorded with each change of
# its columns or rules, c2400da, 1c993f5, 9bfa299, df22cb9), each change's
# diff read against the sample by hand. So the output is also checked
# against what sacct_sample_check.py reads from the raw sample without the
# importer (jobs, order, submit, run time, GPUs, limits, names, types,
# GPU-hours). Regenerate it with tools/regen-golden, and review its diff.
set -u
src=${top_srcdir:?run from make check}
bld=${top_builddir:?run from make check}
imp="$bld/sim/nodeox-sacct-import"
[ -x "$imp" ] || { echo "FAIL: $imp not built"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nodeox-sacct.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; [ -f "$tmp/err" ] && cat "$tmp/err"; exit 1; }
TZ=UTC
export TZ
sample="$src/tests/traces/sacct_sample.txt"

# 1. the sample: 9 GPU jobs, the rest skipped for the right reasons
"$imp" -o "$tmp/out.csv" "$sample" 2> "$tmp/err" || fail "import exited $?"
if command -v python3 > /dev/null 2>&1; then
	python3 "$src/tests/traces/sacct_sample_check.py" "$sample" "$tmp/out.csv" ||
		fail "the trace disagrees with the sample read without the importer"
else
	echo "note: python3 not found: the importer-independent check is not run"
fi
if [ -n "${NODEOX_REGEN_GOLDEN:-}" ]; then   # tools/regen-golden
	cp "$tmp/out.csv" "$src/tests/traces/sacct_sample.expected.csv" || fail "regenerate"
	echo "regenerated tests/traces/sacct_sample.expected.csv: review git diff"
fi
cmp "$tmp/out.csv" "$src/tests/traces/sacct_sample.expected.csv" || {
	diff "$src/tests/traces/sacct_sample.expected.csv" "$tmp/out.csv"; fail "trace differs"; }
grep -q "9 GPU jobs written; skipped: 1 without GPUs, 2 never started, 1 still running, 2 job steps, 0 malformed" \
	"$tmp/err" || fail "summary"
grep -q "1 jobs asked for several GPU types" "$tmp/err" || fail "multi-type note"

# 2. stdin, and a time zone with DST does not change the relative times
TZ=Europe/Berlin "$imp" -q < "$sample" > "$tmp/stdin.csv" || fail "stdin"
cmp "$tmp/stdin.csv" "$src/tests/traces/sacct_sample.expected.csv" || fail "stdin/Berlin output differs"

# 3. column order does not matter: reorder the sample's columns
awk -F'|' 'BEGIN{OFS="|"} {print $13,$11,$9,$10,$8,$7,$6,$5,$4,$3,$2,$1,$12}' "$sample" > "$tmp/reordered.txt"
grep -v 'lr=3e-4' "$src/tests/traces/sacct_sample.expected.csv" > "$tmp/exp_noPipe.csv"
grep -v 'lr=3e-4' "$tmp/reordered.txt" > "$tmp/reordered2.txt"   # its comment has a '|'
"$imp" -q "$tmp/reordered2.txt" > "$tmp/re.csv" 2> "$tmp/err" || fail "reordered columns"
# without the pipe-comment job (the first job) submit times are the same: t0 is 812340
cmp "$tmp/re.csv" "$tmp/exp_noPipe.csv" || { diff "$tmp/exp_noPipe.csv" "$tmp/re.csv"; fail "reordered output"; }

# 4. malformed lines: exit 1, message names file:line and the field
head -1 "$sample" > "$tmp/head.txt"
good=$(sed -n 2p "$sample")
check_bad() {   # $1 = sed expression applied to a good line, $2 = expected message part
	{ cat "$tmp/head.txt"; echo "$good"; echo "$good" | sed "$1"; } > "$tmp/bad.txt"
	if "$imp" "$tmp/bad.txt" > /dev/null 2> "$tmp/err"; then fail "accepted: $1"; fi
	grep -q "bad.txt:3: $2" "$tmp/err" || fail "message for '$1' lacks 'bad.txt:3: $2'"
}
check_bad 's/2026-11-02T08:59:12/2026-13-02T08:59:12/' "field Submit"
check_bad 's/2026-11-02T09:00:03/yesterday/' "field Start"
check_bad 's/2026-11-02T13:12:44/2026-11-02 13:12:44/' "field End"
check_bad 's/|12:00:00|/|12:7x:00|/' "field Timelimit"
check_bad 's/gres\/gpu:a100=4,gres\/gpu=4,mem=256000M,node=1|billing/gres\/gpu:a100=four,mem=1|billing/' "field ReqTRES"
check_bad 's/|1|COMPLETED$/|one|COMPLETED/' "field NNodes"
check_bad 's/|1|COMPLETED$//' "11 fields, the header has 13"
check_bad 's/^812345|/|/' "field JobIDRaw"
check_bad 's/2026-11-02T13:12:44/2026-11-02T08:00:00/' "field End: ends before it starts"

# 5. --skip-bad counts them and keeps the good lines
{ cat "$tmp/head.txt"; echo "$good"; echo "$good" | sed 's/2026-11-02T08:59:12/soon/'; \
  echo "$good" | sed 's/|12:00:00|/|x|/'; } > "$tmp/bad.txt"
"$imp" --skip-bad "$tmp/bad.txt" > "$tmp/out.csv" 2> "$tmp/err" || fail "--skip-bad exited $?"
[ "$(wc -l < "$tmp/out.csv")" -eq 2 ] || fail "--skip-bad kept the wrong number of rows"
grep -q "2 malformed" "$tmp/err" || fail "--skip-bad count"
grep -q "first malformed line: .*bad.txt:3: field Submit" "$tmp/err" || fail "--skip-bad first line"

# 6. no header / missing column / empty input
sed 1d "$sample" > "$tmp/nohead.txt"
if "$imp" "$tmp/nohead.txt" > /dev/null 2> "$tmp/err"; then fail "headerless input accepted"; fi
grep -q "nohead.txt:1: no JobIDRaw column" "$tmp/err" || fail "headerless message"
: > "$tmp/empty.txt"
if "$imp" "$tmp/empty.txt" > /dev/null 2> "$tmp/err"; then fail "empty input accepted"; fi
grep -q "empty input" "$tmp/err" || fail "empty message"
if "$imp" "$tmp/missing.txt" > /dev/null 2> "$tmp/err"; then fail "missing file accepted"; fi
grep -q "missing.txt: No such file" "$tmp/err" || fail "missing file message"
# 7. warnings for accounting settings the input shows to be missing
"$imp" -q -o /dev/null "$sample" 2> "$tmp/err" || fail "sample again"
grep -q "warning: no AdminComment column" "$tmp/err" || fail "no AdminComment warning"
if grep -q "no job has a Comment\|no GPU type in any" "$tmp/err"; then fail "false warning"; fi
grep -v 'lr=3e-4' "$sample" | awk -F'|' 'BEGIN{OFS="|"} NR > 1 {$11 = ""} {print}' > "$tmp/nocomment.txt"
"$imp" -q -o /dev/null "$tmp/nocomment.txt" 2> "$tmp/err" || fail "no comments"
grep -q "warning: no job has a Comment: .*AccountingStoreFlags=job_comment" "$tmp/err" ||
	fail "no-comment warning"
sed 's/gres\/gpu:[a-z0-9]*=[0-9]*,//g' "$sample" > "$tmp/untyped.txt"
"$imp" -q -o /dev/null "$tmp/untyped.txt" 2> "$tmp/err" || fail "untyped"
grep -q "warning: no GPU type in any ReqTRES or AllocTRES: .*AccountingStorageTRES" "$tmp/err" ||
	fail "no-type warning"
sed 's/gres\/gpu[:a-z0-9]*=[0-9]*,//g' "$sample" > "$tmp/nogpu.txt"
"$imp" -q -o /dev/null "$tmp/nogpu.txt" 2> "$tmp/err" || fail "no gpus"
grep -q "warning: no job has GPUs in ReqTRES or AllocTRES: AccountingStorageTRES" "$tmp/err" ||
	fail "no-gpu warning"

# 8. -d: sacct --delimiter output (here '^^'), where '|' is plain text
grep -v 'lr=3e-4' "$sample" | sed 's/|/^^/g' > "$tmp/caret.txt"
"$imp" -q -d '^^' "$tmp/caret.txt" > "$tmp/caret.csv" 2> "$tmp/err" || fail "-d ^^"
cmp "$tmp/caret.csv" "$tmp/exp_noPipe.csv" || { diff "$tmp/exp_noPipe.csv" "$tmp/caret.csv"; fail "-d output"; }
if "$imp" -d '' "$sample" > /dev/null 2> "$tmp/err"; then fail "empty delimiter accepted"; fi

# 9. what happened, for nodeox report (tests/report/data/history.txt): the
# two sacct -D runs of job 106 become one row (submitted at the first's
# submit, its wait, both runs' GPU time, 1 requeue); the plugin's record,
# a foreign AdminComment (named, imported untyped as accounting shows it);
# a line cut short named by its first missing column
hist="$src/tests/report/data/history.txt"
"$imp" -k -o "$tmp/what.csv" "$hist" 2> "$tmp/err" || fail "import of the report's history"
grep -q "1 earlier runs of requeued jobs (sacct -D) merged" "$tmp/err" || fail "requeue summary"
grep -q "warning: 1 jobs have an AdminComment that is not job_submit/nodeox's record .*first: 107)" "$tmp/err" ||
	fail "foreign record warning"
sed -n '1p;14p' "$hist" > "$tmp/cut.txt"
if "$imp" -o /dev/null "$tmp/cut.txt" 2> "$tmp/err"; then fail "a line cut short accepted"; fi
grep -q "cut.txt:2: 9 fields, the header has 14: column 10 (first known: AllocTRES) and after it missing" \
	"$tmp/err" || fail "truncated line's message"
row() { grep "^$1," "$tmp/what.csv" | awk -F, '{print $6","$13","$20","$21","$22","$23","$24","$25}'; }
[ "$(row 106)" = "l40s,l40s,1,5,2420,1,2400," ] || fail "requeued job's row: $(row 106)"
[ "$(row 100)" = "a100,l40s,1,10,3610,0,3600,rewrite" ] || fail "broadened job's row: $(row 100)"
[ "$(row 107)" = ",l40s,1,0,1800,0,1800,foreign" ] || fail "foreign record's row: $(row 107)"
[ "$(grep -c '^106,' "$tmp/what.csv")" = 1 ] || fail "job 106 written twice"
echo "PASS"
