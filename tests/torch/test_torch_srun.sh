#!/bin/sh
# test_torch_srun.sh: a plain PyTorch script using nodeox.torch, started as
# users start it: by Slurm's `srun --mpi=pmix -n 4` on the private test
# cluster (tests/integration/lib/cluster.sh), as an unprivileged user, with
# Debian's /usr/bin/python3 and the build tree's package on PYTHONPATH (what
# `eval "$(tools/nodeox-env)"` sets). The four tasks must form one world of
# 4 (rank and size from Slurm and PMIx: a singleton start would be four
# worlds of 1) and the round planner must give the two slow emulated ranks
# fewer steps. One node only, as in tests/runtime/test_srun.sh (which says
# why).
: "${top_builddir:?run through make check}"
TR_PY="${NODEOX_PYTHON:-/usr/bin/python3}"
RT_DATA="${FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}"
"$TR_PY" -c 'import torch' 2>/dev/null || { echo "SKIP: $TR_PY has no torch (Debian package python3-torch)"; exit 77; }
ls "$top_builddir"/python/build/nodeox/_engine*.so >/dev/null 2>&1 || { echo "SKIP: nodeox.torch not built"; exit 77; }
[ -f "$RT_DATA/train-images-idx3-ubyte.gz" ] ||
	{ echo "SKIP: no Fashion-MNIST in $RT_DATA (Debian package dataset-fashion-mnist)"; exit 77; }
. "$top_srcdir/tests/runtime/srun-env.sh"

work=$CLUSTER_DIR/torch
mkdir -p "$work"
chown "$CLUSTER_USER" "$work"
cluster_as "$CLUSTER_USER" env PYTHONPATH="$top_builddir/python/build" OMP_NUM_THREADS=1 \
	OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none \
	timeout 240 srun -N 1 -n 4 --mpi=pmix --gres=gpu:a100:4 --kill-on-bad-exit=1 --chdir="$work" \
	"$TR_PY" "$top_srcdir/tests/torch/train_mlp.py" --hidden 32 --max-train 4000 --steps 60 --sync-warmup 0 \
	--speeds 1,1,0.5,0.5 --base-ms 8 --json "$work/s.json" > "$work/out" 2>&1
rc=$?
cat "$work/out"
check_eq "$rc" 0 "srun of the PyTorch script: exit status"
json() { "$TR_PY" -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print(",".join(map(str,v)) if isinstance(v,list) else v)' "$work/s.json" "$1" 2>/dev/null; }
check_eq "$(json world)" 4 "one world of 4 ranks from srun"
steps=$(json local_steps)
check_match "$steps" '^[0-9]+,[0-9]+,[0-9]+,[0-9]+$' "steps reported per rank"
check_true "slow ranks (2,3) took fewer steps than fast ones (0,1): $steps" \
	sh -c "echo '$steps' | awk -F, '{ exit !(\$3 < \$1 && \$4 < \$2) }'"
check_eq "$(json rounds)" 6 "rounds"
# issue 27's API as written there (tests/torch/api_example.py, the loop of
# test_torch_api.sh), started by srun as well
cluster_as "$CLUSTER_USER" env PYTHONPATH="$top_builddir/python/build" OMP_NUM_THREADS=1 \
	OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none \
	timeout 240 srun -N 1 -n 4 --mpi=pmix --gres=gpu:a100:4 --kill-on-bad-exit=1 --chdir="$work" \
	"$TR_PY" "$top_srcdir/tests/torch/api_example.py" --mode rounds --steps 100 > "$work/api.out" 2>&1
rc=$?
cat "$work/api.out"
check_eq "$rc" 0 "srun of the issue's API example: exit status"
check_eq "$(grep -cx PASS "$work/api.out")" 1 "srun: the issue's API example passes (one world of 4)"
cluster_finish
