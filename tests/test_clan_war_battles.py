"""Clan War battles and recovery: where armies meet, the GM's results applied, personalities' death
rolls, experience, control of provinces, Monks' Rings, alliances broken, recovery and taxes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sheets_engine.clan_war import battles, koku, phases, purchases, recovery, results
from sheets_engine.core.lifecycle import RunStatus
from sheets_engine.core.problems import InvalidCampaign
from tests.clan_war_support import Fixed, cell, default_people, factions, make_turn, person, provinces, state, unit

NOW = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
ALLIED = {"Faction A": "Crab", "Faction B": "Crane", "Since Turn": 1, "Status": "Active"}


def result(province: str, **values: object) -> dict:
    return {"Turn": 1, "Province": province, **{k.replace("_", " "): v for k, v in values.items()}}


def wall_and_goblins(**rows: list[dict]) -> dict:
    units = [unit("Wall", "Crab", "Hida Heavy Infantry", "Shiro", 10, "Hida Kisada"),
             unit("Goblins", "Shadowlands", "Goblin Rabble", "Shiro", 20, "Gunso")]  # fmt: skip
    people = [person("Hida Kisada", "Crab", "Hida Kisada", "Shiro", "Wall", Unique=True), default_people()[1]]
    return {"units": units, "personalities": people, **rows}


def test_where_opposing_armies_meet_a_battle_is_listed_with_who_chooses_the_terrain() -> None:
    rows = wall_and_goblins()
    rows["units"] += [unit("Duelists", "Crane", "Kakita Duelists", "Pass", 5, "Gunso"),
                      unit("Bats", "Shadowlands", "Bat Riders", "Pass", 5, "Gunso"),
                      unit("Spears", "Crab", "Hida Ashigaru Spearmen", "Doji", 5, "Gunso"),
                      unit("Brothers", "Monk", "Brotherhood Monks", "Hida", 5, "Gunso")]  # fmt: skip
    turn = make_turn(state(alliances=[ALLIED], **rows))
    found = battles.find(turn)
    assert [(b.province, b.factions, b.defender, b.terrain_by) for b in found] == [
        ("Shiro", ("Crab", "Shadowlands"), "Shadowlands", "Shadowlands"),
        ("Pass", ("Crane", "Shadowlands"), "", "the players, by agreement (no defender)"),
    ]  # allies (Crab at Doji) and a Monk defending a Crab province fight nobody


def test_a_personality_at_0_wounds_below_earth_is_wounded() -> None:
    turn = make_turn(state(**wall_and_goblins()), rolls=[1])
    assert battles.death_roll(turn, "Hida Kisada", 1, turn.dice, "battle at Shiro") == "Wounded"
    kisada = turn.draft.row("Personalities", "Hida Kisada")
    assert (kisada["Status"], kisada["Wounds"]) == ("Wounded", 0)


def test_a_personality_that_fails_earth_but_rolls_under_void_is_maimed_losing_its_highest_ring() -> None:
    rows = wall_and_goblins()
    rows["personalities"][0].update({"Fire": 4})
    turn = make_turn(state(**rows), rolls=[2, 1])  # 2 + 1 = 3, not below Earth 3; then 1 + 1 = 2 below Void 3
    assert battles.death_roll(turn, "Hida Kisada", 1, turn.dice, "battle at Shiro") == "Maimed"
    assert cell(turn, "Personalities", "Hida Kisada", "Fire") == 3
    assert turn.draft.changes[1].roll == "d10=2 (wound roll of Hida Kisada); d10=1 (maim roll of Hida Kisada)"


def test_a_personality_that_fails_both_rolls_is_dead_and_a_dead_unique_never_returns() -> None:
    turn = make_turn(state(**wall_and_goblins()), rolls=[3, 3])  # not below Earth 3, then not below Void 3
    assert battles.death_roll(turn, "Hida Kisada", 0, turn.dice, "battle at Shiro") == "Dead"
    assert (cell(turn, "Units", "Wall", "Leader"), cell(turn, "Personalities", "Hida Kisada", "Unit")) == ("", "")
    with pytest.raises(koku.Refused, match="has died: a dead unique personality may never be bought again"):
        purchases.check_unique(turn, turn.catalogue("Hida Kisada"))


def _applied(rolls: list[int], **rows: list[dict]) -> object:
    turn = make_turn(state(**rows), rolls=rolls)
    found = battles.find(turn)
    results.refuse_unusable(turn, found)
    for battle in found:
        battles.apply(turn, battle)
    return turn


def test_casualties_routed_units_regroup_at_sixty_percent_and_winners_take_the_province() -> None:
    rows = wall_and_goblins(battle_results=[
        result("Shiro", Winner="Crab"),
        result("Shiro", Unit="Goblins", Models_Lost=10, Final_Status="Routed", Left_Table=True, Withdraw_To="Pit"),
        result("Shiro", Unit="Wall", Models_Lost=2, Final_Status="Ready"),
    ])  # fmt: skip
    turn = _applied([1, 10, 10, 10], **rows)  # experience: Goblins' ML (1 - 1 + 4 = 4 < 5), TL, Wall's ML, TL
    assert (cell(turn, "Units", "Goblins", "ML"), cell(turn, "Units", "Goblins", "TL")) == (4, 5)
    assert (cell(turn, "Units", "Wall", "ML"), cell(turn, "Units", "Wall", "TL")) == (5, 5)
    assert (cell(turn, "Units", "Goblins", "Models"), cell(turn, "Units", "Goblins", "Province")) == (6, "Pit")
    assert (cell(turn, "Units", "Wall", "Models"), cell(turn, "Provinces", "Shiro", "Controller")) == (8, "Crab")
    recovery.recover_casualties(turn)  # winners 1/2 of 2, losers 1/4 of 10
    assert (cell(turn, "Units", "Wall", "Models"), cell(turn, "Units", "Goblins", "Models")) == (9, 8)
    assert cell(turn, "Units", "Goblins", "Status") == "Ready"


def test_the_losers_withdraw_only_to_a_province_they_held_at_the_start_of_the_turn() -> None:
    rows = wall_and_goblins(battle_results=[
        result("Shiro", Winner="Crab"),
        result("Shiro", Unit="Goblins", Models_Lost=5, Left_Table=True, Withdraw_To="Pass"),
    ])  # fmt: skip
    with pytest.raises(InvalidCampaign) as refused:
        _applied([], **rows)
    assert [str(p) for p in refused.value.problems] == [
        "Battle Results, row 3, column Withdraw To: found 'Pass'; "
        "a province Shadowlands controlled at the start of the turn"
    ]
    rows["battle_results"] = [result("Shiro", Winner="Crab")]
    with pytest.raises(InvalidCampaign) as refused:
        _applied([], **rows)
    assert [str(p) for p in refused.value.problems] == [
        "Battle Results, column Unit: found 'Goblins'; a row for Goblins at Shiro with its Withdraw To: Shadowlands "
        "lost at Shiro: Goblins withdraw to a province Shadowlands controlled at the start of the turn"
    ]  # not against the winner's row 2: Goblins has no row of its own


def test_a_losing_unit_with_no_withdrawal_is_named_at_its_own_row() -> None:
    rows = wall_and_goblins(battle_results=[
        result("Shiro", Winner="Crab"),
        result("Shiro", Unit="Wall", Models_Lost=1),
        result("Shiro", Unit="Goblins", Models_Lost=5, Final_Status="Broken"),
    ])  # fmt: skip
    with pytest.raises(InvalidCampaign) as refused:
        _applied([], **rows)
    assert [str(p) for p in refused.value.problems] == [
        "Battle Results, row 4, column Withdraw To: found an empty cell; the province where Shadowlands lost at "
        "Shiro: Goblins withdraw to a province Shadowlands controlled at the start of the turn"
    ]


def test_the_losers_do_not_withdraw_into_the_province_they_lost() -> None:
    """A withdrawal leaves the field: the province lost is no retreat, even for the defender who held it."""
    rows = wall_and_goblins(battle_results=[
        result("Shiro", Winner="Crab"),
        result("Shiro", Unit="Goblins", Models_Lost=5, Left_Table=True, Withdraw_To="Shiro"),
    ])  # fmt: skip
    with pytest.raises(InvalidCampaign) as refused:
        _applied([], **rows)
    assert [str(p) for p in refused.value.problems] == [
        "Battle Results, row 3, column Withdraw To: found 'Shiro'; "
        "a province Shadowlands controlled at the start of the turn other than Shiro, where it lost"
    ]


def test_battle_results_for_a_province_where_no_battle_was_fought_are_refused() -> None:
    """A row for a province with no battle this turn (a typo, a battle that never happened) is not ignored."""
    rows = wall_and_goblins(battle_results=[
        result("Shiro", Winner="Crab"),
        result("Shiro", Unit="Goblins", Final_Status="Destroyed"),
        result("Kuni", Winner="Crab"),
    ])  # fmt: skip
    with pytest.raises(InvalidCampaign) as refused:
        _applied([], **rows)
    assert [str(p) for p in refused.value.problems] == [
        "Battle Results, row 4, column Province: found 'Kuni'; a province with a battle this turn (turn 1: Shiro)"
    ]


def test_a_paused_turn_waiting_for_battle_results_is_nothing_to_do_naming_the_battles() -> None:
    """A cron `resolve` while the GM has not typed the results: nothing to do (exit 0), nothing written."""
    paused = state({"phase": "battle"}, **wall_and_goblins())
    outcome = phases.resolve_turn(paused, NOW)
    assert (outcome.status, outcome.changes, outcome.logs) == (RunStatus.NOTHING, [], {})
    assert outcome.headline == (
        "Nothing to do: turn 1 waits for the Battle Results of 1 battle: Shiro "
        "(no row with Turn, Province and Winner yet)."
    )
    assert outcome.summary["waiting for"] == "Shiro"


def test_allied_defenders_keep_the_province_with_its_controller() -> None:
    units = [unit("Wall", "Crab", "Hida Heavy Infantry", "Hida", 10, "Gunso"),
             unit("Duelists", "Crane", "Kakita Duelists", "Hida", 10, "Gunso"),
             unit("Goblins", "Shadowlands", "Goblin Rabble", "Hida", 20, "Gunso")]  # fmt: skip
    rows = {"units": units, "alliances": [ALLIED], "battle_results": [
        result("Hida", Winner="Crane"), result("Hida", Unit="Goblins", Final_Status="Destroyed"),
    ]}  # fmt: skip
    turn = _applied([10] * 4, **rows)
    assert cell(turn, "Provinces", "Hida", "Controller") == "Crab"


@pytest.mark.parametrize(("control", "holder"), [("", "Crane"), ("Crab", "Crab"), ("neutral", "")])
def test_a_liberated_allys_province_goes_to_the_liberator_or_back_to_its_owner_or_stays_neutral(
    control: str, holder: str
) -> None:
    units = [unit("Duelists", "Crane", "Kakita Duelists", "Kuni", 10, "Gunso"),
             unit("Goblins", "Shadowlands", "Goblin Rabble", "Kuni", 20, "Gunso")]  # fmt: skip
    rows = {"units": units, "alliances": [ALLIED], "provinces": provinces(Kuni="Shadowlands"), "battle_results": [
        result("Kuni", Winner="Crane", Control=control), result("Kuni", Unit="Goblins", Final_Status="Destroyed"),
    ]}  # fmt: skip
    turn = _applied([10, 10], **rows)
    assert cell(turn, "Provinces", "Kuni", "Controller") == holder


def test_monks_gain_a_ring_for_each_battle_won_and_never_capture_a_province() -> None:
    units = [unit("Brothers", "Monk", "Brotherhood Monks", "Shiro", 10, "Gunso"),
             unit("Goblins", "Shadowlands", "Goblin Rabble", "Shiro", 20, "Gunso")]  # fmt: skip
    rows = {"units": units, "battle_results": [
        result("Shiro", Winner="Monk"), result("Shiro", Unit="Goblins", Final_Status="Destroyed"),
    ]}  # fmt: skip
    turn = _applied([10, 10], **rows)
    assert (cell(turn, "Provinces", "Shiro", "Controller"), cell(turn, "Factions", "Monk", "Rings")) == (
        "Shadowlands", 1,
    )  # fmt: skip
    recovery.taxes(turn)  # the Temple and the Ring: 100 koku each
    assert cell(turn, "Factions", "Monk", "Koku") == 1200


def test_monks_retake_a_province_they_lost() -> None:
    units = [unit("Brothers", "Monk", "Brotherhood Monks", "Temple", 10, "Gunso"),
             unit("Goblins", "Shadowlands", "Goblin Rabble", "Temple", 20, "Gunso")]  # fmt: skip
    rows = {"units": units, "provinces": provinces(Temple="Shadowlands"), "battle_results": [
        result("Temple", Winner="Monk"), result("Temple", Unit="Goblins", Final_Status="Destroyed"),
    ]}  # fmt: skip
    turn = _applied([10, 10], **rows)
    assert cell(turn, "Provinces", "Temple", "Controller") == "Monk"


def test_allies_on_opposite_sides_of_a_battle_break_their_alliance_and_lose_units_from_each_other() -> None:
    units = [unit("Duelists", "Crane", "Kakita Duelists", "Pass", 10, "Gunso"),
             unit("Bowmen", "Naga", "Naga Bowmen", "Pass", 10, "Gunso"),
             unit("Wall", "Crab", "Hida Heavy Infantry", "Pass", 10, "Gunso"),
             unit("Loaned", "Naga", "Hida Heavy Infantry", "Pass", 5, "Gunso", From_Ally="Crab")]  # fmt: skip
    naga = {"Faction A": "Crab", "Faction B": "Naga", "Since Turn": 1, "Status": "Active"}
    rows = {"units": units, "alliances": [ALLIED, naga], "battle_results": [
        result("Pass", Winner="Crane"), result("Pass", Unit="Bowmen", Left_Table=True, Withdraw_To="Hida"),
    ]}  # fmt: skip
    rows["factions"] = factions()
    turn = _applied([10] * 8, **rows)
    assert (cell(turn, "Alliances", 3, "Status"), cell(turn, "Alliances", 3, "Broken Turn")) == ("Broken", 1)
    assert cell(turn, "Alliances", 3, "Result") == "Crab's and Naga's forces fought on opposite sides at Pass in turn 1"
    assert (cell(turn, "Units", "Loaned", "Status"), cell(turn, "Units", "Loaned", "Models")) == ("Destroyed", 0)
    assert cell(turn, "Alliances", 2, "Status") == "Active"


def test_recovery_returns_the_wounded_and_heals_those_that_moved_by_half_a_die() -> None:
    people = [*default_people(),
              person("Hurt", "Crab", "Hida Bushi", "Hida", Status="Wounded", Wounds=0, Void_Points=2),
              person("Marcher", "Crab", "Hida Bushi", "Hida", Wounds=1, Void_Points=0, Moved=True),
              person("Rested", "Crab", "Hida Bushi", "Hida", Wounds=1, Void_Points=0)]  # fmt: skip
    turn = make_turn(state(personalities=people), rolls=[7, 3])
    recovery.recover_personalities(turn)
    values = [(cell(turn, "Personalities", p, "Status"), cell(turn, "Personalities", p, "Wounds"),
               cell(turn, "Personalities", p, "Void Points")) for p in ("Hurt", "Marcher", "Rested")]  # fmt: skip
    assert values == [("Ready", 1, 0), ("Ready", 3, 3), ("Ready", 4, 3)]  # Marcher: void +4 (max 3), wounds +2


def test_taxes_are_collected_per_controlled_province() -> None:
    turn = make_turn(state(factions=factions(Crab=10)))
    recovery.taxes(turn)
    assert [cell(turn, "Factions", f, "Koku") for f in ("Crab", "Crane", "Shadowlands", "Monk", "Naga")] == [
        210, 1200, 1200, 1100, 1000,
    ]  # fmt: skip


def test_a_turn_with_no_battles_resolves_in_one_run_and_armies_take_empty_provinces() -> None:
    units = [unit("Wall", "Crab", "Hida Heavy Infantry", "Hida", 10, "Gunso")]
    moves = [{"Turn": 1, "Phase": "primary", "Faction": "Crab", "Mover": "Wall", "To": "Pass", "Status": "Pending"}]
    outcome = phases.resolve_turn(state(units=units, moves=moves), NOW, dice=Fixed([]))
    assert (outcome.status, outcome.headline, outcome.step) == (RunStatus.RESOLVED, "Turn 1 resolved", "turn")
    game = outcome.state.frame("Game")["Value"]
    assert (game["turn"], game["last_resolved_turn"], game["phase"]) == (2, 1, "start")
    assert outcome.state.frame("Provinces").at["Pass", "Controller"] == "Crab"
    assert outcome.state.frame("Factions").at["Crab", "Koku"] == 1300  # Hida, Kuni and Pass


def test_battle_results_name_each_unit_once_and_only_forces_still_in_play() -> None:
    rows = wall_and_goblins()
    rows["personalities"].append(person("Ghost", "Shadowlands", "Bloodspeaker Cultist", "Shiro", Status="Dead"))
    rows["battle_results"] = [
        result("Shiro", Winner="Crab"),
        result("Shiro", Unit="Wall", Models_Lost=2),
        result("Shiro", Unit="Wall", Models_Lost=3),
        result("Shiro", Personality="Ghost", Wounds_Over_Max=1),
        result("Shiro", Unit="Goblins", Final_Status="Destroyed"),
    ]
    with pytest.raises(InvalidCampaign) as refused:
        _applied([], **rows)
    assert [str(p) for p in refused.value.problems] == [
        "Battle Results, row 4, column Unit: found 'Wall'; one row for Wall in the battle at Shiro (row 3 has it)",
        "Battle Results, row 5, column Personality: found 'Ghost'; a unit or personality still in play (Ghost is Dead)",
    ]


def test_the_same_sheet_resolves_to_the_same_changes_twice() -> None:
    rows = wall_and_goblins(battle_results=[
        result("Shiro", Winner="Crab"),
        result("Shiro", Unit="Goblins", Models_Lost=10, Final_Status="Routed", Left_Table=True, Withdraw_To="Pit"),
        result("Shiro", Personality="Hida Kisada", Wounds_Over_Max=2),
    ])  # fmt: skip
    paused = state({"phase": "battle"}, **rows)
    first, second = phases.resolve_turn(paused, NOW), phases.resolve_turn(paused, NOW)
    assert first.changes == second.changes and first.logs == second.logs
    assert first.step == "battle-recovery"
    assert any(c.roll.startswith("d10=") for c in first.changes)


def test_a_force_of_yojimbo_troops_alone_is_no_army_and_fights_no_battle() -> None:
    """ "To be considered an Army, a force must have at least one Unit of non-yojimbo troops"."""
    units = [unit("Guards", "Crab", "Yojimbo Guard", "Shiro", 6, "Hida Kisada"),
             unit("Goblins", "Shadowlands", "Goblin Rabble", "Shiro", 20, "Gunso")]  # fmt: skip
    people = [person("Hida Kisada", "Crab", "Hida Kisada", "Shiro", "Guards", Unique=True), default_people()[1]]
    turn = make_turn(state(units=units, personalities=people))
    assert battles.find(turn) == []
    units.append(unit("Wall", "Crab", "Hida Heavy Infantry", "Shiro", 10, "Gunso"))
    turn = make_turn(state(units=units, personalities=people))
    assert [(b.province, b.factions) for b in battles.find(turn)] == [("Shiro", ("Crab", "Shadowlands"))]


def test_check_on_a_paused_turn_says_which_battles_it_waits_for() -> None:
    from sheets_engine.clan_war import preview

    checked = preview.preview(state({"phase": "battle"}, **wall_and_goblins()), NOW)
    assert (checked.summary["checked"], checked.summary["reason"], checked.changes) == (
        False, "turn 1 waits for the Battle Results of 1 battle: Shiro (no row with Turn, Province and Winner yet)",
        [],
    )  # fmt: skip
