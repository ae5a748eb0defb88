#!/bin/sh
# tests/sim/test_cli.sh: nodeox-sim's command line: usage errors exit 2 naming
# the option, bad input exits 1 naming FILE:LINE and the column, --skip-bad
# counts, --mode baseline needs no nodeox.conf, --json has every key; --price:
# bad prices exit 1 naming the option and the item, cost by hand on the
# article's trace and as the sum over jobs of GPU-hours x price on the small
# one, no cost anywhere without --price (each of one run: --replicas 1;
# tests/sim/test_replicas.sh has the replicas' table and JSON); a cluster in Slurm 24.11's style
# (tests/sim/data/slurm2411) is read with notes, not errors; a missing trace
# is reported as such; --slurm-version: a bad release is a usage error naming
# the option, the footer names the release whose defaults were used, the
# release's memory default changes a result (22.05: select/linear, no
# memory; 24.11: cons_tres's CR_Core_Memory), and --sweep-array passes it on.
. "$top_srcdir/tests/sim/sim_lib.sh"
data="$top_srcdir/tests/sim/data/small"

expect() {   # expect STATUS PATTERN ARGS...: exit status and a line of stderr
	want=$1 pat=$2; shift 2
	set +e
	"$sim" "$@" > "$out/stdout" 2> "$out/stderr"
	got=$?
	set -e
	[ "$got" = "$want" ] || fail "nodeox-sim $*: exit $got, want $want ($(cat "$out/stderr"))"
	grep -q -- "$pat" "$out/stderr" || fail "nodeox-sim $*: stderr lacks '$pat': $(cat "$out/stderr")"
}

expect 2 "no trace given" --cluster "$data"
expect 2 "mode=bogus: expected compare, baseline or nodeox" --mode bogus "$data/trace.csv"
expect 2 "flex-fraction must be between 0 and 1" --flex-fraction 1.5 "$data/trace.csv"
expect 2 "round-sync" --round-sync 1 "$data/trace.csv"
expect 1 "$out/none/slurm.conf" --cluster "$out/none" "$data/trace.csv"
# a missing trace is named, not the default cluster's slurm.conf it never needed
expect 1 "nodeox-sim: $out/MISSING.csv: No such file or directory" "$out/MISSING.csv"
if grep -q slurm.conf "$out/stderr"; then fail "missing trace reported as: $(cat "$out/stderr")"; fi
expect 1 "bf-window must be at least 1" --cluster "$data" --bf-window 0 "$data/trace.csv"
expect 2 "cpus-per-gpu must be 1 to 65536" --cluster "$data" --cpus-per-gpu 0 "$data/trace.csv"
expect 2 "mem-per-gpu=lots: expected a size" --cluster "$data" --mem-per-gpu lots "$data/trace.csv"

printf 'submit,gpus,run_time,gpu_type\n0,1,60,a100\n5,many,60,a100\n9,2,zz,v100\n12,1,60,v100\n' \
	> "$out/bad.csv"
expect 1 "$out/bad.csv:3: column gpus: 'many' is not a GPU count" --cluster "$data" "$out/bad.csv"
expect 0 "$out/bad.csv:4: column run_time" --cluster "$data" --skip-bad "$out/bad.csv"
grep -q "2 jobs (0 tagged, 2 bad rows skipped)" "$out/stdout" || fail "skip count missing: $(head -1 "$out/stdout")"

mkdir "$out/nopolicy"
cp "$data/slurm.conf" "$out/nopolicy/"
expect 1 "nopolicy/nodeox.conf" --cluster "$out/nopolicy" "$data/trace.csv"
"$sim" --cluster "$out/nopolicy" --mode baseline --json "$out/b.json" "$data/trace.csv" > "$out/b.txt"
grep -q '"baseline"' "$out/b.json" || fail "baseline JSON lacks baseline"
if grep -q '"nodeox"' "$out/b.json"; then fail "baseline JSON has a nodeox run"; fi

"$sim" --replicas 1 --cluster "$data" -q --json "$out/r.json" "$data/trace.csv" > "$out/q.txt"
[ ! -s "$out/q.txt" ] || fail "--quiet printed a table"
for k in baseline nodeox all flex untagged jobs wait_mean_s wait_p50_s wait_p95_s run_mean_s \
	turnaround_mean_s turnaround_p50_s turnaround_p95_s gpu_hours utilization makespan_s; do
	grep -q "\"$k\":" "$out/r.json" || fail "--json lacks \"$k\""
done
n=$(grep -o '"[a-z0-9_]*":' "$out/r.json" | wc -l)
[ "$n" = 66 ] ||
	fail "--json has $n keys, want 66 (2 runs x (run + all + flex + untagged + 3 x 9 + utilization + makespan_s))"
if grep -q cost "$out/r.json" "$out/q.txt"; then fail "cost reported without --price"; fi

# --price errors: exit 1, naming the option and the bad part
expect 1 "--price: no GPU type 'x100' in the cluster (it has a100, v100, l40s)" \
	--cluster "$data" --price a100=1,v100=1,l40s=1,x100=2 "$data/trace.csv"
expect 1 "--price: 'v100=cheap': 'cheap' is not a price per GPU-hour" \
	--cluster "$data" --price a100=1,v100=cheap,l40s=1 "$data/trace.csv"
expect 1 "--price: 'l40s': expected TYPE=COST" --cluster "$data" --price a100=1,v100=1,l40s "$data/trace.csv"
expect 1 "--price: no price for GPU type 'l40s'" --cluster "$data" --price a100=1 --price v100=1 \
	"$data/trace.csv"

# By hand, the article's trace (tests/sim/data/article): GPU-hours a100
# 2 x 1 h + 4 x 1 h + 2 jobs x 4 x 600 s = 7.333, l40s 4 x 1 h. With the
# policy, tagged job 5 (4 a100 x 600 s) runs on l40s at half speed, 4 x 1200 s.
# At a100=3, l40s=1.2: baseline 22 + 4.8 = 26.8, nodeox 20 + 6.4 = 26.4; job 5
# alone (flex) 2.0 on a100 against 1.6 on l40s; the untagged jobs (the rest)
# 20 + 4.8 = 24.8 in both.
art="$top_srcdir/tests/sim/data/article"
"$sim" --replicas 1 --cluster "$art" --price a100=3,l40s=1.2 --json "$out/art.json" "$art/trace.csv" > "$out/art.txt"
got=$(grep -o '"cost": [0-9.]*, "cost_by_type": {[^}]*}' "$out/art.json" | tr '\n' ';')
want='"cost": 26.800000, "cost_by_type": {"a100": 22.000000, "l40s": 4.800000};'
want="$want"'"cost": 2.000000, "cost_by_type": {"a100": 2.000000, "l40s": 0.000000};'
want="$want"'"cost": 24.800000, "cost_by_type": {"a100": 20.000000, "l40s": 4.800000};'
want="$want"'"cost": 26.400000, "cost_by_type": {"a100": 20.000000, "l40s": 6.400000};'
want="$want"'"cost": 1.600000, "cost_by_type": {"a100": 0.000000, "l40s": 1.600000};'
want="$want"'"cost": 24.800000, "cost_by_type": {"a100": 20.000000, "l40s": 4.800000};'
[ "$got" = "$want" ] || fail "article costs: got $got, want $want"
grep -Eq '^  cost +26\.80 +26\.40 +-1\.5%$' "$out/art.txt" || fail "table lacks the cost row: $(cat "$out/art.txt")"
grep -Eq '^  cost l40s +0\.00 +1\.60 ' "$out/art.txt" || fail "table lacks the flex l40s cost row"

# The small trace (mixed-type jobs among them): cost in --json = the sum over
# the --jobs rows of GPUs x run time / 3600 x price, for all, tagged and
# untagged jobs.
"$sim" --replicas 1 --cluster "$data" --price a100=2.9,v100=1.4 --price l40s=1.1 -q --json "$out/p.json" \
	--jobs "$out/p.csv" "$data/trace.csv"
n=$(grep -o '"[a-z0-9_]*":' "$out/p.json" | wc -l)
[ "$n" = 96 ] || fail "--json --price has $n keys, want 96 (66 + 2 runs x 3 x (cost + cost_by_type + 3 types))"
grep -o '"cost": [0-9.]*' "$out/p.json" | cut -d' ' -f2 > "$out/p.cost"
# columns 1-12 of --jobs hold no commas: policy, ..., run_time (7), tagged (9), gpu_types (12)
awk -F, 'BEGIN { p["a100"] = 2.9; p["v100"] = 1.4; p["l40s"] = 1.1 }
	NR > 1 && $7 != "" {
		n = split($12, part, "+")
		for (i = 1; i <= n; i++) {
			split(part[i], tc, ":")
			c = tc[2] * $7 / 3600 * p[tc[1]]
			all[$1] += c
			if ($9 == 1) flex[$1] += c
			else untagged[$1] += c
		}
	}
	END { printf "%.6f\n%.6f\n%.6f\n%.6f\n%.6f\n%.6f\n", all["baseline"], flex["baseline"],
		untagged["baseline"], all["nodeox"], flex["nodeox"], untagged["nodeox"] }' "$out/p.csv" > "$out/p.sum"
paste "$out/p.cost" "$out/p.sum" | awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-5 || $1 <= 0) bad = 1 }
	END { exit bad || NR != 6 }' ||
	fail "cost in --json (left) is not the sum over jobs (right): $(paste "$out/p.cost" "$out/p.sum")"
# A cluster written the Slurm 24.11 way: read, keys new since 22.05 noted once
# each on stderr, not an error.
d2411="$top_srcdir/tests/sim/data/slurm2411"
expect 0 "note: .*slurm.conf:[0-9]*: RestrictedCoresPerGPU (new since Slurm 22.05) is not modelled; ignored" \
	--replicas 1 --cluster "$d2411" --mode baseline "$d2411/trace.csv"
[ "$(grep -c "RestrictedCoresPerGPU" "$out/stderr")" = 1 ] || fail "24.11 cluster: a key noted more than once"
grep -q "PowerDownOnIdle" "$out/stderr" || fail "24.11 cluster: partition key not noted"
grep -q "7 nodes, 40 GPUs (h100 32, l40s 8)" "$out/stdout" ||
	fail "24.11 cluster: GPUs as read: $(head -1 "$out/stdout")"
grep -q "jobs run  *3$" "$out/stdout" || fail "24.11 cluster: not all 3 jobs ran: $(cat "$out/stdout")"
# The table says what its numbers were checked against, and which of the
# run's features the real replays covered: computed, so a 7-node cluster of
# two types and a 200-node one of five say different things.
grep -q "^Checked against: real slurmctld 22.05 runs" "$out/stdout" || fail "no 'Checked against' line"
tr '\n' ' ' < "$out/stdout" | grep -q "This run, in the replays: 7 nodes, 2 GPU types, 2 partitions.* Beyond them: bf_window=2880" ||
	fail "7-node cluster: footer does not say what the replays covered: $(tail -3 "$out/stdout")"
python3 "$top_srcdir/tools/gen-cluster" --nodes 200 -o "$out/big" >/dev/null || fail "gen-cluster"
"$sim" --cluster "$out/big" --mode baseline "$d2411/trace.csv" > "$out/big.txt" 2>&1 ||
	fail "200-node cluster: $(cat "$out/big.txt")"
tr '\n' ' ' < "$out/big.txt" | grep -q "Beyond them: 200 nodes (the replays had up to 160; the model is the same at every size), 5 GPU types" ||
	fail "200-node cluster: footer does not say it is beyond the replays: $(tail -3 "$out/big.txt")"
# A scheduler input the option parser passes but the run cannot use: the
# run's own check names it and nodeox-sim exits 1 (main's failure branch).
expect 1 "scheduler parameter bf_window=99999999999 minutes: out of range" \
	--cluster "$data" --bf-window 99999999999 "$data/trace.csv"
# --slurm-version: which release nodeox-sim models (slurm.conf defaults, and
# the scheduling changes tests/sim/test_sched.c checks one by one)
want_list="expected 22.05, 23.11, 24.05, 24.11, 25.05, 25.11 or 26.05"
expect 2 "slurm-version=23.02: $want_list" --slurm-version 23.02 "$data/trace.csv"
expect 2 "slurm-version=22.05.x: $want_list" --slurm-version 22.05.x "$data/trace.csv"
# two 2-CPU jobs on one 4,000 MB node with DefMemPerCPU=2000, no SelectType:
# 24.11 (cons_tres, CR_Core_Memory) runs them one after the other, 22.05
# (select/linear: no memory counted) at once
mkdir "$out/mem"
printf '%s\n' "DefMemPerCPU=2000" "NodeName=n1 CPUs=8 RealMemory=4000 Gres=gpu:a100:4" \
	"PartitionName=p Nodes=n1 Default=YES MaxTime=UNLIMITED" > "$out/mem/slurm.conf"
printf 'submit,gpus,cpus,run_time,gpu_type\n0,1,2,100,a100\n0,1,2,100,a100\n' > "$out/mem/trace.csv"
for v in 22.05.8:0 23.11.11:50 24.11.5:50 26.05.3:50; do
	"$sim" --replicas 1 --mode baseline --slurm-version "${v%:*}" -c "$out/mem" "$out/mem/trace.csv" \
		> "$out/v.txt" 2>&1 || fail "--slurm-version ${v%:*}: $(cat "$out/v.txt")"
	grep -q "^  wait mean \[s\]  *${v#*:}$" "$out/v.txt" ||
		fail "--slurm-version ${v%:*}: mean wait not ${v#*:}: $(grep 'wait mean' "$out/v.txt")"
	grep -q "^slurm.conf read with Slurm ${v%.*:*}'s defaults where it is silent (--slurm-version).$" \
		"$out/v.txt" || fail "--slurm-version ${v%:*}: the footer does not name it: $(tail -2 "$out/v.txt")"
done
# a 25.05 partition's own Topology= is noted as not modelled, the 26.05-only
# keys (here HealthCheckTimeout) are ignored silently, as any unknown key
mkdir "$out/k2605"
printf '%s\n' "HealthCheckTimeout=60" "NodeName=n1 CPUs=8 RealMemory=4000 Gres=gpu:a100:4" \
	"PartitionName=p Nodes=n1 Default=YES Topology=default" > "$out/k2605/slurm.conf"
expect 0 "note: .*slurm.conf:3: Topology (new since Slurm 22.05) is not modelled; ignored" \
	--replicas 1 --mode baseline --slurm-version 26.05 -c "$out/k2605" "$out/mem/trace.csv"
grep -q "HealthCheckTimeout" "$out/stderr" && fail "26.05 key HealthCheckTimeout noted: $(cat "$out/stderr")"
# without the option: the release nodeox was built against (configure)
"$sim" --replicas 1 --mode baseline -c "$out/mem" "$out/mem/trace.csv" > "$out/v.txt" 2>&1
built=$(sed -n 's/^#define NODEOX_SLURM_VERSION_NUMBER //p' "$top_builddir/config.h")
want=24.11   # built without Slurm; else the newest modelled release not after it
if [ -n "$built" ]; then
	rel=$(( (built >> 16) * 100 + ((built >> 8) & 255) ))
	for r in 2205 2311 2405 2411 2505 2511 2605; do
		[ "$r" -le "$rel" ] && want="${r:0:2}.${r:2:2}"
	done
fi
grep -q "^slurm.conf read with Slurm $want's defaults" "$out/v.txt" ||
	fail "default release: want $want (built against $built): $(tail -1 "$out/v.txt")"
"$sim" -c "$data" --slurm-version 24.11 --sweep 'flex=0.2,0.5' --sweep-array "$out/arr" "$data/trace.csv" \
	> /dev/null 2>&1 || fail "--sweep-array with --slurm-version"
grep -qx -- "--slurm-version=24.11" "$out/arr/sweep.args" ||
	fail "sweep.args lacks --slurm-version=24.11: $(cat "$out/arr/sweep.args")"
echo "PASS: usage and input errors, --skip-bad, baseline without policy, JSON keys, --price, a 24.11 cluster, what it was checked against, --slurm-version"
