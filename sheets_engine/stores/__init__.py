"""Stores sit at the edge: they read every tab and write cells, and know no rules."""

from __future__ import annotations

from pathlib import Path

from sheets_engine.stores.base import Store, StoreError


def open_store(source: str, credentials: str | None = None) -> Store:
    """The store for a SOURCE argument: a workbook path (`.xlsx`), or a Google Sheet (its URL or
    `gsheet:KEY`) opened with the service-account key file `credentials` (else
    $GOOGLE_APPLICATION_CREDENTIALS)."""
    # A workbook path is told apart without importing the Google store (gspread and google-auth are a
    # tenth of a second of start-up); every Google Sheets URL starts with one of these prefixes.
    google_like = source.startswith(("gsheet:", "https://docs.google.com/", "http://docs.google.com/"))
    if google_like or not source.casefold().endswith((".xlsx", ".xlsm")):
        from sheets_engine.stores.gsheets import GoogleSheetsStore, is_google_source

        if is_google_source(source):
            return GoogleSheetsStore.open(source, credentials)
        raise StoreError(f"{source}: expected a workbook path ending in .xlsx, a Google Sheets URL or gsheet:KEY")
    from sheets_engine.stores.xlsx import WorkbookStore

    return WorkbookStore(Path(source))
