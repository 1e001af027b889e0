"""The History model, the one of every ruleset: its columns, how a run writes its rows, and how they are
read back as runs (by `history`, `explain`, `rollback` and `archive`).

Every run that changes cells (a resolution or one step of a paused turn, a recalc, a check, a rollback,
`remind`, `form sync`, `map --save-layout`) appends one History row per changed cell, all with the
run's id (Resolution), its turn and its step. Old is the cell as the sheet held it, an empty cell
recorded empty, so that a rollback puts back exactly what was there. Read back, consecutive rows of
one id are one run; a rollback's run is recognised by its causes ("rollback to before turn N").
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from sheets_engine.core.cells import name_text
from sheets_engine.core.load import norm
from sheets_engine.core.store import RawTab
from sheets_engine.core.tables import Change, GameState, TabSpec, collapse, plain

if TYPE_CHECKING:
    from sheets_engine.core.lifecycle import Outcome

HISTORY = "History"
HISTORY_COLUMNS = ("Turn", "Resolution", "At", "Tab", "Key", "Column", "Old", "New", "Cause", "Roll", "Step")
# A History tab laid out before runs had steps has no Step column: it is written where the header has it.
HISTORY_OPTIONAL = ("Step",)
PRINTED = ("Turn", "Tab", "Key", "Column", "Old", "New", "Cause", "Roll")  # what `history` and `explain` show
# The steps of runs that are not part of a turn that paused: a turn standing at one of its own steps is paused.
WHOLE_RUNS = frozenset({"", "turn", "recalc", "rollback", "check"})
ROLLBACK_CAUSE = "rollback to before turn {turn}"
_ROLLBACK = re.compile(r"^rollback to before turn (\d+)$")


class HistoryError(Exception):
    """History cannot be read as runs (a Turn that is not a number, a column missing); says what to do."""


def history_spec() -> TabSpec:
    """The History tab of a ruleset's schema: engine-written, append-only."""
    return TabSpec(HISTORY, None, log=True, headers=HISTORY_COLUMNS, optional=HISTORY_OPTIONAL)


@dataclass(frozen=True)
class Stamp:
    """Which run made a change: the turn, the run's id, the UTC time and the step of the turn."""

    turn: int
    resolution: str
    at: str
    step: str = "turn"  # turn (a whole turn), a phase of a turn that pauses, recalc, check, rollback...


def history_key(state: GameState, tab: str, key: Hashable) -> str:
    """The History `Key` of a row: its name, or `row N` in tabs without names."""
    return str(key) if state.specs[tab].key else f"row {key}"


def history_record(
    stamp: Stamp, tab: str, key: str, column: str, old: Any, new: Any, cause: str, roll: str = ""
) -> dict[str, Any]:
    """One History row: every run writes its rows so."""
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


def history_rows(state: GameState, changes: Iterable[Change], stamp: Stamp) -> list[dict[str, Any]]:
    """One History row per changed cell (changes already collapsed).

    Old is the cell as the sheet held it: an empty cell that the rules read as 0, FALSE or a default
    word is recorded empty, and a number in a text column as that number, so that a rollback puts
    back exactly what was there.
    """
    blanks, numbers = state.blanks, state.numbers
    return [
        history_record(
            stamp,
            c.tab,
            history_key(state, c.tab, c.key),
            c.column,
            _as_read(c, blanks, numbers),
            plain(c.new),
            c.cause,
            c.roll,
        )
        for c in changes
    ]  # fmt: skip


def period_rows(outcome: Outcome, stamp: Stamp) -> list[dict[str, Any]]:
    """The History rows of a run that played on through a period's close: each period's changes (collapsed
    within it) stamped with that period's turn and step and a run id of its own, the run's id and the period
    (`abc123-4`), so that `rollback` undoes the last period alone and, run again, the one before it."""
    rows: list[dict[str, Any]] = []
    for period in outcome.periods:
        own = replace(stamp, turn=period.turn, resolution=f"{stamp.resolution}-{period.turn}", step=period.step)
        rows += history_rows(period.state, collapse(period.changes), own)
    return rows


def as_written(state: GameState, changes: Iterable[Change]) -> GameState:
    """The state a period left, as the next period played in the same run reads it: the cells it changed
    no longer count as empty or as a text column's number (their History Old is what the period wrote)."""
    touched: dict[str, set[tuple[str, Hashable]]] = {}
    for change in changes:
        touched.setdefault(change.tab, set()).add((change.column, change.key))
    if not touched:
        return state
    blanks = {
        tab: {column: keys - {k for c, k in touched.get(tab, ()) if c == column} for column, keys in columns.items()}
        for tab, columns in state.blanks.items()
    }  # fmt: skip
    numbers = {
        tab: {column: {k: v for k, v in held.items() if (column, k) not in touched.get(tab, set())}
              for column, held in columns.items()}
        for tab, columns in state.numbers.items()
    }  # fmt: skip
    return replace(state, blanks=blanks, numbers=numbers)


def _as_read(
    change: Change,
    blanks: Mapping[str, Mapping[str, frozenset[Hashable]]],
    numbers: Mapping[str, Mapping[str, Mapping[Hashable, int | float]]],
) -> Any:
    """The cell a change replaced, as the sheet held it: empty where the rules read a default, the number a
    text column held (its text is what the rules read), else the value."""
    if change.key in blanks.get(change.tab, {}).get(change.column, ()):
        return ""
    held = numbers.get(change.tab, {}).get(change.column, {})
    return held[change.key] if change.key in held else plain(change.old)


def find_history(raw: Mapping[str, RawTab]) -> RawTab | None:
    """The History tab of a read (its title in any case), if there is one."""
    return next((tab for title, tab in raw.items() if norm(title) == "history"), None)


def read_rows(tab: RawTab) -> list[tuple[int, dict[str, Any]]]:
    """History as read back: each row's sheet number and its cells by History column (None if absent).

    Header matching ignores case and spaces, as for every tab; a GM's own columns are not read."""
    positions = {norm(h): i for i, h in enumerate(tab.header)}
    at = [(column, positions.get(norm(column))) for column in HISTORY_COLUMNS]
    rows = []
    for number, cells in tab.rows:
        rows.append((number, {c: cells[i] if i is not None and i < len(cells) else None for c, i in at}))
    return rows


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


@dataclass(frozen=True)
class Entry:
    """One History row as read back, for walking the runs."""

    sheet_row: int
    turn: int
    resolution: str
    tab: str
    key: str
    column: str
    old: Any
    new: Any
    cause: str


def read_entries(raw: Mapping[str, RawTab]) -> list[Entry]:
    """Every History row, oldest first. HistoryError when there is no History or a row cannot be read."""
    sheet = find_history(raw)
    if sheet is None:
        raise HistoryError("the campaign has no History tab: there is nothing to roll back from")
    at = {norm(h) for h in sheet.header}
    missing = [c for c in HISTORY_COLUMNS if norm(c) not in at and c not in HISTORY_OPTIONAL]
    if missing:
        raise HistoryError(f"the History tab has no column {', '.join(missing)}")
    entries = []
    for number, row in read_rows(sheet):
        turn = whole(row["Turn"])
        if turn is None:
            raise HistoryError(f"History row {number}: Turn {row['Turn']!r} is not a turn number")
        text = {c: name_text(row[c]) for c in ("Resolution", "Tab", "Key", "Column", "Cause")}
        entries.append(
            Entry(number, turn, text["Resolution"], text["Tab"], text["Key"], text["Column"], row["Old"],
                  row["New"], text["Cause"])
        )  # fmt: skip
    return entries


def runs(entries: Sequence[Entry]) -> list[list[Entry]]:
    """History cut into runs: consecutive rows of one run id."""
    found: list[list[Entry]] = []
    for entry in entries:
        if found and found[-1][0].resolution == entry.resolution and entry.resolution:
            found[-1].append(entry)
        else:
            found.append([entry])
    return found


def rollback_cause(turn: int) -> str:
    """The Cause of every History row a rollback to before `turn` writes."""
    return ROLLBACK_CAUSE.format(turn=turn)


def rolled_back_to(run: Sequence[Entry]) -> int | None:
    """M if this run was a rollback to before turn M."""
    targets = {m.group(1) for e in run if (m := _ROLLBACK.match(e.cause))}
    if len(targets) == 1 and all(_ROLLBACK.match(e.cause) for e in run):
        return int(targets.pop())
    return None


def runs_to_undo(entries: Sequence[Entry], turn: int) -> list[list[Entry]]:
    """The runs to undo, newest first: every run of `turn` or later (History's Turn), paused steps and
    recalcs included, back to the newest run of an earlier turn. A rollback run is jumped over with
    the runs it undid (it had undone them already)."""
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
        raise HistoryError(
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
        raise HistoryError(
            f"History row {found[at][0].sheet_row} records a rollback to before turn {target}, but History "
            f"holds no resolution of turn {target} before it"
        )
    return i


def paused_at(raw: Mapping[str, RawTab], turn: int) -> bool:
    """Does History hold a step of `turn` that was not a whole run (the first run of a turn that paused)?"""
    sheet = find_history(raw)
    if sheet is None:
        return False
    return any(whole(row["Turn"]) == turn and name_text(row["Step"]) not in WHOLE_RUNS for _, row in read_rows(sheet))
