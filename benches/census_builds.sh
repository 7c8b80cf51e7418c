#!/usr/bin/env bash
# Two or more builds of chomp3 on one census, in one run (doc/algorithm.md,
# "What the census engine's changes bought"): `census --rows R --threads 1`
# with each binary ROUNDS times, alternated; prints per run the CPU time
# (user + sys), wall time and peak RSS, then the ratio of each binary's
# median CPU time to the first's, and checks that every binary wrote the
# same census: the descriptors (`.c3d`) byte for byte, and the table
# (`.tsv`) line for line but for its `#` comment lines (whose wording may
# differ between builds).
#   ROUNDS=2 benches/census_builds.sh ROWS OLD_BINARY NEW_BINARY [...]
# Writes only under a temporary directory.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 ROWS BINARY BINARY [...]" >&2; exit 2; }
rows=$1
shift
rounds=${ROUNDS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bins=()
for b in "$@"; do bins+=("$(realpath "$b")"); done
echo "census --rows $rows --threads 1, $rounds rounds; CPU = user + sys"
for round in $(seq "$rounds"); do
    for i in "${!bins[@]}"; do
        out="$work/$i"
        rm -rf "$out" && mkdir -p "$out"
        /usr/bin/time -f "%U %S %e %M" -o "$out/time" \
            "${bins[$i]}" census --rows "$rows" --threads 1 --quiet --out "$out/c.tsv" \
            > /dev/null
        read -r user sys wall rss < "$out/time"
        cpu=$(echo "$user + $sys" | bc)
        echo "$cpu" >> "$work/cpu.$i"
        printf 'round %s  %-40s  CPU %8.2f s  wall %8.2f s  peak %8d KB\n' \
            "$round" "${bins[$i]}" "$cpu" "$wall" "$rss"
    done
done
median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
first=$(median "$work/cpu.0")
for i in "${!bins[@]}"; do
    m=$(median "$work/cpu.$i")
    printf 'median CPU %8.2f s  ratio %.3f  %s\n' "$m" "$(echo "$m / $first" | bc -l)" "${bins[$i]}"
    cmp -s "$work/0/c.c3d" "$work/$i/c.c3d" || { echo "the descriptors differ: ${bins[$i]}" >&2; exit 1; }
    cmp -s <(grep -v '^#' "$work/0/c.tsv") <(grep -v '^#' "$work/$i/c.tsv") ||
        { echo "the census tables differ: ${bins[$i]}" >&2; exit 1; }
done
echo "every census the same"
