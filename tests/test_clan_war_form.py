"""Clan War's Google Form: `form sync` fills its dropdowns from the sheet (through the Forms API stand-in), and
intake copies its responses into Purchases, Bids and Moves: impersonation refused, the deadline cut-off, each
response copied once, and a response that cannot be a row named by validate and left where it is."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import requests

from sheets_engine import app
from sheets_engine.forms import sync
from sheets_engine.stores.gforms import FormsClient
from sheets_engine.stores.gsheets_http import RetryPolicy
from sheets_engine.stores.memory import MemoryStore
from tests.clan_war_support import RESPONSE_HEADER, demo_tabs
from tests.standin.fake_forms import FakeForms, clan_war_form, serve_forms
from tests.test_clan_war_campaign import RESULTS

FORM = "1ClanWarForm000000000000000000000000000000000"
KEY = "1ClanWarSheet00000000000000000000000000000000"
QUICK = RetryPolicy(sleep=lambda seconds: None, attempts=2)
DEADLINE = {"deadline": "2026-11-28 20:00:00", "time_zone": "Asia/Tokyo", "turn_hours": 168}
NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)  # 21:00 in Tokyo: the deadline has passed

BUY = {"Timestamp": "2026-11-28 10:00:00", "Email Address": "crab@example.com", "Faction": "Crab", "Order": "buy",
       "Item": "Hida Ashigaru Spearmen", "Count": "5", "Target": "Crab Reserve", "Province": "Hida"}  # fmt: skip
BID = {"Timestamp": "2026-11-28 11:00:00", "Email Address": "lion@example.com", "Faction": "Lion", "Order": "bid",
       "Item": "Otaku Kamoko", "Bid": "180", "Province": "Ikoma"}  # fmt: skip
MOVE = {"Timestamp": "2026-11-28 12:00:00", "Email Address": "CRAB@example.com", "Faction": "crab",
        "Order": "primary move", "Mover": "Crab Spears", "To": "Yasuki"}  # fmt: skip
IMPOSTOR = {"Timestamp": "2026-11-28 13:00:00", "Email Address": "crane@example.com", "Faction": "Crab",
            "Order": "stockpile", "Item": "Yari", "Count": "5"}  # fmt: skip
LATE = {"Timestamp": "2026-11-28 20:01:00", "Email Address": "junzo@example.com", "Faction": "Shadowlands",
        "Order": "primary move", "Mover": "Ogre Band", "To": "Kaiu"}  # fmt: skip


def rows(store: MemoryStore, tab: str, submitted: bool = True) -> list[dict[str, Any]]:
    """A tab's rows by header (with `submitted`, only those copied from the Form)."""
    header, *body = store.tabs[tab]
    found = [dict(zip(header, row, strict=False)) for row in body]
    return [r for r in found if r.get("Submitted")] if submitted else found


def test_intake_copies_each_response_into_the_tab_its_order_names_with_when_and_who_sent_it() -> None:
    store = MemoryStore(demo_tabs(DEADLINE, [BUY, BID, MOVE]))
    report = app.resolve(store, now=NOW)
    assert report.summary["form responses copied"] == 3
    [buy] = rows(store, "Purchases")
    assert (buy["Turn"], buy["Faction"], buy["Action"], buy["Item"], buy["Count"], buy["Target"]) == (
        1, "Crab", "buy", "Hida Ashigaru Spearmen", 5, "Crab Reserve",
    )  # fmt: skip
    assert (buy["Submitted"], buy["Email"], buy["Status"]) == ("2026-11-28 10:00:00", "crab@example.com", "Accepted")
    assert buy["Result"] == (
        "bought 5 models of Hida Ashigaru Spearmen as Crab Reserve for 40 koku; joins the army at Hida in the "
        "recovery phase"
    )
    [bid] = rows(store, "Bids")
    assert (bid["Faction"], bid["Personality"], bid["Bid"], bid["Province"], bid["Status"]) == (
        "Lion", "Otaku Kamoko", 180, "Ikoma", "Won",
    )  # fmt: skip
    [move] = rows(store, "Moves")  # the faction's and the email's case as the player typed them: matched all the same
    assert (move["Phase"], move["Faction"], move["Mover"], move["To"], move["Status"]) == (
        "primary", "Crab", "Crab Spears", "Yasuki", "Resolved",
    )  # fmt: skip


def test_a_response_sent_from_another_players_email_is_refused_by_name() -> None:
    store = MemoryStore(demo_tabs(DEADLINE, [IMPOSTOR]))
    report = app.resolve(store, now=NOW)
    assert (report.summary["form responses copied"], report.summary["form responses refused"]) == (1, 1)
    [row] = rows(store, "Purchases")
    assert (row["Faction"], row["Action"], row["Status"]) == ("Crab", "stockpile", "Rejected")
    assert (
        row["Result"] == "refused: sent from crane@example.com, not from the email of the Crab faction's player (Aiko)"
    )
    stock = {(r["Faction"], r["Item"]): r["Count"] for r in rows(store, "Stockpile", submitted=False)}
    assert stock[("Crab", "Yari")] == 29  # 30, less the one assigned to Kuni Yori: none of the impostor's 5


def test_a_response_sent_after_the_deadline_waits_for_the_next_turn() -> None:
    store = MemoryStore(demo_tabs(DEADLINE, [BUY, LATE]))
    first = app.resolve(store, now=NOW)
    assert (first.summary["form responses copied"], first.summary["form responses waiting for a later turn"]) == (1, 1)
    assert rows(store, "Moves") == []
    app.resolve(store, now=NOW)  # still waiting for the Battle Results: nothing is copied meanwhile
    assert rows(store, "Moves") == []
    header = store.tabs["Battle Results"][0]
    store.tabs["Battle Results"] += [[{"Turn": 1, **r}.get(h) for h in header] for r in RESULTS]
    assert app.resolve(store, now=NOW).headline == "Turn 1 resolved (2 battles applied)"
    assert rows(store, "Moves") == []  # turn 2's deadline is a week on: it waits still
    turn_2 = app.resolve(store, now=datetime(2026, 12, 5, 12, 0, tzinfo=UTC))  # past turn 2's deadline
    assert turn_2.summary["form responses copied"] == 1
    [late] = rows(store, "Moves")
    assert (late["Turn"], late["Faction"], late["Mover"], late["To"], late["Submitted"]) == (
        2, "Shadowlands", "Ogre Band", "Kaiu", "2026-11-28 20:01:00",
    )  # fmt: skip


def test_each_response_is_copied_once_however_often_check_and_resolve_run() -> None:
    store = MemoryStore(demo_tabs({**DEADLINE}, [BUY]))
    early = datetime(2026, 11, 28, 2, 0, tzinfo=UTC)  # 11:00 in Tokyo, before the deadline
    checked = app.check(store, now=early)
    assert checked.summary["form responses copied"] == 1
    [row] = rows(store, "Purchases")
    assert (row["Status"], row["Result"]) == ("Pending", "Check: valid now: bought 5 models of Hida Ashigaru "
                                              "Spearmen as Crab Reserve for 40 koku; joins the army at Hida in the "
                                              "recovery phase")  # fmt: skip
    assert app.check(store, now=early).summary["form responses copied"] == 0
    app.resolve(store, now=NOW)
    assert len(rows(store, "Purchases")) == 1


def test_a_response_that_cannot_be_a_row_is_named_by_validate_and_stays_in_the_form_tab() -> None:
    typo = {**MOVE, "Mover": "Crab Spaers"}
    store = MemoryStore(demo_tabs(DEADLINE, [typo, BID]))
    said = [str(p) for p in app.validate(store)]
    assert said == [
        "Form Responses 1, row 2, column Mover: found 'Crab Spaers'; a unit or personality of the Units or "
        "Personalities tab: the response is not copied until its answer is corrected"
    ]
    report = app.resolve(store, now=NOW)  # a warning: the turn goes on without it
    assert (report.summary["form responses copied"], report.summary["form responses not taken"]) == (1, 1)
    assert rows(store, "Moves") == []
    store.tabs["Form Responses 1"][1][RESPONSE_HEADER.index("Mover")] = "Crab Spears"  # the GM corrects it
    assert [p for p in app.validate(store) if p.tab == "Form Responses 1"] == []


def test_an_order_tab_without_submitted_and_email_columns_is_refused_while_responses_wait() -> None:
    laid = demo_tabs(DEADLINE, [BUY])
    header = laid["Moves"][0]
    keep = [i for i, h in enumerate(header) if h not in ("Submitted", "Email")]
    laid["Moves"] = [[row[i] for i in keep] for row in laid["Moves"]]
    said = [str(p) for p in app.validate(MemoryStore(laid))]
    assert said == [
        f"Moves, row 1, column {c}: found an empty cell; a column headed '{c}' (after the last header): Form responses "
        "are copied with when and from whom they were sent, so that each is copied once"
        for c in ("Submitted", "Email")
    ]


def test_a_workbook_made_before_the_form_tab_validates_and_resolves_as_before() -> None:
    laid = demo_tabs(DEADLINE)
    del laid["Form Responses 1"]
    for tab in ("Purchases", "Bids", "Moves"):
        header = laid[tab][0]
        keep = [i for i, h in enumerate(header) if h not in ("Submitted", "Email")]
        laid[tab] = [[row[i] for i in keep] for row in laid[tab]]
    store = MemoryStore(laid)
    assert app.validate(store) == []
    report = app.resolve(store, now=NOW)
    assert report.headline == "Turn 1 paused: waiting for the Battle Results of 2 battles: Kakita, Shiro Hiruma."
    assert "Form Responses 1" not in store.tabs
    # once a Form is linked (form_id), validate says where its answers must arrive
    linked = MemoryStore({**laid, "Game": [*laid["Game"], ["form_id", FORM, ""]]})
    assert [str(p) for p in app.validate(linked)] == [
        "Form Responses 1: found an empty cell; a tab named 'Form Responses 1' (the Form's answers arrive there: "
        "in the Form, Responses > Link to Sheets; in a workbook, add the tab with the Form's questions as headers)"
    ]


class Sheet(MemoryStore):
    """The demo in memory with a spreadsheet key, as a Google Sheet has."""

    key = KEY


@pytest.fixture
def forms() -> Iterator[tuple[FakeForms, str]]:
    fake = FakeForms()
    fake.add(clan_war_form(FORM, KEY))
    with serve_forms(fake) as root:
        yield fake, root


def test_form_sync_sets_the_factions_orders_items_provinces_and_forces_standing(forms) -> None:
    fake, root = forms
    laid = demo_tabs()
    sheet = Sheet(laid)
    report = sync(sheet, FormsClient(requests.Session(), QUICK, root, "engine@game.iam.gserviceaccount.com"), FORM)
    [body] = fake.batch_updates()
    sent = {
        r["updateItem"]["item"]["itemId"]: [o["value"] for o in
                                            r["updateItem"]["item"]["questionItem"]["question"]["choiceQuestion"]["options"]]
        for r in body["requests"]
    }  # fmt: skip
    assert sent["c1a00001"] == ["Crab", "Crane", "Lion", "Shadowlands"]
    assert sent["c1a00002"] == [
        "buy", "promote", "replace", "upgrade", "stockpile", "tattoo", "assign", "swap", "return", "lead", "join",
        "leave", "transfer", "bid", "primary move", "cavalry move", "reserve move",
    ]  # fmt: skip
    assert len(sent["c1a00003"]) == len(laid["Catalogue"]) - 1 == 67
    assert sent["c1a00007"] == sent["c1a00011"] == [r[0] for r in laid["Provinces"][1:]]
    assert len(sent["c1a00007"]) == 47
    units, people = [r[0] for r in laid["Units"][1:]], [r[0] for r in laid["Personalities"][1:]]
    assert sent["c1a00010"] == units + people  # every unit and personality in play
    assert report.options == {"Faction": 4, "Order": 17, "Item": 67, "Province": 47, "Mover": 12 + 9, "To": 47}
    assert report.warnings == [] and report.linked_now
    game = {row[0]: row[1] for row in sheet.tabs["Game"][1:]}
    assert [game[k] for k in ("form_id", "form_faction_item", "form_order_item", "form_mover_item")] == [
        FORM, "c1a00001", "c1a00002", "c1a00010",
    ]  # fmt: skip
    assert app.validate(sheet) == []  # the keys it added are a campaign's own


def test_a_rolled_back_turn_restores_every_cell_and_copies_its_responses_again_once() -> None:
    laid = demo_tabs(DEADLINE, [BUY, IMPOSTOR])
    store = MemoryStore(laid)
    app.resolve(store, now=NOW)
    app.rollback(store, 1)

    def kept(rows: list[list[Any]]) -> list[list[Any]]:
        trimmed = [[None if c in ("", None) else c for c in row] for row in rows]
        return [row for row in trimmed if any(c is not None for c in row)]

    assert {t: kept(store.tabs[t]) for t in laid if t != "History"} == {
        t: kept(laid[t]) for t in laid if t != "History"
    }
    app.resolve(store, now=NOW)
    assert [(r["Submitted"], r["Email"], r["Status"]) for r in rows(store, "Purchases")] == [
        ("2026-11-28 10:00:00", "crab@example.com", "Accepted"),
        ("2026-11-28 13:00:00", "crane@example.com", "Rejected"),
    ]


def test_form_sync_on_a_workbook_without_the_form_tab_says_where_the_answers_must_arrive(forms) -> None:
    _fake, root = forms
    laid = demo_tabs()
    del laid["Form Responses 1"]
    report = sync(
        Sheet(laid), FormsClient(requests.Session(), QUICK, root, "engine@game.iam.gserviceaccount.com"), FORM
    )
    assert report.warnings == [
        "the campaign has no 'Form Responses 1' tab: the Form's answers have nowhere to arrive. In the Form: "
        "Responses > Link to Sheets (a Google Sheet gets the tab); in a workbook, add the tab with the Form's "
        "questions as headers"
    ]
