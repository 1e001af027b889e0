"""Clan War validation: every bad cell and every broken reference named by tab, row, column and value."""

from __future__ import annotations

from sheets_engine.clan_war import alliances, battles
from tests.clan_war_support import cell, default_people, make_turn, problems, provinces, state, unit


def errors(**rows: list[dict]) -> list[str]:
    return [str(p) for p in problems(**rows)]


def test_bad_cells_are_named_by_tab_row_column_and_value() -> None:
    wall = unit("Wall", "Crab", "Hida Heavy Infantry", "Hida", "ten", Status="Shattered")
    found = errors(
        units=[wall], moves=[{"Turn": 1, "Phase": "gallop", "Faction": "Crab", "Mover": "Wall", "To": "Kuni"}]
    )
    assert found == [
        "Units, row 2, column Models: found 'ten'; expected a whole number",
        "Units, row 2, column Status: found 'Shattered'; expected one of: Ready, Broken, Routed, Destroyed",
        "Moves, row 2, column Phase: found 'gallop'; expected one of: primary, cavalry, reserve",
    ]


def test_the_map_must_name_known_provinces_with_roads_both_ways() -> None:
    rows = provinces()
    rows[0]["Adjacent"] = "Kuni, Pass, Doji, Atlantis"
    rows[1]["Adjacent"] = "Shiro"
    assert errors(provinces=rows) == [
        "Provinces, row 2, column Adjacent: found 'Kuni'; a road both ways: Kuni's Adjacent does not name Hida",
        "Provinces, row 2, column Adjacent: found 'Atlantis'; a name from the Provinces tab",
    ]


def test_units_name_a_known_faction_catalogue_item_and_province() -> None:
    found = errors(units=[unit("Wall", "Crabb", "Hida Heavy Infantri", "Hidda", 10),
                          unit("Oops", "Crab", "Yari", "Hida", 10, "Nobody")])  # fmt: skip
    assert found == [
        "Units, row 2, column Faction: found 'Crabb'; a name from the Factions tab (did you mean 'Crab'?)",
        "Units, row 2, column Item: found 'Hida Heavy Infantri'; a name from the Catalogue tab "
        "(did you mean 'Hida Heavy Infantry'?)",
        "Units, row 3, column Item: found 'Yari'; a Catalogue item of kind Unit, Command Group (it is a Equipment)",
        "Units, row 2, column Province: found 'Hidda'; a name from the Provinces tab (did you mean 'Hida'?)",
        "Units, row 3, column Leader: found 'Nobody'; a personality, a Leadership Package of the Catalogue, "
        "or an empty cell",
    ]


def test_purchases_and_battle_results_name_what_exists() -> None:
    found = errors(
        purchases=[{"Turn": 1, "Faction": "Crab", "Action": "buy", "Item": "Excalibur"}],
        battle_results=[{"Turn": 1, "Province": "Shiro", "Winner": "Crab", "Unit": "Wall"}],
    )
    assert found == [
        "Purchases, row 2, column Item: found 'Excalibur'; a name from the Catalogue tab",
        "Battle Results, row 2, column Unit: found 'Wall'; a name from the Units tab",
        "Battle Results, row 2, column Unit: found 'Wall'; one of Winner (the battle's row), Unit, Personality or "
        "Switched Sides on each row",
    ]


def test_the_daimyo_is_one_of_the_factions_own_personalities() -> None:
    from tests.clan_war_support import factions

    rows = factions()
    rows[0]["Daimyo"] = "Doji Hoturi"
    assert errors(factions=rows) == [
        "Factions, row 2, column Daimyo: found 'Doji Hoturi'; "
        "a personality of Crab (the Daimyo leads the faction's clan)"
    ]


def test_you_must_pick_a_daimyo_for_your_clan() -> None:
    """A faction with no Daimyo is an error (the document: "You must pick a Daimyo, for your clan")."""
    from tests.clan_war_support import factions

    rows = factions()
    rows[1]["Daimyo"] = ""
    assert [(str(p), p.severity.value) for p in problems(factions=rows)] == [
        ("Factions, row 3, column Daimyo: found an empty cell; a personality of Crane: you must pick a Daimyo for "
         "your clan", "error"),
    ]  # fmt: skip


def test_a_dead_daimyo_is_a_warning_asking_for_a_new_one() -> None:
    people = default_people()
    people[0]["Status"] = "Dead"
    found = [(str(p), p.severity.value) for p in problems(personalities=people)]
    assert found == [
        (
            "Factions, row 2, column Daimyo: found 'Hida Kisada'; "
            "a living personality of Crab: Hida Kisada is Dead, so the faction names a new Daimyo",
            "warning",
        )
    ]


def test_a_captured_library_loses_the_spells_kept_there() -> None:
    units = [unit("Goblins", "Shadowlands", "Goblin Rabble", "Kuni", 10, "Gunso")]
    stock = [{"Faction": "Crab", "Item": "Fires of Purity", "Count": 2, "Library": "Kuni"},
             {"Faction": "Crab", "Item": "Yari", "Count": 9}]  # fmt: skip
    turn = make_turn(state(units=units, stockpile=stock))
    battles.occupy(turn, [])
    assert cell(turn, "Provinces", "Kuni", "Controller") == "Shadowlands"
    assert (cell(turn, "Stockpile", 2, "Faction"), cell(turn, "Stockpile", 3, "Faction")) == ("Shadowlands", "Crab")


def test_an_alliance_the_gm_marks_broken_ends_and_units_bought_from_the_ally_are_lost() -> None:
    units = [unit("Loan", "Crane", "Hida Heavy Infantry", "Doji", 10, "Gunso", From_Ally="Crab")]
    people = [*default_people()]
    allied = [{"Faction A": "Crab", "Faction B": "Crane", "Since Turn": 1, "Broken Turn": 2, "Status": "Active"}]
    turn = make_turn(state(units=units, personalities=people, alliances=allied))
    alliances.broken_by_the_gm(turn)
    assert (cell(turn, "Alliances", 2, "Status"), cell(turn, "Units", "Loan", "Status")) == ("Broken", "Destroyed")
    assert cell(turn, "Alliances", 2, "Result") == "broken in turn 2 (the GM's record)"


def test_the_clan_war_doc_names_every_tab_column_and_game_key() -> None:
    import re
    from pathlib import Path

    from sheets_engine.clan_war.schema import TABS
    from tests.clan_war_support import RULESET

    text = (Path(__file__).resolve().parent.parent / "docs" / "clan-war.md").read_text()
    named = set(re.findall(r"`([^`]+)`", " ".join(text.split())))
    assert [f"{spec.name}: {c}" for spec in TABS for c in spec.columns if c not in named] == []
    keys = [row[0] for row in __import__("sheets_engine.templates", fromlist=["x"]).template_tabs(RULESET)["Game"][1:]]
    assert [k for k in keys if k not in named] == []


def test_a_catalogue_without_the_optional_max_units_column_still_reads() -> None:
    from sheets_engine.core.load import load_state
    from sheets_engine.stores.memory import MemoryStore
    from tests.clan_war_support import RULESET, tabs

    laid = tabs()
    at = laid["Catalogue"][0].index("Max Units")
    laid["Catalogue"] = [row[:at] + row[at + 1 :] for row in laid["Catalogue"]]
    loaded, found = load_state(MemoryStore(laid).read(), RULESET.tabs)
    assert [str(p) for p in found] == []
    assert loaded.frame("Catalogue").at["Daidoji Iron Warriors", "Max Units"] is None


def test_validate_on_a_paused_turn_reports_battle_results_that_resolve_would_refuse() -> None:
    """The GM types the results and runs validate: it says what the next resolve will refuse, row by row
    (results not typed yet are a warning saying what the turn waits for, not an error)."""
    units = [unit("Wall", "Crab", "Hida Heavy Infantry", "Shiro", 10, "Gunso"),
             unit("Goblins", "Shadowlands", "Goblin Rabble", "Shiro", 20, "Gunso")]  # fmt: skip
    assert [(str(p), p.severity.value) for p in problems({"phase": "battle"}, units=units)] == [
        ("Battle Results, column Winner: found an empty cell; a row with Turn 1, Province Shiro and the Winner of "
         "the battle there (Crab, Shadowlands): the turn waits for it", "warning"),
    ]  # fmt: skip
    typed = [{"Turn": 1, "Province": "Shiro", "Winner": "Crab"},
             {"Turn": 1, "Province": "Shiro", "Unit": "Wall", "Models Lost": 12},
             {"Turn": 1, "Province": "Shiro", "Unit": "Goblins", "Final Status": "Destroyed"}]  # fmt: skip
    assert [str(p) for p in problems({"phase": "battle"}, units=units, battle_results=typed)] == [
        "Battle Results, row 3, column Models Lost: found '12'; at most the 10 models of Wall"
    ]


def test_what_units_and_personalities_carry_and_the_ally_costs_are_named_rightly() -> None:
    from tests.clan_war_support import factions, person

    people = [*default_people(), person("Hida Aki", "Crab", "Hida Bushi", "Hida", Items="Yari, Excalibur, Gunso")]
    wall = unit("Wall", "Crab", "Hida Heavy Infantry", "Hida", 10, Tattoos="Yari", Experienced=True,
                Experienced_Models=12)  # fmt: skip
    rows = factions()
    rows[0]["Ally Costs"] = "Crane 110%, Phoenix"
    assert errors(personalities=people, units=[wall], factions=rows) == [
        "Factions, row 2, column Ally Costs: found 'Phoenix'; a clan and its cost modifier, as 'Phoenix 120%', "
        "comma-separated",
        "Units, row 2, column Tattoos: found 'Yari'; a Catalogue item of kind Tattoo (it is a Equipment)",
        "Units, row 2, column Experienced Models: found '12'; at most its Models (10)",
        "Personalities, row 4, column Items: found 'Excalibur'; a name from the Catalogue tab",
        "Personalities, row 4, column Items: found 'Gunso'; a Catalogue item of kind Special Item, Spell, Equipment, "
        "Tattoo (it is a Leadership Package)",
    ]
