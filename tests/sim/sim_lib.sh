# tests/sim/sim_lib.sh: the opening the nodeox-sim shell tests share, sourced
# first (`. "$top_srcdir/tests/sim/sim_lib.sh"`): stop on errors and unset
# names; $sim, nodeox-sim by an absolute path (so a test may cd); $out, a
# scratch directory named after the test and removed on exit; fail MESSAGE;
# and $plot, set when gnuplot is there to draw --plot's SVGs.
set -eu
sim="$(cd "$top_builddir" && pwd)/sim/nodeox-sim"
out=$(mktemp -d "${TMPDIR:-/tmp}/$(basename "$0" .sh).XXXXXX")
trap 'rm -rf "$out"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }
plot=
if command -v gnuplot >/dev/null 2>&1; then plot=yes; fi
