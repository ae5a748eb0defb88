#!/bin/bash
# test_speeds_stack.sh: speeds measured, not declared, on the real stack
# (issue 46, item 6): the private cluster with job_submit/nodeox enforcing
# and a real slurmdbd with MariaDB (tests/integration/lib/accounting.sh,
# AccountingStoreFlags=job_comment). An unprivileged user's jobs run
# nodeox-run under srun (--mpi=pmix) on a100 (a1) and l40s (l1) nodes; the
# CPU backend stretches steps to --emulate-base-ms / speed, and the jobs'
# NODEOX_CONF gives l40s 0.3 (how fast this workload "really" runs there)
# while the plugin's nodeox.conf says Speed=0.6. Each job stores its speed
# record in its own Comment (scontrol update as the job's user) and sacct
# shows it, after the user's tag and text. `nodeox speeds` builds the table
# from sacct's history (bert-ft: l40s at about 0.3 from 6 jobs; a workload
# with one job left out and said), nodeox.conf names it (SpeedTable=), and
# a later tagged bert-ft job is broadened with its time limit scaled by the
# table's speed (60 -> about 200 min, not Speed='s 100), as the user's
# message and slurmctld's log say; a tagged job of a workload the table does
# not know is decided with its user's entry; another user's is decided with
# Speed= exactly as before the table, and an untagged job is left alone.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/integration/lib/accounting.sh"
nodeox=$top_builddir/cli/nodeox
run=$top_builddir/runtime/nodeox-run
data=${FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}
[ -x "$nodeox" ] || { echo "FAIL: cli/nodeox not built"; exit 1; }
[ -x "$run" ] || { echo "SKIP: runtime/nodeox-run not built (no MPI)"; exit 77; }
[ -f "$data/train-images-idx3-ubyte.gz" ] ||
	{ echo "SKIP: no Fashion-MNIST in $data (Debian package dataset-fashion-mnist)"; exit 77; }

accounting_init
[ -f "$CLUSTER_SLURM_PLUGINDIR/mpi_pmix.so" ] ||
	cluster_skip "Slurm's mpi/pmix plugin is not installed ($CLUSTER_SLURM_PLUGINDIR/mpi_pmix.so)"
mkdir -p "$CLUSTER_DIR/pmix"
echo "PMIxCliTmpDirBase=$CLUSTER_DIR/pmix" > "$CLUSTER_DIR/mpi.conf"
cluster_use_plugin
cluster_default_topology
cluster_nodeox_conf_article
cluster_start
t0=$(date +%Y-%m-%dT%H:%M:%S -d '-1 min')

# what the GPUs "really" do for this workload: l40s at 0.3 of a100
truth=$CLUSTER_DIR/work/truth.conf
printf 'GpuType=a100 Speed=1.0\nGpuType=l40s Speed=0.3\n' > "$truth"
chmod 644 "$truth"
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
train="srun -n 1 --mpi=pmix $run --data $data --mode rounds -H 5 --sync-warmup 0 --steps 40 --eval-every 0 --max-train 2000 --emulate-base-ms 20"
job() { # NODE GRES NAME COMMENT: one training job pinned to NODE
	cluster_sbatch -w "$1" --gres="gpu:$2:1" -t 10 -J "$3" --comment "$4" \
		--export=ALL,NODEOX_CONF="$truth" -o "$CLUSTER_DIR/work/slurm-%j.out" --wrap "$train"
}
ids=()
ids+=("$(job a1 a100 bert-ft 'my text')")
ids+=("$(job a1 a100 bert-ft 'my text')")
ids+=("$(job a1 a100 other-name 'nodeox:flex:workload=bert-ft tagged run')")
ids+=("$(job l1 l40s bert-ft 'my text')")
ids+=("$(job l1 l40s bert-ft 'my text')")
ids+=("$(job l1 l40s bert-ft 'my text')")
ids+=("$(job l1 l40s resnet '')")
ids+=("$(job a1 a100 resnet '')")
check_eq "${#ids[@]}" 8 "eight training jobs submitted"
check_true "every training job ended in the accounting database" accounting_wait_jobs 240 "${ids[@]}"
for id in "${ids[@]}"; do
	check_eq "$(sacct -n -X -P -j "$id" -o State)" COMPLETED "job $id completed"
done
cat "$CLUSTER_DIR/work/slurm-${ids[3]}.out"

# sacct shows each record after the user's text, tag kept, as the job's user stored it
sacct -a -X -P -S "$t0" -E now --format="$ACCT_FORMAT" > "$CLUSTER_DIR/history.txt"
cat "$CLUSTER_DIR/history.txt"
comment() { sacct -n -X -P -j "$1" -o Comment; }
check_match "$(comment "${ids[0]}")" '^my text nodeox-speeds:v1:w=bert-ft;g=a100:[0-9.]+:1:[0-9]+$' \
	"sacct: the a100 job's record after the user's text"
check_match "$(comment "${ids[2]}")" '^nodeox:flex:workload=bert-ft tagged run nodeox-speeds:v1:w=bert-ft;g=a100:' \
	"sacct: the tag kept, its workload= named in the record (not the job name)"
check_match "$(comment "${ids[3]}")" '^my text nodeox-speeds:v1:w=bert-ft;g=l40s:[0-9.]+:1:[0-9]+$' \
	"sacct: the l40s job's record"
check_match "$(comment "${ids[6]}")" '^nodeox-speeds:v1:w=resnet;g=l40s:' "sacct: a job without comment: the record alone"
check_match "$(grep -h 'speed record stored' "$CLUSTER_DIR"/work/slurm-*.out | wc -l)" '^8$' \
	"each job said it stored its record"

# the table from that history
"$nodeox" speeds -o "$CLUSTER_DIR/speeds" "$CLUSTER_DIR/history.txt" 2> "$CLUSTER_DIR/speeds.err"
check_eq "$?" 0 "nodeox speeds exit status"
cat "$CLUSTER_DIR/speeds" "$CLUSTER_DIR/speeds.err"
chmod 644 "$CLUSTER_DIR/speeds"
entry=$(awk '$1 == "workload" && $2 == "bert-ft" && $3 == "a100" && $4 == "l40s"' "$CLUSTER_DIR/speeds")
check_match "$entry" '^workload bert-ft a100 l40s 0\.(29[0-9]*|3|30[0-9]*|31[0-9]*) 6 ' "table: bert-ft l40s at about 0.3 from 6 jobs"
check_match "$(cat "$CLUSTER_DIR/speeds.err")" 'left out workload resnet a100<->l40s: 1 jobs measured on a100 and 1 on l40s, fewer than --min-jobs 3' \
	"table: resnet (one job on each type) left out, said"
check_match "$(head -1 "$CLUSTER_DIR/speeds")" "^nodeox-speeds v=1 made=[0-9TZ:-]+ from=history.txt:[0-9-]+\.\.[0-9-]+$" \
	"table header: when and from what"

# a later submission of the same workload is decided with it
cluster_nodeox_conf_article SpeedTable=speeds
scontrol reconfigure
later=$(cluster_sbatch --hold --gres=gpu:a100:1 -t 60 --comment nodeox:flex:workload=bert-ft --wrap "sleep 1")
msg=$(cluster_submit_msg)
echo "$msg"
check_match "$(cluster_ctld_log)" "loaded speed table $CLUSTER_DIR/speeds: [0-9]+ entries, made [0-9TZ:-]+ from history.txt:" \
	"slurmctld loaded the table"
check_match "$msg" '^sbatch: nodeox: GPU type a100 broadened to a100\|l40s, time limit 60 -> (19[0-9]|20[0-9]|21[0-9]) min \(l40s at 0\.(29|3|30|31)[0-9]* for workload bert-ft, from 6 jobs\)$' \
	"the user is told the table's speed and its source"
check_match "$(cluster_ctld_log)" "l40s at 0\.(29|3|30|31)[0-9]* for workload bert-ft, from 6 jobs" "slurmctld's log names it too"
# a workload the table does not know: the user's own entry
mine=$(cluster_sbatch --hold --gres=gpu:a100:1 -t 60 --comment nodeox:flex:workload=unknown-wl --wrap "sleep 1")
check_match "$(cluster_submit_msg)" "^sbatch: nodeox: GPU type a100 broadened to a100\|l40s, time limit 60 -> (19[0-9]|20[0-9]|21[0-9]) min \(l40s at 0\.(29|3|30|31)[0-9]* for user $CLUSTER_USER, from 8 jobs\)$" \
	"no workload entry: the user's entry, said"
# another user, no entry at all: Speed= as before; untagged: nothing
other=$(CLUSTER_SUBMIT_USER=$CLUSTER_USER2 cluster_sbatch --hold --gres=gpu:a100:1 -t 60 \
	--comment nodeox:flex:workload=unknown-wl --wrap "sleep 1")
check_eq "$(cluster_submit_msg)" "sbatch: nodeox: GPU type a100 broadened to a100|l40s, time limit 60 -> 100 min" \
	"no entry: decided with Speed= (0.6), as without a table"
plain=$(cluster_sbatch --hold --gres=gpu:a100:1 -t 60 -J bert-ft --wrap "sleep 1")
check_eq "$(job_field "$plain" AdminComment)" "" "untagged job of the workload: not changed"
check_eq "$(job_field "$plain" TimeLimit)" "01:00:00" "untagged job: its time limit kept"
scancel "$later" "$mine" "$other" "$plain"
cluster_finish
