"""Guide Section 6, Fortress Garrison and Siege: capacity, the Fortress Pre-Check, siege turns.

Totomi (Imagawa) holds the Fortress; Oda marches in from Mikawa. The map and helpers are the
battle tests' (tests/test_battle.py). Capacity 8/16/32/64 by level, no cap at Piety 4+, timer 3
(4 at Piety 5+) are the Game tab's defaults.
"""

from __future__ import annotations

from typing import Any

import pytest

from sheets_engine.core.tables import GameState
from sheets_engine.sengoku.siege import garrison_capacity, sieges
from sheets_engine.sengoku.turn import Turn
from tests.support import make_turn
from tests.test_battle import armies_now, army, battle_rows, fight, war


def fortress(level: int, **cells: Any) -> dict[str, dict[str, Any]]:
    """Totomi with a Fortress of this level."""
    return {"Totomi": {"Building 1": "Fortress", "Fortress Level": level, **cells}}


def siege_rows(turn: Turn) -> list[dict[str, Any]]:
    """The Sieges tab as the turn left it."""
    return list(turn.draft.frame("Sieges").to_dict("records"))


def totomi(turn: Turn, *columns: str) -> tuple[Any, ...]:
    """Cells of Totomi as the turn left them."""
    return tuple(turn.draft.get("Provinces", "Totomi", c) for c in columns)


# Garrison capacity --------------------------------------------------------------------------------


@pytest.mark.parametrize(("level", "capacity"), [(0, 0), (1, 8), (2, 16), (3, 32), (4, 64)])
def test_garrison_capacity_is_8_16_32_64_by_fortress_level(level: int, capacity: int) -> None:
    cells = fortress(level) if level else {}
    turn = make_turn(war([], provinces=cells))
    assert garrison_capacity(turn, "Totomi") == capacity


@pytest.mark.parametrize(("piety", "capacity"), [(3, 8), (4, None), (5, None)])
def test_a_garrison_has_no_cap_at_piety_4(piety: int, capacity: int | None) -> None:
    turn = make_turn(war([], provinces=fortress(1), clans={"Imagawa": {"Piety": piety}}))
    assert garrison_capacity(turn, "Totomi") == capacity


# Fortress Pre-Check -------------------------------------------------------------------------------


def assault(imagawa: dict[str, int], oda: dict[str, int], level: int = 1, piety: int = 0) -> GameState:
    """Oda Host (moved in from Mikawa) against Imagawa Guard in Totomi's fortress."""
    return war(
        [army("Oda Host", "Totomi", came_from="Mikawa", **oda), army("Imagawa Guard", "Totomi", **imagawa)],
        provinces=fortress(level, **{"Tax Stockpile": 2}),
        clans={"Imagawa": {"Piety": piety}},
    )


def test_when_all_defenders_fit_in_the_garrison_a_siege_begins_instead_of_a_battle() -> None:
    """Imagawa: 6 Spear, 2 Samurai = 8 units, CS 6 + 8 + min(2, 6) = 16, lower than Oda's 20."""
    turn = fight(assault({"Spear": 6, "Samurai": 2}, {"Spear": 20}), [])
    assert siege_rows(turn) == [
        {"Province": "Totomi", "Besieger": "Oda", "Defender": "Imagawa", "Timer": 3, "Started Turn": 1,
         "Status": "Active"},
    ]  # fmt: skip
    assert armies_now(turn, "Status", "Spear") == {"Oda Host": ("Besieging", 20), "Imagawa Guard": ("Garrisoned", 6)}
    assert battle_rows(turn) == [
        {"Turn": 1, "Province": "Totomi", "Attacker": "Oda", "Defender": "Imagawa", "Attacker CS": 20,
         "Defender CS": 16, "Attacker Roll": "", "Defender Roll": "", "Damage To Attacker": "",
         "Damage To Defender": "",
         "Outcome": "Imagawa withdrew into the fortress; Oda besieges the fortress of Totomi, held by Imagawa "
                    "(siege timer 3)"},
    ]  # fmt: skip
    assert turn.draft.get("Provinces", "Totomi", "Controlled By") == ""


def test_the_siege_timer_is_4_when_the_defender_has_piety_5() -> None:
    turn = fight(assault({"Spear": 6}, {"Spear": 20}, piety=5), [])
    assert siege_rows(turn)[0]["Timer"] == 4


def test_no_pre_check_when_the_defenders_cs_is_not_lower() -> None:
    """8 Spear (CS 8) against 8: an open battle, fought with dice."""
    turn = fight(assault({"Spear": 8}, {"Spear": 8}), [1, 1])
    assert siege_rows(turn) == []
    assert battle_rows(turn)[0]["Attacker Roll"] == 1


def test_the_pre_check_shelters_the_highest_value_units_first_and_the_rest_fight_in_the_open() -> None:
    """Imagawa 40 Spear + 4 Samurai (CS 40 + 16 + 12 = 68) against Oda's 100: the garrison (8)
    takes the 4 Samurai, then 4 Spear; 36 Spear (CS 36) fight. Oda deals ROUND(11% x 100) = 11;
    Imagawa deals ROUND(11% x 36) = 4, not ROUND(11% x 68) = 7. 11 of 36 lost: it holds."""
    turn = fight(assault({"Spear": 40, "Samurai": 4}, {"Spear": 100}), [1, 1])
    row = battle_rows(turn)[0]
    assert (row["Defender CS"], row["Damage To Defender"], row["Damage To Attacker"]) == (36, 11, 4)
    assert armies_now(turn, "Spear", "Samurai", "Status") == {
        "Oda Host": (96, 0, "Field"),
        "Imagawa Guard": (29, 4, "Field"),
    }
    assert siege_rows(turn) == []


def test_open_defenders_routed_while_a_garrison_holds_start_a_siege_and_nothing_is_captured() -> None:
    """Imagawa 20 Spear + 4 Samurai (CS 42) against Oda's 60: 4 Samurai and 4 Spear shelter; the
    16 Spear in the open lose ROUND(20% x 60) = 12 (75%). Sheltered armies keep their rows
    (rules-defaults): the army is not split, its 4 surviving Spear fall back into the fortress, and
    the whole army (8 Spear, 4 Samurai) is garrisoned in Totomi (issue 13; it used to leave a new
    "Imagawa Guard Garrison" row behind and retreat to Mikawa)."""
    turn = fight(assault({"Spear": 20, "Samurai": 4}, {"Spear": 60}), [10, 10])
    assert armies_now(turn, "Province", "Spear", "Samurai", "Status") == {
        "Oda Host": ("Totomi", 57, 0, "Besieging"),
        "Imagawa Guard": ("Totomi", 8, 4, "Garrisoned"),
    }
    assert siege_rows(turn)[0] == {"Province": "Totomi", "Besieger": "Oda", "Defender": "Imagawa", "Timer": 3,
                                   "Started Turn": 1, "Status": "Active"}  # fmt: skip
    assert turn.draft.get("Provinces", "Totomi", "Controlled By") == ""
    assert battle_rows(turn)[0]["Outcome"] == (
        "Imagawa Guard fell back into the fortress; Oda besieges the fortress of Totomi, held by Imagawa "
        "(siege timer 3)"
    )


# Siege Mechanics ----------------------------------------------------------------------------------


def besieged(timer: int = 3, started: int = 1, now: int = 2, level: int = 1, status: str = "Active",
             oda: dict[str, Any] | None = None, imagawa: dict[str, Any] | None = None) -> Turn:  # fmt: skip
    """Oda Host besieges Imagawa Guard in Totomi; step 9's siege phase on turn `now`."""
    besieger = {**army("Oda Host", "Totomi", Spear=20), "Status": "Besieging", **(oda or {})}
    garrison = {**army("Imagawa Guard", "Totomi", "Okabe Motonobu", Spear=6), "Status": "Garrisoned",
                **(imagawa or {})}  # fmt: skip
    game = war(
        [besieger, garrison],
        provinces=fortress(level, **{"Tax Stockpile": 2}),
        people={"Okabe Motonobu": {"Location": "Totomi"}},
        sieges=[{"Province": "Totomi", "Besieger": "Oda", "Defender": "Imagawa", "Timer": timer,
                 "Started Turn": started, "Status": status}],
        game={"turn": now},
    )  # fmt: skip
    turn = make_turn(game, [])
    sieges(turn)
    return turn


def test_the_siege_timer_first_decreases_at_the_next_resolution() -> None:
    assert siege_rows(besieged(now=1))[0]["Timer"] == 3
    assert siege_rows(besieged(now=2))[0]["Timer"] == 2


def test_a_siege_weapon_is_spent_each_turn_to_lower_the_fortress_one_level() -> None:
    turn = besieged(level=2, oda={"Siege": 2})
    assert armies_now(turn, "Siege")["Oda Host"] == (1,)
    assert totomi(turn, "Fortress Level", "Building 1") == (1, "Fortress")
    assert (siege_rows(turn)[0]["Timer"], siege_rows(turn)[0]["Status"]) == (2, "Active")


def test_a_fortress_brought_to_level_0_is_destroyed_and_the_siege_ends() -> None:
    turn = besieged(level=1, oda={"Siege": 1})
    assert totomi(turn, "Fortress Level", "Building 1") == (0, "")
    assert siege_rows(turn)[0]["Status"] == "Broken"
    assert armies_now(turn, "Status", "Spear") == {"Oda Host": ("Field", 20), "Imagawa Guard": ("Field", 6)}


def test_at_timer_0_the_garrison_surrenders_its_units_are_disbanded_and_control_passes() -> None:
    """No pillage: Totomi's Tax Stockpile (2) stays; the garrison's siege weapon goes to Oda."""
    turn = besieged(timer=1, imagawa={"Siege": 1})
    assert armies_now(turn, "Spear", "Siege", "Status", "Leader") == {
        "Oda Host": (20, 1, "Field", ""),
        "Imagawa Guard": (0, 0, "Destroyed", ""),
    }
    assert turn.draft.get("Provinces", "Totomi", "Controlled By") == "Oda"
    assert (turn.draft.get("Provinces", "Totomi", "Tax Stockpile"), turn.draft.get("Clans", "Oda", "Treasury")) == (
        2,
        0,
    )
    assert (siege_rows(turn)[0]["Timer"], siege_rows(turn)[0]["Status"]) == (0, "Surrendered")
    assert turn.draft.get("Characters", "Okabe Motonobu", "Status") == "Alive"


def test_a_siege_with_no_besieging_army_left_is_lifted() -> None:
    turn = besieged(oda={"Province": "Mikawa", "Status": "Field"})
    assert (siege_rows(turn)[0]["Timer"], siege_rows(turn)[0]["Status"]) == (3, "Lifted")
    assert armies_now(turn, "Status")["Imagawa Guard"] == ("Field",)


def test_a_siege_a_gm_typed_in_without_a_status_is_active() -> None:
    assert siege_rows(besieged(status=""))[0]["Timer"] == 2


def test_an_ended_siege_is_left_alone() -> None:
    assert siege_rows(besieged(status="Surrendered"))[0]["Timer"] == 3
