"""The workbook write over sheet XML a GM's tools can produce: rows saved out of order, rows and cells
without r or with r not their first attribute, prefixed elements, self-closing rows and cells, extLst,
shared formulas and strings. Whatever the XML, the cells written are exactly the ones meant, every other
cell keeps its value, style and formula, and no row is written twice.

Two readers judge each result: a small xml.etree reader (every cell's value, s= and formula, and the row
numbers in file order) and openpyxl (the values a GM's own scripts see).
"""

from __future__ import annotations

import contextlib
import errno
import io
import random
import re
import warnings
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sheets_engine.stores import xlsx, xlsx_patch, xlsx_workbook
from sheets_engine.stores.base import CellWrite, StoreError
from sheets_engine.stores.xlsx import WorkbookChanged, WorkbookStore
from sheets_engine.stores.xlsx_codec import Appended, PatchError, column_letters
from sheets_engine.stores.xlsx_patch import SheetWrites, patch_sheet
from sheets_engine.stores.xlsx_workbook import patch_workbook
from tests.support import examples

# Hypothesis reports a failing example through libcst, which warns on import where mypy_extensions is
# installed; with warnings as errors the report itself would crash (as in test_fuzz_validation).
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    with contextlib.suppress(ImportError):
        import hypothesis.extra._patching  # noqa: F401

# the same examples on every run (reproducible), none kept between runs
FUZZ = settings(deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])

NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
SHARED = ["shared zero", "shared one", "shared two"]
Cell = tuple[str, Any, str | None, str | None]  # (kind, value, s=, formula)


def column(letters: str) -> int:
    index = 0
    for char in letters.upper():
        index = index * 26 + ord(char) - 64
    return index


def read_cells(xml: bytes) -> tuple[list[int], dict[tuple[int, int], Cell]]:
    """The row numbers in file order and every cell, as the format defines them (a row or cell without r
    is the one after the one before; a later duplicate cell wins, as in openpyxl)."""
    root = ET.fromstring(xml)  # also: the XML is well formed
    data = root.find(f"{{{NS}}}sheetData")
    assert data is not None
    numbers: list[int] = []
    cells: dict[tuple[int, int], Cell] = {}
    number = 0
    for row in data.findall(f"{{{NS}}}row"):
        number = int(row.get("r")) if row.get("r") else number + 1
        numbers.append(number)
        col = 0
        for c in row.findall(f"{{{NS}}}c"):
            ref = c.get("r")
            col = column(re.match(r"[A-Za-z]+", ref).group(0)) if ref else col + 1
            if ref:
                assert int(re.search(r"\d+", ref).group(0)) == number, f"cell {ref} in row {number}"
            f = c.find(f"{{{NS}}}f")
            formula = None if f is None else (f.text or "") + "|" + ",".join(f"{k}={v}" for k, v in sorted(f.items()))
            kind, t, v = "empty", c.get("t", "n"), c.find(f"{{{NS}}}v")
            value: Any = None
            if t == "inlineStr":
                kind, value = "s", "".join(x.text or "" for x in c.iter(f"{{{NS}}}t"))
            elif v is not None and t == "s":
                kind, value = "s", SHARED[int(v.text)]
            elif v is not None and t == "b":
                kind, value = "b", v.text == "1"
            elif v is not None and t in ("str", "e"):
                kind, value = t, v.text
            elif v is not None:
                kind = "n"
                value = float(v.text) if re.search(r"[.eE]", v.text) else int(v.text)
            cells[(number, col)] = (kind, value, c.get("s"), formula)
    return numbers, cells


def default_styles(xml: bytes) -> Any:
    """(row, column) -> the style a new cell there takes: its row's (s= with customFormat="1"), else its
    column's (<col style=>), else none."""
    root = ET.fromstring(xml)
    rows, number = {}, 0
    for row in root.iter(f"{{{NS}}}row"):
        number = int(row.get("r")) if row.get("r") else number + 1
        if row.get("customFormat") in ("1", "true") and row.get("s"):
            rows[number] = row.get("s")
    cols = [(int(c.get("min")), int(c.get("max")), c.get("style")) for c in root.iter(f"{{{NS}}}col") if c.get("style")]

    def style(row: int, column: int) -> str | None:
        found = rows.get(row) or next((s for first, last, s in cols if first <= column <= last), None)
        return None if found == "0" else found

    return style


def written(value: Any, old: Cell | None, default: str | None = None) -> Cell:
    """What a cell holds once the engine wrote this value over `old` (its style kept, its formula gone), or
    in a new cell (the row's or column's style, `default`)."""
    style = old[2] if old else default
    if value is None or value == "":
        return ("empty", None, style, None)
    if isinstance(value, bool):
        return ("b", value, style, None)
    if isinstance(value, int | float):
        return ("n", value, style, None)
    text = re.sub("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]", "", str(value))
    return ("s", text, style, None)


def expected(before: Mapping[tuple[int, int], Cell], changes: Mapping[int, Mapping[int, Any]], style: Any) -> dict:
    after = dict(before)
    for row, values in changes.items():
        for col, value in values.items():
            after[(row, col)] = written(value, before.get((row, col)), style(row, col))
    return after


def check(sheet: bytes, changes: Mapping[int, Mapping[int, Any]], appended: tuple[Appended, ...] = ()) -> bytes:
    """Patch the sheet; assert the cells are the ones meant, no row twice, order kept; return the XML."""
    numbers_before, before = read_cells(sheet)
    xml, _ = patch_sheet(sheet, changes, appended)
    numbers, after = read_cells(xml)
    assert len(numbers) == len(set(numbers)), f"a row written twice: {numbers}"
    if numbers_before == sorted(numbers_before):
        assert numbers == sorted(numbers), f"rows out of order: {numbers}"
    # every row that was there is still there, in the order it was (a new row only goes between)
    assert [n for n in numbers if n in set(numbers_before)] == numbers_before
    all_changes = {row: dict(values) for row, values in changes.items()}
    for block in appended:
        for n, row in enumerate(block.rows, start=block.first_row):
            for col, value in zip(block.columns, row, strict=True):
                if value is not None and value != "":
                    all_changes.setdefault(n, {})[col] = value
    assert after == expected(before, all_changes, default_styles(sheet))
    seen = openpyxl_values(sheet)  # what a GM's openpyxl script sees, before and after
    for row, values in all_changes.items():
        for col, value in values.items():
            seen[(row, col)] = written(value, None)[1]
    assert openpyxl_values(xml) == {key: value for key, value in seen.items() if value is not None}
    return xml


STYLES = (
    f'<styleSheet xmlns="{NS}"><fonts count="1"><font/></fonts>'
    '<fills count="1"><fill><patternFill patternType="none"/></fill></fills>'
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
    '<cellStyleXfs count="1"><xf/></cellStyleXfs><cellXfs count="8">' + '<xf numFmtId="0"/>' * 8 + "</cellXfs>"
    '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>'
)


def workbook(sheet: bytes) -> bytes:
    """A minimal .xlsx holding this sheet XML as its one tab, "Tab" (and SHARED as its shared strings)."""
    strings = "".join(f"<si><t>{s}</t></si>" for s in SHARED)
    parts = {
        "[Content_Types].xml": (
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/xl/workbook.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
            '<Override PartName="/xl/worksheets/sheet1.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
            '<Override PartName="/xl/styles.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
            '<Override PartName="/xl/sharedStrings.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
            "</Types>"
        ),
        "_rels/.rels": (
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>'
        ),
        "xl/workbook.xml": (
            f'<workbook xmlns="{NS}" xmlns:r="{REL}"><sheets>'
            '<sheet name="Tab" sheetId="1" r:id="rId1"/></sheets></workbook>'
        ),
        "xl/_rels/workbook.xml.rels": (
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{REL}/worksheet" Target="worksheets/sheet1.xml"/>'
            f'<Relationship Id="rId2" Type="{REL}/styles" Target="styles.xml"/>'
            f'<Relationship Id="rId3" Type="{REL}/sharedStrings" Target="sharedStrings.xml"/>'
            "</Relationships>"
        ),
        "xl/styles.xml": STYLES,
        "xl/sharedStrings.xml": f'<sst xmlns="{NS}" count="3" uniqueCount="3">{strings}</sst>',
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in parts.items():
            archive.writestr(name, text)
        archive.writestr("xl/worksheets/sheet1.xml", sheet)
    return out.getvalue()


def load(data: bytes) -> openpyxl.Workbook:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Unknown extension", UserWarning)  # a row's extLst: openpyxl skips it
        return openpyxl.load_workbook(io.BytesIO(data))


def openpyxl_values(sheet: bytes) -> dict[tuple[int, int], Any]:
    book = load(workbook(sheet))
    return {
        (cell.row, cell.column): cell.value for row in book["Tab"].iter_rows() for cell in row if cell.value is not None
    }


def sheet_of(rows: str, prefix: str = "") -> bytes:
    p = f"{prefix}:" if prefix else ""
    xmlns = f'xmlns:{prefix}="{NS}"' if prefix else f'xmlns="{NS}"'
    return f"<{p}worksheet {xmlns}><{p}sheetData>{rows}</{p}sheetData></{p}worksheet>".encode()


def numbered(*numbers: int) -> str:
    return "".join(
        f'<row r="{n}"><c r="A{n}" s="1"><v>{n}</v></c><c r="C{n}"><v>{n * 10}</v></c></row>' for n in numbers
    )


def walked(monkeypatch: pytest.MonkeyPatch, sheet: bytes, changes: Mapping[int, Mapping[int, Any]]) -> bytes:
    with monkeypatch.context() as patched:
        patched.setattr(xlsx_patch, "_patch_numbered", lambda *_: None)
        return check(sheet, changes)


# --- rows saved out of order -------------------------------------------------------------------------------

OUT_OF_ORDER = sheet_of(numbered(1, 4, 5, 2, 3))


@pytest.mark.parametrize(
    "changes",
    [
        {3: {1: 30}},
        {4: {1: 40}},
        {4: {2: "b"}, 5: {1: 50}},
        {2: {1: 20}, 4: {1: 40}},
        {3: {1: 30}, 4: {1: 40}, 5: {1: 50}, 6: {1: 60}},
        {1: {4: 1}, 2: {2: 2}, 3: {3: 3}, 4: {1: 4}, 5: {2: 5}},
        {6: {1: 60}, 7: {1: 70}},
    ],
)
def test_rows_saved_out_of_order_are_patched_where_they_are_never_written_twice(
    changes: dict[int, dict[int, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    check(OUT_OF_ORDER, changes)
    walked(monkeypatch, OUT_OF_ORDER, changes)


def test_a_row_numbered_above_the_last_row_element_is_found_not_added_again() -> None:
    # the last row element is 3, but 4 and 5 are there (saved before it)
    xml = check(OUT_OF_ORDER, {4: {1: 44}, 5: {3: 55}})
    assert read_cells(xml)[0] == [1, 4, 5, 2, 3]


def test_a_row_above_the_last_element_whose_r_is_not_first_or_missing_is_found_not_added_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sheet = sheet_of(
        '<row r="1"><c r="A1"><v>1</v></c></row><row spans="1:3" r="5"><c r="A5"><v>5</v></c></row>'
        '<row><c r="A6"><v>6</v></c></row><row r="2"><c r="A2"><v>2</v></c></row>'
    )
    for changes in ({5: {2: 55}}, {6: {2: 66}}, {5: {1: 50}, 6: {1: 60}, 7: {1: 70}}):
        xml = check(sheet, changes)
        assert read_cells(xml)[0][:4] == [1, 5, 6, 2]
        walked(monkeypatch, sheet, changes)


def test_rows_out_of_order_with_a_new_row_between_them(monkeypatch: pytest.MonkeyPatch) -> None:
    sheet = sheet_of(numbered(1, 10, 2, 5))
    for changes in ({3: {1: 3}}, {7: {1: 7}}, {10: {2: 1}, 11: {1: 11}}, {3: {1: 3}, 5: {1: 55}, 12: {2: 1}}):
        check(sheet, changes)
        walked(monkeypatch, sheet, changes)


def test_appended_rows_that_meet_rows_saved_out_of_order_are_merged_not_duplicated() -> None:
    # History saved with its last rows first: rows 4 and 5 are there though the last element is 3
    check(OUT_OF_ORDER, {}, (Appended(4, (2,), [("four",), ("five",)]),))
    check(OUT_OF_ORDER, {6: {1: 6}}, (Appended(5, (2,), [("x",)]),))


def test_appended_rows_that_would_overwrite_a_value_are_refused() -> None:
    # row 5 holds 50 in column C: an append over it means the tab's length was misread
    with pytest.raises(PatchError, match="cell C5 holds a value already"):
        patch_sheet(OUT_OF_ORDER, {6: {1: 6}}, (Appended(5, (2, 3), [("x", 1)]),))


def lands_on_a_value(sheet: bytes, appended: tuple[Appended, ...]) -> bool:
    """True if an appended row writes a cell that holds a value or a formula."""
    _, before = read_cells(sheet)
    for block in appended:
        for n, row in enumerate(block.rows, start=block.first_row):
            for col, value in zip(block.columns, row, strict=True):
                if value is None or value == "" or (n, col) not in before:
                    continue
                kind, held, _, formula = before[(n, col)]
                if formula is not None or (kind != "empty" and held not in ("", None)):
                    return True
    return False


# --- rows and cells without r, or with r not first --------------------------------------------------------


ODD_SHEETS = {
    "rows without r": sheet_of(
        '<row><c r="A1"><v>1</v></c></row><row><c r="A2" s="2"><v>2</v></c></row><row r="4"><c r="A4"><v>4</v></c>'
        "</row><row><c><v>5</v></c><c><v>55</v></c></row>"
    ),
    "r not the first attribute": sheet_of(
        '<row spans="1:3" r="1"><c r="A1"><v>1</v></c></row><row ht="20" customHeight="1" r="2">'
        '<c s="2" r="A2"><v>2</v></c><c t="inlineStr" r="B2"><is><t>two</t></is></c></row>'
        '<row r="3" spans="1:3"><c r="A3"><v>3</v></c></row>'
    ),
    "cells without r": sheet_of(
        '<row r="1"><c><v>1</v></c><c s="3"><v>2</v></c><c t="s"><v>0</v></c></row>'
        '<row r="2"><c r="B2"><v>22</v></c><c><v>23</v></c></row>'
    ),
    "self-closing rows and cells": sheet_of(
        '<row r="1"/><row r="2" spans="1:4" s="3" customFormat="1"/><row r="3"><c r="A3" s="4"/><c r="B3"/>'
        '<c r="C3"><v>3</v></c></row><row r="5" ht="30" customHeight="1"/>'
    ),
    "prefixed elements": sheet_of(
        '<x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>Name</x:t></x:is></x:c><x:c r="B1" s="1"><x:v>1</x:v>'
        '</x:c></x:row><x:row r="2"><x:c r="A2"><x:f>B1*2</x:f><x:v>2</x:v></x:c></x:row><x:row r="4"/>',
        prefix="x",
    ),
    "prefixed and out of order": sheet_of(
        '<x:row r="3"><x:c r="A3"><x:v>3</x:v></x:c></x:row><x:row r="1"><x:c r="A1"><x:v>1</x:v></x:c></x:row>',
        prefix="x",
    ),
    "shared strings and inline rich text": sheet_of(
        '<row r="1"><c r="A1" t="s"><v>1</v></c><c r="B1" t="inlineStr" s="2"><is><r><t>rich </t></r><r><rPr><b/>'
        "</rPr><t>text</t></r></is></c></row>"
        '<row r="2"><c r="A2" t="s" s="5"><v>2</v></c><c r="B2" t="b"><v>1</v></c><c r="C2" t="e"><v>#N/A</v></c>'
        "</row>"
    ),
    "duplicate cells": sheet_of(
        '<row r="1"><c r="A1"><v>1</v></c><c r="B1"><v>2</v></c><c r="A1" s="2"><v>3</v></c></row>'
        '<row r="2"><c r="A2"><v>4</v></c><c r="A2"><v>5</v></c></row>'
    ),
    "spans and whitespace between": sheet_of(
        '\n  <row r="1" spans="1:2">\n    <c r="A1"><v>1</v></c>\n    <c r="B1"><v>2</v></c>\n  </row>\n'
        '  <row r="2" spans="1:2">\n    <c r="B2" s="1"><v>2</v></c>\n  </row>\n'
    ),
    "rows with extLst": sheet_of(
        '<row r="1"><c r="A1"><v>1</v></c><extLst><ext uri="{GM}"><x14:thing xmlns:x14="urn:x14" c="1"/></ext>'
        '</extLst></row><row r="2"><c r="A2" s="2"><v>2</v></c></row>'
    ),
    "formulas": sheet_of(
        '<row r="1"><c r="A1"><v>1</v></c><c r="B1" s="1"><f>A1+1</f><v>2</v></c>'
        '<c r="C1" t="str"><f>"x"&amp;A1</f><v>x1</v></c></row>'
        '<row r="2"><c r="A2"><v>2</v></c><c r="B2"><f t="shared" ref="B2:B4" si="0">A2*2</f><v>4</v></c></row>'
        '<row r="3"><c r="A3"><v>3</v></c><c r="B3"><f t="shared" si="0"/><v>6</v></c></row>'
        '<row r="4"><c r="A4"><v>4</v></c><c r="B4"><f t="shared" si="0"/><v>8</v></c></row>'
    ),
    "single-quoted attributes": sheet_of(
        "<row r='1' spans='1:2'><c r='A1' s='2'><v>1</v></c><c r='B1' t='inlineStr'><is><t>one</t></is></c></row>"
        "<row r='3'><c r='B3' s='1'><v>3</v></c></row><row r='5'><c r='A5'><v>5</v></c></row>"
    ),
    "row and column styles": (
        f'<worksheet xmlns="{NS}"><cols><col min="2" max="3" width="9" style="4" customWidth="1"/>'
        '<col min="5" max="5" style="0"/></cols><sheetData>'
        '<row r="1" s="6" customFormat="1"><c r="A1"><v>1</v></c></row>'
        '<row r="2" s="5"><c r="A2" s="1"><v>2</v></c></row>'
        '<row r="4" s="3" customFormat="1"/></sheetData></worksheet>'
    ).encode(),
    "empty sheetData": b'<worksheet xmlns="' + NS.encode() + b'"><sheetData/></worksheet>',
    "an empty row in the middle absent": sheet_of(numbered(1, 2, 5, 6)),
}

CHANGE_SETS = [
    {1: {1: 100}},
    {2: {1: 200, 2: "new text"}},
    {1: {3: 1.5}, 2: {4: True}},
    {3: {1: 300}},
    {4: {2: "four"}},
    {5: {1: 500, 6: False}},
    {1: {1: None}, 2: {2: ""}},
    {6: {1: 6}, 9: {3: "nine"}},
    {1: {2: 1}, 2: {1: 2}, 3: {3: 3}, 4: {4: 4}, 5: {5: 5}, 7: {1: 7}},
]


@pytest.mark.parametrize("name", list(ODD_SHEETS))
@pytest.mark.parametrize("changes", CHANGE_SETS, ids=[str(i) for i in range(len(CHANGE_SETS))])
def test_any_sheet_a_gms_tool_writes_gets_exactly_the_cells_meant(
    name: str, changes: dict[int, dict[int, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    sheet = ODD_SHEETS[name]
    if name == "formulas":
        sheet = xlsx_workbook.expand_shared(sheet, changes)  # as patch_workbook does before patching
    fast = check(sheet, changes)
    slow = walked(monkeypatch, sheet, changes)
    if read_cells(sheet)[0] == sorted(read_cells(sheet)[0]):
        assert read_cells(fast) == read_cells(slow)  # the search by number writes what the row walk writes


def test_a_changed_row_absent_in_the_middle_goes_between_its_neighbours() -> None:
    xml = check(ODD_SHEETS["an empty row in the middle absent"], {3: {1: 3}, 4: {2: 4}, 7: {1: 7}})
    assert read_cells(xml)[0] == [1, 2, 3, 4, 5, 6, 7]


def test_a_row_s_extlst_is_kept_when_a_cell_is_added_to_it() -> None:
    xml = check(ODD_SHEETS["rows with extLst"], {1: {2: 5}})
    assert b'<extLst><ext uri="{GM}"><x14:thing xmlns:x14="urn:x14" c="1"/></ext></extLst></row>' in xml


def test_a_new_cell_in_a_row_or_column_a_gm_formatted_whole_takes_that_formatting() -> None:
    xml = check(ODD_SHEETS["row and column styles"], {1: {2: 7}, 2: {3: 8, 5: 9, 6: 10}, 3: {2: "x"}, 4: {1: 1}})
    assert b'<c r="B1" s="6"><v>7</v></c>' in xml  # the row's, over the column's
    assert b'<c r="C2" s="4"><v>8</v></c><c r="E2"><v>9</v></c><c r="F2"><v>10</v></c>' in xml  # s=5: no customFormat
    assert b'<row r="3"><c r="B3" s="4" t="inlineStr">' in xml
    assert b'<c r="A4" s="3"><v>1</v></c>' in xml


def test_of_two_cells_with_one_reference_the_one_readers_keep_is_overwritten() -> None:
    xml = check(ODD_SHEETS["duplicate cells"], {1: {1: 9}, 2: {1: 8}})
    assert openpyxl_values(xml)[(1, 1)] == 9
    assert b'<c r="A1" s="2"><v>9</v></c></row>' in xml  # the later A1, its style kept


def test_a_shared_formula_master_overwritten_leaves_its_children_their_own_formulas() -> None:
    sheet = ODD_SHEETS["formulas"]
    changes = {2: {2: 0}}
    xml, replaced = patch_sheet(xlsx_workbook.expand_shared(sheet, changes), changes)
    assert replaced
    values = openpyxl_values(xml)
    assert (values[(2, 2)], values[(3, 2)], values[(4, 2)]) == (0, "=A3*2", "=A4*2")


@pytest.mark.parametrize(
    "value",
    [
        10**15,
        -(10**14),
        2**53 + 1,
        0.1 + 0.2,
        1e-300,
        -0.0,
        True,
        False,
        "a < b & c > d",
        '=SUM(A1:A9) "quoted"',
        "=1+1",
        "tab\there\nnewline",
        "bell\x07 and nul\x00 and \x1f",
        "  padded  ",
        "]]> <![CDATA[ x",
        "日本語 🏯",
        "x" * 32_767,
    ],
)
def test_every_kind_of_value_reads_back_as_written(value: Any) -> None:
    sheet = ODD_SHEETS["r not the first attribute"]
    xml = check(sheet, {2: {1: value, 5: value}, 3: {1: value}, 4: {2: value}})
    values = openpyxl_values(xml)
    if isinstance(value, str) and value.startswith("="):
        book = load(workbook(xml))
        assert book["Tab"]["A2"].data_type == "s"  # text, never a formula
    assert values[(2, 1)] == written(value, None)[1]


# --- random sheets, in order and shuffled -------------------------------------------------------------------

VALUES = st.one_of(
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.booleans(),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="\r"), max_size=12),
    st.none(),
)


def random_sheet(draw: Any, shuffle: bool) -> bytes:
    """Rows and cells as tools write them: r first or not, or left out where the format lets it be (the
    row or cell after the one before), spans, styles, self-closing elements, prefixed elements."""
    numbers = sorted(draw(st.sets(st.integers(1, 40), max_size=14)))
    if shuffle:
        numbers = draw(st.permutations(numbers))
    x = draw(st.sampled_from(["", "x:"]))
    rows, before = [], 0
    for n in numbers:
        cols = sorted(draw(st.sets(st.integers(1, 8), max_size=5)))
        if draw(st.booleans()) and not shuffle:
            cols = draw(st.permutations(cols))  # cells out of order too
        heads = [f'<{x}row r="{n}">', f'<{x}row spans="1:8" r="{n}">', f'<{x}row r="{n}" spans="1:8">']
        head = draw(st.sampled_from([*heads, f"<{x}row>"] if n == before + 1 else heads))
        before = n
        cells, left = [], 0
        for col in cols:
            ref = f"{column_letters(col)}{n}"
            style = draw(st.sampled_from(["", ' s="1"', ' s="6"']))
            tags = [f'<{x}c r="{ref}"{style}', f'<{x}c{style} r="{ref}"']
            tag = draw(st.sampled_from([*tags, f"<{x}c{style}"] if col == left + 1 else tags))
            left = col
            cells.append(
                draw(
                    st.sampled_from(
                        [
                            f"{tag}><{x}v>{col}</{x}v></{x}c>",
                            f"{tag}/>",
                            f'{tag} t="s"><{x}v>{col % 3}</{x}v></{x}c>',
                            f"{tag}><{x}f>1+{col}</{x}f><{x}v>2</{x}v></{x}c>",
                        ]
                    )
                )
            )
        rows.append(f"{head}{''.join(cells)}</{x}row>" if cells or draw(st.booleans()) else head[:-1] + "/>")
    return sheet_of("".join(rows), prefix=x[:-1])


@st.composite
def sheets_and_changes(draw: Any, shuffle: bool) -> tuple[bytes, dict[int, dict[int, Any]]]:
    sheet = random_sheet(draw, shuffle)
    changes = draw(
        st.dictionaries(
            st.integers(1, 45), st.dictionaries(st.integers(1, 10), VALUES, min_size=1, max_size=4), max_size=10
        )
    )
    return sheet, changes


@settings(FUZZ, max_examples=examples(200))
@given(sheets_and_changes(shuffle=False))
def test_random_in_order_sheets_get_exactly_the_cells_meant_as_the_walk_writes_them(case: Any) -> None:
    sheet, changes = case
    fast = check(sheet, changes)
    original = xlsx_patch._patch_numbered
    xlsx_patch._patch_numbered = lambda *_: None
    try:
        slow = check(sheet, changes)
    finally:
        xlsx_patch._patch_numbered = original
    assert read_cells(fast) == read_cells(slow)


@settings(FUZZ, max_examples=examples(200))
@given(sheets_and_changes(shuffle=True))
def test_random_shuffled_sheets_never_get_a_row_twice(case: Any) -> None:
    sheet, changes = case
    check(sheet, changes)
    original = xlsx_patch._patch_numbered
    xlsx_patch._patch_numbered = lambda *_: None
    try:
        check(sheet, changes)
    finally:
        xlsx_patch._patch_numbered = original


@settings(FUZZ, max_examples=examples(100))
@given(sheets_and_changes(shuffle=True), st.integers(1, 50), st.integers(0, 4))
def test_random_appended_rows_never_meet_a_row_twice(case: Any, first: int, count: int) -> None:
    sheet, changes = case
    block = Appended(first, (1, 3), [(f"h{i}", i) for i in range(count)])
    if lands_on_a_value(sheet, (block,)):  # over a value: refused, nothing written
        with pytest.raises(PatchError, match="holds a value already"):
            patch_sheet(sheet, changes, (block,))
    else:
        check(sheet, changes, (block,))


# --- whole workbooks ----------------------------------------------------------------------------------------


def workbook_cells(data: bytes) -> dict[tuple[int, int], Any]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        xml = archive.read("xl/worksheets/sheet1.xml")
    numbers, _ = read_cells(xml)
    assert len(numbers) == len(set(numbers))
    book = load(data)
    return {(c.row, c.column): c.value for row in book["Tab"].iter_rows() for c in row if c.value is not None}


def test_patch_workbook_over_a_sheet_saved_out_of_order() -> None:
    source = workbook(OUT_OF_ORDER)
    target = io.BytesIO()
    patch_workbook(source, target, {"Tab": {4: {1: 44}, 3: {2: "three"}, 6: {1: 6}}})
    assert workbook_cells(target.getvalue()) == {
        (1, 1): 1, (1, 3): 10, (2, 1): 2, (2, 3): 20, (3, 1): 3, (3, 2): "three", (3, 3): 30,
        (4, 1): 44, (4, 3): 40, (5, 1): 5, (5, 3): 50, (6, 1): 6,
    }  # fmt: skip


def test_the_workbook_store_reads_then_writes_a_sheet_saved_out_of_order(tmp_path: Path) -> None:
    path = tmp_path / "odd.xlsx"
    path.write_bytes(workbook(OUT_OF_ORDER))
    store = WorkbookStore(path)
    assert store.read()["Tab"].rows[:3] == [(2, [2, "", 20]), (3, [3, "", 30]), (4, [4, "", 40])]
    store.write([CellWrite("Tab", 4, 2, "four"), CellWrite("Tab", 5, 1, 55), CellWrite("Tab", 7, 1, 7)])
    cells = workbook_cells(path.read_bytes())
    assert {key: cells[key] for key in [(4, 1), (4, 2), (5, 1), (5, 3), (7, 1)]} == {
        (4, 1): 4, (4, 2): "four", (5, 1): 55, (5, 3): 50, (7, 1): 7,
    }  # fmt: skip
    store.write([CellWrite("Tab", 4, 2, "again")])  # no read between: builds on what it wrote
    assert workbook_cells(path.read_bytes()) == {**cells, (4, 2): "again"}
    assert WorkbookStore(path).read()["Tab"].rows[2] == (4, [4, "again", 40])


def test_random_shuffles_through_the_store(tmp_path: Path) -> None:
    rng = random.Random(15)
    for attempt in range(20):
        numbers = rng.sample(range(1, 30), 12)
        path = tmp_path / f"book{attempt}.xlsx"
        path.write_bytes(workbook(sheet_of(numbered(*numbers))))
        before = workbook_cells(path.read_bytes())
        store = WorkbookStore(path)
        store.read()
        changes = {rng.randint(1, 32): {rng.randint(1, 4): rng.randint(0, 99)} for _ in range(8)}
        store.write([CellWrite("Tab", r, c, v) for r, values in changes.items() for c, v in values.items()])
        after = dict(before)
        for r, values in changes.items():
            for c, v in values.items():
                after[(r, c)] = v
        assert workbook_cells(path.read_bytes()) == after


def test_rows_appended_to_a_sheet_this_writer_saved_out_of_order_meet_no_row(tmp_path: Path) -> None:
    # the first write segments the sheet (the next append copies its rows compressed): its segments must
    # know row 5 is there though the last row element is 3
    once = io.BytesIO()
    patch_workbook(workbook(OUT_OF_ORDER), once, {"Tab": {1: {2: "one"}}})
    rows = SheetWrites([Appended(4, (2,), [("four",), ("five",), ("six",)])])
    twice = io.BytesIO()
    patch_workbook(once.getvalue(), twice, {"Tab": rows})
    cells = workbook_cells(twice.getvalue())
    assert {key: cells.get(key) for key in [(4, 1), (4, 2), (5, 1), (5, 2), (6, 2)]} == {
        (4, 1): 4, (4, 2): "four", (5, 1): 5, (5, 2): "five", (6, 2): "six",
    }  # fmt: skip


# --- the sheet XML the read inflated, reused by the write -------------------------------------------------


def campaign(tmp_path: Path) -> WorkbookStore:
    store = WorkbookStore(tmp_path / "campaign.xlsx")
    store.create(
        {
            "Provinces": [["Province", "Tax"], ["Edo", 1], ["Kyo", 2]],
            "Clans": [["Clan", "Gold"], ["Oda", 10]],
            "History": [["Turn", "Note"], [1, "begun"]],
        }
    )
    return store


def values(path: Path) -> dict[str, list[list[Any]]]:
    book = openpyxl.load_workbook(path)
    return {sheet.title: [list(row) for row in sheet.iter_rows(values_only=True)] for sheet in book}


def test_a_write_after_a_read_of_some_tabs_patches_the_others_as_they_are_on_disk(tmp_path: Path) -> None:
    store = campaign(tmp_path)
    store.read(only=["Provinces"])
    store.write([CellWrite("Provinces", 2, 2, 5), CellWrite("Clans", 2, 2, 11), CellWrite("History", 3, 1, 2)])
    store.read(headers_only=["History"])
    store.write([CellWrite("History", 2, 2, "begun again"), CellWrite("Clans", 3, 1, "Takeda")])
    assert values(store.path) == {
        "Provinces": [["Province", "Tax"], ["Edo", 5], ["Kyo", 2]],
        "Clans": [["Clan", "Gold"], ["Oda", 11], ["Takeda", None]],
        "History": [["Turn", "Note"], [1, "begun again"], [2, None]],
    }


def test_a_failed_write_leaves_the_next_one_to_patch_the_file_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = campaign(tmp_path)
    store.read()
    with pytest.raises(StoreError, match="no tab named Nowhere"):
        store.write([CellWrite("Provinces", 2, 2, 7), CellWrite("Nowhere", 1, 1, 1)])
    renames = []

    def refuse(source: str, target: str) -> None:
        renames.append(target)
        raise OSError(errno.EIO, "I/O error")

    with monkeypatch.context() as failing:
        failing.setattr(xlsx.os, "replace", refuse)
        with pytest.raises(OSError, match="I/O error"):
            store.write([CellWrite("Provinces", 3, 2, 8)])
    assert renames  # the second write failed at its very end, with its file complete
    store.write([CellWrite("Clans", 2, 2, 12)])
    assert values(store.path)["Provinces"] == [["Province", "Tax"], ["Edo", 1], ["Kyo", 2]]
    assert values(store.path)["Clans"] == [["Clan", "Gold"], ["Oda", 12]]


def test_a_gm_save_between_read_and_write_is_refused_and_the_next_read_writes_over_the_save(tmp_path: Path) -> None:
    store = campaign(tmp_path)
    store.read()
    book = openpyxl.load_workbook(store.path)
    book["Provinces"]["B3"] = 99  # the GM's edit, saved
    book["Provinces"]["C2"] = "GM note"
    book.save(store.path)
    saved = store.path.read_bytes()
    with pytest.raises(WorkbookChanged):
        store.write([CellWrite("Provinces", 2, 2, 5)])
    assert store.path.read_bytes() == saved
    store.read()
    store.write([CellWrite("Provinces", 2, 2, 5)])
    assert values(store.path)["Provinces"] == [["Province", "Tax", None], ["Edo", 5, "GM note"], ["Kyo", 99, None]]
