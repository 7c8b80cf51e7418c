#!/usr/bin/env bash
# The census over MPI against the threaded census, in one run (doc/scaling.md):
# for each R, every configuration REPS times, interleaved; prints wall and CPU
# time (user + sys of every process), each rank's bytes sent (per column block)
# and peak memory, and the sizes of the per-rank checkpoints. Needs a build
# with the feature:
#   cargo build --release -p chomp3-cli --features mpi && benches/census_mpi.sh [R ...]
# BIN names another binary; CONFIGS another list of "kind P T" (kind threaded
# or mpi), e.g. CONFIGS="threaded 0 2;mpi 1 2;mpi 2 1;mpi 4 1;mpi 8 1".
# Writes only under a temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BIN:-$PWD/target/release/chomp3}
reps=${REPS:-3}
rows=("$@")
[ ${#rows[@]} -gt 0 ] || rows=(20000 50000)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
IFS=';' read -r -a configs <<<"${CONFIGS:-threaded 0 2;mpi 1 2;mpi 2 1;mpi 2 2;mpi 2 4}"
for R in "${rows[@]}"; do
    for rep in $(seq "$reps"); do
        for config in "${configs[@]}"; do
            read -r kind P T <<<"$config"
            out=$work/$kind-$P-$T.tsv
            rm -f "$work"/*
            args=(census --quiet --replace --rows "$R" --threads "$T" --out "$out")
            timed=(/usr/bin/time -o "$work/time" -f '%e %U %S')
            if [ "$kind" = threaded ]; then
                report=$("${timed[@]}" "$bin" "${args[@]}")
            else
                report=$("${timed[@]}" "${mpi[@]}" -n "$P" "$bin" "${args[@]}")
            fi
            read -r wall user sys <"$work/time"
            printf 'R=%s rep=%s %s P=%s T=%s wall=%s s cpu=%.2f s\n' "$R" "$rep" "$kind" "$P" "$T" \
                "$wall" "$(echo "$user + $sys" | bc)"
            echo "$report" | grep -E '^(census of|rank )' | sed 's/^/    /'
            sha=$(sha256sum "$out" | cut -c1-16)
            echo "    census.tsv sha256 $sha"
        done
    done
    # Checkpoint sizes: one checkpoint per batch, 2 ranks (not timed).
    rm -f "$work"/*
    "${mpi[@]}" -n 2 "$bin" census --rows "$R" --threads 2 --checkpoint-secs 0 --out "$work/c.tsv" 2>&1 >/dev/null \
        | grep -E 'checkpoint .*at-' | sed "s|$work/||; s/^/    R=$R rank 0 /" || true
done
