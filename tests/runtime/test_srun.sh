#!/bin/sh
# test_srun.sh: nodeox-run launched by Slurm's srun, not mpirun. A private
# cluster (tests/integration/lib/cluster.sh) runs `srun --mpi=pmix -n 4` on one
# node; each rank must take its rank and world size from Slurm (SLURM_PROCID,
# SLURM_NTASKS, SLURM_LOCALID) and PMIx, so the four tasks form one world of 4
# and the round planner gives the two slow emulated ranks fewer steps. A
# singleton MPI start (no PMI) would show up as world 1.
# One node only: the slurmd of this one host share mpi.conf, and Slurm's
# mpi/pmix plugin makes one client directory per step under its
# PMIxCliTmpDirBase (spmix_appdir_UID_STEP), so a step spanning two slurmd of
# this host collides with itself ("File exists"); real nodes do not share it.
: "${top_builddir:?run through make check}"
RT_RUN="$top_builddir/runtime/nodeox-run"
RT_DATA="${FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}"
[ -x "$RT_RUN" ] || { echo "SKIP: $RT_RUN not built"; exit 77; }
[ -f "$RT_DATA/train-images-idx3-ubyte.gz" ] ||
	{ echo "SKIP: no Fashion-MNIST in $RT_DATA (Debian package dataset-fashion-mnist)"; exit 77; }
. "$top_srcdir/tests/runtime/srun-env.sh"

work=$CLUSTER_DIR/rt
mkdir -p "$work"
# Open MPI over shared memory between the tasks of the one node
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
timeout 180 srun -N 1 -n 4 --mpi=pmix --gres=gpu:a100:4 --kill-on-bad-exit=1 --chdir="$work" \
	"$RT_RUN" --data "$RT_DATA" --mode rounds --combine mean -H 10 --sync-warmup 0 --steps 100 --eval-every 0 \
	--emulate-speeds 1,1,0.5,0.5 --emulate-base-ms 5 --json "$work/s.json" > "$work/out" 2>&1
rc=$?
cat "$work/out"
check_eq "$rc" 0 "srun nodeox-run exit status"
json() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print(",".join(map(str,v)) if isinstance(v,list) else v)' "$work/s.json" "$1" 2>/dev/null; }
check_eq "$(json world)" 4 "one world of 4 ranks from srun"
steps=$(json steps)
check_match "$steps" '^[0-9]+,[0-9]+,[0-9]+,[0-9]+$' "steps reported per rank"
# ranks 0,1 at speed 1 take more local steps than ranks 2,3 at speed 0.5
check_true "slow ranks (2,3) took fewer steps than fast ones (0,1): $steps" \
	sh -c "echo '$steps' | awk -F, '{ exit !(\$3 < \$1 && \$4 < \$2) }'"
check_eq "$(json rounds)" 10 "rounds"
check_match "$(grep -c '^round ' "$work/out")" '^10$' "one log line per round"
cluster_finish
