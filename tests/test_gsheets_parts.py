"""The Google Sheets store's parts, without any HTTP: sources, key files, requests, guard, retries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import requests

from sheets_engine.stores import open_store
from sheets_engine.stores.base import StoreError
from sheets_engine.stores.gsheets import GoogleSheetsStore, load_credentials, spreadsheet_key
from sheets_engine.stores.gsheets_http import AnswerLost, RetryPolicy, SheetsClient, SheetsUnavailable
from sheets_engine.stores.gsheets_layout import extended_value, update_cells
from sheets_engine.stores.gsheets_plan import Block, block_requests, plan_write, rectangles
from sheets_engine.stores.guard import find_conflicts, same_value
from tests.gsheets_support import run_cli
from tests.standin.cassettes import cassette_path
from tests.standin.fake_sheets import FakeSheets
from tests.standin.keys import TEST_ACCOUNT, service_account_info, write_key_file
from tests.standin.record import record_stand_in
from tests.standin.scenarios import SCENARIOS

KEY = "1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCd"


# -- SOURCE ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "source",
    [
        f"gsheet:{KEY}",
        f"https://docs.google.com/spreadsheets/d/{KEY}/edit#gid=0",
        f"https://docs.google.com/spreadsheets/d/{KEY}",
        f"https://docs.google.com/spreadsheets/u/1/d/{KEY}/edit?usp=sharing",
    ],
)
def test_a_spreadsheet_is_named_by_its_url_or_gsheet_key(source: str, tmp_path: Path) -> None:
    assert spreadsheet_key(source) == KEY
    store = open_store(source, credentials=str(write_key_file(tmp_path)))
    assert isinstance(store, GoogleSheetsStore) and store.name == f"gsheet:{KEY}"
    assert store.account == TEST_ACCOUNT


def test_a_malformed_key_is_bad_input() -> None:
    with pytest.raises(StoreError, match=r"expected gsheet:KEY or https://docs\.google\.com/spreadsheets/d/KEY/edit"):
        spreadsheet_key("gsheet:not a key")


# -- the key file -----------------------------------------------------------------------------------
def test_without_credentials_the_error_says_how_to_give_them(monkeypatch: Any) -> None:
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    with pytest.raises(StoreError, match=r"pass --credentials KEY\.json or set GOOGLE_APPLICATION_CREDENTIALS"):
        load_credentials(None)


def test_the_environment_names_the_key_file_when_no_option_does(monkeypatch: Any, tmp_path: Path) -> None:
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(write_key_file(tmp_path)))
    assert load_credentials(None).service_account_email == TEST_ACCOUNT


def _written(tmp_path: Path, content: Any) -> Path:
    path = tmp_path / "key.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "does not exist. Download a JSON key for the service account"),
        ("directory", "Cannot read the credentials file"),
        ("not json {", "is not a service-account key file"),
        ({"installed": {"client_id": "x"}}, "OAuth client files do not work for cron jobs"),
        ({"type": "service_account", "client_email": "a@b.c"}, "has no private_key, token_uri"),
    ],
    ids=["missing", "unreadable", "not-json", "oauth-client", "incomplete"],
)
def test_a_bad_key_file_says_what_to_do(tmp_path: Path, content: Any, message: str) -> None:
    if content is None:
        path = tmp_path / "missing.json"
    elif content == "directory":
        path = tmp_path
    else:
        path = _written(tmp_path, content)
    with pytest.raises(StoreError, match=message):
        load_credentials(path)


def test_a_damaged_private_key_is_never_quoted(tmp_path: Path) -> None:
    info = service_account_info()
    lines = info["private_key"].splitlines()
    info["private_key"] = "\n".join(lines[:5] + lines[8:])  # a key with lines lost in a copy-paste
    with pytest.raises(StoreError) as caught:
        load_credentials(_written(tmp_path, info))
    message = str(caught.value)
    assert "cannot be read" in message and TEST_ACCOUNT in message
    assert all(line not in message for line in lines[1:-1]) and "PRIVATE KEY" not in message
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_a_missing_key_file_exits_2_before_any_request(tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    missing = tmp_path / "nowhere.json"
    code, _, err = run_cli(["--credentials", str(missing), "resolve", f"gsheet:{KEY}"], capsys, monkeypatch)
    assert code == 2
    assert err.startswith(f"Error: The credentials file {missing} does not exist.")


# -- what is sent ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "entered"),
    [
        ("=IMPORTRANGE(1)", {"stringValue": "=IMPORTRANGE(1)"}),
        ("+1", {"stringValue": "+1"}),
        ("007", {"stringValue": "007"}),
        (7, {"numberValue": 7}),
        (0.5, {"numberValue": 0.5}),
        (True, {"boolValue": True}),
        ("", None),
        (None, None),
    ],
)
def test_text_goes_in_as_text_and_numbers_as_numbers(value: Any, entered: Any) -> None:
    assert extended_value(value) == entered


def test_changed_cells_are_written_exactly_and_new_rows_as_one_block() -> None:
    cells = {
        ("Provinces", 3, 5): 10,
        ("Provinces", 3, 6): 11,
        ("Provinces", 4, 5): 12,
        ("Provinces", 4, 6): 13,
        ("Provinces", 9, 2): "x",
        ("Provinces", 9, 3): None,  # emptied: its own range-only request
        ("History", 8, 1): 1,  # History's last row is 7: these two rows are new
        ("History", 8, 3): "a",
        ("History", 9, 1): 1,
    }
    plan = plan_write(cells, {"Provinces": 40, "History": 7})
    assert sorted((b.tab, b.row, b.column, b.values, b.new) for b in plan.blocks) == [
        ("History", 8, 1, ((1, None, "a"), (1, None, None)), True),
        ("Provinces", 3, 5, ((10, 11), (12, 13)), False),
        ("Provinces", 9, 2, (("x",),), False),
    ]
    assert plan.clears == [("Provinces", 9, 3, 9, 3)]
    # the gaps of new rows are written empty, so the guard checks they are still empty
    assert set(plan.targets) == set(cells) | {("History", 8, 2), ("History", 9, 2), ("History", 9, 3)}


def test_a_value_repeated_down_new_rows_is_one_repeat_cell_and_the_rest_one_update() -> None:
    """History's turn, run id and time are the same on every row a run appends."""
    rows = tuple((3, "r-20261130", "2026-11-30 20:00", f"Province {n}", n) for n in range(1, 9))
    requests = block_requests(7, Block("History", 2, 1, rows, new=True), 1_000_000)
    kinds = [next(iter(r)) for r in requests]
    assert kinds == ["updateCells", "repeatCell", "repeatCell", "repeatCell"]
    update = requests[0]["updateCells"]
    assert update["start"] == {"sheetId": 7, "rowIndex": 1, "columnIndex": 3}
    assert update["rows"][0] == {"values": [{"userEnteredValue": {"stringValue": "Province 1"}},
                                            {"userEnteredValue": {"numberValue": 1}}]}  # fmt: skip
    assert requests[2]["repeatCell"] == {
        "range": {"sheetId": 7, "startRowIndex": 1, "endRowIndex": 9, "startColumnIndex": 1, "endColumnIndex": 2},
        "cell": {"userEnteredValue": {"stringValue": "r-20261130"}},
        "fields": "userEnteredValue",
    }


def test_the_guard_reads_few_ranges() -> None:
    cells = [("P", r, c) for r in range(2, 50) for c in (20, 21, 22)] + [("P", 7, 2), ("Q", 1, 1)]
    assert rectangles(cells) == [("P", 2, 20, 49, 22), ("P", 7, 2, 7, 2), ("Q", 1, 1, 1, 1)]


def test_an_update_touches_values_only() -> None:
    request = update_cells(42, 1, 2, [["a", 5]])
    assert request == {
        "updateCells": {
            "start": {"sheetId": 42, "rowIndex": 1, "columnIndex": 2},
            "rows": [
                {"values": [{"userEnteredValue": {"stringValue": "a"}}, {"userEnteredValue": {"numberValue": 5}}]}
            ],
            "fields": "userEnteredValue",
        }
    }


def test_a_value_is_unchanged_if_the_sheet_shows_the_same() -> None:
    assert same_value(5, 5.0) and same_value("", None) and same_value(None, "")
    assert not same_value(True, 1) and not same_value("5", 5) and not same_value(0, None)
    conflicts = find_conflicts({("T", 2, 3): 5, ("T", 9, 1): None}, {("T", 2, 3): 5.0, ("T", 9, 1): "typed"})
    assert [str(c) for c in conflicts] == ["T!A9: was empty, now 'typed'"]


# -- retries and timeouts ---------------------------------------------------------------------------
class Scripted(requests.Session):
    """A session answering from a script of statuses (or exceptions), recording every call."""

    def __init__(self, script: list[Any]) -> None:
        super().__init__()
        self.script, self.calls = list(script), []

    def request(self, method: str, url: str, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        self.calls.append(kwargs.get("timeout"))
        step = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        if isinstance(step, Exception):
            raise step
        status, headers = step if isinstance(step, tuple) else (step, {})
        response = requests.Response()
        response.status_code, response.headers = status, requests.structures.CaseInsensitiveDict(headers)
        body = {} if status == 200 else {"error": {"code": status, "message": "m", "status": "S"}}
        response._content = json.dumps(body).encode()
        if headers.get("Content-Type", "").startswith("text/html"):  # a gateway's page, as Google's front end sends
            response._content = (
                b"<!DOCTYPE html><html><title>Error 502 (Server Error)!!1</title>That's an error.</html>"
            )
        response.request = requests.Request(method, url).prepare()
        return response


def _client(script: list[Any], **policy: Any) -> tuple[SheetsClient, Scripted, list[float]]:
    slept: list[float] = []
    session = Scripted(script)
    return SheetsClient(session, RetryPolicy(sleep=slept.append, **policy)), session, slept


def test_every_request_has_a_timeout(tmp_path: Path) -> None:
    client, session, _ = _client([200])
    client.fetch_sheet_metadata(KEY)
    assert session.calls == [(10.0, 190.0)]  # longer than the 180 s Google gives itself to process a request
    store = GoogleSheetsStore.open(f"gsheet:{KEY}", write_key_file(tmp_path))
    assert store.client.timeout == (10.0, 190.0)
    assert store.client.session._refresh_timeout == 190.0  # the token request's own timeout


def test_retries_stop_after_a_bounded_number_of_attempts() -> None:
    client, session, slept = _client([503], attempts=4, base_delay=1, max_delay=3)
    with pytest.raises(SheetsUnavailable, match=r"HTTP 503: m\) after 4 attempt"):
        client.fetch_sheet_metadata(KEY)
    assert len(session.calls) == 4 and len(slept) == 3
    assert all(0.5 <= s <= 3 for s in slept)
    assert [e.status for e in client.exchanges] == [503] * 4


def test_retries_stop_at_the_deadline() -> None:
    client, session, slept = _client([503], attempts=100, base_delay=10, max_delay=10, deadline=25)
    with pytest.raises(SheetsUnavailable):
        client.values_batch_get(KEY, ["'A'"])
    # each wait is jittered between 5 and 10 s: at most 25 // 5 waits fit before the deadline
    assert sum(slept) <= 25 and len(session.calls) <= 1 + 25 // 5


def test_a_spent_quota_is_waited_out_for_the_minute_google_names() -> None:
    """A 429 without Retry-After: "After 1 minute, you can execute requests again" (the limits page);
    one such wait fits in the 90 s a request is retried for, two do not."""
    client, session, slept = _client([429, 429, 200])
    with pytest.raises(SheetsUnavailable, match="HTTP 429"):
        client.fetch_sheet_metadata(KEY)
    assert slept == [60.0] and len(session.calls) == 2
    client, session, slept = _client([429, 200])
    assert client.fetch_sheet_metadata(KEY) == {} and slept == [60.0]


def test_a_dropped_connection_and_retry_after_are_honoured() -> None:
    client, session, slept = _client([requests.ConnectionError("reset"), (429, {"Retry-After": "2"}), 200])
    assert client.fetch_sheet_metadata(KEY) == {}
    assert slept[1] == 2.0 and len(session.calls) == 3


HTML = {"Content-Type": "text/html; charset=UTF-8"}


def test_an_html_5xx_is_retried_like_a_json_one_and_never_quoted() -> None:
    """gspread reads a body that is not Google's JSON error as code -1: the HTTP status still decides."""
    client, session, _ = _client([(502, HTML), 200])
    assert client.fetch_sheet_metadata(KEY) == {} and len(session.calls) == 2
    client, _, _ = _client([(502, HTML)], attempts=2)
    with pytest.raises(SheetsUnavailable) as failed:
        client.fetch_sheet_metadata(KEY)
    assert str(failed.value).startswith("Google Sheets is not answering (HTTP 502 (an HTML page)) after 2 attempt")
    assert "<" not in str(failed.value) and "That's an error" not in str(failed.value)


@pytest.mark.parametrize(
    ("answer", "replied"),
    [(503, True), ((502, HTML), True), (500, True), (requests.ReadTimeout("slow"), True),
     (requests.ConnectionError("reset by peer"), False)],
    ids=["503", "html-502", "500", "read-timeout", "reset"],
)  # fmt: skip
def test_a_write_whose_answer_is_lost_is_never_sent_again_by_the_client(answer: Any, replied: bool) -> None:
    """It may have landed: the store reads back before anything is sent again (test_gsheets_faults)."""
    client, session, slept = _client([answer, 200])
    with pytest.raises(AnswerLost) as lost:
        client.send_write(KEY, {"requests": []})
    assert len(session.calls) == 1 and slept == [] and lost.value.replied is replied
    assert "<" not in lost.value.failure


def test_a_write_refused_by_the_quota_or_never_connected_is_sent_again() -> None:
    """A 429 is Google's quota refusing the request ("the additional 50 requests exceed the quota"): nothing
    was applied, and the reference says to back off and retry. A connection never made sent nothing."""
    client, session, slept = _client([(429, {"Retry-After": "3"}), requests.ConnectTimeout("no route"), 200])
    assert client.send_write(KEY, {"requests": []}) == {}
    assert len(session.calls) == 3 and slept[0] == 3.0


def test_a_refusal_is_not_retried() -> None:
    client, session, slept = _client([403])
    with pytest.raises(Exception, match="403"):
        client.fetch_sheet_metadata(KEY)
    assert len(session.calls) == 1 and slept == []


# -- the stand-in -----------------------------------------------------------------------------------
def test_the_stand_in_applies_a_batch_update_all_or_nothing() -> None:
    fake = FakeSheets()
    fake.grant_token("t")
    fake.add_spreadsheet(KEY)
    body = {
        "requests": [
            {"updateCells": {"start": {"sheetId": 0}, "rows": [{"values": [{"userEnteredValue": {"numberValue": 1}}]}],
                             "fields": "userEnteredValue"}},
            {"updateCells": {"start": {"sheetId": 0, "rowIndex": 5000}, "rows": [{"values": [{}]}],
                             "fields": "userEnteredValue"}},
        ]
    }  # fmt: skip
    status, _, reply = fake.handle("POST", f"/v4/spreadsheets/{KEY}:batchUpdate", {"Authorization": "Bearer t"},
                                   json.dumps(body))  # fmt: skip
    assert status == 400
    assert json.loads(reply)["error"]["message"].startswith("Invalid requests[1].updateCells: Range (Sheet1!A5001)")
    assert fake.cell(KEY, "Sheet1", 1, 1) is None  # the first request was not applied either


@pytest.mark.parametrize("name", ["not_found", "forbidden", "revoked_key"])
def test_recording_again_gives_the_committed_cassette(name: str, tmp_path: Path) -> None:
    """The recorder, over real HTTP to the stand-in on 127.0.0.1, makes the committed cassettes again.

    (Only the scenarios that do not depend on the campaign's templates or rules, which change often.)
    """
    scenario = SCENARIOS[name]
    record_stand_in(scenario, folder=tmp_path)

    def essence(path: Path) -> list[Any]:
        interactions = json.loads(path.read_text())["interactions"]
        return [
            (i["request"]["method"], i["request"]["uri"], i["response"]["status"]["code"], i["response"]["body"])
            for i in interactions
        ]

    assert essence(tmp_path / cassette_path(name).name) == essence(cassette_path(name))


def test_the_example_key_file_has_the_shape_and_no_key() -> None:
    example = Path(__file__).resolve().parents[1] / "credentials.example.json"
    info = json.loads(example.read_text())
    assert set(service_account_info()) <= set(info) and info["type"] == "service_account"
    with pytest.raises(StoreError, match="cannot be read"):
        load_credentials(example)
