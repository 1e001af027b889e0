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
from typing import IO, Any

from sheets_engine.stores.base import Formula


def unescape(text: str) -> str:
    """XML's five entities back to characters (as xml.sax.saxutils.unescape, without importing urllib and ssl)."""
    if "&" not in text:
        return text
    return (
        text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", '"')
        .replace("&apos;", "'")
        .replace("&amp;", "&")
    )


_CELL_AT = re.compile(rb"<(?:\w+:)?c\b[^>]*?(?:/>|>.*?</(?:\w+:)?c>)", re.DOTALL)
_REF = re.compile(rb'\br="([A-Za-z]+)(\d+)"')
_ERROR_TYPE = re.compile(rb'<(?:\w+:)?c\b[^>]*?\bt="e"')
_FORMULA = re.compile(rb"<(?:\w+:)?f\b([^>]*?)(?:/>|>(.*?)</(?:\w+:)?f>)", re.DOTALL)
_VALUE = re.compile(rb"<(?:\w+:)?v>(.*?)</(?:\w+:)?v>", re.DOTALL)
_WIDE_CANDIDATE = re.compile(rb'r="([A-Za-z]{2,3})\d+"')
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
    facts.columns = _widest(xml)
    # the searches below run only when their literal text is in the sheet at all (usually it is not):
    # one fast substring search instead of a regular expression tried at every '<'
    for match in _ERROR_TYPE.finditer(xml) if b't="e"' in xml else ():
        cell = _CELL_AT.match(xml, match.start())
        if cell is None:
            continue
        where = _where(xml, cell.start(), cell.group(0))
        value = _VALUE.search(cell.group(0))
        facts.errors[where] = value.group(1).decode("utf-8", "replace") if value else "#ERROR"
    masters: dict[bytes, tuple[str, tuple[int, int]]] = {}  # shared formula index -> its text and cell
    children: list[tuple[tuple[int, int], bytes]] = []
    maybe_formulas = b"<f" in xml or b":f" in xml
    for match in re.finditer(rb"<(?:\w+:)?f[\s>/]", xml) if maybe_formulas else ():
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


def _widest(xml: bytes) -> int:
    """The widest column any cell uses, at least 26 (Z).

    A literal search finds the candidate columns (text like r="AB12" anywhere, in C, without trying a
    cell pattern at every '<'); the widest candidate that some cell element really has is the answer,
    usually confirmed in the sheet's first row.
    """
    for letters in sorted(set(_WIDE_CANDIDATE.findall(xml)), key=column_number, reverse=True):
        if re.search(rb'<(?:\w+:)?c\b[^>]*?\br="' + re.escape(letters) + rb'\d+"', xml):
            return column_number(letters)
    return 26


def _shared_texts(
    facts: SheetFacts, masters: dict[bytes, tuple[str, tuple[int, int]]], children: list[tuple[tuple[int, int], bytes]]
) -> None:
    """A fill-down child's own formula, from its master's (=B2*2 in A2 is =B3*2 in A3)."""
    if not children:
        return
    from openpyxl.formula.translate import Translator

    from sheets_engine.stores.xlsx_codec import column_letters

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


def scan_workbook(
    path: str | IO[bytes], titles: list[str], inflated: dict[str, bytes] | None = None
) -> dict[str, SheetFacts]:
    """SheetFacts of these tabs (by title) of the workbook at `path`; each sheet's XML put in `inflated`
    by its part's name when given (the workbook store's write patches it without inflating it again)."""
    from sheets_engine.stores.xlsx_workbook import sheet_parts

    with zipfile.ZipFile(path) as archive:
        parts = sheet_parts(archive)
        names = set(archive.namelist())
        facts = {}
        for title in titles:
            if parts.get(title) in names:
                xml = archive.read(parts[title])
                facts[title] = scan(xml)
                if inflated is not None:
                    inflated[parts[title]] = xml
        return facts


_DIMENSION = re.compile(rb'<(?:\w+:)?dimension\b[^>]*\bref="[A-Za-z]*\d*:?([A-Za-z]+)(\d+)"')


def declared_extents(path: str | IO[bytes], titles: list[str]) -> dict[str, tuple[int, int]]:
    """(last row, last column) of these tabs as their <dimension> says, reading only each part's head.

    For the tabs read for their header only (History): a full scan would cost what skipping their
    rows saves, and every program that writes .xlsx (Excel, LibreOffice, openpyxl, this engine's
    patcher) keeps the dimension.
    """
    from sheets_engine.stores.xlsx_workbook import sheet_parts

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


_A_ROW = re.compile(rb"<(?:\w+:)?row\b[^>]*?(?:/>|>.*?</(?:\w+:)?row>)", re.DOTALL)
_CELL_PARTS = re.compile(rb"<(?:\w+:)?c\b([^>]*?)(?:/>|>(.*?)</(?:\w+:)?c>)", re.DOTALL)
_ATTRIBUTE = re.compile(rb'\b([\w:]+)="([^"]*)"')
_TEXT = re.compile(rb"<(?:\w+:)?t\b[^>]*?(?:/>|>(.*?)</(?:\w+:)?t>)", re.DOTALL)
_SHARED_ITEM = re.compile(rb"<(?:\w+:)?si\b[^>]*?(?:/>|>(.*?)</(?:\w+:)?si>)", re.DOTALL)
_CHUNK = 1 << 16
_TAIL = 1 << 18  # the last rows of a sheet, as bytes kept while the rest streams past


def header_and_length(path: str | IO[bytes], title: str) -> tuple[list[Any], int] | None:
    """A tab's header row and the number of its last row holding a value, without parsing its rows.

    For History, read for its header and length only at every run and growing every turn: the sheet
    is inflated as a stream (its head and tail kept, nothing in between parsed), so a History of
    400,000 rows costs what inflating it costs. None when the head or the tail is not plain enough
    to tell (no row 1, rows without numbers): the caller reads the tab the long way.
    """
    from sheets_engine.stores.xlsx_patch import last_held_row
    from sheets_engine.stores.xlsx_workbook import sheet_parts
    from sheets_engine.stores.xlsx_zip import segments_of

    with zipfile.ZipFile(path) as archive:
        part = sheet_parts(archive).get(title)
        if part is None or part not in archive.namelist():
            return None
        head, tail = b"", b""
        # a part this engine wrote in segments records its last row: its rows need not stream past
        segments = segments_of(archive.getinfo(part))
        with archive.open(part) as stream:
            first = None
            while first is None:
                chunk = stream.read(_CHUNK)
                head += chunk
                first = _A_ROW.search(head)
                if not chunk:
                    break
            tail = head[-_TAIL:]
            while segments is None and (chunk := stream.read(_CHUNK)):
                tail = (tail + chunk)[-_TAIL:]
        if first is None:
            return [], 0
        attributes = dict(_ATTRIBUTE.findall(first.group(0)[: first.group(0).index(b">")]))
        if attributes.get(b"r") != b"1":
            return None
        last = segments.last_held if segments is not None else last_held_row(tail)
        if last is None:
            return None
        return _row_values(archive, first.group(0)), last


def _row_values(archive: zipfile.ZipFile, row: bytes) -> list[Any]:
    """The values of one row's cells, placed by column (shared strings looked up, up to the highest used)."""
    cells: dict[int, tuple[bytes, bytes]] = {}
    position = 0
    for match in _CELL_PARTS.finditer(row):
        attributes = dict(_ATTRIBUTE.findall(match.group(1)))
        ref = _REF.search(match.group(1))
        position = column_number(ref.group(1)) if ref else position + 1
        cells[position] = (attributes.get(b"t", b"n"), match.group(2) or b"")
    shared: list[str] = []
    wanted = [int(_v(body) or 0) for kind, body in cells.values() if kind == b"s"]
    if wanted and "xl/sharedStrings.xml" in archive.namelist():
        items = _SHARED_ITEM.finditer(archive.read("xl/sharedStrings.xml"))
        for _, item in zip(range(max(wanted) + 1), items, strict=False):
            shared.append(unescape(b"".join(t or b"" for t in _TEXT.findall(item.group(1) or b"")).decode("utf-8")))
    values: list[Any] = [""] * max(cells, default=0)  # an empty cell reads as "", as calamine reads it
    for column, (kind, body) in cells.items():
        if kind == b"s":
            index = int(_v(body) or 0)
            value: Any = shared[index] if index < len(shared) else ""
        elif kind == b"inlineStr":
            value = unescape(b"".join(t or b"" for t in _TEXT.findall(body)).decode("utf-8"))
        elif kind in (b"str", b"e"):
            value = unescape(_v(body).decode("utf-8"))
        elif kind == b"b":
            value = _v(body) == b"1"
        else:
            text = _v(body)
            value = float(text) if text else ""
        values[column - 1] = value
    return values


def _v(body: bytes) -> bytes:
    found = _VALUE.search(body)
    return found.group(1) if found else b""
