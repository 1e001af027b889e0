"""Stores sit at the edge: they read every tab and write cells, and know no rules."""

from __future__ import annotations

from pathlib import Path

from sheets_engine.stores.base import Store, StoreError


def open_store(source: str, credentials: str | None = None) -> Store:
    """The store for a SOURCE argument: a workbook path (`.xlsx`), or a Google Sheet (its URL or
    `gsheet:KEY`) opened with the service-account key file `credentials` (else
    $GOOGLE_APPLICATION_CREDENTIALS)."""
    from sheets_engine.stores.gsheets import is_google_source

    if is_google_source(source):
        from sheets_engine.stores.gsheets import GoogleSheetsStore

        return GoogleSheetsStore.open(source, credentials)
    if not source.casefold().endswith((".xlsx", ".xlsm")):
        raise StoreError(f"{source}: expected a workbook path ending in .xlsx, a Google Sheets URL or gsheet:KEY")
    from sheets_engine.stores.xlsx import WorkbookStore

    return WorkbookStore(Path(source))
