"""The Google Sheets store, replayed from cassettes (cassettes/): no network, no Google.

Every request must match a recorded one (method, URL, and the guard's ranges), and every recorded
request must be made. When the engine changes what a turn writes, the cassettes go stale: re-record
them offline with `python -m tests.standin.record` (docs/google-sheets.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from sheets_engine import app
from sheets_engine.stores.base import StoreError
from sheets_engine.stores.gsheets_layout import MAX_REQUEST_BYTES
from sheets_engine.stores.gsheets_read import GRID_FIELDS
from sheets_engine.stores.guard import ConflictError
from sheets_engine.stores.xlsx import WorkbookStore
from tests.gsheets_support import ReplayEnv, run_cli, spy_writes
from tests.standin.campaigns import demo_tabs
from tests.standin.cassettes import replay
from tests.standin.keys import TEST_ACCOUNT
from tests.standin.scenarios import FORMULA_LETTER, KEY, MISSING_KEY, NOW, PRIVATE_KEY, SCENARIOS

TOKEN, METADATA, READ, GUARD, WRITE = "token", "metadata", "read", "guard", "write"


def kind(url: str) -> str:
    """What a request was, from its URL (a read of cells is a getByDataFilter: the first is the read,
    see requests_made)."""
    path = url.split("?", 1)[0]
    if path.endswith("/token"):
        return TOKEN
    if path.endswith(":getByDataFilter"):
        return GUARD
    if path.endswith(":batchUpdate"):
        return WRITE
    return METADATA


def requests_made(cassette: Any) -> list[str]:
    """The kinds of the requests played back, in order: the first read of cells is the read, the
    later ones the guard's re-read (or a read-back)."""
    played = sorted(cassette.play_counts)
    made = [kind(cassette.requests[i].uri) for i in played]
    if GUARD in made:
        made[made.index(GUARD)] = READ
    return made


@pytest.fixture
def env(tmp_path: Path) -> ReplayEnv:
    return ReplayEnv(tmp_path)


# -- a run's requests -----------------------------------------------------------------------------
@pytest.mark.parametrize("scenario", ["resolve_demo", "resolve_demo_x10"], ids=["demo", "10x"])
def test_a_full_resolve_makes_five_requests_when_its_write_fits_one_request(scenario: str, env: ReplayEnv) -> None:
    """Token, metadata, one batch-get of every tab, the guard's re-read, one write: at 1x and 10x."""
    with replay(scenario, SCENARIOS[scenario].gzipped) as cassette:
        store = env.store()
        report = app.resolve(store, now=NOW)
    assert requests_made(cassette) == [TOKEN, METADATA, READ, GUARD, WRITE]
    assert cassette.play_count == 5
    assert report.summary["resolved"] and report.cells_written > 0
    assert [e.status for e in store.exchanges] == [200, 200, 200, 200]
    assert max(e.sent for e in store.exchanges) <= MAX_REQUEST_BYTES


def test_a_write_over_the_request_limit_is_staged_then_moved_in_one_guarded_request(env: ReplayEnv) -> None:
    """At 100x the demo's first turn writes 285,041 cells (5.4 MB of typed values): three staging
    requests to the hidden tab, then the guard's re-read, then the one request that moves it all into
    place."""
    with replay("resolve_demo_x100", gzipped=True) as cassette:
        store = env.store()
        report = app.resolve(store, now=NOW)
    assert requests_made(cassette) == [TOKEN, METADATA, READ, WRITE, WRITE, WRITE, GUARD, WRITE]
    assert report.summary["resolved"] and report.cells_written == 285_041
    assert [e.status for e in store.exchanges] == [200] * 7
    sizes = [e.sent for e in store.exchanges]
    assert max(sizes) <= MAX_REQUEST_BYTES
    assert sum(e.sent for e in store.exchanges if e.url.endswith(":batchUpdate")) / report.cells_written < 20


def test_the_first_read_asks_for_each_cells_value_and_formula_of_every_tab(env: ReplayEnv) -> None:
    with replay("resolve_demo") as cassette:
        app.resolve(env.store(), now=NOW)
    read = next(r for r in cassette.requests if kind(r.uri) == GUARD)  # the first read of cells
    query = unquote(read.uri.split("?", 1)[1])
    assert query == f"fields={GRID_FIELDS}"
    assert "sheets.data.rowData.values.effectiveValue,sheets.data.rowData.values.userEnteredValue.formulaValue" in query
    ranges = [f["a1Range"] for f in json.loads(read.body)["dataFilters"]]
    # every tab whole, but History: its header row and the end of column A (its length), never its contents
    assert len(ranges) == len(demo_tabs()) + 1
    assert ranges[-2:] == ["'History'!1:1", "'History'!A2:A"] and "'Provinces'" in ranges


# -- the lost-update guard ------------------------------------------------------------------------
def test_a_gm_edit_during_the_run_aborts_it_and_nothing_is_written(env: ReplayEnv) -> None:
    with replay("conflict") as cassette:
        error, store = SCENARIOS["conflict"].run(env)
    assert isinstance(error, ConflictError)
    assert requests_made(cassette) == [TOKEN, METADATA, READ, GUARD]  # no write
    assert all(not e.url.endswith(":batchUpdate") for e in store.exchanges)
    (conflict,) = error.conflicts
    assert "edited by a GM" in str(conflict.now) or conflict.now == (conflict.read or 0) + 1000
    assert "Nothing was written" in str(error)


def test_a_conflict_exits_3_with_what_changed(env: ReplayEnv, capsys: Any, monkeypatch: Any) -> None:
    with replay("conflict"):
        code, _, err = run_cli(
            ["--credentials", str(env.key_file), "resolve", f"gsheet:{KEY}", "--force"], capsys, monkeypatch
        )
    assert code == 3
    assert err.startswith(f"Error: gsheet:{KEY} changed while the engine was working (1 cell: ")
    assert "Run the command again" in err


# -- retries ---------------------------------------------------------------------------------------
def test_a_429_and_a_503_are_retried_and_the_turn_resolves(env: ReplayEnv) -> None:
    with replay("retry") as cassette:
        report, store = SCENARIOS["retry"].run(env)
    assert report.summary["resolved"]
    # the read refused by the quota, sent again; the write's 503 read back (not applied), then sent again
    assert requests_made(cassette) == [TOKEN, METADATA, READ, GUARD, GUARD, WRITE, METADATA, GUARD, GUARD, WRITE]
    assert [e.status for e in store.exchanges] == [200, 429, 200, 200, 503, 200, 200, 200, 200]


# -- player text -----------------------------------------------------------------------------------
def test_a_letter_starting_with_equals_is_stored_as_text(env: ReplayEnv) -> None:
    with replay("formula_letter"):
        store = env.store()
        bodies = spy_writes(store)
        app.resolve(store, now=NOW)
        back = store.read()
    (body,) = bodies
    sent = json.dumps(body)
    assert "formulaValue" not in sent
    assert json.dumps({"stringValue": FORMULA_LETTER}) in sent
    letters = back["Letters"]
    text = letters.header.index("Text")
    assert FORMULA_LETTER in [cells[text] for _, cells in letters.rows]


# -- errors a GM can fix ------------------------------------------------------------------------
def test_a_spreadsheet_not_shared_exits_2_saying_whom_to_share_it_with(
    env: ReplayEnv, capsys: Any, monkeypatch: Any
) -> None:
    with replay("forbidden"):
        code, _, err = run_cli(
            ["--credentials", str(env.key_file), "validate", f"gsheet:{PRIVATE_KEY}"], capsys, monkeypatch
        )
    assert code == 2
    assert err == (
        f"Error: Google refused to open gsheet:{PRIVATE_KEY} (403 permission denied): share the spreadsheet with "
        f"{TEST_ACCOUNT} as Editor (the Share button in Google Sheets), then run again.\n"
    )


def test_an_unknown_key_exits_2_saying_where_the_key_is(env: ReplayEnv, capsys: Any, monkeypatch: Any) -> None:
    url = f"https://docs.google.com/spreadsheets/d/{MISSING_KEY}/edit#gid=0"
    with replay("not_found"):
        code, _, err = run_cli(["--credentials", str(env.key_file), "validate", url], capsys, monkeypatch)
    assert code == 2
    assert err == (
        f"Error: No spreadsheet with key {MISSING_KEY} (Google answered 404 Not Found). Check the key: it is the "
        "long id between /d/ and /edit in the spreadsheet's URL.\n"
    )


def test_a_revoked_key_exits_2_without_printing_the_key(env: ReplayEnv, capsys: Any, monkeypatch: Any) -> None:
    with replay("revoked_key"):
        code, out, err = run_cli(["--credentials", str(env.key_file), "validate", f"gsheet:{KEY}"], capsys, monkeypatch)
    assert code == 2
    assert "Google refused the service account's key (invalid_grant: Invalid JWT Signature.)" in err
    key = json.loads(env.key_file.read_text())["private_key"]
    assert "PRIVATE KEY" not in out + err
    assert all(line not in out + err for line in key.splitlines()[1:-1])


def test_a_missing_tab_exits_2_naming_it(env: ReplayEnv, capsys: Any, monkeypatch: Any) -> None:
    with replay("missing_tab"):
        code, out, _ = run_cli(
            ["--credentials", str(env.key_file), "validate", f"gsheet:{KEY}", "--json"], capsys, monkeypatch
        )
    assert code == 2
    problems = json.loads(out)["problems"]
    assert any(p["tab"] == "Armies" and "sheets-engine init" in p["expected"] for p in problems)


# -- laying a campaign out, copying it ---------------------------------------------------------
def test_init_lays_the_tabs_out_with_a_bold_frozen_header_and_dropdowns(env: ReplayEnv) -> None:
    with replay("init_demo") as cassette:
        store = env.store()
        bodies = spy_writes(store)
        app.init(store, demo=True)
    assert requests_made(cassette) == [TOKEN, METADATA, READ, WRITE]
    (body,) = bodies
    requests = body["requests"]
    added = [r["addSheet"]["properties"] for r in requests if "addSheet" in r]
    assert [p["title"] for p in added] == list(demo_tabs())
    assert all(p["gridProperties"]["frozenRowCount"] == 1 for p in added)
    bold = [r["repeatCell"] for r in requests if "repeatCell" in r]
    assert len(bold) == len(added) and all(b["cell"]["userEnteredFormat"]["textFormat"]["bold"] for b in bold)
    ids = {p["sheetId"]: p["title"] for p in added}
    dropdowns = {}
    for r in requests:
        if "setDataValidation" in r:
            rule = r["setDataValidation"]
            tab = ids[rule["range"]["sheetId"]]
            header = demo_tabs()[tab][0]
            dropdowns[(tab, header[rule["range"]["startColumnIndex"]])] = rule["rule"]["condition"]
    assert set(dropdowns) == {
        ("Provinces", "Type"),
        ("Provinces", "Terrain"),
        *{("Provinces", f"Building {n}") for n in range(1, 6)},
        ("Orders", "Order"),
        ("Tech Choices", "Discipline"),
    }
    assert dropdowns[("Provinces", "Type")]["values"] == [{"userEnteredValue": "City"}, {"userEnteredValue": "Rural"}]
    assert dropdowns[("Provinces", "Terrain")] == {
        "type": "ONE_OF_RANGE",
        "values": [{"userEnteredValue": "='Terrain'!$A$2:$A"}],
    }
    assert {"deleteSheet": {"sheetId": 0}} in requests  # the new spreadsheet's empty Sheet1
    assert json.dumps({"stringValue": "=Surrender or perish"}) in json.dumps(body)


def test_init_from_the_cli(env: ReplayEnv, capsys: Any, monkeypatch: Any) -> None:
    with replay("init_demo"):
        code, out, _ = run_cli(
            ["--credentials", str(env.key_file), "init", f"gsheet:{KEY}", "--demo"], capsys, monkeypatch
        )
    assert (code, out) == (0, f"Created gsheet:{KEY} with the demo campaign\n")


def test_pull_copies_the_spreadsheet_into_a_workbook(env: ReplayEnv, capsys: Any, monkeypatch: Any) -> None:
    target = env.tmp / "backup.xlsx"
    with replay("pull_demo"):
        code, out, _ = run_cli(
            ["--credentials", str(env.key_file), "pull", f"gsheet:{KEY}", str(target)], capsys, monkeypatch
        )
    assert code == 0 and out.startswith(f"Copied {len(demo_tabs())} tabs")
    pulled = WorkbookStore(target).read()
    for title, rows in demo_tabs().items():
        assert pulled[title].header == rows[0]
        assert [cells[0] for _, cells in pulled[title].rows] == [r[0] for r in rows[1:]]


def test_push_copies_a_workbook_into_the_spreadsheet(env: ReplayEnv, capsys: Any, monkeypatch: Any) -> None:
    source = env.tmp / "campaign.xlsx"
    WorkbookStore(source).create(demo_tabs())
    with replay("push_demo") as cassette:
        code, out, _ = run_cli(
            ["--credentials", str(env.key_file), "push", str(source), f"gsheet:{KEY}"], capsys, monkeypatch
        )
    assert (code, out) == (0, f"Copied {len(demo_tabs())} tabs from {source} to gsheet:{KEY}\n")
    assert requests_made(cassette) == [TOKEN, METADATA, READ, WRITE]


def test_a_campaign_already_there_is_not_replaced_without_force(env: ReplayEnv) -> None:
    with replay("pull_demo"):  # token, metadata, then the read of the tabs that are already there
        store = env.store()
        with pytest.raises(StoreError, match=r"already has tabs holding data: Game, Clans, .*--force"):
            store.create(demo_tabs())


def test_init_keeps_the_tab_a_linked_form_made(env: ReplayEnv) -> None:
    with replay("init_after_form") as cassette:
        store = env.store()
        bodies = spy_writes(store)
        app.init(store)
    assert requests_made(cassette) == [TOKEN, METADATA, READ, WRITE]
    requests = bodies[0]["requests"]
    added = [r["addSheet"]["properties"]["title"] for r in requests if "addSheet" in r]
    assert added == [tab for tab in demo_tabs() if tab != "Form Responses 1"]
    assert not any("updateSheetProperties" in r or "range" in r.get("updateCells", {}) for r in requests)
    assert {"deleteSheet": {"sheetId": 0}} in requests


# -- the cassettes are strict -------------------------------------------------------------------
def test_exists_is_false_for_an_unknown_key_and_refuses_an_unshared_one(env: ReplayEnv) -> None:
    with replay("not_found"):
        assert env.store(MISSING_KEY).exists() is False
    with replay("forbidden"), pytest.raises(StoreError, match="403 permission denied"):
        env.store(PRIVATE_KEY).exists()


def test_a_request_not_in_the_cassette_fails_the_test(env: ReplayEnv) -> None:
    with pytest.raises(AssertionError, match=r"a request not recorded in not_found\.json"), replay("not_found"):
        env.store(KEY).exists()  # the cassette asked for MISSING_KEY


def test_a_recorded_request_never_made_fails_the_test(env: ReplayEnv) -> None:
    never_made = r"2 request\(s\) recorded in not_found\.json were never made"
    with pytest.raises(AssertionError, match=never_made), replay("not_found"):
        pass
