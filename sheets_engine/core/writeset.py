"""From changes to cells: the one write a run makes (its History rows are core.history's)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from itertools import chain
from operator import itemgetter
from typing import Any

from sheets_engine.core.store import CellWrite, RowsAppended, Write
from sheets_engine.core.tables import Change, GameState, collapse, plain


def cell_writes(
    state: GameState,
    changes: list[Change],
    logs: Mapping[str, list[dict[str, Any]]],
) -> list[Write]:
    """Every cell to write: the changed cells, then the rows appended to log tabs (one `RowsAppended` each)."""
    writes: list[Write] = []
    layouts, numbers = state.layouts, state.rows
    add = writes.append
    for c in changes:  # a first turn's 100,000 cells at 10,000 provinces: plain values skip plain()
        layout, new = layouts[c.tab], c.new
        value = new if type(new) in _PLAIN else plain(new)
        add(CellWrite(layout.title, numbers[c.tab][c.key], layout.columns[c.column], value))
    for tab, rows in logs.items():
        if rows:
            layout = layouts[tab]
            # History's rows hold plain values already (core.history); other log rows may hold numpy ones
            writes.append(appended_rows(layout.title, layout.last_row, layout.columns, rows, uniform=tab == "History"))
    return writes


def appended_rows(
    title: str, last_row: int, columns: Mapping[str, int], rows: Sequence[Mapping[str, Any]], uniform: bool = False
) -> RowsAppended:
    """Rows appended below `last_row` of a log tab, as one write (a column the tab lacks is left out).

    With `uniform`, the rows are History's (core.history.history_record's): the same columns in every
    row, plain Python values (no numpy scalars to convert)."""
    if uniform and rows:
        names = [name for name in rows[0] if name in columns]
    else:
        names = [name for name in dict.fromkeys(name for row in rows for name in row) if name in columns]
    if uniform and len(names) > 1 and all(len(row) == len(names) for row in rows):
        # every row has exactly these columns: all of a row's values in one C-level call
        values = list(map(itemgetter(*names), rows))
    else:
        values = [tuple(plain(row.get(name)) for name in names) for row in rows]
    return RowsAppended(title, last_row + 1, tuple(columns[name] for name in names), values)


def final_changes(changes: Iterable[Change]) -> list[Change]:
    """The changes as they will be written: one per cell, net of steps that cancel out."""
    return collapse(changes)


_PLAIN = frozenset({int, str, float, bool, type(None)})


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
