#!/bin/sh
# tests/sim/test_footer.sh: the "Checked against" footer of nodeox-sim's table
# says what the real replays checked, and what they did not.
#
# 1. Its figures are the simulator's own: for each large trace the footer
#    names ("(large)", "(mflarge)", "(mfdbd)": 160, 128 and 128 nodes) it quotes the mean
#    wait against the real runs' mean and Slurm's own spread, each with the
#    plugin off and on, and the range of the start-order tau; and fifo5's
#    lowest tau with the plugin. This test computes them again, running this
#    build's nodeox-sim on the recorded real runs (tools/fidelity-compare,
#    with the options make bench-fidelity gives it), and checks both the
#    footer and doc/fidelity.md's generated tables against them: a model
#    change that leaves either behind fails here (make bench-fidelity
#    rewrites the tables; the footer's figures are report_replays in
#    sim/run/report.c).
# 2. Its second part follows the run's configuration: a priority setting no
#    replay covered, or one the model counts as 0, is named beyond them.
. "$top_srcdir/tests/sim/sim_lib.sh"
"$sim" --replicas 1 -c "$top_srcdir/tests/sim/data/small" "$top_srcdir/tests/sim/data/small/trace.csv" \
	> "$out/table" 2>/dev/null
NODEOX_SIM=$sim python3 - "$out/table" "$top_srcdir" <<'PY' || fail "the footer's or doc/fidelity.md's figures are not the simulator's"
import os, re, subprocess, sys
table, top = sys.argv[1], sys.argv[2]
foot = open(table).read()
foot = " ".join(foot[foot.index("Checked against:"):].split())
doc = open(os.path.join(top, "doc", "fidelity.md")).read()


def block(name):
    return doc[doc.index("<!-- generated: %s -->" % name):doc.index("<!-- end generated: %s -->" % name)]


def compare(trace, *opts):
    """fidelity-compare's main-table rows for trace, run on this build."""
    res = subprocess.run([sys.executable, os.path.join(top, "tools", "fidelity-compare")] + list(opts) +
                         ["--markdown", os.path.join(top, "tests", "fidelity", trace)],
                         capture_output=True, text=True)
    if res.returncode:
        sys.exit("fidelity-compare %s failed:\n%s" % (trace, res.stderr))
    rows = {}
    for line in res.stdout.splitlines():
        m = re.match(r"^\| %s \| (off|on) \| [0-9]" % re.escape(trace), line)
        if m and m.group(1) not in rows:
            rows[m.group(1)] = line.strip()
    return rows


def doc_rows(name, trace):
    rows = {}
    for line in block(name).splitlines():
        m = re.match(r"^\| %s \| (off|on) \| [0-9]" % re.escape(trace), line)
        if m and m.group(1) not in rows:
            rows[m.group(1)] = line.strip()
    return rows


def taus(row):
    col = row.split("|")[7]  # start-order tau sim-real (real-real)
    return [float(x) for x in col.split("(")[0].split("/")]


bad = []
quoted = re.findall(r"\((\w[\w-]*)\) [^:]*: mean wait ([-+][0-9.]+%)(?: and ([-+][0-9.]+%))? "
                    r"\(Slurm's own spread ([0-9.]+%)(?: and ([0-9.]+%))?\),? tau ([0-9]+\.[0-9]+)-([0-9]+\.[0-9]+)", foot)
if not any(q[0] == "large" for q in quoted):
    sys.exit("the footer quotes no figures of the 160-node trace (large): " + foot)
for trace, w_off, w_on, s_off, s_on, t_lo, t_hi in quoted:
    got = compare(trace, "--real-submit")
    if got != doc_rows("large", trace):
        bad.append("doc/fidelity.md's %s rows are not this build's (make bench-fidelity):\n  doc: %s\n  now: %s"
                   % (trace, doc_rows("large", trace), got))
    for mode, w, s in (("off", w_off, s_off), ("on", w_on, s_on)):
        if not w:
            if mode in got:
                bad.append("%s: the footer quotes no %s figures, the runs have them" % (trace, mode))
            continue
        row = re.search(r"\(spread ([0-9.]+%)\) \| [0-9.]+ \(([-+][0-9.]+%);", got.get(mode, ""))
        if not row or row.groups() != (s, w):
            bad.append("%s %s: footer spread %s, mean wait %s; the simulator: %s"
                       % (trace, mode, s, w, row.groups() if row else "no row"))
    t = [x for mode in got for x in taus(got[mode])]
    if "%.2f-%.2f" % (min(t), max(t)) != "%s-%s" % (t_lo, t_hi):
        bad.append("%s: footer tau %s-%s, the simulator %.2f-%.2f" % (trace, t_lo, t_hi, min(t), max(t)))
f5 = compare("fifo5")
if f5 != doc_rows("small", "fifo5"):
    bad.append("doc/fidelity.md's fifo5 rows are not this build's (make bench-fidelity)")
want_f5 = "tau %.3f with the plugin" % min(taus(f5["on"]))
if want_f5 not in foot:
    bad.append("the footer lacks fifo5's %s" % want_f5)
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY

# The priority part: a run's priority settings against what the replays
# covered (FIFO; job size alone up to 128 nodes; age with slurmdbd up to 128).
footer_of() { # slurm.conf lines to add to tests/sim/data/small's
	rm -rf "$out/c" && cp -r "$top_srcdir/tests/sim/data/small" "$out/c"
	printf '%s\n' "$@" >> "$out/c/slurm.conf"
	"$sim" --replicas 1 -c "$out/c" "$out/c/trace.csv" 2>/dev/null |
		sed -n '/^This run, in the replays:/,$p' | tr '\n' ' ' | tr -s ' '
}
f=$(footer_of)
case $f in *"in the replays:"*"priority by job size"*"Beyond them"*) ;; *) fail "no job-size priority in the replays: $f" ;; esac
case $f in *"Beyond them"*"priorit"*) fail "priority beyond the replays without a reason: $f" ;; esac
f=$(footer_of PriorityWeightQOS=500)
case $f in *"Beyond them:"*"PriorityWeightQOS (not modelled: counted as 0)"*) ;; *) fail "QOS weight not named: $f" ;; esac
f=$(footer_of PriorityWeightPartition=1000)
case $f in *"Beyond them:"*"PriorityWeightPartition"*) ;; *) fail "partition weight not named: $f" ;; esac
f=$(footer_of AccountingStorageType=accounting_storage/slurmdbd)
case $f in *"in the replays:"*"priority by age and job size (slurmdbd)"*) ;; *) fail "age at 10 nodes: $f" ;; esac
case $f in *"Beyond them"*"priorit"*) fail "age at 10 nodes beyond the replays (mfdbd has 128): $f" ;; esac
f=$(footer_of PriorityWeightFairshare=500 AccountingStorageType=accounting_storage/slurmdbd)
case $f in *"Beyond them:"*"PriorityWeightFairshare (not modelled: counted as 0)"*) ;; *) fail "fair-share without accounts.conf not named: $f" ;; esac
printf 'Account=a\n' > "$out/c/accounts.conf"
f=$("$sim" --replicas 1 -c "$out/c" "$out/c/trace.csv" 2>/dev/null | sed -n '/^This run, in the replays:/,$p' | tr '\n' ' ' | tr -s ' ')
case $f in *"in the replays:"*"fair-share over accounts.conf (Fair Tree)"*"Beyond them"*) ;; *) fail "fair-share at 10 nodes not in the replays (mffair has 128): $f" ;; esac
case $f in *"counted as 0"*) fail "fair-share with accounts.conf counted as 0: $f" ;; esac
echo AccountingStorageEnforce=limits >> "$out/c/slurm.conf"
f=$("$sim" --replicas 1 -c "$out/c" "$out/c/trace.csv" 2>/dev/null | sed -n '/^This run, in the replays:/,$p' | tr '\n' ' ' | tr -s ' ')
case $f in *"Beyond them:"*"fair-share with AccountingStorageEnforce=limits (replayed without it)"*) ;; *) fail "fair-share with limits enforced not named: $f" ;; esac
f=$(footer_of PriorityWeightQOS=500 AccountingStorageType=accounting_storage/slurmdbd)
case $f in *"Beyond them:"*"PriorityWeightQOS (not modelled: counted as 0)"*) ;; *) fail "QOS without qos.conf not named: $f" ;; esac
printf 'QOS=high Priority=10\n' > "$out/c/qos.conf"
f=$("$sim" --replicas 1 -c "$out/c" "$out/c/trace.csv" 2>/dev/null | sed -n '/^This run, in the replays:/,$p' | tr '\n' ' ' | tr -s ' ')
case $f in *"Beyond them:"*"QOS priority on 10 nodes (replayed on up to 4)"*) ;; *) fail "QOS at 10 nodes not named beyond the replays (mfqos has 4): $f" ;; esac
case $f in *"counted as 0"*) fail "QOS with qos.conf counted as 0: $f" ;; esac
f=$(footer_of PriorityType=priority/basic)
case $f in *"in the replays:"*"FIFO priority"*) ;; *) fail "FIFO not named: $f" ;; esac
case $f in *"Beyond them"*"priorit"*) fail "FIFO priority beyond the replays: $f" ;; esac
exit 0
