"""chomp3 from Python: exact three-rowed Chomp and graph Chomp.

A thin layer over the chomp3 Rust library (the same code as the ``chomp3``
command). Three-rowed Chomp: :class:`Table` (a table file made by
``chomp3 compute`` or :func:`compute`), :class:`Census` (a census descriptor
file made by ``chomp3 census``), :func:`f` (one value with ``chomp3 get``'s
source rule), :func:`position` and :func:`nim` (Sprague-Grundy values), :func:`compute`
and :func:`census` to make the files.
Graph Chomp: :func:`nim_value`, :func:`nim_values`, :func:`moves` and
:class:`Memo`.

Errors: a missing file raises ``FileNotFoundError``; a damaged or foreign file,
or a question the data cannot answer, raises :class:`Error` (a ``ValueError``),
with the command line's one-line message.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any, Iterable, Optional, Union

import numpy as np

from . import _chomp3
from ._chomp3 import Error, Memo, Table

__all__ = [
    "Error",
    "Table",
    "Census",
    "Memo",
    "f",
    "position",
    "nim",
    "compute",
    "census",
    "nim_value",
    "nim_values",
    "moves",
]
__version__ = "0.1.0"

_CLASSES = np.array(["constant", "periodic", "open"])


class Census:
    """A certified census (``census.c3d``): every row's proved fate.

    ``c.fate(r)`` is a dict (class, start, period, pattern, how it is known) or
    None for an open row; ``c.f(q, r)`` answers for any ``q`` up to 2**63 from
    the row's proved fate; ``c.rows()`` is every row as a numpy structured array
    (a pandas DataFrame with ``as_frame=True``).
    """

    def __init__(self, path: Any) -> None:
        self._inner = _chomp3.Census(str(path))
        self.path = str(path)

    def __len__(self) -> int:
        return len(self._inner)

    def __repr__(self) -> str:
        return f"Census({self.path!r}, rows 0..{len(self) - 1})"

    def fate(self, r: int) -> Optional[dict]:
        """Row ``r``'s fate: class ('constant' or 'periodic'), start, period
        (None for a constant row), pattern (f(q,r) - q over one period from
        the start), start_is_bound, and known (how it is proved); None if open."""
        return self._inner.fate(r)

    def f(self, q: int, r: int) -> int:
        """f(q, r) from row min(q, r)'s proved fate (q at or past its start)."""
        return self._inner.f(q, r)

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

            return pd.DataFrame(out)
        return out


def f(q: int, r: int, table: Any = None, census: Any = None, explain: bool = False):
    """f(q, r) by the source rule of ``chomp3 get``: the table where it reaches
    (default ``data/table.c3t``), else the census (default ``data/census.c3d``,
    used only if it exists when not named). With ``explain=True`` returns
    ``(value, source)`` where source is the ``--explain`` line."""
    value, _kind, source = _chomp3.lookup(
        q, r, None if table is None else str(table), None if census is None else str(census)
    )
    return (value, source) if explain else value


def position(p: int, q: int, r: int, table: Any = None) -> dict:
    """Whether [p,q,r] is lost for the player to move, and its winning moves
    ``(row, column, (p, q, r) after)``, from a table (default data/table.c3t)."""
    lost, winning = _chomp3.position(p, q, r, None if table is None else str(table))
    return {"lost": lost, "won": not lost, "winning_moves": winning}


def nim(
    p: int,
    q: int,
    r: int,
    options: bool = False,
    grundy_table: Any = None,
    grundy_census: Any = None,
    explain: bool = False,
):
    """The Sprague-Grundy value G(p,q,r) of three-rowed Chomp by the source
    rule of ``chomp3 nim``: a Grundy table (``chomp3 grundy-table``) or a
    Grundy census file (``chomp3 grundy-census --out``; or a census of
    periods and starts, ``chomp3 grundy-periods --out``, by which p is reduced
    by the line's period and the rest computed) where named and where it
    covers the position, else computed by the Grundy sweep (about
    q**2 * p / 2 steps); a named file that does not cover it is passed over
    with a warning. With ``explain=True`` returns ``(value, source)``, source
    being the ``source:`` line. With ``options=True`` (computed only, no file
    named) returns ``(value, [((p', q', r'), value), ...])`` for every move."""
    if options:
        if grundy_table is not None or grundy_census is not None or explain:
            raise Error("nim: options=True computes every move; it names no file and explains nothing")
        value, opts = _chomp3.grundy(p, q, r)
        return value, opts
    value, _kind, source, passed = _chomp3.grundy_lookup(
        p,
        q,
        r,
        None if grundy_table is None else str(grundy_table),
        None if grundy_census is None else str(grundy_census),
    )
    for note in passed:
        warnings.warn(note, stacklevel=2)
    return (value, source) if explain else value


def _progress_bar(total_label: str, enabled: bool):
    """A callback ``(done, total)`` drawing a bar: tqdm when installed, else a
    line on stderr; a no-op when disabled."""
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        tqdm = None
    state: dict = {}

    def update(done: int, total: int) -> None:
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

    return update


def compute(n: int, path: Any, threads: Optional[int] = None, progress: bool = True):
    """Creates the table ``path`` or extends it to ``N = n`` (the GIL is
    released while it runs). KeyboardInterrupt commits the columns done, as
    Ctrl-C does: compute again to continue. Returns a dict of what was done,
    or None when the table already held ``n``; then open it with ``Table``."""
    done = _chomp3.compute(n, str(path), threads, _progress_bar("cells", progress))
    if done is None:
        return None
    from_n, to_n, cells, seconds, size = done
    return {"from_n": from_n, "n": to_n, "cells": cells, "seconds": seconds, "bytes": size}


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
        rows,
        str(out),
        None if descriptors is None else str(descriptors),
        None if checkpoint is None else str(checkpoint),
        checkpoint_secs,
        threads,
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
        return n, edges, list(range(n))
    if hasattr(g, "nodes") and hasattr(g, "edges"):
        labels = list(g.nodes())
        index = {v: i for i, v in enumerate(labels)}
        edges = [(index[u], index[v]) for u, v in g.edges()]
        return len(labels), edges, labels
    try:
        edges = [(int(u), int(v)) for u, v in g]
    except (TypeError, ValueError):
        raise TypeError(
            "a graph is a networkx graph, a graph6/sparse6 string, or a list of (u, v) pairs"
        ) from None
    if any(u < 0 or v < 0 for u, v in edges):
        raise Error("an edge list names a negative vertex")
    n = 1 + max((max(u, v) for u, v in edges), default=-1)
    return n, edges, list(range(n))


def nim_value(g: GraphLike, memo: Optional[Memo] = None) -> int:
    """The nim-value of graph Chomp on ``g`` (delete a vertex with its edges, or
    an edge; loops and parallel edges allowed, as in ``chomp3 graph``)."""
    n, edges, _ = _as_graph(g)
    return _chomp3.nim_values([(n, edges)], memo)[0]


def nim_values(graphs: Iterable[GraphLike], memo: Optional[Memo] = None) -> list:
    """The nim-values of many graphs, solved in parallel with one shared memo
    (``memo``, or a new one for this call)."""
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
