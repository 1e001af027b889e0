"""Validation: every bad cell is reported with its tab, sheet row, column and the value found.

The campaign is the demo (valid as laid out) held in a MemoryStore, with one or more cells
spoiled per test. MemoryStore rows are sheet rows: index 0 is the header (row 1), so the first
data row is row 2. Contract: shared/spec/sheet-schema.md; checks: guide Sections 3, 4, 6, 7.
"""

from __future__ import annotations

from typing import Any

import pytest

from sheets_engine import app
from sheets_engine.core.problems import Problem, Severity
from sheets_engine.stores.memory import MemoryStore
from tests.support import store

# Sheet rows of the demo tabs the tests spoil (checked by test_the_demo_rows_are_where_the_tests_expect).
OWARI, MINO, ISE, OMI, YAMATO, TOTOMI = 2, 3, 4, 5, 7, 10
ODA_MAIN_HOST = 2
KINOSHITA = 4


def demo() -> MemoryStore:
    """The demo campaign without its two form responses meant to be rejected (a stranger's order and
    a dead man's, rows 11 and 20), which `validate` warns about: the baseline has no problems at all."""
    return without_rejected_responses(store(demo=True))


def without_rejected_responses(campaign: MemoryStore) -> MemoryStore:
    """The campaign without the demo's form responses rows 11 and 20 (meant to be rejected)."""
    responses = campaign.tabs["Form Responses 1"]
    campaign.tabs["Form Responses 1"] = [r for n, r in enumerate(responses, start=1) if n not in (11, 20)]
    return campaign


def put(s: MemoryStore, tab: str, row: int, column: str, value: Any) -> None:
    """Set the cell under header `column` in sheet row `row`."""
    index = s.tabs[tab][0].index(column)
    cells = s.tabs[tab][row - 1]
    cells.extend([None] * (index + 1 - len(cells)))
    cells[index] = value


def add_column(s: MemoryStore, tab: str, header: Any, values: dict[int, Any] | None = None) -> None:
    """Append a column (a GM's own, say) with values by sheet row."""
    rows = s.tabs[tab]
    width = len(rows[0])
    rows[0].append(header)
    for number, cells in enumerate(rows[1:], start=2):
        cells.extend([None] * (width - len(cells)))
        cells.append((values or {}).get(number))


def where(problems: list[Problem]) -> set[tuple[str, int | None, str, Any]]:
    """Each problem as (tab, row, column, value)."""
    return {(p.tab, p.row, p.column, p.value) for p in problems}


def only(problems: list[Problem]) -> Problem:
    assert len(problems) == 1, [str(p) for p in problems]
    return problems[0]


def test_the_demo_campaign_is_valid() -> None:
    """The baseline every other test spoils: no problems at all."""
    assert app.validate(demo()) == []


def test_the_demo_rows_are_where_the_tests_expect() -> None:
    s = demo()
    rows = {"Owari": OWARI, "Mino": MINO, "Ise": ISE, "Omi": OMI, "Yamato": YAMATO, "Totomi": TOTOMI}
    assert {name: s.cell("Provinces", row, "Province") for name, row in rows.items()} == {n: n for n in rows}
    assert s.cell("Armies", ODA_MAIN_HOST, "Army") == "Oda Main Host"
    assert s.cell("Characters", KINOSHITA, "Character") == "Kinoshita Tokichiro"


# Cells that cannot be read --------------------------------------------------------------------


def test_text_in_a_count_names_tab_row_column_and_value() -> None:
    """Treasury is a count of Mon: "lots" is not a whole number."""
    s = demo()
    put(s, "Clans", 2, "Treasury", "lots")
    problem = only(app.validate(s))
    assert (problem.tab, problem.row, problem.column, problem.value) == ("Clans", 2, "Treasury", "lots")
    assert problem.severity is Severity.ERROR
    assert "whole number" in problem.expected


def test_a_negative_count_is_an_error() -> None:
    s = demo()
    put(s, "Provinces", OMI, "Tax Stockpile", -3)
    problem = only(app.validate(s))
    assert (problem.tab, problem.row, problem.column, problem.value) == ("Provinces", OMI, "Tax Stockpile", -3)
    assert problem.expected == "expected 0 or more"


def test_province_type_must_be_city_or_rural() -> None:
    """Guide Section 3: provinces are City or standard (rural); a Castle is neither."""
    s = demo()
    put(s, "Provinces", ISE, "Type", "Castle")
    problem = only(app.validate(s))
    assert (problem.tab, problem.row, problem.column, problem.value) == ("Provinces", ISE, "Type", "Castle")
    assert "City" in problem.expected and "Rural" in problem.expected
    assert str(problem) == "Provinces, row 4, column Type: found 'Castle'; expected one of: City, Rural"


def test_fortress_level_5_is_above_the_maximum_of_4() -> None:
    """Section 6: fortress levels 1 to 4 (garrison 8, 16, 32, 64)."""
    s = demo()
    put(s, "Provinces", OWARI, "Fortress Level", 5)
    problem = only(app.validate(s))
    assert (problem.tab, problem.row, problem.column, problem.value) == ("Provinces", OWARI, "Fortress Level", 5)
    assert "4" in problem.expected


def test_a_duplicate_province_name_points_at_the_first_row() -> None:
    s = demo()
    put(s, "Provinces", MINO, "Province", "Owari")
    problem = next(p for p in app.validate(s) if p.column == "Province")
    assert (problem.tab, problem.row, problem.column, problem.value) == ("Provinces", MINO, "Province", "Owari")
    assert f"row {OWARI}" in problem.expected


def test_an_empty_name_with_data_in_other_columns_is_an_error() -> None:
    s = demo()
    put(s, "Provinces", ISE, "Province", None)
    problem = next(p for p in app.validate(s) if p.column == "Province")
    assert (problem.tab, problem.row, problem.column, problem.value) == ("Provinces", ISE, "Province", "")


def test_a_row_holding_only_a_gms_notes_is_not_a_province() -> None:
    """Text in a GM's own column of an otherwise empty row is not a nameless province."""
    s = demo()
    add_column(s, "Provinces", "GM Notes")
    s.tabs["Provinces"].append([None] * (len(s.tabs["Provinces"][0]) - 1) + ["reserved for the next war"])
    assert app.validate(s) == []


def test_row_numbers_are_the_sheets_even_after_blank_rows() -> None:
    """A blank row above shifts every row number, as the spreadsheet shows it."""
    s = demo()
    s.tabs["Provinces"].insert(1, [None] * len(s.tabs["Provinces"][0]))
    put(s, "Provinces", ISE + 1, "Type", "Castle")
    assert where(app.validate(s)) == {("Provinces", ISE + 1, "Type", "Castle")}


# Cross-references and rules -------------------------------------------------------------------


def test_an_unknown_terrain_is_an_error() -> None:
    s = demo()
    put(s, "Provinces", OWARI, "Terrain", "Swamp")
    problem = only(app.validate(s))
    assert (problem.tab, problem.row, problem.column, problem.value) == ("Provinces", OWARI, "Terrain", "Swamp")
    assert "Terrain" in problem.expected


def test_an_unknown_province_owner_is_an_error() -> None:
    s = demo()
    put(s, "Provinces", MINO, "Province Owner", "Hojo")
    problem = only(app.validate(s))
    assert (problem.tab, problem.row, problem.column, problem.value) == ("Provinces", MINO, "Province Owner", "Hojo")
    assert "Clans" in problem.expected


def test_a_one_sided_adjacent_link_is_an_error() -> None:
    """Section 3: adjacency links connect two provinces; Ise lists Tamba, Tamba does not list Ise."""
    s = demo()
    put(s, "Provinces", ISE, "Adjacent", "Owari, Mino, Omi, Yamato, Tamba")
    problem = only(app.validate(s))
    assert (problem.tab, problem.row, problem.column, problem.value) == ("Provinces", ISE, "Adjacent", "Tamba")
    assert "Tamba" in problem.expected and "Ise" in problem.expected


def test_an_adjacent_name_that_does_not_exist_is_an_error() -> None:
    s = demo()
    put(s, "Provinces", OMI, "Adjacent", "Mino, Echizen, Wakasa, Yamashiro, Ise, Atlantis")
    problem = only(app.validate(s))
    assert (problem.tab, problem.row, problem.column, problem.value) == ("Provinces", OMI, "Adjacent", "Atlantis")


def test_a_city_building_in_a_rural_province_is_an_error() -> None:
    """Section 4: City buildings can only be built in City provinces (Gunsmith in rural Omi)."""
    s = demo()
    put(s, "Provinces", OMI, "Building 3", "Gunsmith")
    problem = only(app.validate(s))
    assert (problem.tab, problem.row, problem.column, problem.value) == ("Provinces", OMI, "Building 3", "Gunsmith")


@pytest.mark.parametrize(("row", "slot"), [(YAMATO, "Building 2"), (ISE, "Building 2")])
def test_an_rgo_building_without_its_resource_is_an_error(row: int, slot: str) -> None:
    """Section 4: RGO buildings need a matching resource (Gold Mine: Gold; Yamato has none, Ise Fish)."""
    s = demo()
    put(s, "Provinces", row, slot, "Gold Mine")
    problem = only(app.validate(s))
    assert (problem.tab, problem.row, problem.column, problem.value) == ("Provinces", row, slot, "Gold Mine")
    assert "Gold" in problem.expected


@pytest.mark.parametrize(("development", "problems"), [(2, 1), (3, 0)])
def test_building_5_needs_development_3(development: int, problems: int) -> None:
    """Section 4: a fifth slot unlocks at Development 3 (Totomi is Imagawa's; Imagawa is row 3)."""
    s = demo()
    put(s, "Clans", 3, "Development", development)
    put(s, "Provinces", TOTOMI, "Building 5", "Temple")
    found = app.validate(s)
    assert where(found) == ({("Provinces", TOTOMI, "Building 5", "Temple")} if problems else set())


def test_fortress_level_without_a_fortress_building_is_an_error() -> None:
    s = demo()
    put(s, "Provinces", ISE, "Fortress Level", 2)
    problem = only(app.validate(s))
    assert (problem.tab, problem.row, problem.column, problem.value) == ("Provinces", ISE, "Fortress Level", 2)


def test_an_army_led_by_a_character_of_another_clan_is_an_error() -> None:
    """Section 6: an army's leader is a character from your clan (Yamamoto Kansuke is Takeda's)."""
    s = demo()
    put(s, "Armies", ODA_MAIN_HOST, "Leader", "Yamamoto Kansuke")
    problem = only(app.validate(s))
    expected = ("Armies", ODA_MAIN_HOST, "Leader", "Yamamoto Kansuke")
    assert (problem.tab, problem.row, problem.column, problem.value) == expected
    assert "Oda" in problem.expected


def test_two_daimyos_in_one_clan_is_an_error() -> None:
    """Section 7: the Daimyo is the clan leader; the second one listed is reported."""
    s = demo()
    put(s, "Characters", KINOSHITA, "Title", "Daimyo")
    problem = only(app.validate(s))
    assert (problem.tab, problem.row, problem.column, problem.value) == ("Characters", KINOSHITA, "Title", "Daimyo")
    assert "Oda Nobunaga" in problem.expected


def test_an_army_led_by_a_dead_character_is_an_error() -> None:
    """Section 6: the dead lead no army (Shibata Katsuie, leading the Oda Vanguard, set Dead)."""
    s = demo()
    put(s, "Characters", 3, "Status", "Dead")
    problem = only([p for p in app.validate(s) if p.severity is Severity.ERROR])  # his form order: a warning
    assert (problem.tab, problem.row, problem.column, problem.value) == ("Armies", 3, "Leader", "Shibata Katsuie")
    assert problem.expected == "a living character (this one is Dead)"


def test_one_character_leading_two_armies_is_reported_on_the_second() -> None:
    s = demo()
    put(s, "Armies", 4, "Leader", "Oda Nobunaga")  # the Kinai Guard, led by nobody in the demo
    problem = only(app.validate(s))
    assert (problem.tab, problem.row, problem.column, problem.value) == ("Armies", 4, "Leader", "Oda Nobunaga")
    assert problem.expected == "a character who leads no other army (it leads Oda Main Host)"


def test_three_daimyos_in_one_clan_name_the_first_on_each_later_one() -> None:
    s = demo()
    put(s, "Characters", KINOSHITA, "Title", "Daimyo")
    put(s, "Characters", 3, "Title", "Daimyo")
    problems = app.validate(s)
    assert [(p.row, p.column, p.value, p.expected) for p in problems] == [
        (3, "Title", "Daimyo", "one Daimyo per clan (Oda Nobunaga is the Oda Daimyo)"),
        (KINOSHITA, "Title", "Daimyo", "one Daimyo per clan (Oda Nobunaga is the Oda Daimyo)"),
    ]


@pytest.mark.parametrize(
    ("clan", "ally", "expected"),
    [
        ("Mori", "Mori", "another clan (a clan cannot declare itself its ally)"),
        ("Takeda", "Imagawa", "one row per declaration; row 2 has it already"),
    ],
)
def test_an_alliance_with_itself_or_declared_twice_is_an_error(clan: str, ally: str, expected: str) -> None:
    s = demo()
    put(s, "Alliances", 4, "Clan", clan)
    put(s, "Alliances", 4, "Ally", ally)
    problem = only(app.validate(s))
    assert (problem.tab, problem.row, problem.column, problem.value) == ("Alliances", 4, "Ally", ally)
    assert problem.expected == expected


ODA_NOBUHIDE = ["Oda Nobuhide", "old_tiger", "old.tiger@example.com", "Oda", "", 3, "Owari", "Alive"]


def test_more_living_characters_than_the_cap_is_a_warning_not_an_error() -> None:
    """Section 7: the character cap is 4 (Oda already has 4); a fifth is only a warning."""
    s = demo()
    s.tabs["Characters"].append(list(ODA_NOBUHIDE))
    row = len(s.tabs["Characters"])
    campaign = app.open_campaign(s)
    problem = only(campaign.problems)
    assert (problem.tab, problem.row, problem.column, problem.value) == ("Characters", row, "Clan", "Oda")
    assert problem.severity is Severity.WARNING
    assert campaign.errors == []


@pytest.mark.parametrize(
    ("game", "status"),
    [({"shogun_clan": "Oda"}, "Alive"), ({}, "Dead"), ({"character_cap": 5}, "Alive")],
)
def test_no_cap_warning_for_the_shogun_the_dead_or_a_raised_cap(game: dict[str, Any], status: str) -> None:
    """The Shogun's clan may have 5; dead characters do not count; character_cap is Game data."""
    s = without_rejected_responses(store(game, demo=True))
    s.tabs["Characters"].append([*ODA_NOBUHIDE[:-1], status])
    assert app.validate(s) == []


# Tabs and headers ------------------------------------------------------------------------------


def test_a_missing_tab_is_an_error() -> None:
    s = demo()
    del s.tabs["Sieges"]
    problem = only(app.validate(s))
    assert (problem.tab, problem.row, problem.column) == ("Sieges", None, "")
    assert problem.severity is Severity.ERROR


def test_a_missing_column_header_is_an_error_on_the_header_row() -> None:
    s = demo()
    put(s, "Provinces", 1, "Terrain", "Terrian")
    header = [p for p in app.validate(s) if p.row == 1]
    assert where(header) == {("Provinces", 1, "Terrain", "")}


def test_a_missing_column_header_is_reported_once_not_on_every_row() -> None:
    s = demo()
    put(s, "Provinces", 1, "Terrain", "Terrian")
    assert where(app.validate(s)) == {("Provinces", 1, "Terrain", "")}


def test_headers_and_tab_titles_match_ignoring_case_and_surrounding_spaces() -> None:
    """ " province owner " is the Province Owner column, and " PROVINCES " the Provinces tab."""
    s = demo()
    put(s, "Provinces", 1, "Province Owner", " province owner ")
    s.tabs = {(" PROVINCES " if t == "Provinces" else t): rows for t, rows in s.tabs.items()}
    campaign = app.open_campaign(s)
    assert campaign.problems == []
    owners = campaign.state.frame("Provinces")["Province Owner"]
    assert (owners["Owari"], owners["Mikawa"], owners["Tamba"]) == ("Oda", "Imagawa", "")


def test_a_gms_extra_column_is_ignored() -> None:
    s = demo()
    add_column(s, "Provinces", "GM Notes", {OWARI: "Nobunaga's seat", ISE: "=1+1"})
    add_column(s, "Clans", "Colour", {2: "red"})
    campaign = app.open_campaign(s)
    assert campaign.problems == []
    assert "GM Notes" not in campaign.state.frame("Provinces").columns


# Everything at once ----------------------------------------------------------------------------


def test_all_unreadable_cells_are_reported_at_once() -> None:
    """Not only the first: every bad cell, in several tabs, in one run."""
    s = demo()
    put(s, "Clans", 2, "Treasury", "lots")
    put(s, "Clans", 3, "Knowledge", -3)
    put(s, "Provinces", ISE, "Type", "Castle")
    put(s, "Provinces", OWARI, "Fortress Level", 5)
    put(s, "Provinces", YAMATO + 1, "Province", "Yamato")  # Settsu renamed
    put(s, "Armies", ODA_MAIN_HOST, "Samurai", "two")
    del s.tabs["Sieges"]
    assert where(app.validate(s)) == {
        ("Clans", 2, "Treasury", "lots"),
        ("Clans", 3, "Knowledge", -3),
        ("Provinces", ISE, "Type", "Castle"),
        ("Provinces", OWARI, "Fortress Level", 5),
        ("Provinces", YAMATO + 1, "Province", "Yamato"),
        ("Armies", ODA_MAIN_HOST, "Samurai", "two"),
        ("Sieges", None, "", ""),
    }


def test_all_broken_references_and_rules_are_reported_at_once() -> None:
    s = demo()
    put(s, "Provinces", OWARI, "Terrain", "Swamp")
    put(s, "Provinces", MINO, "Province Owner", "Hojo")
    put(s, "Provinces", ISE, "Adjacent", "Owari, Mino, Omi, Yamato, Tamba")
    put(s, "Provinces", ISE, "Fortress Level", 2)
    put(s, "Provinces", OMI, "Adjacent", "Mino, Echizen, Wakasa, Yamashiro, Ise, Atlantis")
    put(s, "Provinces", OMI, "Building 3", "Gunsmith")
    put(s, "Provinces", YAMATO, "Building 2", "Gold Mine")
    put(s, "Provinces", TOTOMI, "Building 5", "Temple")
    put(s, "Armies", ODA_MAIN_HOST, "Leader", "Yamamoto Kansuke")
    put(s, "Characters", KINOSHITA, "Title", "Daimyo")
    s.tabs["Characters"].append(list(ODA_NOBUHIDE))
    problems = app.validate(s)
    assert where(problems) == {
        ("Provinces", OWARI, "Terrain", "Swamp"),
        ("Provinces", MINO, "Province Owner", "Hojo"),
        ("Provinces", ISE, "Adjacent", "Tamba"),
        ("Provinces", ISE, "Fortress Level", 2),
        ("Provinces", OMI, "Adjacent", "Atlantis"),
        ("Provinces", OMI, "Building 3", "Gunsmith"),
        ("Provinces", YAMATO, "Building 2", "Gold Mine"),
        ("Provinces", TOTOMI, "Building 5", "Temple"),
        ("Armies", ODA_MAIN_HOST, "Leader", "Yamamoto Kansuke"),
        ("Characters", KINOSHITA, "Title", "Daimyo"),
        ("Characters", len(s.tabs["Characters"]), "Clan", "Oda"),
    }
    # the character cap, and Building 5 beyond Totomi's 4 slots (a warning since issue 13: capture can leave it)
    assert [p.severity for p in problems].count(Severity.WARNING) == 2
