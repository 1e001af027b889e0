"""What the Google store sends (issues 15 and 25): every value typed as the reference defines it, no
request over the limit, and nothing outside "What the engine relies on" (docs/google-sheets.md).

Against the stand-in of the Sheets API on 127.0.0.1, which refuses any request outside that list
(tests/standin/fake_strict.py) and request bodies over `max_request`. A write over the limit is
staged in a hidden tab and moved into place by one guarded request: it lands whole, a failure between
the stages leaves every visible tab as it was, and a GM's edit during it refuses it with nothing
visible written.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sheets_engine.stores.base import CellWrite, RowsAppended, StoreError
from sheets_engine.stores.gsheets import GoogleSheetsStore
from sheets_engine.stores.gsheets_http import RetryPolicy, SheetsUnavailable
from sheets_engine.stores.gsheets_layout import MAX_REQUEST_BYTES, STAGING_TITLE
from sheets_engine.stores.guard import ConflictError
from tests.standin.fake_sheets import GRID_READ, FakeSheets, Fault
from tests.standin.keys import TEST_ACCOUNT, write_key_file
from tests.standin.server import serve

KEY = "1RequestsCampaign000000000000000000000000000"
QUICK = RetryPolicy(sleep=lambda seconds: None, attempts=2)
# Text Sheets would read as something else if it were typed in
RISKY = ["=1+1", "+1", "-x", "@here", "'quoted'", "007", "1,234", "2026-11-30", "12:30", "TRUE", "false", "1e5",
         "50%", "$3", "  padded ", 'he said "no"', "two\nlines", "tab\there", "-", "小田原 Odawara",
         "x" * 300]  # fmt: skip
HISTORY = ["Turn", "Resolution", "At", "Tab", "Key", "Column", "Old", "New", "Cause"]


class Sheet:
    """The stand-in, served, with a small campaign: a Board of 300 rows and a History log."""

    def __init__(self, fake: FakeSheets, root: str, tmp: Path) -> None:
        self.fake, self.root = fake, root
        self.key_file = write_key_file(tmp, token_uri=f"{root}/token")
        fake.add_spreadsheet(KEY, "requests", editors=[TEST_ACCOUNT])
        board = [["Name", "Gold", "Rice", "Note"]] + [[f"Province {n}", n, n * 2, ""] for n in range(1, 301)]
        self.store().create({"Board": board, "History": [HISTORY]})
        fake.served.clear()

    def store(self) -> GoogleSheetsStore:
        return GoogleSheetsStore.open(f"gsheet:{KEY}", self.key_file, api_root=self.root, retry=QUICK)

    def visible(self) -> dict[str, Any]:
        """Every visible tab's properties and cells."""
        return copy.deepcopy(
            {s.title: (s.properties, dict(s.cells)) for s in self.fake.spreadsheets[KEY].sheets
             if not s.properties.get("hidden")}
        )  # fmt: skip

    def titles(self) -> list[str]:
        return [s.title for s in self.fake.spreadsheets[KEY].sheets]

    def writes(self) -> list[int]:
        """The body size of every batchUpdate served since the campaign was laid out."""
        return [s.received for s in self.fake.served if s.path.endswith(":batchUpdate")]


@pytest.fixture
def sheet(tmp_path: Path) -> Iterator[Sheet]:
    fake = FakeSheets()
    with serve(fake) as root:
        yield Sheet(fake, root, tmp_path)


def history_rows(count: int, first: int = 0) -> list[tuple[Any, ...]]:
    """History rows as a turn appends them."""
    return [
        (3, "r-20261130-2000", "2026-11-30 20:00", "Provinces", f"Province {n}", "Gold", n, n + 12, "tax")
        for n in range(first + 1, first + count + 1)
    ]


def a_turn(store: GoogleSheetsStore, rows: int) -> list[Any]:
    """A turn's writes: scattered Board cells in every other row, and `rows` History rows appended."""
    store.read(headers_only=("History",))
    board = [CellWrite("Board", r, 2, r * 10) for r in range(2, 302, 2)] + [CellWrite("Board", 7, 4, "=SUM(A1)")]
    return [*board, RowsAppended("History", 2, tuple(range(1, 10)), history_rows(rows))]


# -- player text stays text -------------------------------------------------------------------------
def test_text_sheets_would_parse_arrives_as_text_and_numbers_as_numbers(sheet: Sheet) -> None:
    store = sheet.store()
    store.read()
    values = [*RISKY, 7, -3, 2.0, 0.5, True]
    store.write([RowsAppended("History", 2, tuple(range(1, len(values) + 1)), [tuple(values)])])
    got = [sheet.fake.cell(KEY, "History", 2, column) for column in range(1, len(values) + 1)]
    assert got == [("string", text) for text in RISKY] + [
        ("number", 7), ("number", -3), ("number", 2), ("number", 0.5), ("bool", True)
    ]  # fmt: skip
    # read back through the API as the engine reads: the same text, no apostrophe
    assert store.read()["History"].rows[0][1][: len(RISKY)] == RISKY


@pytest.mark.parametrize(
    ("request_", "refused"),
    [
        ({"pasteData": {"coordinate": {"sheetId": 0}, "data": "'=1+1", "type": "PASTE_VALUES", "delimiter": "\t"}},
         "pasteData requests"),
        ({"updateCells": {"start": {"sheetId": 0},
                          "rows": [{"values": [{"userEnteredValue": {"formulaValue": "=1+1"}}]}],
                          "fields": "userEnteredValue"}}, "a value written as formulaValue"),
        ({"updateCells": {"range": {"sheetId": 0, "endRowIndex": 1, "endColumnIndex": 1},
                          "rows": [{"values": [{"userEnteredValue": {"numberValue": 1}}]}],
                          "fields": "userEnteredValue"}},
         "updateCells other than values from a start, or a range emptied"),
        ({"insertDimension": {"range": {"sheetId": 0, "dimension": "ROWS", "startIndex": 1, "endIndex": 2}}},
         "insertDimension requests"),
    ],
    ids=["pasteData", "formula", "updateCells-range-with-rows", "insertDimension"],
)  # fmt: skip
def test_the_stand_in_refuses_a_write_resting_on_what_google_does_not_document(
    sheet: Sheet, request_: dict[str, Any], refused: str
) -> None:
    store = sheet.store()
    board = {"sheetId": sheet.fake.sheet_id(KEY, "Board")}
    request_ = json.loads(json.dumps(request_).replace('{"sheetId": 0', json.dumps(board)[:-1]))
    before = sheet.visible()
    with pytest.raises(StoreError) as refusal:
        store.session.call("write", lambda: store.client.send_write(KEY, {"requests": [request_]}))
    assert f"The stand-in refuses {refused}" in str(refusal.value)
    assert "not among the behaviours docs/google-sheets.md says the engine relies on" in str(refusal.value)
    assert sheet.visible() == before


@pytest.mark.parametrize(
    "query",
    ["includeGridData=false", "fields=sheets",
     "ranges=Board!A1&fields=sheets.properties(sheetId,title,sheetType,gridProperties)"],
)  # fmt: skip
def test_the_stand_in_refuses_a_read_the_store_does_not_make(sheet: Sheet, query: str) -> None:
    fake = sheet.fake
    fake.grant_token("t", TEST_ACCOUNT)
    status, _, reply = fake.handle("GET", f"/v4/spreadsheets/{KEY}?{query}", {"Authorization": "Bearer t"})
    assert status == 400 and "not among the behaviours" in json.loads(reply)["error"]["message"]
    status, _, _ = fake.handle("GET", f"/v4/spreadsheets/{KEY}/values/Board", {"Authorization": "Bearer t"})
    assert status == 400  # the values API: the store reads through spreadsheets.get only


def test_no_text_is_sent_through_a_paste_or_as_a_formula_anywhere_in_the_package() -> None:
    """A search of the code: values go in as typed CellData (gsheets_layout), never pasted, never formulas."""
    import sheets_engine

    package = Path(sheets_engine.__file__).parent
    for path in sorted(package.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert "pasteData" not in text and "PASTE_NORMAL" not in text, path
        if path.name != "gsheets_read.py":  # which reads a GM's formulas; nothing else names them
            assert "formulaValue" not in text, path


# -- bytes and request sizes ---------------------------------------------------------------------------
def test_a_turn_that_fits_is_one_request_of_about_eighteen_bytes_a_cell(sheet: Sheet) -> None:
    """Every value a typed CellData (some 40 bytes); the turn's repeated History values (its turn, run id,
    time, and here the tab, column and cause) one repeatCell each, so about 18 bytes a cell in all."""
    store = sheet.store()
    writes = a_turn(store, 2_000)
    sheet.fake.served.clear()
    store.write(writes)
    cells = 151 + 2_000 * 9
    assert sheet.writes() == [328_600]  # one batchUpdate: 328,600 bytes for 18,151 cells
    assert round(sheet.writes()[0] / cells, 2) == 18.1
    assert [s.kind for s in sheet.fake.served] == ["grid", "write"]  # the guard's re-read, the write
    assert sheet.fake.values(KEY, "History")[2000] == [3, "r-20261130-2000", "2026-11-30 20:00", "Provinces",
                                                      "Province 2000", "Gold", 2000, 2012, "tax"]  # fmt: skip
    assert sheet.fake.cell(KEY, "Board", 7, 4) == ("string", "=SUM(A1)")


def test_a_write_over_the_limit_is_staged_and_lands_whole(sheet: Sheet, tmp_path: Path) -> None:
    # the same turn written in one request on a twin spreadsheet: what the staged write must equal
    twin = FakeSheets()
    with serve(twin) as root:
        (tmp_path / "twin").mkdir()
        other = Sheet(twin, root, tmp_path / "twin")
        store = other.store()
        store.write(a_turn(store, 2_000))
        expected = other.visible()
    sheet.fake.max_request = 50_000
    store = sheet.store()
    store.request_limit = 50_000
    writes = a_turn(store, 2_000)
    sheet.fake.served.clear()
    store.write(writes)
    assert sheet.visible() == expected
    assert STAGING_TITLE not in sheet.titles()
    sizes = sheet.writes()
    assert len(sizes) == 8 and max(sizes) <= 50_000  # seven staging requests, then the one that moves it in
    assert [s.kind for s in sheet.fake.served][-2:] == ["grid", "write"]


def test_a_failure_between_the_stages_leaves_every_visible_tab_as_it_was(sheet: Sheet) -> None:
    before = sheet.visible()
    sheet.fake.max_request = 50_000
    store = sheet.store()
    store.request_limit = 50_000
    writes = a_turn(store, 2_000)
    calls = []

    def third_write(method: str, path: str) -> bool:
        calls.append(path) if path.endswith(":batchUpdate") else None
        return path.endswith(":batchUpdate") and len(calls) == 3

    sheet.fake.faults.append(Fault(400, 1, third_write))  # the run dies while staging
    with pytest.raises(StoreError, match="HTTP 400"):
        store.write(writes)
    assert sheet.visible() == before
    staging = sheet.fake.spreadsheets[KEY].sheet(STAGING_TITLE)
    assert staging is not None and staging.properties.get("hidden") is True
    # the next run deletes what was left and writes the turn whole
    store = sheet.store()
    store.request_limit = 50_000
    store.write(a_turn(store, 2_000))
    assert sheet.titles() == ["Board", "History"]
    assert len(sheet.fake.values(KEY, "History")) == 2_001


def test_a_gm_edit_during_a_staged_write_refuses_it_and_the_staging_tab_goes(sheet: Sheet) -> None:
    sheet.fake.max_request = 50_000
    store = sheet.store()
    store.request_limit = 50_000
    writes = a_turn(store, 2_000)
    sheet.fake.before(GRID_READ, lambda fake: fake.put_values(KEY, "Board!B4", [[999]]))
    edited = sheet.visible()  # what the tabs hold once the GM typed 999 (applied to a copy below)
    edited["Board"][1][(3, 1)] = ("number", 999)
    with pytest.raises(ConflictError) as error:
        store.write(writes)
    assert [str(c) for c in error.value.conflicts] == ["Board!B4: was 3, now 999"]
    assert sheet.visible() == edited
    assert sheet.titles() == ["Board", "History"]


def test_a_write_whose_last_request_cannot_fit_is_refused_before_anything_is_sent(sheet: Sheet) -> None:
    store = sheet.store()
    store.request_limit = 3_000
    store.read()
    before = sheet.visible()
    sheet.fake.served.clear()
    with pytest.raises(StoreError) as error:
        store.write([CellWrite("Board", r, 2, r) for r in range(2, 302, 2)])
    assert str(error.value) == (
        f"This write to gsheet:{KEY} is 150 cells in 150 separate ranges: even staged, its last request would be "
        "24,237 bytes, over the 3,000-byte limit of a request. Nothing was written. Resolve in smaller steps "
        "(a paused turn) or write to a workbook."
    )
    assert sheet.writes() == [] and sheet.visible() == before


def test_the_limit_is_two_million_bytes() -> None:
    assert MAX_REQUEST_BYTES == GoogleSheetsStore.request_limit == 2_000_000


# -- History's length, read from the end of its column A -------------------------------------------
def long_history(sheet: Sheet, rows: int) -> None:
    store = sheet.store()
    store.read()
    store.write([RowsAppended("History", 2, tuple(range(1, 10)), history_rows(rows))])
    sheet.fake.served.clear()


def ranges_asked(store: GoogleSheetsStore) -> list[list[str]]:
    """The ranges of every read of cells (a spreadsheets.get with ranges) the store makes from now on."""
    asked: list[list[str]] = []
    get = store.session.get

    def spy(ranges: list[str], *more: Any) -> Any:
        if ranges:
            asked.append(list(ranges))
        return get(ranges, *more)

    store.session.get = spy  # type: ignore[method-assign]
    return asked


def test_a_turn_reads_the_end_of_historys_column_a_only(sheet: Sheet) -> None:
    long_history(sheet, 5_000)
    store = sheet.store()
    asked = ranges_asked(store)
    tabs = store.read(headers_only=("History",))
    assert tabs["History"].last_row == 5_001 and tabs["History"].header == HISTORY
    assert asked == [["'Board'", "'History'!1:1", "'History'!A4002:A"]]  # the grid's last 1,000 rows
    assert sum(s.sent for s in sheet.fake.served if s.path.endswith("values:batchGet")) < 30_000
    store.write([RowsAppended("History", 5_002, (1, 2), [(4, "next")])])
    assert sheet.fake.values(KEY, "History")[5_001][:2] == [4, "next"]


def test_a_gm_edit_in_history_during_a_run_is_still_seen(sheet: Sheet) -> None:
    long_history(sheet, 5_000)
    for edit in (
        lambda fake: fake.put_values(KEY, "History!A4500", [[99]]),
        lambda fake: fake.gm_update(KEY, {"insertDimension": {"range": {
            "sheetId": fake.sheet_id(KEY, "History"), "dimension": "ROWS", "startIndex": 99, "endIndex": 100}}}),
    ):  # fmt: skip
        store = sheet.store()
        store.read(headers_only=("History",))
        sheet.fake.before(GRID_READ, edit)
        with pytest.raises(ConflictError) as error:
            store.write([RowsAppended("History", 5_002, (1, 2), [(4, "next")])])
        shown = str(error.value.conflicts[0])
        assert shown in ("History!A4500: was 3, now 99", "History: its grid was 5001 rows x 9 columns, now 5002 x 9 "
                         "(rows or columns inserted, deleted or added)")  # fmt: skip
        assert len(sheet.fake.values(KEY, "History")) in (5_001, 5_002)  # nothing appended


def test_history_with_many_blank_rows_below_it_is_read_whole_in_one_more_request(sheet: Sheet) -> None:
    long_history(sheet, 5_000)
    history = sheet.fake.sheet_id(KEY, "History")
    sheet.fake.gm_update(KEY, {"appendDimension": {"sheetId": history, "dimension": "ROWS", "length": 2_000}})
    store = sheet.store()
    asked = ranges_asked(store)
    assert store.read(headers_only=("History",))["History"].last_row == 5_001
    assert asked == [["'Board'", "'History'!1:1", "'History'!A6002:A"], ["'History'!A2:A"]]  # then the column, once
    store.write([RowsAppended("History", 5_002, (1, 2), [(4, "next")])])
    assert sheet.fake.values(KEY, "History")[5_001][:2] == [4, "next"]


def test_laying_out_a_campaign_larger_than_a_request_takes_several_within_the_limit(tmp_path: Path) -> None:
    """init and push lay a campaign out in requests of at most the limit (not all-or-nothing: a set-up
    that fails half-way is run again with --force); the tabs are the same as laid out in one request."""
    from tests.standin.campaigns import scaled_demo

    laid_out = []
    for limit in (50_000, 10**9):
        fake = FakeSheets()
        with serve(fake) as root:
            key_file = write_key_file(tmp_path, token_uri=f"{root}/token")
            fake.add_spreadsheet(KEY, "big", editors=[TEST_ACCOUNT])
            fake.max_request = limit
            store = GoogleSheetsStore.open(f"gsheet:{KEY}", key_file, api_root=root, retry=QUICK)
            store.request_limit = limit
            store.create(scaled_demo(10))
            laid_out.append({s.title: (s.properties, s.cells) for s in fake.spreadsheets[KEY].sheets})
            sizes = [s.received for s in fake.served if s.path.endswith(":batchUpdate")]
            assert max(sizes) <= limit
            assert len(sizes) == (7 if limit == 50_000 else 1)
    assert laid_out[0] == laid_out[1]


def test_a_staging_request_whose_answer_is_lost_stops_the_run_with_nothing_visible_written(sheet: Sheet) -> None:
    """Staging is invisible, but its answer lost is still no reason to send anything again: exit 1,
    and the next run deletes the hidden tab and writes the turn whole."""
    before = sheet.visible()
    sheet.fake.max_request = 50_000
    store = sheet.store()
    store.request_limit = 50_000
    writes = a_turn(store, 2_000)
    sheet.fake.fail(503, endpoint=":batchUpdate", applied=True)  # the first staging request lands, its answer lost
    with pytest.raises(
        SheetsUnavailable, match=r"staging a write .* was lost \(HTTP 503: .*Nothing visible was written"
    ):
        store.write(writes)
    assert sheet.visible() == before and STAGING_TITLE in sheet.titles()
    store = sheet.store()
    store.request_limit = 50_000
    store.write(a_turn(store, 2_000))
    assert sheet.titles() == ["Board", "History"] and len(sheet.fake.values(KEY, "History")) == 2_001
