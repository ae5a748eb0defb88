#!/bin/sh
# tests/sim/test_footer.sh: the "Checked against" footer of nodeox-sim's table
# quotes the 160-node trace's fidelity (mean wait against the real runs'
# mean and Slurm's own spread, each with the plugin off and on; the range of
# the start-order tau against its real runs) and fifo5's lowest tau with the
# plugin; those figures must be the ones doc/fidelity.md's generated tables
# hold, which `make bench-fidelity` rewrites whenever the model changes, so
# a model change that leaves the footer behind fails here.
. "$top_srcdir/tests/sim/sim_lib.sh"
"$sim" --replicas 1 -c "$top_srcdir/tests/sim/data/small" "$top_srcdir/tests/sim/data/small/trace.csv" \
	> "$out/table" 2>/dev/null
python3 - "$out/table" "$top_srcdir/doc/fidelity.md" <<'PY' || fail "the footer's 160-node figures are not doc/fidelity.md's"
import re, sys
foot = open(sys.argv[1]).read()
foot = " ".join(foot[foot.index("Checked against:"):].split())
doc = open(sys.argv[2]).read()
block = doc[doc.index("<!-- generated: large -->"):doc.index("<!-- end generated: large -->")]
want = {}
for mode in ("off", "on"):
    row = re.search(r"^\| large \| %s \| .*\(spread ([0-9.]+%%)\) \| [0-9.]+ \(([-+][0-9.]+%%);" % mode,
                    block, re.M)
    assert row, "no large/%s row in doc/fidelity.md" % mode
    want[mode] = row.groups()
m = re.search(r"mean wait ([-+][0-9.]+%) and ([-+][0-9.]+%) \(Slurm's own spread ([0-9.]+%) and ([0-9.]+%)\)",
              foot)
assert m, "the footer quotes no 160-node mean wait: " + foot
got = {"off": (m.group(3), m.group(1)), "on": (m.group(4), m.group(2))}
for mode in ("off", "on"):
    if got[mode] != want[mode]:
        print("%s: footer %s, doc/fidelity.md %s (spread, mean wait)" % (mode, got[mode], want[mode]))
        sys.exit(1)


def taus(block, trace, mode):
    row = re.search(r"^\| %s \| %s \| [0-9].*$" % (re.escape(trace), mode), block, re.M)
    assert row, "no %s/%s row in doc/fidelity.md" % (trace, mode)
    col = row.group(0).split("|")[7]  # start-order tau sim-real (real-real)
    return [float(x) for x in col.split("(")[0].split("/")]


t = taus(block, "large", "off") + taus(block, "large", "on")
want_tau = "tau %.2f-%.2f" % (min(t), max(t))
if want_tau not in foot:
    print("footer lacks the 160-node %s of doc/fidelity.md" % want_tau)
    sys.exit(1)
small = doc[doc.index("<!-- generated: small -->"):doc.index("<!-- end generated: small -->")]
want_f5 = "tau %.3f with the plugin" % min(taus(small, "fifo5", "on"))
if want_f5 not in foot:
    print("footer lacks fifo5's %s of doc/fidelity.md" % want_f5)
    sys.exit(1)
PY
