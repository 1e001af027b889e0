"""Faults on the Google Sheets store's write: the spreadsheet is exactly as before, or as after.

These run against the local stand-in of the Sheets API served on 127.0.0.1 (checked against
Google's own recordings in test_gsheets_standin.py), because a fault is injected at the server:
a cassette can only replay what was recorded. Nothing leaves the machine.
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
from sheets_engine.stores.guard import ConflictError
from tests.standin.campaigns import demo_tabs
from tests.standin.fake_sheets import FakeSheets
from tests.standin.keys import TEST_ACCOUNT, write_key_file
from tests.standin.server import serve

KEY = "1FaultsCampaign0000000000000000000000000000"
NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
QUICK = RetryPolicy(sleep=lambda seconds: None, attempts=3)


class Sheet:
    """The stand-in, served, with the demo campaign laid out."""

    def __init__(self, fake: FakeSheets, root: str, tmp: Path) -> None:
        self.fake, self.root = fake, root
        self.key_file = write_key_file(tmp, token_uri=f"{root}/token")

    def store(self, retry: RetryPolicy = QUICK) -> GoogleSheetsStore:
        return GoogleSheetsStore.open(f"gsheet:{KEY}", self.key_file, api_root=self.root, retry=retry)

    def snapshot(self) -> dict[str, Any]:
        return copy.deepcopy({sheet.title: dict(sheet.cells) for sheet in self.fake.spreadsheets[KEY].sheets})


@pytest.fixture
def sheet(tmp_path: Path) -> Iterator[Sheet]:
    fake = FakeSheets()
    with serve(fake) as root:
        fake.add_spreadsheet(KEY, "faults", editors=[TEST_ACCOUNT])
        laid = Sheet(fake, root, tmp_path)
        laid.store().create(demo_tabs(), overwrite=True)
        yield laid


def test_a_write_failing_with_500_every_time_leaves_the_spreadsheet_as_before(sheet: Sheet) -> None:
    before = sheet.snapshot()
    sheet.fake.fail(500, times=10, endpoint=":batchUpdate")
    with pytest.raises(SheetsUnavailable, match="after 3 attempt"):
        app.resolve(sheet.store(), now=NOW)
    assert sheet.snapshot() == before


def test_a_write_failing_once_with_500_is_retried_and_lands_whole(sheet: Sheet) -> None:
    sheet.fake.fail(500, times=1, endpoint=":batchUpdate")
    report = app.resolve(sheet.store(), now=NOW)
    assert report.summary["resolved"] is True
    after = app.open_campaign(sheet.store())
    assert after.state.game("turn") == "2"
    assert len(after.state.frame("Orders")) == 21


def test_a_write_that_times_out_is_retried_and_never_applied_twice(sheet: Sheet) -> None:
    """A timeout leaves the client not knowing; the write sets exact cells, so sending it again is safe."""
    calls = {"n": 0}
    original = requests.Session.request

    def slow_first_write(self: requests.Session, method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        if url.endswith(":batchUpdate") and calls["n"] == 0:
            calls["n"] += 1
            raise requests.Timeout("read timed out (injected)")
        return original(self, method, url, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(requests.Session, "request", slow_first_write)
        report = app.resolve(sheet.store(), now=NOW)
    assert calls["n"] == 1 and report.summary["resolved"] is True
    after = app.open_campaign(sheet.store())
    assert len(after.state.frame("Orders")) == 21  # once, not twice
    assert after.state.game("turn") == "2"


def test_a_batch_with_one_invalid_request_applies_nothing(sheet: Sheet) -> None:
    """Google documents spreadsheets.batchUpdate as all-or-nothing; the stand-in answers the same."""
    before = sheet.snapshot()
    store = sheet.store()
    store.read()
    with pytest.raises(Exception, match=r"400|No grid with id"):
        store.client.batch_update(KEY, {"requests": [
            {"updateCells": {"start": {"sheetId": store._sheets["Game"]["sheetId"], "rowIndex": 1, "columnIndex": 1},
                             "rows": [{"values": [{"userEnteredValue": {"stringValue": "changed"}}]}],
                             "fields": "userEnteredValue"}},
            {"updateCells": {"start": {"sheetId": 999, "rowIndex": 0, "columnIndex": 0},
                             "rows": [{"values": [{"userEnteredValue": {"stringValue": "x"}}]}],
                             "fields": "userEnteredValue"}},
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
