#!/bin/sh
# test_speed_record.sh: the speed record nodeox-run leaves in its job's
# Comment (nodeox-run(1), SPEED RECORD), with Slurm's commands replaced by
# scripts in PATH so that each outcome can be forced on a machine without a
# cluster (the real path, slurmctld and sacct, is tests/speeds/test_speeds_stack.sh):
# two ranks on an emulated l40s node (Speed=0.5 in nodeox.conf: a 10 ms step
# at --emulate-base-ms 5) store "nodeox-speeds:v1:w=bert-ft;g=l40s:10:2:64"
# after the user's tag and text, an older record replaced; the workload is the
# tag's, else the job name; scontrol failing, or hanging past its deadline,
# is a warning and the run still exits 0; --no-speed-record and a run outside
# Slurm call neither command; nodeox.torch's finalize stores the same record.
. "$top_srcdir/tests/runtime/mpi-env.sh"
fake="$RT_WORK/fakebin"
mkdir -p "$fake"
cat > "$fake/scontrol" <<'SH'
#!/bin/sh
case "$1" in
show) echo "NodeName=$5 Arch=x86_64 CoresPerSocket=1 Gres=gpu:l40s:2(S:0) State=IDLE" ;;
update) printf '%s\n' "$@" > "$FAKE_LOG.update"
	[ -n "${FAKE_HANG:-}" ] && sleep "$FAKE_HANG"
	[ -n "${FAKE_FAIL:-}" ] && { echo "slurm_update error: Access/permission denied" >&2; exit 1; } ;;
esac
exit 0
SH
cat > "$fake/squeue" <<'SH'
#!/bin/sh
echo "squeue $*" > "$FAKE_LOG.squeue"
printf '%s\n' "$FAKE_COMMENT"
SH
chmod +x "$fake/scontrol" "$fake/squeue"
printf 'GpuType=a100 Speed=1.0\nGpuType=l40s Speed=0.5\nGroup=g Types=a100,l40s\n' > "$RT_WORK/nodeox.conf"
fail() { cat "$RT_WORK/out"; echo "FAIL: $*"; exit 1; }
# Open MPI 6 (forky) launches through PRRTE, which reads its own PRTE_MCA_*
# variables, not OMPI_MCA_*: its ras/slurm would see SLURM_JOB_ID and fail
# without SLURM_NODELIST.
PRTE_NO_SLURM="PRTE_MCA_ras=^slurm PRTE_MCA_plm=^slurm"
run() { # the ranks as srun would start them in job 4242 (mpirun's Slurm support off)
	rm -f "$RT_WORK"/fake.*
	env PATH="$fake:$PATH" FAKE_LOG="$RT_WORK/fake" SLURM_JOB_ID=4242 SLURMD_NODENAME=n1 \
		SLURM_JOB_NAME="${JOBNAME:-train.sh}" NODEOX_CONF="$RT_WORK/nodeox.conf" \
		OMPI_MCA_ras=^slurm OMPI_MCA_plm=^slurm OMPI_MCA_ess=^slurm $PRTE_NO_SLURM \
		"$RT_MPIRUN" --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader \
		-x PATH -x FAKE_LOG -x FAKE_COMMENT -x FAKE_FAIL -x FAKE_HANG -x SLURM_JOB_ID -x SLURMD_NODENAME \
		-x SLURM_JOB_NAME -x NODEOX_CONF -np 2 nice "$RT_RUN" --data "$RT_DATA" --mode rounds -H 4 \
		--sync-warmup 0 --steps 40 --eval-every 0 --emulate-base-ms 5 --batch 64 --max-train 2000 "$@" \
		> "$RT_WORK/out" 2>&1
}

# 1. stored after the user's tag and text, an older record replaced
FAKE_COMMENT='nodeox:flex:workload=bert-ft my run nodeox-speeds:v1:w=old;g=a100:1:1:1' run || fail "run exited $?"
grep -q 'gpu l40s, speed 0.50' "$RT_WORK/out" || fail "the ranks did not take l40s from the fake node"
grep -q '^squeue -h -j 4242 -o %k$' "$RT_WORK/fake.squeue" || fail "squeue not asked for job 4242's comment"
sed -n 2p "$RT_WORK/fake.update" | grep -qx 'JobId=4242' || fail "scontrol update: not JobId=4242"
comment=$(sed -n 3p "$RT_WORK/fake.update")
echo "stored: $comment"
case "$comment" in
"Comment=nodeox:flex:workload=bert-ft my run nodeox-speeds:v1:w=bert-ft;g=l40s:"*":2:64") ;;
*) fail "stored comment: $comment" ;;
esac
ms=$(echo "$comment" | sed 's/.*g=l40s:\([0-9.]*\):2:64$/\1/')
awk -v m="$ms" 'BEGIN { exit !(m >= 9.5 && m <= 12) }' || fail "l40s step $ms ms, not about 10 (5 ms / 0.5)"
grep -q "speed record stored in job 4242's Comment" "$RT_WORK/out" || fail "not said"

# 2. no tag: the job name is the workload; "(null)" is no comment
FAKE_COMMENT='(null)' JOBNAME=resnet run || fail "run exited $?"
sed -n 3p "$RT_WORK/fake.update" | grep -q '^Comment=nodeox-speeds:v1:w=resnet;g=l40s:' || fail "job name as workload"

# 3. scontrol failing or hanging: a warning, exit 0
FAKE_COMMENT='x' FAKE_FAIL=1 run || fail "a failing scontrol failed the run ($?)"
grep -q "warning: speed record not stored in job 4242's Comment: .scontrol. failed (exit 1): slurm_update error: Access/permission denied" \
	"$RT_WORK/out" || fail "scontrol's failure not said"
if [ -n "${RT_SLOW_TESTS:-}" ]; then
	FAKE_COMMENT='x' FAKE_HANG=40 run || fail "a hanging scontrol failed the run ($?)"
	grep -q 'took more than 30 s (killed)' "$RT_WORK/out" || fail "hang not said"
fi

# 4. --no-speed-record, and outside Slurm: neither command runs
FAKE_COMMENT='x' run --no-speed-record || fail "run exited $?"
[ -e "$RT_WORK/fake.squeue" ] || [ -e "$RT_WORK/fake.update" ] && fail "--no-speed-record ran squeue or scontrol"
rm -f "$RT_WORK"/fake.*
PATH="$fake:$PATH" FAKE_LOG="$RT_WORK/fake" rt_mpi 2 --steps 8 -H 4 --eval-every 0 --max-train 500 --quiet \
	> "$RT_WORK/out" 2>&1 || fail "run outside Slurm exited $?"
[ -e "$RT_WORK/fake.squeue" ] && fail "outside Slurm squeue ran"

# 5. nodeox.torch leaves the same record (its finalize), where torch is installed
TR_PY="${NODEOX_PYTHON:-/usr/bin/python3}"
if "$TR_PY" -c 'import torch' 2>/dev/null && ls "$top_builddir"/python/build/nodeox/_engine*.so >/dev/null 2>&1; then
	rm -f "$RT_WORK"/fake.*
	env PATH="$fake:$PATH" FAKE_LOG="$RT_WORK/fake" FAKE_COMMENT='nodeox:flex torch run' SLURM_JOB_ID=4243 \
		SLURMD_NODENAME=n1 SLURM_JOB_NAME=mlp NODEOX_CONF="$RT_WORK/nodeox.conf" OMP_NUM_THREADS=1 \
		PYTHONPATH="$top_builddir/python/build" OMPI_MCA_ras=^slurm OMPI_MCA_plm=^slurm OMPI_MCA_ess=^slurm $PRTE_NO_SLURM \
		"$RT_MPIRUN" --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader \
		-x PATH -x FAKE_LOG -x FAKE_COMMENT -x SLURM_JOB_ID -x SLURMD_NODENAME -x SLURM_JOB_NAME \
		-x NODEOX_CONF -x OMP_NUM_THREADS -x PYTHONPATH -np 2 nice "$TR_PY" "$top_srcdir/tests/torch/train_mlp.py" \
		--hidden 32 --max-train 2000 --steps 40 -H 4 --sync-warmup 0 --base-ms 8 > "$RT_WORK/out" 2>&1 ||
		fail "nodeox.torch run exited $?"
	comment=$(sed -n 3p "$RT_WORK/fake.update")
	echo "stored by nodeox.torch: $comment"
	case "$comment" in
	"Comment=nodeox:flex torch run nodeox-speeds:v1:w=mlp;g=l40s:"*":2:64") ;;
	*) fail "nodeox.torch's stored comment: $comment" ;;
	esac
	ms=$(echo "$comment" | sed 's/.*g=l40s:\([0-9.]*\):2:64$/\1/')
	awk -v m="$ms" 'BEGIN { exit !(m >= 15 && m <= 19) }' || fail "nodeox.torch: l40s step $ms ms, not about 16 (8 ms / 0.5)"
else
	echo "note: no torch or no nodeox.torch build: its record not checked"
fi
echo PASS
