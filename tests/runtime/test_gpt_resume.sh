#!/bin/sh
# test_gpt_resume.sh: the transformer in rounds on 4 ranks of unequal speed
# (AdamW, FedNova, gradient clipping), rank 1 killed in round 5, resumed
# from the last complete checkpoint (round 4): the final global weights are
# bitwise those of the uninterrupted run (FNV-1a of theta in --json), as are
# the step counters and the final validation loss.
RT_NEEDS=fortunes
. "$top_srcdir/tests/runtime/mpi-env.sh"
rt_check_resume "--workload gpt --layers 2 --channels 32 --heads 2 --context 32 --batch 8 --eval-windows 50
        --mode rounds --combine fednova --inner adamw --lr 0.003 --weight-decay 0.1 --grad-clip 1
        -H 10 --steps 80 --eval-every 0 --emulate-speeds 1,1,0.5,0.5 --emulate-base-ms 20 --quiet" \
    params_fnv global_steps val_loss
echo PASS
