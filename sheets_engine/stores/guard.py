"""The lost-update guard: the cells about to be overwritten must still hold what was read.

GMs edit the spreadsheet while the cron job runs. A store that can be edited behind its back
remembers the values of its first read; just before writing it re-reads the target cells and hands
both to `find_conflicts`. Any difference aborts the write (`ConflictError`), so a GM's edit is
never silently overwritten: the next run reads it and resolves on top of it. A cell's state may
carry its formula (`find_conflicts` with `formulas`): a GM who types `=B2*2` where the engine read 6,
and the formula computes 6, has still changed the cell.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sheets_engine.core.names import noun
from sheets_engine.stores.base import StoreError

Cell = tuple[str, int, int]  # (tab title, 1-based row, 1-based column)


@dataclass(frozen=True)
class Conflict:
    """One cell that changed between the first read and the write."""

    tab: str
    row: int
    column: int
    read: Any  # what the first read found
    now: Any  # what the re-read found

    def __str__(self) -> str:
        return f"{self.tab}!{column_letter(self.column)}{self.row}: was {_show(self.read)}, now {_show(self.now)}"


@dataclass(frozen=True)
class Reshaped:
    """A change to a tab's shape between the first read and the write: rows or columns inserted,
    deleted or added, the tab renamed or removed. Every cell the write relies on may have moved."""

    tab: str
    what: str  # e.g. "its grid was 33 rows x 26 columns, now 34 x 26"

    def __str__(self) -> str:
        return f"{self.tab}: {self.what}"


class ConflictError(StoreError):
    """Someone changed what the engine was about to write over (cells, rows, columns, the tab, the
    file); nothing was written. The CLI's exit code 3."""

    def __init__(
        self, conflicts: Sequence[Conflict | Reshaped], store: str = "the spreadsheet", message: str | None = None
    ) -> None:
        self.conflicts = list(conflicts)
        if message is None:
            shown = "; ".join(str(c) for c in conflicts[:5])
            more = f" and {len(conflicts) - 5} more" if len(conflicts) > 5 else ""
            unit = noun(len(conflicts), "cell" if all(isinstance(c, Conflict) for c in conflicts) else "change")
            message = (
                f"{store} changed while the engine was working ({len(conflicts)} {unit}: {shown}{more}). "
                "Nothing was written. Run the command again: it will read the new values."
            )
        super().__init__(message)


def same_value(a: Any, b: Any) -> bool:
    """Equal as a spreadsheet shows them: empty is empty, 5 is 5.0."""
    if _blank(a) or _blank(b):
        return _blank(a) and _blank(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


def find_conflicts(
    expected: Mapping[Cell, Any],
    current: Mapping[Cell, Any],
    formulas: tuple[Mapping[Cell, str], Mapping[Cell, str]] | None = None,
) -> list[Conflict]:
    """Every cell whose current value differs from the one first read (cells in sheet order).

    With `formulas` (the formulas first read, those read now), a cell whose formula appeared,
    went or changed differs too; it shows as the formula's text.
    """
    found = []
    before, after = formulas or ({}, {})
    for cell in sorted(expected):
        now = current.get(cell)
        was_formula, now_formula = before.get(cell), after.get(cell)
        if was_formula != now_formula:
            shown_was = expected[cell] if was_formula is None else was_formula
            found.append(Conflict(cell[0], cell[1], cell[2], shown_was, now if now_formula is None else now_formula))
        elif not same_value(expected[cell], now):
            found.append(Conflict(cell[0], cell[1], cell[2], expected[cell], now))
    return found


@dataclass(frozen=True)
class Shape:
    """What a write relies on in one tab besides its own cells: the tab's title, its grid size, its
    header row and its column A (where each row's key is: Province, Army, Character...)."""

    title: str
    rows: int  # the grid's rowCount
    columns: int  # the grid's columnCount
    header: tuple[Any, ...]
    keys: tuple[Any, ...]  # column A, row `keys_from` first
    keys_from: int = 1  # a long log tab (History) is compared from near its end only: its grid size covers the rest
    sheet_id: int | None = None  # the tab's id (Google): the same title on another tab is another tab


def find_reshapes(read: Shape, now: Shape | None) -> list[Conflict | Reshaped]:
    """How a tab changed shape between the first read and the re-read (empty if it did not).

    A row or column inserted or deleted anywhere changes the grid's size; rows added at the end
    (to type below a full grid) too; a row moved changes column A; a column moved, the header.
    """
    if now is None:
        return [Reshaped(read.title, "no tab has this name any more (renamed or deleted)")]
    found: list[Conflict | Reshaped] = []
    if read.sheet_id is not None and now.sheet_id is not None and now.sheet_id != read.sheet_id:
        return [Reshaped(read.title, "deleted, and another tab now has its name")]
    if now.title != read.title:
        found.append(Reshaped(read.title, f"renamed to '{now.title}'"))
    if (now.rows, now.columns) != (read.rows, read.columns):
        found.append(
            Reshaped(
                read.title,
                f"its grid was {read.rows} rows x {read.columns} columns, now {now.rows} x {now.columns} "
                "(rows or columns inserted, deleted or added)",
            )
        )
    for column in range(1, max(len(read.header), len(now.header)) + 1):
        was, is_ = _at(read.header, column), _at(now.header, column)
        if not same_value(was, is_):
            found.append(Conflict(read.title, 1, column, was, is_))
    if read.keys == now.keys and read.keys_from == now.keys_from:
        return found  # the usual case, compared at C speed (a 10,000-row tab re-read every run)
    for position in range(1, max(len(read.keys), len(now.keys)) + 1):
        row = read.keys_from + position - 1
        was, is_ = _at(read.keys, position), _at(now.keys, position)
        if row >= 2 and not same_value(was, is_):
            found.append(Conflict(read.title, row, 1, was, is_))
    return found


def _at(values: tuple[Any, ...], position: int) -> Any:
    return values[position - 1] if position <= len(values) else None


def column_letter(column: int) -> str:
    """1 -> A, 27 -> AA: the column's name in A1 notation (gspread's, imported when needed: the
    workbook path reports conflicts too, and should not pay for loading gspread on every run)."""
    from gspread.utils import rowcol_to_a1

    return rowcol_to_a1(1, column)[:-1]


def _blank(value: Any) -> bool:
    return value is None or value == ""


def _show(value: Any) -> str:
    return "empty" if _blank(value) else repr(value)
