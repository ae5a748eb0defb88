"""same_run.py A.json B.json LABEL: train_mlp.py's summaries of an
uninterrupted run (A) and of one that was stopped and resumed (B, named
LABEL) must agree exactly: global weights (params_fnv), rounds, steps,
test accuracy and critical path. Exit 1 when they do not."""

import json
import sys

a, b = (json.load(open(p)) for p in sys.argv[1:3])
label = sys.argv[3]
ok = True
for k in ("params_fnv", "rounds", "global_steps", "local_steps", "test_accuracy", "critical_s"):
    print("%s: uninterrupted %s, %s %s" % (k, a[k], label, b[k]))
    ok = ok and a[k] == b[k]
print("ok" if ok else "FAIL: the %s run differs" % label)
sys.exit(0 if ok else 1)
