"""chomp3 from Python: exact three-rowed Chomp and graph Chomp.

A thin layer over the chomp3 Rust library (the same code as the ``chomp3``
command). Three-rowed Chomp: :class:`Table` (a table file made by
``chomp3 compute`` or :func:`compute`), :class:`Census` (a census descriptor
file made by ``chomp3 census``), :func:`f` (one value with ``chomp3 get``'s
source rule), :func:`position`, :func:`compute` and :func:`census` to make the
files. Sprague-Grundy values: :func:`nim` (one value, by ``chomp3 nim``'s
source rule), :class:`GrundyCensus` (a Grundy census read once),
:class:`GrundyTable` (a ``.g3t`` file), :func:`grundy_line` (a line's values
from one sweep), :func:`grundy_table` (make or extend a Grundy table),
:func:`grundy_census` (the Grundy census with patterns) and
:func:`grundy_periods` (the census of periods and starts).
Graph Chomp: :func:`nim_value`, :func:`nim_values`, :func:`moves` and
:class:`Memo`.

Errors: a missing file raises ``FileNotFoundError``; a damaged or foreign file,
or a question the data cannot answer, raises :class:`Error` (a ``ValueError``),
with the command line's one-line message.
"""

from __future__ import annotations

import operator
import os
import sys
import warnings
from typing import Any, Iterable, Optional, Union

import numpy as np

from . import _chomp3
from ._chomp3 import Error, Memo
from ._chomp3 import Table as _Table
from ._chomp3 import GrundyTable as _GrundyTable

__all__ = [
    "Error",
    "Table",
    "Census",
    "GrundyCensus",
    "GrundyTable",
    "Memo",
    "f",
    "position",
    "nim",
    "compute",
    "transpose",
    "census",
    "grundy_line",
    "grundy_table",
    "grundy_census",
    "grundy_periods",
    "nim_value",
    "nim_values",
    "moves",
    "os85",
]
__version__ = "0.1.0"

_CLASSES = np.array(["constant", "periodic", "open"])

def _count32(name: str, value: Any) -> int:
    """``value`` as a non-negative int below 2**32, or TypeError / ValueError
    naming ``name``."""
    v = _count(name, value)
    if v >= 2**32:
        raise ValueError(f"{name} must be below 2**32, got {v}")
    return v


def _count(name: str, value: Any, bounded: bool = True) -> int:
    """``value`` as a non-negative int (below 2**64 when ``bounded``), or
    TypeError / ValueError naming ``name``."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, not {type(value).__name__}") from None
    if v < 0:
        raise ValueError(f"{name} must be >= 0, got {v}")
    if bounded and v >= 2**64:
        raise ValueError(f"{name} must be below 2**64, got {v}")
    return v


def _grundy_position(p: Any, q: Any, r: Any) -> tuple:
    """``(p, q, r)`` checked to be non-negative ints, ``p`` of any size (a
    line's period reduces it), ``q`` and ``r`` below 2**64."""
    return _count("p", p, bounded=False), _count("q", q), _count("r", r)


def _position(p: Any, q: Any, r: Any) -> tuple:
    """``(p, q, r)`` checked to be non-negative ints (the library checks the
    order ``p >= q >= r``)."""
    return _count("p", p), _count("q", q), _count("r", r)


def _ordered(p: Any, q: Any, r: Any) -> tuple:
    """``(p, q, r)`` checked to be a position: ints, ``p >= q >= r >= 0``, ``p >= 1``."""
    p, q, r = _position(p, q, r)
    if not (p >= q >= r and p >= 1):
        raise ValueError(f"[{p},{q},{r}] is not a position: it needs p >= q >= r >= 0 and p >= 1")
    return p, q, r


def _path(name: str, value: Any) -> str:
    """``value`` as a path string, or TypeError naming ``name``."""
    if value is None or not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError(f"{name} must be a path (str or os.PathLike), not {type(value).__name__}")
    return os.fsdecode(value)



class Table:
    """A table file (``chomp3 compute`` or :func:`compute`): ``f(q, r)`` for
    every ``0 <= q, r <= N`` (for ``r > q``, ``f(q, q)``), read from the file.

    Indexing is always ``[q, r]`` (column, then row), as in the paper:
    ``t[q, r]`` is one value; ``t[q0:q1, r]`` a row's values for ``q`` in
    ``q0..q1``; ``t[q, :]`` a column's values for every ``r``; ``t.row(r)`` and
    ``t.column(q)`` the same as arrays. ``np.asarray(t)`` is the whole
    ``(N+1) x (N+1)`` array (tables up to N = 8191; a row or column at a time
    beyond). A table pickles as its path.

    ``mapped=True`` maps the file instead of reading it: a row comes about 20
    times as fast (it touches one page per column), but if another program
    cuts the file while it is open, the process dies (SIGBUS) instead of
    raising an error. chomp3 itself only ever extends a table.

    A table stored by rows (:func:`transpose`, ``chomp3 transpose``; ``by_rows``
    is True) holds the same values and reads a row as one run of bytes: a row
    of the ``10^5`` table in well under a millisecond, read or mapped.
    """

    #: Largest N that ``np.asarray`` makes whole (256 MiB of uint32).
    ARRAY_LIMIT = 8191

    def __init__(self, path: Any, mapped: bool = False) -> None:
        self.path = _path("path", path)
        if not isinstance(mapped, bool):
            raise TypeError(f"mapped must be True or False, not {type(mapped).__name__}")
        self.mapped = mapped
        self._inner = _Table(self.path, mapped)

    def __reduce__(self):
        return (Table, (self.path, self.mapped))

    @property
    def n(self) -> Optional[int]:
        """The table's N (None before its first column)."""
        return self._inner.n

    @property
    def shape(self) -> tuple:
        """``(N + 1, N + 1)``: indices ``[q, r]``."""
        size = (self.n or 0) + 1 if self.n is not None else 0
        return (size, size)

    def __len__(self) -> int:
        return self.shape[0]

    @property
    def by_rows(self) -> bool:
        """Whether the file stores the table by rows (:func:`transpose`)."""
        return self._inner.by_rows

    def __repr__(self) -> str:
        mapped = ", mapped" if self.mapped else ""
        rows = ", by rows" if self.by_rows else ""
        return f"Table({self.path!r}, N = {self.n}{rows}{mapped})"

    def __getitem__(self, key):
        if not isinstance(key, tuple) or len(key) != 2:
            raise TypeError("a table is indexed t[q, r] (or with slices: t[q0:q1, r], t[q, :])")
        q, r = key
        size = len(self)
        if isinstance(q, slice) and not isinstance(r, slice):
            qs = range(*q.indices(size))
            if qs.step == 1:
                return self.row(_count("r", r), qs.start, max(qs.start, qs.stop))
            # Any other step, a negative one too: the columns it takes, read
            # as one run from the least to the greatest.
            if len(qs) == 0:
                return np.empty(0, dtype=np.uint32)
            lo, hi = min(qs[0], qs[-1]), max(qs[0], qs[-1])
            run = self.row(_count("r", r), lo, hi + 1)
            return run[np.arange(qs[0] - lo, qs[-1] - lo + (1 if qs.step > 0 else -1), qs.step)]
        if isinstance(r, slice) and not isinstance(q, slice):
            return self.column_all(_count("q", q))[r]
        if isinstance(q, slice) and isinstance(r, slice):
            qs = range(*q.indices(size))
            width = len(range(*r.indices(size)))
            if len(qs) * width > (self.ARRAY_LIMIT + 1) ** 2:
                raise Error(
                    f"t[q0:q1, r0:r1] of {len(qs)} x {width} values would take "
                    f"{4 * len(qs) * width / 2**30:.1f} GiB as one array, past the "
                    f"{4 * (self.ARRAY_LIMIT + 1) ** 2 >> 20} MiB np.asarray makes; read a smaller part, "
                    f"or a row or a column at a time (t.row(r), t[q, :])"
                )
            out = np.empty((len(qs), width), dtype=np.uint32)
            if self.by_rows:  # a row is one run of bytes there, a column is not
                for j, y in enumerate(range(*r.indices(size))):
                    out[:, j] = self.row(y)[q]
            else:
                for i, x in enumerate(qs):
                    out[i] = self.column_all(x)[r]
            return out
        return self._inner[_count("q", q), _count("r", r)]

    def row(self, r: int, start: Optional[int] = None, stop: Optional[int] = None):
        """Row ``r``: ``f(q, r)`` for ``q`` in ``[start, stop)`` (default the whole
        row, ``0..=N``), as a uint32 array (the same as ``t[start:stop, r]``)."""
        return self._inner.row(
            _count("r", r),
            None if start is None else _count("start", start),
            None if stop is None else _count("stop", stop),
        )

    def column(self, q: int):
        """Column ``q``: ``f(q, r)`` for ``r = 0..=q``, as a uint32 array."""
        return self._inner.column(_count("q", q))

    def column_all(self, q: int):
        """Column ``q`` for every ``r = 0..=N`` (``f(q, r) = f(q, q)`` for
        ``r > q``): ``t[q, :]``."""
        col = self._inner.column(_count("q", q))
        out = np.full(len(self), col[-1] if len(col) else 0, dtype=np.uint32)
        out[: len(col)] = col
        return out

    def __array__(self, dtype=None, copy=None):
        n = self.n
        if n is None:
            out = np.zeros((0, 0), dtype=np.uint32)
        elif n > self.ARRAY_LIMIT:
            raise Error(
                f"the table has N = {n}: as one array it would take {4 * (n + 1) ** 2 / 2**30:.1f} GiB; "
                f"read it a row or a column at a time (t.row(r), t[q, :]) or a part (t[q0:q1, r0:r1])"
            )
        else:
            out = np.empty((n + 1, n + 1), dtype=np.uint32)
            if self.by_rows:  # a row is one run of bytes there, a column is not
                for r in range(n + 1):
                    out[:, r] = self.row(r)
            else:
                for q in range(n + 1):
                    out[q] = self.column_all(q)
        return out if dtype is None else out.astype(dtype)

    def verify(self) -> None:
        """Reads every value and checks the data's checksums (``chomp3 info
        --verify``); raises Error if damaged."""
        self._inner.verify()


class Census:
    """A certified census (``census.c3d``, or ``census.c3d.xz`` read as it is):
    every row's proved fate.

    ``c.fate(r)`` is a dict (class, start, period, pattern, how it is known) or
    None for an open row (also ``c[r]``; iterating gives every row's fate in
    order); ``c.f(q, r)`` answers for any ``q`` below 2**64 from the row's
    proved fate; ``c.rows()`` is every row as a numpy structured array (period
    0 where there is none), ``c.rows(as_frame=True)`` a pandas DataFrame
    indexed by ``r`` with a categorical class and a nullable period (``<NA>``
    where there is none).
    """

    def __init__(self, path: Any) -> None:
        self.path = _path("path", path)
        self._inner = _chomp3.Census(self.path)

    def __reduce__(self):
        return (Census, (self.path,))

    def __len__(self) -> int:
        return len(self._inner)

    def __repr__(self) -> str:
        return f"Census({self.path!r}, rows 0..{len(self) - 1})"

    def __getitem__(self, r: int) -> Optional[dict]:
        r = _count("r", r)
        if r >= len(self):
            raise IndexError(f"row {r} is beyond the census (rows 0..{len(self) - 1})")
        return self.fate(r)

    def __iter__(self):
        return (self.fate(r) for r in range(len(self)))

    def fate(self, r: int) -> Optional[dict]:
        """Row ``r``'s fate: class ('constant' or 'periodic'), start, period
        (None for a constant row), pattern (f(q,r) - q over one period from
        the start), start_is_bound, and known (how it is proved); None if open."""
        return self._inner.fate(_count("r", r))

    def f(self, q: int, r: int) -> int:
        """f(q, r) from row min(q, r)'s proved fate (q at or past its start)."""
        return self._inner.f(_count("q", q), _count("r", r))

    def rows(self, as_frame: bool = False):
        """Every row: r, cls ('constant', 'periodic' or 'open'), start, period
        (0 for constant and open rows), start_is_bound."""
        cls, start, period, bound = self._inner._columns()
        n = len(cls)
        out = np.empty(
            n,
            dtype=[
                ("r", "u4"),
                ("cls", "U8"),
                ("start", "u8"),
                ("period", "u8"),
                ("start_is_bound", "?"),
            ],
        )
        out["r"] = np.arange(n, dtype="u4")
        out["cls"] = _CLASSES[cls]
        out["start"] = start
        out["period"] = np.where(cls == 1, period, 0)
        out["start_is_bound"] = bound
        if as_frame:
            import pandas as pd

            frame = pd.DataFrame(out).set_index("r")
            frame["cls"] = pd.Categorical(frame["cls"], categories=list(_CLASSES))
            frame["period"] = pd.array(np.where(cls == 1, period, 0), dtype="UInt64")
            frame.loc[cls != 1, "period"] = pd.NA
            return frame
        return out


class GrundyCensus:
    """A Grundy census file, read once: ``chomp3 grundy-census --out`` (each
    proved line with its pattern) or ``chomp3 grundy-periods --out`` (start
    and least period only).

    ``gc.value(p, q, r)`` is G(p, q, r) for any ``p``: from the line's pattern
    where the census has it and ``p`` is past the start; reduced by the
    line's period and the rest computed by the sweep for a census of periods
    and starts; else computed by the sweep (``p < 2**32``). ``gc.frame()`` is
    every proved line (q, r, start, period) as a pandas DataFrame;
    ``gc.lines()`` the same as a numpy structured array.
    """

    def __init__(self, path: Any) -> None:
        self.path = _path("path", path)
        self._inner = _chomp3.GrundyCensus(self.path)

    def __reduce__(self):
        return (GrundyCensus, (self.path,))

    @property
    def q_max(self) -> int:
        """Its Q: the lines (q, r), r <= q <= Q."""
        return self._inner.q_max

    @property
    def patterns(self) -> bool:
        """Whether the lines carry their patterns."""
        return self._inner.patterns

    def __len__(self) -> int:
        return len(self._inner)

    def __repr__(self) -> str:
        kind = "patterns" if self.patterns else "periods and starts"
        return f"GrundyCensus({self.path!r}, q <= {self.q_max}, {len(self)} lines, {kind})"

    def value(self, p: int, q: int, r: int, explain: bool = False, max_seconds: float = 60.0):
        """G(p, q, r), ``p`` of any size on a line the census proved; with
        ``explain=True``, ``(value, source)``. Where the census does not
        cover the position, the sweep computes it if it is estimated to take
        at most ``max_seconds`` of one core, else ``chomp3.Error`` says the
        estimate."""
        value, _kind, source, _passed = self._inner.lookup(*_grundy_position(p, q, r), max_seconds)
        return (value, source) if explain else value

    def lines(self):
        """Every proved line: q, r, start, period (numpy structured array)."""
        q, r, start, period = self._inner.columns()
        out = np.empty(len(q), dtype=[("q", "u4"), ("r", "u4"), ("start", "u4"), ("period", "u4")])
        out["q"], out["r"], out["start"], out["period"] = q, r, start, period
        return out

    def frame(self):
        """Every proved line as a pandas DataFrame (q, r, start, period)."""
        import pandas as pd

        return pd.DataFrame(self.lines())


class GrundyTable:
    """A Grundy table file (``chomp3 grundy-table``, ``.g3t``): G(p, q, r) for
    every position ``p >= q >= r``, ``p <= N``, read with positional reads
    (a file cut while it is open gives an error, not SIGBUS).

    ``t[p, q, r]`` is one value; ``t.line(q, r)`` the values of a line for
    ``p`` from ``max(q, 1)`` to N (numpy); ``t.slab(p)`` every value with that
    ``p``, as a ``(p+1) x (p+1)`` array indexed ``[q, r]`` (0 where ``r > q``).
    """

    def __init__(self, path: Any) -> None:
        self.path = _path("path", path)
        self._inner = _GrundyTable(self.path)

    def __reduce__(self):
        return (GrundyTable, (self.path,))

    @property
    def n(self) -> Optional[int]:
        """The table's N (None before its first slab)."""
        return self._inner.n

    def __repr__(self) -> str:
        return f"GrundyTable({self.path!r}, N = {self.n})"

    def __getitem__(self, key) -> int:
        if not isinstance(key, tuple) or len(key) != 3:
            raise TypeError("a Grundy table is indexed g[p, q, r] (three whole numbers)")
        p, q, r = _ordered(*key)
        return self._inner.get(p, q, r)

    def line(self, q: int, r: int, start: Optional[int] = None, stop: Optional[int] = None):
        """G(p, q, r) for ``p`` in ``[start, stop)`` (default ``max(q, 1)`` to N)."""
        n = self.n or 0
        q, r = _count("q", q), _count("r", r)
        start = max(q, 1) if start is None else _count("start", start)
        stop = n + 1 if stop is None else _count("stop", stop)
        if stop > start:
            _ordered(start, q, r)
        return self._inner.line(q, r, start, stop)

    def slab(self, p: int):
        """Every G(p, q, r), ``r <= q <= p``, as an array indexed ``[q, r]``."""
        p = _ordered(p, 0, 0)[0]
        # Asked of the table first: a p past it is its error, before any room.
        self._inner.get(p, 0, 0)
        out = np.zeros((p + 1, p + 1), dtype=np.uint32)
        for q in range(p + 1):
            for r in range(q + 1):
                out[q, r] = self._inner.get(p, q, r)
        return out

    def verify(self) -> None:
        """Reads every block and checks its checksum (raises Error if damaged)."""
        self._inner.verify()


def grundy_line(q: int, r: int, stop: int, progress: bool = True):
    """G(p, q, r) for ``p`` from ``max(q, 1)`` to ``stop - 1``, as a numpy
    array, by one sweep of the lines ``q' <= q`` (the GIL is released while
    it runs; KeyboardInterrupt stops it)."""
    q, r, stop = _count32("q", q), _count32("r", r), _count32("stop", stop)
    return _chomp3.grundy_line(q, r, stop, _progress_bar("p", progress))


def grundy_table(n: int, path: Any, capacity: Optional[int] = None, progress: bool = True) -> "GrundyTable":
    """Creates the Grundy table ``path`` or extends it to ``N = n`` (as
    ``chomp3 grundy-table``: its sweep is saved beside it, ``.g3s``, so a later
    call goes on from there; KeyboardInterrupt keeps every slab committed).
    ``capacity`` is the largest N it may later grow to (default
    ``max(n, 5000)``). Returns the table, opened."""
    n, path = _count32("n", n), _path("path", path)
    capacity = None if capacity is None else _count("capacity", capacity)
    _chomp3.grundy_table(n, path, capacity, _progress_bar("slabs", progress))
    return GrundyTable(path)


def grundy_census(
    lines: int,
    out: Any,
    bfiles: Any = None,
    rectangles: Optional[int] = None,
    max_p: int = 10_000_000,
    replace: bool = False,
    progress: bool = True,
) -> dict:
    """Proves the start and least period of every line ``(q, r)``,
    ``r <= q <= lines``, keeping each line's pattern (``chomp3
    grundy-census``), and writes the census ``out`` (open it with
    :class:`GrundyCensus`); with ``bfiles``, the b-files of the lines'
    periods and starts in that directory and, with ``rectangles=N``, that of
    G(n, n, n) for ``n <= N``. Lines not proved once ``p`` reaches ``max_p``
    raise :class:`Error` (the file holds those proved). Refuses to replace a
    census or b-files of more lines unless ``replace``. The GIL is released
    while it runs; KeyboardInterrupt stops it, writing nothing (it keeps no
    checkpoint). Returns ``{"lines": ..., "swept": ...}`` (the first pass's
    last ``p``)."""
    lines, out = _count32("lines", lines), _path("out", out)
    bfiles = None if bfiles is None else _path("bfiles", bfiles)
    rectangles = None if rectangles is None else _count32("rectangles", rectangles)
    done, swept = _chomp3.grundy_census(
        lines, out, bfiles, rectangles, _count32("max_p", max_p), replace, _progress_bar("lines", progress)
    )
    return {"lines": done, "swept": swept}


def grundy_periods(
    lines: int,
    lag: int,
    bfiles: Any,
    out: Any = None,
    checkpoint: Any = None,
    checkpoint_secs: float = 600.0,
    max_p: int = 1_000_000_000,
    partial: bool = False,
    replace: bool = False,
    progress: bool = True,
) -> dict:
    """Proves the start and least period of every line ``(q, r)``,
    ``r <= q <= lines``, by two sweeps ``lag`` apart without keeping any
    pattern (``chomp3 grundy-periods``; every least period must divide
    ``lag``, at least ``2 * lines + 2``), and writes the b-files
    ``grundy-periods.txt`` and ``grundy-starts.txt`` into ``bfiles`` and, with
    ``out``, the census of periods and starts (open it with
    :class:`GrundyCensus`). With ``checkpoint`` the run is saved there every
    ``checkpoint_secs`` and on KeyboardInterrupt, and the same call continues
    from it. If the trailing sweep reaches ``max_p`` before every line is
    done, :class:`Error` says how many are not; with ``partial=True`` the
    b-files of the lines done so far in order and (with ``out``) every line
    done are written first. Refuses to replace a census or b-files of more
    lines unless ``replace``. Returns ``{"lines": ..., "swept": ...}`` (the
    trailing sweep's last ``p``)."""
    lines, lag = _count32("lines", lines), _count32("lag", lag)
    bfiles = _path("bfiles", bfiles)
    out = None if out is None else _path("out", out)
    checkpoint = None if checkpoint is None else _path("checkpoint", checkpoint)
    done, swept = _chomp3.grundy_periods(
        lines,
        lag,
        bfiles,
        out,
        checkpoint,
        checkpoint_secs,
        _count32("max_p", max_p),
        partial,
        replace,
        _progress_bar("lines", progress),
    )
    return {"lines": done, "swept": swept}


def f(q: int, r: int, table: Any = None, census: Any = None, explain: bool = False):
    """f(q, r) by the source rule of ``chomp3 get``: the table where it reaches
    (default ``data/table.c3t``), else the census (default
    ``data/census-1000000/census.c3d.xz``, used only if it exists when not
    named). With ``explain=True`` returns
    ``(value, source)`` where source is the ``--explain`` line."""
    value, _kind, source = _chomp3.lookup(
        _count("q", q),
        _count("r", r),
        None if table is None else _path("table", table),
        None if census is None else _path("census", census),
    )
    return (value, source) if explain else value


def position(p: int, q: int, r: int, table: Any = None, census: Any = None) -> dict:
    """Whether [p,q,r] is a P-position (lost for the player to move:
    ``outcome`` "P") or an N-position ("N"), and its winning moves
    ``(row, column, (p, q, r) after)``. Every value of f comes by the source
    rule of :func:`f`: the table where it reaches (default data/table.c3t,
    used if it exists), else the census (default
    data/census-1000000/census.c3d.xz). The moves read f(y, min(r, y)) for every y < q, so past the table they need every
    row <= r proved from column N on (the census gives a row only from its
    start); otherwise the census's one-line error is raised. For Q past
    10**7 the moves are not listed (``winning_moves`` is None for an
    N-position), as ``chomp3 position`` says."""
    p, q, r = _position(p, q, r)
    lost, winning = _chomp3.position(
        p,
        q,
        r,
        None if table is None else _path("table", table),
        None if census is None else _path("census", census),
    )
    return {"outcome": "P" if lost else "N", "lost": lost, "won": not lost, "winning_moves": winning}


def nim(
    p: int,
    q: int,
    r: int,
    options: bool = False,
    grundy_table: Any = None,
    grundy_census: Any = None,
    explain: bool = False,
    progress: bool = False,
    rectangles: Any = None,
    max_seconds: float = 60.0,
):
    """The Sprague-Grundy value G(p,q,r) of three-rowed Chomp by the source
    rule of ``chomp3 nim``: a Grundy table (``chomp3 grundy-table``), the
    b-file of the rectangles G(n,n,n) (``rectangles``; default the committed
    ``data/grundy-table-5000/grundy-rectangles.txt`` where it exists) or a
    Grundy census (a :class:`GrundyCensus`, read once, or the path of one,
    read for this call: ``chomp3 grundy-census --out``; or a census of
    periods and starts, ``chomp3 grundy-periods --out``, by which p is reduced
    by the line's period and the rest computed; default the committed
    ``data/grundy-periods-300/grundy-periods-census.tsv`` where it exists)
    where it covers the position, else computed by the Grundy sweep (about
    q**2 * p / 2 line steps) if that is estimated to take at most
    ``max_seconds`` of one core (else ``chomp3.Error`` says the estimate and
    nothing is computed); a file that does not cover it is passed over with a
    warning. ``p`` may be of any size on a line a census proved. With ``explain=True`` returns ``(value, source)``, source
    being the ``source:`` line. With ``options=True`` (computed only, no file
    named; ``p < 2**32``: it lists all ``p - 1 + q + r`` moves) returns
    ``(value, [((p', q', r'), value), ...])`` for every move. With
    ``progress=True`` a long sweep shows a progress bar; Ctrl-C stops it."""
    p, q, r = _grundy_position(p, q, r)
    if options and max(p, q, r) >= 2**32:
        raise ValueError(
            f"options=True lists every move of [p,q,r] (p - 1 + q + r of them): p, q and r must be below 2**32, got [{p},{q},{r}]"
        )
    if options:
        if grundy_table is not None or grundy_census is not None or explain:
            raise Error("nim: options=True computes every move; it names no file and explains nothing")
        value, opts = _chomp3.grundy(p, q, r, max_seconds)
        return value, opts
    loaded = grundy_census._inner if isinstance(grundy_census, GrundyCensus) else None
    value, _kind, source, passed = _chomp3.grundy_lookup(
        p,
        q,
        r,
        None if grundy_table is None else _path("grundy_table", grundy_table),
        None if grundy_census is None or loaded is not None else _path("grundy_census", grundy_census),
        loaded,
        None if rectangles is None else _path("rectangles", rectangles),
        max_seconds,
        _progress_bar("p", progress),
    )
    for note in passed:
        warnings.warn(note, stacklevel=2)
    return (value, source) if explain else value


def _draws_on_stderr() -> bool:
    """Whether a bar may be drawn on standard error: a terminal, or a stream
    with no descriptor of its own (a notebook's). A pipe or a file gets no
    bar, as from the command line: a pipe nobody reads would hold the call
    once full, and Ctrl-C with it."""
    stream = sys.stderr
    if stream is None:
        return False
    try:
        stream.fileno()
    except Exception:
        return True
    try:
        return bool(stream.isatty())
    except Exception:
        return False


def _progress_bar(total_label: str, enabled: bool):
    """A callback ``(done, total)`` drawing a bar: tqdm when installed, else a
    line on stderr; a no-op when disabled."""
    if not enabled or not _draws_on_stderr():
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        tqdm = None
    state: dict = {}

    def draw(done: int, total: int) -> None:
        if tqdm is not None:
            bar = state.get("bar")
            if bar is None:
                bar = state["bar"] = tqdm(total=total, unit=total_label, unit_scale=True)
            bar.update(done - bar.n)
            if done >= total:
                bar.close()
        else:
            sys.stderr.write(f"\r{total_label}: {done}/{total} ({100 * done // max(total, 1)}%)")
            if done >= total:
                sys.stderr.write("\n")
            sys.stderr.flush()

    def update(done: int, total: int) -> None:
        if state.get("off"):
            return
        try:
            draw(done, total)
        except Exception:
            # Standard error full, closed or gone: the bar is left off and
            # the work goes on, as the command line's does. (An exception of
            # a callback of the caller's own still stops the call.)
            state["off"] = True

    return update


def compute(n: int, path: Any, threads: Optional[int] = None, progress: bool = True):
    """Creates the table ``path`` or extends it to ``N = n`` (the GIL is
    released while it runs). KeyboardInterrupt commits the columns done, as
    Ctrl-C does: compute again to continue. Returns a dict of what was done,
    or None when the table already held ``n``; then open it with ``Table``."""
    n, path = _count("n", n), _path("path", path)
    threads = None if threads is None else _count("threads", threads)
    done = _chomp3.compute(n, path, threads, _progress_bar("cells", progress))
    if done is None:
        return None
    from_n, to_n, cells, seconds, size = done
    return {"from_n": from_n, "n": to_n, "cells": cells, "seconds": seconds, "bytes": size}


def transpose(table: Any, out: Any, progress: bool = True) -> "Table":
    """Writes the table ``table`` again stored by rows at ``out``
    (``chomp3 transpose``) and opens it: the same values, a row read in one
    run. ``out`` is a new file, or the unfinished one a stopped call left
    (continued from its last whole row); one that is whole already is checked
    and kept. KeyboardInterrupt keeps the rows written."""
    table, out = _path("table", table), _path("out", out)
    _chomp3.transpose(table, out, _progress_bar("rows", progress))
    return Table(out)


def census(
    rows: int,
    out: Any,
    descriptors: Any = None,
    checkpoint: Any = None,
    checkpoint_secs: float = 300.0,
    threads: Optional[int] = None,
    replace: bool = False,
    progress: bool = True,
) -> dict:
    """Proves the fate of rows ``0..=rows`` without a table (the certified
    census of ``chomp3 census``) and writes ``out`` (census.tsv) and its
    descriptor file (default: ``out`` with suffix .c3d; open it with
    :class:`Census`). The GIL is released while it runs. A checkpoint (default:
    suffix .c3k) is saved every ``checkpoint_secs`` and on KeyboardInterrupt;
    the same call continues from it. Refuses to replace a census of more rows
    unless ``replace``."""
    constant, periodic, open_, columns = _chomp3.census(
        _count32("rows", rows),
        _path("out", out),
        None if descriptors is None else _path("descriptors", descriptors),
        None if checkpoint is None else _path("checkpoint", checkpoint),
        checkpoint_secs,
        None if threads is None else _count("threads", threads),
        replace,
        _progress_bar("columns", progress),
    )
    return {"constant": constant, "periodic": periodic, "open": open_, "columns": columns}


GraphLike = Union[str, Iterable, Any]


def _as_graph(g: GraphLike):
    """(vertex count, edges, labels) of a networkx graph, a graph6/sparse6
    string, or an edge list of integer pairs (vertices 0..max)."""
    if isinstance(g, (str, bytes)):
        text = g.decode() if isinstance(g, bytes) else g
        n, edges = _chomp3.parse_graph6(text)
        return n, edges, range(n)
    if hasattr(g, "nodes") and hasattr(g, "edges"):
        if getattr(g, "is_directed", lambda: False)():
            raise TypeError(
                "graph Chomp is played on undirected graphs; convert a directed one explicitly "
                "(g.to_undirected(), which merges u->v and v->u into one edge, or "
                "nx.MultiGraph(g), which keeps both)"
            )
        labels = list(g.nodes())
        index = {v: i for i, v in enumerate(labels)}
        edges = [(index[u], index[v]) for u, v in g.edges()]
        return len(labels), edges, labels
    try:
        edges = [(operator.index(u), operator.index(v)) for u, v in g]
    except (TypeError, ValueError):
        raise TypeError(
            "a graph is a networkx graph, a graph6/sparse6 string, or a list of (u, v) pairs "
            "of int vertices"
        ) from None
    if any(u < 0 or v < 0 for u, v in edges):
        raise ValueError("an edge list names a negative vertex")
    n = 1 + max((max(u, v) for u, v in edges), default=-1)
    if n > 2**63:
        raise ValueError(f"an edge list names vertex {n - 1}, past any graph chomp3 takes")
    # A range, not a list: the vertex count is checked by the library, and
    # an edge naming vertex 10**9 must not cost a list of that many labels.
    return n, edges, range(n)


def nim_value(g: GraphLike, memo: Optional[Memo] = None) -> int:
    """The nim-value of graph Chomp on ``g`` (delete a vertex with its edges, or
    an edge; loops and parallel edges allowed, as in ``chomp3 graph``)."""
    n, edges, _ = _as_graph(g)
    return _chomp3.nim_values([(n, edges)], memo)[0]


def nim_values(graphs: Iterable[GraphLike], memo: Optional[Memo] = None) -> list:
    """The nim-values of many graphs, solved in parallel with one shared memo
    (``memo``, or a new one for this call)."""
    if isinstance(graphs, (str, bytes)):
        raise TypeError(
            "nim_values takes an iterable of graphs; for one graph6/sparse6 string use "
            "nim_value, or pass [string]"
        )
    # graph6/sparse6 strings go to the library as they are (parsed there).
    batch = [g if isinstance(g, str) else _as_graph(g)[:2] for g in graphs]
    return _chomp3.nim_values(batch, memo if memo is not None else Memo())


def moves(g: GraphLike, memo: Optional[Memo] = None) -> list:
    """Every move of ``g`` and the value of the position it leaves, as
    ``(("vertex", v) or ("edge", u, v), value)`` in ``g``'s own labels; the
    winning moves are those of value 0."""
    n, edges, labels = _as_graph(g)
    out = []
    for (kind, u, v), value in _chomp3.moves(n, edges, memo):
        move = ("vertex", labels[u]) if kind == "vertex" else ("edge", labels[u], labels[v])
        out.append((move, value))
    return out


def os85(
    sources: Iterable[Any],
    subgraphs: bool = False,
    memo: Any = None,
    threads: Optional[int] = None,
) -> dict:
    """The check of [OS] Conjecture 8.5 (a graph with p(G) = 2 has an edge
    deletion to a position of value 0) over graph sources named as
    ``chomp3 graph`` names them: a family (``"wheel:3..9"``), ``"geng:N"``
    (every graph on N vertices, from nauty's ``nauty-geng``), or a
    graph6/sparse6 file; with ``subgraphs``, every subgraph of each graph.
    ``memo``: a memo file, read if it is there and saved at the end. Gives
    the exceptions, as ``(graph6, label, value)``, and the counts."""
    if isinstance(sources, (str, bytes, os.PathLike)):
        sources = [sources]
    names = [os.fsdecode(s) if isinstance(s, (bytes, os.PathLike)) else s for s in sources]
    if not all(isinstance(s, str) for s in names):
        raise TypeError("sources are strings: families, geng:N, or paths of graph6 files")
    memo = None if memo is None else _path("memo", memo)
    n = 0 if threads is None else _count("threads", threads)
    found, (graphs, parity_two, exceptions) = _chomp3.os85(names, bool(subgraphs), memo, n)
    return {
        "exceptions": found,
        "graphs": graphs,
        "parity_two": parity_two,
        "without_edge_to_zero": exceptions,
    }
