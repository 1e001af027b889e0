"""Clan War reassignment at one province: personalities shifted into or out of units (as commanders or
associated personalities), troop models shifted between units, each with its limits."""

from __future__ import annotations

from sheets_engine.clan_war import start
from tests.clan_war_support import cell, default_people, make_turn, person, results, state, unit


def order(action: str, from_: str = "", target: str = "", count: int | None = None) -> dict:
    return {"Turn": 1, "Faction": "Crab", "Action": action, "From": from_, "Target": target, "Count": count,
            "Status": "Pending"}  # fmt: skip


def started(*rows: dict, units: list[dict], people: list[dict] | None = None) -> object:
    turn = make_turn(state(units=units, personalities=people or default_people(), purchases=list(rows)))
    start.orders(turn)
    return turn


SPEARS = "Hida Ashigaru Spearmen"


def test_a_personality_takes_command_of_a_unit_at_its_province_and_the_former_commander_stays() -> None:
    units = [unit("Wall", "Crab", "Hida Heavy Infantry", "Hida", 10, "Hida Aki"),
             unit("Gate", "Crab", "Hida Heavy Infantry", "Kuni", 10)]  # fmt: skip
    people = [*default_people(), person("Hida Aki", "Crab", "Hida Bushi", "Hida", "Wall")]
    turn = started(order("lead", "Hida Kisada", "Gate"), order("lead", "Hida Kisada", "Wall"),
                   order("lead", "Hida Kisada", "Wall"), units=units, people=people)  # fmt: skip
    assert results(turn, "Purchases") == [
        ("Rejected", "Hida Kisada is at Hida and Gate at Kuni: reassignment happens at one province"),
        ("Resolved", "Hida Kisada commands Wall; Hida Aki stays with it"),
        ("Rejected", "Hida Kisada commands Wall already"),
    ]
    assert (cell(turn, "Units", "Wall", "Leader"), cell(turn, "Personalities", "Hida Kisada", "Unit"),
            cell(turn, "Personalities", "Hida Aki", "Unit")) == ("Hida Kisada", "Wall", "Wall")  # fmt: skip


def test_a_personality_joins_a_unit_as_an_associated_personality_and_leaves_it() -> None:
    units = [unit("Wall", "Crab", "Hida Heavy Infantry", "Hida", 10, "Hida Kisada")]
    people = [person("Hida Kisada", "Crab", "Hida Kisada", "Hida", "Wall", Unique=True), default_people()[1],
              person("Hida Aki", "Crab", "Hida Bushi", "Hida")]  # fmt: skip
    turn = started(order("join", "Hida Aki", "Wall"), order("leave", "Hida Kisada"), order("leave", "Hida Kisada"),
                   units=units, people=people)  # fmt: skip
    assert results(turn, "Purchases") == [
        ("Resolved", "Hida Aki joins Wall as an associated personality"),
        ("Resolved", "Hida Kisada leaves Wall and no longer commands Wall"),
        ("Rejected", "Hida Kisada is in no unit and commands none"),
    ]
    assert (cell(turn, "Units", "Wall", "Leader"), cell(turn, "Personalities", "Hida Aki", "Unit")) == ("", "Wall")


def test_models_shift_between_units_of_one_troop_type_the_inexperienced_first_within_the_limits() -> None:
    units = [unit("Veterans", "Crab", SPEARS, "Hida", 20, "Chui", Experienced=True, Experienced_Models=15),
             unit("Levy", "Crab", SPEARS, "Hida", 10, "Gunso"),
             unit("Wall", "Crab", "Hida Heavy Infantry", "Hida", 10, "Gunso")]  # fmt: skip
    turn = started(order("transfer", "Veterans", "Wall", 2), order("transfer", "Veterans", "Levy", 11),
                   order("transfer", "Veterans", "Levy", 6), units=units)  # fmt: skip
    assert results(turn, "Purchases") == [
        ("Rejected", "Wall is a unit of Hida Heavy Infantry: models shift only between units of one troop type"),
        ("Rejected", "Levy may take 10 more models: its leader Gunso has a Command Limit of 20 and leads 10"),
        ("Resolved", "6 models of Veterans join Levy"),
    ]
    # the 5 inexperienced left first, then 1 experienced: 14 of 14 experienced stay
    assert (cell(turn, "Units", "Veterans", "Models"), cell(turn, "Units", "Veterans", "Experienced Models")) == (
        14,
        14,
    )
    assert (cell(turn, "Units", "Levy", "Models"), cell(turn, "Units", "Levy", "Experienced")) == (16, False)


def test_models_shifted_to_a_new_name_form_a_new_unit_and_a_unit_shifted_whole_is_merged_away() -> None:
    units = [unit("Levy", "Crab", SPEARS, "Hida", 10, "Gunso"), unit("Band", "Crab", SPEARS, "Hida", 4, "Hida Aki")]
    people = [*default_people(), person("Hida Aki", "Crab", "Hida Bushi", "Hida", "Band")]
    turn = started(order("transfer", "Levy", "Pikes", 4), order("transfer", "Band", "Levy", 4),
                   units=units, people=people)  # fmt: skip
    assert results(turn, "Purchases") == [
        ("Resolved", "4 models of Levy form the new unit Pikes, with no leader yet"),
        ("Resolved", "4 models of Band join Levy; Band is merged away"),
    ]
    pikes = turn.draft.row("Units", "Pikes")
    assert (pikes["Models"], pikes["Province"], pikes["Leader"], pikes["ML"], pikes["TL"]) == (4, "Hida", "", 6, 6)
    assert (cell(turn, "Units", "Band", "Status"), cell(turn, "Personalities", "Hida Aki", "Unit")) == ("Destroyed", "")
    assert cell(turn, "Units", "Levy", "Models") == 10


def test_tattooed_models_join_only_a_unit_with_the_same_tattoos() -> None:
    units = [unit("Inked", "Crab", SPEARS, "Hida", 10, "Gunso", Tattooed=True, Tattoos="Dragon Tattoo"),
             unit("Plain", "Crab", SPEARS, "Hida", 10, "Gunso")]  # fmt: skip
    turn = started(order("transfer", "Inked", "Plain", 2), order("transfer", "Inked", "Split", 2), units=units)
    assert results(turn, "Purchases")[0] == (
        "Rejected", "Inked and Plain bear different tattoos: tattooed models join only their like",
    )  # fmt: skip
    split = turn.draft.row("Units", "Split")
    assert (split["Tattooed"], split["Tattoos"]) == (True, "Dragon Tattoo")
