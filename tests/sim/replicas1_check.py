#!/usr/bin/env python3
# replicas1_check.py DIR JSON [PRICES]: what tests/sim/test_replicas.sh
# checks of a --replicas 1 compare run's --json without nodeox-sim's code,
# from the trace (DIR/trace.csv) and cluster (DIR/slurm.conf) read here:
# every job of the trace runs in both policies; the baseline runs each job
# for its trace run time, so its GPU-hours are the trace's sum of gpus x
# run_time and its mean run time the trace's; each group's turnaround less
# its wait is its run time; utilisation is GPU-hours over makespan times
# the cluster's GPUs (counted from slurm.conf's NodeName lines); the
# makespan is at least the trace's span (last submit plus run time, less the
# first submit); with PRICES (TYPE=PRICE,...), each run's cost is the sum of
# its types' costs, each type's cost over its price summing to the run's
# GPU-hours, and the baseline's at least what the jobs asking for that type
# cost; the untagged group and the tagged one (flex) together make all
# jobs: their jobs, GPU-hours, turnaround summed over jobs (and with PRICES
# cost) add up to all's (which jobs are tagged is nodeox-sim's draw with
# --flex-fraction, so not counted from the trace here). The golden files
# (tests/sim/data/replicas1/) are nodeox-sim's own output; this keeps them
# honest whatever they say. Exit 1 with each mismatch.
import csv
import json
import re
import sys


def cluster_gpus(path):
    total = 0
    for line in open(path):
        line = line.split("#")[0].strip()
        m = re.match(r"NodeName=(\S+)\s.*\bGres=(\S+)", line)
        if not m or m.group(1) == "DEFAULT":
            continue
        nodes = 0
        for part in re.findall(r"[^,\[]+(?:\[[^\]]*\])?", m.group(1)):
            br = re.search(r"\[([^\]]*)\]", part)
            if not br:
                nodes += 1
                continue
            for r in br.group(1).split(","):
                a, _, b = r.partition("-")
                nodes += int(b) - int(a) + 1 if b else 1
        for g in m.group(2).split(","):
            gm = re.match(r"gpu:(?:\w+:)?(\d+)", g)
            if gm:
                total += nodes * int(gm.group(1))
    return total


d, js = sys.argv[1], sys.argv[2]
prices = dict((t, float(p)) for t, p in (x.split("=") for x in sys.argv[3].split(","))) \
    if len(sys.argv) > 3 else {}
rows = list(csv.DictReader(open(f"{d}/trace.csv", newline="")))
gpus = cluster_gpus(f"{d}/slurm.conf")
j = json.load(open(js))
bad = []


def near(what, got, want, tol, src="from the trace and cluster", atol=0.0):
    if abs(got - want) > max(atol, tol * max(1.0, abs(want))):
        bad.append(f"{what}: {got} in the JSON, {want} {src}")


hours = sum(int(r["gpus"]) * float(r["run_time"]) for r in rows) / 3600
typed = {}
for r in rows:
    if r["gpu_type"]:
        typed[r["gpu_type"]] = typed.get(r["gpu_type"], 0) + int(r["gpus"]) * float(r["run_time"]) / 3600
span = max(int(r["submit"]) + float(r["run_time"]) for r in rows) - min(int(r["submit"]) for r in rows)
near("baseline GPU-hours", j["baseline"]["all"]["gpu_hours"], hours, 1e-6)
near("baseline mean run time", j["baseline"]["all"]["run_mean_s"],
     sum(float(r["run_time"]) for r in rows) / len(rows), 1e-6)
for run in ("baseline", "nodeox"):
    a = j[run]["all"]
    near(f"{run} jobs", a["jobs"], len(rows), 0)
    if not 0 <= j[run]["flex"]["jobs"] <= a["jobs"]:
        bad.append(f"{run}: {j[run]['flex']['jobs']} tagged of {a['jobs']} jobs")
    fl, un = j[run]["flex"], j[run].get("untagged")
    if un is None:
        bad.append(f"{run}: no untagged group")
        continue
    near(f"{run} untagged + flex jobs", un["jobs"] + fl["jobs"], a["jobs"], 0, "in all")
    near(f"{run} untagged + flex GPU-hours", un["gpu_hours"] + fl["gpu_hours"], a["gpu_hours"], 1e-6, "in all")
    near(f"{run} untagged + flex turnaround sum", un["turnaround_mean_s"] * un["jobs"]
         + fl["turnaround_mean_s"] * fl["jobs"], a["turnaround_mean_s"] * a["jobs"], 1e-5, "in all")
    for g in ("all", "flex", "untagged"):
        m = j[run][g]
        # three figures the JSON prints with %.3f: up to 3 x 0.0005 s apart
        near(f"{run} {g} turnaround - wait", m["turnaround_mean_s"] - m["wait_mean_s"], m["run_mean_s"], 1e-5,
             atol=0.0015)
        if not 0 <= m["wait_p50_s"] <= m["wait_p95_s"]:
            bad.append(f"{run} {g}: wait p50 {m['wait_p50_s']} p95 {m['wait_p95_s']}")
    near(f"{run} utilisation", j[run]["utilization"],
         a["gpu_hours"] * 3600 / (j[run]["makespan_s"] * gpus), 1e-5)
    if j[run]["makespan_s"] < span:
        bad.append(f"{run}: makespan {j[run]['makespan_s']} s, shorter than the trace's {span} s")
    if prices:
        near(f"{run} untagged + flex cost", un["cost"] + fl["cost"], a["cost"], 1e-6, "in all")
        cbt = a["cost_by_type"]
        near(f"{run} cost", a["cost"], sum(cbt.values()), 1e-6)
        near(f"{run} cost over price", sum(c / prices[t] for t, c in cbt.items()), a["gpu_hours"], 1e-5)
        if run == "baseline":
            for t, h in typed.items():
                if cbt.get(t, 0) < prices[t] * h * (1 - 1e-6):
                    bad.append(f"baseline cost {t} {cbt.get(t, 0)} below its jobs' {prices[t] * h}")
print(f"independent of nodeox-sim ({d}): {len(rows)} jobs, {hours:.6f} GPU-hours in the baseline, "
      f"{gpus} GPUs, span >= {span:.0f} s{', costs by price' if prices else ''}")
for b in bad:
    print("MISMATCH:", b)
sys.exit(1 if bad else 0)
