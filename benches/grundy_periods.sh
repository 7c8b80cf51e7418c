#!/usr/bin/env bash
# chomp3's census of periods against a plain C sweep of the same lines, in one
# run (doc/grundy.md, "Where the time of the sweeps goes"): for each Q, the C
# program and `chomp3 grundy-periods` ROUNDS times, alternated; prints per
# round the CPU time (user + sys), wall time and peak RSS of each side and the
# ratio of CPU times, and checks that both give every line the same start and
# least period.
#   benches/grundy_periods.sh CHOMP3_BINARY [Q ...]      (Q: 60 or 100)
# The C program is built from ../shared/baselines/grundy_lines.c (beside the
# repository; BASELINE=FILE names another) into a temporary directory; it is
# not part of the repository. Writes only under that directory.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 CHOMP3_BINARY [Q ...]" >&2; exit 2; }
chomp3=$(realpath "$1")
shift
qs=("$@")
[ ${#qs[@]} -gt 0 ] || qs=(60 100)
rounds=${ROUNDS:-2}
here=$(dirname "$(realpath "$0")")
src=${BASELINE:-$here/../../shared/baselines/grundy_lines.c}
[ -f "$src" ] || { echo "no baseline at $src (set BASELINE=FILE)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -o "$work/grundy_lines" "$src"

# Per Q: the C sweep's last p (every line's start + 2 periods + margin, as
# the baseline's README says) and the lag chomp3 uses (RESULTS.md).
args_for() {
    case $1 in
        60) echo "270000 18432" ;;
        100) echo "1600000 147456" ;;
        *) echo "no settings for Q = $1" >&2; exit 2 ;;
    esac
}

# Runs a command; prints "user+sys wall peak-KB" of it.
measure() {
    /usr/bin/time -f "%U %S %e %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" || {
        cat "$work/err" >&2
        exit 1
    }
    awk '{ printf "%.2f %.2f %d\n", $1 + $2, $3, $4 }' "$work/time"
}

printf '%-4s %-6s %-9s %10s %8s %9s %9s\n' Q round side "user+sys" wall "peak MB" ratio
for q in "${qs[@]}"; do
    read -r big lag <<<"$(args_for "$q")"
    for round in $(seq "$rounds"); do
        # (the C program writes its table to stdout: kept for the check)
        read -r c_cpu c_wall c_kb <<<"$(measure sh -c \
            "exec '$work/grundy_lines' periods $q $big > '$work/c-$q.tsv'")"
        rm -rf "$work/b-$q" && mkdir "$work/b-$q"
        read -r r_cpu r_wall r_kb <<<"$(measure "$chomp3" grundy-periods --lines "$q" \
            --lag "$lag" --quiet --bfiles "$work/b-$q" --out "$work/r-$q.tsv")"
        printf '%-4s %-6s %-9s %10s %8s %9s\n' "$q" "$round" baseline "$c_cpu" "$c_wall" \
            "$((c_kb / 1024))"
        printf '%-4s %-6s %-9s %10s %8s %9s %9s\n' "$q" "$round" chomp3 "$r_cpu" "$r_wall" \
            "$((r_kb / 1024))" "$(awk -v a="$r_cpu" -v b="$c_cpu" 'BEGIN { printf "%.2f", a / b }')"
    done
    # Every line decided by the C sweep, with chomp3's start and period.
    awk -F'\t' 'NR > 1 { if ($5 != 1) { print "undecided: " $0; bad = 1 }
                          print $1, $2, $6, $7 } END { exit bad }' "$work/c-$q.tsv" \
        | sort >"$work/c-$q.sp"
    awk -F'\t' '!/^#/ && $1 != "q" { print $1, $2, $3, $4 }' "$work/r-$q.tsv" | sort >"$work/r-$q.sp"
    if cmp -s "$work/c-$q.sp" "$work/r-$q.sp"; then
        echo "Q=$q: the same start and period on all $(wc -l <"$work/r-$q.sp") lines"
    else
        echo "Q=$q: the starts or periods differ" && exit 1
    fi
done
