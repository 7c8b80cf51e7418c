"""First steps with chomp3 from Python (run from the repository root after
`pip install ./python`): the committed census, a small table, three-rowed
Sprague-Grundy values and graph Chomp. Writes one figure if matplotlib is
installed (to the directory given as the first argument, default: a temporary
one), never into the repository."""

import sys
import tempfile
from pathlib import Path

import numpy as np

import chomp3

# 1. The committed census: every row r <= 10**6 with its proved fate.
census = chomp3.Census("data/census-1000000/census.c3d.xz")
rows = census.rows()
periodic = rows[rows["cls"] == "periodic"]
print(f"{len(rows)} rows: {np.sum(rows['cls'] == 'constant')} constant, {len(periodic)} periodic")
periods, counts = np.unique(periodic["period"], return_counts=True)
print("periods:", dict(zip(periods.tolist(), counts.tolist())))
print("first rows of period 27:", periodic[periodic["period"] == 27]["r"][:3].tolist())
print("row 112742:", {k: v for k, v in census.fate(112742).items() if k != "pattern"})
print("f(10^15, 112742) =", census.f(10**15, 112742))

# 2. A small table of its own, read into numpy.
out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
out.mkdir(parents=True, exist_ok=True)
table_path = out / "small.c3t"
chomp3.compute(300, table_path, progress=False)
table = chomp3.Table(table_path)
row = table.row(7)
print(f"table N = {table.n}; row 7, q = 0..15:", row[:16].tolist())
print("[15,9,4]:", chomp3.position(15, 9, 4, table=table_path))

print(f"{table!r}: shape {table.shape}; t[3:10, 2] =", table[3:10, 2].tolist())
by_rows = chomp3.transpose(table_path, out / "small-rows.c3t", progress=False)  # rows in one run
assert (by_rows.row(7) == row).all()
print(f"{by_rows!r}: row 7 the same")

# 3. Sprague-Grundy values of three-rowed Chomp.
print("G(n,n,n) for the 3 x n rectangles, n = 1..12:", [chomp3.nim(n, n, n) for n in range(1, 13)])
grundy_census = chomp3.GrundyCensus("data/grundy-census-40/grundy-census.tsv")  # read once
print(grundy_census)
print("G(10^18, 40, 17) =", grundy_census.value(10**18, 40, 17))
line = chomp3.grundy_line(6, 2, 200, progress=False)  # one sweep: G(p, 6, 2), 6 <= p < 200
print("line (6,2): G(p) - p for p = 6..20:", (line[:15] - np.arange(6, 21)).tolist())
small = chomp3.grundy_table(40, out / "small.g3t", progress=False)
print(f"{small!r}: G(40, 40, 40) = {small[40, 40, 40]}")

# 4. Graph Chomp: a few graphs by graph6, edge list and networkx (if installed).
print("K3 (graph6 'Bw'):", chomp3.nim_value("Bw"), " path 0-1-2:", chomp3.nim_value([(0, 1), (1, 2)]))
try:
    import networkx as nx

    wheels = [nx.wheel_graph(n) for n in range(4, 10)]
    print("wheels W_3..W_8:", chomp3.nim_values(wheels))
except ImportError:
    print("(networkx not installed: skipping the wheels)")

# 5. The periodicity of the rows, as a figure.
try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4))
    ax.scatter(periodic["r"], periodic["start"] - periodic["r"], s=1, c=np.log2(periodic["period"]))
    ax.set_xlabel("row r")
    ax.set_ylabel("start - r")
    ax.set_title("Periodic rows of the certified census (colour: log2 period)")
    figure = out / "periodicity.png"
    fig.savefig(figure, dpi=100)
    print("figure:", figure)
except ImportError:
    print("(matplotlib not installed: no figure)")
