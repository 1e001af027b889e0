"""Clan War troop experience: the trait gained by surviving a battle, the count of experienced models, the
inexperienced killed first, and the 75% rule ("I have a unit of 15 experienced ashigaru. I can buy up to 5
more without having the unit become inexperienced")."""

from __future__ import annotations

from sheets_engine.clan_war import battles, experience, new_forces, recovery, results, start
from tests.clan_war_support import cell, default_people, make_turn, person, state, unit


def result(**values: object) -> dict:
    return {"Turn": 1, "Province": "Shiro", **{k.replace("_", " "): v for k, v in values.items()}}


def battle(rolls: list[int], wall: dict, *rows: dict, won: str = "Crab") -> object:
    """Wall (Crab, led by Hida Kisada) against 20 Goblins at Shiro, the GM's results applied."""
    units = [wall, unit("Goblins", "Shadowlands", "Goblin Rabble", "Shiro", 20, "Gunso")]
    people = [person("Hida Kisada", "Crab", "Hida Kisada", "Shiro", "Wall", Unique=True), default_people()[1]]
    typed = [result(Winner=won), *rows, result(Unit="Goblins", Final_Status="Destroyed")]
    turn = make_turn(state(units=units, personalities=people, battle_results=typed), rolls=rolls)
    found = battles.find(turn)
    results.refuse_unusable(turn, found)
    for one in found:
        battles.apply(turn, one)
    return turn


def wall(models: int, **values: object) -> dict:
    return unit("Wall", "Crab", "Hida Ashigaru Spearmen", "Shiro", models, "Hida Kisada", **values)


def test_a_unit_that_survives_a_battle_and_passes_a_check_becomes_experienced() -> None:
    """Every model that fought counts as experienced, its casualties too: the one recovered comes back so."""
    turn = battle([3, 10], wall(10), result(Unit="Wall", Models_Lost=2))  # ML: 3 - 1 = 2 < 5; TL: 9, not < 5
    row = turn.draft.row("Units", "Wall")
    assert (row["Experienced"], row["Experienced Models"], row["Models"], row["ML"], row["TL"]) == (
        True, 8, 8, 4, 5,
    )  # fmt: skip
    recovery.recover_casualties(turn)  # won: 1 of its 2 casualties back
    assert (cell(turn, "Units", "Wall", "Models"), cell(turn, "Units", "Wall", "Experienced Models")) == (9, 9)


def test_a_unit_that_passes_no_experience_check_is_not_experienced() -> None:
    turn = battle([10, 10], wall(10), result(Unit="Wall", Models_Lost=2))
    row = turn.draft.row("Units", "Wall")
    assert (row["Experienced"], row["Experienced Models"], row["ML"], row["TL"]) == (False, None, 5, 5)


def test_inexperienced_troops_in_a_unit_get_killed_before_the_experienced_ones() -> None:
    """20 models, 15 experienced, lose 8: the 5 inexperienced and 3 experienced die; 12 are left, all
    experienced. Of the 8 casualties the winners recover 4: the 3 experienced first, then 1 new."""
    veterans = wall(20, Experienced=True, Experienced_Models=15)
    turn = battle([10, 10], veterans, result(Unit="Wall", Models_Lost=8))
    assert (cell(turn, "Units", "Wall", "Models"), cell(turn, "Units", "Wall", "Experienced Models")) == (12, 12)
    recovery.recover_casualties(turn)
    assert (cell(turn, "Units", "Wall", "Models"), cell(turn, "Units", "Wall", "Experienced Models")) == (16, 15)
    assert cell(turn, "Units", "Wall", "Experienced") is True  # 15 of 16


def test_fifteen_experienced_ashigaru_take_five_more_and_keep_the_trait_but_not_seven() -> None:
    """The document's example: 15 experienced ashigaru buy 5 more (15 of 20: 75%) and stay Experienced; 2 more
    the next turn (15 of 22) and they lose the trait, and its bonuses (ML and TL back to the troop type's 6)."""
    ashigaru = unit("Ashigaru", "Crab", "Hida Ashigaru Spearmen", "Hida", 15, "Chui", Experienced=True, ML=4, TL=5)
    replace = {"Turn": 1, "Faction": "Crab", "Action": "replace", "Item": "Hida Ashigaru Spearmen", "Count": 5,
               "Target": "Ashigaru"}  # fmt: skip
    turn = make_turn(state(units=[ashigaru], purchases=[replace]))
    start.orders(turn)
    new_forces.place_new_forces(turn)
    row = turn.draft.row("Units", "Ashigaru")
    assert (row["Models"], row["Experienced Models"], row["Experienced"], row["ML"]) == (20, 15, True, 4)
    assert turn.draft.row("Purchases", 2)["Result"].endswith("Placed: 5 models join Ashigaru")

    ashigaru.update({"Models": 20, "Experienced Models": 15})  # as the first turn left it
    turn = make_turn(state(units=[ashigaru], purchases=[{**replace, "Count": 2}]))
    start.orders(turn)
    new_forces.place_new_forces(turn)
    row = turn.draft.row("Units", "Ashigaru")
    assert (row["Models"], row["Experienced Models"], row["Experienced"], row["ML"], row["TL"]) == (22, 0, False, 6, 6)
    assert turn.draft.row("Purchases", 2)["Result"].endswith(
        "Placed: 2 models join Ashigaru; Ashigaru loses the Experienced trait (15 of 22 models experienced, "
        "fewer than 75%)"
    )


def test_the_experienced_share_is_a_game_key() -> None:
    ashigaru = unit("Ashigaru", "Crab", "Hida Ashigaru Spearmen", "Hida", 15, "Gunso", Experienced=True)
    replace = {"Turn": 1, "Faction": "Crab", "Action": "replace", "Item": "Hida Ashigaru Spearmen", "Count": 5,
               "Target": "Ashigaru"}  # fmt: skip
    turn = make_turn(state({"experienced_share": "80%"}, units=[ashigaru], purchases=[replace]))
    start.orders(turn)
    new_forces.place_new_forces(turn)
    assert cell(turn, "Units", "Ashigaru", "Experienced") is False  # 15 of 20 is under 80%


def test_a_routed_unit_regroups_without_its_inexperienced_models_first() -> None:
    veterans = wall(20, Experienced=True, Experienced_Models=10)
    typed = result(Unit="Wall", Models_Lost=0, Final_Status="Routed", Left_Table=True, Withdraw_To="Hida")
    turn = battle([10, 10], veterans, typed, won="Shadowlands")  # regroups at 60%: 12 of 20, the 10 veterans kept
    assert (cell(turn, "Units", "Wall", "Models"), cell(turn, "Units", "Wall", "Experienced Models")) == (12, 10)


def test_two_experience_checks_subtract_leadership_and_add_the_broken_penalty() -> None:
    turn = make_turn(state(units=[wall(10)]), rolls=[3, 6])
    experience.checks(turn, "Wall", "Broken", turn.dice, "battle at Shiro")
    # ML: 3 - 1 + 2 = 4 < 5: ML 4; TL: 6 - 1 + 2 = 7, not below 5
    assert (cell(turn, "Units", "Wall", "ML"), cell(turn, "Units", "Wall", "TL")) == (4, 5)


def test_the_routing_penalty_makes_experience_harder() -> None:
    turn = make_turn(state(units=[wall(10)]), rolls=[1, 1])
    experience.checks(turn, "Wall", "Routed", turn.dice, "battle at Shiro")  # 1 - 1 + 4 = 4 < 5 both times
    assert (cell(turn, "Units", "Wall", "ML"), cell(turn, "Units", "Wall", "TL")) == (4, 4)
