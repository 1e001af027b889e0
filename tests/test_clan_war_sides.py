"""Clan War sides of a battle: a force switching sides mid-battle, recorded for either side ("the Scorpion turn
on the Cranes and join forces with the Lions"), and a liberator who keeps its ally's province."""

from __future__ import annotations

import pytest

from sheets_engine.clan_war import alliances, battles, results
from sheets_engine.core.problems import InvalidCampaign
from tests.clan_war_support import cell, make_turn, provinces, state, unit

# Crab stands for the Lion, Crane for the Crane and Naga for their Scorpion allies
ALLIED = {"Faction A": "Crane", "Faction B": "Naga", "Since Turn": 1, "Status": "Active"}


def result(**values: object) -> dict:
    return {"Turn": 1, "Province": "Pass", **{k.replace("_", " "): v for k, v in values.items()}}


def three_way(*rows: dict) -> object:
    units = [unit("Wall", "Crab", "Hida Heavy Infantry", "Pass", 10, "Gunso"),
             unit("Duelists", "Crane", "Kakita Duelists", "Pass", 10, "Gunso"),
             unit("Bowmen", "Naga", "Naga Bowmen", "Pass", 10, "Gunso")]  # fmt: skip
    turn = make_turn(state(units=units, alliances=[ALLIED], battle_results=list(rows)), rolls=[10] * 6)
    found = battles.find(turn)
    results.refuse_unusable(turn, found)
    for battle in found:
        battles.apply(turn, battle)
    return turn


def test_a_faction_that_switches_sides_and_wins_is_on_the_winners_side_and_breaks_its_alliance() -> None:
    turn = three_way(result(Winner="Crab"), result(Switched_Sides="Naga", Sided_With="Crab"),
                     result(Unit="Duelists", Models_Lost=4, Left_Table=True, Withdraw_To="Doji"))  # fmt: skip
    assert (cell(turn, "Units", "Bowmen", "Province"), cell(turn, "Units", "Duelists", "Province")) == ("Pass", "Doji")
    assert cell(turn, "Provinces", "Pass", "Controller") == "Crab"
    assert (cell(turn, "Alliances", 2, "Status"), cell(turn, "Alliances", 2, "Result")) == (
        "Broken", "Naga switched sides at Pass in turn 1, turning on Crane",
    )  # fmt: skip


def test_a_faction_that_switches_sides_and_loses_withdraws_with_the_losers() -> None:
    """Recorded for the other side: Naga sided with Crab, and Crane won: Crab and Naga both lost."""
    with pytest.raises(InvalidCampaign) as refused:
        three_way(result(Winner="Crane"), result(Switched_Sides="Naga", Sided_With="Crab"),
                  result(Unit="Wall", Left_Table=True, Withdraw_To="Hida"))  # fmt: skip
    assert [str(p) for p in refused.value.problems] == [
        "Battle Results, column Unit: found 'Bowmen'; a row for Bowmen at Pass with its Withdraw To: Naga lost at "
        "Pass: Bowmen withdraw to a province Naga controlled at the start of the turn"
    ]  # Naga, Crane's ally, would have won with it had it not switched
    turn = three_way(result(Winner="Crane"), result(Switched_Sides="Naga", Sided_With="Crab"),
                     result(Unit="Wall", Left_Table=True, Withdraw_To="Hida"),
                     result(Unit="Bowmen", Left_Table=True, Withdraw_To="Kakita"))  # fmt: skip
    assert (cell(turn, "Units", "Bowmen", "Province"), cell(turn, "Provinces", "Pass", "Controller")) == (
        "Kakita", "Crane",
    )  # fmt: skip
    assert cell(turn, "Alliances", 2, "Status") == "Broken"


def test_without_a_switch_the_winners_allies_win_with_it() -> None:
    turn = three_way(result(Winner="Crane"), result(Unit="Wall", Left_Table=True, Withdraw_To="Hida"))
    assert (cell(turn, "Units", "Bowmen", "Province"), cell(turn, "Alliances", 2, "Status")) == ("Pass", "Active")


def test_a_switch_must_name_factions_that_fought_and_not_an_ally() -> None:
    with pytest.raises(InvalidCampaign) as refused:
        three_way(result(Winner="Crab"), result(Switched_Sides="Naga", Sided_With="Crane"),
                  result(Unit="Duelists", Left_Table=True, Withdraw_To="Doji"),
                  result(Unit="Bowmen", Left_Table=True, Withdraw_To="Kakita"))  # fmt: skip
    assert [str(p) for p in refused.value.problems] == [
        "Battle Results, row 3, column Sided With: found 'Crane'; a faction Naga was not allied with: a force that "
        "switches sides turns on its allies"
    ]


def test_a_liberator_who_keeps_its_allys_province_gives_the_owner_the_right_to_break_the_alliance() -> None:
    crab_crane = {"Faction A": "Crab", "Faction B": "Crane", "Since Turn": 1, "Status": "Active"}
    units = [unit("Duelists", "Crane", "Kakita Duelists", "Kuni", 10, "Gunso"),
             unit("Goblins", "Shadowlands", "Goblin Rabble", "Kuni", 20, "Gunso")]  # fmt: skip
    typed = [{"Turn": 1, "Province": "Kuni", "Winner": "Crane"},
             {"Turn": 1, "Province": "Kuni", "Unit": "Goblins", "Final Status": "Destroyed"}]  # fmt: skip
    rows = {"units": units, "alliances": [crab_crane], "provinces": provinces(Kuni="Shadowlands"),
            "battle_results": typed}  # fmt: skip
    turn = make_turn(state(**rows), rolls=[10, 10])
    for battle in battles.find(turn):
        battles.apply(turn, battle)
    assert cell(turn, "Provinces", "Kuni", "Controller") == "Crane"
    assert cell(turn, "Alliances", 2, "Free To Break") == (
        "Crab: Crane kept Kuni, liberated from an enemy in turn 1, instead of returning it"
    )
    told = [(n["Audience"], n["Message"]) for n in turn.draft.logs["Notifications"] if n["Audience"] != "public"]
    assert told == [
        ("Crab", "Crane kept Kuni, your province it liberated: you may break the alliance without penalty."),
        ("gm", "Crab may break its alliance with Crane without penalty (Crab: Crane kept Kuni, liberated from an "
               "enemy in turn 1, instead of returning it)."),
    ]  # fmt: skip
    after = turn.draft.finish()
    broken = after.frame("Alliances").copy()
    rows["alliances"] = [{**crab_crane, "Broken Turn": 2, "Free To Break": broken.at[2, "Free To Break"]}]
    later = make_turn(state(**{**rows, "battle_results": []}))
    alliances.broken_by_the_gm(later)
    assert cell(later, "Alliances", 2, "Result") == (
        "broken in turn 2 (the GM's record); without penalty for Crab: Crane kept Kuni, liberated from an enemy in "
        "turn 1, instead of returning it"
    )


def test_a_liberated_province_returned_to_its_owner_gives_no_such_right() -> None:
    crab_crane = {"Faction A": "Crab", "Faction B": "Crane", "Since Turn": 1, "Status": "Active"}
    units = [unit("Duelists", "Crane", "Kakita Duelists", "Kuni", 10, "Gunso"),
             unit("Goblins", "Shadowlands", "Goblin Rabble", "Kuni", 20, "Gunso")]  # fmt: skip
    typed = [{"Turn": 1, "Province": "Kuni", "Winner": "Crane", "Control": "Crab"},
             {"Turn": 1, "Province": "Kuni", "Unit": "Goblins", "Final Status": "Destroyed"}]  # fmt: skip
    turn = make_turn(state(units=units, alliances=[crab_crane], provinces=provinces(Kuni="Shadowlands"),
                           battle_results=typed), rolls=[10, 10])  # fmt: skip
    for battle in battles.find(turn):
        battles.apply(turn, battle)
    assert (cell(turn, "Provinces", "Kuni", "Controller"), cell(turn, "Alliances", 2, "Free To Break")) == ("Crab", "")


def test_an_allys_ally_is_not_on_the_winners_side_alliances_are_not_shared() -> None:
    """Crab and Crane are allied, Crane and Naga too, Crab and Naga are not: they fight. Crab wins with Crane;
    Naga lost, and Crane, on the other side, has broken with it."""
    crab_crane = {"Faction A": "Crab", "Faction B": "Crane", "Since Turn": 1, "Status": "Active"}
    units = [unit("Wall", "Crab", "Hida Heavy Infantry", "Pass", 10, "Gunso"),
             unit("Duelists", "Crane", "Kakita Duelists", "Pass", 10, "Gunso"),
             unit("Bowmen", "Naga", "Naga Bowmen", "Pass", 10, "Gunso")]  # fmt: skip
    typed = [result(Winner="Crab"), result(Unit="Bowmen", Left_Table=True, Withdraw_To="Kakita")]
    turn = make_turn(state(units=units, alliances=[crab_crane, ALLIED], battle_results=typed), rolls=[10] * 6)
    for battle in battles.find(turn):
        battles.apply(turn, battle)
    assert (cell(turn, "Units", "Bowmen", "Province"), cell(turn, "Units", "Duelists", "Province")) == (
        "Kakita", "Pass",
    )  # fmt: skip
    assert (cell(turn, "Alliances", 2, "Status"), cell(turn, "Alliances", 3, "Status")) == ("Active", "Broken")
