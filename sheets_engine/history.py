"""Reading the History tab back: the changelog auditors read."""

from __future__ import annotations

from typing import Any

from sheets_engine.core.load import norm
from sheets_engine.core.writeset import HISTORY_COLUMNS
from sheets_engine.stores import open_store
from sheets_engine.stores.base import Store, StoreError


def read_history(
    source: str | Store,
    turn: int | None = None,
    tab: str | None = None,
    key: str | None = None,
    cause: str | None = None,
) -> list[dict[str, Any]]:
    """History rows in sheet order, filtered by turn, tab, key and words in the cause."""
    store = open_store(source) if isinstance(source, str) else source
    raw = store.read(only=("History",))  # a GM's own tabs are never read
    sheet = next((t for title, t in raw.items() if norm(title) == "history"), None)
    if sheet is None:
        raise StoreError("the campaign has no History tab")
    positions = {norm(h): i for i, h in enumerate(sheet.header)}
    rows = []
    for _, cells in sheet.rows:
        row = {}
        for column in HISTORY_COLUMNS:
            i = positions.get(norm(column))
            row[column] = cells[i] if i is not None and i < len(cells) else None
        rows.append(row)

    def keep(row: dict[str, Any]) -> bool:
        if turn is not None and str(row["Turn"]) != str(turn):
            return False
        if tab is not None and norm(row["Tab"]) != norm(tab):
            return False
        if key is not None and norm(row["Key"]) != norm(key):
            return False
        return cause is None or norm(cause) in norm(row["Cause"])

    return [r for r in rows if keep(r)]
