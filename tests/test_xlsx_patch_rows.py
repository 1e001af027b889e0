"""Cells set in rows that are there: each changed row found by its number, each cell replaced where it is,
and the same sheet XML as the row-by-row walk writes (a row or cell that is not there is inserted in order)."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import openpyxl
import pytest

from sheets_engine.stores import xlsx_patch
from sheets_engine.stores.base import CellWrite, RowsAppended, StoreError
from sheets_engine.stores.xlsx import WorkbookStore
from sheets_engine.stores.xlsx_codec import Appended
from sheets_engine.stores.xlsx_patch import patch_sheet

SHEET = (
    b'<worksheet xmlns="x"><dimension ref="A1:C4"/><sheetData>'
    b'<row r="1" spans="1:3"><c r="A1" t="inlineStr"><is><t>Name</t></is></c><c r="B1"><v>1</v></c></row>'
    b'<row r="2" spans="1:3"><c r="A2" s="3"><v>5</v></c><c r="B2" s="4"><f>A2*2</f><v>10</v></c>'
    b'<c r="C2" t="inlineStr"><is><t>keep</t></is></c></row>'
    b'<row r="4"><c r="A4"><v>7</v></c><c r="C4"/></row>'
    b"</sheetData></worksheet>"
)


def test_a_changed_cell_is_replaced_in_place_keeping_its_style_and_the_other_cells_as_they_were() -> None:
    xml, replaced = patch_sheet(SHEET, {2: {1: 6}, 4: {3: "a < b"}})
    assert not replaced
    assert xml == (
        b'<worksheet xmlns="x"><dimension ref="A1:C4"/><sheetData>'
        b'<row r="1" spans="1:3"><c r="A1" t="inlineStr"><is><t>Name</t></is></c><c r="B1"><v>1</v></c></row>'
        b'<row r="2"><c r="A2" s="3"><v>6</v></c><c r="B2" s="4"><f>A2*2</f><v>10</v></c>'
        b'<c r="C2" t="inlineStr"><is><t>keep</t></is></c></row>'
        b'<row r="4"><c r="A4"><v>7</v></c><c r="C4" t="inlineStr"><is><t xml:space="preserve">a &lt; b</t></is></c>'
        b"</row></sheetData></worksheet>"
    )


def test_a_formula_overwritten_is_reported() -> None:
    xml, replaced = patch_sheet(SHEET, {2: {2: 11}})
    assert replaced
    assert b'<c r="B2" s="4"><v>11</v></c>' in xml


def test_a_cell_or_a_row_that_is_not_there_is_inserted_in_order_as_the_row_walk_inserts_it() -> None:
    changes = {2: {4: 1}, 3: {1: "new"}, 4: {2: 8}, 6: {1: 9}}
    xml, replaced = patch_sheet(SHEET, changes)
    assert not replaced
    assert xml == (
        b'<worksheet xmlns="x"><dimension ref="A1:D6"/><sheetData>'
        b'<row r="1" spans="1:3"><c r="A1" t="inlineStr"><is><t>Name</t></is></c><c r="B1"><v>1</v></c></row>'
        b'<row r="2"><c r="A2" s="3"><v>5</v></c><c r="B2" s="4"><f>A2*2</f><v>10</v></c>'
        b'<c r="C2" t="inlineStr"><is><t>keep</t></is></c><c r="D2"><v>1</v></c></row>'
        b'<row r="3"><c r="A3" t="inlineStr"><is><t xml:space="preserve">new</t></is></c></row>'
        b'<row r="4"><c r="A4"><v>7</v></c><c r="B4"><v>8</v></c><c r="C4"/></row>'
        b'<row r="6"><c r="A6"><v>9</v></c></row>'
        b"</sheetData></worksheet>"
    )


def test_the_search_by_number_and_the_row_walk_write_the_same_xml(monkeypatch: pytest.MonkeyPatch) -> None:
    changes = {1: {2: 2}, 2: {1: 6, 3: "x"}, 4: {1: 0, 3: 1.5}, 9: {2: True}}
    fast, fast_formula = patch_sheet(SHEET, changes)
    monkeypatch.setattr(xlsx_patch, "_patch_numbered", lambda *_: None)
    walked, walked_formula = patch_sheet(SHEET, changes)
    assert (fast, fast_formula) == (walked, walked_formula)
    assert b'<row r="9"><c r="B9" t="b"><v>1</v></c></row></sheetData>' in fast


def test_a_second_write_without_a_read_between_builds_on_the_first(tmp_path: Path) -> None:
    # the first write patches the sheet XML its read inflated; the second must patch what the first wrote
    store = WorkbookStore(tmp_path / "campaign.xlsx")
    store.create({"Provinces": [["Province", "Tax"], ["Edo", 1], ["Kyo", 2]]})
    store.read()
    store.write([CellWrite("Provinces", 2, 2, 5)])
    store.write([CellWrite("Provinces", 3, 2, 7)])
    assert WorkbookStore(store.path).read()["Provinces"].rows == [(2, ["Edo", 5]), (3, ["Kyo", 7])]


def test_a_row_saved_out_of_order_above_the_last_row_is_patched_where_it_is_not_written_twice() -> None:
    sheet = (
        b'<worksheet xmlns="x"><sheetData><row r="1"><c r="A1"><v>1</v></c></row>'
        b'<row r="3"><c r="A3"><v>3</v></c><c r="B3"><v>9</v></c></row>'
        b'<row r="2"><c r="A2"><v>2</v></c></row></sheetData></worksheet>'
    )
    xml, _ = patch_sheet(sheet, {1: {1: 5}, 3: {2: 4}})
    assert xml == (
        b'<worksheet xmlns="x"><sheetData><row r="1"><c r="A1"><v>5</v></c></row>'
        b'<row r="3"><c r="A3"><v>3</v></c><c r="B3"><v>4</v></c></row>'
        b'<row r="2"><c r="A2"><v>2</v></c></row></sheetData></worksheet>'
    )


def test_rows_saved_out_of_order_are_each_patched_where_they_are_and_none_is_written_twice() -> None:
    sheet = (
        b"<worksheet><sheetData>"
        + b"".join(b'<row r="%d"><c r="A%d"><v>%d</v></c></row>' % (n, n, n) for n in (1, 4, 5, 2, 3))
        + b"</sheetData></worksheet>"
    )
    xml, _ = patch_sheet(sheet, {3: {1: 30}, 4: {1: 40}, 5: {1: 50}, 6: {1: 60}})
    assert xml == (
        b'<worksheet><sheetData><row r="1"><c r="A1"><v>1</v></c></row><row r="4"><c r="A4"><v>40</v></c></row>'
        b'<row r="5"><c r="A5"><v>50</v></c></row><row r="2"><c r="A2"><v>2</v></c></row>'
        b'<row r="3"><c r="A3"><v>30</v></c></row><row r="6"><c r="A6"><v>60</v></c></row></sheetData></worksheet>'
    )


def test_rows_appended_over_a_row_the_read_did_not_count_are_refused_and_nothing_is_written(tmp_path: Path) -> None:
    # a History saved out of order (rows 1, 4, 5, 2, 3) by some tool: its length read from its tail is 3,
    # so this run would append at row 4, where an entry stands; it is refused, not written over
    path = tmp_path / "campaign.xlsx"
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "History"
    for row in (
        ["Turn", "Tab", "New"],
        [1, "Provinces", "a"],
        [1, "Provinces", "b"],
        [2, "Armies", "c"],
        [2, "Armies", "d"],
    ):
        sheet.append(row)
    book.save(path)
    with zipfile.ZipFile(path) as archive:
        entries = {info.filename: archive.read(info.filename) for info in archive.infolist()}
    part = next(name for name in entries if name.startswith("xl/worksheets/sheet"))
    rows = re.findall(rb"<row .*?</row>", entries[part], re.DOTALL)
    entries[part] = entries[part].replace(b"".join(rows), b"".join([rows[0], rows[3], rows[4], rows[1], rows[2]]))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    before = path.read_bytes()
    store = WorkbookStore(path)
    length = store.read(headers_only=["History"])["History"].last_row
    assert length == 3  # what the tail says: the row elements end with row 3
    with pytest.raises(StoreError, match=r"the History tab: cell A4 holds a value already.*run again"):
        store.write([RowsAppended("History", length + 1, (1, 2, 3), [(3, "Orders", "e")])])
    assert path.read_bytes() == before


def test_rows_appended_with_no_columns_leave_the_sheet_as_it_was() -> None:
    # an Appended of no columns (a log whose columns the tab lacks) must not break the write
    xml, replaced = patch_sheet(SHEET, {}, [Appended(5, (), [(), ()])])
    assert not replaced
    assert b'<dimension ref="A1:C6"/>' in xml and b'<row r="5"></row><row r="6"></row>' in xml
