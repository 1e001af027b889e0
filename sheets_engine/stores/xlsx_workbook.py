"""The zip assembler of the workbook writer: the new .xlsx from the old one, every part copied as the
compressed bytes it is stored as but the sheets whose rows change (patched by xlsx_patch), the
workbook set to recalculate on opening, and the calculation chain dropped when a formula was
overwritten (see xlsx_zip for the parts' bytes)."""

from __future__ import annotations

import io
import os
import re
import zipfile
import zlib
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath
from typing import Any

from sheets_engine.stores.xlsx_codec import (
    Appended,
    PatchError,
    column_index,
    column_letters,
    escape,
    rows_xml,
    unescape,
)
from sheets_engine.stores.xlsx_patch import (
    ATTR,
    SHEET_DATA,
    grow_dimension,
    last_held_row,
    last_row,
    overlapping,
    patch_sheet,
)


def sheet_parts(archive: zipfile.ZipFile) -> dict[str, str]:
    """Tab title -> the zip part holding its XML."""
    workbook = archive.read("xl/workbook.xml").decode("utf-8")
    rels = archive.read("xl/_rels/workbook.xml.rels").decode("utf-8")
    targets = {}
    for match in re.finditer(r"<(?:\w+:)?Relationship\b([^>]*)/?>", rels):
        attrs = dict(re.findall(r'([\w:]+)="([^"]*)"', match.group(1)))
        if "Id" in attrs and "Target" in attrs:
            target = attrs["Target"]
            path = target.lstrip("/") if target.startswith("/") else str(PurePosixPath("xl") / target)
            targets[attrs["Id"]] = path
    parts = {}
    for match in re.finditer(r"<(?:\w+:)?sheet\b([^>]*)/?>", workbook):
        attrs = dict(re.findall(r'([\w:]+)="([^"]*)"', match.group(1)))
        rid = next((v for k, v in attrs.items() if k.endswith(":id")), None)
        if rid in targets and "name" in attrs:
            parts[unescape(attrs["name"])] = targets[rid]
    return parts


_SHARED = re.compile(rb"<((?:\w+:)?)f\b([^>]*\bt=\"shared\"[^>]*?)(/>|>(.*?)</(?:\w+:)?f>)", re.DOTALL)
_CELL_REF = re.compile(rb'\br="([A-Za-z]+)(\d+)"')


def _cell_of(xml: bytes, position: int) -> tuple[int, int] | None:
    """(row, column) of the cell whose <f> is at `position`, from the cell's r (None without one)."""
    start = max(xml.rfind(b"<c ", 0, position), xml.rfind(b":c ", 0, position))
    if start < 0:
        return None
    ref = _CELL_REF.search(xml, start, xml.find(b">", start))
    return (int(ref.group(2)), column_index(ref.group(1))) if ref else None


def expand_shared(xml: bytes, changes: Mapping[int, Mapping[int, Any]]) -> bytes:
    """Give every child of a shared formula whose master cell is about to be overwritten a formula of its own.

    Excel's fill-down stores a formula once, in its master cell, and its children only point at
    it (si="0"); with the master replaced by a value they would point at nothing, and Excel calls
    the file corrupt. Each child gets the master's formula moved to its own cell (openpyxl's
    Translator: =N2*2 in O3 becomes =N3*2).
    """
    if not changes or b'"shared"' not in xml:  # rows only appended (History) overwrite no master
        return xml
    from openpyxl.formula.translate import Translator

    masters: dict[bytes, tuple[str, str]] = {}
    for match in _SHARED.finditer(xml):
        attrs = dict(ATTR.findall(match.group(2)))
        where = _cell_of(xml, match.start())
        if b"ref" in attrs and match.group(4) and where and where[1] in changes.get(where[0], {}):
            text = unescape(match.group(4).decode("utf-8"))
            masters[attrs.get(b"si", b"")] = ("=" + text, f"{column_letters(where[1])}{where[0]}")
    if not masters:
        return xml

    def own(match: re.Match[bytes]) -> bytes:
        attrs = dict(ATTR.findall(match.group(2)))
        master = masters.get(attrs.get(b"si", b""))
        where = _cell_of(xml, match.start())
        if master is None or b"ref" in attrs or where is None:
            return match.group(0)
        formula = Translator(master[0], origin=master[1]).translate_formula(f"{column_letters(where[1])}{where[0]}")
        p = match.group(1).decode()
        return f"<{p}f>{escape(formula[1:])}</{p}f>".encode()

    return _SHARED.sub(own, xml)


def recalculate_on_load(workbook: bytes) -> bytes:
    """workbook.xml with calcPr fullCalcOnLoad="1": the program that opens it recalculates every formula."""
    calc = re.search(rb"<((?:\w+:)?)calcPr\b[^>]*?/?>", workbook)
    if calc is not None:
        element = calc.group(0)
        if b"fullCalcOnLoad=" in element:
            element = re.sub(rb'fullCalcOnLoad="[^"]*"', b'fullCalcOnLoad="1"', element)
        else:
            element = re.sub(rb"\s*(/?>)$", rb' fullCalcOnLoad="1"\1', element)
        return workbook[: calc.start()] + element + workbook[calc.end() :]
    prefix = re.search(rb"<((?:\w+:)?)workbook\b", workbook)
    p = prefix.group(1) if prefix else b""
    # calcPr comes after definedNames and before these, in the order the schema fixes
    later = (
        rb"oleSize|customWorkbookViews|pivotCaches|smartTagPr|smartTagTypes|webPublishing|fileRecoveryPr"
        rb"|webPublishObjects|extLst"
    )
    at = re.search(rb"<" + re.escape(p) + rb"(?:" + later + rb")\b|</" + re.escape(p) + rb"workbook>", workbook)
    if at is None:
        return workbook
    return workbook[: at.start()] + b"<" + p + b'calcPr fullCalcOnLoad="1"/>' + workbook[at.start() :]


def patch_workbook(
    source: Any,
    target: Any,
    cells: Mapping[str, Mapping[int, Mapping[int, Any]]],
    inflated: Mapping[str, bytes] | None = None,
) -> None:
    """Copy the workbook at `source` (a path, a file, or its bytes) to `target` with these
    {tab: {row: {column: value}}} cells set (and, for a tab given as `SheetWrites`, its rows appended).
    `inflated`: sheet XML by part name, already inflated from these very bytes (the caller vouches for that).

    Every other part of the file is copied unchanged (as the compressed bytes it is stored as, see
    xlsx_zip). When a formula cell is overwritten, the calculation chain is dropped so that Excel
    rebuilds it.
    """
    from sheets_engine.stores import xlsx_zip

    data: bytes | None = None  # the whole file, for its parts to be copied as stored
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
    elif isinstance(source, io.BytesIO):
        data = source.getvalue()
    elif isinstance(source, str | os.PathLike):
        with open(source, "rb") as file:
            data = file.read()
    with zipfile.ZipFile(io.BytesIO(data) if data is not None else source) as archive:
        parts = sheet_parts(archive)
        missing = [tab for tab in cells if tab not in parts]
        if missing:
            raise PatchError(f"no tab named {', '.join(missing)} in the workbook")
        infos = archive.infolist()
        copy_raw = data is not None and xlsx_zip.plain_zip(infos, len(data))
        patched: dict[str, bytes] = {}
        grown: dict[str, xlsx_zip.Part] = {}  # sheets whose rows were appended without inflating them
        drop_chain = False
        for tab, rows in cells.items():
            appended = getattr(rows, "appended", ())
            info = archive.getinfo(parts[tab])
            part = _grow(data, info, appended) if data is not None and copy_raw and appended and not rows else None
            if part is not None:
                grown[parts[tab]] = part
                continue
            xml = (inflated or {}).get(parts[tab])
            if xml is None:
                xml = archive.read(parts[tab])
            try:
                xml, replaced = patch_sheet(expand_shared(xml, rows), rows, appended)
            except PatchError as error:
                raise PatchError(f"the {tab} tab: {error}") from error
            patched[parts[tab]] = xml
            drop_chain = drop_chain or replaced
        # a GM's formulas that read the cells written are stale until recalculated: Excel and
        # LibreOffice recalculate on opening
        patched["xl/workbook.xml"] = recalculate_on_load(archive.read("xl/workbook.xml"))
        entries: list[tuple[zipfile.ZipInfo, bytes | None]] = []  # None: the part copied as it is
        for info in infos:
            if drop_chain and info.filename == "xl/calcChain.xml":
                continue
            content = patched.get(info.filename)
            if (
                content is None
                and drop_chain
                and info.filename in ("[Content_Types].xml", "xl/_rels/workbook.xml.rels")
            ):
                content = re.sub(rb"<[^<>]*calcChain[^<>]*/>", b"", archive.read(info.filename))
            entries.append((info, content))
        if copy_raw:
            assert data is not None
            sheets = {parts[tab] for tab in cells}
            out = []
            for info, content in entries:
                if info.filename in grown:
                    out.append((info, grown[info.filename]))
                elif content is None:  # unchanged: its compressed bytes copied
                    raw = xlsx_zip.stored_bytes(data, info)
                    out.append((info, xlsx_zip.Part(raw, info.CRC, info.file_size, info.comment, info.compress_type)))
                elif info.filename in sheets:
                    out.append((info, sheet_part(content)))
                else:
                    out.append((info, _fresh(info, content)))
            try:
                xlsx_zip.write_zip(target, out)
                return
            except OverflowError:  # past 4 GiB: zipfile writes it with ZIP64
                pass
        # compresslevel 1: a fraction of the time of the default 6 for a few percent more bytes
        with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zipped:
            for info, content in entries:
                if info.filename in grown:
                    content = zlib.decompressobj(-15).decompress(grown[info.filename].raw)
                elif content is None:
                    content = archive.read(info.filename)
                zipped.writestr(info, content, compress_type=info.compress_type, compresslevel=1)


def _fresh(info: zipfile.ZipInfo, content: bytes) -> Any:
    """A changed part, compressed as it was stored (deflated, or stored as is)."""
    from sheets_engine.stores import xlsx_zip

    if info.compress_type == zipfile.ZIP_STORED:
        return xlsx_zip.Part(content, zlib.crc32(content), len(content), b"", zipfile.ZIP_STORED)
    return xlsx_zip.deflated(content)


def sheet_part(xml: bytes) -> Any:
    """A sheet written by this run, deflated in segments so that the next run can append to its rows."""
    from sheets_engine.stores import xlsx_zip

    start = SHEET_DATA.search(xml)
    if start is None or start.group(2) == b"/":
        return xlsx_zip.deflated(xml)
    close = xml.rfind(b"</" + start.group(1) + b"sheetData>")
    held = last_held_row(xml[max(start.end(), close - (1 << 18)) : close]) if close > start.end() else 0
    if close < start.end() or held is None:
        return xlsx_zip.deflated(xml)
    body = memoryview(xml)[start.end() : close]
    last = last_row(xml, start.end(), close)
    return xlsx_zip.segmented(xml[: start.end()], body, xml[close:], last, held)


def _grow(data: bytes, info: zipfile.ZipInfo, blocks: Sequence[Appended]) -> Any:
    """The sheet part with these rows appended after its rows' segment, copied compressed; None when the
    part is not one this writer segmented (or rows are in the way): the caller takes the full path."""
    from sheets_engine.stores import xlsx_zip

    segments = xlsx_zip.segments_of(info)
    blocks = sorted(blocks, key=lambda b: b.first_row)
    if segments is None or blocks[0].first_row <= segments.last_row or overlapping(blocks):
        return None
    raw = xlsx_zip.stored_bytes(data, info)
    head, tail = xlsx_zip.head_and_tail(raw, segments)
    start = SHEET_DATA.search(head)
    if start is None or start.end() != len(head) or start.group(2) == b"/":
        return None
    prefix = start.group(1)
    rows = b"".join(rows_xml(b, prefix) for b in blocks)
    extent = {b.first_row + len(b.rows) - 1: dict.fromkeys(b.columns) for b in blocks if b.rows}
    last = max([segments.last_row, *extent])
    held = segments.last_held
    for block in blocks:  # the last row holding a value: looked for from the end (History's is its last)
        for offset in range(len(block.rows) - 1, -1, -1):
            if any(value is not None and value != "" for value in block.rows[offset]):
                held = max(held, block.first_row + offset)
                break
    return xlsx_zip.appended(raw, segments, grow_dimension(head, extent), rows, tail, held, last)
