#!/bin/sh
# test_peer_lost.sh: a worker that stops answering must not hang the others.
# (1) rank 1 hangs in round 3 (--inject-hang: alive, but never reaches the
#     next collective, so mpirun sees nothing wrong): the watchdog of the
#     other ranks must fire at its deadline (factor x longest round + min),
#     name the collective, and exit 4; the job ends well within 60 s.
# (2) rank 2 is killed with SIGKILL in round 3: the job ends non-zero, also
#     within 60 s.
. "$top_srcdir/tests/runtime/mpi-env.sh"
common="--mode rounds -H 10 --steps 1000 --eval-every 0 --emulate-speeds 1,1,0.5,0.5
        --emulate-base-ms 10 --fault-factor 2 --fault-min 3"
RT_TIMEOUT=60
rc=0
rt_mpi 4 $common --inject-hang 1:3 >"$RT_WORK/hang.out" 2>&1 || rc=$?
rt_check_lost "$RT_WORK/hang.out" $rc hang
rc=0
rt_mpi 4 $common --inject-exit 2:3 >"$RT_WORK/kill.out" 2>&1 || rc=$?
rt_check_lost "$RT_WORK/kill.out" $rc kill
echo PASS
