"""Faults on the Google Sheets store's write: the spreadsheet is exactly as before, or as after, and a
GM's edit is never lost to a retry (issue 25).

These run against the local stand-in of the Sheets API served on 127.0.0.1 (checked against
Google's own recordings in test_gsheets_standin.py), because a fault is injected at the server:
a cassette can only replay what was recorded. Nothing leaves the machine.

A write whose answer is lost (a timeout, a 5xx, an HTML page from a gateway, a dropped connection)
is read back before anything more is sent: all of it there, the run is done (exit 0); none of it,
and the guard still holds, it is sent again; anything else, exit 3 with nothing more written.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import requests

from sheets_engine import app
from sheets_engine.stores.gsheets import GoogleSheetsStore
from sheets_engine.stores.gsheets_http import RetryPolicy, SheetsUnavailable
from sheets_engine.stores.gsheets_layout import update_cells
from sheets_engine.stores.guard import ConflictError, column_letter
from tests.gsheets_support import kinds, run_cli
from tests.standin.campaigns import demo_tabs
from tests.standin.fake_sheets import FakeSheets
from tests.standin.keys import TEST_ACCOUNT, write_key_file
from tests.standin.server import serve

KEY = "1FaultsCampaign0000000000000000000000000000"
NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
# Google gives itself 180 s for a request and the store waits longer; here the stand-in stands for a
# Google that answers after a second, and the store waits half of one.
QUICK = RetryPolicy(sleep=lambda seconds: None, attempts=3, timeout=(5.0, 0.5))
LATE = 1.0


class Sheet:
    """The stand-in, served, with the demo campaign laid out."""

    def __init__(self, fake: FakeSheets, root: str, tmp: Path) -> None:
        self.fake, self.root = fake, root
        self.key_file = write_key_file(tmp, token_uri=f"{root}/token")

    def store(self, retry: RetryPolicy = QUICK) -> GoogleSheetsStore:
        return GoogleSheetsStore.open(f"gsheet:{KEY}", self.key_file, api_root=self.root, retry=retry)

    def snapshot(self) -> dict[str, Any]:
        return copy.deepcopy({sheet.title: dict(sheet.cells) for sheet in self.fake.spreadsheets[KEY].sheets})

    def rows(self, title: str) -> list[list[Any]]:
        return self.fake.values(KEY, title)

    def grid(self, title: str) -> int:
        sheet = self.fake.spreadsheets[KEY].sheet(title)
        assert sheet is not None
        return sheet.rows

    def writes(self) -> int:
        return sum(1 for s in self.fake.served if s.kind == "write")


@pytest.fixture
def sheet(tmp_path: Path) -> Iterator[Sheet]:
    fake = FakeSheets()
    with serve(fake) as root:
        fake.add_spreadsheet(KEY, "faults", editors=[TEST_ACCOUNT])
        laid = Sheet(fake, root, tmp_path)
        laid.store().create(demo_tabs(), overwrite=True)
        fake.served.clear()
        yield laid


def full_history(sheet: Sheet) -> int:
    """History's grid made exactly as long as its rows (the header), so the turn's write grows it."""
    history = sheet.fake.sheet_id(KEY, "History")
    grid = {"rowCount": 1, "frozenRowCount": 0}
    fields = "gridProperties.rowCount,gridProperties.frozenRowCount"
    sheet.fake.gm_update(
        KEY, {"updateSheetProperties": {"properties": {"sheetId": history, "gridProperties": grid}, "fields": fields}}
    )
    sheet.fake.served.clear()
    return sheet.grid("History")


def resolved_once(sheet: Sheet) -> None:
    """Turn 1 resolved exactly once: turn 2 next, 21 Orders, History one resolution long and its grid
    grown once, to exactly its rows."""
    after = app.open_campaign(sheet.store())
    assert after.state.game("turn") == "2"
    assert len(after.state.frame("Orders")) == 21
    history = sheet.rows("History")
    assert len({row[1] for row in history[1:]}) == 1  # one resolution id
    assert sheet.grid("History") == len(history)


# -- the answer is lost after Google applied the write ----------------------------------------------------
@pytest.mark.parametrize(
    "lost",
    [
        {"status": None, "delay": LATE},  # applied, and the answer comes after the store stopped waiting
        {"status": 503},  # applied, then Google's timeout error
        {"status": 502, "html": True},  # applied, then a gateway's HTML page
    ],
    ids=["late", "503-after", "html-502-after"],
)
def test_a_write_applied_whose_answer_is_lost_is_read_back_and_not_sent_again(sheet: Sheet, lost: Any) -> None:
    full_history(sheet)
    sheet.fake.fail(endpoint=":batchUpdate", applied=True, **lost)
    report = app.resolve(sheet.store(), now=NOW)
    assert report.summary["resolved"] is True
    made = kinds(sheet.fake.served)
    assert made[:5] == ["token", "metadata", "read", "guard", "write"]
    assert "write" not in made[5:]  # never sent again: the read-back (metadata, the cells written) found it all
    assert made[-2:] == ["metadata", "guard"]
    resolved_once(sheet)


# -- the answer is lost and nothing was applied ---------------------------------------------------------
@pytest.mark.parametrize(
    "lost",
    [{"status": 500}, {"status": 502, "html": True}, {"status": 504, "delay": LATE}],
    ids=["500", "html-502", "late-504"],
)
def test_a_write_not_applied_is_read_back_then_sent_again_and_lands_once(sheet: Sheet, lost: Any) -> None:
    full_history(sheet)
    sheet.fake.fail(endpoint=":batchUpdate", **lost)
    report = app.resolve(sheet.store(), now=NOW)
    assert report.summary["resolved"] is True
    # the read-back (metadata and the written cells), the guard's re-read, then the write again
    made = kinds(sheet.fake.served)
    assert made[4] == "write" and made[-4:] == ["metadata", "guard", "guard", "write"] and made.count("write") == 2
    resolved_once(sheet)


def test_a_write_failing_with_500_every_time_leaves_the_spreadsheet_as_before(sheet: Sheet) -> None:
    before = sheet.snapshot()
    sheet.fake.fail(500, times=10, endpoint=":batchUpdate")
    with pytest.raises(SheetsUnavailable, match=r"after 3 attempt.*each was read back and found not applied"):
        app.resolve(sheet.store(), now=NOW)
    assert sheet.snapshot() == before and sheet.writes() == 3


def test_a_write_that_timed_out_before_reaching_google_is_read_back_and_lands_once(sheet: Sheet) -> None:
    full_history(sheet)
    calls = {"n": 0}
    original = requests.Session.request

    def lost_first_write(self: requests.Session, method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        if url.endswith(":batchUpdate") and calls["n"] == 0:
            calls["n"] += 1
            raise requests.ReadTimeout("read timed out (injected)")
        return original(self, method, url, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(requests.Session, "request", lost_first_write)
        report = app.resolve(sheet.store(), now=NOW)
    assert calls["n"] == 1 and report.summary["resolved"] is True
    resolved_once(sheet)


def test_a_dropped_connection_is_read_back_only_once_google_is_done_with_the_write(sheet: Sheet) -> None:
    """The request reached Google and the connection dropped: it may still be processing. The read-back
    waits until Google's 180 s processing limit has passed since it was sent."""
    full_history(sheet)
    original = requests.Session.request
    waits: list[float] = []

    def applied_then_dropped(self: requests.Session, method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        response = original(self, method, url, *args, **kwargs)
        if url.endswith(":batchUpdate") and not waits:
            raise requests.ConnectionError("Connection reset by peer (injected)")
        return response

    policy = RetryPolicy(sleep=waits.append, attempts=3)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(requests.Session, "request", applied_then_dropped)
        report = app.resolve(sheet.store(policy), now=NOW)
    assert report.summary["resolved"] is True and sheet.writes() == 1
    assert len(waits) == 1 and 180 < waits[0] <= policy.settle
    resolved_once(sheet)


# -- a GM's edit while the answer was lost is never overwritten -----------------------------------------
def treasury(sheet: Sheet) -> str:
    return f"'Clans'!{column_letter(sheet.rows('Clans')[0].index('Treasury') + 1)}2"


def test_a_gm_edit_after_the_write_landed_and_before_the_read_back_exits_3_and_is_kept(
    sheet: Sheet, capsys: Any, monkeypatch: Any
) -> None:
    cell = treasury(sheet)
    sheet.fake.fail(503, endpoint=":batchUpdate", applied=True, after=lambda fake: fake.put_values(KEY, cell, [[999]]))
    monkeypatch.setattr("sheets_engine.cli.common.store_for", lambda source: sheet.store())
    code, _, err = run_cli(["resolve", f"gsheet:{KEY}", "--force"], capsys, monkeypatch)
    assert code == 3, err
    assert err.startswith(f"Error: Google's answer to the write to gsheet:{KEY} was lost (HTTP 503: ")
    assert "Clans!B2: was 32, now 999" in err and "Nothing more was written" in err
    assert sheet.writes() == 1 and sheet.rows("Clans")[1][1] == 999  # the GM's value stays


def test_a_gm_edit_while_a_write_not_applied_was_lost_exits_3_and_nothing_is_sent_again(
    sheet: Sheet, capsys: Any, monkeypatch: Any
) -> None:
    before = sheet.snapshot()
    cell = treasury(sheet)
    sheet.fake.fail(502, endpoint=":batchUpdate", html=True, after=None)
    sheet.fake.before(":batchUpdate", lambda fake: None)
    original = sheet.fake.handle

    def edit_after_the_failed_write(method: str, url: str, headers: Any = None, body: Any = None) -> Any:
        answer = original(method, url, headers, body)
        if url.split("?")[0].endswith(":batchUpdate"):
            sheet.fake.put_values(KEY, cell, [[999]])  # the GM types while the store waits
        return answer

    monkeypatch.setattr(sheet.fake, "handle", edit_after_the_failed_write)
    monkeypatch.setattr("sheets_engine.cli.common.store_for", lambda source: sheet.store())
    code, _, err = run_cli(["resolve", f"gsheet:{KEY}", "--force"], capsys, monkeypatch)
    assert code == 3, err
    assert "HTTP 502 (an HTML page)" in err and "<" not in err
    assert sheet.writes() == 1
    edited = copy.deepcopy(before)
    edited["Clans"][(1, 1)] = ("number", 999)
    assert sheet.snapshot() == edited


def test_a_batch_with_one_invalid_request_applies_nothing(sheet: Sheet) -> None:
    """Google documents spreadsheets.batchUpdate as all-or-nothing; the stand-in answers the same."""
    before = sheet.snapshot()
    store = sheet.store()
    store.read()
    with pytest.raises(Exception, match=r"400|No grid with id"):
        store.client.send_write(KEY, {"requests": [
            update_cells(sheet.fake.sheet_id(KEY, "Game"), 1, 1, [["changed"]]),
            update_cells(999, 0, 0, [["x"]]),
        ]})  # fmt: skip
    assert sheet.snapshot() == before


def test_a_resolution_that_read_before_another_wrote_never_writes(sheet: Sheet) -> None:
    """Two cron runs overlap: the second to write finds the cells it read changed, and stops (exit 3)."""
    late = sheet.store()
    late_raw = late.read(headers_only=app.APPEND_ONLY)  # the late run has read turn 1...
    first = app.resolve(sheet.store(), now=NOW)  # ...when another run resolves it and writes
    assert first.summary["resolved"] is True
    before = sheet.snapshot()

    class AlreadyRead:
        name = late.name

        def exists(self) -> bool:
            return True

        def read(self, headers_only: Any = (), only: Any = None) -> Any:
            return late_raw  # what it read before the other run wrote

        def write(self, cells: Any) -> None:
            late.write(cells)

    with pytest.raises(ConflictError):
        app.resolve(AlreadyRead(), now=NOW)  # type: ignore[arg-type]
    assert sheet.snapshot() == before
    after = app.open_campaign(sheet.store())
    assert after.state.game("turn") == "2"
    assert len(after.state.frame("Orders")) == 21


def test_resolutions_started_in_the_same_instant_leave_one_turn_resolved(sheet: Sheet) -> None:
    """Sheets has no compare-and-swap: two runs whose re-reads both come before either write both
    pass the guard. Both then write the same cells with the same values (the resolution is
    deterministic), so the spreadsheet holds one resolved turn, not two."""
    stores = [sheet.store(), sheet.store()]
    read = threading.Barrier(2)
    outcomes: list[Any] = [None, None]

    class Reads:
        def __init__(self, store: GoogleSheetsStore) -> None:
            self.store, self.name = store, store.name

        def exists(self) -> bool:
            return self.store.exists()

        def read(self, headers_only: Any = (), only: Any = None) -> Any:
            raw = self.store.read(headers_only=headers_only, only=only)
            read.wait(timeout=30)  # both have read before either writes
            return raw

        def write(self, cells: Any) -> None:
            self.store.write(cells)

    def run(index: int) -> None:
        try:
            outcomes[index] = app.resolve(Reads(stores[index]), now=NOW)  # type: ignore[arg-type]
        except ConflictError as conflict:
            outcomes[index] = conflict

    threads = [threading.Thread(target=run, args=(i,)) for i in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert any(type(o).__name__ == "Report" for o in outcomes)
    after = app.open_campaign(sheet.store())
    assert after.state.game("turn") == "2"
    assert after.state.game("last_resolved_turn") == "1"
    assert len(after.state.frame("Orders")) == 21
    history = sheet.fake.values(KEY, "History")
    one_run = next(o for o in outcomes if type(o).__name__ == "Report")
    assert len(history) - 1 == len(one_run.history)  # the header, then one resolution's rows


def test_archived_rows_deleted_whose_answer_is_lost_are_not_deleted_twice(sheet: Sheet) -> None:
    """Deleting rows is not idempotent: the read-back finds History's grid already shrunk, and stops there."""
    app.resolve(sheet.store(), now=NOW)
    store = sheet.store()
    history = store.read(only=("History",))["History"]
    rows_before = sheet.grid("History")
    sheet.fake.served.clear()
    sheet.fake.fail(503, endpoint=":batchUpdate", applied=True)
    store.remove_rows("History", 2, 101, len(history.header))
    assert sheet.grid("History") == rows_before - 100 and sheet.writes() == 1
    assert len(sheet.rows("History")) == history.last_row - 100
