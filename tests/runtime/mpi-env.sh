# mpi-env.sh: sourced by the runtime's shell tests and benchmark. Finds the
# launcher, the data set (RT_NEEDS="fortunes gcide" for the transformer's
# corpora instead of Fashion-MNIST) and mpirun (skipping, exit 77, when one
# is missing),
# makes a scratch directory in the build tree, and defines:
#   rt_mpi NP ARGS...   nodeox-run on NP local ranks (CPU, shared memory);
#                       killed after $RT_TIMEOUT seconds (exit 124) when set
#   rt_json FILE KEY    a scalar field of a --json summary
#   rt_bench_row LABEL METRIC "OPTIONS"   (benchmarks) one 4-rank run and one
#                       table row: LABEL, critical-path and measured time to
#                       the target, final METRIC (test_accuracy | val_loss),
#                       steps per worker, MB communicated, speed-up over the
#                       first row printed (the synchronous baseline)
#   rt_check_resume "OPTIONS" KEY...   the run with OPTIONS uninterrupted, then
#                       killed (rank 1, round 5; checkpoints every 2 rounds)
#                       and resumed: exits 1 unless latest was round 4, the
#                       resume says so, and each KEY of --json is the same
#   rt_check_lost FILE RC hang|kill   after a run with a hung or killed rank:
#                       exits 1 unless it ended non-zero before $RT_TIMEOUT
#                       and, for a hang, by the watchdog (message, exit 4)
#   RT_DILOCO           the rounds settings of the C API's defaults (DiLoCo's
#                       outer optimizer, no synchronous warm-up, momentum
#                       kept), which the MLP's own recipe replaces: for the
#                       tests and bench rows that check or were measured so
: "${top_builddir:?run through make check}"
RT_RUN="$top_builddir/runtime/nodeox-run"
RT_DILOCO="--outer-lr 0.7 --outer-momentum 0.9 --sync-warmup 0 --inner-state keep"
RT_DATA="${FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}"
RT_MPIRUN="${MPIRUN:-mpirun}"
if [ ! -x "$RT_RUN" ]; then echo "SKIP: $RT_RUN not built"; exit 77; fi
# RT_NEEDS (set before sourcing): what the test reads; default Fashion-MNIST
case "${RT_NEEDS:-fashion-mnist}" in
fashion-mnist)
    if [ ! -f "$RT_DATA/train-images-idx3-ubyte.gz" ] && [ ! -f "$RT_DATA/train-images-idx3-ubyte" ]; then
        echo "SKIP: no Fashion-MNIST in $RT_DATA (Debian package dataset-fashion-mnist)"; exit 77
    fi ;;
*fortunes*)
    [ -d /usr/share/games/fortunes ] || { echo "SKIP: no /usr/share/games/fortunes (Debian package fortunes)"; exit 77; } ;;
esac
case "${RT_NEEDS:-}" in
*gcide*)
    [ -f /usr/share/dictd/gcide.index ] || { echo "SKIP: no /usr/share/dictd/gcide.index (Debian package dict-gcide)"; exit 77; } ;;
esac
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

rt_check_resume() {
    rc_opts=$1; shift
    rt_mpi 4 $rc_opts --json "$RT_WORK/full.json" >"$RT_WORK/full.out" 2>&1 ||
        { cat "$RT_WORK/full.out"; echo "FAIL: uninterrupted run"; exit 1; }
    if rt_mpi 4 $rc_opts --checkpoint-dir "$RT_WORK/ck" --checkpoint-every 2 --inject-exit 1:5 \
        >"$RT_WORK/crash.out" 2>&1; then
        cat "$RT_WORK/crash.out"; echo "FAIL: the run with a killed rank exited 0"; exit 1
    fi
    [ "$(cat "$RT_WORK/ck/latest")" = 4 ] || { echo "FAIL: latest checkpoint is not round 4"; ls "$RT_WORK/ck"; exit 1; }
    rt_mpi 4 $rc_opts --checkpoint-dir "$RT_WORK/ck" --checkpoint-every 2 --resume \
        --json "$RT_WORK/resumed.json" >"$RT_WORK/resumed.out" 2>&1 ||
        { cat "$RT_WORK/resumed.out"; echo "FAIL: resumed run"; exit 1; }
    cat "$RT_WORK/resumed.out"
    grep -q "resumed from .* at round 4" "$RT_WORK/resumed.out" || { echo "FAIL: did not resume at round 4"; exit 1; }
    for rc_key in "$@"; do
        rc_a=$(rt_json "$RT_WORK/full.json" "$rc_key")
        rc_b=$(rt_json "$RT_WORK/resumed.json" "$rc_key")
        echo "$rc_key: uninterrupted $rc_a, resumed $rc_b"
        [ -n "$rc_a" ] && [ "$rc_a" = "$rc_b" ] || { echo "FAIL: $rc_key differs after resume"; exit 1; }
    done
}

rt_bench_base=
rt_bench_row() {
    rb_label=$1; rb_metric=$2; rb_opts=$3
    rb_json="$RT_WORK/bench-$(echo "$rb_label" | tr -c 'a-zA-Z0-9\n' _).json"
    rt_mpi 4 $rb_opts --json "$rb_json" >"$rb_json.out" 2>&1 ||
        { cat "$rb_json.out"; echo "bench: $rb_label failed"; exit 1; }
    rb_crit=$(rt_json "$rb_json" critical_to_target_s)
    rb_t=$(rt_json "$rb_json" time_to_target_s)
    rb_spw=$(sed -n 's/^  "steps": \[\(.*\)\],$/\1/p' "$rb_json" | tr -d ' ')
    rb_mb=$(awk -v b="$(rt_json "$rb_json" bytes_communicated)" 'BEGIN { printf "%.0f", b / 1e6 }')
    [ -z "$rt_bench_base" ] && rt_bench_base=$rb_crit
    rb_speedup=$(awk -v s="$rt_bench_base" -v t="$rb_crit" 'BEGIN {
        if (s == "null" || t == "null" || s == "" || t == "") print "-"; else printf "%.2fx", s / t }')
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$rb_label" "$rb_crit" "$rb_t" \
        "$(rt_json "$rb_json" "$rb_metric")" "$rb_spw" "$rb_mb" "$rb_speedup"
}

rt_check_lost() {
    cl_out=$1; cl_rc=$2
    cat "$cl_out"
    [ "$cl_rc" -ne 0 ] || { echo "FAIL: exited 0 with a $3 rank"; exit 1; }
    [ "$cl_rc" -ne 124 ] || { echo "FAIL: still running after $RT_TIMEOUT s with a $3 rank"; exit 1; }
    [ "$3" = hang ] || return 0
    grep -q "all-gather at .* past the deadline" "$cl_out" || { echo "FAIL: no watchdog message"; exit 1; }
    grep -q "exiting with code 4" "$cl_out" || { echo "FAIL: watchdog exit code"; exit 1; }
}
