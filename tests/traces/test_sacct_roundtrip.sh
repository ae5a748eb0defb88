#!/bin/bash
# test_sacct_roundtrip.sh: the admin's path sacct -> nodeox-sacct-import ->
# nodeox-sim on a real accounting stack (tests/integration/lib/accounting.sh:
# MariaDB, slurmdbd 22.05, the private cluster with job_submit/nodeox). A mixed
# set of jobs (untagged typed and untyped, tagged and rewritten per node and
# per job, tagged and kept, a malformed tag rejected, an array, a 2-node job,
# a --cpus-per-gpu job, 6 GPUs per job and per node over 2 nodes) is
# submitted, waited for, exported with the documented sacct command and
# imported: each job's trace row must be what was submitted (type, count,
# nodes asked, unscaled time limit, comment with its tag), whatever the plugin
# made of it, and what it asked (cpus; per GPU where it got a whole number
# more per GPU: cpus_per_gpu, mem_per_gpu) beside what it got (alloc_cpus,
# alloc_mem); then the trace replays in nodeox-sim's compare mode.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/integration/lib/accounting.sh"
imp=$top_builddir/sim/nodeox-sacct-import
sim=$top_builddir/sim/nodeox-sim
[ -x "$imp" ] && [ -x "$sim" ] || { echo "FAIL: nodeox-sacct-import or nodeox-sim not built"; exit 1; }

accounting_init
cluster_use_plugin
cluster_nodeox_conf_article
cluster_start
t0=$(date +%Y-%m-%dT%H:%M:%S -d '-1 min')
w=(--wrap "sleep 1")

# id|gpu_type|gpus|nodes|time_limit|comment, as submitted
expect=()
submit() {   # submit EXPECTED_ROW_WITHOUT_ID SBATCH_ARGS...: one job or array
	local row=$1 id i
	shift
	id=$(cluster_sbatch "$@" "${w[@]}") || { check_true "sbatch $*" false; return; }
	ids+=("$id")
	case " $* " in
	*" --array=0-1 "*) for i in 0 1; do expect+=("${id}_$i|$row"); done ;;
	*) expect+=("$id|$row") ;;
	esac
}
ids=()
submit "a100|1|1|120|" -p gpu --gres=gpu:a100:1 -t 2
submit "|2|1|180|plain run" --gpus=2 -t 3 --comment "plain run"
submit "a100|2|1|60|exp7 nodeox:flex:mem=40G" --gres=gpu:a100:2 -t 1 --comment "exp7 nodeox:flex:mem=40G"
submit "a100|1|1|120|a|b nodeox:flex" --gpus=a100:1 -t 2 --comment "a|b nodeox:flex"
submit "a100|1|1|120|nodeox:flex:mem=80G" --gres=gpu:a100:1 -t 2 --comment "nodeox:flex:mem=80G"
submit "l40s|1|1|120|nodeox:flex" --array=0-1 --gres=gpu:l40s:1 -t 2 --comment nodeox:flex
submit "a100|4|2|120|2n nodeox:flex:uniform" -N 2 --gres=gpu:a100:2 -t 2 --comment "2n nodeox:flex:uniform"
submit "l40s|2|1|120|" --gres=gpu:l40s:2 --cpus-per-gpu=2 -t 2
# --gpus=6 without -N asks per job (ReqTRES node=1) and gets 2 nodes (4 + 2):
# nodes stays empty; -N 2 asks 2 (ReqTRES node=2)
submit "a100|6||120|" --gpus=a100:6 -t 2
submit "a100|6|2|120|" -N 2 --gres=gpu:a100:3 -t 2
if cluster_sbatch --gres=gpu:a100:1 -t 2 --comment "nodeox:flex:fast" "${w[@]}" > /dev/null; then
	check_true "a malformed tag was accepted" false
fi
check_match "$(cluster_submit_msg)" "unknown option 'fast'" "malformed tag rejected with its reason"

# what the plugin did, as Slurm recorded it
check_match "$(job_field "${ids[2]}" AdminComment)" "^nodeox: changed v=1 type=a100 gpus=node:2 " \
	"rewritten job carries the record"
check_eq "$(job_field "${ids[2]}" TimeLimit)" "00:02:00" "rewritten job's limit scaled"
check_eq "$(job_field "${ids[4]}" AdminComment)" "" "kept job has no record"

check_true "jobs reached the accounting database" accounting_wait_jobs 40 "${ids[@]}"
accounting_sacct "$t0" > "$CLUSTER_DIR/history.txt"
check_match "$(grep -c . "$CLUSTER_DIR/history.txt")" "^12$" "sacct: header and 11 job rows"
"$imp" -o "$CLUSTER_DIR/trace.csv" "$CLUSTER_DIR/history.txt" 2> "$CLUSTER_DIR/import.err"
check_eq "$?" 0 "nodeox-sacct-import exit status"
cat "$CLUSTER_DIR/import.err"
check_match "$(cat "$CLUSTER_DIR/import.err")" "11 GPU jobs written; .* 0 malformed" "import summary"
check_match "$(cat "$CLUSTER_DIR/import.err")" "5 jobs rewritten by job_submit/nodeox imported as submitted" \
	"rewritten jobs recovered"
check_true "no warning: the accounting settings are complete" \
	bash -c '! grep -q warning "$1"' - "$CLUSTER_DIR/import.err"

# each job's row = what was submitted (python's csv reads the quoting)
got=$(python3 - "$CLUSTER_DIR/trace.csv" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print("|".join([r["job_id"], r["gpu_type"], r["gpus"], r["nodes"], r["time_limit"], r["comment"]]))
PY
)
for row in "${expect[@]}"; do
	id=${row%%|*}
	[ "${id%_*}" = "$id" ] || id=$(sacct -n -X -P -j "$id" -o JobIDRaw | head -1)
	check_eq "$(grep "^$id|" <<< "$got")" "$id|${row#*|}" "trace row of job ${row%%|*}"
done
check_match "$(grep -c '' <<< "$got")" "^11$" "11 rows, nothing else"

# asked and allocated, each in its column: a --cpus-per-gpu=2 job of 2 GPUs
# gets 4 CPUs (AllocTRES cpu=4, mem=4 x DefMemPerCPU=500); what slurmctld
# records as asked differs by version: 22.05 counts one CPU per task at
# submission (ReqTRES cpu=1,mem=500M, what its job-size priority counts), so
# the importer writes what the job got per GPU (cpus_per_gpu 2, mem_per_gpu
# 1000M) and leaves cpus and mem to their defaults; 24.11 counts the CPUs
# per GPU there too (ReqTRES cpu=4): cpus 4, nothing per GPU (mem, never
# given with mem_per_gpu, is not compared: nodeox-sim below refuses both)
case $CLUSTER_SLURM_VERSION in
22.*) want="|2|1000M|4|2000M" ;;
*) want="4|||4|2000M" ;;
esac
got=$(grep "^${ids[7]}," "$CLUSTER_DIR/trace.csv" | python3 -c 'import csv, sys
r = next(csv.DictReader(sys.stdin, fieldnames=sys.argv[1].split(",")))
print("|".join(r[k] for k in ("cpus", "cpus_per_gpu", "mem_per_gpu", "alloc_cpus", "alloc_mem")))' \
	"$(head -1 "$CLUSTER_DIR/trace.csv")")
check_eq "$got" "$want" "--cpus-per-gpu job (Slurm $CLUSTER_SLURM_VERSION): cpus|cpus_per_gpu|mem_per_gpu|alloc_cpus|alloc_mem"
# the imported past replays with and without the policy (a run that does not
# end is a failure, not a stalled make check)
timeout 300 "$sim" -q --cluster "$CLUSTER_DIR" --policy "$CLUSTER_DIR/nodeox.conf" --json "$CLUSTER_DIR/sim.json" \
	"$CLUSTER_DIR/trace.csv" > "$CLUSTER_DIR/sim.out" 2>&1
check_eq "$?" 0 "nodeox-sim compare on the imported trace"
check_eq "$(python3 -c 'import json,sys; d = json.load(open(sys.argv[1]))
print(d["baseline"]["all"]["jobs"], d["nodeox"]["all"]["jobs"], d["baseline"]["flex"]["jobs"])' \
	"$CLUSTER_DIR/sim.json" 2>&1)" "11 11 6" "compare mode: 11 jobs in both runs, the 6 tagged ones seen as tagged"

# Without AccountingStoreFlags=job_comment Slurm stores no --comment: the
# importer says so; a rewritten job still gets its tag back from its record,
# a kept one loses it (what the docs say is lost).
sed -i '/^AccountingStoreFlags=/d' "$CLUSTER_DIR/slurm.conf"
scontrol reconfigure || check_true "scontrol reconfigure" false
k1=$(cluster_sbatch --gres=gpu:a100:1 -t 1 --comment "run9 nodeox:flex:mem=40G" "${w[@]}")
k2=$(cluster_sbatch --gres=gpu:a100:1 -t 1 --comment "nodeox:flex:mem=80G" "${w[@]}")
check_true "jobs without job_comment reached the database" accounting_wait_jobs 40 "$k1" "$k2"
accounting_sacct "$t0" | grep -E "^(JobIDRaw|$k1|$k2)\|" > "$CLUSTER_DIR/history2.txt"
"$imp" -o "$CLUSTER_DIR/trace2.csv" "$CLUSTER_DIR/history2.txt" 2> "$CLUSTER_DIR/import2.err"
check_eq "$?" 0 "import without job_comment"
check_match "$(cat "$CLUSTER_DIR/import2.err")" "warning: no job has a Comment: .*AccountingStoreFlags=job_comment" \
	"warning names AccountingStoreFlags=job_comment"
check_eq "$(grep "^$k1," "$CLUSTER_DIR/trace2.csv" | cut -d, -f6,7,10,11)" "a100,1,60,nodeox:flex:mem=40G" \
	"rewritten job: type, limit and tag from its record"
check_eq "$(grep "^$k2," "$CLUSTER_DIR/trace2.csv" | cut -d, -f6,7,10,11)" "a100,1,60," \
	"kept job: its tag is lost without job_comment"
cluster_finish
