"""A GM's formulas and error cells on Google, handled as the workbook store handles them (issue 25).

The read that gives the values gives the formulas too (each cell's `userEnteredValue.formulaValue`
beside its `effectiveValue`), so: `validate` lists a formula in a cell the engine may write as a
warning; `resolve` stops, exit 2 naming the cells, before writing over one, unless
`--overwrite-formulas`; an error cell in a column the engine reads is a validation error; a player's
text `=IMPORTXML(...)`, stored as text, is no formula. And a turn still makes its five requests.
Against the stand-in of the Sheets API on 127.0.0.1 (tests/test_odd_workbooks.py has the same cases
for a workbook).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sheets_engine import app
from sheets_engine.core.problems import InvalidCampaign
from sheets_engine.core.store import CellWrite
from sheets_engine.stores.gsheets import GoogleSheetsStore
from sheets_engine.stores.gsheets_http import RetryPolicy
from sheets_engine.stores.guard import ConflictError
from tests.gsheets_support import kinds, run_cli
from tests.standin.campaigns import demo_tabs
from tests.standin.fake_sheets import GRID_READ, FakeSheets
from tests.standin.keys import TEST_ACCOUNT, write_key_file
from tests.standin.server import serve

KEY = "1FormulasCampaign00000000000000000000000000"
QUICK = RetryPolicy(sleep=lambda seconds: None, attempts=2)
PLAYER_TEXT = '=IMPORTXML("https://example.com/spy","//title")'


class Sheet:
    """The stand-in, served, with the demo campaign laid out (Oda's Treasury, Clans!B2, holds 32)."""

    def __init__(self, fake: FakeSheets, root: str, tmp: Path) -> None:
        self.fake, self.root = fake, root
        self.key_file = write_key_file(tmp, token_uri=f"{root}/token")

    def store(self) -> GoogleSheetsStore:
        return GoogleSheetsStore.open(f"gsheet:{KEY}", self.key_file, api_root=self.root, retry=QUICK)

    def cli(self, capsys: Any, monkeypatch: Any, *args: str) -> tuple[int, str, str]:
        monkeypatch.setattr("sheets_engine.cli.common.store_for", lambda source: self.store())
        return run_cli([*args[:1], f"gsheet:{KEY}", *args[1:]], capsys, monkeypatch)

    def cells(self) -> dict[str, Any]:
        return {s.title: dict(s.cells) for s in self.fake.spreadsheets[KEY].sheets}


@pytest.fixture
def sheet(tmp_path: Path) -> Iterator[Sheet]:
    fake = FakeSheets()
    with serve(fake) as root:
        fake.add_spreadsheet(KEY, "formulas", editors=[TEST_ACCOUNT])
        laid = Sheet(fake, root, tmp_path)
        laid.store().create(demo_tabs(), overwrite=True)
        fake.served.clear()
        yield laid


def test_validate_lists_a_formula_the_engine_may_overwrite_and_resolve_refuses_to_replace_it(
    sheet: Sheet, capsys: Any, monkeypatch: Any
) -> None:
    """Oda's Treasury =C2*5+2 (32, as Google computed it): turn 1 taxes Owari, so resolve would write over it."""
    sheet.fake.put_formula(KEY, "Clans!B2", "=C2*5+2", 32)
    warned = [(p.tab, p.row, p.column, p.value, p.severity.value) for p in app.validate(sheet.store())]
    assert ("Clans", 2, "Treasury", "=C2*5+2", "warning") in warned
    before = sheet.cells()
    code, out, err = sheet.cli(capsys, monkeypatch, "resolve", "--force")
    assert code == 2
    assert "=C2*5+2" in out and "--overwrite-formulas" in out
    assert err == "Error: 1 problem (1 error) in the campaign; nothing was written\n"
    assert sheet.cells() == before
    assert [s.kind for s in sheet.fake.served if s.kind == "write"] == []
    code, _, err = sheet.cli(capsys, monkeypatch, "resolve", "--force", "--overwrite-formulas")
    assert code == 0, err
    assert sheet.fake.cell(KEY, "Clans", 2, 2) == ("number", 42)  # 32 and Owari's tax of turn 1


def test_the_formula_refusal_names_each_cell(sheet: Sheet) -> None:
    sheet.fake.put_formula(KEY, "Clans!B2", "=C2*5+2", 32)
    with pytest.raises(InvalidCampaign) as refused:
        app.resolve(sheet.store(), force=True)
    assert [(p.tab, p.row, p.column, p.value) for p in refused.value.problems] == [("Clans", 2, "Treasury", "=C2*5+2")]
    assert refused.value.problems[0].expected == (
        "a value the engine may change: this run would replace the formula with 42; move the formula to a "
        "column of your own, or run again with --overwrite-formulas"
    )


def test_a_players_text_that_starts_with_equals_is_no_formula(sheet: Sheet) -> None:
    """Stored as text (a stringValue), it has no formulaValue: not listed, not refused, read as that text."""
    header = sheet.fake.values(KEY, "Form Responses 1")[0]
    sheet.fake.put_values(KEY, f"'Form Responses 1'!{chr(64 + header.index('Detail') + 1)}2", [[PLAYER_TEXT]])
    sheet.fake.put_values(KEY, "Clans!K2", [[PLAYER_TEXT]])  # and in a GM's own column of a written tab
    assert [p for p in app.validate(sheet.store()) if p.value == PLAYER_TEXT] == []
    raw = sheet.store().read()
    assert raw["Clans"].formulas == {} and raw["Clans"].rows[0][1][10] == PLAYER_TEXT
    report = app.resolve(sheet.store(), force=True)
    assert report.summary["resolved"] is True


@pytest.mark.parametrize("error", [("DIVIDE_BY_ZERO", "#DIV/0!"), ("REF", "#REF!"), ("N_A", "#N/A")])
def test_an_error_cell_in_a_read_column_is_a_validation_error_naming_tab_row_column_and_error(
    sheet: Sheet, error: tuple[str, str], capsys: Any, monkeypatch: Any
) -> None:
    """Oda's Treasury holds a broken formula: not read as a value, and nothing written over it."""
    kind, shown = error
    sheet.fake.put_formula(KEY, "Clans!B2", "=B9/0", error=kind)
    problems = [
        (p.tab, p.row, p.column, p.value, p.expected) for p in app.validate(sheet.store()) if p.severity == "error"
    ]
    assert problems == [("Clans", 2, "Treasury", shown, "a value, not an error: correct the formula or type the value")]
    before = sheet.cells()
    code, _, err = sheet.cli(capsys, monkeypatch, "resolve", "--force")
    assert code == 2 and err == "Error: 3 problems (1 error, 2 warnings) in the campaign; nothing was written\n"
    assert sheet.cells() == before


def test_a_gms_formulas_in_columns_of_their_own_cost_no_request(sheet: Sheet, capsys: Any, monkeypatch: Any) -> None:
    """A turn with GM formulas beside the engine's columns: token, metadata, read, guard, write; the formulas stay."""
    for row in range(2, 7):
        sheet.fake.put_formula(KEY, f"Clans!K{row}", f"=B{row}*2", 64)
    code, out, _ = sheet.cli(capsys, monkeypatch, "resolve", "--force", "--json")
    assert code == 0 and json.loads(out)["status"] == "ok"
    assert kinds(sheet.fake.served) == ["token", "metadata", "read", "guard", "write"]
    assert sheet.fake.cell(KEY, "Clans", 2, 11) == ("formula", "=B2*2")


def test_a_formula_typed_into_a_cell_during_the_run_stops_it_even_when_it_computes_the_same(sheet: Sheet) -> None:
    """The guard compares formulas too: 32 replaced by =30+2 (which shows 32) is a GM's edit."""
    store = sheet.store()
    store.read()
    sheet.fake.before(GRID_READ, lambda fake: fake.put_formula(KEY, "Clans!B2", "=30+2", 32))
    with pytest.raises(ConflictError) as conflict:
        store.write([CellWrite("Clans", 2, 2, 42)])
    assert [str(c) for c in conflict.value.conflicts] == ["Clans!B2: was 32, now '=30+2'"]
    assert sheet.fake.cell(KEY, "Clans", 2, 2) == ("formula", "=30+2")
