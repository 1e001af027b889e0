"""Moving older turns' History rows to an archive (`sheets-engine archive`), so History stays bounded.

Google Sheets holds at most 10,000,000 cells a spreadsheet, and History grows every turn (about
11,000 rows a turn in play at 10,000 provinces). The archive is another spreadsheet (or workbook)
with a History tab of the same columns; `sheets-engine history ARCHIVE` reads it as it reads a
campaign's. How a run goes, so that running it again after any failure finishes the job:

1. History is read whole; the rows of turns older than the last N (`--keep-turns`) are the ones
   to move: a prefix of History, cut at the start of a run, and never below the turn a kept
   rollback went back to (so every turn kept can still be rolled back).
2. The archive's History is read; the rows it already ends with (a run that stopped after
   appending) are not appended again. The others are appended in one all-or-nothing write.
3. The archive is read back: it must end with every row to move, else nothing more is done.
4. The rows are deleted from the campaign's History (on Google, one guarded `deleteDimension`,
   which frees their cells; a workbook's History is rewritten from row 2).

Rollback still works for every turn kept; a rollback to an archived turn is refused, naming the
oldest turn History can undo (sheets_engine.rollback).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sheets_engine.app import Run
from sheets_engine.core.history import Entry, find_history, read_entries, rolled_back_to, runs
from sheets_engine.core.load import norm
from sheets_engine.stores.base import RawTab, RowsAppended, Store, StoreError

GOOGLE_CELLS = 10_000_000  # cells a Google spreadsheet may hold, every tab's grid counted


@dataclass(frozen=True)
class Archived:
    """What a run of `archive` did."""

    moved: int  # History rows moved out of the campaign by this run
    appended: int  # of those, rows appended to the archive now (the others it held from a run that stopped)
    turns: tuple[int, int] | None  # (first, last) turn of the rows moved
    oldest_kept: int | None  # the oldest turn History still holds: the oldest a rollback can undo
    kept: int  # History rows left in the campaign
    archive: str

    @property
    def summary(self) -> dict[str, Any]:
        """Counts for the CLI."""
        return {
            "history rows moved": self.moved,
            "rows appended to the archive": self.appended,
            "history rows kept": self.kept,
            "oldest turn kept": self.oldest_kept,
        }


def cut(entries: list[Entry], keep_turns: int) -> int:
    """How many History rows, from the top, to move: the turns before the last `keep_turns`.

    The cut falls at the start of a run, and never after a run of a turn that a kept rollback went
    back to (undoing that rollback's turn walks back over them)."""
    if not entries or keep_turns < 1:
        return 0
    cutoff = max(e.turn for e in entries) - keep_turns + 1
    while True:
        at = next((i for i, e in enumerate(entries) if e.turn >= cutoff), len(entries))
        while 0 < at < len(entries) and entries[at].resolution and entries[at - 1].resolution == entries[at].resolution:
            at -= 1
        lower = [t for run in runs(entries[at:]) if (t := rolled_back_to(run)) is not None and t < cutoff]
        if not lower:
            return at
        cutoff = min(lower)


def history_tab(raw: dict[str, RawTab], where: str) -> RawTab:
    """The History tab of a read (any case)."""
    tab = find_history(raw)
    if tab is None:
        raise StoreError(f"{where} has no History tab")
    return tab


def _key(cells: list[Any], positions: Sequence[int | None]) -> tuple[str, ...]:
    """A History row as text, column by column: the same row reads the same from either store."""
    out = []
    for i in positions:
        value = cells[i] if i is not None and i < len(cells) else None
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        out.append("" if value is None else str(value))
    return tuple(out)


def archive_history(store: Store, target: Store, keep_turns: int) -> Archived:
    """Move the History rows of turns before the last `keep_turns` from `store` to `target`'s History.

    The campaign is one unit of work (its lock held throughout, its History read once and its rows
    deleted through the run); the archive is another spreadsheet, appended to and read back directly."""
    with Run(store, "archive", tabs=("History",), whole=("History",)) as run:
        return _archive(run, target, keep_turns)


def _archive(run: Run, target: Store, keep_turns: int) -> Archived:
    store = run.store
    history = history_tab(run.raw, store.name)
    entries = read_entries(run.raw)
    count = cut(entries, keep_turns)
    header = [h for h in history.header if norm(h)]
    kept = len(entries) - count
    oldest = entries[count].turn if count < len(entries) else None
    if count == 0:
        return Archived(0, 0, None, oldest, kept, target.name)
    moved = [cells for _, cells in history.rows[:count]]
    last_moved = history.rows[count - 1][0]  # sheet row of the last row moved
    turns = (entries[0].turn, entries[count - 1].turn)

    if not target.exists():
        target.create({"History": [header]})
    found = target.read()
    if not any(norm(title) == "history" for title in found):
        try:  # a Google Sheet gets the tab beside its own; an existing workbook is never rewritten
            target.create({"History": [header]})
        except StoreError:
            raise StoreError(
                f"{target.name} has no History tab: give an archive that is one (a workbook path not there yet, "
                "or a Google Sheet shared with the service account)"
            ) from None
        found = target.read()
    there = history_tab(found, target.name)
    at = {norm(h): i for i, h in enumerate(there.header)}
    missing = [h for h in header if norm(h) not in at]
    if missing:
        raise StoreError(f"the History tab of {target.name} has no column {', '.join(map(str, missing))}")
    ours: list[int | None] = [history.header.index(h) for h in header]
    theirs = [at[norm(h)] for h in header]
    rows = [_key(cells, ours) for cells in moved]
    held = [_key(cells, theirs) for _, cells in there.rows]
    overlap = next((m for m in range(min(len(rows), len(held)), 0, -1) if held[-m:] == rows[:m]), 0)
    todo = moved[overlap:]
    if todo:
        cells_after = getattr(target, "cell_count", lambda: 0)() + len(todo) * len(there.header)
        if hasattr(target, "cell_count") and cells_after > GOOGLE_CELLS:
            raise StoreError(
                f"{target.name} would hold {cells_after:,} cells, over Google's limit of {GOOGLE_CELLS:,}: "
                "make a new archive spreadsheet, share it with the service account and give it with --to. "
                "Nothing was moved."
            )
        columns = tuple(at[norm(h)] + 1 for h in header)
        aligned = [tuple(cells[i] if i is not None and i < len(cells) else None for i in ours) for cells in todo]
        target.write([RowsAppended(there.title, there.last_row + 1, columns, aligned)])
        back = history_tab(target.read(), target.name)
        if [_key(cells, theirs) for _, cells in back.rows[-len(rows) :]] != rows:
            raise StoreError(
                f"{target.name} does not hold the rows just written (read back); History was left as it was"
            )
    run.delete_rows(history.title, 2, last_moved)  # on Google one guarded deletion; a workbook's History rewritten
    return Archived(count, len(todo), turns, oldest, kept, target.name)
