"""A store held in memory: the fake that tests and benchmarks use in place of a file or Google."""

from __future__ import annotations

import copy
from collections.abc import Collection, Sequence
from typing import Any

from sheets_engine.stores.base import Choice, RawTab, StoreError, Write, as_cells


class MemoryStore:
    """Tabs as lists of rows (header first); writes land all at once or not at all."""

    def __init__(self, tabs: dict[str, list[list[Any]]] | None = None, name: str = "memory") -> None:
        self.tabs: dict[str, list[list[Any]]] = copy.deepcopy(tabs) if tabs is not None else {}
        self.name = name
        self.reads = 0
        self.writes = 0
        self.fail_on_write: Exception | None = None

    def exists(self) -> bool:
        """True once a campaign has been laid out."""
        return bool(self.tabs)

    def read(self, headers_only: Collection[str] = (), only: Collection[str] | None = None) -> dict[str, RawTab]:
        """Every tab, as a spreadsheet would give it (whole: a memory store has nothing to save)."""
        self.reads += 1
        if not self.tabs:
            raise StoreError(f"{self.name} holds no campaign")
        result = {}
        for title, rows in self.tabs.items():
            header = list(rows[0]) if rows else []
            data = []
            last = 1 if rows else 0
            for number, cells in enumerate(rows[1:], start=2):
                if any(v is not None and v != "" for v in cells):
                    data.append((number, list(cells)))
                    last = number
            result[title] = RawTab(title, header, data, last)
        return result

    def write(self, cells: Sequence[Write]) -> None:
        """Apply every cell, or none if the write fails."""
        if self.fail_on_write is not None:
            raise self.fail_on_write
        staged = copy.deepcopy(self.tabs)
        for cell in as_cells(cells):
            rows = staged.setdefault(cell.tab, [[]])
            while len(rows) < cell.row:
                rows.append([])
            row = rows[cell.row - 1]
            while len(row) < cell.column:
                row.append(None)
            row[cell.column - 1] = cell.value
        self.tabs = staged
        self.writes += 1

    def create(self, tabs: dict[str, list[list[Any]]], overwrite: bool = False, choices: Sequence[Choice] = ()) -> None:
        """Lay out a new campaign."""
        if self.tabs and not overwrite:
            raise StoreError(f"{self.name} already holds a campaign")
        self.tabs = copy.deepcopy(tabs)

    # test helpers ---------------------------------------------------------------
    def cell(self, tab: str, row: int, column: str) -> Any:
        """The value under a header in a sheet row (None when empty)."""
        rows = self.tabs[tab]
        index = rows[0].index(column)
        values = rows[row - 1] if row <= len(rows) else []
        return values[index] if index < len(values) else None

    def records(self, tab: str) -> list[dict[str, Any]]:
        """The tab's data rows as dicts by header."""
        rows = self.tabs[tab]
        header = rows[0]
        return [
            dict(zip(header, r + [None] * (len(header) - len(r)), strict=False))
            for r in rows[1:]
            if any(v is not None and v != "" for v in r)
        ]
