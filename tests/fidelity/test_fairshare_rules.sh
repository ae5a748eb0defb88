#!/bin/sh
# tests/fidelity/test_fairshare_rules.sh: the fair-share rules nodeox-sim
# follows (doc/simulator.md, Fair-share: usage only at the decay passes
# without AccountingStorageEnforce=limits, decay by 1 - 0.693 / half-life per
# second, level_fs as shares over usage) reproduce what slurmctld logged in
# each recorded mffair run (tools/fidelity-fairshare, on the run's own
# starts, ends and CPUs): the accounts in the same order at every pass and
# each level_fs within 3% (1.0% and 0.0% on runs 1 and 2). Adding each
# job's last slice at its end, as Slurm does only with that enforcement,
# must not: 16% off, which shows the check can fail. No cluster needed.
set -eu
d="$top_srcdir/tests/fidelity/mffair"
for csv in "$d"/real-off-*.csv; do
	log=${csv%.csv}.ctld.log.xz
	out=$(python3 "$top_srcdir/tools/fidelity-fairshare" "$d" "$csv" "$log")
	summary=$(echo "$out" | tail -1)
	echo "$(basename "$csv"): $summary"
	n=$(echo "$summary" | sed -n 's/^\([0-9]*\) passes.*order the same at \([0-9]*\);.*/\1 \2/p')
	pct=$(echo "$summary" | sed -n 's/.*difference \([0-9.]*\)%.*/\1/p')
	[ -n "$n" ] && [ "${n% *}" = "${n#* }" ] || { echo "accounts' order differs: $summary"; exit 1; }
	awk -v p="$pct" 'BEGIN { exit !(p <= 3) }' || { echo "level_fs off by $pct%: $summary"; exit 1; }
	wrong=$(python3 "$top_srcdir/tools/fidelity-fairshare" --job-end "$d" "$csv" "$log" | tail -1 |
		sed -n 's/.*difference \([0-9.]*\)%.*/\1/p')
	awk -v p="$wrong" 'BEGIN { exit !(p > 3) }' || { echo "job-end slices also within 3% ($wrong%): the check cannot tell"; exit 1; }
done
