#!/usr/bin/env python3
# sacct_sample_check.py SAMPLE TRACE: what tests/traces/sacct_import.sh checks
# of nodeox-sacct-import's output without the importer's code: from the raw
# `sacct -a -X -P` sample, by its own reading (Python's datetime and re), the
# GPU jobs that ran (no job steps, GPUs in ReqTRES or AllocTRES, an End after
# the Start), in submit order, each one's submit second from the first,
# run time, GPU count, time limit in seconds, user, account, partition,
# state, comment and GPU types (the most-asked type of ReqTRES and of
# AllocTRES), and the GPU-hours of them all. The golden file
# (sacct_sample.expected.csv) also holds what only the importer's rules say
# (nodes, cpus, mem, per-GPU columns); this keeps the rest honest whatever
# the golden file says. Exit 1 with each mismatch.
import csv, re, sys
from datetime import datetime
sample, got = sys.argv[1], sys.argv[2]
lines = open(sample).read().splitlines()
hdr = lines[0].split("|")
def when(s):
    try:
        return datetime.strptime(s, "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return None
def limit(s):
    m = re.fullmatch(r"(?:(\d+)-)?(\d+):(\d+):(\d+)", s)
    if m:
        d, h, mi, se = (int(x or 0) for x in m.groups())
        return str(((d * 24 + h) * 60 + mi) * 60 + se)
    return str(int(s) * 60) if s.isdigit() else ""
def gpus(tres):
    m = re.search(r"(?:^|,)gres/gpu=(\d+)", tres)
    return int(m.group(1)) if m else 0
def gtype(tres):
    typed = [(int(n), t) for t, n in re.findall(r"gres/gpu:([a-z0-9]+)=(\d+)", tres)]
    return max(typed)[1] if typed else ""
want = []
for ln in lines[1:]:
    f = ln.split("|")
    if len(f) > len(hdr):   # a Comment holding '|': the fields around it are fixed
        k = hdr.index("Comment")
        extra = len(f) - len(hdr)
        f = f[:k] + ["|".join(f[k:k + extra + 1])] + f[k + extra + 1:]
    r = dict(zip(hdr, f))
    if "." in r["JobIDRaw"]:
        continue
    s, e = when(r["Start"]), when(r["End"])
    g = gpus(r["ReqTRES"]) or gpus(r["AllocTRES"])
    if not g or not s or not e or e <= s:
        continue
    want.append(r | {"_sub": when(r["Submit"]), "_run": int((e - s).total_seconds()), "_g": g})
t0 = min(r["_sub"] for r in want)
want.sort(key=lambda r: (r["_sub"], int(r["JobIDRaw"])))
rows = list(csv.DictReader(open(got, newline="")))
bad = []
if [r["job_id"] for r in rows] != [r["JobIDRaw"] for r in want]:
    bad.append(f"jobs {[r['job_id'] for r in rows]} != {[r['JobIDRaw'] for r in want]}")
for r, w in zip(rows, want):
    exp = {"submit": str(int((w["_sub"] - t0).total_seconds())), "run_time": str(w["_run"]),
           "gpus": str(w["_g"]), "time_limit": limit(w["Timelimit"]), "user": w["User"],
           "account": w["Account"], "partition": w["Partition"], "state": w["State"],
           "comment": w["Comment"], "gpu_type": gtype(w["ReqTRES"]),
           "alloc_gpu_type": gtype(w["AllocTRES"]) or gtype(w["ReqTRES"])}
    for k, v in exp.items():
        if r[k] != v:
            bad.append(f"job {r['job_id']}: {k} {r[k]!r}, from the sample {v!r}")
gh = sum(int(r["gpus"]) * int(r["run_time"]) for r in rows) / 3600
wgh = sum(w["_g"] * w["_run"] for w in want) / 3600
if abs(gh - wgh) > 1e-9:
    bad.append(f"GPU-hours {gh:.3f} != {wgh:.3f}")
print(f"independent of the importer: {len(want)} GPU jobs that ran, {wgh:.3f} GPU-hours, "
      f"submit/run_time/gpus/time_limit/user/account/partition/state/comment/types per job")
for b in bad:
    print("MISMATCH:", b)
sys.exit(1 if bad else 0)
