"""From changes to cells: the one write a run makes, and the History rows that explain it."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, replace
from itertools import chain
from operator import itemgetter
from typing import Any

from sheets_engine.core.store import CellWrite, RawTab, RowsAppended, Write
from sheets_engine.core.tables import Change, GameState, collapse

HISTORY_COLUMNS = (
    "Turn",
    "Resolution",
    "At",
    "Tab",
    "Key",
    "Column",
    "Old",
    "New",
    "Cause",
    "Roll",
    "Step",
)
# A History tab laid out before runs had steps has no Step column: it is written where the header has it.
HISTORY_OPTIONAL = ("Step",)


@dataclass(frozen=True)
class Stamp:
    """Which run made a change: the turn, the resolution id, the UTC time and the step of the turn."""

    turn: int
    resolution: str
    at: str
    step: str = "turn"  # turn (a whole turn), a phase of a turn that pauses, recalc or rollback


def history_key(state: GameState, tab: str, key: Hashable) -> str:
    """The History `Key` of a row: its name, or `row N` in tabs without names."""
    return str(key) if state.specs[tab].key else f"row {key}"


def history_rows(state: GameState, changes: Iterable[Change], stamp: Stamp) -> list[dict[str, Any]]:
    """One History row per changed cell (changes already collapsed).

    Old is the cell as the sheet held it: an empty cell that the rules read as 0 or FALSE is
    recorded empty, so that a rollback leaves it empty again.
    """
    blanks = state.blanks
    return [
        history_record(
            stamp,
            c.tab,
            history_key(state, c.tab, c.key),
            c.column,
            "" if c.key in blanks.get(c.tab, {}).get(c.column, ()) else _out(c.old),
            _out(c.new),
            c.cause,
            c.roll,
        )
        for c in changes
    ]  # fmt: skip


def history_record(
    stamp: Stamp, tab: str, key: str, column: str, old: Any, new: Any, cause: str, roll: str = ""
) -> dict[str, Any]:
    """The one History row model: every run, resolution, recalc or rollback, writes its rows so."""
    return {
        "Turn": stamp.turn,
        "Resolution": stamp.resolution,
        "At": stamp.at,
        "Tab": tab,
        "Key": key,
        "Column": column,
        "Old": old,
        "New": new,
        "Cause": cause,
        "Roll": roll,
        "Step": stamp.step,
    }


def cell_writes(
    state: GameState,
    changes: list[Change],
    logs: Mapping[str, list[dict[str, Any]]],
) -> list[Write]:
    """Every cell to write: the changed cells, then the rows appended to log tabs (one `RowsAppended` each)."""
    writes: list[Write] = []
    layouts, numbers = state.layouts, state.rows
    add = writes.append
    for c in changes:  # a first turn's 100,000 cells at 10,000 provinces: plain values skip _out
        layout, new = layouts[c.tab], c.new
        value = new if type(new) in _PLAIN else _out(new)
        add(CellWrite(layout.title, numbers[c.tab][c.key], layout.columns[c.column], value))
    for tab, rows in logs.items():
        if rows:
            layout = layouts[tab]
            # History's rows hold plain values already (history_rows); other log rows may hold numpy ones
            writes.append(appended_rows(layout.title, layout.last_row, layout.columns, rows, plain=tab == "History"))
    return writes


def appended_rows(
    title: str, last_row: int, columns: Mapping[str, int], rows: list[Mapping[str, Any]], plain: bool = False
) -> RowsAppended:
    """Rows appended below `last_row` of a log tab, as one write (a column the tab lacks is left out).

    With `plain`, the rows are History's (history_record's): the same columns in every row, plain
    Python values (no numpy scalars to convert)."""
    if plain and rows:
        names = [name for name in rows[0] if name in columns]
    else:
        names = [name for name in dict.fromkeys(name for row in rows for name in row) if name in columns]
    if plain and len(names) > 1 and all(len(row) == len(names) for row in rows):
        # every row has exactly these columns: all of a row's values in one C-level call
        values = list(map(itemgetter(*names), rows))
    else:
        values = [tuple(_out(row.get(name)) for name in names) for row in rows]
    return RowsAppended(title, last_row + 1, tuple(columns[name] for name in names), values)


def appended(
    title: str, last_row: int, columns: Mapping[str, int], rows: Iterable[Mapping[str, Any]]
) -> list[CellWrite]:
    """The cells of rows appended below `last_row` of a log tab (History, Battles...); empty cells are not written."""
    writes = []
    for offset, row in enumerate(rows, start=1):
        for column, value in row.items():
            if value is None or value == "" or column not in columns:  # an optional column the tab lacks
                continue
            writes.append(CellWrite(title, last_row + offset, columns[column], _out(value)))
    return writes


def read_history(tab: RawTab) -> list[tuple[int, dict[str, Any]]]:
    """History as read back: each row's sheet number and its cells by History column (None if absent).

    Header matching ignores case and spaces, as for every tab; a GM's own columns are not read."""
    positions = {" ".join(str(h or "").split()).casefold(): i for i, h in enumerate(tab.header)}
    rows = []
    for number, cells in tab.rows:
        row = {}
        for column in HISTORY_COLUMNS:
            i = positions.get(column.casefold())
            row[column] = cells[i] if i is not None and i < len(cells) else None
        rows.append((number, row))
    return rows


def final_changes(changes: Iterable[Change]) -> list[Change]:
    """The changes as they will be written: one per cell, net of steps that cancel out."""
    return collapse(changes)


_PLAIN = frozenset({int, str, float, bool, type(None)})


def _out(value: Any) -> Any:
    if hasattr(value, "item"):
        value = value.item()
    return value


def fit(value: Any, limit: int | None) -> Any:
    """Text cut to a cell's limit with a marker saying so (other values as they are).

    Player text is capped at intake (orders.MAX_TEXT), so only copies of it grow past a store's
    limit: History's Old, New and Cause, a Notification quoting a letter.
    """
    if limit is None or not isinstance(value, str) or len(value) <= limit:
        return value
    marker = f" [... cut: {len(value):,} characters in all]"
    return value[: limit - len(marker)] + marker


def fit_cells(writes: list[Write], limit: int | None) -> list[Write]:
    """The writes with every text cell within the store's limit (no cell over it is ever written)."""
    if limit is None:
        return writes
    return [_fit_rows(w, limit) if isinstance(w, RowsAppended) else _fit_cell(w, limit) for w in writes]


def _fit_cell(write: CellWrite, limit: int) -> CellWrite:
    value = write.value
    return write if not isinstance(value, str) or len(value) <= limit else replace(write, value=fit(value, limit))


def _fit_rows(write: RowsAppended, limit: int) -> RowsAppended:
    def long(row: tuple[Any, ...]) -> bool:
        return any(isinstance(v, str) and len(v) > limit for v in row)

    # History repeats its texts row after row: each distinct value is looked at once (the set is built in C)
    try:
        distinct: Iterable[Any] = set(chain.from_iterable(write.rows))
    except TypeError:  # a value that cannot be hashed: look at every cell
        distinct = chain.from_iterable(write.rows)
    if not any(isinstance(value, str) and len(value) > limit for value in distinct):
        return write
    rows = [tuple(fit(v, limit) for v in row) if long(row) else row for row in write.rows]
    return replace(write, rows=rows)
