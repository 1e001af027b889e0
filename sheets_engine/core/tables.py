"""The validated game state as tables, and the Draft that records every change made to it.

A ruleset's resolution is a pure function of a `GameState`: it works on a `Draft` (its own copy,
never shared), and hands back the new state with the list of `Change`s. The cell diff written
back to the store and the History rows both come from that one list.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
from pydantic import BaseModel


class NotTheEnginesColumn(Exception):
    """A rule tried to write a column that its tab's spec does not give to the engine (a defect)."""


@dataclass(frozen=True)
class TabSpec:
    """One tab of the contract: its name, row model, key column and who owns which columns."""

    name: str
    model: type[BaseModel] | None
    key: str | None = None  # None: rows are keyed by their sheet row number
    engine_columns: tuple[str, ...] = ()  # derived or engine-owned: recomputed, GM edits overwritten
    rule_columns: tuple[str, ...] = ()  # the game's state the rules change (a GM may edit them too)
    log: bool = False  # engine-written and append-only: not validated, its rows make no History
    headers: tuple[str, ...] = ()  # for log tabs (no model)
    optional: tuple[str, ...] = ()  # columns a workbook may lack: not reported when missing, read as empty
    written: bool = True  # False for tabs no rule ever writes (data tables, form responses)
    required: bool = True  # False: a workbook may lack the whole tab (read as empty; only for tabs never written)

    @property
    def writable(self) -> frozenset[str]:
        """The columns of its existing rows the engine may write: what the spec gives to the engine."""
        return frozenset(self.engine_columns) | frozenset(self.rule_columns)

    @property
    def columns(self) -> tuple[str, ...]:
        """The column headers, in sheet order."""
        if self.model is None:
            return self.headers
        return tuple(f.alias or name for name, f in self.model.model_fields.items())

    def dtypes(self) -> dict[str, str]:
        """The pandas dtype each column is held in (numbers and flags typed, the rest objects)."""
        return dict(_dtypes(self))

    def _dtypes(self) -> dict[str, str]:
        if self.model is None:
            return dict.fromkeys(self.headers, "object")
        kinds = {}
        numbers: dict[object, str] = {int: "int64", bool: "bool"}
        for name, info in self.model.model_fields.items():
            kinds[info.alias or name] = numbers.get(info.annotation, "object")
        return kinds


@functools.cache
def _dtypes(spec: TabSpec) -> dict[str, str]:
    return spec._dtypes()


@dataclass(frozen=True)
class Layout:
    """Where a tab sits in the store: its real title, header positions and last used row."""

    title: str
    columns: Mapping[str, int]  # canonical header -> 1-based column index
    last_row: int  # last row holding anything (1 = header only)
    width: int  # number of header cells in use


@dataclass(frozen=True)
class Change:
    """One cell changed by a rule: becomes one History row and one cell written."""

    tab: str
    key: Hashable
    column: str
    old: Any
    new: Any
    cause: str
    roll: str = ""


@dataclass(frozen=True)
class GameState:
    """Every tab of a campaign, typed: frames indexed by key, with the sheet row of each key."""

    specs: Mapping[str, TabSpec]
    tables: Mapping[str, pd.DataFrame]
    rows: Mapping[str, Mapping[Hashable, int]]
    layouts: Mapping[str, Layout] = field(default_factory=dict)
    # the cells of number and flag columns that were empty in the sheet (read as 0 or FALSE), by tab:
    # History says "empty" for them, so that a rollback puts an empty cell back, not a 0
    blanks: Mapping[str, Mapping[str, frozenset[Hashable]]] = field(default_factory=dict)  # tab -> column -> keys
    # tab -> column -> key -> the number a text column held as read (History records the cell as it was)
    numbers: Mapping[str, Mapping[str, Mapping[Hashable, int | float]]] = field(default_factory=dict)

    def frame(self, tab: str) -> pd.DataFrame:
        """The tab's frame (treat as read-only)."""
        return self.tables[tab]

    def game(self, key: str, default: Any = "") -> Any:
        """A value of the Game tab."""
        frame = self.tables["Game"]
        return frame.at[key, "Value"] if key in frame.index else default


def empty_frame(spec: TabSpec) -> pd.DataFrame:
    """A frame with the tab's columns and dtypes and no rows."""
    frame = pd.DataFrame({c: pd.Series(dtype=t) for c, t in spec.dtypes().items()})
    if spec.key:
        frame = frame.set_index(spec.key, drop=False)
        frame.index.name = None
    return frame


def _column_array(dtype: str, values: list[Any]) -> np.ndarray:
    """One typed column's values as the array a frame holds (text as objects, never numpy strings)."""
    return np.array(values, dtype=object) if dtype == "object" else np.array(values, dtype=dtype)


def frame_from_records(spec: TabSpec, records: list[dict[str, Any]], keys: list[Hashable]) -> pd.DataFrame:
    """A typed frame from validated rows, indexed by `keys`."""
    if not records:
        frame = empty_frame(spec)
        return frame
    columns = {}
    for column, dtype in spec.dtypes().items():
        values = [record.get(column) for record in records]
        columns[column] = _column_array(dtype, values)
    return pd.DataFrame(columns, index=pd.Index(keys, dtype="object"))


def frame_from_models(spec: TabSpec, models: list[Any], keys: list[Hashable]) -> pd.DataFrame:
    """As `frame_from_records`, from the validated row models themselves: each column read from their
    attributes (a model_dump of each row cost as much as building the frame, 10,000 Provinces rows)."""
    if not models:
        return empty_frame(spec)
    names = {info.alias or name: name for name, info in type(models[0]).model_fields.items()}
    rows = [model.__dict__ for model in models]
    columns = {}
    for column, dtype in spec.dtypes().items():
        name = names.get(column)
        values = [row[name] for row in rows] if name is not None else [None] * len(rows)
        columns[column] = _column_array(dtype, values)
    return pd.DataFrame(columns, index=pd.Index(keys, dtype="object"))


def plain_records(frame: pd.DataFrame, columns: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """The rows as dicts of plain values (what to_dict("records") gives), built column by column:
    pandas boxes each value of each row on its own, 0.2 s for 10,000 provinces."""
    names = list(frame.columns if columns is None else columns)
    return [dict(zip(names, values, strict=True)) for values in zip(*(frame[n].tolist() for n in names), strict=True)]


def _cast(dtype: str, value: Any) -> Any:
    if dtype == "int64":
        return int(value or 0)
    if dtype == "bool":
        return bool(value)
    return "" if value is None else value


class _Tab:
    """The draft's view of one tab: the frame as last flushed, plus cells set since."""

    def __init__(self, spec: TabSpec, frame: pd.DataFrame) -> None:
        self.spec = spec
        self.frame = frame
        self.dtypes = spec.dtypes()
        self.cells: dict[tuple[Hashable, str], Any] = {}
        self.new_rows: dict[Hashable, dict[str, Any]] = {}
        self._positions: dict[Hashable, int] | None = None
        self._arrays: dict[str, Any] = {}
        self._owned = False  # True once the frame is this draft's own copy

    def position(self, key: Hashable) -> int:
        if self._positions is None:
            self._positions = {k: i for i, k in enumerate(self.frame.index.tolist())}
        return self._positions[key]

    def has(self, key: Hashable) -> bool:
        if key in self.new_rows:
            return True
        if self._positions is None:
            self._positions = {k: i for i, k in enumerate(self.frame.index.tolist())}
        return key in self._positions

    def get(self, key: Hashable, column: str) -> Any:
        if (key, column) in self.cells:
            return self.cells[(key, column)]
        if key in self.new_rows:
            return self.new_rows[key][column]
        array = self._arrays.get(column)
        if array is None:
            array = self._arrays[column] = self.frame[column].to_numpy()
        return plain(array[self.position(key)])

    def flush(self) -> pd.DataFrame:
        """Apply the cells set and the rows added to the frame (column-wise, not cell by cell)."""
        if self.new_rows:
            keys = list(self.new_rows)
            added = frame_from_records(self.spec, list(self.new_rows.values()), keys)
            self.frame = added if self.frame.empty else pd.concat([self.frame, added])
            self._owned = True
            self.new_rows = {}
            self._positions = None
            self._arrays = {}
        if self.cells:
            if not self._owned:  # the first write copies the frame; later ones change the copy
                self.frame = self.frame.copy()
                self._owned = True
            frame = self.frame
            by_column: dict[str, tuple[list[int], list[Any]]] = {}
            for (key, column), value in self.cells.items():
                where, values = by_column.setdefault(column, ([], []))
                where.append(self.position(key))
                values.append(value)
            for column, (where, values) in by_column.items():
                array = frame[column].to_numpy(copy=True)
                array[where] = values
                dtype = self.dtypes.get(column, "object")
                if array.dtype == np.dtype(dtype):  # the usual case: no Series to build and align to the index
                    frame[column] = array
                else:
                    frame[column] = pd.Series(array, index=frame.index, dtype=dtype)
                self._arrays.pop(column, None)
            self.frame = frame
            self.cells = {}
        # the arrays of columns no cell was set in still hold the frame's values: a flush that changed
        # nothing (a rule reading a frame, 500 times an intake) keeps them for `get`
        return self.frame


class Draft:
    """A resolution's private working copy of the state; every `set` is recorded as a Change.

    Cells set are kept aside and applied to the frames column-wise when a frame is next read, so
    a phase may set many cells one by one without paying a pandas operation for each.
    """

    def __init__(self, state: GameState) -> None:
        self.state = state
        self._tabs = {name: _Tab(state.specs[name], frame) for name, frame in state.tables.items()}
        self._rows: dict[str, dict[Hashable, int]] = {t: dict(r) for t, r in state.rows.items()}
        self._next_row = {
            t: max([layout.last_row, *self._rows.get(t, {}).values()]) + 1 for t, layout in state.layouts.items()
        }
        self.changes: list[Change] = []
        self.logs: dict[str, list[dict[str, Any]]] = defaultdict(list)

    # reading -----------------------------------------------------------------
    def frame(self, tab: str) -> pd.DataFrame:
        """The tab as it stands now, with this draft's changes (treat as read-only)."""
        return self._tabs[tab].flush()

    def get(self, tab: str, key: Hashable, column: str) -> Any:
        """One cell as it stands now."""
        return self._tabs[tab].get(key, column)

    def row(self, tab: str, key: Hashable) -> dict[str, Any]:
        """One row as it stands now, as a dict of column -> value."""
        view = self._tabs[tab]
        return {column: view.get(key, column) for column in view.spec.columns}

    def has(self, tab: str, key: Hashable) -> bool:
        """True if the tab has a row with this key."""
        return self._tabs[tab].has(key)

    def game(self, key: str, default: Any = "") -> Any:
        """A value of the Game tab as it stands now."""
        return self.get("Game", key, "Value") if self.has("Game", key) else default

    # writing -----------------------------------------------------------------
    def set(self, tab: str, key: Hashable, column: str, value: Any, cause: str, roll: str = "") -> None:
        """Change one cell (no-op when the value is unchanged) and record why."""
        view = self._tabs[tab]
        value = _cast(view.dtypes.get(column, "object"), value)
        old = view.get(key, column)
        if _same(old, value):
            return
        if key in view.new_rows:
            view.new_rows[key][column] = value
        else:
            if column not in view.spec.writable:  # GMs' columns are never written, by any rule
                raise NotTheEnginesColumn(f"the engine may not write the {tab} tab's column '{column}'")
            view.cells[(key, column)] = value
        self.changes.append(Change(tab, key, column, old, value, cause, roll))

    def fill(self, tab: str, key: Hashable, column: str, cause: str) -> None:
        """Write the word the rules read into a cell the sheet holds empty (a typed Orders row's empty Status
        is read Pending), so that the sheet says it too; no-op for a cell that holds a value or was set."""
        view = self._tabs[tab]
        if key not in self.state.blanks.get(tab, {}).get(column, ()) or (key, column) in view.cells:
            return
        if column not in view.spec.writable:  # GMs' columns are never written, by any rule
            raise NotTheEnginesColumn(f"the engine may not write the {tab} tab's column '{column}'")
        value = view.get(key, column)
        view.cells[(key, column)] = value
        self.changes.append(Change(tab, key, column, "", value, cause))

    def set_column(self, tab: str, column: str, values: pd.Series, cause: str) -> None:
        """Set one column for many rows at once (values indexed by key); unchanged cells are skipped."""
        current = self.frame(tab)[column].reindex(values.index)  # the frame holds every cell set: flushed
        differs = values.to_numpy() != current.to_numpy()
        view = self._tabs[tab]
        dtype = view.dtypes.get(column, "object")
        writable = column in view.spec.writable
        cells, record = view.cells, self.changes.append
        keys = values.index[differs].tolist()
        # what `set` does for each differing cell, without its per-cell lookups (a derived column is 10,000 cells);
        # tolist() gives numbers and flags as plain Python values in one call, objects as they are
        news, olds = values.to_numpy()[differs], current.to_numpy()[differs]
        news = news.tolist() if news.dtype != object else [plain(v) for v in news]
        olds = olds.tolist() if olds.dtype != object else [plain(v) for v in olds]
        for key, new, old in zip(keys, news, olds, strict=True):
            value = _cast(dtype, new)
            if _same(old, value):
                continue
            if not writable:  # GMs' columns are never written, by any rule
                raise NotTheEnginesColumn(f"the engine may not write the {tab} tab's column '{column}'")
            cells[(key, column)] = value
            record(Change(tab, key, column, old, value, cause, ""))

    def add_row(self, tab: str, values: Mapping[str, Any], cause: str, roll: str = "") -> Hashable:
        """Append a row; each non-empty cell is recorded as a Change. Returns the row's key."""
        view = self._tabs[tab]
        spec = view.spec
        row_number = self._next_row.get(tab, 2)
        self._next_row[tab] = row_number + 1
        key: Hashable = values[spec.key] if spec.key else row_number
        self._rows.setdefault(tab, {})[key] = row_number
        full = {c: _cast(view.dtypes[c], values.get(c)) for c in spec.columns}
        view.new_rows[key] = full
        for column, value in full.items():
            if not _same(value, _cast(view.dtypes[column], None)):
                self.changes.append(Change(tab, key, column, "", value, cause, roll))
        return key

    def log(self, tab: str, values: Mapping[str, Any]) -> None:
        """Append a row to an engine-written log tab (Battles, Notifications)."""
        self.logs[tab].append(dict(values))

    def notify(self, turn: int, audience: str, channel: str, message: str) -> None:
        """Tell someone something (a Notifications row: what the Discord bot posted)."""
        self.log(
            "Notifications",
            {"Turn": turn, "Audience": audience, "Channel": channel, "Message": message},
        )

    def finish(self) -> GameState:
        """The new state, with every change applied."""
        tables = {name: view.flush() for name, view in self._tabs.items()}
        return replace(self.state, tables=tables, rows=self._rows)


def plain(value: Any) -> Any:
    """numpy scalars as plain Python values (for History and the stores); other values as they are."""
    return value.item() if hasattr(value, "item") else value


def _same(a: Any, b: Any) -> bool:
    a_blank = a is None or (isinstance(a, str) and a == "")
    b_blank = b is None or (isinstance(b, str) and b == "")
    if a_blank or b_blank:
        return a_blank and b_blank
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def collapse(changes: Iterable[Change]) -> list[Change]:
    """One Change per cell: the first old value, the last new value, every cause in order.

    The contract says every changed cell has exactly one History row; a cell changed twice in a
    turn (regenerated, then taxed) keeps both steps in its Cause. A cell that ends where it began
    did not change and is dropped.
    """
    # most cells change once (a first turn's 100,000 derived cells): a list only for those changed again
    firsts: dict[tuple[str, Hashable, str], Change] = {}
    again: dict[tuple[str, Hashable, str], list[Change]] = {}
    for change in changes:
        cell = (change.tab, change.key, change.column)
        if cell in firsts:
            again.setdefault(cell, [firsts[cell]]).append(change)
        else:
            firsts[cell] = change
    result = []
    for cell, first in firsts.items():
        steps = again.get(cell)
        if steps is None:
            if not _same(first.old, first.new):
                result.append(first)
            continue
        last = steps[-1]
        if _same(first.old, last.new):
            continue
        cause = "; ".join(f"{s.cause}: {_word(s.old)} -> {_word(s.new)}" for s in steps)
        roll = "; ".join(s.roll for s in steps if s.roll)
        result.append(Change(first.tab, first.key, first.column, first.old, last.new, cause, roll))
    return result


def _word(value: Any) -> str:
    if value is None or value == "":
        return "(empty)"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return str(value)
