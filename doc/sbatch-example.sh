#!/bin/bash
# sbatch-example.sh: a nodeox rounds job under Slurm. One task per GPU; srun
# starts them, nodeox-run reads SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID and
# takes GPU number SLURM_LOCALID. The --comment tag lets the job_submit/nodeox
# plugin widen the typed GPU request to any eligible GPU type, so the job may
# land on mixed GPUs: the rounds runtime sizes each worker's share to its
# measured speed. Submit with:  sbatch doc/sbatch-example.sh
#
#SBATCH --job-name=nodeox-rounds
#SBATCH --comment=nodeox:flex
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=4
#SBATCH --gres=gpu:a100:4
#SBATCH --cpus-per-task=8
#SBATCH --time=02:00:00
#SBATCH --requeue
#SBATCH --open-mode=append
#SBATCH --output=nodeox-rounds-%j.out

set -u
# The checkpoint directory must survive a requeue: the job ID stays the same.
ckpt="${SLURM_SUBMIT_DIR:-$PWD}/nodeox-ckpt-${SLURM_JOB_ID}"

# --kill-on-bad-exit: when one worker dies, Slurm ends the others at once;
# without it they still exit within the runtime's watchdog deadline.
srun --kill-on-bad-exit=1 --mpi=pmix \
    nodeox-run --backend cuda --mode rounds --combine fednova -H 100 \
        --steps 20000 --checkpoint-dir "$ckpt" --checkpoint-every 10 --resume \
        --json "nodeox-rounds-${SLURM_JOB_ID}.json"
rc=$?

# Exit codes (doc/runtime.md): 3 an MPI/NCCL call failed, 4 a peer was lost
# (deadline passed), 5 checkpoint I/O. For lost peers or failed collectives,
# requeue: the next run resumes from the last complete checkpoint.
case $rc in
    0) ;;
    3|4) echo "nodeox-run exited $rc (worker lost); requeueing"; scontrol requeue "$SLURM_JOB_ID" ;;
    *) echo "nodeox-run exited $rc" ;;
esac
exit $rc
