"""Core's port to storage: what every store offers (one read of every tab, one write of a set of
cells) and the errors a store raises. The stores (sheets_engine.stores) implement it; core and the
rulesets never import a store."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class RawTab:
    """A tab as read: its title, header cells and data rows with their sheet row numbers."""

    title: str
    header: list[Any]
    rows: list[tuple[int, list[Any]]]  # (sheet row number, cells aligned with header)
    last_row: int  # the last row holding anything at all (1 when only the header)
    # (sheet row, 1-based column) -> what the store knows that a value does not say (workbooks only):
    errors: dict[tuple[int, int], str] = field(default_factory=dict)  # an error cell: "#DIV/0!"
    formulas: dict[tuple[int, int], Formula] = field(default_factory=dict)  # a cell holding a formula


class TabsRead(dict[str, RawTab]):
    """The tabs a read gave, by title, and the title of every tab the spreadsheet has, read or not.

    A read with `only` leaves a GM's own tabs unread; their titles still come (a workbook lists its
    sheets' names for nothing), so that a tab the engine misses is answered with the nearest one
    the spreadsheet has: a GM's `Armys` is the Armies tab misspelled.
    """

    def __init__(self, tabs: Mapping[str, RawTab], titles: Iterable[str] | None = None) -> None:
        super().__init__(tabs)
        self.titles: tuple[str, ...] = tuple(tabs if titles is None else titles)


def every_title(tabs: Mapping[str, RawTab]) -> tuple[str, ...]:
    """The title of every tab of the spreadsheet `tabs` was read from (those read, when the store does not say)."""
    return tabs.titles if isinstance(tabs, TabsRead) else tuple(tabs)


@dataclass(frozen=True)
class Formula:
    """A formula cell as the workbook holds it: its text, and whether a value was computed for it."""

    text: str  # "=B2*2"
    computed: bool  # False: saved by a program that does not calculate; the value read is empty


@dataclass(frozen=True)
class CellWrite:
    """One cell to write. Text is always written as text, never as a formula."""

    tab: str  # the tab's title as it stands in the store
    row: int  # 1-based
    column: int  # 1-based
    value: Any


@dataclass(frozen=True)
class RowsAppended:
    """Whole rows appended below a log tab's last row (History, Battles...), written as rows, not cells.

    History rows are most of what a turn writes (nine cells in ten on a first turn): one object for
    them all spares a `CellWrite` per cell. Row i is sheet row `first_row + i`; its values line up
    with `columns` (1-based sheet columns); an empty value (None or "") is not written.
    """

    tab: str  # the tab's title as it stands in the store
    first_row: int
    columns: tuple[int, ...]
    rows: list[tuple[Any, ...]]

    def cells(self) -> list[CellWrite]:
        """The same writes as single cells (for a store without a faster way)."""
        columns = self.columns
        return [
            CellWrite(self.tab, number, columns[i], value)
            for number, row in enumerate(self.rows, start=self.first_row)
            for i, value in enumerate(row)
            if value is not None and value != ""
        ]  # fmt: skip

    def __len__(self) -> int:
        """The cells written (empty values are not)."""
        return sum(1 for row in self.rows for value in row if value is not None and value != "")


Write = CellWrite | RowsAppended


def as_cells(writes: Sequence[Write]) -> list[CellWrite]:
    """The writes as single cells, appended rows expanded."""
    cells: list[CellWrite] = []
    for write in writes:
        if isinstance(write, RowsAppended):
            cells += write.cells()
        else:
            cells.append(write)
    return cells


def cells_written(writes: Sequence[Write]) -> int:
    """How many cells these writes set."""
    return sum(len(w) if isinstance(w, RowsAppended) else 1 for w in writes)


@dataclass(frozen=True)
class Choice:
    """A closed column's dropdown, as a ruleset gives it: fixed words, or the rows of a (tab, column)."""

    tab: str
    columns: tuple[str, ...]
    words: tuple[str, ...] = ()
    source: tuple[str, str] | None = None  # (tab, column) whose rows list the choices (a GM may add rows)


class StoreError(Exception):
    """The store could not be read or written; says what to do next."""


class StoreUnavailable(Exception):
    """The store did not answer within bounded retries; nothing more was sent (exit 1: try later)."""


class Store(Protocol):
    """A campaign spreadsheet: the local workbook or a Google Sheet."""

    name: str

    def exists(self) -> bool:
        """True if there is a spreadsheet to read."""
        ...

    def read(self, headers_only: Collection[str] = (), only: Collection[str] | None = None) -> dict[str, RawTab]:
        """Every tab, in one read.

        Tabs named in `headers_only` (any case) come back with their header and last row only: a
        resolution appends to History and never reads it, and History grows every turn. With
        `only`, a store may leave out the tabs not named there (a GM's own tabs are never read).
        """
        ...

    def write(self, cells: Sequence[Write]) -> None:
        """Write these cells (and appended rows) all at once: either every one lands or none does."""
        ...

    def create(self, tabs: dict[str, list[list[Any]]], overwrite: bool = False, choices: Sequence[Choice] = ()) -> None:
        """Lay out a new campaign: each tab's rows (header first), with dropdowns for the ruleset's `choices`
        where the store has them."""
        ...
