"""Orders a GM types in by hand are read with the care a form response gets (issue 24).

`Submitted` is read as a time in any unambiguous way a GM or a spreadsheet writes one, never sorted
as text; a date whose day and month could swap, a Pending row with no Turn or with a turn resolved
already stop the run at their cell; an empty Submitted counts as the latest order of the turn; and
after `resolve` no row that holds an order is left without a word.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from sheets_engine import app
from sheets_engine.core.problems import InvalidCampaign, Severity
from sheets_engine.stores.memory import MemoryStore
from tests.campaigns import KATSUIE, characters, provinces
from tests.support import clan, tabs

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
FORM_TAX = {"Timestamp": "2026-11-28 17:05:00", "Email Address": KATSUIE, "Character": "Shibata Katsuie",
            "Order": "tax-province", "Target": "Mino"}  # fmt: skip
ORDERS_ROW = 2  # the sheet row of the first Orders row typed in (1 is the header)


def typed(**values: Any) -> dict[str, Any]:
    """An Orders row as a GM types it: Katsuie meditates, Status and Result left empty."""
    return {"Turn": 1, "Email": KATSUIE, "Character": "Shibata Katsuie", "Order": "meditate", **values}


def campaign(*orders: dict[str, Any], responses: tuple[dict[str, Any], ...] = (FORM_TAX,)) -> MemoryStore:
    """The small campaign (Oda and Takeda) at turn 1, with these typed Orders rows and form responses."""
    laid = tabs(
        clans=[clan("Oda", Capital="Owari", Treasury=10), clan("Takeda", Capital="Kai", Treasury=10)],
        provinces=provinces(),
        characters=characters(),
        armies=[{"Army": "Oda Main Host", "Clan": "Oda", "Province": "Owari", "Spear": 4}],
        form_responses_1=list(responses),
        orders=list(orders),
    )
    return MemoryStore(laid)


def orders_after(store: MemoryStore) -> list[dict[str, Any]]:
    """The Orders rows as the sheet holds them after a run."""
    header, *rows = store.tabs["Orders"]
    return [dict(zip(header, row, strict=False)) for row in rows]


def problems(store: MemoryStore, severity: Severity) -> list[tuple[str, int | None, str, Any, str]]:
    return [(p.tab, p.row, p.column, p.value, p.expected) for p in app.validate(store) if p.severity is severity]


def serial(moment: datetime) -> float:
    """The moment as Google Sheets gives a date cell read unformatted: days since 1899-12-30."""
    return (moment - datetime(1899, 12, 30)) / timedelta(days=1)


@pytest.mark.parametrize(
    "submitted",
    [
        "11/28/2026 9:10 PM",  # a US locale's way (issue 24: compared as text, it lost to 17:05)
        "2026-11-28 21:10",
        "28 November 2026 21:10",
        datetime(2026, 11, 28, 21, 10),  # a workbook's date cell
        serial(datetime(2026, 11, 28, 21, 10)),  # a Google Sheets date cell
    ],
)
def test_a_typed_submitted_time_is_read_as_a_time_and_the_later_order_wins(submitted: object) -> None:
    store = campaign(typed(Submitted=submitted))
    assert problems(store, Severity.ERROR) == []
    app.resolve(store, now=NOW, force=True)
    meditate, tax = orders_after(store)
    assert (meditate["Order"], meditate["Status"]) == ("meditate", "Resolved")
    assert (tax["Order"], tax["Status"], tax["Result"]) == (
        "tax-province",
        "Superseded",
        "replaced by the later order meditate submitted 2026-11-28 21:10:00",
    )
    assert meditate["Submitted"] == submitted  # the GM's cell is never rewritten


def test_an_earlier_typed_time_loses_to_the_later_form_response() -> None:
    store = campaign(typed(Submitted="11/28/2026 9:10 AM"))
    app.resolve(store, now=NOW, force=True)
    meditate, tax = orders_after(store)
    assert (meditate["Status"], meditate["Result"]) == (
        "Superseded",
        "replaced by the later order tax-province submitted 2026-11-28 17:05:00",
    )
    assert tax["Status"] == "Resolved"


def test_a_typed_date_whose_day_and_month_could_swap_is_a_problem_at_its_cell() -> None:
    store = campaign(typed(Submitted="03/04/2026 10:00"))
    assert problems(store, Severity.ERROR) == [
        ("Orders", ORDERS_ROW, "Submitted", "03/04/2026 10:00",
         "expected a date and time such as 2026-03-14 09:30 (is this the 3 April or the 4 March?)"),
    ]  # fmt: skip
    with pytest.raises(InvalidCampaign):
        app.resolve(store, now=NOW, force=True)
    assert [row["Status"] for row in orders_after(store)] == [None]  # nothing written


def test_an_empty_submitted_counts_as_the_latest_order_of_the_turn() -> None:
    """As if typed at the cut-off: after every order with a time; validate says so, as a warning."""
    store = campaign(typed())
    assert problems(store, Severity.ERROR) == []
    assert problems(store, Severity.WARNING) == [
        ("Orders", ORDERS_ROW, "Submitted", "",
         "the time the order was given, such as 2026-11-28 21:10; empty, it counts as the latest order of its "
         "turn (after every one with a time)"),
    ]  # fmt: skip
    app.resolve(store, now=NOW, force=True)
    meditate, tax = orders_after(store)
    assert meditate["Status"] == "Resolved"
    assert (tax["Status"], tax["Result"]) == (
        "Superseded",
        "replaced by the later order meditate typed in with no Submitted time (the latest)",
    )


def test_of_two_orders_typed_without_a_time_the_lower_row_counts() -> None:
    store = campaign(typed(Order="tax-province", Target="Mino"), typed(), responses=())
    app.resolve(store, now=NOW, force=True)
    assert [(row["Order"], row["Status"]) for row in orders_after(store)] == [
        ("tax-province", "Superseded"),
        ("meditate", "Resolved"),
    ]


def test_a_pending_order_with_no_turn_is_a_problem_at_its_cell_and_nothing_resolves() -> None:
    """Issue 24: it was never read, its Status and Result stayed empty, and validate found nothing."""
    store = campaign(typed(Turn=None, Submitted="2026-11-28 21:10"))
    expected = "the turn this order is for (the next to resolve is 1): a Pending order with no turn is never read"
    assert problems(store, Severity.ERROR) == [("Orders", ORDERS_ROW, "Turn", "", expected)]
    with pytest.raises(InvalidCampaign):
        app.resolve(store, now=NOW, force=True)
    assert store.tabs["Game"] == campaign(typed(Turn=None)).tabs["Game"]  # the turn did not resolve


def test_a_pending_order_for_a_turn_resolved_already_is_a_problem_at_its_cell() -> None:
    store = campaign(typed(Turn=1, Submitted="2026-11-28 21:10"))
    store.tabs["Game"] = [[k, 3 if k == "turn" else v, *rest] for k, v, *rest in store.tabs["Game"]]
    assert problems(store, Severity.ERROR) == [
        ("Orders", ORDERS_ROW, "Turn", 1,
         "turn 3 or later: turn 1 is resolved already, so this Pending order would never be read (type 3 for the "
         "next turn, or clear the row)"),
    ]  # fmt: skip


def test_an_order_for_a_later_turn_waits_and_says_so() -> None:
    store = campaign(typed(Turn=2, Submitted="2026-11-28 21:10"))
    assert problems(store, Severity.WARNING) == [
        ("Orders", ORDERS_ROW, "Turn", 2,
         "an order for a later turn: the next to resolve is 1; this one waits until turn 2 is resolved"),
    ]  # fmt: skip
    app.resolve(store, now=NOW, force=True)
    later, tax = orders_after(store)
    assert (later["Status"], later["Result"]) == ("Pending", "for turn 2: it is read when turn 2 is resolved")
    assert tax["Status"] == "Resolved"  # Katsuie's turn-1 order is not replaced by his turn-2 one
    app.resolve(store, now=NOW + timedelta(days=1), force=True)
    later, _ = orders_after(store)
    assert later["Status"] == "Resolved"


def test_after_resolve_every_row_that_holds_an_order_has_a_status_and_a_result() -> None:
    store = campaign(
        typed(Submitted="11/28/2026 9:10 PM"),
        typed(Character="Shibata Katsuei", Submitted="2026-11-28 09:00"),  # no such character
        typed(Order="tax-provnce", Email="takeda.shingen@example.com"),  # not his, and no such order
        typed(Turn=2),
    )
    app.resolve(store, now=NOW, force=True)
    assert all(row["Status"] and row["Result"] for row in orders_after(store))
    assert orders_after(store)[3]["Status"] == "Pending"  # the turn-2 row typed with no Status says it waits


def test_a_real_date_cell_of_a_workbook_is_read_as_its_time(tmp_path: Path) -> None:
    """A date cell, shown in a US format, is its time: 23:59 is later than the demo's 19:40."""
    path = tmp_path / "camp.xlsx"
    app.init(str(path), demo=True)
    book = openpyxl.load_workbook(path)
    sheet = book["Orders"]
    header = [c.value for c in sheet[1]]
    row = {"Turn": 1, "Submitted": datetime(2026, 11, 28, 23, 59), "Email": "rice.steward@example.com",
           "Character": "Niwa Nagahide", "Order": "meditate"}  # fmt: skip
    sheet.append([row.get(column) for column in header])
    sheet.cell(sheet.max_row, header.index("Submitted") + 1).number_format = "mm/dd/yyyy hh:mm"
    book.save(path)
    assert [p for p in app.validate(str(path)) if p.severity is Severity.ERROR] == []
    app.resolve(str(path), now=NOW, force=True)
    orders = openpyxl.load_workbook(path)["Orders"]
    by_header = [dict(zip(header, (c.value for c in r), strict=False)) for r in orders.iter_rows(min_row=2)]
    mine = [r for r in by_header if r["Character"] == "Niwa Nagahide"]
    # the demo's form responses for him, 14:20 and 19:40, are copied below the typed row
    assert [(r["Order"], r["Status"]) for r in mine] == [
        ("meditate", "Resolved"),
        ("tax-province", "Superseded"),
        ("build", "Superseded"),
    ]
    assert mine[2]["Result"] == "replaced by the later order meditate submitted 2026-11-28 23:59:00"


@pytest.mark.parametrize(
    ("answer", "secret"),
    [("Keep it secret", True), ("secret", True), ("TRUE", True), ("Make it public", False), ("", False), ("No", False)],
)
def test_a_typed_secret_takes_the_forms_answers_too(answer: str, secret: bool) -> None:
    """A GM copying an answer from the form's Secret question into Orders (docs/form.md's table)."""
    campaign_read = app.open_campaign(campaign(typed(Submitted="2026-11-28 21:10", Secret=answer)))
    assert [p for p in campaign_read.problems if p.severity is Severity.ERROR] == []
    assert campaign_read.state.frame("Orders")["Secret"].tolist() == [secret]


def test_a_typed_secret_that_is_no_answer_is_a_problem_at_its_cell() -> None:
    store = campaign(typed(Submitted="2026-11-28 21:10", Secret="maybe"))
    assert problems(store, Severity.ERROR) == [
        ("Orders", ORDERS_ROW, "Secret", "maybe", 'expected TRUE or FALSE (or the form\'s "Keep it secret" or '
         '"Make it public")'),
    ]  # fmt: skip
