"""Reading the History tab back: the changelog auditors read."""

from __future__ import annotations

from typing import Any

from sheets_engine.app import reading
from sheets_engine.core.history import find_history, read_rows
from sheets_engine.core.load import norm
from sheets_engine.core.names import require
from sheets_engine.core.store import every_title
from sheets_engine.stores.base import Store, StoreError


def read_history(
    source: str | Store,
    turn: int | None = None,
    tab: str | None = None,
    key: str | None = None,
    cause: str | None = None,
) -> list[dict[str, Any]]:
    """History rows in sheet order, filtered by turn, tab, key and words in the cause.

    `tab` and `key` match ignoring case and spaces; a tab that is neither a tab of the workbook nor named in
    History, or a key no History row has, raises UnknownName naming the closest (a misspelled name would
    otherwise list nothing, silently)."""
    with reading(source, "history", tabs=("History",), whole=("History",)) as run:  # a GM's own tabs are never read
        sheet = find_history(run.raw)
        titles = every_title(run.raw)
    if sheet is None:
        raise StoreError("the campaign has no History tab")
    rows = [row for _, row in read_rows(sheet)]
    if tab is not None:
        named = dict.fromkeys([*titles, *(str(row["Tab"]) for row in rows)])
        tab = require(tab, named, "tab", "in the workbook or its History")
    if key is not None:
        key = require(key, dict.fromkeys(str(row["Key"]) for row in rows), "key", "in History", listed=False)

    def keep(row: dict[str, Any]) -> bool:
        if turn is not None and str(row["Turn"]) != str(turn):
            return False
        if tab is not None and norm(row["Tab"]) != norm(tab):
            return False
        if key is not None and norm(row["Key"]) != norm(key):
            return False
        return cause is None or norm(cause) in norm(row["Cause"])

    return [r for r in rows if keep(r)]
