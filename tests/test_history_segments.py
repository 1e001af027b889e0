"""History grows without being inflated and deflated again: its rows are appended to its compressed bytes."""

from __future__ import annotations

import os
import zipfile
import zlib
from pathlib import Path

import openpyxl
from python_calamine import CalamineWorkbook

from sheets_engine.stores.base import CellWrite, RowsAppended
from sheets_engine.stores.xlsx import WorkbookStore
from sheets_engine.stores.xlsx_workbook import sheet_parts
from sheets_engine.stores.xlsx_zip import crc32_combine, segments_of, stored_bytes

HEADER = ["Turn", "Tab", "New"]


def _history(path: Path) -> tuple[zipfile.ZipInfo, bytes]:
    data = path.read_bytes()
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(sheet_parts(archive)["History"])
        assert archive.testzip() is None  # every part's CRC checks
    return info, bytes(stored_bytes(data, info))


def _append(store: WorkbookStore, turn: int, count: int) -> None:
    last = store.read(headers_only=["History"])["History"].last_row
    rows = [(turn, "Provinces", f"value {turn}-{n} <&>") for n in range(count)]
    store.write([RowsAppended("History", last + 1, (1, 2, 3), rows)])


def _values(path: Path) -> list[list[object]]:
    return CalamineWorkbook.from_path(str(path)).get_sheet_by_name("History").to_python()


def test_a_second_append_copies_the_rows_already_written_as_they_are_compressed(tmp_path: Path) -> None:
    store = WorkbookStore(tmp_path / "campaign.xlsx")
    store.create({"Game": [["Key", "Value"], ["turn", 1]], "History": [HEADER]})
    _append(store, 1, 500)
    info, raw = _history(store.path)
    first = segments_of(info)
    assert first is not None and first.last_row == 501 and first.last_held == 501
    _append(store, 2, 300)
    info, again = _history(store.path)
    second = segments_of(info)
    assert second is not None and (second.last_row, second.last_held) == (801, 801)
    # turn 1's rows are in turn 2's file byte for byte, compressed, where the rows' segment starts
    old = raw[first.rows_start : first.rows_end]
    assert again[second.rows_start : second.rows_start + len(old)] == old
    values = _values(store.path)
    assert len(values) == 801
    assert values[0] == HEADER
    assert values[500] == [1.0, "Provinces", "value 1-499 <&>"]
    assert values[800] == [2.0, "Provinces", "value 2-299 <&>"]
    assert store.read(headers_only=["History"])["History"].last_row == 801
    sheet = openpyxl.load_workbook(store.path)["History"]
    assert (sheet.max_row, sheet.cell(row=801, column=3).value) == (801, "value 2-299 <&>")


def test_a_history_saved_again_by_another_program_is_read_and_appended_the_long_way(tmp_path: Path) -> None:
    store = WorkbookStore(tmp_path / "campaign.xlsx")
    store.create({"Game": [["Key", "Value"], ["turn", 1]], "History": [HEADER]})
    _append(store, 1, 50)
    # another program rewrites the zip, keeping the part's comment but not its bytes: a GM deleted rows
    copy = tmp_path / "copy.xlsx"
    with zipfile.ZipFile(store.path) as source, zipfile.ZipFile(copy, "w", zipfile.ZIP_DEFLATED) as out:
        part = sheet_parts(source)["History"]
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == part:
                start = data.index(b'<row r="42"')
                data = data[:start] + data[data.index(b"</sheetData>") :]
            out.writestr(info, data, compresslevel=6)
    os.replace(copy, store.path)
    info, _ = _history(store.path)
    assert info.comment.startswith(b"sheets-engine segments") and segments_of(info) is None
    store = WorkbookStore(store.path)
    assert store.read(headers_only=["History"])["History"].last_row == 41
    _append(store, 2, 5)
    values = _values(store.path)
    assert len(values) == 46 and values[41] == [2.0, "Provinces", "value 2-0 <&>"]
    assert segments_of(_history(store.path)[0]) is not None  # segmented again for the next turn


def test_cells_changed_in_a_segmented_sheet_take_the_full_path(tmp_path: Path) -> None:
    store = WorkbookStore(tmp_path / "campaign.xlsx")
    store.create({"Game": [["Key", "Value"], ["turn", 1]], "History": [HEADER]})
    _append(store, 1, 10)
    store.read(headers_only=["History"])
    store.write([CellWrite("History", 3, 3, "corrected")])
    values = _values(store.path)
    assert len(values) == 11 and values[2] == [1.0, "Provinces", "corrected"]
    assert segments_of(_history(store.path)[0]) is not None


def test_crc32_combine_is_the_crc_of_the_two_joined() -> None:
    for first, second in [(b"", b""), (b"a", b""), (b"", b"b"), (b"History", b"<row r='2'>" * 9999), (b"x" * 7, b"y")]:
        combined = crc32_combine(zlib.crc32(first), zlib.crc32(second), len(second))
        assert combined == zlib.crc32(first + second)


def test_rows_appended_with_empty_rows_last_report_the_last_row_holding_a_value(tmp_path: Path) -> None:
    store = WorkbookStore(tmp_path / "campaign.xlsx")
    store.create({"Game": [["Key", "Value"], ["turn", 1]], "History": [HEADER]})
    _append(store, 1, 10)  # rows 2-11, written in segments
    rows = [(2, "Provinces", "kept"), (None, "", None), (3, "Armies", "last"), ("", None, ""), (None, None, None)]
    store.write([RowsAppended("History", 12, (1, 2, 3), rows)])  # rows 12-16, the last two empty
    info, _ = _history(store.path)
    found = segments_of(info)
    assert found is not None and (found.last_row, found.last_held) == (16, 14)
    assert store.read(headers_only=["History"])["History"].last_row == 14
    assert _values(store.path)[13] == [3.0, "Armies", "last"]
