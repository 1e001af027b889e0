"""The Google Form kept in step with the sheet, and closed while a due turn resolves (issue 17).

Against the Forms API stand-in on 127.0.0.1 (tests/standin/fake_forms.py, the discovery document's
shapes); the campaign is the demo in memory, made to look like a Google Sheet (its key) where linking
matters. Never the network.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import requests

from sheets_engine import app
from sheets_engine.forms import sync
from sheets_engine.stores.base import StoreError
from sheets_engine.stores.gforms import FORMS_ROOT_ENV, FormEdited, FormsClient
from sheets_engine.stores.gsheets_http import RetryPolicy
from sheets_engine.stores.memory import MemoryStore
from tests.gsheets_support import run_cli
from tests.standin.fake_forms import FakeForms, order_form, serve_forms
from tests.standin.keys import write_key_file
from tests.support import tabs

KEY = "1FormCampaign000000000000000000000000000000"
FORM = "1FormId0000000000000000000000000000000000000"
QUICK = RetryPolicy(sleep=lambda seconds: None, attempts=2)
DEAD = "Niwa Nagahide"  # a demo character the test kills, so that "living" is tested


class Sheet(MemoryStore):
    """The demo in memory, with a spreadsheet key (as a Google Sheet has) and its reads and writes logged."""

    def __init__(self, laid: dict[str, list[list[Any]]], events: list[str]) -> None:
        super().__init__(laid)
        self.key = KEY
        self.events = events

    def read(self, *args: Any, **kwargs: Any) -> Any:
        self.events.append("sheet.read")
        return super().read(*args, **kwargs)

    def write(self, cells: Any) -> None:
        self.events.append("sheet.write")
        super().write(cells)


def demo_tabs(game: dict[str, Any] | None = None) -> dict[str, list[list[Any]]]:
    laid = tabs(game, demo=True)
    header = laid["Characters"][0]
    for row in laid["Characters"][1:]:
        if row[0] == DEAD:
            row[header.index("Status")] = "Dead"
    return laid


def game_value(store: MemoryStore, key: str) -> Any:
    return next((row[1] for row in store.tabs["Game"][1:] if row[0] == key), None)


class Forms:
    def __init__(self, fake: FakeForms, root: str) -> None:
        self.fake, self.root = fake, root

    def client(self) -> FormsClient:
        return FormsClient(requests.Session(), QUICK, self.root, "engine@game.iam.gserviceaccount.com")


@pytest.fixture
def events() -> list[str]:
    return []


@pytest.fixture
def forms(events: list[str]) -> Iterator[Forms]:
    fake = FakeForms(events)
    fake.add(order_form(FORM, KEY))
    with serve_forms(fake) as root:
        yield Forms(fake, root)


def options(body: dict[str, Any]) -> dict[str, list[str]]:
    """Each updated item's id -> the option values the request sets."""
    found = {}
    for request in body["requests"]:
        item = request["updateItem"]["item"]
        found[item["itemId"]] = [o["value"] for o in item["questionItem"]["question"]["choiceQuestion"]["options"]]
    return found


def test_sync_sets_the_living_characters_and_the_order_names_in_one_batch_update(forms, events):
    laid = demo_tabs()
    sheet = Sheet(laid, events)
    report = sync(sheet, forms.client(), FORM)

    assert events == ["sheet.read", "forms.get", "sheet.write", "forms.batchUpdate"]
    [body] = forms.fake.batch_updates()
    assert body["writeControl"] == {"requiredRevisionId": "00000001"}
    header = laid["Characters"][0]
    living = [r[0] for r in laid["Characters"][1:] if r[header.index("Status")] == "Alive"]
    assert DEAD not in living and len(living) == 17  # the demo has one dead already
    orders = [r[0] for r in laid["Missions"][1:]]
    assert len(orders) == 15
    sent = options(body)
    assert sent["1a2b3c01"] == living
    assert sent["1a2b3c02"] == orders
    provinces, armies, clans = ([r[0] for r in laid[t][1:]] for t in ("Provinces", "Armies", "Clans"))
    assert sent["1a2b3c03"] == provinces + armies + clans + living
    assert [r["updateItem"]["location"] for r in body["requests"]] == [{"index": 0}, {"index": 1}, {"index": 2}]
    assert {r["updateItem"]["updateMask"] for r in body["requests"]} == {"questionItem.question.choiceQuestion.options"}
    assert report.options == {"Character": 17, "Order": 15, "Target": 32 + 12 + 5 + 17}
    assert report.warnings == [] and report.linked_now
    # The link is kept in the Game tab, and the Form holds the options (its ids unchanged).
    assert [
        game_value(sheet, k) for k in ("form_id", "form_character_item", "form_order_item", "form_target_item")
    ] == [
        FORM,
        "1a2b3c01",
        "1a2b3c02",
        "1a2b3c03",
    ]
    stored = forms.fake.forms[FORM]
    assert [o["value"] for o in stored["items"][0]["questionItem"]["question"]["choiceQuestion"]["options"]] == living
    assert stored["items"][0]["questionItem"]["question"]["questionId"] == "4d5e6f01"


def test_a_linked_form_is_found_by_item_id_never_by_title_again(forms, events):
    sheet = Sheet(demo_tabs(), events)
    sync(sheet, forms.client(), FORM)
    form = forms.fake.forms[FORM]
    form["items"][0]["title"] = "Who acts?"  # the GM retitles the Character question and moves it last
    form["items"].append(form["items"].pop(0))
    form["items"].insert(0, copy.deepcopy(form["items"][-1]) | {"itemId": "decoy001", "title": "Character"})
    events.clear()

    report = sync(sheet, forms.client())  # the Form's id from the Game tab now

    assert events == ["sheet.read", "forms.get", "forms.batchUpdate"]  # nothing to write in the sheet
    body = forms.fake.batch_updates()[-1]
    where = {r["updateItem"]["item"]["itemId"]: r["updateItem"]["location"]["index"] for r in body["requests"]}
    assert where == {"1a2b3c01": 5, "1a2b3c02": 1, "1a2b3c03": 2}
    assert not report.linked_now

    # --form naming another Form links that one anew, by title, and keeps its ids.
    other = order_form("1Second", KEY)
    for item in other["items"]:
        item["itemId"] = "9" + item["itemId"][1:]
    forms.fake.add(other)
    assert sync(sheet, forms.client(), "1Second").linked_now
    assert [game_value(sheet, k) for k in ("form_id", "form_character_item")] == ["1Second", "9a2b3c01"]


def test_a_form_a_gm_edits_between_get_and_update_is_refused_and_nothing_is_lost(forms, events, capsys, monkeypatch):
    sheet = Sheet(demo_tabs({"form_id": FORM}), events)
    sync(sheet, forms.client())
    before = copy.deepcopy(forms.fake.forms[FORM])
    forms.fake.gm_edit_after_get = True

    with pytest.raises(FormEdited) as refused:
        sync(sheet, forms.client())

    after = forms.fake.forms[FORM]
    assert after["items"][3]["title"] == "Detail (a building, a destination, a letter)"  # the GM's edit stays
    assert after["items"][:3] == before["items"][:3]  # and the engine changed nothing
    assert after["revisionId"] == "00000003"
    assert str(refused.value).startswith(f"The Form {FORM} was edited while the engine was updating it")
    assert forms.fake.events[-3:] == ["forms.get", "forms.batchUpdate 400", "forms.get"]


def test_form_sync_exits_3_when_the_form_was_edited(forms, tmp_path, capsys, monkeypatch):
    path = tmp_path / "camp.xlsx"
    app.init(str(path), demo=True)
    key_file = write_key_file(tmp_path, token_uri=f"{forms.root}/token")
    monkeypatch.setenv(FORMS_ROOT_ENV, forms.root)
    forms.fake.require_token = True  # the key file's token, through the AuthorizedSession
    forms.fake.gm_edit_after_get = True

    code, _out, err = run_cli(
        ["--credentials", str(key_file), "form", "sync", str(path), "--form", FORM], capsys, monkeypatch
    )

    assert code == 3
    assert "was edited while the engine was updating it" in err
    assert options(forms.fake.batch_updates()[0])["1a2b3c02"][0] == "tax-province"
    assert forms.fake.forms[FORM]["items"][1]["questionItem"]["question"]["choiceQuestion"]["options"] == [
        {"value": "(to fill)"}
    ]


def test_form_sync_cli_sets_the_form_and_keeps_its_id(forms, tmp_path, capsys, monkeypatch):
    path = tmp_path / "camp.xlsx"
    app.init(str(path), demo=True)
    key_file = write_key_file(tmp_path, token_uri=f"{forms.root}/token")
    monkeypatch.setenv(FORMS_ROOT_ENV, forms.root)
    forms.fake.require_token = True
    args = ["--credentials", str(key_file), "form", "sync", str(path), "--form", FORM, "--json"]

    code, out, err = run_cli(args, capsys, monkeypatch)

    assert code == 0, err
    reply = json.loads(out)
    assert reply["options"] == {"character": 18, "order": 15, "target": 32 + 12 + 5 + 18}
    assert reply["linked_now"] is True and reply["cells_written"] > 0
    assert "Warning: the campaign is a workbook" in err
    assert app.open_campaign(str(path)).state.game("form_id") == FORM


def test_an_unlinked_form_and_one_not_collecting_verified_emails_are_reported(forms, events, capsys, monkeypatch):
    forms.fake.add(order_form("1Other", "1SomeOtherSpreadsheet", email="RESPONDER_INPUT"))
    sheet = Sheet(demo_tabs(), events)

    report = sync(sheet, forms.client(), "1Other")

    assert report.warnings == [
        f"the Form is linked to spreadsheet 1SomeOtherSpreadsheet, not to this campaign's ({KEY}): its answers "
        "never reach Form Responses 1. In the Form: Responses > Link to Sheets > Select existing spreadsheet",
        "the Form collects email addresses as RESPONDER_INPUT, not VERIFIED: anyone could send orders for any "
        "character. In the Form: Settings > Responses > Collect email addresses > Verified",
    ]
    unlinked = order_form("1Loose", "", email="VERIFIED")
    del unlinked["linkedSheetId"]
    forms.fake.add(unlinked)
    assert sync(Sheet(demo_tabs(), events), forms.client(), "1Loose").warnings == [
        f"the Form is linked to no spreadsheet, not to this campaign's ({KEY}): its answers never reach "
        "Form Responses 1. In the Form: Responses > Link to Sheets > Select existing spreadsheet"
    ]


def test_a_form_not_shared_with_the_service_account_says_what_to_do(forms, events):
    forms.fake.unshared.add(FORM)
    with pytest.raises(StoreError) as refused:
        sync(Sheet(demo_tabs(), events), forms.client(), FORM)
    assert str(refused.value).startswith(
        f"Google Forms answered 403 when the engine tried to read the Form (Form {FORM}): the Form does not exist "
        "or is not shared with engine@game.iam.gserviceaccount.com. Open the Form, Share"
    )
    assert forms.fake.batch_updates() == []


DUE = {"deadline": "2026-11-30 20:00:00", "turn_hours": 168, "time_zone": "UTC"}
AFTER = datetime(2026, 11, 30, 20, 5, tzinfo=UTC)


def publish_bodies(fake: FakeForms) -> list[dict[str, Any]]:
    return [body for method, path, body in fake.calls if path.endswith(":setPublishSettings")]


def test_resolve_past_the_deadline_closes_the_form_before_reading_and_reopens_it_after_writing(forms, events):
    sheet = Sheet(demo_tabs({**DUE, "form_id": FORM}), events)

    report = app.resolve(sheet, now=AFTER, forms=forms.client)

    assert report.summary["resolved"] is True
    assert events == [
        "sheet.read",  # is the turn due?
        "forms.setPublishSettings",  # closed
        "sheet.read",  # the answers the turn resolves, read after the close
        "sheet.write",
        "forms.setPublishSettings",  # open again
    ]
    states = [body["publishSettings"]["publishState"] for body in publish_bodies(forms.fake)]
    assert states == [
        {"isPublished": True, "isAcceptingResponses": False},
        {"isPublished": True, "isAcceptingResponses": True},
    ]
    assert {body["updateMask"] for body in publish_bodies(forms.fake)} == {"publish_state"}
    assert report.form == {"form_id": FORM, "closed": True, "reopened": True}
    assert forms.fake.forms[FORM]["publishSettings"]["publishState"]["isAcceptingResponses"] is True


def test_an_answer_sent_before_the_form_closed_joins_the_turn(forms, events):
    sheet = Sheet(demo_tabs({**DUE, "form_id": FORM}), events)
    answer = ["2026-11-30 19:59:00", "oda.nobunaga@example.com", "Oda Nobunaga", "meditate", "", "", ""]
    fake = forms.fake
    original = fake._publish

    def close_and_arrive(form: dict[str, Any], body: Any) -> Any:  # Google writes a late-sent answer first
        if not body["publishSettings"]["publishState"]["isAcceptingResponses"]:
            sheet.tabs["Form Responses 1"].append(answer)
        return original(form, body)

    fake._publish = close_and_arrive  # type: ignore[method-assign]
    report = app.resolve(sheet, now=AFTER, forms=forms.client)
    header = sheet.tabs["Orders"][0]
    oda = [r for r in sheet.tabs["Orders"][1:] if r[header.index("Character")] == "Oda Nobunaga"]
    assert [r[header.index("Order")] for r in oda] == ["designate-ally", "meditate"]  # the demo's, and this one
    assert report.form["closed"] is True


def test_a_form_that_cannot_be_closed_is_reported_and_the_turn_still_resolves(forms, events, caplog):
    forms.fake.fail_publish = 403
    sheet = Sheet(demo_tabs({**DUE, "form_id": FORM}), events)

    report = app.resolve(sheet, now=AFTER, forms=forms.client)

    assert report.summary["resolved"] is True
    assert report.form["closed"] is False and report.form["reopened"] is False
    [error] = report.form["errors"]
    assert error.startswith(f"the Form {FORM} could not be closed (Google Forms answered 403")
    assert error.endswith(": late answers still wait for the next turn (the deadline is the cutoff)")
    assert error in caplog.text
    assert events == ["sheet.read", "forms.setPublishSettings 403", "sheet.read", "sheet.write"]


def test_a_campaign_without_a_form_makes_no_forms_request(events):
    def no_forms() -> FormsClient:
        raise AssertionError("a Forms client was made")

    sheet = Sheet(demo_tabs(DUE), events)
    report = app.resolve(sheet, now=AFTER, forms=no_forms)

    assert report.summary["resolved"] is True
    assert events == ["sheet.read", "sheet.write"]
    assert report.form == {}


def test_a_dry_run_or_a_turn_not_due_leaves_the_form_alone(forms, events):
    sheet = Sheet(demo_tabs({**DUE, "form_id": FORM}), events)
    app.resolve(sheet, now=AFTER, forms=forms.client, dry_run=True)
    app.resolve(sheet, now=datetime(2026, 11, 30, 19, 0, tzinfo=UTC), forms=forms.client)
    assert events == ["sheet.read", "sheet.read"]


def test_the_key_file_asks_for_the_forms_scope(tmp_path: Path):
    from sheets_engine.stores.gsheets import load_credentials

    creds = load_credentials(write_key_file(tmp_path))
    assert creds.scopes == [
        "https://www.googleapis.com/auth/spreadsheets",
        "https://www.googleapis.com/auth/forms.body",
    ]


SHEETS_KINDS = (
    ("/token", "token"),
    (":getByDataFilter", "read"),  # a read of cells: the guard's re-read when not right after the metadata
    (":batchUpdate", "write"),
)


def test_resolve_on_a_google_sheet_closes_and_reopens_the_form_through_the_sheets_session(
    forms, events, tmp_path, capsys, monkeypatch
):
    from tests.standin.campaigns import demo_tabs as sheet_demo
    from tests.standin.fake_sheets import FakeSheets
    from tests.standin.keys import TEST_ACCOUNT
    from tests.standin.server import serve

    fake = FakeSheets()

    def logged(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        path = environ["PATH_INFO"]
        name = next((n for end, n in SHEETS_KINDS if path.endswith(end)), "metadata")
        if name == "read" and events and events[-1] != "sheets.metadata":
            name = "guard"
        events.append(f"sheets.{name}")
        return fake(environ, start_response)

    laid = sheet_demo()
    wanted = {**DUE, "form_id": FORM}
    for row in laid["Game"][1:]:
        row[1] = wanted.pop(row[0], row[1])
    laid["Game"] += [[key, value, ""] for key, value in wanted.items()]
    with serve(logged) as root:  # type: ignore[arg-type]  # any WSGI app serves
        fake.add_spreadsheet(KEY, "forms", editors=[TEST_ACCOUNT])
        key_file = write_key_file(tmp_path, token_uri=f"{root}/token")
        from sheets_engine.stores.gsheets import GoogleSheetsStore

        GoogleSheetsStore.open(f"gsheet:{KEY}", key_file, api_root=root).create(laid, overwrite=True)
        events.clear()
        monkeypatch.setenv(FORMS_ROOT_ENV, forms.root)
        monkeypatch.setattr(
            "sheets_engine.stores.gsheets.GoogleSheetsStore.open",
            classmethod(lambda cls, source, credentials=None: cls(KEY, load(key_file), api_root=root, retry=QUICK)),
        )
        args = ["resolve", f"gsheet:{KEY}", "--now", "2026-11-30 20:05", "--json"]
        code, out, _err = run_cli(args, capsys, monkeypatch)

    assert code == 0, out
    assert json.loads(out)["form"] == {"form_id": FORM, "closed": True, "reopened": True}
    assert events == [
        "sheets.token",
        "sheets.metadata",
        "sheets.read",
        "forms.setPublishSettings",
        "sheets.metadata",
        "sheets.read",
        "sheets.guard",
        "sheets.write",
        "forms.setPublishSettings",
    ]


def load(key_file: Path) -> Any:
    from sheets_engine.stores.gsheets import load_credentials

    return load_credentials(key_file)


def workbook_with_a_form(tmp_path: Path) -> Path:
    """The demo workbook with a deadline passed and a form_id."""
    import openpyxl

    path = tmp_path / "camp.xlsx"
    app.init(str(path), demo=True)
    book = openpyxl.load_workbook(path)
    game = book["Game"]
    wanted = {**DUE, "form_id": FORM}
    for row in game.iter_rows(min_row=2):
        if row[0].value in wanted:
            row[1].value = wanted.pop(row[0].value)
    for key, value in wanted.items():
        game.append([key, value, ""])
    book.save(path)
    return path


def test_resolve_says_on_stderr_and_in_json_that_the_form_could_not_be_closed(forms, tmp_path, capsys, monkeypatch):
    path = workbook_with_a_form(tmp_path)
    key_file = write_key_file(tmp_path, token_uri=f"{forms.root}/token")
    monkeypatch.setenv(FORMS_ROOT_ENV, forms.root)
    forms.fake.unshared.add(FORM)
    args = ["--credentials", str(key_file), "resolve", str(path), "--now", "2026-11-30 20:05", "--json"]

    code, out, err = run_cli(args, capsys, monkeypatch)

    assert code == 0, out
    reply = json.loads(out)
    assert reply["resolved"] is True
    assert reply["form"]["closed"] is False and reply["form"]["reopened"] is False
    [error] = reply["form"]["errors"]
    assert error.startswith(f"the Form {FORM} could not be closed (Google Forms answered 403 when the engine tried")
    assert f"Warning: the Form {FORM} could not be closed" in err


def test_form_sync_dry_run_changes_neither_the_form_nor_the_sheet(forms, events):
    sheet = Sheet(demo_tabs(), events)
    report = sync(sheet, forms.client(), FORM, dry_run=True)
    assert report.options == {"Character": 17, "Order": 15, "Target": 32 + 12 + 5 + 17}
    assert events == ["sheet.read", "forms.get"]
    assert game_value(sheet, "form_id") is None


def test_form_sync_on_another_rulesets_campaign_is_refused_before_the_form_is_touched() -> None:
    """An Art of War campaign's Form has no Character question: syncing Sengoku's would wreck it."""
    store = MemoryStore()
    app.init(store, ruleset="art-of-war", options={"houses": 2, "people": 1, "seed": "forms"})

    class Untouched:
        def get(self, form_id: str) -> Any:
            raise AssertionError("the Form was read")

    refused = "form sync knows Clan War and Sengoku Jidai campaigns only; this one is Art of War"
    with pytest.raises(StoreError, match=refused):
        sync(store, Untouched(), form_id=FORM)
