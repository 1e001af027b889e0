"""The store protocol and its errors, as the stores know them: core's port (sheets_engine.core.store)."""

from __future__ import annotations

from sheets_engine.core.store import CellWrite, Choice, Formula, RawTab, Store, StoreError, StoreUnavailable

__all__ = ["CellWrite", "Choice", "Formula", "RawTab", "Store", "StoreError", "StoreUnavailable"]
