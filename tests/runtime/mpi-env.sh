# mpi-env.sh: sourced by the runtime's shell tests and benchmark. Finds the
# launcher, the data set and mpirun (skipping, exit 77, when one is missing),
# makes a scratch directory in the build tree, and defines:
#   rt_mpi NP ARGS...   nodeox-run on NP local ranks (CPU, shared memory);
#                       killed after $RT_TIMEOUT seconds (exit 124) when set
#   rt_json FILE KEY    a scalar field of a --json summary
: "${top_builddir:?run through make check}"
RT_RUN="$top_builddir/runtime/nodeox-run"
RT_DATA="${FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}"
RT_MPIRUN="${MPIRUN:-mpirun}"
if [ ! -x "$RT_RUN" ]; then echo "SKIP: $RT_RUN not built"; exit 77; fi
if [ ! -f "$RT_DATA/train-images-idx3-ubyte.gz" ] && [ ! -f "$RT_DATA/train-images-idx3-ubyte" ]; then
    echo "SKIP: no Fashion-MNIST in $RT_DATA (Debian package dataset-fashion-mnist)"; exit 77
fi
if ! command -v "$RT_MPIRUN" >/dev/null 2>&1; then echo "SKIP: $RT_MPIRUN not found"; exit 77; fi
# more ranks than cores is the point of these tests; root is fine in CI containers
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
mkdir -p "$top_builddir/tests/runtime"
RT_WORK=$(mktemp -d "$top_builddir/tests/runtime/work.XXXXXX")
trap 'rm -rf "$RT_WORK"' EXIT

rt_mpi() {
    rt_np=$1; shift
    ${RT_TIMEOUT:+timeout "$RT_TIMEOUT"} "$RT_MPIRUN" --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader \
        -np "$rt_np" nice "$RT_RUN" --data "$RT_DATA" "$@"
}

rt_json() {
    sed -n "s/^  \"$2\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}\$/\1/p" "$1"
}
