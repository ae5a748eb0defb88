#!/usr/bin/env python3
"""compare_figures.py FIGURES JSON: every line of sacct_figures.awk's output
must be the same figure in `nodeox report --json` (within 0.001 for
seconds and hours), and the JSON must have no state or GPU-hours the awk
reading has not. The counterfactual's "cf" lines (what happened, per group)
are checked where the report made one. Prints each difference; exit 1 if any."""
import json, sys

figs = [l.split() for l in open(sys.argv[1]) if l.strip()]
d = json.load(open(sys.argv[2]))
bad = 0
def check(what, got, want):
    global bad
    if got is None or abs(float(got) - float(want)) > 1e-3:
        print(f"  {what}: report {got}, sacct {want}")
        bad += 1
states = {}
for s in d["states"]:
    states[(s["asked"], s["ran"], s["state"])] = s["jobs"]
hours = {}
for g, v in d["groups"].items():
    for t, h in v["gpu_hours_by_type"].items():
        hours[(g, t)] = h
seen_states, seen_hours = set(), set()
for f in figs:
    if f[0] == "group" and f[2] in ("jobs", "gpu_hours"):
        check(" ".join(f[:3]), d["groups"][f[1]].get(f[2]), f[3])
    elif f[0] == "group":
        check(" ".join(f[:4]), d["groups"][f[1]][f[2]][f[3]], f[4])
    elif f[0] == "hours":
        seen_hours.add((f[1], f[2]))
        check(" ".join(f[:3]), hours.get((f[1], f[2])), f[3])
    elif f[0] == "state":
        key = (f[1], f[2], f[3] if f[3] in ("COMPLETED", "FAILED", "TIMEOUT", "OUT_OF_MEMORY", "CANCELLED",
                                          "NODE_FAIL", "REQUEUED") else "OTHER")
        seen_states.add(key)
        check(" ".join(f[:4]), states.get(key), f[4])
    elif f[0] == "cf":
        cf = d["counterfactual"]
        if cf is None:
            continue
        g = cf["groups"][f[1]]
        check(" ".join(f[:3]), g["jobs"] if f[2] == "jobs" else g[f[2]]["actual"], f[3])
    elif f[0] == "idle_gpu_hours":
        check("idle_gpu_hours", d["idle_gpu_hours"], f[1])
for k in states:
    if k not in seen_states:
        print(f"  state {k}: in the report ({states[k]} jobs), not in sacct")
        bad += 1
for k in hours:
    if k not in seen_hours and hours[k]:
        print(f"  hours {k}: in the report, not in sacct")
        bad += 1
print(f"{len(figs)} figures compared, {bad} differ")
sys.exit(1 if bad else 0)
