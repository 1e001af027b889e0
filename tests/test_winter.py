"""Guide Section 6, Winter: Army Attrition (step 3) and Ownership Consolidation (step 13).

Turn 9 is Winter (winter_turn 9 of 9). Rates by Warfare level are the template Tech tab's:
0: 60%, 1: 50%, 2: 40%, 3: 30%, 4: 20%, 5+: 10%. Movement Blocked is in tests/test_movement.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from sheets_engine.sengoku import orders
from sheets_engine.sengoku.turn import Turn
from sheets_engine.sengoku.winter import attrition, consolidation
from tests.support import make_turn
from tests.test_battle import armies_now, army, order, war

COLUMNS = ("Spear", "Sword", "Archer", "Cavalry", "Firearm", "Samurai", "Siege")


def winter(armies: list[dict[str, Any]], step: Any = attrition, turn: int = 9, **changes: Any) -> Turn:
    """One phase on turn `turn` (9 is Winter)."""
    game_turn = make_turn(war(armies, game={"turn": turn}, **changes), [])
    step(game_turn)
    return game_turn


@pytest.mark.parametrize(("warfare", "left"), [(0, 4), (1, 5), (2, 6), (3, 7), (4, 8), (5, 9), (7, 9)])
def test_winter_attrition_is_the_warfare_rate_of_the_armys_units(warfare: int, left: int) -> None:
    """10 Spear lose 60%, 50%, 40%, 30%, 20%, 10% (and 10% above Warfare 5): exactly 6 at 60%."""
    turn = winter([army("Oda Host", "Owari", Spear=10)], clans={"Oda": {"Warfare": warfare}})
    assert armies_now(turn, "Spear")["Oda Host"] == (left,)


def test_winter_attrition_is_rounded_up() -> None:
    """7 units at 60%: 4.2 rounds up to 5 lost."""
    turn = winter([army("Oda Host", "Owari", Spear=7)])
    assert armies_now(turn, "Spear")["Oda Host"] == (2,)


@pytest.mark.parametrize(
    ("warfare", "left"),
    [(3, (0, 2, 0, 2, 2, 2, 0)), (0, (0, 0, 0, 0, 2, 2, 0))],
    ids=["4 lost: spear then archer", "8 lost: spear archer sword cavalry"],
)
def test_winter_removes_spear_then_archer_sword_cavalry_firearm_samurai(warfare: int, left: tuple[int, ...]) -> None:
    """2 of each unit (12): 30% is 3.6 -> 4 lost, 60% is 7.2 -> 8 lost, weakest first."""
    each = dict.fromkeys(COLUMNS[:6], 2)
    turn = winter([army("Oda Host", "Owari", **each)], clans={"Oda": {"Warfare": warfare}})
    assert armies_now(turn, *COLUMNS)["Oda Host"] == left


def test_siege_weapons_are_never_lost_and_not_counted() -> None:
    """10 Spear and 3 Siege Weapons: 60% of 10 units, not of 13."""
    turn = winter([army("Oda Host", "Owari", Spear=10, Siege=3)])
    assert armies_now(turn, "Spear", "Siege")["Oda Host"] == (4, 3)


def test_garrisoned_armies_suffer_attrition_too() -> None:
    turn = winter([{**army("Imagawa Guard", "Totomi", Spear=5), "Status": "Garrisoned"}])
    assert armies_now(turn, "Spear")["Imagawa Guard"] == (2,)


def test_an_army_with_nothing_left_after_winter_is_destroyed() -> None:
    """1 Spear at 60%: 0.6 rounds up to 1."""
    turn = winter([army("Oda Host", "Owari", "Oda Nobunaga", Spear=1)])
    assert armies_now(turn, "Spear", "Status", "Leader")["Oda Host"] == (0, "Destroyed", "")


def test_attrition_is_logged_as_winter_attrition() -> None:
    turn = winter([army("Oda Host", "Owari", Spear=10)], clans={"Oda": {"Warfare": 2}})
    assert [(c.key, c.column, c.old, c.new, c.cause) for c in turn.draft.changes] == [
        ("Oda Host", "Spear", 10, 6, "winter attrition (40% at Warfare 2)"),
    ]


def test_no_attrition_outside_winter() -> None:
    turn = winter([army("Oda Host", "Owari", Spear=10)], turn=8)
    assert armies_now(turn, "Spear")["Oda Host"] == (10,)


# Ownership Consolidation --------------------------------------------------------------------------


def provinces_now(turn: Turn, *names: str) -> dict[str, tuple[str, str]]:
    """Province -> (Province Owner, Controlled By)."""
    return {n: (turn.draft.get("Provinces", n, "Province Owner"), turn.draft.get("Provinces", n, "Controlled By"))
            for n in names}  # fmt: skip


def test_consolidation_makes_the_controlling_clan_the_province_owner_and_clears_controlled_by() -> None:
    turn = winter([], consolidation, provinces={"Mikawa": {"Controlled By": "Oda"}, "Mino": {"Controlled By": "Oda"}})
    assert provinces_now(turn, "Mikawa", "Mino", "Totomi") == {
        "Mikawa": ("Oda", ""),
        "Mino": ("Oda", ""),
        "Totomi": ("Imagawa", ""),
    }
    assert turn.draft.logs["Notifications"] == []


def test_a_clan_losing_its_capital_by_consolidation_gets_a_gm_notification() -> None:
    turn = winter([], consolidation, provinces={"Suruga": {"Controlled By": "Takeda"}})
    assert provinces_now(turn, "Suruga") == {"Suruga": ("Takeda", "")}
    assert turn.draft.logs["Notifications"] == [
        {"Turn": 9, "Audience": "gm", "Channel": "capital",
         "Message": "Imagawa lost its capital Suruga to Takeda (Winter consolidation)."},
    ]  # fmt: skip


def test_no_consolidation_outside_winter() -> None:
    turn = winter([], consolidation, turn=10, provinces={"Mikawa": {"Controlled By": "Oda"}})
    assert provinces_now(turn, "Mikawa") == {"Mikawa": ("Imagawa", "Oda")}


# A building beyond the new owner's slots ---------------------------------------------------------------

FIVE = {"Building 1": "Dojo", "Building 2": "Fields", "Building 3": "Temple", "Building 4": "Barracks",
        "Building 5": "Storehouse"}  # fmt: skip


def test_a_building_beyond_the_new_controllers_slots_stays_works_and_leaves_the_campaign_valid() -> None:
    """Issue 13: Takeda (Development 3) built five buildings in Kai; Oda (Development 0, 4 slots)
    captured it, and Winter consolidation makes Oda its owner. The fifth building stays and keeps
    working (the Storehouse's Tax Cap +1 still counts); validate warns, never errs, so the campaign
    resolves again; and Oda can build nothing more there while the slots are full."""
    from sheets_engine.sengoku import derived
    from sheets_engine.sengoku.economy import economy_missions
    from sheets_engine.sengoku.validate import check

    game = war([], provinces={"Kai": {**FIVE, "Controlled By": "Oda"}}, clans={"Takeda": {"Development": 3}},
               orders=[order("Oda Nobunaga", "build", "Kai", "Workshops", turn=9)], game={"turn": 9})  # fmt: skip
    problems = [(p.tab, p.column, p.value, p.severity.value, p.expected) for p in check(game)]
    assert problems == [
        ("Provinces", "Building 5", "Storehouse", "warning",
         "an empty slot: Kai has 4 slots (a fifth needs Development 3); a building beyond them stays and works, "
         "and nothing more is built there while the slots are full"),
    ]  # fmt: skip
    turn = make_turn(game, [])
    orders.intake(turn)
    derived.recalculate(turn.draft, turn.settings)
    economy_missions(turn)
    consolidation(turn)
    derived.recalculate(turn.draft, turn.settings)
    assert provinces_now(turn, "Kai") == {"Kai": ("Oda", "")}
    assert turn.draft.get("Provinces", "Kai", "Building 5") == "Storehouse"
    assert turn.draft.get("Provinces", "Kai", "Slots") == 4
    assert turn.draft.get("Provinces", "Kai", "Tax Cap") == 4  # rural 3, Storehouse +1
    [result] = turn.draft.frame("Orders")[["Status", "Result"]].values.tolist()
    assert result == ["Rejected", "no free slot in Kai (4 slots, all built)"]
    after = turn.draft.finish()
    assert [p for p in check(after) if p.severity.value == "error"] == []
