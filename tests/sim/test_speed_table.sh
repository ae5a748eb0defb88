#!/bin/sh
# tests/sim/test_speed_table.sh: one format for speeds in nodeox-sim.
#   --class-speeds reads the speed table format (nodeox.conf(5)): the shipped
#   traces/class-speeds gives the week byte for byte what the CSV form of the
#   same numbers gives, and differs from no class speeds at all;
#   --speed-table makes the policy decide with a job's class entry (it changes
#   the run; an entry for no class of the week changes nothing);
#   a bad table is refused with FILE:LINE; --sweep with a table is refused.
. "$top_srcdir/tests/sim/sim_lib.sh"
week="$top_srcdir/traces/week.csv"
tab="$top_srcdir/traces/class-speeds"
run() { "$sim" --replicas 1 "$@" "$week"; }

# the CSV form of the same numbers (asked a100 at Speed=1.00)
awk '$1 == "workload" { print $2 "," $4 "," $5 }' "$tab" > "$out/cs.csv"
test -s "$out/cs.csv" || fail "no workload entries in $tab"
run --class-speeds "$tab" > "$out/tab.txt"
run --class-speeds "$out/cs.csv" > "$out/csv.txt"
cmp -s "$out/tab.txt" "$out/csv.txt" || fail "--class-speeds: the table and the CSV of the same numbers differ"
run > "$out/none.txt"
cmp -s "$out/tab.txt" "$out/none.txt" && fail "--class-speeds: the table changed nothing"

# the policy with the table: decided with each class's speeds
run --class-speeds "$tab" --speed-table "$tab" --jobs "$out/st.csv" > "$out/st.txt"
cmp -s "$out/st.txt" "$out/tab.txt" && fail "--speed-table changed nothing"
printf 'nodeox-speeds v=1 made=x from=y\nworkload nosuchclass a100 v100 0.1 3 0\n' > "$out/other"
run --class-speeds "$tab" --speed-table "$out/other" > "$out/other.txt"
cmp -s "$out/other.txt" "$out/tab.txt" || fail "--speed-table: a table with no entry for the week changed the run"

# bad input
printf 'nodeox-speeds v=1 made=x from=y\nworkload cv a100 v100 0 3 0\n' > "$out/bad"
if run --speed-table "$out/bad" > /dev/null 2> "$out/err"; then fail "bad table accepted"; fi
grep -q "$out/bad:2: speed '0'" "$out/err" || fail "bad table: $(cat "$out/err")"
if run --class-speeds "$out/bad" > /dev/null 2> "$out/err"; then fail "bad class table accepted"; fi
grep -q "$out/bad:2: speed '0'" "$out/err" || fail "bad class table: $(cat "$out/err")"
if "$sim" --speed-table "$tab" --sweep 'Broaden=always,when-blocked' "$week" > /dev/null 2> "$out/err"; then
	fail "--sweep with --speed-table accepted"
fi
grep -q "not yet supported with --sweep" "$out/err" || fail "--sweep: $(cat "$out/err")"
echo "PASS"
