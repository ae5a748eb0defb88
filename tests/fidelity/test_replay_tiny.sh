#!/bin/bash
# test_replay_tiny.sh: replay tests/fidelity/tiny (10 jobs, about 2 minutes)
# on the private real Slurm cluster with the built job_submit/nodeox loaded
# (tools/replay --plugin), then check that nodeox-sim predicts what slurmctld
# did (tools/fidelity-compare --check --bounds-from tests/fidelity/tiny),
# with bounds drawn from the real runs recorded there (three each way,
# doc/fidelity.md): the mean wait within 3 times Slurm's own spread on this
# trace (3.1%: 9.3%, no absolute floor), the start-order Kendall tau at
# least 1 less 3 times (1 less the lowest tau between two recorded runs,
# 0.977: 0.930), and the simulator's own plugin effect on the mean wait of
# the sign every recorded pair shows (-20% to -22%). The factor 3 is for one
# run on a shared machine; fidelity-compare refuses bounds that could not
# tell the plugin's effect from noise (a tolerance not below half of it), so
# a simulator that ignored broadening (its mean wait that of the plugin
# off, 25.6 s against 20.3 s, and no effect) fails here. Skips (77) where
# the integration tests skip (not root, no Slurm daemons, no cgroups).
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/nodeox-fidelity.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
cp "$top_srcdir"/tests/fidelity/tiny/{slurm.conf,nodeox.conf,trace.csv} "$work/"
"$top_srcdir/tools/replay" --plugin -o "$work/real-on-1.csv" "$work"
rc=$?
[ $rc = 0 ] || exit $rc
echo "----- what slurmctld did"
cat "$work/real-on-1.csv"
# every job that ran has its cores and GPU indices in the alloc column (what
# a socket-level model needs; slurmctld forgets them when a job ends),
# slurmctld's start time (ctld_start), and each start's sub-second
python3 - "$work/real-on-1.csv" <<'PY' || exit 1
import csv, re, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["start"]]
bad = [r["job_id"] for r in rows
       if not re.search(r"Nodes=\S+ CPU_IDs=[0-9,-]+ GRES=gpu:\w+:\d+\(IDX:[0-9,-]+\)", r.get("alloc", ""))]
print(f"alloc column: {len(rows) - len(bad)} of {len(rows)} started jobs have CPU_IDs and GPU indices")
# slurmctld's start, from which its 30 s time-limit checks count: before t0
# (the cluster is up before the first submission), within the harness's start
late = [r["job_id"] for r in rows
        if not r.get("ctld_start") or not -1 < int(r["t0"]) - float(r["ctld_start"]) < 600]
print(f"ctld_start column: {rows[0].get('ctld_start') if rows else ''} (t0 {rows[0]['t0'] if rows else ''})")
# each start's sub-second and what started it, from slurmctld's log (the
# backfill starts give nodeox-sim --bf-phase the passes' phase)
nofrac = [r["job_id"] for r in rows
          if r.get("started_by") not in ("backfill", "main") or not 0 <= float(r.get("start_frac") or -1) < 1]
nbf = sum(r.get("started_by") == "backfill" for r in rows)
print(f"start_frac/started_by columns: {len(rows) - len(nofrac)} of {len(rows)} started jobs, {nbf} by backfill")
# when each job's script began (script_start): after slurmctld started the
# job, within seconds (the launch delay; the script subtracts its own set-up
# beyond 0.1 s from its sleep)
delay = [float(r["script_start"]) - int(r["t0"]) - int(r["start"]) - float(r["start_frac"])
         for r in rows if r.get("script_start") and r.get("start_frac")]
print(f"script_start column: {len(delay)} of {len(rows)} started jobs, launch delay "
      f"{min(delay, default=0):.3f}-{max(delay, default=0):.3f} s")
slow = len(delay) < len(rows) or any(not 0 <= d < 10 for d in delay)
# when slurmctld logged each completed job's end (end_time): its start plus
# about its run time (the simulator's --end-overhead is the median excess)
done = [r for r in rows if r["state"] == "COMPLETED"]
noend = [r["job_id"] for r in done if not r.get("end_time") or
         not 0 <= float(r["end_time"]) - int(r["t0"]) - int(r["end"]) < 2]
print(f"end_time column: {len(done) - len(noend)} of {len(done)} completed jobs")
sys.exit(1 if bad or late or nofrac or not nbf or not rows or slow or noend else 0)
PY
echo "----- nodeox-sim against it"
# (the run was just made on the installed Slurm: nodeox-sim's default release)
NODEOX_SIM="$top_builddir/sim/nodeox-sim" FIDELITY_SLURM_VERSION= \
	python3 "$top_srcdir/tools/fidelity-compare" --check --bounds-from "$top_srcdir/tests/fidelity/tiny" "$work"
