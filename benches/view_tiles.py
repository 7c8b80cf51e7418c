"""How fast `chomp3 view` serves tiles and rows: starts the viewer on a table and
times tile requests at every scale, over HTTP as the page makes them.

    python3 benches/view_tiles.py --table PATH [--chomp3 target/release/chomp3] [--per-scale 40]

For each scale (2^s x 2^s cells per pixel) it requests `--per-scale` tiles that
hold cells, chosen at random with a fixed seed, and prints the median and the
slowest time per tile (PNG, measure f(q,r) - q), then the same for a row of
1,000 values. Standard library only."""

import argparse
import random
import statistics
import subprocess
import time
import urllib.request


def fetch(url):
    t0 = time.perf_counter()
    with urllib.request.urlopen(url) as res:
        body = res.read()
        assert res.status == 200, url
    return time.perf_counter() - t0, len(body)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--table", required=True)
    ap.add_argument("--chomp3", default="target/release/chomp3")
    ap.add_argument("--per-scale", type=int, default=40)
    args = ap.parse_args()
    proc = subprocess.Popen([args.chomp3, "view", "--port", "0", "--table", args.table],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = proc.stdout.readline().split("serving ")[1].split()[0]
    try:
        info = urllib.request.urlopen(url + "api/info").read().decode()
        columns = int(info.split('"columns":')[1].split(",")[0].split("}")[0])
        rng = random.Random(1)
        print(f"table {args.table}: {columns} columns")
        print("scale  cells/pixel  tiles  median ms  max ms  median bytes")
        scale = 0
        while (256 << scale) < 2 * columns:
            span = 256 << scale
            last = (columns - 1) // span
            times, sizes = [], []
            for _ in range(args.per_scale):
                x = rng.randint(0, last)
                y = rng.randint(0, x)
                t, n = fetch(f"{url}api/tile?measure=offset&scale={scale}&x={x}&y={y}")
                times.append(t * 1000)
                sizes.append(n)
            print(f"{scale:5}  {1 << scale:>5}x{1 << scale:<5}  {len(times):5}  {statistics.median(times):9.1f}"
                  f"  {max(times):6.1f}  {int(statistics.median(sizes)):12}")
            scale += 1
        times = []
        for _ in range(args.per_scale):
            r = rng.randint(0, columns - 1001)
            t, _ = fetch(f"{url}api/row?r={r}&from={r}&to={r + 999}")
            times.append(t * 1000)
        print(f"row of 1000 values: median {statistics.median(times):.1f} ms, max {max(times):.1f} ms")
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
