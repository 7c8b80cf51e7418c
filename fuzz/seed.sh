#!/usr/bin/env bash
# Makes the seed corpus of every fuzz target in fuzz/corpus/<target>/ (not
# committed: made again from the release binary, so seeds follow the formats).
# Run from the repository root after `cargo build --release`.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=target/release/chomp3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
c=fuzz/corpus
mkdir -p $c/{table,grundy_table,sweep,descriptors,census_checkpoint,periods_checkpoint,grundy_text,graph_memo,graph_text,viewer,viewer_http,figure_record}
$bin compute --n 60 --capacity 60 --table "$work/t.c3t" > /dev/null
cp "$work/t.c3t" $c/table/t60
$bin grundy-table --quiet --n 12 --capacity 12 --table "$work/g.g3t" --checkpoint "$work/g.g3s" > /dev/null
cp "$work/g.g3t" $c/grundy_table/g12
cp "$work/g.g3s" $c/sweep/g12
$bin census --quiet --rows 40 --out "$work/c.tsv" > /dev/null
cp "$work/c.c3d" $c/descriptors/c40
# A census stopped by Ctrl-C keeps its checkpoint: the first size that is
# still running after a quarter second (the target knows these sizes).
for rows in 5000 15000 40000; do
  timeout -s INT 0.25 $bin census --quiet --threads 1 --rows $rows --out "$work/s$rows.tsv" \
      --checkpoint "$work/s.c3k" > /dev/null 2>&1 || true
  if [ -f "$work/s.c3k" ]; then cp "$work/s.c3k" $c/census_checkpoint/rows$rows; break; fi
done
$bin grundy-census --quiet --lines 5 --out "$work/gc.tsv" --bfiles "$work/b" --rectangles 20 > /dev/null
$bin grundy-periods --quiet --lines 5 --lag 144 --bfiles "$work/pb" --out "$work/p.tsv" > /dev/null
cp "$work/gc.tsv" $c/grundy_text/census
cp "$work/p.tsv" $c/grundy_text/periods
{ cat "$work/pb/grundy-periods.txt"; printf '\0'; cat "$work/pb/grundy-starts.txt"; } > $c/grundy_text/bfiles
# Stopped by Ctrl-C at once: its checkpoint holds the run's first state.
timeout -s INT 1 $bin grundy-periods --quiet --lines 12 --lag 9437184 --out "$work/q.tsv" \
    --bfiles "$work/qb" --checkpoint "$work/q.ck" > /dev/null 2>&1 || true
cp "$work/q.ck" $c/periods_checkpoint/q12
# Stopped at --max-p with its lines kept L values deep (format 6).
$bin grundy-periods --quiet --lines 14 --lag 2304 --max-p 100 --out "$work/k.tsv" \
    --bfiles "$work/kb" --checkpoint "$work/k.ck" > /dev/null 2>&1 || true
cp "$work/k.ck" $c/periods_checkpoint/kept14
$bin graph wheel:6 --memo "$work/m.memo" > /dev/null
cp "$work/m.memo" $c/graph_memo/wheel6
printf 'Bw' > $c/graph_text/g6
printf ':Fa@x^' > $c/graph_text/s6
printf '0 1\n1 2\n2 0\n' > $c/graph_text/edges
printf 'wheel:7' > $c/graph_text/family
for u in '/api/info' '/api/tile?scale=0&x=0&y=0&format=values' '/api/tile?scale=2&x=0&y=0&measure=dead' \
         '/api/cell?q=100&r=40' '/api/row?r=5&from=0&to=300' '/api/census' '/api/legend' '/'; do
  printf '%s' "$u" > "$c/viewer/$(printf '%s' "$u" | md5sum | cut -c1-8)"
done
printf 'GET /api/cell?q=1&r=0 HTTP/1.1\r\nHost: x\r\nConnection: close' > $c/viewer_http/get
printf 'HEAD / HTTP/1.0' > $c/viewer_http/head
printf 'POST /api/cell HTTP/1.1\r\nContent-Length: 0' > $c/viewer_http/post
$bin plot --grundy-bfiles data/grundy-periods-300 --out "$work/plots" > /dev/null
cp "$work/plots/figures.tsv" $c/figure_record/grundy
cp plots/figures.tsv $c/figure_record/committed
echo "seeds in $c: $(find $c -type f | wc -l) files"
