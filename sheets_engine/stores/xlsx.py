"""The local workbook store (.xlsx): the embedded default.

Reads go through calamine, writes through `xlsx_patch` (only the changed rows are rewritten), new
workbooks through openpyxl. A GM's extra columns, formulas in untouched cells and formatting
survive; the workbook is written to a temporary file and renamed over the original, so a crash
never leaves a half-written workbook. Every write holds the workbook's lock file (stores/lock.py),
and the service layer holds it for a whole read-resolve-write.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from sheets_engine.stores.base import CellWrite, RawTab, StoreError
from sheets_engine.stores.lock import FileLock


class WorkbookStore:
    """A campaign kept in one .xlsx file."""

    cell_limit = 32_767  # characters in a cell: Excel's limit (it truncates or refuses a longer one)

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.name = str(self.path)
        self._lock_depth = 0

    @contextmanager
    def lock(self, command: str = "") -> Iterator[None]:
        """Hold the workbook's lock file for the block; raises CampaignBusy if another run has it.

        Re-entrant for this store object, so a write inside a locked read-resolve-write goes on.
        """
        if self._lock_depth:
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
            return
        with FileLock(self.path, command):
            self._lock_depth = 1
            try:
                self._remove_leftovers()
                yield
            finally:
                self._lock_depth = 0

    def _remove_leftovers(self) -> None:
        # Under the lock nobody else is writing: a temporary file is what a killed write left.
        for temp in self.path.parent.glob(f".{self.path.name}.*.tmp"):
            temp.unlink(missing_ok=True)

    def exists(self) -> bool:
        """True if the workbook file is there."""
        return self.path.is_file()

    def read(self, headers_only: Collection[str] = (), only: Collection[str] | None = None) -> dict[str, RawTab]:
        """Every tab's values (formulas read as the values the workbook last computed).

        calamine (Rust) parses a sheet some thirty times faster than openpyxl's reader. With `only`,
        the other tabs (a GM's own) are not read at all. Error cells and formulas, which calamine
        reads as empty cells, are found in the sheet XML (xlsx_cells) and come with each tab.
        """
        from python_calamine import CalamineError, CalamineWorkbook

        from sheets_engine.stores.xlsx_cells import declared_extents, scan_workbook

        if not self.path.is_file():
            raise StoreError(f"No workbook at {self.path}. Create one with: sheets-engine init {self.path}")
        try:
            book = CalamineWorkbook.from_path(str(self.path))
            light = {name.strip().casefold() for name in headers_only}
            wanted = None if only is None else {" ".join(name.split()).casefold() for name in only}
            titles = [t for t in book.sheet_names if wanted is None or " ".join(t.split()).casefold() in wanted]
            full = [t for t in titles if t.strip().casefold() not in light]
            facts = scan_workbook(str(self.path), full)
            declared = declared_extents(str(self.path), [t for t in titles if t not in full])
            tabs = {}
            for title in titles:
                if title not in full:
                    if title in declared:
                        _check_extent(self.path, title, *declared[title])
                    tabs[title] = _header_only(title, book.get_sheet_by_name(title))
                    continue
                found = facts.get(title)
                if found is not None:
                    _check_extent(self.path, title, found.rows, found.columns)
                raw = _raw_tab(title, book.get_sheet_by_name(title).to_python(skip_empty_area=False))
                if found is not None and (found.errors or found.formulas):
                    raw = replace(raw, errors=found.errors, formulas=found.formulas)
                tabs[title] = raw
            return tabs
        except (CalamineError, zipfile.BadZipFile, OSError, KeyError, ValueError) as error:
            raise StoreError(f"{self.path} is not a readable .xlsx workbook ({error})") from error

    def write(self, cells: list[CellWrite]) -> None:
        """Set these cells and save atomically (temporary file, then rename).

        Only the rows holding changed cells are rewritten (see xlsx_patch): everything else in
        the file, a GM's formulas, formatting, extra columns and charts included, is copied as is.
        """
        if not cells:
            return
        grouped: dict[str, dict[int, dict[int, Any]]] = {}
        for cell in cells:
            grouped.setdefault(cell.tab, {}).setdefault(cell.row, {})[cell.column] = cell.value
        with self.lock():
            self._patch(grouped)

    def _patch(self, grouped: dict[str, dict[int, dict[int, Any]]]) -> None:
        from sheets_engine.stores.xlsx_patch import PatchError, patch_workbook

        def fill(temp: str) -> None:
            try:
                patch_workbook(self.path, temp, grouped)
            except PatchError as error:
                raise StoreError(f"{self.path}: {error}; nothing was written") from error

        self._replace(fill)

    def _replace(self, fill: Any) -> None:
        """Write the new workbook beside the old one with `fill(temp path)`, then rename it over.

        A crash before the rename leaves the old workbook; after it, the new one; never half of one.
        """
        handle, temp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        os.close(handle)
        try:
            fill(temp)
            _keep_mode(self.path, temp)
            with open(temp, "rb") as saved:
                os.fsync(saved.fileno())
            os.replace(temp, self.path)
            _sync_directory(self.path.parent)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise

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
        with self.lock():
            self._save(book)

    def _save(self, book: Any) -> None:
        self._replace(book.save)


def _keep_mode(target: Path, temp: str) -> None:
    """Give the new file the workbook's permissions (mkstemp makes it private to its owner, and a
    GM sharing the workbook with a group would lose it on the first save)."""
    if target.exists():
        shutil.copymode(target, temp)
    else:
        os.chmod(temp, 0o666 & ~_umask())


def _umask() -> int:
    try:  # Linux says it without changing it
        status = Path("/proc/self/status").read_text()
        return int(next(line.split()[1] for line in status.splitlines() if line.startswith("Umask:")), 8)
    except (OSError, StopIteration, ValueError, IndexError):
        return 0o022


def _sync_directory(directory: Path) -> None:
    """Make the rename itself durable: a power cut after it must not bring the old workbook back."""
    if os.name != "posix":
        return
    handle = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


MAX_CELLS = 25_000_000  # a tab read as a grid of more cells than this is a stray far-away value, not data


def _check_extent(path: Path, title: str, rows: int, columns: int) -> None:
    """Refuse a tab whose grid would be vast (one value at XFD200000 is 3 billion cells to calamine)."""
    if rows * columns > MAX_CELLS:
        from sheets_engine.stores.xlsx_patch import column_letters

        raise StoreError(
            f"{path}: the {title} tab reaches cell {column_letters(columns)}{rows}, far beyond any campaign's data "
            f"(more than {MAX_CELLS:,} cells to read); clear the far-away cells (Ctrl+End finds the last one) "
            "and run again"
        )


def _header_only(title: str, sheet: Any) -> RawTab:
    """A tab's header and last used row, without turning its rows into Python values."""
    first = next(iter(sheet.iter_rows()), [])
    last = sheet.end[0] + 1 if sheet.height else 0  # calamine's end is 0-based (row, column)
    return RawTab(title, _raw_tab(title, [list(first)]).header, [], last)


def _raw_tab(title: str, values: list[list[Any]]) -> RawTab:
    header: list[Any] = list(values[0]) if values else []
    rows: list[tuple[int, list[Any]]] = []
    last = 1 if values else 0
    for number, cells in enumerate(values[1:], start=2):
        if any(v is not None and v != "" for v in cells):
            # calamine gives every number as a float; a whole number reads back as it was written
            rows.append((number, [int(v) if type(v) is float and v.is_integer() else v for v in cells]))
            last = number
    while header and (header[-1] is None or header[-1] == ""):
        header.pop()
    return RawTab(title, header, rows, last)


def _set(cell: Any, value: Any) -> None:
    if isinstance(value, str) and value == "":
        value = None
    cell.value = value
    if isinstance(value, str) and value.startswith("="):
        cell.data_type = "s"  # player text stays text: never a formula
