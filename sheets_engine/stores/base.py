"""The store protocol and its errors, as the stores know them: core's port (sheets_engine.core.store)."""

from __future__ import annotations

from sheets_engine.core.store import (
    CellWrite,
    Choice,
    Formula,
    RawTab,
    RowsAppended,
    Store,
    StoreError,
    StoreUnavailable,
    TabsRead,
    Write,
    as_cells,
)

__all__ = [
    "CellWrite",
    "Choice",
    "Formula",
    "RawTab",
    "RowsAppended",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "TabsRead",
    "Write",
    "as_cells",
]
