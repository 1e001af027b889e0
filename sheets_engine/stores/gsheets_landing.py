"""Did a write whose answer was lost land? Judged from what a read finds. No I/O here.

A `spreadsheets.batchUpdate` is applied whole or not at all ("All Sheets requests are applied
atomically", developers.google.com/sheets/api/limits). When its answer is lost (a timeout, a 5xx, a
dropped connection) the store reads back the cells it wrote, the grids it grew and the tabs it
deleted, once Google is done with the request, and `judge` says which of three things is true:
- everything the write sets is there: it landed (the run is done);
- nothing it sets is there, and everything it relies on is as first read: it did not land, and
  sending it again is what the guard would allow;
- anything else (a GM edited a cell the write set, or one it was about to set, or changed a grid):
  the differences, for a ConflictError; nothing more is written.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from sheets_engine.core.names import plural
from sheets_engine.stores.guard import Cell, Conflict, Reshaped, same_value

LANDED = "landed"
NOT_LANDED = "not landed"
State = tuple[Any, str | None]  # a cell's (value, formula text or None)


@dataclass
class Expected:
    """What a write changes: each target cell's value before (as read: `before`, asked only when an
    answer is lost) and after, each written tab's grid before and after, and the tabs it deletes."""

    after: Mapping[Cell, Any]
    before: Callable[[Cell], State]
    grids_before: Mapping[str, tuple[int, int]]
    grids_after: Mapping[str, tuple[int, int]]
    deleted: Collection[int] = field(default_factory=tuple)  # sheet ids


def judge(
    expected: Expected,
    grids_now: Mapping[str, tuple[int, int] | None],
    sheet_ids_now: Collection[int],
    cells_now: Mapping[Cell, State],
) -> str | list[Conflict | Reshaped]:
    """LANDED, NOT_LANDED, or what matches neither (see the module docstring).

    `grids_now` has each written tab's grid as read back (None: no tab of that id any more);
    `cells_now` the targets read back (a cell outside the grid now is absent, and empty).
    """
    landed = all(grids_now.get(t) == size for t, size in expected.grids_after.items())
    landed = landed and not any(i in sheet_ids_now for i in expected.deleted)
    untouched = all(grids_now.get(t) == size for t, size in expected.grids_before.items())
    untouched = untouched and all(i in sheet_ids_now for i in expected.deleted)
    odd: list[Conflict | Reshaped] = []
    for cell in sorted(expected.after):
        value, formula = cells_now.get(cell, (None, None))
        new = formula is None and same_value(value, expected.after[cell])
        was_value, was_formula = expected.before(cell)
        old = formula == was_formula and same_value(value, was_value)
        landed, untouched = landed and new, untouched and old
        if not new and not old:
            odd.append(Conflict(cell[0], cell[1], cell[2], was_value, value if formula is None else formula))
    if landed:
        return LANDED
    if untouched:
        return NOT_LANDED
    for tab in sorted(expected.grids_after):
        now = grids_now.get(tab)
        if now is None:
            odd.insert(0, Reshaped(tab, "no tab has this name any more (renamed or deleted)"))
        elif now not in (expected.grids_before[tab], expected.grids_after[tab]):
            was, will = expected.grids_before[tab], expected.grids_after[tab]
            odd.insert(
                0,
                Reshaped(
                    tab,
                    f"its grid was {was[0]} rows x {was[1]} columns and the write makes it {will[0]} x {will[1]}, "
                    f"now {now[0]} x {now[1]} (rows or columns inserted, deleted or added)",
                ),
            )
    if not odd:  # the cells are one way and the grids or the tabs deleted the other
        odd.append(Reshaped(sorted(expected.grids_after)[0] if expected.grids_after else "the spreadsheet",
                            "part of the write is there and part is not"))  # fmt: skip
    return odd


def lost_message(store: str, failure: str, changes: list[Conflict | Reshaped]) -> str:
    """The ConflictError message of a lost answer whose read-back found neither outcome."""
    shown = "; ".join(str(c) for c in changes[:5])
    more = f" and {len(changes) - 5} more" if len(changes) > 5 else ""
    return (
        f"Google's answer to the write to {store} was lost ({failure}), and reading it back found it neither "
        f"whole nor absent: someone changed what it writes ({plural(len(changes), 'change')}: {shown}{more}). Nothing "
        "more was written. Run the command again: it reads what is there (History shows what the engine wrote)."
    )
