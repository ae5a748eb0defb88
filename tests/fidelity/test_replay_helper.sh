#!/bin/sh
# test_replay_helper.sh: the sbatch line tools/replay submits for a trace row
# is the job nodeox-sim schedules (doc/traces.md, "A row as sbatch"): -N and
# --gres per node or --gpus per job, -c from cpus over the tasks,
# --cpus-per-gpu and --mem-per-gpu as given, mem (the job's total) as --mem
# per node or, without nodes, --mem-per-gpu; nothing for what a row leaves out.
set -u
src=${top_srcdir:?run from make check}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nodeox-replay-helper.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.csv" <<'CSV'
job_id,submit,gpus,nodes,gpu_type,run_time,time_limit,cpus,cpus_per_gpu,mem,mem_per_gpu
1,0,8,2,a100,60,90,,2,,40G
2,1,4,,l40s,60,,6,,64G,
3,2,0,,,60,,,,1G,
4,3,8,2,,60,,4,,32G,
5,4,1,1,a100,60,,,,,
CSV
python3 "$src/tools/replay-helper" jobs "$tmp/t.csv" | cut -f 6- | tr '\t' ' ' > "$tmp/got"
cat > "$tmp/want" <<'OUT'
--job-name=t1 -N 2 --gres=gpu:a100:4 --time=2 --cpus-per-gpu=2 --mem-per-gpu=40960M
--job-name=t2 --gpus=l40s:4 --cpus-per-task=6 --mem-per-gpu=16384M
--job-name=t3 --mem=1024M
--job-name=t4 -N 2 --gres=gpu:4 --cpus-per-task=2 --mem=16384M
--job-name=t5 -N 1 --gres=gpu:a100:1
OUT
diff "$tmp/want" "$tmp/got" || { echo "FAIL: replay-helper jobs: sbatch lines differ (- want, + got)"; exit 1; }
echo "PASS: replay-helper's sbatch lines"
