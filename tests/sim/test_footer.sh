#!/bin/sh
# tests/sim/test_footer.sh: the "Checked against" footer of nodeox-sim's table
# quotes the 160-node trace's fidelity (mean wait against the real runs'
# mean, Slurm's own spread, each with the plugin off and on); those figures
# must be the ones doc/fidelity.md's generated table holds, which `make
# bench-fidelity` rewrites whenever the model changes, so a model change
# that leaves the footer behind fails here.
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
PY
