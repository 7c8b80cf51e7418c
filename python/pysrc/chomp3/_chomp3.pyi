"""Type stubs of the native module (see chomp3/__init__.py for the public API)."""

from os import PathLike
from typing import Callable, List, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

_Path = Union[str, PathLike]

class Error(ValueError):
    """A damaged or foreign file, or a question chomp3 cannot answer."""

class Table:
    """A table file (``chomp3 compute``), read with positional reads, or
    mapped when ``mapped`` is true."""

    def __init__(self, path: _Path, mapped: bool = False) -> None: ...
    @property
    def n(self) -> Optional[int]:
        """The table's N (None: no column yet)."""
    @property
    def by_rows(self) -> bool:
        """Whether the file stores the table by rows (chomp3 transpose)."""
    def __getitem__(self, key: Tuple[int, int]) -> int:
        """f(q, r) (for r > q, f(q, q))."""
    def row(
        self, r: int, start: Optional[int] = None, stop: Optional[int] = None
    ) -> npt.NDArray[np.uint32]:
        """f(q, r) for q in [start, stop) (default: the whole row)."""
    def column(self, q: int) -> npt.NDArray[np.uint32]:
        """f(q, r) for r = 0..=q."""
    def verify(self) -> None:
        """Reads every value and checks the data's checksum."""

class Census:
    def __init__(self, path: _Path) -> None: ...
    def __len__(self) -> int: ...
    def fate(self, r: int) -> Optional[dict]: ...
    def f(self, q: int, r: int) -> int: ...
    def _columns(
        self,
    ) -> Tuple[
        npt.NDArray[np.uint8], npt.NDArray[np.uint64], npt.NDArray[np.uint64], npt.NDArray[np.bool_]
    ]: ...

class Memo:
    """A memo of solved graph Chomp positions (``chomp3 graph --memo``)."""

    def __init__(self) -> None: ...
    @staticmethod
    def load(path: _Path) -> "Memo": ...
    def save(self, path: _Path, replace: bool = False) -> None: ...
    def __len__(self) -> int: ...

def lookup(
    q: int, r: int, table: Optional[str] = None, census: Optional[str] = None
) -> Tuple[int, str, str]: ...
def position(
    p: int, q: int, r: int, table: Optional[str] = None, census: Optional[str] = None
) -> Tuple[bool, List[Tuple[str, int, Tuple[int, int, int]]]]: ...
def grundy(p: int, q: int, r: int, max_seconds: float) -> Tuple[int, List[Tuple[Tuple[int, int, int], int]]]: ...
def grundy_lookup(
    p: int,
    q: int,
    r: int,
    table: Optional[str] = None,
    census: Optional[str] = None,
    census_loaded: Optional["GrundyCensus"] = None,
    rectangles: Optional[str] = None,
    max_seconds: float = 60.0,
    progress: Optional[Callable[[int, int], None]] = None,
) -> Tuple[int, str, str, List[str]]: ...

class GrundyCensus:
    def __init__(self, path: str) -> None: ...
    @property
    def path(self) -> str: ...
    @property
    def q_max(self) -> int: ...
    @property
    def patterns(self) -> bool: ...
    def __len__(self) -> int: ...
    def columns(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]: ...
    def lookup(
        self, p: int, q: int, r: int, max_seconds: float = 60.0
    ) -> Tuple[int, str, str, List[str]]: ...

class GrundyTable:
    def __init__(self, path: str) -> None: ...
    @property
    def n(self) -> Optional[int]: ...
    def get(self, p: int, q: int, r: int) -> int: ...
    def line(self, q: int, r: int, start: int, stop: int) -> np.ndarray: ...
    def verify(self) -> None: ...

def grundy_line(
    q: int, r: int, stop: int, progress: Optional[Callable[[int, int], None]] = None
) -> np.ndarray: ...
def grundy_table(
    n: int,
    path: str,
    capacity: Optional[int] = None,
    progress: Optional[Callable[[int, int], None]] = None,
) -> int: ...
def grundy_periods(
    lines: int,
    lag: int,
    bfiles: str,
    out: Optional[str] = None,
    checkpoint: Optional[str] = None,
    checkpoint_secs: float = 600.0,
    max_p: int = 1_000_000_000,
    partial: bool = False,
    replace: bool = False,
    progress: Optional[Callable[[int, int], None]] = None,
) -> Tuple[int, int]: ...
def grundy_census(
    lines: int,
    out: str,
    bfiles: Optional[str] = None,
    rectangles: Optional[int] = None,
    max_p: int = 10_000_000,
    replace: bool = False,
    progress: Optional[Callable[[int, int], None]] = None,
) -> Tuple[int, int]: ...
def transpose(
    path: str, out: str, progress: Optional[Callable[[int, int], None]] = None
) -> int:
    """Writes the table again stored by rows at out; returns its N."""

def compute(
    n: int,
    path: str,
    threads: Optional[int] = None,
    progress: Optional[Callable[[int, int], None]] = None,
) -> Optional[Tuple[Optional[int], int, int, float, int]]: ...
def census(
    rows: int,
    out: str,
    descriptors: Optional[str] = None,
    checkpoint: Optional[str] = None,
    checkpoint_secs: float = 300.0,
    threads: Optional[int] = None,
    replace: bool = False,
    progress: Optional[Callable[[int, int], None]] = None,
) -> Tuple[int, int, int, int]: ...
def parse_graph6(line: str) -> Tuple[int, List[Tuple[int, int]]]: ...
def nim_values(
    graphs: List[Union[str, Tuple[int, List[Tuple[int, int]]]]], memo: Optional[Memo] = None
) -> List[int]: ...
def moves(
    n: int, edges: List[Tuple[int, int]], memo: Optional[Memo] = None
) -> List[Tuple[Tuple[str, int, int], int]]: ...
def os85(
    sources: List[str],
    subgraphs: bool = False,
    memo: Optional[str] = None,
    threads: int = 0,
    progress: Optional[Callable[[int, int], None]] = None,
) -> Tuple[List[Tuple[str, str, int]], Tuple[int, int, int]]: ...
def _panic_for_test() -> None: ...
