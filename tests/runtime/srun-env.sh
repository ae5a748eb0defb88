# srun-env.sh: sourced by the tests that start MPI ranks with Slurm's srun
# on the private test cluster (tests/integration/lib/cluster.sh): starts the
# cluster with Slurm's mpi/pmix plugin (skipping, 77, where it is not
# installed), PMIx's per-step client directory inside the run directory, not
# /tmp, so a leftover from another run (job ids restart at 1) cannot collide
# with ours.
. "$top_srcdir/tests/integration/lib/cluster.sh"
cluster_init
[ -f "$CLUSTER_SLURM_PLUGINDIR/mpi_pmix.so" ] ||
	cluster_skip "Slurm's mpi/pmix plugin is not installed ($CLUSTER_SLURM_PLUGINDIR/mpi_pmix.so)"
mkdir -p "$CLUSTER_DIR/pmix"
echo "PMIxCliTmpDirBase=$CLUSTER_DIR/pmix" > "$CLUSTER_DIR/mpi.conf"
cluster_start
