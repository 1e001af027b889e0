"""History is read for its header and length from its sheet XML, its rows never parsed: same answer as calamine."""

from __future__ import annotations

import io
from pathlib import Path

import openpyxl
from openpyxl.styles import Font
from python_calamine import CalamineWorkbook

from sheets_engine.stores.xlsx import WorkbookStore, _header_only
from sheets_engine.stores.xlsx_cells import header_and_length


def test_a_history_saved_by_excel_style_shared_strings_and_formatted_rows_below(tmp_path: Path) -> None:
    path = tmp_path / "saved.xlsx"
    book = openpyxl.Workbook()  # a normal save: shared strings, as Excel writes them
    sheet = book.active
    sheet.title = "History"
    sheet.append(["Turn", "Tab & Key", None, "New"])
    for turn in range(1, 301):
        sheet.append([turn, "Provinces", None, f"value {turn}"])
    for row in range(302, 310):  # a GM formatted some empty rows below
        sheet.cell(row=row, column=2).font = Font(bold=True)
    book.save(path)
    data = path.read_bytes()
    assert header_and_length(io.BytesIO(data), "History") == (["Turn", "Tab & Key", "", "New"], 301)
    calamine = _header_only("History", CalamineWorkbook.from_path(str(path)).get_sheet_by_name("History"))
    assert (calamine.header, calamine.last_row) == (["Turn", "Tab & Key", "", "New"], 301)
    history = WorkbookStore(path).read(headers_only=["History"])["History"]
    assert (history.header, history.rows, history.last_row) == (["Turn", "Tab & Key", "", "New"], [], 301)


def test_a_history_with_only_its_header(tmp_path: Path) -> None:
    store = WorkbookStore(tmp_path / "new.xlsx")
    store.create({"History": [["Turn", "Resolution"]]})
    history = store.read(headers_only=["History"])["History"]
    assert (history.header, history.last_row) == (["Turn", "Resolution"], 1)
