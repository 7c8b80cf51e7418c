"""Speed of the Python package against its targets: run from the
repository root after `pip install ./python`, optionally with the path of a
large table (default data/table.c3t) and of the same table by rows
(`chomp3 transpose`). Prints medians of repeated runs; these
are figures for a closing note, not tests."""

import statistics
import subprocess
import sys
import time

import chomp3


def median_ms(f, repeat=7):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


# The table, and the same table by rows (`chomp3 transpose`) if given.
for path in sys.argv[1:3] if len(sys.argv) > 1 else ["data/table.c3t"]:
    for mapped in (False, True):
        table = chomp3.Table(path, mapped=mapped)
        r = table.n // 2
        how = ("by rows, " if table.by_rows else "") + ("mapped" if mapped else "read")
        table.row(r)  # its blocks checked once, as any later read finds them
        print(f"Table.row({r}) of N = {table.n} ({how}): {median_ms(lambda: table.row(r), 15):.2f} ms median of 15")
census = chomp3.Census("data/census-1000000/census.c3d.xz")
print(f"Census.rows() of {len(census)} rows: {median_ms(census.rows):.1f} ms median")
grundy_census = chomp3.GrundyCensus("data/grundy-census-40/grundy-census.tsv")
print(f"GrundyCensus.value(10**15, 40, 17): {median_ms(lambda: grundy_census.value(10**15, 40, 17), 101):.3f} ms median")
periods = chomp3.GrundyCensus("data/grundy-periods-300/grundy-periods-census.tsv")
print(f"GrundyCensus.value(2**40, 9, 3) (periods census, reduced then swept): "
      f"{median_ms(lambda: periods.value(2**40, 9, 3), 21):.3f} ms median")

graphs = subprocess.run(["nauty-geng", "-q", "8"], capture_output=True, text=True, check=True).stdout
lines = graphs.split()
t = time.perf_counter()
values = chomp3.nim_values(lines)
py = time.perf_counter() - t
t = time.perf_counter()
subprocess.run(["target/release/chomp3", "graph", "--quiet", "-", "--summary"], input=graphs,
               capture_output=True, text=True, check=True)
cli = time.perf_counter() - t
print(f"nim_values on the {len(values)} graphs on 8 vertices: {py:.3f} s; "
      f"chomp3 graph - --summary: {cli:.3f} s; ratio {py / cli:.2f}")
