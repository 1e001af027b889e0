"""Clan War movement: primary, cavalry and reserve phases, as the document's "Movement" states them."""

from __future__ import annotations

from sheets_engine.clan_war import movement
from tests.clan_war_support import cell, default_people, make_turn, person, provinces, results, state, unit


def move(phase: str, faction: str, mover: str, to: str) -> dict:
    return {"Turn": 1, "Phase": phase, "Faction": faction, "Mover": mover, "To": to, "Status": "Pending"}


def run(*phases, **rows):
    turn = make_turn(state(**rows))
    for phase in phases:
        phase(turn)
    return turn


def test_a_unit_needs_a_leader_and_moves_to_an_adjacent_province_with_its_personalities() -> None:
    units = [unit("Wall", "Crab", "Hida Heavy Infantry", "Hida", 10, "Hida Kisada"),
             unit("Spears", "Crab", "Hida Ashigaru Spearmen", "Hida", 10)]  # fmt: skip
    people = [person("Hida Kisada", "Crab", "Hida Kisada", "Hida", "Wall", Unique=True), default_people()[1]]
    turn = run(movement.primary, units=units, personalities=people, moves=[
        move("primary", "Crab", "Spears", "Kuni"), move("primary", "Crab", "Wall", "Shiro"),
        move("primary", "Crab", "Wall", "Kuni"),
    ])  # fmt: skip
    assert results(turn, "Moves") == [
        ("Rejected", "Spears has no leader able to lead it (a personality or leadership package): it cannot move"),
        ("Rejected", "Shiro is not adjacent to Hida"),
        ("Resolved", "moved from Hida to Kuni with Hida Kisada"),
    ]
    assert (cell(turn, "Units", "Wall", "Province"), cell(turn, "Personalities", "Hida Kisada", "Province")) == (
        "Kuni", "Kuni",
    )  # fmt: skip


def test_a_leader_over_its_command_limit_cannot_move_its_units() -> None:
    """A Command Limit counts models: 3 bands of 5 are 15 models, more than a limit of 14 (12 move: 14 or fewer)."""
    units = [unit(f"Band {n}", "Crab", "Hida Ashigaru Spearmen", "Hida", 5, "Hida Kisada") for n in (1, 2, 3)]
    people = [person("Hida Kisada", "Crab", "Hida Kisada", "Hida", "Band 1", Unique=True, Command_Limit=14),
              default_people()[1]]  # fmt: skip
    turn = run(movement.primary, units=units, personalities=people,
               moves=[move("primary", "Crab", "Band 1", "Kuni")])  # fmt: skip
    assert results(turn, "Moves") == [
        ("Rejected", "Hida Kisada leads 15 models across its units, more than a Command Limit of 14: Band 1 cannot "
                     "move"),
    ]  # fmt: skip
    units[2]["Models"] = 4
    turn = run(movement.primary, units=units, personalities=people,
               moves=[move("primary", "Crab", "Band 1", "Kuni")])  # fmt: skip
    assert results(turn, "Moves") == [("Resolved", "moved from Hida to Kuni with Hida Kisada")]


def test_a_leadership_packages_command_limit_is_checked_too() -> None:
    """Gunso leads at most 20 models (the template's Catalogue): a unit of 21 led by it does not move."""
    units = [unit("Big", "Crab", "Hida Ashigaru Spearmen", "Hida", 21, Package="Gunso"),
             unit("Small", "Crab", "Hida Ashigaru Spearmen", "Hida", 20, Package="Gunso")]  # fmt: skip
    turn = run(movement.primary, units=units, moves=[move("primary", "Crab", "Big", "Kuni"),
                                                     move("primary", "Crab", "Small", "Kuni")])  # fmt: skip
    assert results(turn, "Moves") == [
        ("Rejected", "Gunso leads 21 models in Big, more than a Command Limit of 20: Big cannot move"),
        ("Resolved", "moved from Hida to Kuni"),
    ]


def test_a_package_leads_when_the_personality_leading_the_unit_cannot() -> None:
    units = [unit("Wall", "Crab", "Hida Heavy Infantry", "Hida", 10, "Hida Kisada", Package="Hida Gunso")]
    people = [person("Hida Kisada", "Crab", "Hida Kisada", "Hida", "Wall", Unique=True, Status="Wounded"),
              default_people()[1]]  # fmt: skip
    turn = run(movement.primary, units=units, personalities=people, moves=[move("primary", "Crab", "Wall", "Kuni")])
    assert results(turn, "Moves") == [("Resolved", "moved from Hida to Kuni with Hida Kisada")]  # carried along


def test_a_personality_moves_freely_in_friendly_territory_and_once_per_phase_into_hostile_territory() -> None:
    people = [*default_people(), person("Kuni Yori", "Crab", "Kuni Shugenja", "Shiro")]
    people[0]["Province"] = "Hida"
    turn = run(movement.primary, personalities=people, moves=[
        move("primary", "Crab", "Hida Kisada", "Kuni"), move("primary", "Crab", "Hida Kisada", "Hida"),
        move("primary", "Crab", "Hida Kisada", "Pass"), move("primary", "Crab", "Hida Kisada", "Temple"),
        move("primary", "Crab", "Kuni Yori", "Pit"), move("primary", "Crab", "Kuni Yori", "Shiro"),
    ])  # fmt: skip
    assert results(turn, "Moves") == [
        ("Resolved", "moved from Hida to Kuni"),
        ("Resolved", "moved from Kuni to Hida"),
        ("Resolved", "moved from Hida to Pass"),
        ("Rejected", "Hida Kisada has made its one move into neutral or enemy territory this phase"),
        ("Resolved", "moved from Shiro to Pit"),
        ("Rejected", "Kuni Yori has made its one move into neutral or enemy territory this phase"),
    ]
    assert cell(turn, "Personalities", "Hida Kisada", "Entered Hostile") is True


def test_only_cavalry_and_flying_units_move_in_the_cavalry_phase_even_after_moving_in_the_primary() -> None:
    units = [unit("Riders", "Crane", "Shinjo Horsemen", "Doji", 10, "Gunso"),
             unit("Duelists", "Crane", "Kakita Duelists", "Doji", 10, "Gunso")]  # fmt: skip
    turn = run(movement.primary, movement.cavalry, units=units, moves=[
        move("primary", "Crane", "Riders", "Kakita"), move("cavalry", "Crane", "Riders", "Pass"),
        move("cavalry", "Crane", "Duelists", "Kakita"),
    ])  # fmt: skip
    assert results(turn, "Moves") == [
        ("Resolved", "moved from Doji to Kakita"),
        ("Resolved", "moved from Kakita to Pass"),
        ("Rejected", "only cavalry and flying units move in the cavalry phase"),
    ]


def test_enemy_cavalry_blocks_cavalry_personalities_through_but_not_into_a_province() -> None:
    units = [unit("Horse", "Shadowlands", "Shinjo Horsemen", "Pass", 5, "Gunso")]
    people = [*default_people(), person("Rider", "Crab", "Hida Bushi", "Pass", Cavalry=True),
              person("Flier", "Crab", "Hida Bushi", "Pass", Flying=True),
              person("Scout", "Crab", "Hida Bushi", "Kuni", Cavalry=True)]  # fmt: skip
    turn = run(movement.cavalry, units=units, personalities=people, moves=[
        move("cavalry", "Crab", "Rider", "Hida"), move("cavalry", "Crab", "Flier", "Temple"),
        move("cavalry", "Crab", "Scout", "Pass"),
    ])  # fmt: skip
    assert results(turn, "Moves") == [
        ("Rejected", "enemy flying or cavalry troops at Pass block moving on from it"),
        ("Resolved", "moved from Pass to Temple"),
        ("Resolved", "moved from Kuni to Pass"),
    ]


def test_enemy_flying_troops_block_flying_personalities_too() -> None:
    units = [unit("Bats", "Shadowlands", "Bat Riders", "Pass", 5, "Gunso")]
    people = [*default_people(), person("Flier", "Crab", "Hida Bushi", "Pass", Flying=True)]
    turn = run(movement.cavalry, units=units, personalities=people, moves=[move("cavalry", "Crab", "Flier", "Temple")])
    assert results(turn, "Moves") == [("Rejected", "enemy flying troops at Pass block moving on from it")]


def test_reserve_movement_refused_after_battle_hostile_ground_near_the_enemy_or_into_hostile_ground() -> None:
    units = [unit("Fought", "Crab", "Hida Heavy Infantry", "Hida", 5, "Gunso", Fought=True),
             unit("Raider", "Crab", "Hida Heavy Infantry", "Hida", 5, "Gunso", Entered_Hostile=True),
             unit("Guard", "Crab", "Hida Heavy Infantry", "Kuni", 5, "Gunso"),
             unit("Goblins", "Shadowlands", "Goblin Rabble", "Shiro", 5, "Gunso"),
             unit("Reserve", "Crab", "Hida Heavy Infantry", "Hida", 5, "Gunso")]  # fmt: skip
    turn = run(movement.reserve, units=units, moves=[
        move("reserve", "Crab", "Fought", "Kuni"), move("reserve", "Crab", "Raider", "Kuni"),
        move("reserve", "Crab", "Guard", "Hida"), move("reserve", "Crab", "Reserve", "Pass"),
        move("reserve", "Crab", "Reserve", "Doji"), move("reserve", "Crab", "Reserve", "Kuni"),
    ])  # fmt: skip
    assert results(turn, "Moves") == [
        ("Rejected", "reserve movement is not allowed after battling this turn"),
        (
            "Rejected",
            "reserve movement is not allowed after moving into or through neutral or enemy territory this turn",
        ),
        ("Rejected", "reserve movement is not allowed next to enemy forces (at Shiro)"),
        ("Rejected", "reserve movement may not enter neutral or enemy territory (Pass)"),
        ("Rejected", "reserve movement may not enter neutral or enemy territory (Doji)"),
        ("Resolved", "moved from Hida to Kuni"),
    ]


def test_reserve_movement_may_not_bring_forces_where_opposing_armies_stand() -> None:
    units = [unit("Raiders", "Crane", "Kakita Duelists", "Doji", 5, "Gunso")]
    people = [*default_people(), person("Kuni Yori", "Crab", "Kuni Shugenja", "Kuni")]
    moves = [move("reserve", "Crab", "Kuni Yori", "Doji"), move("reserve", "Crab", "Kuni Yori", "Hida")]
    turn = run(movement.reserve, units=units, personalities=people, provinces=provinces(Doji="Crab"), moves=moves)
    assert results(turn, "Moves") == [
        ("Rejected", "reserve movement may not bring forces where opposing armies stand (Doji)"),
        ("Resolved", "moved from Kuni to Hida"),
    ]


def test_monks_move_anywhere_to_defend_a_province() -> None:
    units = [unit("Brothers", "Monk", "Brotherhood Monks", "Temple", 5, "Gunso")]
    turn = run(movement.primary, units=units, moves=[move("primary", "Monk", "Brothers", "Doji")])
    assert results(turn, "Moves") == [("Resolved", "moved from Temple to Doji")]
    assert cell(turn, "Units", "Brothers", "Entered Hostile") is True


def test_monks_ignore_borders_to_join_an_allied_attack_on_the_shadowlands_but_not_to_attack_others() -> None:
    units = [unit("Brothers", "Monk", "Brotherhood Monks", "Temple", 5, "Gunso"),
             unit("Wall", "Crab", "Hida Heavy Infantry", "Shiro", 5, "Gunso"),
             unit("Monks Two", "Monk", "Brotherhood Monks", "Temple", 5, "Gunso")]  # fmt: skip
    allied = [{"Faction A": "Crab", "Faction B": "Monk", "Since Turn": 1, "Status": "Active"}]
    turn = run(movement.primary, units=units, alliances=allied, moves=[
        move("primary", "Monk", "Brothers", "Shiro"), move("primary", "Monk", "Monks Two", "Pit"),
    ])  # fmt: skip
    assert results(turn, "Moves") == [
        ("Resolved", "moved from Temple to Shiro"),
        ("Rejected", "Pit is not adjacent to Temple"),
    ]


def test_a_move_added_after_its_phase_was_resolved_is_refused_at_the_end_of_the_turn() -> None:
    from sheets_engine.clan_war import phases

    units = [unit("Wall", "Crab", "Hida Heavy Infantry", "Hida", 5, "Gunso")]
    turn = run(phases.left_pending, units=units, moves=[move("primary", "Crab", "Wall", "Kuni")])
    assert results(turn, "Moves") == [
        ("Rejected", "added after its phase of turn 1 was resolved: give it again for a later turn"),
    ]
