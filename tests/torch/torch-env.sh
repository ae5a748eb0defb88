# torch-env.sh: sourced by the nodeox.torch tests and bench after
# tests/runtime/mpi-env.sh (nodeox-run, mpirun, the data, $RT_WORK). Finds
# the interpreter with torch -- $NODEOX_PYTHON, else Debian's /usr/bin/python3,
# where python3-torch installs (a python3 earlier on PATH, e.g. pyenv's, has
# none) -- and the built package (python/build of the build tree; with
# NODEOX_TORCH_INSTALLED=1 the one pip installed for $NODEOX_PYTHON),
# skipping (77) when either is missing, and defines
#   tr_mpi NP SCRIPT ARGS...   SCRIPT (tests/torch/*.py) on NP local ranks
#   tr_port                    a free TCP port on 127.0.0.1 (MASTER_PORT)
#   tr_find_torchrun           TR_RUN := the torchrun beside $TR_PY when it
#                              starts a trivial job, else "" (saying why)
TR_PY="${NODEOX_PYTHON:-/usr/bin/python3}"
TR_DIR="$top_srcdir/tests/torch"
export TR_DIR
[ -x "$TR_PY" ] || { echo "SKIP: no $TR_PY"; exit 77; }
"$TR_PY" -c 'import torch' 2>/dev/null ||
    { echo "SKIP: $TR_PY has no torch (Debian package python3-torch)"; exit 77; }
if [ "${NODEOX_TORCH_INSTALLED:-0}" = 1 ]; then
    # the pip lane (tools/test-pip): nodeox is pip-installed into $NODEOX_PYTHON's venv
    (cd / && "$TR_PY" -c 'import nodeox.torch') ||
        { echo "FAIL: NODEOX_TORCH_INSTALLED=1 but $TR_PY cannot import nodeox.torch"; exit 1; }
else
    ls "$top_builddir"/python/build/nodeox/_engine*.so >/dev/null 2>&1 ||
        { echo "SKIP: nodeox.torch not built ($top_builddir/python/build/nodeox)"; exit 77; }
    PYTHONPATH="$top_builddir/python/build${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONPATH
# one thread per rank: the ranks share the cores
export OMP_NUM_THREADS=1
"$TR_PY" -c 'import torch, nodeox.torch as n; print("torch-env: %s, torch %s, nodeox from %s" % (__import__("sys").executable, torch.__version__, n.__file__))'

tr_port() { "$TR_PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# (Debian's torch 1.13 has a torchrun that fails under Python 3.11 in its
# own argument handling: its last line says so)
tr_find_torchrun() {
    TR_RUN="$(dirname "$TR_PY")/torchrun"
    [ -x "$TR_RUN" ] || { echo "no $TR_RUN"; TR_RUN=""; return; }
    tf_out=$(timeout 120 "$TR_RUN" --nproc_per_node 1 --master_addr 127.0.0.1 --master_port "$(tr_port)" \
        --no_python true 2>&1) || { echo "$TR_RUN does not start a job: $(echo "$tf_out" | tail -1)"; TR_RUN=""; }
}

tr_mpi() {
    tr_np=$1; tr_script=$2; shift 2
    ${RT_TIMEOUT:+timeout "$RT_TIMEOUT"} "$RT_MPIRUN" --allow-run-as-root --oversubscribe --bind-to none \
        --mca btl self,vader ${PYTHONPATH+-x PYTHONPATH} -x OMP_NUM_THREADS -np "$tr_np" \
        nice "$TR_PY" "$TR_DIR/$tr_script" "$@"
}
