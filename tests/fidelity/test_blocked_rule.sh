#!/bin/sh
# tests/fidelity/test_blocked_rule.sh: the rule nodeox-sim's policy view
# follows for a job's end (doc/simulator.md, The policy in the simulation:
# its GPUs are idle to Broaden=when-blocked from the end slurmctld recorded)
# reproduces the decisions job_submit/nodeox logged in every recorded
# plugin-on run of mffair, mfdbd and mflarge (tools/fidelity-blocked, on
# the run's own starts and ends): at least 98% of them (99.1-100%). Holding
# the GPUs until the second after the end's second, as nodeox-sim did
# before, must not: 86-91%, which shows the check can fail. No cluster
# needed.
set -eu
for t in mffair mfdbd mflarge; do
	d="$top_srcdir/tests/fidelity/$t"
	for csv in "$d"/real-on-*.csv; do
		log=${csv%.csv}.ctld.log.xz
		[ -f "$log" ] || continue
		for mode in rule held; do
			flag=
			[ "$mode" = held ] && flag=--held
			summary=$(python3 "$top_srcdir/tools/fidelity-blocked" $flag "$d" "$csv" "$log" | tail -1)
			echo "$t $(basename "$csv") $mode: $summary"
			pct=$(echo "$summary" | sed -n 's/.*agree (\([0-9.]*\)%).*/\1/p')
			[ -n "$pct" ] || { echo "no summary"; exit 1; }
			if [ "$mode" = rule ]; then
				awk -v p="$pct" 'BEGIN { exit !(p >= 98) }' || { echo "the rule gives only $pct%"; exit 1; }
			else
				awk -v p="$pct" 'BEGIN { exit !(p < 95) }' || { echo "held GPUs also give $pct%: the check cannot tell"; exit 1; }
			fi
		done
	done
done
