"""The stand-in answers like Google: replayed against real traffic recorded by gspread's maintainers.

Each cassette in tests/data/gspread-cassettes was recorded against the live Sheets API. Its
first episode is replayed, request by request, against `FakeSheets`; every reply must have the
recorded status code and the same JSON: the same keys at every level, and the same values
(ranges, titles, sheet ids, grid sizes, cell values, error messages), apart from the few listed in
VOLATILE. The Drive calls around them (create, delete the test spreadsheet) are acted out on the
stand-in instead, and an addSheet gets the sheet id Google chose, so later requests naming it match.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.standin.fake_sheets import FakeSheets

RECORDINGS = Path(__file__).resolve().parent / "data" / "gspread-cassettes"  # gspread's own, copied (README there)
# Every Sheets request of these cassettes' first episode is one the store (or this test) makes.
CASSETTES = [
    "ClientTest.test_open_by_key_has_metadata",
    "ClientTest.test_access_non_existing_spreadsheet",
    "ClientTest.test_access_private_spreadsheet",
    "SpreadsheetTest.test_add_del_worksheet",
    "SpreadsheetTest.test_worksheets",
    "SpreadsheetTest.test_worksheets_exclude_hidden",
    "SpreadsheetTest.test_values_get",
    "SpreadsheetTest.test_values_batch_get",
    "WorksheetTest.test_get_all_values",
    "WorksheetTest.test_batch_get",
    "WorksheetTest.test_clear",
    "WorksheetTest.test_update_and_get",
    "WorksheetTest.test_update_cells",
    "WorksheetTest.test_update_cells_noncontiguous",
    "WorksheetTest.test_get_returns_ValueRange_with_metadata",
    "WorksheetTest.test_get_all_records_with_all_values_blank",
    "WorksheetTest.test_get_all_records_with_blank_final_headers",
    "WorksheetTest.test_hide_show_worksheet",
    "WorksheetTest.test_resize",
    "WorksheetTest.test_update_title",
    "WorksheetTest.test_add_validation",
]
VOLATILE: set[str] = set()  # keys whose values may differ (none so far)
# Spreadsheets that exist in someone else's Drive, never shared with gspread's test account.
NOT_SHARED = {"1jIKzPs8LsiZZdLdeMEP-5ZIHw6RkjiOmj1LrJN706Yc"}
TOKEN = "<ACCESS_TOKEN>"


def differences(real: Any, ours: Any, path: str = "$") -> list[str]:
    """Where the stand-in's JSON differs from Google's: missing or extra keys, other types or values."""
    if isinstance(real, dict):
        if not isinstance(ours, dict):
            return [f"{path}: an object in Google's reply, {type(ours).__name__} in ours"]
        found = [f"{path}.{k}: missing" for k in real.keys() - ours.keys()]
        found += [f"{path}.{k}: not in Google's reply" for k in ours.keys() - real.keys()]
        for key in real.keys() & ours.keys():
            if key not in VOLATILE:
                found += differences(real[key], ours[key], f"{path}.{key}")
        return found
    if isinstance(real, list):
        if not isinstance(ours, list) or len(ours) != len(real):
            return [f"{path}: {real!r} in Google's reply, {ours!r} in ours"]
        return [d for i, (a, b) in enumerate(zip(real, ours, strict=True)) for d in differences(a, b, f"{path}[{i}]")]
    if real != ours or type(real) is not type(ours):
        return [f"{path}: {real!r} in Google's reply, {ours!r} in ours"]
    return []


def replay_first_episode(name: str) -> tuple[int, list[str]]:
    """Replay the Sheets requests of a cassette's first episode; (requests compared, differences)."""
    interactions = json.loads((RECORDINGS / f"{name}.json").read_text())["interactions"]
    fake = FakeSheets(strict=False)  # gspread's own requests, not the store's: answered as Google did
    fake.grant_token(TOKEN)
    for key in NOT_SHARED:
        fake.add_spreadsheet(key, editors=())
    compared, found, episode_key = 0, [], None
    for number, interaction in enumerate(interactions):
        request, response = interaction["request"], interaction["response"]
        method, uri = request["method"], request["uri"]
        recorded = json.loads(response["body"]["string"]) if response["body"]["string"] else None
        if urlsplit(uri).netloc == "www.googleapis.com":  # Drive: act it out
            if method == "POST" and episode_key is not None:
                break  # the second episode starts
            if method == "POST":
                episode_key = recorded["id"]
                fake.add_spreadsheet(recorded["id"], recorded["name"])
            elif method == "DELETE":
                fake.spreadsheets[episode_key].editors = set()  # gone for the account: 403 from now on
            continue
        body = request["body"]
        if body and '"addSheet"' in body and response["status"]["code"] == 200:
            body = _with_google_sheet_ids(body, recorded)
        status, _, reply = fake.handle(method, uri, {"Authorization": f"Bearer {TOKEN}"}, body)
        compared += 1
        where = f"#{number} {method} {uri.split('/v4/spreadsheets/')[-1][:70]}"
        if status != response["status"]["code"]:
            found.append(f"{where}: status {status}, Google's {response['status']['code']} ({reply[:200]!r})")
            continue
        found += [f"{where}: {d}" for d in differences(recorded, json.loads(reply))]
    return compared, found


def _with_google_sheet_ids(body: str, reply: dict[str, Any]) -> str:
    payload = json.loads(body)
    replies = iter(reply["replies"])
    for request in payload["requests"]:
        answer = next(replies)
        if "addSheet" in request:
            request["addSheet"]["properties"]["sheetId"] = answer["addSheet"]["properties"]["sheetId"]
    return json.dumps(payload)


@pytest.mark.parametrize("name", CASSETTES)
def test_the_stand_in_answers_as_google_did(name: str) -> None:
    compared, found = replay_first_episode(name)
    assert compared > 0
    assert found == []


def test_the_recordings_cover_every_endpoint_and_error_the_store_meets() -> None:
    """Metadata, batch-get, batchUpdate (addSheet, updateSheetProperties, setDataValidation), 403, 404, 400."""
    statuses, endpoints = set(), set()
    for name in CASSETTES:
        for interaction in json.loads((RECORDINGS / f"{name}.json").read_text())["interactions"]:
            uri = interaction["request"]["uri"]
            if "sheets.googleapis.com" in uri:
                statuses.add(interaction["response"]["status"]["code"])
                endpoints.add(urlsplit(uri).path.split(":")[-1] if ":" in urlsplit(uri).path else "get")
    assert {200, 400, 403, 404} <= statuses
    assert {"get", "batchGet", "batchUpdate"} <= endpoints
