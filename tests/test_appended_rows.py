"""History's rows are written whole (RowsAppended), not cell by cell: the same cells either way."""

from __future__ import annotations

from pathlib import Path

from sheets_engine.core.store import CellWrite, RowsAppended, as_cells, cells_written
from sheets_engine.stores.xlsx import WorkbookStore
from sheets_engine.stores.xlsx_codec import Appended
from sheets_engine.stores.xlsx_patch import patch_sheet

SHEET = (
    b'<worksheet xmlns="x"><dimension ref="A1:B2"/><sheetData>'
    b'<row r="1"><c r="A1" t="inlineStr"><is><t>Turn</t></is></c><c r="B1" t="inlineStr"><is><t>Old</t></is></c></row>'
    b'<row r="2"><c r="A2"><v>1</v></c></row>'
    b"</sheetData></worksheet>"
)


def test_rows_appended_below_the_last_row_are_new_row_elements_and_grow_the_dimension() -> None:
    xml, replaced = patch_sheet(SHEET, {}, [Appended(3, (1, 2), [(2, "a < b & c"), (3, "")])])
    assert not replaced
    assert xml == (
        b'<worksheet xmlns="x"><dimension ref="A1:B4"/><sheetData>'
        b'<row r="1"><c r="A1" t="inlineStr"><is><t>Turn</t></is></c><c r="B1" t="inlineStr"><is><t>Old</t></is></c>'
        b'</row><row r="2"><c r="A2"><v>1</v></c></row>'
        b'<row r="3"><c r="A3"><v>2</v></c><c r="B3" t="inlineStr"><is><t xml:space="preserve">a &lt; b &amp; c</t>'
        b'</is></c></row><row r="4"><c r="A4"><v>3</v></c></row>'
        b"</sheetData></worksheet>"
    )


def test_rows_appended_onto_a_row_already_there_keep_what_it_holds() -> None:
    """A GM's formatted row below the data: the appended row is patched into it, its style kept."""
    sheet = SHEET.replace(b"</sheetData>", b'<row r="3" ht="20"><c r="B3" s="4"/></row></sheetData>')
    xml, _ = patch_sheet(sheet, {}, [Appended(3, (1, 2), [(2, "x")])])
    assert b'<row r="3" ht="20"><c r="A3"><v>2</v></c><c r="B3" s="4" t="inlineStr">' in xml
    assert xml.count(b'<row r="3"') == 1


def test_a_workbook_gets_the_same_cells_from_rows_as_from_single_cells(tmp_path: Path) -> None:
    rows = RowsAppended("History", 2, (1, 3), [(1, "moved"), (None, 2.5), (True, "")])
    assert cells_written([rows, CellWrite("Log", 1, 1, "x")]) == 5
    assert as_cells([rows]) == [
        CellWrite("History", 2, 1, 1),
        CellWrite("History", 2, 3, "moved"),
        CellWrite("History", 3, 3, 2.5),
        CellWrite("History", 4, 1, True),
    ]
    one, other = WorkbookStore(tmp_path / "rows.xlsx"), WorkbookStore(tmp_path / "cells.xlsx")
    for store in (one, other):
        store.create({"History": [["Turn", "Note", "Old"]]})
    one.write([rows])
    other.write(as_cells([rows]))
    assert one.read()["History"] == other.read()["History"]
    assert one.read()["History"].rows == [(2, [1, "", "moved"]), (3, ["", "", 2.5]), (4, [True, "", ""])]
