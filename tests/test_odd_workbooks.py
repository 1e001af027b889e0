"""Workbooks as GMs' programs save them (issue 13): error cells, formulas, far-away cells, rows without `r`.

Each one is either a clear error naming the cell (exit 2, nothing written) or resolves correctly;
none is read as a silent 0, and none prints a traceback. The workbooks are the demo's, with the
sheet XML edited the way Excel, LibreOffice or a script would have saved it.
"""

from __future__ import annotations

import re
import resource
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from openpyxl import load_workbook

from sheets_engine import app
from sheets_engine.cli import main
from sheets_engine.core.problems import InvalidCampaign
from sheets_engine.stores.base import CellWrite
from sheets_engine.stores.xlsx import WorkbookStore
from sheets_engine.stores.xlsx_workbook import recalculate_on_load, sheet_parts

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    path = tmp_path / "campaign.xlsx"
    app.init(str(path), demo=True)
    return path


def edit_sheet(path: Path, tab: str, change: Callable[[bytes], bytes]) -> None:
    """Rewrite one tab's sheet XML inside the workbook."""
    with zipfile.ZipFile(path) as archive:
        target = sheet_parts(archive)[tab]
        items = [(info, archive.read(info.filename)) for info in archive.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info, data in items:
            out.writestr(info, change(data) if info.filename == target else data)


def edit_part(path: Path, part: str, change: Callable[[bytes], bytes]) -> None:
    """Rewrite one part of the workbook's zip."""
    with zipfile.ZipFile(path) as archive:
        items = [(info, archive.read(info.filename)) for info in archive.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info, data in items:
            out.writestr(info, change(data) if info.filename == part else data)


def test_calc_settings_excel_wrote_get_full_calc_on_load() -> None:
    """Excel's own <calcPr calcId="191029"/> keeps its attributes and gains fullCalcOnLoad."""
    workbook = b'<workbook xmlns="x"><sheets/><calcPr calcId="191029"/></workbook>'
    assert (
        recalculate_on_load(workbook)
        == b'<workbook xmlns="x"><sheets/><calcPr calcId="191029" fullCalcOnLoad="1"/></workbook>'
    )
    bare = b'<x:workbook xmlns:x="x"><x:sheets/><x:extLst/></x:workbook>'
    assert (
        recalculate_on_load(bare)
        == b'<x:workbook xmlns:x="x"><x:sheets/><x:calcPr fullCalcOnLoad="1"/><x:extLst/></x:workbook>'
    )


def put_cell(path: Path, tab: str, ref: str, xml: str) -> None:
    """Replace the cell at `ref` with this <c> element (the cell must exist)."""

    def change(data: bytes) -> bytes:
        pattern = rb'<c r="' + ref.encode() + rb'"[^>]*?(?:/>|>.*?</c>)'
        assert re.search(pattern, data), ref
        return re.sub(pattern, xml.encode(), data, count=1)

    edit_sheet(path, tab, change)


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`sheets-engine ARGS` in this process, as main() maps its exit codes."""
    sys.argv = ["sheets-engine", *args]
    code = 0
    try:
        main()
    except SystemExit as done:
        code = int(done.code or 0)
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    return code, out.out, out.err


def game_turn(path: Path) -> int:
    game = WorkbookStore(path).read(only=["Game"])["Game"]
    return int(next(cells[1] for _, cells in game.rows if cells[0] == "turn"))


def errors(path: Path) -> list[tuple[str, int | None, str, object, str]]:
    return [(p.tab, p.row, p.column, p.value, p.expected) for p in app.validate(str(path)) if p.severity == "error"]


# Error cells ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("error", ["#DIV/0!", "#REF!", "#N/A"])
def test_an_error_cell_in_a_read_column_is_a_validation_error_naming_tab_row_column_and_error(
    demo: Path, error: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Oda's Treasury (Clans B2, 32) holds a broken formula: not read as 0, and nothing written over it."""
    put_cell(demo, "Clans", "B2", f'<c r="B2" t="e"><f>B9/0</f><v>{error}</v></c>')
    assert errors(demo) == [
        ("Clans", 2, "Treasury", error, "a value, not an error: correct the formula or type the value")
    ]
    before = demo.read_bytes()
    code, _, err = cli(capsys, "resolve", str(demo))
    assert code == 2
    assert err == "Error: 3 problems (1 error, 2 warnings) in the campaign; nothing was written\n"
    assert demo.read_bytes() == before


def test_an_error_cell_in_a_gms_own_column_is_left_alone(demo: Path) -> None:
    """Column K of Clans is no column of the engine's: a GM's #N/A there is none of its business."""
    edit_sheet(demo, "Clans", lambda x: x.replace(b"</c></row>", b'</c><c r="K2" t="e"><v>#N/A</v></c></row>', 1))
    assert errors(demo) == []


# Formulas ------------------------------------------------------------------------------------------


def test_a_formula_with_no_computed_value_in_a_read_cell_is_an_error(demo: Path) -> None:
    """Saved by a program that does not calculate: calamine reads it as empty, which is not 0."""
    put_cell(demo, "Clans", "B2", '<c r="B2"><f>SUM(C2:D2)*4</f></c>')
    assert errors(demo) == [
        (
            "Clans", 2, "Treasury", "=SUM(C2:D2)*4",
            "a value: this formula was saved with no value computed (open the workbook in Excel or LibreOffice "
            "and save it, or type the value)",
        )
    ]  # fmt: skip


def test_validate_lists_a_formula_the_engine_may_overwrite_and_resolve_refuses_to_replace_it(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Oda's Treasury =C2*5+2 (32, computed): turn 1 taxes Owari, so resolve would write over it."""
    put_cell(demo, "Clans", "B2", '<c r="B2"><f>C2*5+2</f><v>32</v></c>')
    warned = [(p.tab, p.row, p.column, p.value, p.severity.value) for p in app.validate(str(demo))]
    assert ("Clans", 2, "Treasury", "=C2*5+2", "warning") in warned
    before = demo.read_bytes()
    code, out, err = cli(capsys, "resolve", str(demo))
    assert code == 2
    assert "=C2*5+2" in out and "--overwrite-formulas" in out
    assert err == "Error: 1 problem (1 error) in the campaign; nothing was written\n"
    assert demo.read_bytes() == before
    code, _, _ = cli(capsys, "resolve", str(demo), "--overwrite-formulas")
    assert code == 0
    book = load_workbook(demo)
    assert book["Clans"]["B2"].value == 42  # 32 and Owari's tax of turn 1
    assert game_turn(demo) == 2


def test_the_formula_refusal_names_each_cell(demo: Path) -> None:
    put_cell(demo, "Clans", "B2", '<c r="B2"><f>C2*5+2</f><v>32</v></c>')
    with pytest.raises(InvalidCampaign) as refused:
        app.resolve(str(demo))
    assert [(p.tab, p.row, p.column, p.value) for p in refused.value.problems] == [("Clans", 2, "Treasury", "=C2*5+2")]
    assert refused.value.problems[0].expected == (
        "a value the engine may change: this run would replace the formula with 42; move the formula to a "
        "column of your own, or run again with --overwrite-formulas"
    )


def _shared_workbook(path: Path) -> None:
    """A tab T: B2:B4 hold 3, 4, 5; A2:A4 hold the fill-down =B2*2 (Excel's shared formula, master A2)."""
    WorkbookStore(path).create({"T": [["A", "B"], [None, 3], [None, 4], [None, 5]]})
    edit_sheet(
        path,
        "T",
        lambda x: (
            x.replace(b'<row r="2">', b'<row r="2"><c r="A2"><f t="shared" ref="A2:A4" si="0">B2*2</f><v>6</v></c>')
            .replace(b'<row r="3">', b'<row r="3"><c r="A3"><f t="shared" si="0"/><v>8</v></c>')
            .replace(b'<row r="4">', b'<row r="4"><c r="A4"><f t="shared" si="0"/><v>10</v></c>')
        ),
    )


def test_overwriting_the_master_of_a_shared_formula_keeps_its_children_valid(tmp_path: Path) -> None:
    path = tmp_path / "shared.xlsx"
    _shared_workbook(path)
    assert load_workbook(path)["T"]["A3"].value == "=B3*2"  # openpyxl expands a child it can find the master of
    WorkbookStore(path).write([CellWrite("T", 2, 1, 7)])
    sheet = load_workbook(path)["T"]
    assert [sheet[f"A{n}"].value for n in (2, 3, 4)] == [7, "=B3*2", "=B4*2"]


def test_a_write_makes_the_workbook_recalculate_on_load(tmp_path: Path) -> None:
    """=N2*2 must not keep showing 6 after N2 went to 0: Excel and LibreOffice recalculate on opening."""
    path = tmp_path / "shared.xlsx"
    _shared_workbook(path)
    edit_part(path, "xl/workbook.xml", lambda x: re.sub(rb"<calcPr[^>]*/>", b"", x))  # as Excel saves it
    WorkbookStore(path).write([CellWrite("T", 2, 2, 0)])
    with zipfile.ZipFile(path) as archive:
        workbook = archive.read("xl/workbook.xml")
    assert workbook.count(b'fullCalcOnLoad="1"') == 1
    assert load_workbook(path).calculation.fullCalcOnLoad is True
    WorkbookStore(path).write([CellWrite("T", 3, 2, 1)])  # a second write keeps the one setting
    with zipfile.ZipFile(path) as archive:
        assert archive.read("xl/workbook.xml").count(b"calcPr") == 1


# Far-away cells --------------------------------------------------------------------------------------


def _far_cell(path: Path, tab: str) -> None:
    """One value at XFD200000 (a GM's stray keystroke: 3.2 billion cells as a grid)."""
    book = load_workbook(path)
    if tab not in book.sheetnames:
        book.create_sheet(tab)["A1"] = "notes"
    sheet = book[tab]
    sheet["XFD200000"] = "x"
    book.save(path)


def _bounded(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m sheets_engine ARGS` with its memory capped at 2 GiB, so a dense grid fails fast."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    return subprocess.run(
        [sys.executable, "-m", "sheets_engine", *args],
        capture_output=True, text=True, cwd=ROOT, preexec_fn=cap, timeout=300, check=False,
    )  # fmt: skip


def test_a_far_away_value_in_a_gms_own_tab_is_never_read(demo: Path) -> None:
    _far_cell(demo, "GM Notes")
    checked = _bounded("validate", str(demo), "--json")
    assert checked.returncode == 0, checked.stderr
    assert "Traceback" not in checked.stderr
    resolved = _bounded("resolve", str(demo), "--json")
    assert resolved.returncode == 0, resolved.stderr
    assert game_turn(demo) == 2


def test_a_far_away_value_in_a_read_tab_is_a_clear_error(demo: Path) -> None:
    _far_cell(demo, "Provinces")
    checked = _bounded("validate", str(demo))
    assert checked.returncode == 2, checked.stderr
    assert checked.stderr == (
        f"Error: {demo}: the Provinces tab reaches cell XFD200000, far beyond any campaign's data (more than "
        "25,000,000 cells to read); clear the far-away cells (Ctrl+End finds the last one) and run again\n"
    )


# Rows without r --------------------------------------------------------------------------------------


def test_rows_without_the_optional_r_attribute_get_no_duplicate_rows(demo: Path) -> None:
    """r on <row> is optional in the format; a resolve must patch Oda's row, not append a copy."""
    edit_sheet(demo, "Clans", lambda x: re.sub(rb'<row r="\d+"', b"<row", x))
    clans = WorkbookStore(demo).read()["Clans"]
    assert [n for n, _ in clans.rows] == [2, 3, 4, 5, 6]
    app.resolve(str(demo))
    after = WorkbookStore(demo).read()["Clans"]
    assert [(n, cells[0]) for n, cells in after.rows] == [(n, cells[0]) for n, cells in clans.rows]
    assert after.rows[0][1][1] == 42  # Oda's Treasury, taxed in place
    with zipfile.ZipFile(demo) as archive:
        xml = archive.read(sheet_parts(archive)["Clans"])
    assert xml.count(b"<row") == 6  # Excel calls a workbook with row 2 twice corrupt; calamine shows the last


def test_a_far_away_value_in_history_is_a_clear_error_too(demo: Path) -> None:
    """History is read for its header and length only, but calamine would still lay out its grid."""
    _far_cell(demo, "History")
    checked = _bounded("resolve", str(demo))
    assert checked.returncode == 2, checked.stderr
    assert "the History tab reaches cell XFD200000" in checked.stderr


def test_validate_names_a_fill_down_formulas_cells_with_their_own_formulas(demo: Path) -> None:
    """Oda's and Imagawa's Treasury filled down from B2 (=C2*5+2): B3 reads as =C3*5+2."""
    put_cell(demo, "Clans", "B2", '<c r="B2"><f t="shared" ref="B2:B3" si="0">C2*5+2</f><v>32</v></c>')
    put_cell(demo, "Clans", "B3", '<c r="B3"><f t="shared" si="0"/><v>38</v></c>')
    found = [(p.row, p.column, p.value) for p in app.validate(str(demo)) if p.tab == "Clans"]
    assert found == [(2, "Treasury", "=C2*5+2"), (3, "Treasury", "=C3*5+2")]
