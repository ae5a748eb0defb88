#!/bin/sh
# tests/fidelity/test_calibration.sh: nodeox-sim's replicas are calibrated
# against the real slurmctld runs recorded in tests/fidelity/: predicting as
# an admin would (default clock phases, --replicas 8), every real run's mean
# wait lies in the predicted range widened by 3% of each end
# (tools/fidelity-compare --calibrate --check), except the one run
# doc/simulator.md (Replicas) names: multifactor without the plugin, run 6
# (332.1 s against 350.6-385.9 s; nodeox-sim gives 330.1 s at that run's own
# clock phases, a conjunction 8 replicas do not draw), also as
# multifactor-prefer's run 6 without the plugin (the -prefer traces' runs
# without the plugin are copies of their originals'), and
# multinode-when-faster-ties' two runs (161.9 / 163.9 s against
# 175.2-188.9 s: nodeox-sim does not yet reproduce what run-time history and
# kept ties gain on that trace, issue 47; doc/admin-guide.md). The set is every
# recorded run: sim/Makefile.inc's FIDELITY_CALIBRATION. The share of real
# runs outside the replicas' own range (not widened) must lie within half to
# twice the 2/(N+1) that draws of the replicas' noise would give: replicas
# much narrower or much wider than Slurm's spread fail here, whatever the
# widening lets in. No cluster needed: the real runs are files. nodeox-sim's
# and fidelity-compare's stderr go to the test's log, so that a run that
# fails says why there.
set -eu
d="$top_srcdir/tests/fidelity"
NODEOX_SIM="$top_builddir/sim/nodeox-sim" FIDELITY_CALIBRATION_EXCEPT=multifactor:off:6,multifactor-prefer:off:6,multinode-when-faster-ties:on:1,multinode-when-faster-ties:on:2 \
	python3 "$top_srcdir/tools/fidelity-compare" --calibrate --check \
	"$d/fifo" "$d/multinode" "$d/tagged" "$d/twopart" "$d/tiny" "$d/multifactor" "$d/crosstype" \
	"$d/tagged-prefer" "$d/multifactor-prefer" "$d/fifo-prefer" "$d/fifo5" "$d/fifo5-when-blocked" \
	"$d/fifo5-when-faster" "$d/fifo-when-faster" "$d/multinode-when-faster" "$d/fifo5-when-faster-ties" "$d/fifo-when-faster-ties" "$d/multinode-when-faster-ties" "$d/large" "$d/mflarge" "$d/mfdbd" "$d/mffair" "$d/mfqos"
