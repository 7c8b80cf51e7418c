"""Tests of the Python package, from outside the code: the reference table, a
brute force written here from the rules of the game, the command line's own
output, and brute-force graph Chomp on random networkx graphs."""

import functools
import lzma
import os
import pathlib
import random
import shutil
import signal
import subprocess
import sys
import threading
import warnings
import time

import networkx as nx
import numpy as np
import pytest

import chomp3

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The committed census, compressed as committed (the package's default census).
CENSUS = ROOT / "data/census-1000000/census.c3d.xz"


def reference():
    """f[r][q] for q, r <= 30 from tests/data/f_table_30.txt ('r | values')."""
    f = {}
    for line in (ROOT / "tests/data/f_table_30.txt").read_text().splitlines():
        label, sep, values = line.partition("|")
        if sep and label.strip().isdigit():
            f[int(label)] = [int(v) for v in values.split()]
    return f


@functools.lru_cache(maxsize=None)
def grundy(p, q, r):
    """G(p,q,r) from the moves of three-rowed Chomp (mex of the options)."""
    options = set()
    for c in range(2, p + 1):
        options.add(grundy(c - 1, min(q, c - 1), min(r, c - 1)))
    for c in range(1, q + 1):
        options.add(grundy(p, c - 1, min(r, c - 1)))
    for c in range(1, r + 1):
        options.add(grundy(p, q, c - 1))
    return next(v for v in range(len(options) + 1) if v not in options)


def pickle_roundtrip(x):
    import pickle

    return pickle.loads(pickle.dumps(x))


def chomp3_binary():
    for kind in ("release", "debug"):
        path = ROOT / "target" / kind / "chomp3"
        if path.exists():
            return str(path)
    pytest.skip("no chomp3 binary built (cargo build)")


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    path = tmp_path_factory.mktemp("t") / "t.c3t"
    done = chomp3.compute(60, path, progress=False)
    assert done["n"] == 60
    return path


def test_table_values_are_the_reference_table(table):
    t = chomp3.Table(table)
    assert t.n == 60
    f = reference()
    for r in range(31):
        assert list(t.row(r, 0, 31)) == f[r]
        for q in range(31):
            assert t[q, r] == f[r][q]
    col = t.column(30)
    assert col.dtype == np.uint32 and list(col) == [f[r][30] for r in range(31)]


def test_a_mapped_table_reads_the_same_rows(table):
    f = reference()
    t = chomp3.Table(table, mapped=True)
    assert "mapped" in repr(t) and pickle_roundtrip(t).mapped
    for r in range(31):
        assert list(t.row(r, 0, 31)) == f[r]
        assert list(t[5:17, r]) == f[r][5:17]
    # Above the diagonal a row reads f(q, q); an empty range is empty.
    assert list(t.row(50, 0, 31)) == [f[q][q] for q in range(31)]
    assert len(t.row(7, 20, 10)) == 0
    with pytest.raises(TypeError, match="mapped"):
        chomp3.Table(table, mapped="yes")


def test_table_rows_equal_chomp3_dump(table):
    out = subprocess.run(
        [chomp3_binary(), "dump", "--table", str(table)], capture_output=True, text=True, check=True
    ).stdout
    t = chomp3.Table(table)
    seen = 0
    for line in out.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        q, r, v = map(int, line.split())
        assert t.column(q)[r] == v
        seen += 1
    assert seen == 61 * 62 // 2


def test_p_positions_match_the_brute_force(table):
    # [p,q,r] is lost exactly when G = 0, from the rules alone.
    for p in range(1, 25):
        for q in range(p + 1):
            for r in range(q + 1):
                got = chomp3.position(p, q, r, table=table)
                assert got["lost"] == (grundy(p, q, r) == 0)
                for row, column, after in got["winning_moves"]:
                    assert grundy(*after) == 0


def test_nim_values_of_three_rowed_chomp_are_the_brute_force():
    for p, q, r in [(1, 0, 0), (5, 3, 1), (17, 9, 4), (30, 30, 30), (40, 12, 0)]:
        value, options = chomp3.nim(p, q, r, options=True)
        assert value == grundy(p, q, r)
        assert len(options) == p - 1 + q + r
        for after, v in options:
            assert v == grundy(*after)


def test_nim_follows_the_source_rule_of_the_command(tmp_path):
    census = ROOT / "data/grundy-census-40/grundy-census.tsv"
    # Line (4,2) starts at p = 17 with period 2: every p from 17 to 60 against
    # the brute force, from the census file.
    for p in range(17, 61):
        value, source = chomp3.nim(p, 4, 2, grundy_census=census, explain=True)
        assert value == grundy(p, 4, 2) and "line (4,2)" in source
    # Far beyond any sweep: the pattern repeats with the period.
    far = chomp3.nim(10**15 + 20, 4, 2, grundy_census=census)
    assert far - (10**15 + 20) == grundy(20, 4, 2) - 20
    # A census of periods and starts reduces p by the line's period.
    periods = ROOT / "data/grundy-periods-300/grundy-periods-census.tsv"
    value, source = chomp3.nim(10**15 + 20, 4, 2, grundy_census=periods, explain=True)
    assert value == far and "so G - p is that at p =" in source
    for p in range(21, 61):  # line (4,2): start 17, period 2
        assert chomp3.nim(p, 4, 2, grundy_census=periods) == grundy(p, 4, 2)
    # Before the line's start the census is passed over, with a warning.
    with pytest.warns(UserWarning, match="does not cover"):
        value, source = chomp3.nim(12, 4, 2, grundy_census=census, explain=True)
    assert value == grundy(12, 4, 2) and "computed" in source
    # A Grundy table made by the command answers within its N, and says so.
    g = tmp_path / "g.g3t"
    subprocess.run([chomp3_binary(), "grundy-table", "--n", "30", "--table", str(g)], check=True)
    value, source = chomp3.nim(29, 7, 3, grundy_table=g, explain=True)
    assert value == grundy(29, 7, 3) and "Grundy table" in source
    with pytest.warns(UserWarning, match="holds p <= 30 only"):
        assert chomp3.nim(40, 7, 3, grundy_table=g) == grundy(40, 7, 3)
    with pytest.raises(FileNotFoundError, match="no such Grundy table"):
        chomp3.nim(9, 5, 1, grundy_table=tmp_path / "none.g3t")
    with pytest.raises(FileNotFoundError):
        chomp3.nim(9, 5, 1, grundy_census=tmp_path / "none.tsv")
    with pytest.raises(chomp3.Error, match="too large to compute"):
        chomp3.nim(10**12, 50, 3)
    with pytest.raises(chomp3.Error, match="options=True"):
        chomp3.nim(9, 5, 1, options=True, grundy_census=census)


def test_a_compressed_grundy_census_reads_as_the_plain_one(tmp_path):
    import lzma

    plain = ROOT / "data/grundy-census-40/grundy-census.tsv"
    packed = tmp_path / "g.tsv.xz"
    packed.write_bytes(lzma.compress(plain.read_bytes()))
    gc = chomp3.GrundyCensus(packed)
    assert len(gc) == 861
    for q, r in [(4, 2), (40, 17), (39, 0)]:
        assert gc.value(2**63 + 5, q, r) == chomp3.GrundyCensus(plain).value(2**63 + 5, q, r)
    assert gc.value(20, 4, 2) == grundy(20, 4, 2)


def test_grundy_census_loaded_once_answers_as_the_brute_force():
    gc = chomp3.GrundyCensus(ROOT / "data/grundy-census-40/grundy-census.tsv")
    assert gc.q_max == 40 and len(gc) == 861 and gc.patterns
    assert "q <= 40" in repr(gc) and "861 lines" in repr(gc)
    # Every position with p <= 45, q <= 6 against the brute force: from the
    # pattern past a line's start, by the sweep before it.
    for q in range(7):
        for r in range(q + 1):
            for p in range(max(q, 1), 46):
                assert gc.value(p, q, r) == grundy(p, q, r), (p, q, r)
    # Far beyond any sweep, exact.
    p = 2**63 + 20
    value, source = gc.value(p, 4, 2, explain=True)
    assert value - p == grundy(20, 4, 2) - 20 and "line (4,2)" in source
    # nim() takes the loaded census too.
    assert chomp3.nim(p, 4, 2, grundy_census=gc) == value
    lines = gc.lines()
    assert len(lines) == 861 and lines.dtype.names == ("q", "r", "start", "period")
    (row,) = lines[(lines["q"] == 4) & (lines["r"] == 2)]
    assert (row["start"], row["period"]) == (17, 2)
    # A census of periods and starts: p reduced by the period, then swept.
    periods = chomp3.GrundyCensus(ROOT / "data/grundy-periods-300/grundy-periods-census.tsv")
    assert periods.q_max == 300 and not periods.patterns and len(periods) == 45451
    assert periods.value(10**15 + 20, 4, 2) == gc.value(10**15 + 20, 4, 2)
    with pytest.raises(FileNotFoundError):
        chomp3.GrundyCensus(ROOT / "no-such-census.tsv")
    with pytest.raises(chomp3.Error):
        chomp3.GrundyCensus(ROOT / "tests/data/f_table_30.txt")


def test_grundy_line_is_one_sweep_of_the_brute_force():
    line = chomp3.grundy_line(5, 3, 50, progress=False)
    assert isinstance(line, np.ndarray) and len(line) == 50 - 5
    assert list(line) == [grundy(p, 5, 3) for p in range(5, 50)]
    assert list(chomp3.grundy_line(0, 0, 12, progress=False)) == [grundy(p, 0, 0) for p in range(1, 12)]
    assert len(chomp3.grundy_line(9, 2, 5, progress=False)) == 0
    with pytest.raises(ValueError, match="r <= q"):
        chomp3.grundy_line(3, 4, 10)


def test_grundy_table_made_and_read_from_python(tmp_path):
    path = tmp_path / "g.g3t"
    t = chomp3.grundy_table(24, path, progress=False)
    assert t.n == 24 and "N = 24" in repr(t)
    for p, q, r in [(1, 0, 0), (7, 4, 2), (24, 24, 24), (24, 10, 0), (19, 13, 13)]:
        assert t[p, q, r] == grundy(p, q, r)
    assert list(t.line(6, 1)) == [grundy(p, 6, 1) for p in range(6, 25)]
    slab = t.slab(9)
    assert slab.shape == (10, 10)
    assert all(slab[q, r] == grundy(9, q, r) for q in range(10) for r in range(q + 1))
    # Extended by a second call, which goes on from the saved sweep.
    t = chomp3.grundy_table(30, path, progress=False)
    assert t.n == 30 and t[30, 30, 30] == grundy(30, 30, 30)
    t.verify()
    with pytest.raises(chomp3.Error):
        t[31, 0, 0]
    with pytest.raises(ValueError, match="not a position"):
        t[3, 5, 1]
    with pytest.raises(ValueError, match="not a position"):
        t.line(6, 2, start=3)
    assert pickle_roundtrip(t)[24, 24, 24] == t[24, 24, 24]



def data_lines(path):
    """The lines of a b-file or census that are not comments (the header
    names the command that wrote it)."""
    return [l for l in pathlib.Path(path).read_text().splitlines() if not l.startswith("#")]


def test_grundy_periods_from_python_equals_the_command(tmp_path):
    done = chomp3.grundy_periods(12, 576, tmp_path / "py", out=tmp_path / "py.tsv", progress=False)
    assert done["lines"] == 91 and done["swept"] > 0
    subprocess.run(
        [chomp3_binary(), "grundy-periods", "--quiet", "--lines", "12", "--lag", "576",
         "--bfiles", str(tmp_path / "cli"), "--out", str(tmp_path / "cli.tsv")],
        check=True,
    )
    for name in ("grundy-periods.txt", "grundy-starts.txt"):
        assert data_lines(tmp_path / "py" / name) == data_lines(tmp_path / "cli" / name)
        assert len(data_lines(tmp_path / "py" / name)) == 91
    assert data_lines(tmp_path / "py.tsv") == data_lines(tmp_path / "cli.tsv")
    # And by the game's definition where p <= 70 reaches.
    lines = chomp3.GrundyCensus(tmp_path / "py.tsv").lines()
    assert len(lines) == 91
    seen = 0
    for q, r, start, period in lines.tolist():
        if start + 2 * period > 70:
            continue
        seen += 1
        x = lambda p: grundy(p, q, r) - p
        assert all(x(p) == x(p + period) for p in range(start, 71 - period)), (q, r)
        if start - 1 >= max(q, 1):
            assert x(start - 1) != x(start - 1 + period), (q, r)
    assert seen > 20
    # Refused before any work, in keyword arguments' words.
    with pytest.raises(chomp3.Error, match="pass replace=True"):
        chomp3.grundy_periods(6, 576, tmp_path / "py", progress=False)
    with pytest.raises(ValueError, match="below 2Q"):
        chomp3.grundy_periods(12, 20, tmp_path / "low", progress=False)
    with pytest.raises(chomp3.Error, match="bfiles and out"):
        chomp3.grundy_periods(12, 576, tmp_path / "b", out=tmp_path / "b" / "grundy-periods.txt",
                              progress=False)
    # Not finished by max_p: it says so and keeps the run; partial=True
    # writes the prefix done, from the checkpoint without sweeping.
    ck = tmp_path / "ck"
    with pytest.raises(chomp3.Error, match=r"lines not done by p = .*max_p too small\); no result written; the run is kept in .*ck$"):
        chomp3.grundy_periods(12, 576, tmp_path / "part", checkpoint=ck, max_p=2000, progress=False)
    assert ck.exists() and not (tmp_path / "part").exists()
    with pytest.raises(chomp3.Error, match="hold the first"):
        chomp3.grundy_periods(12, 576, tmp_path / "part", checkpoint=ck, max_p=0, partial=True,
                              progress=False)
    part = data_lines(tmp_path / "part" / "grundy-periods.txt")
    assert 0 < len(part) < 91 and part == data_lines(tmp_path / "cli" / "grundy-periods.txt")[: len(part)]
    with pytest.raises(chomp3.Error, match="lines=12, lag=576, not of this call"):
        chomp3.grundy_periods(11, 576, tmp_path / "other", checkpoint=ck, progress=False)
    # Continued from the checkpoint to the command's b-files; it then goes.
    chomp3.grundy_periods(12, 576, tmp_path / "part", checkpoint=ck, progress=False)
    assert not ck.exists()
    for name in ("grundy-periods.txt", "grundy-starts.txt"):
        assert data_lines(tmp_path / "part" / name) == data_lines(tmp_path / "cli" / name)


def test_grundy_periods_interrupted_keeps_its_run_and_continues(tmp_path):
    ck, out = tmp_path / "ck", tmp_path / "b"
    interrupted(1.0, lambda: chomp3.grundy_periods(60, 18432, out, checkpoint=ck, progress=False))
    assert ck.exists() and not out.exists()
    chomp3.grundy_periods(60, 18432, out, checkpoint=ck, progress=False)
    assert not ck.exists()
    # The committed b-files of q <= 300 begin with these lines.
    for name in ("grundy-periods.txt", "grundy-starts.txt"):
        mine = data_lines(out / name)
        assert len(mine) == 61 * 62 // 2
        assert mine == data_lines(ROOT / "data/grundy-periods-300" / name)[: len(mine)]


def test_grundy_census_from_python_equals_the_command(tmp_path):
    done = chomp3.grundy_census(12, tmp_path / "py.tsv", bfiles=tmp_path / "py", rectangles=30,
                                progress=False)
    assert done["lines"] == 91
    subprocess.run(
        [chomp3_binary(), "grundy-census", "--quiet", "--lines", "12", "--out", str(tmp_path / "cli.tsv"),
         "--bfiles", str(tmp_path / "cli"), "--rectangles", "30"],
        check=True,
    )
    for name in ("grundy-periods.txt", "grundy-starts.txt", "grundy-rectangles.txt"):
        assert data_lines(tmp_path / "py" / name) == data_lines(tmp_path / "cli" / name)
    assert data_lines(tmp_path / "py.tsv") == data_lines(tmp_path / "cli.tsv")
    assert data_lines(tmp_path / "py" / "grundy-rectangles.txt") == [
        f"{n} {grundy(n, n, n)}" for n in range(1, 31)
    ]
    gc = chomp3.GrundyCensus(tmp_path / "py.tsv")
    assert gc.patterns and len(gc) == 91
    assert gc.value(50, 7, 3) == grundy(50, 7, 3)
    with pytest.raises(chomp3.Error, match="pass replace=True"):
        chomp3.grundy_census(6, tmp_path / "py.tsv", progress=False)
    with pytest.raises(ValueError, match="rectangles= needs bfiles="):
        chomp3.grundy_census(6, tmp_path / "r.tsv", rectangles=10, progress=False)
    with pytest.raises(chomp3.Error, match="raise max_p"):
        chomp3.grundy_census(12, tmp_path / "short.tsv", max_p=100, progress=False)
    # It keeps no checkpoint: stopped, it writes nothing.
    interrupted(0.3, lambda: chomp3.grundy_census(80, tmp_path / "big.tsv", progress=False))
    assert not (tmp_path / "big.tsv").exists()

def test_bad_arguments_get_pythons_errors_naming_them(tmp_path):
    census = ROOT / "data/grundy-census-40/grundy-census.tsv"
    for call, name in [
        (lambda: chomp3.f(-1, 3), "q"),
        (lambda: chomp3.nim(-1, 0, 0), "p"),
        (lambda: chomp3.position(5, -2, 0), "q"),
        (lambda: chomp3.census(-1, tmp_path / "c.tsv"), "rows"),
        (lambda: chomp3.compute(-5, tmp_path / "t.c3t"), "n"),
        (lambda: chomp3.grundy_line(4, -1, 10), "r"),
        (lambda: chomp3.GrundyCensus(census).value(9, 4, -2), "r"),
    ]:
        with pytest.raises(ValueError, match=f"^{name} must be >= 0"):
            call()
    with pytest.raises(TypeError, match="q must be an int"):
        chomp3.f(2.5, 1)
    with pytest.raises(TypeError, match="path must be a path"):
        chomp3.Census(None)
    with pytest.raises(TypeError, match="path must be a path"):
        chomp3.GrundyCensus(None)
    with pytest.raises(TypeError, match="iterable of graphs"):
        chomp3.nim_values("Bw")
    with pytest.raises(TypeError, match="int vertices"):
        chomp3.nim_value([(0.5, 1)])
    with pytest.raises(TypeError, match="undirected"):
        chomp3.nim_value(nx.DiGraph([(0, 1), (1, 0)]))
    # Converted explicitly, a directed graph is what the user made of it.
    assert chomp3.nim_value(nx.DiGraph([(0, 1)]).to_undirected()) == chomp3.nim_value([(0, 1)])
    # A value past 2**64 comes back as the exact int: on line (40,0),
    # G - p alternates 19, -21 (doc/grundy.md), so one of these passes 2**64.
    values = [chomp3.nim(2**64 - k, 40, 0, grundy_census=census) for k in (1, 2)]
    assert sorted(v - (2**64 - k) for v, k in zip(values, (1, 2))) == [-21, 19]
    assert max(values) > 2**64
    # p of any size; where no file covers the line, too large for the sweep.
    with pytest.raises(chomp3.Error, match="too large to compute"):
        chomp3.GrundyCensus(census).value(2**64, 1000, 0)
    with pytest.raises(ValueError, match="options=True .* below 2\\*\\*32"):
        chomp3.nim(2**40, 3, 1, options=True)
    # A long sweep reports its progress to the callback (p reached, target).
    seen = []
    assert chomp3._chomp3.grundy_lookup(20000, 6, 2, progress=lambda d, t: seen.append((d, t)))[0] > 0
    assert seen and seen[-1][1] == 20000 and all(d <= t for d, t in seen)


def test_a_table_by_rows_holds_the_same_values(table, tmp_path):
    f = reference()
    rows = chomp3.transpose(table, tmp_path / "rows.c3t", progress=False)
    assert rows.by_rows and not chomp3.Table(table).by_rows and "by rows" in repr(rows)
    whole = np.asarray(chomp3.Table(table))
    for mapped in (False, True):
        t = chomp3.Table(tmp_path / "rows.c3t", mapped=mapped)
        assert t.n == 60 and (np.asarray(t) == whole).all()
        for r in range(31):
            assert list(t.row(r, 0, 31)) == f[r] and list(t[4:19, r]) == f[r][4:19]
        assert list(t.row(50, 0, 31)) == [f[q][q] for q in range(31)]
    # The same call again checks the whole file and keeps it.
    before = (tmp_path / "rows.c3t").read_bytes()
    assert chomp3.transpose(table, tmp_path / "rows.c3t", progress=False).n == 60
    assert (tmp_path / "rows.c3t").read_bytes() == before
    with pytest.raises(chomp3.Error, match="exists and is an f"):
        chomp3.transpose(table, table, progress=False)
    with pytest.raises(chomp3.Error, match="stored by rows"):
        chomp3.transpose(tmp_path / "rows.c3t", tmp_path / "again.c3t", progress=False)


def test_every_slice_of_a_table_is_numpys(table):
    # The same slices of the whole array, as numpy takes them: steps of
    # either sign, bounds past either end, empty ranges.
    for mapped in (False, True):
        t = chomp3.Table(table, mapped=mapped)
        whole = np.asarray(t)
        bounds = [None, 0, 1, 5, 17, 50, 60, 61, 99, -1, -7, -61, -80]
        for start in bounds:
            for stop in bounds:
                for step in (None, 1, 2, 3, -1, -2, -5):
                    key = slice(start, stop, step)
                    for r in (0, 7, 60):
                        got, want = t[key, r], whole[key, r]
                        assert got.dtype == np.uint32, (key, r)
                        assert list(got) == list(want), (key, r, mapped)
                    assert list(t[9, key]) == list(whole[9, key]), (key, mapped)


def test_a_two_dimensional_slice_is_numpys_and_bounded(table, tmp_path):
    t = chomp3.Table(table)
    whole = np.asarray(t)
    by_rows = chomp3.transpose(table, tmp_path / "rows.c3t", progress=False)
    for u in (t, by_rows):
        for q in (slice(None), slice(3, 40, 2), slice(50, 4, -3), slice(70, 80)):
            for r in (slice(None), slice(0, 5), slice(-7, None, 2), slice(30, 2, -1)):
                got = u[q, r]
                assert got.dtype == np.uint32 and got.shape == whole[q, r].shape, (q, r)
                assert (got == whole[q, r]).all(), (q, r, u.by_rows)
    # Past the values np.asarray makes, refused before any is read.
    t.ARRAY_LIMIT = 9
    assert t[0:10, 0:10].shape == (10, 10)
    with pytest.raises(chomp3.Error, match=r"of 11 x 10 values .* a smaller part"):
        t[0:11, 0:10]


def test_tables_and_censuses_behave_like_data(table, tmp_path):
    import pickle

    t = chomp3.Table(table)
    f = reference()
    assert t.shape == (61, 61) and len(t) == 61 and "N = 60" in repr(t)
    assert list(t[3:20, 5]) == [f[5][q] for q in range(3, 20)]
    assert list(t[30, :31]) == [f[r][30] for r in range(31)]
    # Past q, f(q, r) = f(q, q): the whole column of the square.
    assert t[10, :][40] == t[10, 10] == f[10][10]
    block = t[2:9, 0:5]
    assert block.shape == (7, 5) and all(block[q - 2, r] == f[r][q] for q in range(2, 9) for r in range(5))
    whole = np.asarray(t)
    assert whole.shape == (61, 61) and whole[25, 12] == f[12][25]
    again = pickle.loads(pickle.dumps(t))
    assert again.path == t.path and again[7, 3] == t[7, 3]
    with pytest.raises(TypeError, match=r"t\[q, r\]"):
        t[5]
    with pytest.raises(ValueError, match="^r must be >= 0"):
        t[-1:5, -1]

    census = chomp3.Census(CENSUS)
    assert census[120]["period"] == 2 and census[120] == census.fate(120)
    fates = iter(census)
    assert [next(fates) for _ in range(3)] == [census.fate(r) for r in range(3)]
    with pytest.raises(IndexError):
        census[len(census)]
    assert pickle.loads(pickle.dumps(census)).fate(120) == census.fate(120)
    gc = pickle.loads(pickle.dumps(chomp3.GrundyCensus(ROOT / "data/grundy-census-40/grundy-census.tsv")))
    assert gc.value(20, 4, 2) == grundy(20, 4, 2)
    pd = pytest.importorskip("pandas")
    frame = census.rows(as_frame=True)
    assert frame.index.name == "r" and isinstance(frame["cls"].dtype, pd.CategoricalDtype)
    assert frame.loc[120, "period"] == 2 and frame["period"].isna().sum() == (frame["cls"] != "periodic").sum()
    lines = gc.frame()
    assert list(lines.columns) == ["q", "r", "start", "period"] and len(lines) == 861

    got = chomp3.position(3, 2, 0, table=table)
    assert got["outcome"] == ("P" if grundy(3, 2, 0) == 0 else "N")


def test_position_falls_back_to_the_census_as_get_does(table, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no table or census at the default paths
    census = CENSUS
    # Within the table (N = 60) the answers are the table's, census or not.
    for p, q, r in [(40, 31, 2), (57, 50, 1), (33, 33, 0), (61, 45, 2)]:
        got = chomp3.position(p, q, r, table=table, census=census)
        assert got == chomp3.position(p, q, r, table=table)
        assert got["lost"] == (grundy(p, q, r) == 0)
    # Past the table: row 2 is proved periodic from its start, so the census
    # gives every f(y, 2), y > 60: [f(q,2), q, 2] is lost, one move leads to it.
    q = 10**6
    f = chomp3.f(q, 2, table=table, census=census)
    assert chomp3.position(f, q, 2, table=table, census=census)["outcome"] == "P"
    moves = chomp3.position(f + 1, q, 2, table=table, census=census)["winning_moves"]
    assert ("bottom", f + 1, (f, q, 2)) in moves
    # A value neither gives (row 150 before its start, past the table) is the
    # census's error, not a guess. A census alone answers where its rows'
    # proofs start and, on the diagonal, from the columns it computed: as the
    # table does.
    with pytest.raises(chomp3.Error, match="only from q ="):
        chomp3.position(300, 200, 150, table=table, census=census)
    assert chomp3.position(40, 31, 2, census=census) == chomp3.position(40, 31, 2, table=table)


def test_f_follows_the_source_rule_of_get(table, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no census at the default path
    assert chomp3.f(10, 5, table=table) == reference()[5][10]
    value, source = chomp3.f(10, 5, table=table, explain=True)
    assert "from the table" in source
    census = CENSUS
    v, source = chomp3.f(10**12, 5, table=table, census=census, explain=True)
    assert v == chomp3.Census(census).f(10**12, 5) and "census" in source
    with pytest.raises(FileNotFoundError, match="no such census"):
        chomp3.f(100, 5, table=table, census=tmp_path / "none.c3d")  # named but missing
    with pytest.raises(chomp3.Error, match="beyond the table"):
        chomp3.f(100, 5, table=table)
    with pytest.raises(FileNotFoundError):
        chomp3.f(5, 5, table=tmp_path / "missing.c3t")


def test_the_shell_and_python_give_the_same_f_and_source(tmp_path, monkeypatch):
    """The same questions of `chomp3 get --explain` and `chomp3.f(explain=True)`,
    on the committed census with no table: the same value and source line, or
    the same refusal."""
    monkeypatch.chdir(tmp_path)  # no table at the default path
    for q, r in [(700000, 700000), (700000, 900000), (10**12, 5), (3, 7), (700000, 600000)]:
        shell = subprocess.run([chomp3_binary(), "get", str(q), str(r), "--census", str(CENSUS), "--explain"],
                               capture_output=True, text=True)
        if shell.returncode == 0:
            value, source = shell.stdout.splitlines()
            assert chomp3.f(q, r, census=CENSUS, explain=True) == (int(value), source)
        else:
            with pytest.raises(chomp3.Error) as e:
                chomp3.f(q, r, census=CENSUS)
            assert shell.stderr.strip() == f"chomp3: error: {e.value}"
    # The diagonal of the census's columns: A029900's term 700000.
    assert chomp3.Census(CENSUS).f(700000, 700000) == 1194974
    # A file name with a newline: the same one source line on both sides.
    odd = tmp_path / "t\nx.c3t"
    chomp3.compute(20, odd, progress=False)
    shell = subprocess.run([chomp3_binary(), "get", "5", "3", "--table", str(odd), "--explain"],
                           capture_output=True, text=True, check=True)
    value, source = shell.stdout.splitlines()
    assert chomp3.f(5, 3, table=odd, explain=True) == (int(value), source)
    assert "t\\nx.c3t" in source


def test_the_shell_and_python_give_the_same_nim_and_source(tmp_path, monkeypatch):
    """The same questions of `chomp3 nim` and `chomp3.nim(explain=True)` with
    the committed rectangles and periods census: the same value and source,
    or the same refusal (each front end then names its own way to allow
    the sweep). Values past 2**64 are exact."""
    monkeypatch.chdir(tmp_path)  # the files only as named
    census = ROOT / "data/grundy-periods-300/grundy-periods-census.tsv"
    rect = ROOT / "data/grundy-table-5000/grundy-rectangles.txt"
    asked = [(5000, 5000, 5000), (2**64 + 5, 30, 20), (10**40 + 7, 30, 20), (10**15, 300, 300),
             (3000, 20, 10), (400000, 350, 2)]
    for p, q, r in asked:
        shell = subprocess.run([chomp3_binary(), "nim", str(p), str(q), str(r), "--grundy-census",
                                str(census), "--rectangles", str(rect)], capture_output=True, text=True)
        if shell.returncode == 0:
            value, source = shell.stdout.splitlines()
            # A file passed over: a note on the shell's standard error, a
            # warning in Python.
            with warnings.catch_warnings(record=True) as passed:
                warnings.simplefilter("always")
                got = chomp3.nim(p, q, r, grundy_census=census, rectangles=rect, explain=True)
            assert got == (int(value), source.removeprefix("source: "))
            notes = [line.removeprefix("chomp3: ").removesuffix("; looking further")
                     for line in shell.stderr.splitlines()]
            assert [str(w.message) for w in passed] == notes
        else:
            with pytest.raises(chomp3.Error) as e:
                chomp3.nim(p, q, r, grundy_census=census, rectangles=rect)
            said = shell.stderr.strip().splitlines()[-1].removeprefix("chomp3: error: ")
            assert said.split("; give --max-seconds")[0] == str(e.value).split("; pass max_seconds=")[0]
            assert "nothing was computed" in said
    # The periodicity the census proved, against the sweep at a small p of
    # the same residue past the line's start: G(p) - p is the same.
    g = chomp3.GrundyCensus(census)
    line = [x for x in g.lines() if (x["q"], x["r"]) == (30, 20)][0]
    start, period = int(line["start"]), int(line["period"])
    for p in (2**64 + 5, 10**40 + 7):
        small = start + (p - start) % period + period
        assert g.value(p, 30, 20) - p == chomp3.nim(small, 30, 20) - small
    # The rectangles' b-file against the sweep.
    for n in (1, 2, 17, 40):
        assert chomp3.nim(n, n, n, rectangles=rect, explain=True)[1].startswith("the b-file of the rectangles")
        assert chomp3.nim(n, n, n, rectangles=rect) == chomp3.nim(n, n, n)


def test_census_rows_and_fates_agree_with_the_committed_census_tsv():
    c = chomp3.Census(CENSUS)
    rows = c.rows()
    assert len(rows) == len(c) == 1000001
    lines = lzma.open(ROOT / "data/census-1000000/census.tsv.xz", "rt").read().splitlines()
    header = next(l for l in lines if l.startswith("r\t")).split("\t")
    data = [dict(zip(header, l.split("\t"))) for l in lines if l[:1].isdigit()]
    assert len(data) == len(rows)
    for d in data[:: 997] + data[-50:]:
        r = int(d["r"])
        row = rows[r]
        assert row["r"] == r
        fate = c.fate(r)
        assert row["cls"] == d["class"] == (fate["class"] if fate else "open")
        assert str(row["start"]) in d["start"]
    assert list(rows[rows["period"] == 27]["r"][:3]) == [112742, 165560, 176144]


def test_graph_values_match_a_brute_force_on_random_graphs():
    @functools.lru_cache(maxsize=None)
    def value(edges, vertices):
        options = set()
        for v in vertices:
            rest = frozenset(e for e in edges if v not in e)
            options.add(value(rest, vertices - {v}))
        for e in edges:
            options.add(value(edges - {e}, vertices))
        return next(x for x in range(len(options) + 1) if x not in options)

    rng = random.Random(5)
    graphs = []
    for _ in range(60):
        n = rng.randint(0, 7)
        g = nx.gnp_random_graph(n, rng.random(), seed=rng.randint(0, 10**6))
        graphs.append(g)
    memo = chomp3.Memo()
    values = chomp3.nim_values(graphs, memo=memo)
    for g, v in zip(graphs, values):
        edges = frozenset(frozenset(e) for e in g.edges())
        want = value(edges, frozenset(g.nodes()))
        assert v == want == chomp3.nim_value(g)
        for move, after in chomp3.moves(g):
            if move[0] == "vertex":
                h = g.copy()
                h.remove_node(move[1])
            else:
                h = g.copy()
                h.remove_edge(move[1], move[2])
            assert after == chomp3.nim_value(h)


def test_moves_of_a_multigraph_are_every_move_of_it():
    # Graph Chomp from its rules on a multiset of edges: a move deletes a
    # vertex with every edge at it, or one copy of an edge or loop.
    from functools import lru_cache

    @lru_cache(maxsize=None)
    def value(edges, vertices):
        options = set()
        for v in vertices:
            rest = tuple(e for e in edges if v not in e)
            options.add(value(rest, vertices - {v}))
        for e in set(edges):
            rest = list(edges)
            rest.remove(e)
            options.add(value(tuple(sorted(rest)), vertices))
        return next(x for x in range(len(options) + 1) if x not in options)

    rng = random.Random(28)
    for _ in range(40):
        n = rng.randint(1, 5)
        edges = [tuple(sorted((rng.randrange(n), rng.randrange(n)))) for _ in range(rng.randint(1, 7))]
        # At least one edge twice.
        edges.append(edges[0])
        g = nx.MultiGraph()
        g.add_nodes_from(range(n))
        g.add_edges_from(edges)
        got = dict(chomp3.moves(g))
        vertices = frozenset(range(n))
        want = {}
        for v in vertices:
            rest = tuple(sorted(e for e in edges if v not in e))
            want[("vertex", v)] = value(rest, vertices - {v})
        for e in set(edges):
            rest = list(edges)
            rest.remove(e)
            want[("edge",) + e] = value(tuple(sorted(rest)), vertices)
        assert got == want, (n, edges)


def test_graph_inputs_graph6_edge_lists_loops_and_memo_files(tmp_path):
    assert chomp3.nim_value("Bw") == chomp3.nim_value(nx.complete_graph(3)) == 0
    assert chomp3.nim_value([(0, 1)]) == 2  # one edge, two vertices: p(G) = 2
    assert chomp3.nim_value([(0, 0)]) == chomp3.nim_value(nx.MultiGraph([(0, 0)]))
    memo = chomp3.Memo()
    chomp3.nim_values(["I~~~~~~~w"], memo=memo)  # graph6 of K10
    path = tmp_path / "m.memo"
    memo.save(path)
    again = chomp3.Memo.load(path)
    assert len(again) == len(memo) > 0


def test_errors_are_the_right_exceptions(tmp_path):
    with pytest.raises(FileNotFoundError):
        chomp3.Table(tmp_path / "nope.c3t")
    with pytest.raises(FileNotFoundError):
        chomp3.Census(tmp_path / "nope.c3d")
    with pytest.raises(FileNotFoundError):
        chomp3.Memo.load(tmp_path / "nope.memo")
    junk = tmp_path / "junk.c3t"
    junk.write_bytes(b"hello" * 2000)
    with pytest.raises(chomp3.Error, match="not a chomp3 table"):
        chomp3.Table(junk)
    assert issubclass(chomp3.Error, ValueError)
    with pytest.raises(TypeError):
        chomp3.nim_value(3.5)
    with pytest.raises(TypeError):
        chomp3.Table(42)
    with pytest.raises(chomp3.Error):
        chomp3.nim_value("not graph6 !!")
    with pytest.raises(chomp3.Error, match="at most 64"):
        chomp3.nim_value([(0, 99)])
    with pytest.raises(chomp3.Error, match="not a position"):
        chomp3.nim(1, 2, 0)


def test_a_damaged_table_is_refused(table, tmp_path):
    copy = tmp_path / "d.c3t"
    shutil.copy(table, copy)
    data = bytearray(copy.read_bytes())
    data[20] ^= 0xFF  # the capacity field, under the header's checksum
    copy.write_bytes(bytes(data))
    with pytest.raises(chomp3.Error, match="damaged"):
        chomp3.Table(copy)


def test_a_damaged_data_block_is_refused_where_it_is_read(table, tmp_path):
    copy = tmp_path / "d.c3t"
    shutil.copy(table, copy)
    data = bytearray(copy.read_bytes())
    offset = int.from_bytes(data[24:32], "little")  # FORMAT.md: the data offset
    bits = int.from_bytes(data[12:16], "little")
    cell = 40 * 41 // 2 + 20  # f(40, 20)
    data[offset + cell * bits // 8] ^= 0x5A
    copy.write_bytes(bytes(data))
    t = chomp3.Table(copy)  # the header is whole
    with pytest.raises(chomp3.Error, match="damaged table"):
        t[40, 20]
    with pytest.raises(chomp3.Error, match="damaged table"):
        t.row(20)
    with pytest.raises(chomp3.Error, match="damaged table"):
        chomp3.Table(copy, mapped=True).row(20)


def test_a_mapped_table_checks_again_what_another_program_wrote_since(table, tmp_path):
    copy = tmp_path / "m.c3t"
    shutil.copy(table, copy)
    data = copy.read_bytes()
    offset = int.from_bytes(data[24:32], "little")  # FORMAT.md: the data offset
    bits = int.from_bytes(data[12:16], "little")
    at = offset + (25 * 26 // 2 + 10) * bits // 8  # f(25, 10)
    want = reference()[10][25]
    t = chomp3.Table(copy, mapped=True)
    assert t[25, 10] == want and t.row(10)[25] == want  # its block checked
    with open(copy, "r+b") as f:  # damage, in place, while it is open
        f.seek(at)
        f.write(bytes([data[at] ^ 0x5A]))
    with pytest.raises(chomp3.Error, match="damaged table"):
        t[25, 10]
    with pytest.raises(chomp3.Error, match="damaged table"):
        t.row(10)
    with open(copy, "r+b") as f:  # put back
        f.seek(at)
        f.write(data[at : at + 1])
    assert t[25, 10] == want and t.row(10)[25] == want


def test_verify_reads_the_header_again(table, tmp_path):
    copy = tmp_path / "h.c3t"
    shutil.copy(table, copy)
    data = copy.read_bytes()
    for mapped in (False, True):
        t = chomp3.Table(copy, mapped=mapped)
        t.verify()
        with open(copy, "r+b") as f:  # the bits per value, in place
            f.seek(12)
            f.write(bytes([data[12] ^ 0x01]))
        with pytest.raises(chomp3.Error, match="changed while it was open"):
            t.verify()
        with open(copy, "r+b") as f:  # put back
            f.seek(12)
            f.write(data[12:13])
        t.verify()


def test_a_table_removed_while_compute_writes_it_is_said(table, tmp_path):
    import threading

    path = tmp_path / "gone.c3t"
    shutil.copy(table, path)

    def remove():  # once compute has written past the copy
        while path.exists() and path.stat().st_size < 2 * table.stat().st_size:
            pass
        path.unlink()

    remover = threading.Thread(target=remove)
    remover.start()
    with pytest.raises(chomp3.Error, match="another program removed or moved it"):
        chomp3.compute(6000, path, progress=False)
    remover.join()
    assert not path.exists()


def test_a_panic_becomes_an_error():
    with pytest.raises(chomp3.Error, match="internal error"):
        chomp3._chomp3._panic_for_test()


def interrupted(seconds, call):
    """Runs ``call`` with a real SIGINT after ``seconds``; it must raise
    KeyboardInterrupt."""
    # Ctrl-C's handler as in an interactive Python (a job started in the
    # background inherits SIGINT ignored); then the alarm's handler, before
    # the alarm: an alarm that came first would end the process.
    old_int = signal.signal(signal.SIGINT, signal.default_int_handler)
    old = signal.signal(signal.SIGALRM, lambda *a: os.kill(os.getpid(), signal.SIGINT))
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        signal.signal(signal.SIGINT, old_int)


def test_ctrl_c_heard_at_the_last_step_is_raised_not_dropped(tmp_path):
    # A KeyboardInterrupt raised at a job's last progress step (as a Ctrl-C
    # heard while it writes its results) ends the call with
    # KeyboardInterrupt, whatever the job had still to do: never a normal
    # return. The results are whole either way. The last step is the one an
    # uninterrupted run of the same job reported last.
    def last_step(call):
        seen = []
        call(lambda done, total: seen.append(done))
        return max(seen)

    def raising_at(last):
        def tick(done, total):
            if done >= last:
                raise KeyboardInterrupt

        return tick

    jobs = {
        "census": lambda out, progress: chomp3._chomp3.census(
            300, out / "c.tsv", None, None, 300.0, None, False, progress
        ),
        "grundy_census": lambda out, progress: chomp3._chomp3.grundy_census(
            12, out / "g.tsv", None, None, 10**7, False, progress
        ),
        "grundy_periods": lambda out, progress: chomp3._chomp3.grundy_periods(
            12, 576, out / "b", None, None, 600.0, 10**9, False, False, progress
        ),
    }
    for name, job in jobs.items():
        whole, cut = tmp_path / name / "whole", tmp_path / name / "cut"
        whole.mkdir(parents=True)
        cut.mkdir()
        last = last_step(lambda progress: job(whole, progress))
        with pytest.raises(KeyboardInterrupt):
            job(cut, raising_at(last))
        # What it wrote is what the uninterrupted run wrote.
        for f in cut.rglob("*"):
            if f.is_file() and not f.name.endswith(".c3k"):
                assert f.read_bytes() == (whole / f.relative_to(cut)).read_bytes(), (name, f)


def test_keyboard_interrupt_stops_a_long_grundy_sweep():
    # Line (150, 3) to p = 10**8: hours of sweeping; Ctrl-C ends it at once.
    started = time.monotonic()
    interrupted(0.5, lambda: chomp3.nim(10**8, 150, 3, max_seconds=10**6))
    assert time.monotonic() - started < 30
    # A sweep that never reaches a progress tick (4,096 steps) hears it too:
    # line (300, 0) to p = 4000, some 25 s of sweeping.
    for call in (
        lambda: chomp3.nim(4000, 300, 0, max_seconds=10**6),
        lambda: chomp3.grundy_line(300, 0, 4000),
    ):
        started = time.monotonic()
        interrupted(0.5, call)
        assert time.monotonic() - started < 5


def test_keyboard_interrupt_stops_reading_a_large_compressed_census(tmp_path):
    # A census header claiming 10^8 rows, then 3.3 GB of zeros in 33 xz
    # streams (its index gives that length, which such a header allows):
    # seconds of decompressing, until the checksum would refuse it. Every
    # call that reads a census hears Ctrl-C meanwhile.
    head = b"CHOMP3DS" + (2).to_bytes(4, "little") + (10**8).to_bytes(4, "little")
    head += (10**8 + 1).to_bytes(8, "little") + (0).to_bytes(8, "little")
    zeros = lzma.compress(bytes(100 << 20), preset=0)
    path = tmp_path / "big.c3d.xz"
    with open(path, "wb") as f:
        f.write(lzma.compress(head))
        for _ in range(33):
            f.write(zeros)
    for call in (
        lambda: chomp3.Census(path),
        lambda: chomp3.f(10**9, 5, census=path),
        lambda: chomp3.position(10**9, 10**9, 5, census=path),
    ):
        started = time.monotonic()
        interrupted(0.2, call)
        assert time.monotonic() - started < 2


def test_a_call_that_does_little_returns_at_once():
    # Every long call waits for its work on another thread, hearing Ctrl-C
    # every 20 ms; a call of a fraction of a millisecond must not wait that
    # long. 200 calls that each waited one tick would take 4 s.
    census = chomp3.GrundyCensus(ROOT / "data/grundy-census-40/grundy-census.tsv")
    want = {p: grundy(p, 3, 2) for p in range(30, 130)}
    started = time.monotonic()
    for p, v in want.items():
        assert census.value(p, 3, 2) == v
        assert chomp3.nim(p, 3, 2) == v
    assert time.monotonic() - started < 2


OUT_OF_MEMORY = """
import random, re, resource, sys
import chomp3
vm = int(re.search(r"VmSize:\\s+(\\d+)", open("/proc/self/status").read()).group(1)) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + 150 * 2**20,) * 2)
random.seed(1)
edges = set()
while len(edges) < 24:
    u, v = random.sample(range(14), 2)
    edges.add((min(u, v), max(u, v)))
memo = chomp3.Memo()
try:
    chomp3.nim_value(sorted(edges), memo=memo)
    print("solved")
except MemoryError:
    print("MemoryError", len(memo) > 0, chomp3.nim_value("Bw", memo=memo))
"""


def test_a_solve_that_runs_out_of_memory_raises_memory_error():
    # A graph whose memo outgrows the 150 MiB left under an address-space
    # limit: MemoryError, the interpreter and the memo usable after it.
    done = subprocess.run(
        [sys.executable, "-c", OUT_OF_MEMORY], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "MemoryError True 0", done.stdout + done.stderr[-2000:]


def test_keyboard_interrupt_stops_every_move_and_graph_solves():
    # Minutes to hours of work each, without a step to report between.
    started = time.monotonic()
    interrupted(0.5, lambda: chomp3.nim(10**7, 60, 20, options=True, max_seconds=10**6))
    random.seed(1)
    edges = [(random.randrange(24), random.randrange(24)) for _ in range(40)]
    edges = [(u, v) for u, v in edges if u != v]
    memo = chomp3.Memo()
    interrupted(0.5, lambda: chomp3.nim_value(edges, memo=memo))
    interrupted(0.5, lambda: chomp3.moves(edges, memo=memo))
    assert time.monotonic() - started < 30
    # The memo kept only positions solved to the end: the same values after.
    assert chomp3.nim_value("Bw", memo=memo) == 0


def test_keyboard_interrupt_stops_the_moves_of_a_long_position(tmp_path):
    # The moves of [10**7 + 5, 10**7, 3] read ten million values of f (many
    # seconds); Ctrl-C ends the listing.
    chomp3.compute(10, tmp_path / "t.c3t", progress=False)
    chomp3.census(4, tmp_path / "c.tsv", progress=False)
    ask = lambda: chomp3.position(  # noqa: E731
        10**7 + 5, 10**7, 3, table=tmp_path / "t.c3t", census=tmp_path / "c.c3d"
    )
    started = time.monotonic()
    interrupted(0.5, ask)
    assert time.monotonic() - started < 5


def test_keyboard_interrupt_stops_os85_between_its_ticks(tmp_path):
    # A few large wheels: seconds of solving before the first progress tick.
    started = time.monotonic()
    interrupted(0.5, lambda: chomp3.os85(["wheel:3..15"], memo=tmp_path / "m"))
    assert time.monotonic() - started < 5
    assert len(chomp3.Memo.load(tmp_path / "m")) > 0, "the memo is saved"


def test_every_move_of_a_position_is_refused_past_its_budget():
    with pytest.raises(chomp3.Error, match="max_seconds"):
        chomp3.nim(10**7, 60, 20, options=True, max_seconds=1)


def test_an_edge_list_naming_a_far_vertex_is_refused_at_once():
    started = time.monotonic()
    for far in (10**9, 2**40):
        with pytest.raises(chomp3.Error, match="at most 64"):
            chomp3.nim_value([(0, far)])
    assert time.monotonic() - started < 5


def test_a_memo_load_of_a_file_that_is_no_memo_never_advises_deleting_it(table, tmp_path):
    packed = tmp_path / "t.c3t.xz"
    packed.write_bytes(lzma.compress(pathlib.Path(table).read_bytes()))
    junk = tmp_path / "notes.txt"
    junk.write_text("my notes\n")
    for path, said in ((packed, "compressed with xz"), (junk, "not a chomp3 graph memo")):
        with pytest.raises(chomp3.Error) as refused:
            chomp3.Memo.load(path)
        assert said in str(refused.value) and "delete" not in str(refused.value)
    # A table is read as it is, never decompressed: a compressed one is named so.
    with pytest.raises(chomp3.Error, match="is compressed with xz .decompress it first."):
        chomp3.Table(packed)


def test_a_memo_is_saved_over_no_file_of_another_kind_or_fuller_memo(table, tmp_path):
    import shutil

    victim = tmp_path / "t.c3t"
    shutil.copy(table, victim)
    before = victim.read_bytes()
    with pytest.raises(chomp3.Error, match="not a graph memo"):
        chomp3.Memo().save(victim)
    assert victim.read_bytes() == before
    full = chomp3.Memo()
    # The Petersen graph: positions of more than 7 vertices go to the memo.
    petersen = [(i, (i + 1) % 5) for i in range(5)] + [(i, i + 5) for i in range(5)]
    petersen += [(5 + i, 5 + (i + 2) % 5) for i in range(5)]
    chomp3.nim_value(petersen, memo=full)
    path = tmp_path / "m.memo"
    full.save(path)
    kept = path.read_bytes()
    with pytest.raises(chomp3.Error, match="replace=True"):
        chomp3.Memo().save(path)
    assert path.read_bytes() == kept
    full.save(path)  # the same memo again: nothing lost
    chomp3.Memo().save(path, replace=True)
    assert len(chomp3.Memo.load(path)) == 0


def test_a_memo_is_not_saved_where_a_run_is_writing_its_memo(tmp_path):
    # os85 with a memo file saves its memo at its end, over whatever is
    # there: a memo saved there meanwhile (from a signal handler, as from
    # another thread or process) is refused, not lost without a word.
    other = chomp3.Memo()
    petersen = [(i, (i + 1) % 5) for i in range(5)] + [(i, i + 5) for i in range(5)]
    petersen += [(5 + i, 5 + (i + 2) % 5) for i in range(5)]
    chomp3.nim_value(petersen, memo=other)
    path = tmp_path / "m.memo"
    nested = {}

    def handler(*_):
        try:
            other.save(path)
            nested["saved"] = True
        except chomp3.Error as e:
            nested["error"] = str(e)

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    try:
        chomp3.os85(["wheel:3..13"], memo=path)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert "saved" not in nested, "saved, then replaced by the run's memo"
    assert "being written by another call in this process" in nested.get("error", ""), nested


def test_keyboard_interrupt_commits_the_columns_done(tmp_path):
    path = tmp_path / "big.c3t"
    interrupted(0.5, lambda: chomp3.compute(40000, path, progress=False))
    t = chomp3.Table(path)
    assert t.n is None or t.n < 40000
    t.verify()


def test_census_from_python_equals_the_command_and_resumes(tmp_path):
    out = tmp_path / "c.tsv"
    done = chomp3.census(3000, out, progress=False)
    assert done["open"] == 0 and done["constant"] + done["periodic"] == 3001
    cli = tmp_path / "cli.tsv"
    subprocess.run([chomp3_binary(), "census", "--quiet", "--rows", "3000", "--out", str(cli)], check=True)
    body = lambda p: [l for l in p.read_text().splitlines() if not l.startswith("# from")]
    assert body(out) == body(cli)
    assert (tmp_path / "c.c3d").read_bytes() == (tmp_path / "cli.c3d").read_bytes()
    assert not (tmp_path / "c.c3k").exists()
    with pytest.raises(chomp3.Error, match="more than"):
        chomp3.census(2000, out, progress=False)
    # Interrupted, then continued to the same bytes.
    again = tmp_path / "again.tsv"
    interrupted(0.3, lambda: chomp3.census(20000, again, progress=False))
    assert (tmp_path / "again.c3k").exists() and not again.exists()
    chomp3.census(20000, again, progress=False)
    whole = tmp_path / "whole.tsv"
    chomp3.census(20000, whole, progress=False)
    assert (tmp_path / "again.c3d").read_bytes() == (tmp_path / "whole.c3d").read_bytes()


def test_census_checks_as_the_command_does_and_waits_for_no_other_writer(tmp_path):
    import fcntl

    out = tmp_path / "c.tsv"
    # Another process writing these files holds the lock beside the census
    # table: this call refuses at once and writes nothing.
    lock = open(tmp_path / ".c.tsv.lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    with pytest.raises(chomp3.Error, match="being written by another process"):
        chomp3.census(100, out, progress=False)
    fcntl.flock(lock, fcntl.LOCK_UN)
    lock.close()
    assert not out.exists()
    # Two of its files that are one file are refused by their keyword names,
    # as the command refuses them by its options.
    with pytest.raises(chomp3.Error, match="out and checkpoint"):
        chomp3.census(100, out, checkpoint=out, progress=False)
    # A file of another kind in the way is kept.
    other = tmp_path / "notes.tsv"
    other.write_text("my notes\n")
    with pytest.raises(chomp3.Error):
        chomp3.census(100, other, progress=False)
    assert other.read_text() == "my notes\n"
    chomp3.census(100, out, progress=False)
    assert not (tmp_path / ".c.tsv.lock").exists()


def test_bad_paths_are_named_for_what_they_are(tmp_path):
    """Every Python reader of a named file: a directory, a symbolic link to
    nothing, an empty file and a cut-off one raise an exception (not a panic)
    whose message says which; a FIFO is refused without waiting for a writer."""
    d = tmp_path / "dir"
    d.mkdir()
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "gone")
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    table = tmp_path / "t.c3t"
    chomp3.compute(20, table, progress=False)
    cut_table = tmp_path / "cut.c3t"
    cut_table.write_bytes(table.read_bytes()[:2000])
    chomp3.census(12, tmp_path / "c.tsv", progress=False)
    cut_census = tmp_path / "cut.c3d"
    cut_census.write_bytes((tmp_path / "c.c3d").read_bytes()[:100])
    grundy_census = (ROOT / "data/grundy-census-40/grundy-census.tsv").read_bytes()
    cut_grundy = tmp_path / "cut.tsv"
    cut_grundy.write_bytes(grundy_census[: len(grundy_census) // 2])
    link = "is a symbolic link to .*gone, which does not exist"
    readers = [
        (chomp3.Table, "is a directory, not a table file", cut_table, "truncated table: the file has 2000 bytes",
         "the file is empty, not a chomp3 table"),
        (chomp3.Census, "is a directory, not a census descriptor file", cut_census,
         "truncated census descriptor file: 100 bytes", "the file is empty, not a census descriptor file"),
        (chomp3.GrundyCensus, "is a directory, not a Grundy census", cut_grundy, "no end line .* cut off",
         "the file is empty, where a chomp3 result"),
        (lambda p: chomp3.nim(30, 5, 3, grundy_census=p), "is a directory, not a Grundy census", cut_grundy,
         "no end line .* cut off", "the file is empty, where a chomp3 result"),
    ]
    for read, directory, cut, truncated, is_empty in readers:
        with pytest.raises(chomp3.Error, match=directory):
            read(d)
        # A link to nothing is missing; Python's own open says FileNotFoundError.
        with pytest.raises((FileNotFoundError, chomp3.Error), match=link):
            read(dangling)
        with pytest.raises(chomp3.Error, match=is_empty):
            read(empty)
        with pytest.raises(chomp3.Error, match=truncated):
            read(cut)
    # A FIFO, in a child with a time limit: a reader that waited for a writer
    # would never return.
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    script = """
import sys, chomp3
for read in (chomp3.Table, chomp3.Census, chomp3.GrundyCensus,
             lambda p: chomp3.nim(30, 5, 3, grundy_census=p)):
    try:
        read(sys.argv[1])
    except chomp3.Error as e:
        print(e)
"""
    child = subprocess.run([sys.executable, "-c", script, str(fifo)], capture_output=True, text=True, timeout=120)
    said = child.stdout.splitlines()
    assert child.returncode == 0 and len(said) == 4, child.stdout + child.stderr
    for line, what in zip(said, ["an f(q,r) table", "a census descriptor file", "a Grundy census", "a Grundy census"]):
        assert line.startswith(f"{fifo} is a FIFO (named pipe), not {what}"), line


def test_a_grundy_census_with_a_line_twice_is_refused_with_its_line(tmp_path):
    lines = (ROOT / "data/grundy-census-40/grundy-census.tsv").read_text().splitlines()
    first = next(i for i, l in enumerate(lines) if l.startswith("q\tr\t")) + 1
    assert lines[first + 1].startswith("1\t0\t")
    body = lines[: first + 2] + [lines[first + 1]] + lines[first + 2 : -1]
    text = "".join(l + "\n" for l in body)
    import zlib

    sealed = text + f"# end: {len(body)} lines, crc32 {zlib.crc32(text.encode()):08x}\n"
    path = tmp_path / "twice.tsv"
    path.write_text(sealed)
    said = f"line {first + 3}: the line \\(1,0\\) after \\(1,0\\)"
    with pytest.raises(chomp3.Error, match=said):
        chomp3.GrundyCensus(path)
    with pytest.raises(chomp3.Error, match=said):
        chomp3.nim(30, 5, 3, grundy_census=path)


def test_position_at_the_top_of_u64_answers_as_the_command(tmp_path, monkeypatch):
    # Two rows: [q + 1, q] is the P-position, f(q, 0) = q + 1. So at M = 2**64 - 1,
    # [M, M-1, 0] is P and [M, M, 0] is N (take the middle row's last square);
    # f(M, 0) = 2**64 is no row's length. Python and the command agree.
    monkeypatch.chdir(tmp_path)
    chomp3.census(10, tmp_path / "c.tsv", progress=False)
    census = tmp_path / "c.c3d"
    m = 2**64 - 1
    lost = chomp3.position(m, m - 1, 0, census=census)
    assert lost["outcome"] == "P" and lost["winning_moves"] == []
    won = chomp3.position(m, m, 0, census=census)
    assert won["outcome"] == "N" and won["winning_moves"] is None
    for (p, q), says in [((m, m - 1), "is a P-position"), ((m, m), "is an N-position")]:
        out = subprocess.run(
            [chomp3_binary(), "position", str(p), str(q), "0", "--census", str(census)],
            capture_output=True, text=True, check=True,
        )
        assert says in out.stdout, out.stdout


def test_os85_is_the_commands_check(tmp_path):
    # The three exceptions on 6 vertices (doc/graphs.md), among the subgraphs
    # of K_6, as `chomp3 graph --os85 --subgraphs` prints them.
    found = chomp3.os85(["complete:6"], subgraphs=True)
    assert found["graphs"] == 1 + 1 + 2 + 4 + 11 + 34 + 156
    assert found["without_edge_to_zero"] == len(found["exceptions"]) == 3
    out = subprocess.run(
        [chomp3_binary(), "graph", "--quiet", "--os85", "--subgraphs", "complete:6", "wheel:3..7"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    again = chomp3.os85(["complete:6", "wheel:3..7"], subgraphs=True)
    lines = [l.split("\t") for l in out.splitlines() if not l.startswith("#")]
    assert [(g6, label, f"g = {v}") for g6, label, v in again["exceptions"]] == [tuple(l) for l in lines]
    total = (
        f"# {again['graphs']} graphs checked, {again['parity_two']} with p(G) = 2, "
        f"{again['without_edge_to_zero']} without an edge deletion to 0"
    )
    assert out.splitlines()[-1] == total
    # The memo file is written, and read by the next call.
    memo = tmp_path / "m.memo"
    assert chomp3.os85("wheel:3..9", memo=memo) == chomp3.os85(["wheel:3..9"])
    assert len(chomp3.Memo.load(memo)) > 0
    with pytest.raises(chomp3.Error, match="unknown family"):
        chomp3.os85(["wheel:5", "nofamily:3"])
    with pytest.raises(chomp3.Error, match="no graphs given"):
        chomp3.os85([])


def test_checkpoint_seconds_that_are_no_duration_are_refused(tmp_path):
    for bad in (float("inf"), 1e300, 1e8, -1.0, float("nan")):
        with pytest.raises(ValueError, match="checkpoint_secs"):
            chomp3.census(10, tmp_path / "c.tsv", checkpoint_secs=bad, progress=False)
    assert not (tmp_path / "c.tsv").exists()


def test_a_table_that_grew_since_it_was_opened_says_so(tmp_path):
    path = tmp_path / "g.c3t"
    chomp3.compute(40, path, progress=False)
    readers = [chomp3.Table(path), chomp3.Table(path, mapped=True)]
    chomp3.compute(80, path, progress=False)
    for t in readers:
        assert t.n == 40 and t[40, 3] == chomp3.Table(path)[40, 3]
        with pytest.raises(chomp3.Error, match="grew while it was open") as said:
            t[60, 7]
        assert str(said.value).count(str(path)) == 1, said.value
    assert chomp3.Table(path)[60, 7] == chomp3.f(60, 7, table=path)


def test_arguments_of_32_bits_past_their_range_are_value_errors(tmp_path):
    for call, name in [
        (lambda: chomp3.census(2**32, tmp_path / "c.tsv", progress=False), "rows"),
        (lambda: chomp3.grundy_line(2**32, 0, 10, progress=False), "q"),
        (lambda: chomp3.grundy_table(2**32, tmp_path / "g.g3t", progress=False), "n"),
        (lambda: chomp3.grundy_census(2**32, tmp_path / "g.tsv", progress=False), "lines"),
        (lambda: chomp3.grundy_periods(3, 2**32, tmp_path / "b", progress=False), "lag"),
        (lambda: chomp3.nim(5, 2**32, 0, options=True), "below 2\\*\\*32"),
    ]:
        with pytest.raises(ValueError, match=name):
            call()


def test_a_missing_grundy_table_names_the_call_that_makes_one(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"chomp3\.grundy_table\(n, path\)"):
        chomp3.GrundyTable(tmp_path / "none.g3t")
    with pytest.raises(FileNotFoundError, match=r"chomp3\.compute\(n, path\)"):
        chomp3.Table(tmp_path / "none.c3t")


def test_a_link_to_nothing_is_a_file_not_found(tmp_path):
    link = tmp_path / "gone"
    os.symlink(tmp_path / "nowhere", link)
    for reader in (chomp3.Table, chomp3.GrundyTable, chomp3.Census, chomp3.Memo.load,
                   lambda p: chomp3.nim(5, 5, 5, rectangles=p),
                   lambda p: chomp3.nim(5, 3, 2, rectangles=p)):
        with pytest.raises(FileNotFoundError, match="gone"):
            reader(link)
    # A table or census for f and position alike.
    for call in (lambda: chomp3.f(3, 2, table=link), lambda: chomp3.position(5, 3, 2, table=link),
                 lambda: chomp3.f(3, 2, census=link)):
        with pytest.raises(FileNotFoundError, match="gone"):
            call()
    # Not there at all: the same.
    for p in (5, 5), (3, 2):
        with pytest.raises(FileNotFoundError, match="none.txt"):
            chomp3.nim(5, *p, rectangles=tmp_path / "none.txt")


def test_a_memo_message_names_its_file_once(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, kind in (fifo, "FIFO"), ("/dev/zero", "character device"):
        with pytest.raises(chomp3.Error) as e:
            chomp3.Memo.load(path)
        assert kind in str(e.value)
        assert str(e.value).count(str(path)) == 1, str(e.value)


def test_two_threads_writing_one_output_are_serialised(tmp_path):
    # The lock of an output is held per call: a second call from another
    # thread of the process is refused, as another process would be, and the
    # first call's result is whole.
    out = tmp_path / "same.tsv"
    lock = tmp_path / ".same.tsv.lock"
    done = {}

    def first():
        done["first"] = chomp3.census(12000, out, threads=1, progress=False)

    a = threading.Thread(target=first)
    a.start()
    deadline = time.monotonic() + 30
    while not lock.exists() and a.is_alive() and time.monotonic() < deadline:
        time.sleep(0.005)
    assert lock.exists(), "the first call took its lock"
    with pytest.raises(chomp3.Error, match="another call in this process"):
        chomp3.census(2000, out, threads=1, progress=False)
    a.join()
    assert "first" in done
    assert "rows 0..12000" in out.read_text()[:400]


def test_a_call_nested_in_a_call_writing_one_output_is_refused(tmp_path):
    # A signal handler runs Python code inside a running call, on the same
    # thread: a call it makes on the same output is refused, and the outer
    # call's result is whole and its own.
    out = tmp_path / "same.tsv"
    nested = {}

    def handler(*_):
        try:
            nested["result"] = chomp3.census(15000, out, threads=1, progress=False)
        except chomp3.Error as e:
            nested["error"] = str(e)

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    try:
        chomp3.census(12000, out, threads=1, progress=False)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert "result" not in nested, "the nested call was let in"
    assert "another call in this process" in nested.get("error", ""), nested
    assert "rows 0..12000" in out.read_text()[:400]


def test_sizes_are_checked_before_the_work_and_the_room(tmp_path):
    # Counts out of range are ValueError, not OverflowError.
    with pytest.raises(ValueError, match="threads"):
        chomp3.census(5, tmp_path / "x.tsv", threads=-1, progress=False)
    for edges in [(0, 2**64 - 1)], [(0, 2**64)]:
        with pytest.raises(ValueError, match="past any graph"):
            chomp3.nim_value(edges)
        with pytest.raises(ValueError, match="past any graph"):
            chomp3.moves(edges)
    # A slab past the table is the table's error, before any array.
    chomp3.grundy_table(5, tmp_path / "g.g3t", progress=False)
    g = chomp3.GrundyTable(tmp_path / "g.g3t")
    for p in 6, 10**5:
        with pytest.raises(chomp3.Error, match="beyond the table"):
            g.slab(p)
    # The list of ten million moves is counted in the time asked for.
    with pytest.raises(chomp3.Error, match="max_seconds"):
        chomp3.nim(10**7, 1, 0, options=True, max_seconds=10)
    # The values a line returns are counted in its memory: refused, not an
    # abort, under a limit of the address space.
    script = (
        "import resource, chomp3\n"
        "resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))\n"
        "try:\n"
        "    chomp3.grundy_line(1, 0, 10**9, progress=False)\n"
        "except chomp3.Error as e:\n"
        "    print('refused:', e)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "refused:" in done.stdout, done.stderr



def test_a_memo_path_holding_a_table_names_the_table_and_keeps_it(tmp_path):
    table = tmp_path / "t.c3t"
    chomp3.compute(40, table, progress=False)
    before = table.read_bytes()
    with pytest.raises(chomp3.Error, match=r"this file is an f\(q,r\) table") as e:
        chomp3.Memo.load(table)
    assert "delete" not in str(e.value)
    assert table.read_bytes() == before


def test_a_grundy_table_indexed_wrongly_says_how_to_index_it(tmp_path):
    g = chomp3.grundy_table(12, tmp_path / "g.g3t", progress=False)
    for key in [5, (5, 1), (5, 1, 0, 0), "a"]:
        with pytest.raises(TypeError, match=r"indexed g\[p, q, r\]"):
            g[key]
    assert g[5, 1, 0] == chomp3.nim(5, 1, 0)


PROGRESS_WITHOUT_STDERR = """
import os, sys
import chomp3
n = chomp3.compute(3000, sys.argv[1], threads=1)
os.write(1, f"{n is not None} {chomp3.Table(sys.argv[1]).n}".encode())
"""


def test_the_progress_bar_failing_leaves_the_work_going(tmp_path):
    # Standard error full, or closed: the bar is cosmetic, the table is made.
    for i, stderr in enumerate([open("/dev/full", "w"), subprocess.DEVNULL]):
        path = tmp_path / f"t{i}.c3t"
        args = [sys.executable, "-c", PROGRESS_WITHOUT_STDERR, str(path)]
        if stderr is subprocess.DEVNULL:
            # Closed, not redirected: sys.stderr is None in the child.
            done = subprocess.run(
                ["sh", "-c", '"$0" "$@" 2>&-', *args], capture_output=False,
                stdout=subprocess.PIPE, timeout=300,
            )
        else:
            done = subprocess.run(args, stdout=subprocess.PIPE, stderr=stderr, timeout=300)
        assert done.returncode == 0, done
        assert done.stdout == b"True 3000", done.stdout
    # A pipe nobody reads, full already: no bar is drawn into it, so nothing
    # holds the call (a write there would wait for ever, and Ctrl-C with it).
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    try:
        while True:
            os.write(write_end, b"x" * 4096)
    except BlockingIOError:
        pass
    os.set_blocking(write_end, True)
    path = tmp_path / "t-pipe.c3t"
    done = subprocess.run(
        [sys.executable, "-c", PROGRESS_WITHOUT_STDERR, str(path)],
        stdout=subprocess.PIPE, stderr=write_end, timeout=300,
    )
    os.close(read_end)
    os.close(write_end)
    assert done.returncode == 0, done
    assert done.stdout == b"True 3000", done.stdout


MAP_UNDER_A_LIMIT = """
import re, resource, sys
import chomp3
vm = int(re.search(r"VmSize:\\s+(\\d+)", open("/proc/self/status").read()).group(1)) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + 40 * 2**20,) * 2)
try:
    chomp3.Table(sys.argv[1], mapped=True)
    print("mapped")
except MemoryError as e:
    print("MemoryError", e)
print(chomp3.Table(sys.argv[1])[100, 7])
"""


def test_a_table_that_cannot_be_mapped_under_a_limit_is_a_memory_error(tmp_path):
    path = tmp_path / "t.c3t"
    chomp3.compute(6000, path, progress=False)
    done = subprocess.run(
        [sys.executable, "-c", MAP_UNDER_A_LIMIT, str(path)],
        capture_output=True, text=True, timeout=300,
    )
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stderr
    assert lines[0].startswith("MemoryError") and "could not be mapped" in lines[0], lines
    assert "ulimit -v" in lines[0], lines
    assert int(lines[1]) == chomp3.Table(path)[100, 7]


def test_a_grundy_table_past_its_capacity_is_refused_as_the_shell_refuses_it(tmp_path):
    """Past its capacity, a Grundy table is refused with the command line's
    words, the remedy named as each front end names it."""
    path = tmp_path / "g.g3t"
    chomp3.grundy_table(20, path, capacity=20, progress=False)
    with pytest.raises(chomp3.Error) as e:
        chomp3.grundy_table(21, path, progress=False)
    shell = subprocess.run([chomp3_binary(), "grundy-table", "--quiet", "--n", "21", "--table", str(path)],
                           capture_output=True, text=True)
    said = shell.stderr.strip().removeprefix("chomp3: error: ")
    assert shell.returncode == 1
    assert said.endswith("; make the table again with a larger --capacity"), said
    assert str(e.value) == said.removesuffix("--capacity") + "capacity="
