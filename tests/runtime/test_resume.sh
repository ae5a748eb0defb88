#!/bin/sh
# test_resume.sh: a run whose rank 1 is killed (SIGKILL) in round 5, resumed
# from the last complete checkpoint (round 4) with --resume, ends with
# bitwise the same global weights (FNV-1a of theta in the --json summary)
# as the same run uninterrupted. Covers AdamW state, outer momentum, step
# counters, data position and the round plan carried in the checkpoint.
. "$top_srcdir/tests/runtime/mpi-env.sh"
rt_check_resume "--mode rounds --combine fednova --inner adamw --lr 0.002 -H 10 --steps 100 --eval-every 0
        --emulate-speeds 1,1,0.5,0.5 --emulate-base-ms 20 --quiet" params_fnv global_steps
echo PASS
