"""The Google Sheet stays the GMs' (issue 12): the guard sees every edit the write relies on.

Against the stand-in of the Sheets API on 127.0.0.1 (checked against Google's own recordings in
test_gsheets_standin.py). A GM acts between the engine's read and its write: a value changed, a
row or column inserted or deleted, a tab renamed, a row typed below a grid that was exactly full
(the rows the engine appends would land on it). Each time the run exits 3, nothing is written, and
it made no more than its five requests (token, metadata, read, the guard's re-read; no write).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from sheets_engine import app
from sheets_engine.stores.gsheets import GoogleSheetsStore
from sheets_engine.stores.gsheets_http import RetryPolicy
from sheets_engine.stores.guard import column_letter
from tests.gsheets_support import kinds, run_cli
from tests.standin.campaigns import demo_tabs
from tests.standin.fake_sheets import FakeSheets
from tests.standin.keys import TEST_ACCOUNT, write_key_file
from tests.standin.scenarios import EditAfterRead
from tests.standin.server import serve

KEY = "1GuardCampaign00000000000000000000000000000"
NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
QUICK = RetryPolicy(sleep=lambda seconds: None, attempts=3)


class Sheet:
    """The stand-in, served, with the demo campaign laid out."""

    def __init__(self, fake: FakeSheets, root: str, tmp: Path) -> None:
        self.fake, self.root = fake, root
        self.key_file = write_key_file(tmp, token_uri=f"{root}/token")

    def store(self) -> GoogleSheetsStore:
        return GoogleSheetsStore.open(f"gsheet:{KEY}", self.key_file, api_root=self.root, retry=QUICK)

    def snapshot(self) -> dict[str, Any]:
        """Every tab's properties (title, grid size) and cells."""
        return copy.deepcopy(
            {s.properties["sheetId"]: (s.properties, dict(s.cells)) for s in self.fake.spreadsheets[KEY].sheets}
        )

    def sheet_id(self, title: str) -> int:
        return self.fake.sheet_id(KEY, title)

    def rows(self, title: str) -> list[list[Any]]:
        return self.fake.values(KEY, title)


@pytest.fixture
def sheet(tmp_path: Path) -> Iterator[Sheet]:
    fake = FakeSheets()
    with serve(fake) as root:
        fake.add_spreadsheet(KEY, "guard", editors=[TEST_ACCOUNT])
        laid = Sheet(fake, root, tmp_path)
        laid.store().create(demo_tabs(), overwrite=True)
        yield laid


def resolve_while_a_gm_acts(
    sheet: Sheet, act: Callable[[Sheet], None], capsys: Any, monkeypatch: Any
) -> tuple[int, str, list[str], dict[str, Any]]:
    """`sheets-engine resolve` with the GM's act between its read and its write: (exit code, stderr,
    the requests the run made, the spreadsheet just after the GM's act)."""
    after_gm: dict[str, Any] = {}

    def gm() -> None:
        act(sheet)
        after_gm.update(sheet.snapshot())

    monkeypatch.setattr("sheets_engine.cli.common.store_for", lambda source: EditAfterRead(sheet.store(), gm))
    served = len(sheet.fake.served)
    code, _, err = run_cli(["resolve", f"gsheet:{KEY}", "--force"], capsys, monkeypatch)
    return code, err, kinds(sheet.fake.served[served:]), after_gm


def header_column(sheet: Sheet, title: str, name: str) -> int:
    """The 1-based column of a header."""
    return sheet.rows(title)[0].index(name) + 1


def change_treasury(sheet: Sheet) -> None:
    column = header_column(sheet, "Clans", "Treasury")
    sheet.fake.put_values(KEY, f"'Clans'!{column_letter(column)}2", [[999]])


def insert_province_column(sheet: Sheet) -> None:
    """A GM inserts a column in Provinces, left of Tax Regen: every derived value would land one column off."""
    at = header_column(sheet, "Provinces", "Tax Regen") - 1
    sheet.fake.gm_update(KEY, {"insertDimension": {"range": {"sheetId": sheet.sheet_id("Provinces"),
                         "dimension": "COLUMNS", "startIndex": at, "endIndex": at + 1}}})  # fmt: skip


def delete_character_row(sheet: Sheet) -> None:
    """A GM deletes the third character: every row below moves up, and the engine's writes would land one off."""
    sheet.fake.gm_update(KEY, {"deleteDimension": {"range": {"sheetId": sheet.sheet_id("Characters"),
                         "dimension": "ROWS", "startIndex": 2, "endIndex": 3}}})  # fmt: skip


def insert_army_row(sheet: Sheet) -> None:
    sheet.fake.gm_update(KEY, {"insertDimension": {"range": {"sheetId": sheet.sheet_id("Armies"),
                         "dimension": "ROWS", "startIndex": 2, "endIndex": 3}}})  # fmt: skip


def rename_armies(sheet: Sheet) -> None:
    sheet.fake.gm_update(KEY, {"updateSheetProperties": {"properties": {"sheetId": sheet.sheet_id("Armies"),
                         "title": "Armies (old)"}, "fields": "title"}})  # fmt: skip


def full_orders_grid(sheet: Sheet) -> int:
    """Make the Orders grid exactly as long as its rows (as the engine's own appends leave it); its row count.
    (The demo's Orders is its header alone: the GM unfreezes it, Google freezing never all of a grid's rows.)"""
    height = len(sheet.rows("Orders"))
    sheet.fake.gm_update(KEY, {"updateSheetProperties": {"properties": {"sheetId": sheet.sheet_id("Orders"),
                         "gridProperties": {"rowCount": height, "frozenRowCount": 0}},
                         "fields": "gridProperties.rowCount,gridProperties.frozenRowCount"}})  # fmt: skip
    return height


def type_order_below_the_full_grid(sheet: Sheet) -> None:
    """The GM adds a row below the full grid (Google's "add rows" at the bottom) and types an order in it."""
    height = len(sheet.rows("Orders"))
    sheet.fake.gm_update(KEY, {"appendDimension": {"sheetId": sheet.sheet_id("Orders"), "dimension": "ROWS",
                                                   "length": 1}})  # fmt: skip
    header = sheet.rows("Orders")[0]
    row = dict.fromkeys(header, "")
    row.update({"Turn": 1, "Character": "Oda Nobunaga", "Order": "muster", "Target": "Owari", "Detail": "by hand"})
    sheet.fake.put_values(KEY, f"'Orders'!A{height + 1}", [[row[h] for h in header]])


def test_a_changed_value_exits_3_with_nothing_written(sheet: Sheet, capsys: Any, monkeypatch: Any) -> None:
    code, err, made, after_gm = resolve_while_a_gm_acts(sheet, change_treasury, capsys, monkeypatch)
    assert code == 3
    assert err == (
        f"Error: gsheet:{KEY} changed while the engine was working (1 cell: Clans!B2: was 32, now 999). "
        "Nothing was written. Run the command again: it will read the new values.\n"
    )
    assert made == ["token", "metadata", "read", "guard"]
    assert sheet.snapshot() == after_gm


RESHAPES = {
    "an inserted column (Provinces)": (
        insert_province_column,
        "Provinces: its grid was 1000 rows x 27 columns, now 1000 x 28 (rows or columns inserted, deleted or added); "
        "Provinces!R1: was 'Tax Regen', now empty; Provinces!S1: was 'Manpower Regen', now 'Tax Regen'",
    ),
    "a deleted row (Characters)": (
        delete_character_row,
        "Characters: its grid was 1000 rows x 26 columns, now 999 x 26 (rows or columns inserted, deleted or added)",
    ),
    "an inserted row (Armies)": (
        insert_army_row,
        "Armies: its grid was 1000 rows x 26 columns, now 1001 x 26 (rows or columns inserted, deleted or added)",
    ),
    "a renamed tab (Armies)": (rename_armies, "Armies: renamed to 'Armies (old)'"),
}
# Google refuses the re-read of a range in a tab no longer there under its title: the metadata says what changed
AFTER_REFUSAL = {"a renamed tab (Armies)"}


@pytest.mark.parametrize("case", sorted(RESHAPES))
def test_a_reshaped_tab_exits_3_with_nothing_written(sheet: Sheet, capsys: Any, monkeypatch: Any, case: str) -> None:
    act, said = RESHAPES[case]
    code, err, made, after_gm = resolve_while_a_gm_acts(sheet, act, capsys, monkeypatch)
    assert code == 3, err
    assert err.startswith(f"Error: gsheet:{KEY} changed while the engine was working (")
    assert said in err
    assert made == ["token", "metadata", "read", "guard"] + (["metadata"] if case in AFTER_REFUSAL else [])
    assert sheet.snapshot() == after_gm


def test_a_row_typed_below_a_full_grid_exits_3_with_nothing_written(
    sheet: Sheet, capsys: Any, monkeypatch: Any
) -> None:
    """The engine's appended Orders rows start right below the last row: where the GM typed."""
    height = full_orders_grid(sheet)
    code, err, made, after_gm = resolve_while_a_gm_acts(sheet, type_order_below_the_full_grid, capsys, monkeypatch)
    assert code == 3, err
    assert (
        f"Orders: its grid was {height} rows x 26 columns, now {height + 1} x 26 (rows or columns inserted, "
        "deleted or added)" in err
    )
    assert f"Orders!A{height + 1}: was empty, now 1" in err  # and column A shows the typed row
    assert made == ["token", "metadata", "read", "guard"]
    assert sheet.snapshot() == after_gm
    assert sheet.rows("Orders")[height][sheet.rows("Orders")[0].index("Detail")] == "by hand"


def test_a_sorted_tab_exits_3_even_with_its_grid_unchanged(sheet: Sheet, capsys: Any, monkeypatch: Any) -> None:
    """Rows moved (a sort, a cut and paste): the grid keeps its size, column A shows the move."""

    def swap_two_armies(sheet: Sheet) -> None:
        rows = sheet.rows("Armies")
        sheet.fake.put_values(KEY, "'Armies'!A2", [rows[2], rows[1]])

    code, err, made, after_gm = resolve_while_a_gm_acts(sheet, swap_two_armies, capsys, monkeypatch)
    assert code == 3
    assert "Armies!A2: was 'Oda Main Host', now " in err
    assert made == ["token", "metadata", "read", "guard"]
    assert sheet.snapshot() == after_gm


def test_an_undisturbed_run_still_makes_five_requests_and_the_next_write_builds_on_it(sheet: Sheet) -> None:
    served = len(sheet.fake.served)
    store = sheet.store()
    report = app.resolve(store, now=NOW)
    assert report.summary["resolved"] is True
    assert kinds(sheet.fake.served[served:]) == ["token", "metadata", "read", "guard", "write"]
    # the same store writes again: it remembers what it wrote and the grids it grew
    from sheets_engine.stores.base import CellWrite

    store.write([CellWrite("Clans", 2, 2, 77)])
    assert sheet.rows("Clans")[1][1] == 77


def test_a_row_deleted_from_a_grid_that_was_exactly_full_exits_3(sheet: Sheet) -> None:
    """The guard asks for cells of the grid as read; Google refuses a range past a grid that shrank
    under it, and the metadata then says what changed: a conflict (exit 3), not a refusal (exit 2)."""
    from sheets_engine.stores.base import CellWrite
    from sheets_engine.stores.guard import ConflictError

    clans = len(sheet.rows("Clans"))
    sheet.fake.gm_update(KEY, {"updateSheetProperties": {"properties": {"sheetId": sheet.sheet_id("Clans"),
                         "gridProperties": {"rowCount": clans}}, "fields": "gridProperties.rowCount"}})  # fmt: skip
    store = sheet.store()
    store.read()
    sheet.fake.gm_update(KEY, {"deleteDimension": {"range": {"sheetId": sheet.sheet_id("Clans"),
                         "dimension": "ROWS", "startIndex": clans - 2, "endIndex": clans - 1}}})  # fmt: skip
    served = len(sheet.fake.served)
    with pytest.raises(ConflictError) as conflict:
        store.write([CellWrite("Clans", clans, 2, 5)])  # the last clan's Treasury, in the row now past the grid
    assert [str(c) for c in conflict.value.conflicts] == [
        f"Clans: its grid was {clans} rows x 26 columns, now {clans - 1} x 26 (rows or columns inserted, deleted "
        "or added)"
    ]
    assert kinds(sheet.fake.served[served:]) == ["read", "metadata"]  # refused, then what changed
    assert [s.status for s in sheet.fake.served[served:]] == [400, 200]


def test_push_force_onto_a_tab_of_one_row_works(sheet: Sheet, tmp_path: Path) -> None:
    """A tab whose grid is one row (a GM shrank it) gets a second row before its header is frozen: Google
    refuses to freeze every row of a grid."""
    from sheets_engine.stores.transfer import copy_campaign
    from sheets_engine.stores.xlsx import WorkbookStore

    sheet.fake.gm_update(KEY, {"updateSheetProperties": {"properties": {"sheetId": sheet.sheet_id("Game"),
                         "gridProperties": {"rowCount": 1, "frozenRowCount": 0}},
                         "fields": "gridProperties.rowCount,gridProperties.frozenRowCount"}})  # fmt: skip
    source = WorkbookStore(tmp_path / "campaign.xlsx")
    source.create(demo_tabs(), overwrite=True)
    copy_campaign(source, sheet.store(), overwrite=True, choices=app.ruleset_choices)
    game = sheet.fake.spreadsheets[KEY].sheet("Game")
    assert game is not None and game.properties["gridProperties"]["frozenRowCount"] == 1
    assert [row[:2] for row in sheet.rows("Game")] == [[k, "" if v is None else v] for k, v, *_ in demo_tabs()["Game"]]
