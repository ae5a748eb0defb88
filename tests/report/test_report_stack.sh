#!/bin/bash
# test_report_stack.sh: `nodeox report` on the real stack (issue 45): the
# private cluster with job_submit/nodeox enforcing and a real slurmdbd with
# MariaDB (tests/integration/lib/accounting.sh, as the sacct round trip
# test), a workload with known outcomes submitted by an unprivileged user:
# the a100 nodes held by two untagged jobs (then cancelled), so tagged a100
# jobs are broadened and run on l40s: one completes, one fails (exit 3), one
# times out (-t 1), one whose AdminComment an operator replaces while it runs
# (the record lost, as `scancel --admin-comment` does since 25.11); a tagged
# job kept (mem=80G: l40s has 48G) that waits for an a100; untagged jobs
# that complete, are cancelled, and one requeued by an operator while it
# runs. OUT_OF_MEMORY cannot happen here: the private cluster has
# TaskPlugin=task/none (no memory enforcement), so it is not in the workload.
# Then `sacct -D` with the importer's columns, `nodeox report`, and every
# figure of its JSON compared with sacct_figures.awk's reading of the same
# rows; the outcomes checked by name; the Prometheus file by promtool; the
# counterfactual (nodeox-sim on this cluster's configuration) made for every job,
# per group as accounting tells it (broadened, kept, record_lost, untagged)
# and all: what happened in each against sacct's rows (awk), the model's
# figures against nodeox-sim run by hand with the groups as this test knows
# them (so a label the report swaps or drops fails).
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/integration/lib/accounting.sh"
nodeox=$top_builddir/cli/nodeox
[ -x "$nodeox" ] || { echo "FAIL: cli/nodeox not built"; exit 1; }

accounting_init
cluster_use_plugin
cluster_nodeox_conf_article ScaleTimeLimit=no
cluster_start
t0=$(date +%Y-%m-%dT%H:%M:%S -d '-1 min')

# the a100s busy: tagged a100 jobs can only start broadened, on l40s
cluster_filler f1 a1 gpu:a100:4
cluster_filler f2 a2 gpu:a100:4
tag=(--comment nodeox:flex)
b_ok=$(cluster_sbatch --gres=gpu:a100:1 -t 5 "${tag[@]}" --wrap "sleep 2")
b_fail=$(cluster_sbatch --gres=gpu:a100:1 -t 5 "${tag[@]}" --wrap "sleep 1; exit 3")
b_time=$(cluster_sbatch --gres=gpu:a100:1 -t 1 "${tag[@]}" --wrap "sleep 300")
b_lost=$(cluster_sbatch --gres=gpu:a100:1 -t 5 "${tag[@]}" --wrap "sleep 8")
k=$(cluster_sbatch --gres=gpu:a100:1 -t 5 --comment nodeox:flex:mem=80G --wrap "sleep 2")
u_ok=$(cluster_sbatch --gres=gpu:l40s:1 -t 5 --wrap "sleep 2")
u_cancel=$(cluster_sbatch --gres=gpu:l40s:1 -t 5 --wrap "sleep 300")
u_requeue=$(cluster_sbatch --requeue --gres=gpu:l40s:1 -t 5 --wrap "sleep 8")
check_match "$(job_field "$b_ok" AdminComment)" "^nodeox: changed v=1 type=a100 " "broadened job has the record"
check_eq "$(job_field "$k" AdminComment)" "" "kept job has no record"

check_true "the replaced record's job runs" wait_for_state "$b_lost" RUNNING 30
scontrol update jobid="$b_lost" AdminComment="moved by the operator" ||
	check_true "scontrol update AdminComment" false
check_eq "$(job_field "$b_lost" AdminComment)" "moved by the operator" "record replaced"
check_true "the job to requeue runs" wait_for_state "$u_requeue" RUNNING 30
scontrol requeue "$u_requeue" || check_true "scontrol requeue" false
# slurmctld holds a requeued job back (BeginTime) for a while: let it go,
# two seconds after the requeue. The requeue revokes the job's credential on
# its node, and slurmd refuses a credential made in the same second as that
# revocation ("Killing non-startable batch JobId=N: Job credential revoked":
# the rerun FAILED at once on 24.11, seen in CI); a start in a later second
# gets a newer one.
check_true "the requeued job is pending again" wait_for_state "$u_requeue" PENDING 20
sleep 2
scontrol update jobid="$u_requeue" StartTime=now || check_true "scontrol update StartTime" false
check_true "the job to cancel runs" wait_for_state "$u_cancel" RUNNING 30
scancel "$u_cancel"
sleep 3 # the kept job waits for an a100 a few seconds
scancel "$f1" "$f2"
ids=("$f1" "$f2" "$b_ok" "$b_fail" "$b_time" "$b_lost" "$k" "$u_ok" "$u_cancel" "$u_requeue")
check_true "every job ended in the accounting database" accounting_wait_jobs 150 "${ids[@]}"

sacct -a -X -P -D -S "$t0" -E now --format="$ACCT_FORMAT" > "$CLUSTER_DIR/history.txt"
cat "$CLUSTER_DIR/history.txt"
NODEOX_SIM=$top_builddir/sim/nodeox-sim "$nodeox" report --cluster "$CLUSTER_DIR" --replicas 4 \
	--plot "$CLUSTER_DIR/report.svg" \
	--policy "$CLUSTER_DIR/nodeox.conf" --price a100=3,l40s=1 --json "$CLUSTER_DIR/r.json" \
	--prometheus "$CLUSTER_DIR/r.prom" "$CLUSTER_DIR/history.txt" > "$CLUSTER_DIR/report.txt" \
	2> "$CLUSTER_DIR/report.err"
check_eq "$?" 0 "nodeox report exit status"
cat "$CLUSTER_DIR/report.txt" "$CLUSTER_DIR/report.err"

# every figure against sacct's own rows, read again by awk
awk -f "$top_srcdir/tests/report/sacct_figures.awk" "$CLUSTER_DIR/history.txt" > "$CLUSTER_DIR/figs.txt"
check_true "every figure equals sacct's rows (awk)" \
	python3 "$top_srcdir/tests/report/compare_figures.py" "$CLUSTER_DIR/figs.txt" "$CLUSTER_DIR/r.json"
# the known outcomes, by name
fig() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$CLUSTER_DIR/r.json"; }
st() { fig "sum(s['jobs'] for s in d['states'] if (s['asked'],s['ran'],s['state'])==('$1','$2','$3'))"; }
check_eq "$(fig "d['groups']['broadened']['jobs'], d['groups']['kept']['jobs'], d['groups']['untagged']['jobs'], d['groups']['record_lost']['jobs']")" \
	"3 1 5 1" "groups: broadened, kept, untagged, record lost"
check_eq "$(st a100 l40s COMPLETED) $(st a100 l40s FAILED) $(st a100 l40s TIMEOUT)" "1 1 1" \
	"broadened on l40s: completed, failed, timed out"
check_eq "$(st a100 a100 COMPLETED) $(st a100 a100 CANCELLED)" "1 2" "a100 as asked: the kept job, the fillers"
check_eq "$(st l40s l40s COMPLETED) $(st l40s l40s CANCELLED) $(st l40s l40s REQUEUED)" "2 1 1" \
	"untagged l40s: completed (one after a requeue), cancelled, requeued"
check_eq "$(fig "d['requeues_merged'], d['groups']['record_lost']['job_ids']")" "1 ['$b_lost']" \
	"the requeue merged, the lost record named"
check_match "$(fig "d['groups']['kept']['reasons'][0]['reason']")" "l40s too little memory" "kept job's reason"
check_true "the kept job waited" test "$(fig "int(d['groups']['kept']['wait']['mean'] >= 1)")" = 1
check_match "$(cat "$CLUSTER_DIR/report.err")" "1 jobs have an AdminComment that is not job_submit/nodeox's record \(first: $b_lost\)" \
	"foreign record named on stderr"
# the counterfactual: every job replayed by nodeox-sim under this cluster's
# slurm.conf, gres.conf and nodeox.conf, 4 replicas, beside what happened
check_eq "$(fig "d['counterfactual']['replicas'], [(n, g['jobs'], g['replayed_jobs'], g['replayed_jobs_off']) for n, g in d['counterfactual']['groups'].items()]")" \
	"4 [('broadened', 3, 3, 3), ('kept', 1, 1, 1), ('untagged', 5, 5, 5), ('record_lost', 1, 1, 1), ('all', 10, 10, 10)]" \
	"counterfactual: its groups, each job replayed plugin on and off"
# what happened per group: the "cf" lines of the awk reading, checked above by compare_figures.py
check_eq "$(grep -c '^cf ' "$CLUSTER_DIR/figs.txt")" 35 "counterfactual: 5 groups x 7 figures as happened against sacct"
check_true "counterfactual: each figure judged, each group given a verdict" test "$(fig "all(v['plugin'] in ('sooner','later','within noise') and isinstance(v['model_off'], bool) for g in d['counterfactual']['groups'].values() for v in g.values() if isinstance(v, dict)) and all(g['verdict'] == g['turnaround_mean_s']['plugin'] for g in d['counterfactual']['groups'].values())")" = True
# the model's figures: nodeox-sim on the importer's trace of the same rows,
# with the groups written here from the job ids (not by the report's rule)
"$top_builddir/sim/nodeox-sacct-import" -q -k -o "$CLUSTER_DIR/trace.csv" "$CLUSTER_DIR/history.txt" 2> /dev/null
{
	echo job_id,label
	for j in "$b_ok" "$b_fail" "$b_time"; do echo "$j,broadened"; done
	echo "$k,kept"
	echo "$b_lost,record_lost"
	for j in "$f1" "$f2" "$u_ok" "$u_cancel" "$u_requeue"; do echo "$j,untagged"; done
} > "$CLUSTER_DIR/labels.csv"
check_true "nodeox-sim with the groups by hand" "$top_builddir/sim/nodeox-sim" -q --cluster "$CLUSTER_DIR" \
	--policy "$CLUSTER_DIR/nodeox.conf" --replicas 4 --labels "$CLUSTER_DIR/labels.csv" \
	--json "$CLUSTER_DIR/sim.json" "$CLUSTER_DIR/trace.csv"
check_true "counterfactual: the model's figures per group are nodeox-sim's" python3 - "$CLUSTER_DIR/r.json" "$CLUSTER_DIR/sim.json" << 'PY'
import json, sys
cf = json.load(open(sys.argv[1]))["counterfactual"]["groups"]; s = json.load(open(sys.argv[2]))
n = 0
for name, c in cf.items():
    for side, run in (("on", "nodeox"), ("off", "baseline")):
        sg = s[run]["all"] if name == "all" else s[run]["labels"][name]
        for key, v in c.items():
            if isinstance(v, dict):
                for st, suffix in (("median", ""), ("lo", "_lo"), ("hi", "_hi")):
                    assert abs(v[side][st] - sg[key + suffix]) < 1e-3, (name, key, side, st, v[side], sg[key + suffix])
                    n += 1
print(f"{n} model figures equal nodeox-sim's")
PY
check_match "$(cat "$CLUSTER_DIR/report.txt")" "Counterfactual: nodeox-sim on the same jobs as submitted, 4 replicas" \
	"counterfactual table"
check_eq "$(grep -c '<text>model, plugin off</text>' "$CLUSTER_DIR/report.svg")" 8 \
	"--plot: the 4 groups' wait and turnaround against the model"
if command -v promtool > /dev/null; then
	check_true "promtool check metrics" bash -c 'promtool check metrics < "$1"' - "$CLUSTER_DIR/r.prom"
fi
check_match "$(grep '^nodeox_report_state_jobs{asked="a100",ran="l40s",state="TIMEOUT"}' "$CLUSTER_DIR/r.prom")" " 1$" \
	"Prometheus: the broadened job that timed out, by the type it ran on"
cluster_finish
