"""Rolling a campaign back to its state before turn N resolved, from History's old values.

A pure function of the tabs as read (`plan_rollback`); the service layer writes its cells in one
write. How it works:

- History is read as runs (the rows of one resolution id, appended together; every row carries its
  run's id and the turn it belongs to). Walking back from the newest, every run of turn N or later
  is undone, cell by cell, newest first: resolutions, recalcs and the steps of a turn that paused
  alike, down to the newest run of an earlier turn.
- A run that was itself a rollback (every Cause reads "rollback to before turn M") is not undone:
  it had already undone every run of turn M or later before it, so the walk jumps over it and
  those runs. The result is the same, and rows it cleared need not be found.
- The Game key `cutoffs` (the cutoffs of forced resolutions) is kept: it records the runs rather
  than the game, and a turn resolved again takes its orders up to the same moment.
- Rows a turn appended (their History Old is empty) are cleared: every cell the engine filled goes
  back to empty, so the row is blank again and the next resolution appends in the same place.
- Log tabs (Battles, Notifications) make no History when written; their rows of turn N or later
  are cleared, so that resolving the turns again does not post every battle and message twice.
  The cleared text is kept in the rollback's own History rows.
- Game `turn` is set to N and `last_resolved_turn` to N-1, and every cell the rollback writes gets
  its History row: Turn N, cause "rollback to before turn N".
- A cell whose value is no longer the one the engine wrote (a GM edited it since) is restored all
  the same, and listed in the plan's `edited`, so that the CLI can say so.

Rows are found by their name in tabs with names, by their sheet row elsewhere ("row 12"): a GM who
inserted or deleted rows in the engine's tabs since turn N moves them, and `edited` says so.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sheets_engine.core.cells import name_text
from sheets_engine.core.load import norm
from sheets_engine.core.tables import Change, TabSpec
from sheets_engine.core.writeset import HISTORY_COLUMNS, HISTORY_OPTIONAL, Stamp, appended, history_record, read_history
from sheets_engine.stores.base import CellWrite, RawTab
from sheets_engine.stores.guard import same_value

CAUSE = "rollback to before turn {turn}"
# Cells a rollback keeps as they are: the cutoffs forced resolutions took, so that a turn resolved
# again takes the same orders (core/deadlines.py).
KEPT = {("Game", "cutoffs")}
_CAUSE = re.compile(r"^rollback to before turn (\d+)$")


class RollbackError(Exception):
    """The campaign cannot be rolled back as asked; says why and what to do."""


@dataclass(frozen=True)
class Entry:
    """One History row as read back."""

    sheet_row: int
    turn: int
    resolution: str
    tab: str
    key: str
    column: str
    old: Any
    new: Any
    cause: str


@dataclass(frozen=True)
class Restored:
    """One cell the rollback writes."""

    tab: str  # the tab's name in the contract
    title: str  # the tab's title in the store
    row: int
    column: str
    index: int  # 1-based column in the store
    key: str  # as History names the row
    old: Any  # the value now in the cell
    new: Any  # the value it goes back to


@dataclass
class Plan:
    """Everything a rollback writes, and what it undid."""

    turn: int
    restored: list[Restored] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    writes: list[CellWrite] = field(default_factory=list)
    undone: int = 0  # History rows undone
    runs: list[str] = field(default_factory=list)  # the resolution ids undone, newest first
    edited: list[str] = field(default_factory=list)  # cells changed by hand since the engine wrote them
    cleared: dict[str, int] = field(default_factory=dict)  # log tab -> rows cleared

    @property
    def changes(self) -> list[Change]:
        """The restored cells as Changes (as a resolution reports them)."""
        cause = CAUSE.format(turn=self.turn)
        return [Change(r.tab, r.key, r.column, r.old, r.new, cause) for r in self.restored]

    @property
    def summary(self) -> dict[str, Any]:
        """Counts for the CLI."""
        return {
            "rolled back to before turn": self.turn,
            "runs undone": len(self.runs),
            "history rows undone": self.undone,
            "cells restored": len(self.restored),
            **{f"{tab} rows cleared": count for tab, count in self.cleared.items()},
            "cells edited since": len(self.edited),
        }


def whole(value: Any) -> int | None:
    """A cell as a whole number (None if it is not one)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value.is_integer() else None
    text = str(value).strip()
    return int(text) if re.fullmatch(r"[+-]?\d+", text, re.ASCII) else None


class _Sheet:
    """The tabs as read, with the cells the rollback has set so far laid over them."""

    def __init__(self, raw: Mapping[str, RawTab], specs: Iterable[TabSpec]) -> None:
        by_title = {norm(title): tab for title, tab in raw.items()}
        self.specs = {spec.name: spec for spec in specs}
        self.tabs: dict[str, RawTab] = {}
        self.columns: dict[str, dict[str, int]] = {}
        self.cells: dict[str, dict[int, list[Any]]] = {}
        for name in self.specs:
            tab = by_title.get(norm(name))
            if tab is None:
                continue
            self.tabs[name] = tab
            self.columns[name] = {norm(h): i for i, h in enumerate(tab.header, start=1) if norm(h)}
            self.cells[name] = dict(tab.rows)
        self.overlay: dict[tuple[str, int, int], Any] = {}
        self.keys: dict[str, dict[str, int]] = {}  # tab -> name -> sheet row, as the overlay has them

    def spec(self, tab: str) -> TabSpec:
        name = next((n for n in self.specs if norm(n) == norm(tab)), None)
        if name is None or name not in self.tabs:
            raise RollbackError(f"History names a tab '{tab}' that the campaign does not have")
        return self.specs[name]

    def index(self, tab: str, column: str) -> int:
        index = self.columns[tab].get(norm(column))
        if index is None:
            raise RollbackError(f"the {tab} tab has no column '{column}' any more; put it back to roll back")
        return index

    def raw(self, tab: str, row: int, index: int) -> Any:
        cells = self.cells[tab].get(row, [])
        return cells[index - 1] if index <= len(cells) else None

    def get(self, tab: str, row: int, index: int) -> Any:
        return self.overlay.get((tab, row, index), self.raw(tab, row, index))

    def set(self, tab: str, row: int, index: int, value: Any) -> None:
        spec = self.specs[tab]
        if spec.key and index == self.index(tab, spec.key):  # a name changes: follow it
            names = self.names(tab)
            before = name_text(self.get(tab, row, index))
            if names.get(before) == row:
                del names[before]
            if name_text(value):
                names.setdefault(name_text(value), row)
        self.overlay[(tab, row, index)] = value

    def names(self, tab: str) -> dict[str, int]:
        if tab not in self.keys:
            spec = self.specs[tab]
            found: dict[str, int] = {}
            if spec.key:
                index = self.index(tab, spec.key)
                for row in self.cells[tab]:
                    found.setdefault(name_text(self.raw(tab, row, index)), row)
            self.keys[tab] = found
        return self.keys[tab]

    def row_of(self, tab: str, key: str, entry: Entry) -> int:
        spec = self.specs[tab]
        if not spec.key:
            number = whole(key.removeprefix("row ")) if key.startswith("row ") else None
            if number is None or number < 2:
                raise RollbackError(f"History row {entry.sheet_row}: '{key}' is not a row of the {tab} tab")
            return number
        row = self.names(tab).get(name_text(key))
        if row is None:
            raise RollbackError(
                f"History row {entry.sheet_row} changed {tab} '{key}', which is no longer in the sheet; "
                "put the row back (or undo the turn by hand)"
            )
        return row


def read_entries(raw: Mapping[str, RawTab]) -> list[Entry]:
    """Every History row, oldest first."""
    sheet = next((t for title, t in raw.items() if norm(title) == "history"), None)
    if sheet is None:
        raise RollbackError("the campaign has no History tab: there is nothing to roll back from")
    at = {norm(h) for h in sheet.header}
    missing = [c for c in HISTORY_COLUMNS if norm(c) not in at and c not in HISTORY_OPTIONAL]
    if missing:
        raise RollbackError(f"the History tab has no column {', '.join(missing)}")
    entries = []
    for number, row in read_history(sheet):
        turn = whole(row["Turn"])
        if turn is None:
            raise RollbackError(f"History row {number}: Turn {row['Turn']!r} is not a turn number")
        text = {c: name_text(row[c]) for c in ("Resolution", "Tab", "Key", "Column", "Cause")}
        entries.append(
            Entry(number, turn, text["Resolution"], text["Tab"], text["Key"], text["Column"], row["Old"],
                  row["New"], text["Cause"])
        )  # fmt: skip
    return entries


def runs(entries: Sequence[Entry]) -> list[list[Entry]]:
    """History cut into runs: consecutive rows of one resolution id."""
    found: list[list[Entry]] = []
    for entry in entries:
        if found and found[-1][0].resolution == entry.resolution and entry.resolution:
            found[-1].append(entry)
        else:
            found.append([entry])
    return found


def rolled_back_to(run: Sequence[Entry]) -> int | None:
    """M if this run was a rollback to before turn M."""
    targets = {m.group(1) for e in run if (m := _CAUSE.match(e.cause))}
    if len(targets) == 1 and all(_CAUSE.match(e.cause) for e in run):
        return int(targets.pop())
    return None


def runs_to_undo(entries: Sequence[Entry], turn: int) -> list[list[Entry]]:
    """The runs to undo, newest first: every run of `turn` or later (History's Turn), paused steps and
    recalcs included, back to the newest run of an earlier turn. A rollback run is jumped over with
    the runs it undid."""
    found = runs(entries)
    undo = []
    i = len(found) - 1
    while i >= 0:
        run = found[i]
        target = rolled_back_to(run)
        if target is not None:
            i = _before_rollback(found, i, target)
            continue
        if run[0].turn < turn:
            break
        undo.append(run)
        i -= 1
    if not any(run[0].turn == turn for run in undo):
        raise RollbackError(
            f"History holds no resolution of turn {turn} (no run of turn {turn} after the runs of earlier "
            "turns); was History edited? Nothing was written"
        )
    return undo


def _before_rollback(found: Sequence[Sequence[Entry]], at: int, target: int) -> int:
    """The index of the newest run that the rollback at `at` (to before turn `target`) did not undo."""
    i = at - 1
    while i >= 0:
        earlier = rolled_back_to(found[i])
        if earlier is not None:
            i = _before_rollback(found, i, earlier)
            continue
        if found[i][0].turn < target:
            return i
        i -= 1
    if not any(run[0].turn == target for run in found[:at]):
        raise RollbackError(
            f"History row {found[at][0].sheet_row} records a rollback to before turn {target}, but History "
            f"holds no resolution of turn {target} before it"
        )
    return i


def game_turns(sheet: _Sheet, keys: tuple[str, str] = ("turn", "last_resolved_turn")) -> tuple[int, int]:
    """The Game tab's run ledger: the turn (or season) to resolve next and the last one resolved."""
    values = {}
    for key in keys:
        row = sheet.names("Game").get(key)
        number = whole(sheet.get("Game", row, sheet.index("Game", "Value"))) if row else None
        if number is None:
            raise RollbackError(f"the Game tab has no whole-number '{key}'")
        values[key] = number
    return values[keys[0]], values[keys[1]]


def plan_rollback(
    raw: Mapping[str, RawTab],
    specs: Iterable[TabSpec],
    turn: int,
    stamp: Stamp,
    keys: tuple[str, str] = ("turn", "last_resolved_turn"),
) -> Plan:
    """Every cell to write to put the campaign back as it was before `turn` resolved.

    `keys` are the ruleset's ledger keys in the Game tab: the turn (or season) resolved next and the
    last one resolved."""
    sheet = _Sheet(raw, specs)
    if "Game" not in sheet.tabs:
        raise RollbackError("the campaign has no Game tab")
    current, last = game_turns(sheet, keys)
    unit = keys[0]
    if turn < 1:
        raise RollbackError(f"{unit} {turn}: {unit}s count from 1")
    entries = read_entries(raw)
    # a turn paused for the GM (a step of it resolved, the turn not yet complete) rolls back too
    paused_turn = turn == current and _has_step(raw, turn)
    if turn > last and not paused_turn:
        raise RollbackError(
            f"{unit} {turn} has not been resolved ({keys[1]} is {last}, {unit} is {current}): nothing to roll back"
        )
    plan = Plan(turn)
    names: dict[tuple[str, int, int], str] = {}
    if entries and turn < entries[0].turn:
        first = entries[0].turn
        raise RollbackError(
            f"{unit} {turn} is older than History, which starts at {unit} {first} (older {unit}s were moved to "
            f"an archive by `sheets-engine archive`): the oldest {unit} a rollback can undo is {first}. "
            "Nothing was written"
        )
    for run in runs_to_undo(entries, turn):
        plan.runs.append(run[0].resolution)
        located = []
        for entry in run:  # a run's rows are found where they stand before any of them is undone
            spec = sheet.spec(entry.tab)
            if spec.log:
                continue  # log rows are cleared by their Turn below
            if (spec.name, norm(entry.key)) in KEPT:
                continue  # the run ledger: what the runs were, not what they changed
            row = sheet.row_of(spec.name, entry.key, entry)
            located.append((entry, spec.name, row, sheet.index(spec.name, entry.column)))
        for entry, tab, row, index in reversed(located):
            if not same_value(sheet.get(tab, row, index), entry.new):
                plan.edited.append(f"{tab} {entry.key} {entry.column}")
            sheet.set(tab, row, index, entry.old)
            names[(tab, row, index)] = entry.key if sheet.specs[tab].key else f"row {row}"
            plan.undone += 1
    value = sheet.index("Game", "Value")
    for key, number in ((keys[0], turn), (keys[1], turn - 1)):
        row = sheet.names("Game")[key]
        if whole(sheet.get("Game", row, value)) != number:
            sheet.set("Game", row, value, str(number))
            names[("Game", row, value)] = key
    for spec in sheet.specs.values():
        if spec.log and spec.name != "History" and spec.name in sheet.tabs:
            plan.cleared[spec.name] = _clear_log(sheet, spec, turn, names)
    _finish(plan, sheet, names, stamp)
    return plan


def _has_step(raw: Mapping[str, RawTab], turn: int) -> bool:
    """Does History hold a step of `turn` that was neither a whole turn nor a recalc, check or rollback
    (the first run of a turn that paused for the GM)?"""
    sheet = next((t for title, t in raw.items() if norm(title) == "history"), None)
    if sheet is None:
        return False
    whole_runs = {"", "turn", "recalc", "rollback", "check"}
    return any(
        whole(row["Turn"]) == turn and name_text(row["Step"]) not in whole_runs for _, row in read_history(sheet)
    )


def _clear_log(sheet: _Sheet, spec: TabSpec, turn: int, names: dict[tuple[str, int, int], str]) -> int:
    at = sheet.columns[spec.name].get(norm("Turn"))
    if at is None:
        return 0
    cleared = 0
    for row in sheet.cells[spec.name]:
        number = whole(sheet.get(spec.name, row, at))
        if number is None or number < turn:
            continue
        for column in spec.columns:
            index = sheet.columns[spec.name].get(norm(column))
            if index is not None and not same_value(sheet.get(spec.name, row, index), None):
                sheet.set(spec.name, row, index, "")
                names[(spec.name, row, index)] = f"row {row}"
        cleared += 1
    return cleared


def _finish(plan: Plan, sheet: _Sheet, names: Mapping[tuple[str, int, int], str], stamp: Stamp) -> None:
    order = {name: i for i, name in enumerate(sheet.specs)}
    headers = {name: {i: h for h, i in sheet.columns[name].items()} for name in sheet.tabs}
    for tab, row, index in sorted(sheet.overlay, key=lambda c: (order[c[0]], c[1], c[2])):
        new, old = sheet.overlay[(tab, row, index)], sheet.raw(tab, row, index)
        if same_value(old, new):
            continue
        column = next((c for c in sheet.specs[tab].columns if norm(c) == headers[tab][index]), headers[tab][index])
        title = sheet.tabs[tab].title
        plan.restored.append(Restored(tab, title, row, column, index, names[(tab, row, index)], old, new))
        plan.writes.append(CellWrite(title, row, index, "" if new is None else new))
    cause = CAUSE.format(turn=plan.turn)
    plan.history = [history_record(stamp, r.tab, r.key, r.column, r.old, r.new, cause) for r in plan.restored]
    if not plan.history:
        return
    if "History" not in sheet.tabs:
        raise RollbackError("the campaign has no History tab to record the rollback in")
    history = sheet.tabs["History"]
    at = {
        column: sheet.index("History", column)
        for column in HISTORY_COLUMNS
        if column not in HISTORY_OPTIONAL or norm(column) in sheet.columns["History"]
    }
    plan.writes += appended(history.title, history.last_row, at, plan.history)
