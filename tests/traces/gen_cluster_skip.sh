#!/bin/sh
# gen_cluster_skip.sh: where Slurm's own parse check cannot run (here: no
# slurmd, NODEOX_SLURMD=""), tests/traces/gen_cluster.sh is a skip (exit 77,
# "SKIP:"), not a PASS with exit 0; its own checks 1-4 still run first.
set -u
src=${top_srcdir:?run from make check}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
out=$(NODEOX_SLURMD= sh "$src/tests/traces/gen_cluster.sh" 2>&1)
rc=$?
[ "$rc" = 77 ] || { echo "FAIL: gen_cluster.sh without slurmd exited $rc, want 77: $out"; exit 1; }
echo "$out" | grep -q "^SKIP: checks 1-4 passed; slurmd not found" ||
	{ echo "FAIL: gen_cluster.sh without slurmd said: $out"; exit 1; }
if echo "$out" | grep -q PASS; then echo "FAIL: gen_cluster.sh without slurmd printed PASS: $out"; exit 1; fi
echo "PASS: gen_cluster.sh skips (77) without slurmd"
