"""The Google store's guard against Google: the re-read before a write, and the read-back after a
write whose answer was lost.

`changes` re-reads, in one spreadsheets.get, the cells a write overwrites and each written tab's
header row, column A, grid size, id and title, and lists every difference from the read (guard.py).
`send_guarded` sends a write; if its answer is lost it waits until Google is done with the request,
reads back, and lets gsheets_landing decide: done, sent again (nothing landed, the guard still holds),
or a ConflictError (anything else). A write is never sent again without that read.
"""

from __future__ import annotations

import time
from typing import Any

from sheets_engine.core.names import plural
from sheets_engine.stores.base import StoreError
from sheets_engine.stores.gsheets_http import AnswerLost, SheetsUnavailable, describe
from sheets_engine.stores.gsheets_landing import LANDED, NOT_LANDED, Expected, judge, lost_message
from sheets_engine.stores.gsheets_layout import a1_range
from sheets_engine.stores.gsheets_plan import rectangles
from sheets_engine.stores.gsheets_read import quote_title
from sheets_engine.stores.gsheets_session import Seen, SheetsSession, refused_with, shape_of, size_of
from sheets_engine.stores.guard import Cell, Conflict, ConflictError, Reshaped, Shape, find_conflicts, find_reshapes

Verdict = str | list[Conflict | Reshaped]


def guard(session: SheetsSession, seen: Seen, targets: list[Cell]) -> None:
    """Raise ConflictError if the sheet is no longer the one read, for these cells and their tabs."""
    found = changes(session, seen, targets, sorted({cell[0] for cell in targets}))
    if found:
        raise ConflictError(found, session.name)


def changes(session: SheetsSession, seen: Seen, cells: list[Cell], tabs: list[str]) -> list[Conflict | Reshaped]:
    """Every difference between the sheet now (one re-read) and the last read, on these cells and tabs."""
    current, shapes = snapshot(session, seen, cells, tabs)
    found: dict[Any, Conflict | Reshaped] = {}
    for tab in tabs:
        for change in find_reshapes(seen.shape(tab), shapes.get(tab)):
            found[(change.tab, change.row, change.column) if isinstance(change, Conflict) else change] = change
    if not any(isinstance(c, Reshaped) for c in found.values()):
        # a cell the re-read did not ask for is past the grid as read: empty then, and (the grid unchanged) now
        read = {cell: seen.known(cell) for cell in current}
        formulas = (
            {cell: f for cell, (_, f) in read.items() if f is not None},
            {cell: f for cell, (_, f) in current.items() if f is not None},
        )
        values = {cell: state[0] for cell, state in current.items()}
        for conflict in find_conflicts({c: s[0] for c, s in read.items()}, values, formulas):
            found.setdefault((conflict.tab, conflict.row, conflict.column), conflict)
    return sorted(found.values(), key=_in_sheet_order)


def snapshot(
    session: SheetsSession, seen: Seen, cells: list[Cell], tabs: list[str]
) -> tuple[dict[Cell, tuple[Any, str | None]], dict[str, Shape | None]]:
    """One spreadsheets.get: the current state of these cells and the shape of these tabs.

    Only cells inside the grids as read are asked for (a range past a grid is refused; a GM who adds
    rows to type below it changes the grid's size, which the shape shows). Should Google refuse the
    ranges (a tab renamed or deleted, a grid shrunk under them), the metadata says what changed.
    """
    sizes = {t: size_of(p) for t, p in (seen.sheets or {}).items()}
    inside = [c for c in cells if c[1] <= sizes.get(c[0], (0, 0))[0] and c[2] <= sizes.get(c[0], (0, 0))[1]]
    asked = [a1_range(*box) for box in rectangles(inside)]
    for tab in tabs:
        start = seen.windows.get(tab, 1)
        asked.append(f"{quote_title(tab)}!1:1")
        if start <= sizes.get(tab, (0, 0))[0]:  # (a grid of one row, its header, has no column A below it)
            asked.append(f"{quote_title(tab)}!A{start}:A" if start > 1 else f"{quote_title(tab)}!A:A")
    try:
        grids = session.get(asked)
    except StoreError as error:
        if not refused_with(error, 400):
            raise
        return {}, shapes_from_metadata(session, seen, tabs, error)
    by_id = {g.properties.get("sheetId"): g for g in grids.values()}
    shapes: dict[str, Shape | None] = {}
    for tab in tabs:
        grid = by_id.get((seen.sheets or {}).get(tab, {}).get("sheetId"))
        shapes[tab] = None if grid is None else shape_of(grid, seen.windows.get(tab, 1))
    current = {c: grids[c[0]].state((c[1], c[2])) if c[0] in grids else (None, None) for c in inside}
    return current, shapes


def shapes_from_metadata(
    session: SheetsSession, seen: Seen, tabs: list[str], refusal: StoreError
) -> dict[str, Shape | None]:
    """After Google refused the guard's ranges: each tab's shape from the metadata (id, title, grid).
    If none changed, the refusal stands (exit 2 with Google's words)."""
    now = {props["sheetId"]: props for props in session.properties()[0].values()}
    shapes: dict[str, Shape | None] = {}
    changed = False
    for tab in tabs:
        props = now.get((seen.sheets or {}).get(tab, {}).get("sheetId"))
        was = seen.shape(tab)
        if props is None:
            shapes[tab], changed = None, True
            continue
        rows, columns = size_of(props)
        shapes[tab] = Shape(props["title"], rows, columns, was.header, was.keys, was.keys_from, props["sheetId"])
        changed = changed or (props["title"], rows, columns) != (tab, was.rows, was.columns)
    if not changed:
        raise refusal
    return shapes


def send_guarded(session: SheetsSession, seen: Seen, requests: list[dict[str, Any]], expected: Expected) -> None:
    """Send a guarded write; if its answer is lost, read back and decide (see the module docstring)."""
    from gspread.exceptions import APIError

    policy = session.client.retry
    failure = ""
    for attempt in range(1, policy.attempts + 1):
        try:
            session.client.send_write(session.key, {"requests": requests})
            return
        except AnswerLost as lost:
            failure, verdict = lost.failure, read_back(session, seen, expected, lost)
        except APIError as error:
            if attempt == 1:
                raise StoreError(session.explain("write", error)) from error
            # refused when sent again: the first may have landed after all
            failure, verdict = describe(error), read_back(session, seen, expected, None)
            if verdict is NOT_LANDED:
                raise StoreError(session.explain("write", error)) from error
        if verdict is LANDED:
            return
        if not isinstance(verdict, str):  # neither all nor none landed: what differs, named
            raise ConflictError(verdict, session.name, lost_message(session.name, failure, verdict))
        if attempt < policy.attempts:
            policy.sleep(policy.delay(attempt, None))
    raise SheetsUnavailable(
        f"Google Sheets did not apply the write to {session.name} ({failure}) after "
        f"{plural(policy.attempts, 'attempt')}; "
        "each was read back and found not applied. Nothing was written. Try again later."
    )


def read_back(session: SheetsSession, seen: Seen, expected: Expected, lost: AnswerLost | None) -> Verdict:
    """What the spreadsheet holds now of a write whose answer was lost (gsheets_landing.judge)."""
    policy = session.client.retry
    if lost is not None and not lost.replied:  # it may still be processing: wait until it cannot be
        policy.sleep(max(0.0, lost.sent_at + policy.settle - time.monotonic()))
    sheets, leftovers = session.properties()
    now = {props["sheetId"]: props for props in sheets.values()}
    grids_now: dict[str, tuple[int, int] | None] = {}
    for tab in expected.grids_before:
        props = now.get((seen.sheets or {}).get(tab, {}).get("sheetId"))
        grids_now[tab] = None if props is None or props["title"] != tab else size_of(props)
    present = {t: size for t, size in grids_now.items() if size is not None}
    cells = [c for c in expected.after if c[0] in present and c[1] <= present[c[0]][0] and c[2] <= present[c[0]][1]]
    asked = [a1_range(*box) for box in rectangles(cells)]
    grids = session.get(asked) if asked else {}
    states = {c: grids[c[0]].state((c[1], c[2])) if c[0] in grids else (None, None) for c in cells}
    verdict = judge(expected, grids_now, set(now) | set(leftovers), states)
    if verdict is NOT_LANDED:  # and the guard must still hold for it to be sent again
        found = changes(session, seen, list(expected.after), sorted(expected.grids_before))
        if found:
            return found
    return verdict


def _in_sheet_order(change: Conflict | Reshaped) -> tuple[str, int, int, str]:
    """Changes sorted by tab, the tab's own changes (its title, its grid) first, then cells in order."""
    if isinstance(change, Reshaped):
        return change.tab, 0, 0, change.what
    return change.tab, change.row, change.column, ""
