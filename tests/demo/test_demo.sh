#!/bin/sh
# test_demo.sh: a shortened tools/demo (the busy a100 node frees after 30 s,
# target 0.83 test accuracy, the untagged and the tagged rounds job only) on
# the namespaced private cluster: the tagged job, rewritten by the loaded
# job_submit/nodeox, must reach the target sooner from submission than the
# untagged one, and its step of nodeox-run must span at least two nodes, in
# different network namespaces, of different GPU types (as each rank found
# them from its allocation). Skips (77) where namespaces, root, Slurm, MPI or
# the data set are missing. About 100 s.
: "${top_srcdir:?run through make check}" "${top_builddir:?run through make check}"
out=$(mktemp -d "${TMPDIR:-/tmp}/nodeox-demo-test.XXXXXX") || exit 99
trap 'rm -rf "$out"' EXIT
timeout 175 bash "$top_srcdir/tools/demo" --block 30 --target 0.83 --scenarios typed,flex_rounds --json "$out/demo.json"
rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || { echo "FAIL: tools/demo exited $rc"; exit 1; }
python3 - "$out/demo.json" <<'PY'
import json, sys
top = json.load(open(sys.argv[1]))
d, target = top["scenarios"], top["target"]
fails = []
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails.append(what)
t, f = d["typed"], d["flex_rounds"]
for name, s in d.items():
    for k in ("wait_s", "run_s", "time_to_target_s", "final_accuracy", "gpu_hours", "nodes",
              "gpu_types", "predicted_time_to_target_s"):
        check(k in s, "%s has %s" % (name, k))
    check(s["final_accuracy"] >= target, "%s reached %.2f (%.4f)" % (name, target, s["final_accuracy"]))
check(f["time_to_target_s"] < t["time_to_target_s"],
      "tagged rounds job reached the target sooner from submission (%d s) than the untagged one (%d s)"
      % (f["time_to_target_s"], t["time_to_target_s"]))
check(t["wait_s"] >= 20, "untagged job waited for the busy a100 (%d s)" % t["wait_s"])
check(f["wait_s"] < 15, "tagged job started at once (%d s)" % f["wait_s"])
nodes = {r["node"] for r in f["ranks"]}
types = {r["gpu_type"] for r in f["ranks"]}
check(len(f["ranks"]) == 4, "tagged step has 4 ranks: %s" % f["ranks"])
check(len(nodes) >= 2, "tagged step spans nodes %s" % sorted(nodes))
check(len(types) >= 2, "tagged step spans GPU types %s" % sorted(types))
check(f["network_namespaces"] >= 2, "tagged step's ranks ran in %d network namespaces" % f["network_namespaces"])
check(t["gpu_types"] == ["a100"], "untagged job ran on a100 only: %s" % t["gpu_types"])
sys.exit(1 if fails else 0)
PY
