#!/usr/bin/env bash
# Two builds of the Grundy census against each other, in one run (RESULTS.md,
# "Sprague-Grundy values"): for each Q, both binaries REPS times, alternated;
# prints wall time and peak memory, and checks that the two census files are
# the same line for line (the header's "first pass swept" line aside).
#   benches/grundy_census.sh OLD_BINARY NEW_BINARY [Q ...]
# Writes only under a temporary directory.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OLD_BINARY NEW_BINARY [Q ...]" >&2; exit 2; }
old=$(realpath "$1") new=$(realpath "$2")
shift 2
qs=("$@")
[ ${#qs[@]} -gt 0 ] || qs=(30 40)
reps=${REPS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for q in "${qs[@]}"; do
    for rep in $(seq "$reps"); do
        for which in old new; do
            bin=${!which}
            /usr/bin/time -f "$which Q=$q rep $rep: %e s, %M KB" \
                "$bin" grundy-census --lines "$q" --max-p 100000000 --quiet \
                --out "$work/$which-$q.tsv" 2>&1 >/dev/null | grep -v '^chomp3:'
        done
    done
    if cmp -s <(grep -v '^#' "$work/old-$q.tsv") <(grep -v '^#' "$work/new-$q.tsv"); then
        echo "Q=$q: the same census"
    else
        echo "Q=$q: the censuses differ" && exit 1
    fi
done
