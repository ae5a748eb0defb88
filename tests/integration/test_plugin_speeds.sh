#!/bin/sh
# tests/integration/test_plugin_speeds.sh: SpeedTable= in a real slurmctld,
# jobs submitted by an unprivileged user. The article's nodeox.conf (l40s at
# Speed=0.6 against a100) names a speed table in which workload bert-ft runs
# l40s at 0.25 and workload fast-l40s at 1.5:
#   - a bert-ft job (tag's workload=, or its job name) gets its limit scaled
#     by 1/0.25 and is told, as the log says, which speed and whence; with
#     both a100 nodes busy it runs on l40s;
#   - a job with no entry is decided as with Speed= alone; an untagged job
#     named bert-ft is untouched;
#   - MinSpeed=0.3 keeps the bert-ft job off l40s, not the others;
#   - Broaden=when-faster: a job kept by Speed= (33 min on a100 against 50 on
#     l40s) is broadened for fast-l40s and runs on l40s;
#   - a bad table is logged with FILE:LINE and the last good one stays;
#   - `nodeox why` (where built) decides with the same table, or with
#     --speed-table FILE.
[ -n "$BASH_VERSION" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib/cluster.sh"
. "$(dirname "$0")/../why/why_lib.sh"

cluster_init
cluster_use_plugin
cluster_default_topology
speeds="$CLUSTER_DIR/speeds"
# write_speeds: stdin as the table, with its mtime moved on
write_speeds()
{
	local old=0
	[ -f "$speeds" ] && old=$(stat -c %Y "$speeds")
	cat > "$speeds"
	[ "$(stat -c %Y "$speeds")" -gt "$old" ] || touch -d "@$((old + 1))" "$speeds"
	chmod 644 "$speeds"
	cluster_nodeox_conf_settle
}
write_speeds <<'T'
nodeox-speeds v=1 made=2026-12-04T10:00:00Z from=test_plugin_speeds
# scope name asked run speed jobs spread
workload bert-ft a100 l40s 0.25 37 0.05
workload fast-l40s a100 l40s 1.5 12 0.1
T
cluster_nodeox_conf_article SpeedTable=speeds
cluster_start
check_match "$(cluster_ctld_log)" "loaded speed table $speeds: 2 entries, made 2026-12-04T10:00:00Z from test_plugin_speeds" "table loaded at start"

# both a100 nodes busy: a broadened job can only run on l40s
cluster_filler fa1 a1 gpu:a100:4
cluster_filler fa2 a2 gpu:a100:4
j=$(cluster_sbatch -t 60 --gres=gpu:a100:2 --comment=nodeox:flex:workload=bert-ft --wrap "sleep 300")
check_eq "$(cluster_submit_msg)" "sbatch: nodeox: GPU type a100 broadened to a100|l40s, time limit 60 -> 240 min (l40s at 0.25 for workload bert-ft, from 37 jobs)" "workload=: the user is told the speed and its source"
check_eq "$(job_field "$j" TimeLimit)" 04:00:00 "workload=: limit scaled by the table's 0.25"
check_match "$(cluster_ctld_log | grep -c 'REWRITE: GPU type a100 broadened to a100|l40s, time limit 60 -> 240 min (l40s at 0.25 for workload bert-ft, from 37 jobs)')" '^1$' "workload=: the log line says it too"
check_true "workload=: starts" wait_for_state "$j" RUNNING 20
check_match "$(job_field "$j" NodeList)" '^l[12]$' "workload=: runs on an l40s node"

j=$(cluster_sbatch --hold -t 60 -J bert-ft --gres=gpu:a100:2 --comment=nodeox:flex --wrap true)
check_eq "$(job_field "$j" TimeLimit)" 04:00:00 "job name as the workload: limit scaled by 0.25"
check_match "$(cluster_submit_msg)" "l40s at 0.25 for workload bert-ft, from 37 jobs" "job name as the workload: told"

# no entry: as Speed= alone (60 / 0.6)
j=$(cluster_sbatch --hold -t 60 -J other --gres=gpu:a100:2 --comment=nodeox:flex --wrap true)
check_eq "$(cluster_submit_msg)" "sbatch: nodeox: GPU type a100 broadened to a100|l40s, time limit 60 -> 100 min" "no entry: Speed= and nothing else said"
check_eq "$(job_field "$j" TimeLimit)" 01:40:00 "no entry: limit scaled by Speed="
j=$(cluster_sbatch --hold -t 60 -J bert-ft --gres=gpu:a100:2 --wrap true)
check_eq "$(cluster_submit_msg)" "" "untagged bert-ft: nothing said"
check_eq "$(job_field "$j" TresPerNode)" "$(cluster_tres gres:gpu:a100:2)" "untagged bert-ft: request as asked"
check_eq "$(job_field "$j" TimeLimit)" 01:00:00 "untagged bert-ft: limit as asked"
if [ -x "$WHY_BIN" ] && command -v python3 >/dev/null 2>&1; then
	WHY_OUT="$CLUSTER_DIR/why.json"
	why_run "$j"
	check_match "$(jq_py 'j["flex"]["policy_reason"]')" 'time limit 60 -> 240 min \(l40s at 0.25 for workload bert-ft, from 37 jobs\)$' "nodeox why: the table SpeedTable= names"
	printf 'nodeox-speeds v=1 made=x from=y\nworkload bert-ft a100 l40s 0.5 4 0\n' > "$CLUSTER_DIR/other-speeds"
	why_run "$j" --speed-table "$CLUSTER_DIR/other-speeds"
	check_match "$(jq_py 'j["flex"]["policy_reason"]')" 'time limit 60 -> 120 min \(l40s at 0.5 for workload bert-ft, from 4 jobs\)$' "nodeox why --speed-table: that table"
fi

# MinSpeed=0.3: bert-ft's l40s (0.25) is below it, Speed='s (0.6) is not
cluster_nodeox_conf_article SpeedTable=speeds MinSpeed=0.3
j=$(cluster_sbatch --hold -t 60 --gres=gpu:a100:2 --comment=nodeox:flex:workload=bert-ft --wrap true)
check_eq "$(cluster_submit_msg)" "sbatch: nodeox: not broadened: no type eligible beyond a100 (l40s at 0.25 for workload bert-ft, from 37 jobs: below MinSpeed)" "MinSpeed: kept by the table's speed, told why"
check_eq "$(job_field "$j" TresPerNode)" "$(cluster_tres gres:gpu:a100:2)" "MinSpeed: request as asked"
j=$(cluster_sbatch --hold -t 60 --gres=gpu:a100:2 --comment=nodeox:flex:workload=other --wrap true)
check_eq "$(job_field "$j" Features)" "a100|l40s" "MinSpeed: a job without an entry still broadened"
scancel "$fa1" "$fa2"
scancel -u "$CLUSTER_USER"
wait_for_empty_queue 30

# when-faster, as test_plugin_faster.sh: a1 back in 3 minutes, a2 in an hour
cluster_nodeox_conf_article SpeedTable=speeds Broaden=when-faster
f1=$(cluster_sbatch -w a1 -t 3 --gres=gpu:a100:4 --wrap "sleep 600")
f2=$(cluster_sbatch -w a2 -t 60 --gres=gpu:a100:4 --wrap "sleep 600")
check_true "filler on a1 runs" wait_for_state "$f1" RUNNING 20
check_true "filler on a2 runs" wait_for_state "$f2" RUNNING 20
k=$(cluster_sbatch --hold -t 30 --gres=gpu:a100:4 --comment=nodeox:flex:workload=other --wrap "sleep 600")
check_match "$(cluster_submit_msg)" '^sbatch: nodeox: kept: a100 expected free in about [23] min' "when-faster, no entry: kept by Speed="
b=$(cluster_sbatch -t 30 --gres=gpu:a100:4 --comment=nodeox:flex:workload=fast-l40s --wrap "sleep 600")
check_match "$(cluster_submit_msg)" '^sbatch: nodeox: GPU type a100 broadened to a100\|l40s \(l40s at 1.5 for workload fast-l40s, from 12 jobs\); broadened: a100 expected free in about [23] min, l40s free now' "when-faster, fast-l40s: broadened by the table's speed, told why"
check_eq "$(job_field "$b" TimeLimit)" 00:30:00 "when-faster, fast-l40s: no slower type, limit as asked"
check_true "when-faster, fast-l40s: starts" wait_for_state "$b" RUNNING 20
check_match "$(job_field "$b" NodeList)" '^l[12]$' "when-faster, fast-l40s: runs on an l40s node"
scancel "$k"

# a bad table: FILE:LINE logged, the last good one stays in force
write_speeds <<'T'
nodeox-speeds v=1 made=x from=y
workload bert-ft a100 l40s -1 37 0.05
T
j=$(cluster_sbatch --hold -t 60 --gres=gpu:a100:2 --comment=nodeox:flex:workload=bert-ft --wrap true)
check_match "$(cluster_ctld_log)" "speed table $speeds:2: speed '-1': expected a number above 0 and at most 1000; keeping the last good table \($speeds, 2 entries\)" "bad table: logged with file:line"
check_match "$(cluster_submit_msg)" "l40s at 0.25 for workload bert-ft, from 37 jobs" "bad table: the last good one decides"
check_true "slurmctld still runs" cluster_alive slurmctld
cluster_finish
