"""Stores sit at the edge: they read every tab and write cells, and know no rules."""

from __future__ import annotations

from pathlib import Path

from sheets_engine.stores.base import Store, StoreError


def open_store(source: str) -> Store:
    """The store for a SOURCE argument: a workbook path (`.xlsx`)."""
    if not source.casefold().endswith((".xlsx", ".xlsm")):
        raise StoreError(f"{source}: expected a workbook path ending in .xlsx")
    from sheets_engine.stores.xlsx import WorkbookStore

    return WorkbookStore(Path(source))
