#!/bin/bash
#SBATCH --job-name=chomp3-census
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --cpus-per-task=4
#SBATCH --time=24:00:00
#SBATCH --requeue
#SBATCH --signal=B:USR1@600
#SBATCH --open-mode=append
#SBATCH --output=chomp3-census-%j.log
#
# The census of rows 0..=ROWS as one Slurm job of nodes x tasks-per-node MPI
# ranks, each with cpus-per-task threads (doc/cli.md, "The census on a cluster").
#
# Build once, on a file system the nodes see, then submit from the checkout:
#   cargo build --release --features mpi
#   DIR=/shared/scratch/census-1000000 ROWS=1000000 sbatch benches/census_slurm.sh
# sbatch passes the variables on (its default --export=ALL):
#   DIR        where the census and its checkpoints go; on a shared file
#              system, the same path on every node (required)
#   ROWS       the last row R (default 1000000)
#   CHOMP3     the binary built with --features mpi
#              (default: target/release/chomp3 of the directory sbatch ran in)
#   CKPT_SECS  seconds of work between checkpoints (default 600)
#   SRUN_MPI   srun's --mpi plugin the Open MPI build speaks (default pmix)
# The #SBATCH lines above set the shape; each rank holds a share of the work,
# so more ranks need less memory each (doc/scaling.md has the figures).
#
# Continuing: every rank writes $DIR/census.c3k.<rank>-of-<ranks>.at-<column>
# every CKPT_SECS. 600 s before the time limit Slurm sends USR1 to this
# script, which stops the ranks with SIGINT (they save a checkpoint at the
# end of the batch of columns under way: keep --signal's lead above a batch's
# time) and requeues the job. A preempted or requeued job, or one that failed
# (a node lost, a rank killed), continues from the newest common checkpoint
# when it runs again: `scontrol requeue JOBID`, or the same sbatch command.
# It must keep the same number of ranks (nodes x tasks per node); the census
# refuses checkpoints of another count, saying which files to delete.
#
# The result: $DIR/census.tsv and $DIR/census.c3d, byte for byte those of
# `chomp3 census` in one process; the log ends with the census's counts
# (constant, proved periodic, open) and every rank's traffic and memory.
# For ROWS=1000000, compare with the committed census:
#   xz -dc data/census-1000000/census.tsv.xz | cmp - "$DIR/census.tsv"
set -euo pipefail

: "${DIR:?set DIR to a directory on a shared file system}"
ROWS=${ROWS:-1000000}
CHOMP3=${CHOMP3:-${SLURM_SUBMIT_DIR:-$PWD}/target/release/chomp3}
CKPT_SECS=${CKPT_SECS:-600}
SRUN_MPI=${SRUN_MPI:-pmix}
threads=${SLURM_CPUS_PER_TASK:-1}
out=$DIR/census.tsv
checkpoint=$DIR/census.c3k

mkdir -p "$DIR"
# Done already (the files written and every checkpoint deleted)?
if [ -e "$out" ] && [ -e "$DIR/census.c3d" ] && ! compgen -G "$checkpoint.*-of-*" >/dev/null; then
    echo "$out is written already; delete it and census.c3d to compute it again"
    exit 0
fi

echo "job ${SLURM_JOB_ID:-?} (restart ${SLURM_RESTART_COUNT:-0}): rows 0..=$ROWS on ${SLURM_NTASKS:-?} ranks of $threads threads, $(date)"
requeue=0
stop_and_requeue() {
    echo "the time limit is near: the ranks save a checkpoint, then the job is requeued"
    requeue=1
    # The job's steps (the ranks), not this script.
    scancel --signal=INT "$SLURM_JOB_ID"
}
trap stop_and_requeue USR1

# --kill-on-bad-exit: a rank that dies ends the others, which would wait for it.
srun --mpi="$SRUN_MPI" --cpus-per-task="$threads" --kill-on-bad-exit=1 \
    "$CHOMP3" census --rows "$ROWS" --out "$out" --checkpoint "$checkpoint" \
    --checkpoint-secs "$CKPT_SECS" --threads "$threads" &
ranks=$!
# A trapped signal ends `wait` early: wait again until srun has ended.
status=0
while :; do
    wait "$ranks" && status=0 || status=$?
    kill -0 "$ranks" 2>/dev/null || break
done
wait "$ranks" && status=0 || status=$?

if [ "$status" -eq 0 ]; then
    echo "done: $out and $DIR/census.c3d, $(date)"
elif [ "$requeue" -eq 1 ]; then
    scontrol requeue "$SLURM_JOB_ID"
else
    echo "srun ended with status $status; the checkpoints in $DIR stay: run 'scontrol requeue ${SLURM_JOB_ID:-JOBID}' or the same sbatch command to continue"
    exit "$status"
fi
