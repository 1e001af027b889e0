"""What calamine does not say about a workbook's cells: error cells, formulas, and a tab's extent.

calamine reads an error cell (`#DIV/0!`) and a formula saved without a computed value as empty
cells, and reads a tab as a dense grid up to its farthest cell. This module looks at the sheet
XML itself, searching only for what it needs (an error type, a formula element, the last row and
the widest column), so that a 100,000-province tab is scanned in a fraction of a second.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass, field
from typing import IO
from xml.sax.saxutils import unescape

from sheets_engine.stores.base import Formula

_CELL_AT = re.compile(rb"<(?:\w+:)?c\b[^>]*?(?:/>|>.*?</(?:\w+:)?c>)", re.DOTALL)
_REF = re.compile(rb'\br="([A-Za-z]+)(\d+)"')
_ERROR_TYPE = re.compile(rb'<(?:\w+:)?c\b[^>]*?\bt="e"')
_FORMULA = re.compile(rb"<(?:\w+:)?f\b([^>]*?)(?:/>|>(.*?)</(?:\w+:)?f>)", re.DOTALL)
_VALUE = re.compile(rb"<(?:\w+:)?v>(.*?)</(?:\w+:)?v>", re.DOTALL)
_WIDE = re.compile(rb'<(?:\w+:)?c\b[^>]*?\br="([A-Za-z]{2,3})\d+"')
_ROW_OPEN = re.compile(rb"<(?:\w+:)?row\b([^>]*)>")
_LAST_ROW = re.compile(rb'<(?:\w+:)?row\b[^>]*?\br="(\d+)"')


@dataclass
class SheetFacts:
    """A tab's error cells, formula cells and extent, keyed by (sheet row, 1-based column)."""

    errors: dict[tuple[int, int], str] = field(default_factory=dict)
    formulas: dict[tuple[int, int], Formula] = field(default_factory=dict)
    rows: int = 0  # the last row
    columns: int = 0  # the widest column any cell uses


def column_number(letters: bytes) -> int:
    """b"AA" -> 27."""
    index = 0
    for char in letters.upper():
        index = index * 26 + char - 64
    return index


def scan(xml: bytes) -> SheetFacts:
    """The error cells, formulas and extent of one sheet's XML."""
    facts = SheetFacts()
    facts.rows = _last_row(xml)
    facts.columns = max((column_number(m.group(1)) for m in _WIDE.finditer(xml)), default=26)
    for match in _ERROR_TYPE.finditer(xml):
        cell = _CELL_AT.match(xml, match.start())
        if cell is None:
            continue
        where = _where(xml, cell.start(), cell.group(0))
        value = _VALUE.search(cell.group(0))
        facts.errors[where] = value.group(1).decode("utf-8", "replace") if value else "#ERROR"
    masters: dict[bytes, tuple[str, tuple[int, int]]] = {}  # shared formula index -> its text and cell
    children: list[tuple[tuple[int, int], bytes]] = []
    for match in re.finditer(rb"<(?:\w+:)?f[\s>/]", xml):
        start = max(xml.rfind(b"<c ", 0, match.start()), xml.rfind(b":c ", 0, match.start()) - 1)
        cell = _CELL_AT.match(xml, start) if start >= 0 else None
        if cell is None or cell.end() < match.start():
            continue
        body = cell.group(0)
        formula = _FORMULA.search(body)
        value = _VALUE.search(body)
        text = unescape(formula.group(2).decode("utf-8", "replace")) if formula and formula.group(2) else ""
        computed = value is not None and value.group(1) != b""
        where = _where(xml, cell.start(), body)
        facts.formulas[where] = Formula("=" + text if text else "=", computed)
        if formula is not None and b'"shared"' in formula.group(1):
            si = re.search(rb'\bsi="(\d+)"', formula.group(1))
            if si and text:
                masters[si.group(1)] = ("=" + text, where)
            elif si:
                children.append((where, si.group(1)))
    _shared_texts(facts, masters, children)
    return facts


def _shared_texts(
    facts: SheetFacts, masters: dict[bytes, tuple[str, tuple[int, int]]], children: list[tuple[tuple[int, int], bytes]]
) -> None:
    """A fill-down child's own formula, from its master's (=B2*2 in A2 is =B3*2 in A3)."""
    if not children:
        return
    from openpyxl.formula.translate import Translator

    from sheets_engine.stores.xlsx_patch import column_letters

    for (row, column), si in children:
        if si not in masters:
            continue
        text, (master_row, master_column) = masters[si]
        origin = f"{column_letters(master_column)}{master_row}"
        moved = Translator(text, origin=origin).translate_formula(f"{column_letters(column)}{row}")
        facts.formulas[(row, column)] = Formula(moved, facts.formulas[(row, column)].computed)


def _where(xml: bytes, start: int, cell: bytes) -> tuple[int, int]:
    """A cell's (row, column): from its r="B7", else by counting (r is optional in the format)."""
    head = cell[: cell.find(b">") + 1]
    ref = _REF.search(head)
    if ref:
        return int(ref.group(2)), column_number(ref.group(1))
    row_start = max(xml.rfind(b"<row", 0, start), xml.rfind(b":row", 0, start))
    row = _row_number(xml, row_start)
    cells = _CELL_AT.findall(xml, xml.find(b">", row_start) + 1, start + 1)
    return row, len(cells) + 1


def _row_number(xml: bytes, row_start: int) -> int:
    """The number of the row opening at `row_start`: its r, else one more than the row before."""
    number = 0
    for match in _ROW_OPEN.finditer(xml, 0, row_start + 200):
        if match.start() > row_start + 1:
            break
        ref = re.search(rb'\br="(\d+)"', match.group(1))
        number = int(ref.group(1)) if ref else number + 1
    return number


def _last_row(xml: bytes) -> int:
    opening = max(xml.rfind(b"<row"), xml.rfind(b":row"))
    if opening < 0:
        return 0
    if xml[opening : opening + 1] != b"<":
        opening = xml.rfind(b"<", 0, opening)
    match = _LAST_ROW.match(xml, opening)
    if match:
        return int(match.group(1))
    return _row_number(xml, opening)


def scan_workbook(path: str | IO[bytes], titles: list[str]) -> dict[str, SheetFacts]:
    """SheetFacts of these tabs (by title) of the workbook at `path`."""
    from sheets_engine.stores.xlsx_patch import sheet_parts

    with zipfile.ZipFile(path) as archive:
        parts = sheet_parts(archive)
        names = set(archive.namelist())
        return {title: scan(archive.read(parts[title])) for title in titles if parts.get(title) in names}


_DIMENSION = re.compile(rb'<(?:\w+:)?dimension\b[^>]*\bref="[A-Za-z]*\d*:?([A-Za-z]+)(\d+)"')


def declared_extents(path: str | IO[bytes], titles: list[str]) -> dict[str, tuple[int, int]]:
    """(last row, last column) of these tabs as their <dimension> says, reading only each part's head.

    For the tabs read for their header only (History): a full scan would cost what skipping their
    rows saves, and every program that writes .xlsx (Excel, LibreOffice, openpyxl, this engine's
    patcher) keeps the dimension.
    """
    from sheets_engine.stores.xlsx_patch import sheet_parts

    found = {}
    with zipfile.ZipFile(path) as archive:
        parts = sheet_parts(archive)
        names = set(archive.namelist())
        for title in titles:
            if parts.get(title) not in names:
                continue
            with archive.open(parts[title]) as part:
                match = _DIMENSION.search(part.read(4096))
            if match:
                found[title] = (int(match.group(2)), column_number(match.group(1)))
    return found
