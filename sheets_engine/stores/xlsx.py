"""The local workbook store (.xlsx through openpyxl): the embedded default.

Writes touch only the given cells, so a GM's extra columns, formulas in untouched cells and
formatting survive; the workbook is saved to a temporary file and renamed over the original, so a
crash never leaves a half-written workbook.
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from sheets_engine.stores.base import CellWrite, RawTab, StoreError


class WorkbookStore:
    """A campaign kept in one .xlsx file."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.name = str(self.path)

    def exists(self) -> bool:
        """True if the workbook file is there."""
        return self.path.is_file()

    def read(self) -> dict[str, RawTab]:
        """Every tab's values (formulas read as the values the workbook last computed)."""
        from openpyxl import load_workbook

        if not self.path.is_file():
            raise StoreError(f"No workbook at {self.path}. Create one with: sheets-engine init {self.path}")
        try:
            book = load_workbook(self.path, read_only=True, data_only=True)
        except (zipfile.BadZipFile, OSError, KeyError, ValueError) as error:
            raise StoreError(f"{self.path} is not a readable .xlsx workbook ({error})") from error
        try:
            return {ws.title: _read_sheet(ws) for ws in book.worksheets}
        finally:
            book.close()

    def write(self, cells: list[CellWrite]) -> None:
        """Set these cells and save atomically (temporary file, then rename)."""
        from openpyxl import load_workbook

        if not cells:
            return
        book = load_workbook(self.path)  # formulas kept as formulas
        for cell in cells:
            if cell.tab not in book.sheetnames:
                book.create_sheet(cell.tab)
            _set(book[cell.tab].cell(row=cell.row, column=cell.column), cell.value)
        self._save(book)

    def create(self, tabs: dict[str, list[list[Any]]], overwrite: bool = False) -> None:
        """Write a new workbook with these tabs (header row bold and frozen)."""
        from openpyxl import Workbook
        from openpyxl.cell import WriteOnlyCell
        from openpyxl.styles import Font

        if self.path.exists() and not overwrite:
            raise StoreError(f"{self.path} already exists; add --force to replace it")
        book = Workbook(write_only=True)  # streams rows: a 100,000-province campaign fits in memory
        bold = Font(bold=True)
        for title, rows in tabs.items():
            sheet = book.create_sheet(title)
            sheet.freeze_panes = "A2"
            for number, values in enumerate(rows, start=1):
                cells = []
                for value in values:
                    cell = WriteOnlyCell(sheet)
                    _set(cell, value)
                    if number == 1:
                        cell.font = bold
                    cells.append(cell)
                sheet.append(cells)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._save(book)

    def _save(self, book: Any) -> None:
        handle, temp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        os.close(handle)
        try:
            book.save(temp)
            with open(temp, "rb") as saved:
                os.fsync(saved.fileno())
            os.replace(temp, self.path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise


def _read_sheet(ws: Any) -> RawTab:
    header: list[Any] = []
    rows: list[tuple[int, list[Any]]] = []
    last = 0
    for number, values in enumerate(ws.iter_rows(values_only=True), start=1):
        cells = list(values)
        if number == 1:
            header = cells
            last = 1
            continue
        if any(v is not None and v != "" for v in cells):
            rows.append((number, cells))
            last = number
    while header and (header[-1] is None or header[-1] == ""):
        header.pop()
    return RawTab(ws.title, header, rows, last)


def _set(cell: Any, value: Any) -> None:
    if isinstance(value, str) and value == "":
        value = None
    cell.value = value
    if isinstance(value, str) and value.startswith("="):
        cell.data_type = "s"  # player text stays text: never a formula
