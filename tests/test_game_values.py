"""Values that used to stop a campaign quietly (issue 13): each is now a problem named at its cell.

Game values the engine cannot use, Secret answers that are not the form's, headers a GM typed a
little differently, and form responses the next resolution would reject.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from sheets_engine import app
from sheets_engine.core.problems import InvalidCampaign, Severity
from sheets_engine.stores.memory import MemoryStore
from tests.support import store as campaign

NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)


def game_row(store: MemoryStore, key: str) -> int:
    """The sheet row of a Game key."""
    return next(n for n, r in enumerate(store.tabs["Game"], start=1) if r[0] == key)


def errors(store: MemoryStore) -> list[tuple[str, int | None, str, Any, str]]:
    return [(p.tab, p.row, p.column, p.value, p.expected) for p in app.validate(store) if p.severity is Severity.ERROR]


def warnings(store: MemoryStore) -> list[tuple[str, int | None, str, Any, str]]:
    return [
        (p.tab, p.row, p.column, p.value, p.expected) for p in app.validate(store) if p.severity is Severity.WARNING
    ]


# Game values -------------------------------------------------------------------------------------------


def test_last_resolved_at_in_a_locales_format_is_a_validation_error() -> None:
    """ "01/12/2026 08:00" made every resolve a quiet "Nothing to do" (exit 0): now it is exit 2."""
    s = campaign({"last_resolved_at": "01/12/2026 08:00"}, demo=True)
    row = game_row(s, "last_resolved_at")
    assert errors(s) == [
        ("Game", row, "Value", "01/12/2026 08:00",
         "last_resolved_at: a UTC time written as YYYY-MM-DD HH:MM:SS, as the engine writes it (or an empty cell: "
         "the next resolve is then due at once)"),
    ]  # fmt: skip
    with pytest.raises(InvalidCampaign):
        app.resolve(s, now=NOW)


def test_a_retyped_date_in_last_resolved_at_is_read_as_the_time() -> None:
    s = campaign({"last_resolved_at": datetime(2026, 11, 29, 8, 0), "last_resolved_turn": 0}, demo=True)
    assert errors(s) == []


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("min_hours_between_turns", "1e9", "expected at most 8760"),
        ("last_resolved_at", "9999-12-31 00:00:00",
         "a UTC time before the year 9001 (the engine writes the time of each resolution)"),
        ("turn", "-1", "expected 1 or more"),
    ],
)  # fmt: skip
def test_game_values_that_would_stop_resolve_are_bounded_in_validation(key: str, value: Any, expected: str) -> None:
    """No OverflowError even with --force: resolve refuses with the cell named, and pydantic's own
    words ("Input should be greater than or equal to 1") are said in the project's."""
    s = campaign({key: value}, demo=True)
    assert errors(s) == [("Game", game_row(s, key), "Value", value, f"{key}: {expected}")]  # by its key, not only row
    with pytest.raises(InvalidCampaign):
        app.resolve(s, now=NOW, force=True)


# Secret answers --------------------------------------------------------------------------------------------


def _declaration(secret: Any) -> MemoryStore:
    """The demo, with Oda Nobunaga's designate-ally Uesugi answered Secret = `secret`."""
    s = campaign(demo=True)
    responses = s.tabs["Form Responses 1"]
    responses[1][responses[0].index("Secret")] = secret
    return s


@pytest.mark.parametrize(("answer", "secret"), [("Keep it secret", True), ("Make it public", False),
                                                ("keep it SECRET", True), ("", False), ("TRUE", True)])  # fmt: skip
def test_the_forms_secret_choices_are_accepted(answer: str, secret: bool) -> None:
    s = _declaration(answer)
    app.resolve(s, now=NOW)
    [row] = [a for a in s.records("Alliances") if (a["Clan"], a["Ally"]) == ("Oda", "Uesugi")]
    assert bool(row["Secret"]) is secret  # an empty cell is FALSE
    announced = [
        n for n in s.records("Notifications") if n["Message"] == "The Oda clan declares the Uesugi clan its ally."
    ]
    assert len(announced) == (0 if secret else 1)


def test_a_secret_answer_that_is_not_a_choice_rejects_the_order_and_the_turn_resolves() -> None:
    """ "Perhaps" used to be taken as public, and the secret alliance announced."""
    s = _declaration("Perhaps")
    report = app.resolve(s, now=NOW)
    assert report.summary["resolved"] is True
    [order] = [o for o in s.records("Orders") if o["Order"] == "designate-ally"]
    assert (order["Status"], order["Result"]) == (
        "Rejected",
        'the Secret answer "Perhaps" is not one of the form\'s choices: "Keep it secret" or "Make it public" '
        "(an empty answer is public)",
    )
    assert not [a for a in s.records("Alliances") if (a["Clan"], a["Ally"]) == ("Oda", "Uesugi")]
    assert not [n for n in s.records("Notifications") if "declares the Uesugi clan" in str(n["Message"])]
    assert report.summary["orders resolved"] == 15  # the demo's 16, less this one


# Headers and tabs --------------------------------------------------------------------------------------------


def test_a_header_with_doubled_spaces_and_a_lowercase_tab_title_are_found() -> None:
    s = campaign(demo=True)
    header = s.tabs["Provinces"][0]
    header[header.index("Fortress Level")] = "FORTRESS  LEVEL"
    s.tabs = {("provinces" if t == "Provinces" else t): rows for t, rows in s.tabs.items()}
    assert errors(s) == []
    report = app.resolve(s, now=NOW)
    assert report.summary["resolved"] is True


def test_a_missing_column_names_what_was_found_and_the_nearest_match() -> None:
    s = campaign(demo=True)
    header = s.tabs["Clans"][0]
    header[header.index("Treasury")] = "Tresury"
    assert errors(s) == [
        ("Clans", 1, "Treasury", "",
         "a column headed 'Treasury' (headers found: 'Clan', 'Tresury', 'Knowledge', 'Development', 'Expansion', "
         "'Warfare', 'Piety', 'Learning', 'Tech Points', 'Capital'; the closest is 'Tresury')"),
    ]  # fmt: skip


def test_a_missing_tab_names_the_tabs_found_and_the_nearest_match() -> None:
    s = campaign(demo=True)
    s.tabs = {("Provinses" if t == "Provinces" else t): rows for t, rows in s.tabs.items()}
    [problem] = [p for p in app.validate(s) if p.tab == "Provinces"]
    assert problem.expected.startswith(
        "a tab with this name (sheets-engine init lays out every tab); tabs found: 'Provinses', 'Game', 'Clans', "
    )
    assert problem.expected.endswith(" more; the closest is 'Provinses'")


@pytest.mark.parametrize(("tab", "typed"), [("Armies", "Armys"), ("Orders", "Order")])
def test_a_renamed_tab_of_a_workbook_is_named_as_the_nearest(tmp_path: Path, tab: str, typed: str) -> None:
    """A workbook's tabs the engine does not read are still among those offered (issue 24)."""
    path = tmp_path / "camp.xlsx"
    app.init(str(path), demo=True)
    book = openpyxl.load_workbook(path)
    book[tab].title = typed
    book.create_sheet("GM notes")  # a tab of the GM's own, never read
    book.save(path)
    [problem] = [p for p in app.validate(str(path)) if p.severity is Severity.ERROR]
    assert (problem.tab, problem.row, problem.column) == (tab, None, "")
    assert problem.expected.endswith(f" more; the closest is '{typed}'")
    assert f"'{typed}'" in problem.expected.split("; the closest")[0]  # among the tabs found, though never read


def test_a_missing_tab_with_no_tab_like_it_suggests_none(tmp_path: Path) -> None:
    """The tabs the engine has are not offered for another: 'Game' is no misspelling of 'Armies'."""
    path = tmp_path / "camp.xlsx"
    app.init(str(path), demo=True)
    book = openpyxl.load_workbook(path)
    del book["Armies"]
    book.save(path)
    [problem] = [p for p in app.validate(str(path)) if p.severity is Severity.ERROR]
    assert problem.tab == "Armies"
    assert "closest" not in problem.expected


def test_a_tab_title_in_other_case_and_spaces_is_the_tab(tmp_path: Path) -> None:
    path = tmp_path / "camp.xlsx"
    app.init(str(path), demo=True)
    book = openpyxl.load_workbook(path)
    book["Armies"].title = "  ARMIES "
    book.save(path)
    assert [p for p in app.validate(str(path)) if p.severity is Severity.ERROR] == []


def test_a_negative_count_is_said_in_the_projects_words() -> None:
    s = campaign(demo=True)
    s.tabs["Clans"][2][s.tabs["Clans"][0].index("Knowledge")] = -3
    assert errors(s) == [("Clans", 3, "Knowledge", -3, "expected 0 or more")]


# Form Responses: what the next resolution would reject ------------------------------------------------------


def _with_responses(*rows: tuple[str, str, str, str]) -> MemoryStore:
    """The demo with only these responses (email, character, order, target)."""
    s = campaign(demo=True)
    header = s.tabs["Form Responses 1"][0]
    s.tabs["Form Responses 1"] = [header] + [
        ["2026-11-28 21:00:00", email, character, order, target, "", ""] for email, character, order, target in rows
    ]
    return s


def test_validate_warns_about_every_pending_response_it_would_reject() -> None:
    s = _with_responses(
        ("sandal.bearer@example.com", "Kinoshita Tokichiro", "tax-provnce", "Owari"),
        ("sandal.bearer@example.com", "Kinoshita Tokichiroo", "tax-province", "Owari"),
        ("sandal.bearer@example.com", "Oda Nobunaga", "tax-province", "Owari"),
        ("sandal.bearer@example.com", "Kinoshita Tokichiro", "tax-province", "Owari"),
    )
    known = (
        "tax-province, recruit-levies, build, lead-army, hire-samurai, rally-samurai, trade-mission, meditate, "
        "experiment, claim-daimyo, claim-shogunate, establish-relations, designate-ally, execute, write-letter"
    )
    would = "an order the next resolution can take; it would be rejected: "
    assert warnings(s) == [
        ("Form Responses 1", 2, "Order", "tax-provnce",
         would + f'unknown order "tax-provnce" (did you mean tax-province?; orders: {known})'),
        ("Form Responses 1", 3, "Character", "Kinoshita Tokichiroo",
         would + 'there is no character "Kinoshita Tokichiroo" (did you mean Kinoshita Tokichiro?)'),
        ("Form Responses 1", 4, "Character", "Oda Nobunaga",
         would + "not your character: sandal.bearer@example.com may not give orders for Oda Nobunaga"),
    ]  # fmt: skip
    assert errors(s) == []


def test_a_response_already_copied_into_orders_is_not_warned_about_again() -> None:
    s = _with_responses(("sandal.bearer@example.com", "Kinoshita Tokichiro", "tax-provnce", "Owari"))
    app.resolve(s, now=NOW)
    assert [w for w in warnings(s) if w[0] == "Form Responses 1"] == []


def test_a_workbook_with_a_lowercase_tab_and_a_doubled_space_header_resolves(tmp_path: Any) -> None:
    """The same in a workbook: the engine writes into the tab and column as the GM titled them."""
    from openpyxl import load_workbook

    path = tmp_path / "campaign.xlsx"
    app.init(str(path), demo=True)
    book = load_workbook(path)
    book["Provinces"].title = "renamed"  # openpyxl would call "provinces" a duplicate of "Provinces"
    book["renamed"].title = "provinces"
    sheet = book["provinces"]
    column = next(c.column for c in sheet[1] if c.value == "Tax Stockpile")
    sheet.cell(row=1, column=column, value="TAX  STOCKPILE")
    book.save(path)
    assert [p for p in app.validate(str(path)) if p.severity is Severity.ERROR] == []
    app.resolve(str(path), now=NOW)
    after = load_workbook(path)
    assert "Provinces" not in after.sheetnames
    owari = next(r for r in after["provinces"].iter_rows(min_row=2, values_only=True) if r[0] == "Owari")
    assert owari[column - 1] == 0  # Kinoshita taxed Owari: its stockpile is empty now


def test_validate_warns_about_a_secret_answer_and_an_answer_too_long() -> None:
    s = _with_responses(("sandal.bearer@example.com", "Kinoshita Tokichiro", "tax-province", "x" * 30_001))
    s.tabs["Form Responses 1"].append(
        ["2026-11-28 21:05:00", "sandal.bearer@example.com", "Kinoshita Tokichiro", "meditate", "", "", "Maybe"]
    )
    would = "an order the next resolution can take; it would be rejected: "
    assert warnings(s) == [
        ("Form Responses 1", 2, "Target", "x" * 60,
         would + "the Target answer is 30,001 characters long; an answer may hold at most 30,000"),
        ("Form Responses 1", 3, "Secret", "Maybe",
         would + 'the Secret answer "Maybe" is not one of the form\'s choices: "Keep it secret" or "Make it public" '
         "(an empty answer is public)"),
    ]  # fmt: skip
