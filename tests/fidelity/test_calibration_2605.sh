#!/bin/sh
# tests/fidelity/test_calibration_2605.sh: test_calibration.sh for the runs
# recorded on SchedMD's Slurm 26.05.3 (tests/fidelity-26.05/, issue 43):
# predicting as an admin would, with nodeox-sim --slurm-version 26.05
# (FIDELITY_SLURM_VERSION), every real run's mean wait lies in the replicas'
# predicted range widened by 3% of each end (tools/fidelity-compare
# --calibrate --check), and the share of runs outside the replicas' own range
# is checked as there once the runs would put at least 10 outside. The set is
# sim/Makefile.inc's FIDELITY_2605_TRACES and FIDELITY_2605_LARGE. No cluster
# needed: the real runs are files.
set -eu
d="$top_srcdir/tests/fidelity-26.05"
FIDELITY_SLURM_VERSION=26.05 NODEOX_SIM="$top_builddir/sim/nodeox-sim" \
	python3 "$top_srcdir/tools/fidelity-compare" --calibrate --check \
	"$d/tiny" "$d/fifo5" "$d/tagged-prefer" "$d/large"
