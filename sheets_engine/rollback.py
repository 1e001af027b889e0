"""Rolling a campaign back to its state before turn N resolved, from History's old values.

A pure function of the tabs as read (`plan_rollback`), editing them in a `core.grid.Grid` (the cells
as the sheet holds them, so that an empty cell comes back empty); the unit of work commits its edits
and their History rows in one write. How it works:

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

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sheets_engine.core.cells import name_text, same_cell
from sheets_engine.core.grid import CellEdit, Grid
from sheets_engine.core.history import (
    Entry,
    HistoryError,
    paused_at,
    read_entries,
    rollback_cause,
    runs_to_undo,
    whole,
)
from sheets_engine.core.load import norm
from sheets_engine.core.ruleset import Outcome
from sheets_engine.core.store import RawTab
from sheets_engine.core.tables import TabSpec

# Cells a rollback keeps as they are: the cutoffs forced resolutions took, so that a turn resolved
# again takes the same orders (core/deadlines.py).
KEPT = {("Game", "cutoffs")}


class RollbackError(HistoryError):
    """The campaign cannot be rolled back as asked; says why and what to do."""


@dataclass
class Plan:
    """Every cell a rollback puts back, and what it undid."""

    turn: int
    edits: list[CellEdit] = field(default_factory=list)  # the cells restored, each with its History key and cause
    undone: int = 0  # History rows undone
    runs: list[str] = field(default_factory=list)  # the run ids undone, newest first
    edited: list[str] = field(default_factory=list)  # cells changed by hand since the engine wrote them
    cleared: dict[str, int] = field(default_factory=dict)  # log tab -> rows cleared

    @property
    def summary(self) -> dict[str, Any]:
        """Counts for the CLI."""
        return {
            "rolled back to before turn": self.turn,
            "runs undone": len(self.runs),
            "history rows undone": self.undone,
            "cells restored": len(self.edits),
            **{f"{tab} rows cleared": count for tab, count in self.cleared.items()},
            "cells edited since": len(self.edited),
        }

    def outcome(self) -> Outcome:
        """The rollback as the commit takes it: its cell edits, recorded in History at turn N, step rollback."""
        return Outcome.of_cells(self.edits, self.turn, {**self.summary, "edited": self.edited}, step="rollback")


def _spec(grid: Grid, tab: str) -> TabSpec:
    name = grid.tab(tab)
    spec = grid.spec(name) if name is not None else None
    if spec is None:
        raise RollbackError(f"History names a tab '{tab}' that the campaign does not have")
    return spec


def _index(grid: Grid, tab: str, column: str) -> int:
    index = grid.index(tab, column)
    if index is None:
        raise RollbackError(f"the {tab} tab has no column '{column}' any more; put it back to roll back")
    return index


def _row_of(grid: Grid, spec: TabSpec, key: str, entry: Entry) -> int:
    if not spec.key:
        number = whole(key.removeprefix("row ")) if key.startswith("row ") else None
        if number is None or number < 2:
            raise RollbackError(f"History row {entry.sheet_row}: '{key}' is not a row of the {spec.name} tab")
        return number
    _index(grid, spec.name, spec.key)
    row = grid.names(spec.name).get(name_text(key))
    if row is None:
        raise RollbackError(
            f"History row {entry.sheet_row} changed {spec.name} '{key}', which is no longer in the sheet; "
            "put the row back (or undo the turn by hand)"
        )
    return row


def game_turns(grid: Grid, keys: tuple[str, str] = ("turn", "last_resolved_turn")) -> tuple[int, int]:
    """The Game tab's run ledger: the turn (or season) to resolve next and the last one resolved."""
    values = {}
    for key in keys:
        row = grid.names("Game").get(key)
        number = whole(grid.get("Game", row, _index(grid, "Game", "Value"))) if row else None
        if number is None:
            raise RollbackError(f"the Game tab has no whole-number '{key}'")
        values[key] = number
    return values[keys[0]], values[keys[1]]


def plan_rollback(
    raw: Mapping[str, RawTab],
    specs: Iterable[TabSpec],
    turn: int,
    keys: tuple[str, str] = ("turn", "last_resolved_turn"),
) -> Plan:
    """Every cell to put back to return the campaign to where it stood before `turn` resolved.

    `keys` are the ruleset's ledger keys in the Game tab: the turn (or season) resolved next and the
    last one resolved."""
    grid = Grid(raw, specs)
    if grid.tab("Game") is None or grid.spec("Game") is None:
        raise RollbackError("the campaign has no Game tab")
    current, last = game_turns(grid, keys)
    unit = keys[0]
    if turn < 1:
        raise RollbackError(f"{unit} {turn}: {unit}s count from 1")
    try:
        entries = read_entries(raw)
    except HistoryError as error:
        raise RollbackError(str(error)) from None
    # a turn paused for the GM (a step of it resolved, the turn not yet complete) rolls back too
    paused_turn = turn == current and paused_at(raw, turn)
    if turn > last and not paused_turn:
        raise RollbackError(
            f"{unit} {turn} has not been resolved ({keys[1]} is {last}, {unit} is {current}): nothing to roll back"
        )
    plan = Plan(turn)
    cause = rollback_cause(turn)
    if entries and turn < entries[0].turn:
        first = entries[0].turn
        raise RollbackError(
            f"{unit} {turn} is older than History, which starts at {unit} {first} (older {unit}s were moved to "
            f"an archive by `sheets-engine archive`): the oldest {unit} a rollback can undo is {first}. "
            "Nothing was written"
        )
    try:
        undo = runs_to_undo(entries, turn)
    except HistoryError as error:
        raise RollbackError(str(error)) from None
    for run in undo:
        plan.runs.append(run[0].resolution)
        located = []
        for entry in run:  # a run's rows are found where they stand before any of them is undone
            spec = _spec(grid, entry.tab)
            if spec.log:
                continue  # log rows are cleared by their Turn below
            if (spec.name, norm(entry.key)) in KEPT:
                continue  # the run ledger: what the runs were, not what they changed
            row = _row_of(grid, spec, entry.key, entry)
            located.append((entry, spec, row, _index(grid, spec.name, entry.column)))
        for entry, spec, row, index in reversed(located):
            if not same_cell(grid.get(spec.name, row, index), entry.new):
                plan.edited.append(f"{spec.name} {entry.key} {entry.column}")
            grid.set(spec.name, row, index, entry.old, entry.key if spec.key else f"row {row}", cause)
            plan.undone += 1
    value = _index(grid, "Game", "Value")
    for key, number in ((keys[0], turn), (keys[1], turn - 1)):
        row = grid.names("Game")[key]
        if whole(grid.get("Game", row, value)) != number:
            grid.set("Game", row, value, str(number), key, cause)
    for spec in grid.specs.values():
        if spec.log and spec.name != "History" and grid.tab(spec.name) is not None:
            plan.cleared[spec.name] = _clear_log(grid, spec, turn, cause)
    plan.edits = grid.edits()
    return plan


def _clear_log(grid: Grid, spec: TabSpec, turn: int, cause: str) -> int:
    at = grid.index(spec.name, "Turn")
    if at is None:
        return 0
    cleared = 0
    for row in grid.rows(spec.name):
        number = whole(grid.get(spec.name, row, at))
        if number is None or number < turn:
            continue
        for column in spec.columns:
            index = grid.index(spec.name, column)
            if index is not None and not same_cell(grid.get(spec.name, row, index), None):
                grid.set(spec.name, row, index, "", f"row {row}", cause)
        cleared += 1
    return cleared
