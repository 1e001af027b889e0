"""Guide Section 6, Battle Resolution: sides, Combat Strength, the Damage Formula, Retreat and
Destruction, Province Capture and Pillage, siege weapons of a routed army, Leader Death.

Every expected number is worked out by hand from the guide's formulas and the template Units and
Terrain tabs (Spear 1, Sword 2, Archer 2, Cavalry 3, Firearm 3, Samurai 4; Plains 10/10,
Hills 5/20). The dice are fixed: the attacker's d20, then the defender's, then leader death d100s.

The test map (also used by the other military tests):

    Mino -- Owari -- Mikawa -- Totomi -- Suruga -- Kai
       \\______________/

Owari and Mino are Oda's, Mikawa, Totomi and Suruga Imagawa's, Kai Takeda's; all Plains.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from sheets_engine.core.tables import GameState
from sheets_engine.sengoku import orders
from sheets_engine.sengoku.armies import army_strength, spreadsheet_round, unit_table
from sheets_engine.sengoku.battle import battles
from sheets_engine.sengoku.leader_death import leader_death_chance
from sheets_engine.sengoku.turn import Turn
from tests.support import clan, make_turn, province, state

ADJACENT = {
    "Owari": "Mino, Mikawa",
    "Mino": "Owari, Mikawa",
    "Mikawa": "Owari, Mino, Totomi",
    "Totomi": "Mikawa, Suruga",
    "Suruga": "Totomi, Kai",
    "Kai": "Suruga",
}
OWNERS = {"Owari": "Oda", "Mino": "Oda", "Mikawa": "Imagawa", "Totomi": "Imagawa", "Suruga": "Imagawa", "Kai": "Takeda"}
PEOPLE = {
    "Oda Nobunaga": ("Oda", "Daimyo", "Owari"),
    "Shibata Katsuie": ("Oda", "Karo", "Owari"),
    "Imagawa Yoshimoto": ("Imagawa", "Daimyo", "Suruga"),
    "Okabe Motonobu": ("Imagawa", "Taisho", "Mikawa"),
    "Takeda Shingen": ("Takeda", "Daimyo", "Kai"),
}


def email(name: str) -> str:
    """oda.nobunaga@example.com."""
    return ".".join(name.lower().split()) + "@example.com"


def army(name: str, where: str, leader: str = "", came_from: str = "", **units: int) -> dict[str, Any]:
    """An Armies row of the clan named first in `name`; `came_from` marks it as moved in this turn."""
    return {"Army": name, "Clan": name.split()[0], "Province": where, "Leader": leader, **units,
            "Origin": came_from, "Moved": bool(came_from), "Status": "Field"}  # fmt: skip


def order(who: str, kind: str, target: str, detail: str = "", minute: int = 0, turn: int = 1) -> dict[str, Any]:
    """An Orders row given by the character itself."""
    return {"Turn": turn, "Submitted": f"2026-11-28 12:{minute:02d}:00", "Email": email(who), "Character": who,
            "Order": kind, "Target": target, "Detail": detail, "Status": "Pending"}  # fmt: skip


def ally(a: str, b: str) -> list[dict[str, Any]]:
    """A mutual alliance: both declarations."""
    return [{"Clan": a, "Ally": b}, {"Clan": b, "Ally": a}]


def war(
    armies: list[dict[str, Any]],
    provinces: dict[str, dict[str, Any]] | None = None,
    clans: dict[str, dict[str, Any]] | None = None,
    people: dict[str, dict[str, Any]] | None = None,
    **tabs: Any,
) -> GameState:
    """The test map with these armies; `provinces`, `clans`, `people` change cells by name."""
    rows = []
    for name, adjacent in ADJACENT.items():
        values = {"Province_Owner": OWNERS[name], "Adjacent": adjacent}
        values.update({k.replace(" ", "_"): v for k, v in (provinces or {}).get(name, {}).items()})
        rows.append(province(name, **values))
    capitals = {"Oda": "Owari", "Imagawa": "Suruga", "Takeda": "Kai"}
    clan_rows = [clan(c, Capital=capital, **(clans or {}).get(c, {})) for c, capital in capitals.items()]
    cast = []
    for name, (member, title, where) in PEOPLE.items():
        row = {"Character": name, "Email": email(name), "Clan": member, "Title": title, "Authority": 3,
               "Location": where, "Status": "Alive"}  # fmt: skip
        row.update((people or {}).get(name, {}))
        cast.append(row)
    return state(clans=clan_rows, provinces=rows, characters=cast, armies=armies, **tabs)


def fight(game: GameState, rolls: list[int]) -> Turn:
    """Step 9's battles on the state, with these dice."""
    turn = make_turn(game, rolls)
    orders.intake(turn)
    battles(turn)
    assert len(turn.dice.rolls) == len(rolls), "every given roll is used"
    return turn


def armies_now(turn: Turn, *columns: str) -> dict[str, tuple[Any, ...]]:
    """Army -> the given columns, as the turn left them."""
    frame = turn.draft.frame("Armies")
    return {str(a): tuple(frame.at[a, c] for c in columns) for a in frame.index}


def battle_rows(turn: Turn) -> list[dict[str, Any]]:
    """The Battles rows the turn logged."""
    return list(turn.draft.logs["Battles"])


# Combat Strength ----------------------------------------------------------------------------------


def strength_of(units: dict[str, int], piety: int = 0) -> int:
    """CS of an Oda army of these units, Oda at this Piety."""
    game = war([army("Oda Host", "Owari", **units)], clans={"Oda": {"Piety": piety}})
    turn = make_turn(game)
    return army_strength(turn.draft, turn.settings, "Oda Host", unit_table(turn.draft))


def test_combat_strength_is_count_times_cs_plus_the_samurai_pool_bonus() -> None:
    """8 Spear, 4 Sword, 3 Archer, 2 Cavalry, 4 Firearm, 2 Samurai: 8+8+6+6+12+8 = 48, plus
    min(21 basic / 3 = 7, 2 Samurai x 3 = 6) = 6: CS 54."""
    units = {"Spear": 8, "Sword": 4, "Archer": 3, "Cavalry": 2, "Firearm": 4, "Samurai": 2}
    assert strength_of(units) == 54


def test_samurai_pool_bonus_is_limited_by_basic_units_over_3() -> None:
    """4 Spear, 2 Samurai: 4 + 8 = 12, plus min(4 / 3 = 1, 6) = 1: CS 13."""
    assert strength_of({"Spear": 4, "Samurai": 2}) == 13


@pytest.mark.parametrize(("piety", "cs"), [(0, 44), (4, 44), (5, 48), (6, 48)])
def test_samurai_pool_cap_is_3_or_5_at_piety_5(piety: int, cs: int) -> None:
    """30 Spear, 2 Samurai: 30 + 8 = 38, plus min(30 / 3 = 10, 2 x cap): cap 3 gives 6, cap 5 gives 10."""
    assert strength_of({"Spear": 30, "Samurai": 2}, piety) == cs


def test_siege_weapons_add_no_combat_strength() -> None:
    assert strength_of({"Spear": 10, "Siege": 3}) == strength_of({"Spear": 10}) == 10


# The Damage Formula -------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "rounded"), [("2.5", 3), ("3.5", 4), ("0.5", 1), ("2.49", 2), ("-2.5", -3)])
def test_round_is_a_spreadsheets_round_halves_away_from_zero(value: str, rounded: int) -> None:
    assert spreadsheet_round(Fraction(value)) == rounded


@pytest.mark.parametrize(("roll", "to_defender", "to_attacker"), [(1, 4, 2), (20, 12, 6)])
def test_damage_is_terrain_modifier_plus_d20_over_100_times_cs(roll: int, to_defender: int, to_attacker: int) -> None:
    """Plains 10/10. Attacker CS 40: roll 1 -> ROUND(11% x 40 = 4.4) = 4; roll 20 -> 30% x 40 = 12.
    Defender CS 20: roll 1 -> ROUND(2.2) = 2; roll 20 -> 6."""
    game = war([army("Oda Host", "Mikawa", came_from="Owari", Spear=40), army("Imagawa Host", "Mikawa", Spear=20)])
    turn = fight(game, [roll, roll])
    row = battle_rows(turn)[0]
    assert (row["Damage To Defender"], row["Damage To Attacker"]) == (to_defender, to_attacker)
    assert armies_now(turn, "Spear") == {"Oda Host": (40 - to_attacker,), "Imagawa Host": (20 - to_defender,)}


def test_damage_is_rounded_half_away_from_zero() -> None:
    """Attacker CS 50, roll 15: 25% x 50 = 12.5 -> 13 (Python's round() would give 12).
    Defender CS 40, roll 5: 15% x 40 = 6."""
    game = war([army("Oda Host", "Mikawa", came_from="Owari", Spear=50), army("Imagawa Host", "Mikawa", Spear=40)])
    turn = fight(game, [15, 5])
    row = battle_rows(turn)[0]
    assert (row["Damage To Defender"], row["Damage To Attacker"]) == (13, 6)


def test_every_battle_is_logged_in_the_battles_tab() -> None:
    game = war([army("Oda Host", "Mikawa", came_from="Owari", Spear=40), army("Imagawa Host", "Mikawa", Spear=20)])
    turn = fight(game, [1, 20])
    assert battle_rows(turn) == [
        {"Turn": 1, "Province": "Mikawa", "Attacker": "Oda", "Defender": "Imagawa", "Attacker CS": 40,
         "Defender CS": 20, "Attacker Roll": 1, "Defender Roll": 20, "Damage To Attacker": 6,
         "Damage To Defender": 4, "Outcome": "no side broke; they fight on"},
    ]  # fmt: skip
    history = [c for c in turn.draft.changes if c.tab == "Armies" and c.column == "Spear"]
    assert {c.roll for c in history} == {"d20=1 (battle at Mikawa: Oda); d20=20 (battle at Mikawa: Imagawa)"}
    assert {c.cause for c in history} == {"battle at Mikawa"}


# Sides and who attacks ----------------------------------------------------------------------------


def test_no_battle_between_mutually_allied_clans() -> None:
    game = war([army("Imagawa Host", "Totomi", Spear=9), army("Takeda Host", "Totomi", came_from="Suruga", Spear=9)],
               alliances=ally("Imagawa", "Takeda"))  # fmt: skip
    turn = fight(game, [])
    assert battle_rows(turn) == []


def test_a_one_sided_alliance_does_not_prevent_a_battle() -> None:
    game = war([army("Imagawa Host", "Totomi", Spear=20), army("Takeda Host", "Totomi", came_from="Suruga", Spear=20)],
               alliances=[{"Clan": "Takeda", "Ally": "Imagawa"}])  # fmt: skip
    turn = fight(game, [1, 1])
    assert [(r["Attacker"], r["Defender"]) for r in battle_rows(turn)] == [("Takeda", "Imagawa")]


def test_mutual_allies_fight_on_the_same_side() -> None:
    """Imagawa (10 Spear) and Takeda (10 Spear) against Oda's 40 that moved in: one defending side
    of CS 20; Oda's 4 damage (roll 1) is split 2 and 2 by unit count."""
    game = war([army("Oda Host", "Totomi", came_from="Mikawa", Spear=40), army("Imagawa Host", "Totomi", Spear=10),
                army("Takeda Host", "Totomi", Spear=10)], alliances=ally("Imagawa", "Takeda"))  # fmt: skip
    turn = fight(game, [1, 1])
    row = battle_rows(turn)[0]
    assert (row["Attacker"], row["Defender"], row["Defender CS"]) == ("Oda", "Imagawa + Takeda", 20)
    assert armies_now(turn, "Spear") == {"Oda Host": (38,), "Imagawa Host": (8,), "Takeda Host": (8,)}


def test_the_side_that_moved_in_is_the_attacker() -> None:
    """Hills 5/20: Oda (CS 20) moved in and attacks: ROUND(15% x 20) = 3; Imagawa (CS 40) defends:
    ROUND(30% x 40) = 12."""
    game = war([army("Oda Host", "Mikawa", came_from="Owari", Spear=20), army("Imagawa Host", "Mikawa", Spear=40)],
               provinces={"Mikawa": {"Terrain": "Hills"}})  # fmt: skip
    row = battle_rows(fight(game, [10, 10]))[0]
    assert (row["Attacker"], row["Damage To Defender"], row["Damage To Attacker"]) == ("Oda", 3, 12)


@pytest.mark.parametrize("moved", [False, True], ids=["neither moved", "both moved"])
def test_when_both_or_neither_side_moved_the_larger_cs_attacks(moved: bool) -> None:
    """Hills 5/20: Imagawa (CS 40) attacks: ROUND(15% x 40) = 6; Oda (CS 20) defends: ROUND(30% x 20) = 6."""
    game = war([army("Oda Host", "Mikawa", came_from="Owari" if moved else "", Spear=20),
                army("Imagawa Host", "Mikawa", came_from="Totomi" if moved else "", Spear=40)],
               provinces={"Mikawa": {"Terrain": "Hills"}})  # fmt: skip
    row = battle_rows(fight(game, [10, 10]))[0]
    assert (row["Attacker"], row["Attacker CS"], row["Damage To Defender"], row["Damage To Attacker"]) == (
        "Imagawa", 40, 6, 6,
    )  # fmt: skip


def test_three_sides_split_their_damage_among_the_opposing_sides_by_cs() -> None:
    """Oda (CS 40, moved in) against Imagawa (CS 30) and Takeda (CS 10), not allied; rolls 10 each:
    Oda deals ROUND(20% x 40) = 8: 6 to Imagawa, 2 to Takeda (30:10). Imagawa deals 6: 4.8 and 1.2,
    largest remainder 5 to Oda and 1 to Takeda. Takeda deals 2: 1.14 and 0.86, so 1 to Oda, 1 to Imagawa."""
    game = war([army("Oda Host", "Mikawa", came_from="Owari", Spear=40), army("Imagawa Host", "Mikawa", Spear=30),
                army("Takeda Host", "Mikawa", Spear=10)])  # fmt: skip
    turn = fight(game, [10, 10, 10])
    assert [(r["Defender"], r["Damage To Defender"], r["Damage To Attacker"]) for r in battle_rows(turn)] == [
        ("Imagawa", 6, 5),
        ("Takeda", 2, 1),
    ]
    assert armies_now(turn, "Spear") == {"Oda Host": (34,), "Imagawa Host": (23,), "Takeda Host": (7,)}


# Damage distribution and loss order ---------------------------------------------------------------


def test_damage_is_split_across_a_sides_armies_in_proportion_to_their_units() -> None:
    """Oda CS 100, roll 1: 11 damage over 30 and 20 units: 6.6 and 4.4, largest remainder 7 and 4."""
    game = war([army("Oda Host", "Mikawa", came_from="Owari", Spear=100), army("Imagawa Host", "Mikawa", Spear=30),
                army("Imagawa Guard", "Mikawa", Spear=20)])  # fmt: skip
    turn = fight(game, [1, 1])
    assert armies_now(turn, "Spear")["Imagawa Host"] == (23,)
    assert armies_now(turn, "Spear")["Imagawa Guard"] == (16,)


def test_units_are_lost_spear_first_then_sword_archer_cavalry_firearm_samurai() -> None:
    """Oda CS 45, roll 1: ROUND(4.95) = 5 damage to 2 of each unit: 2 Spear, 2 Sword, 1 Archer."""
    each = {"Spear": 2, "Sword": 2, "Archer": 2, "Cavalry": 2, "Firearm": 2, "Samurai": 2}
    game = war([army("Oda Host", "Mikawa", came_from="Owari", Spear=45), army("Imagawa Host", "Mikawa", **each)])
    turn = fight(game, [1, 1])
    columns = ("Spear", "Sword", "Archer", "Cavalry", "Firearm", "Samurai")
    assert armies_now(turn, *columns)["Imagawa Host"] == (0, 0, 1, 2, 2, 2)


# Retreat and Destruction --------------------------------------------------------------------------


def shibata_attacks() -> GameState:
    """Shibata Katsuie leads 10 Spear from Owari into Mikawa, held by 50 Imagawa Spear."""
    return war(
        [army("Oda Host", "Mikawa", "Shibata Katsuie", came_from="Owari", Spear=10),
         army("Imagawa Host", "Mikawa", Spear=50)],
        people={"Shibata Katsuie": {"Location": "Mikawa"}},
    )  # fmt: skip


def test_an_army_losing_more_than_half_that_moved_in_retreats_to_its_origin() -> None:
    """Imagawa CS 50, roll 1: ROUND(5.5) = 6 of Oda's 10 units (60%): back to Owari, its leader with it."""
    game = shibata_attacks()
    turn = fight(game, [1, 1, 100])  # Shibata's death roll (60%: 48.6% chance) fails at 100
    assert armies_now(turn, "Province", "Spear", "Status")["Oda Host"] == ("Owari", 4, "Field")
    assert turn.draft.get("Characters", "Shibata Katsuie", "Location") == "Owari"
    assert battle_rows(turn)[0]["Outcome"] == "Oda Host retreated to Owari; Imagawa held Mikawa"


def test_an_army_losing_exactly_half_holds() -> None:
    """6 of 12 units is 50%, not more than 50%."""
    game = war([army("Oda Host", "Mikawa", came_from="Owari", Spear=12), army("Imagawa Host", "Mikawa", Spear=50)])
    turn = fight(game, [1, 1])
    assert armies_now(turn, "Province", "Spear")["Oda Host"] == ("Mikawa", 6)
    assert battle_rows(turn)[0]["Outcome"] == "no side broke; they fight on"


def test_an_army_that_did_not_move_retreats_to_the_first_adjacent_province_with_no_hostile_army() -> None:
    """Mikawa's Adjacent is Owari, Mino, Totomi; Owari holds an Oda army, so Imagawa goes to Mino."""
    game = war([army("Oda Host", "Mikawa", came_from="Owari", Spear=50), army("Oda Guard", "Owari", Spear=1),
                army("Imagawa Host", "Mikawa", Spear=10)])  # fmt: skip
    turn = fight(game, [1, 1])
    assert armies_now(turn, "Province", "Spear")["Imagawa Host"] == ("Mino", 4)


def test_an_army_with_no_safe_retreat_is_destroyed() -> None:
    game = war([army("Oda Host", "Mikawa", came_from="Owari", Spear=50), army("Oda Guard", "Owari", Spear=1),
                army("Oda Reserve", "Mino", Spear=1), army("Takeda Host", "Totomi", Spear=1),
                army("Imagawa Host", "Mikawa", Spear=10, Siege=1)])  # fmt: skip
    turn = fight(game, [1, 1])
    assert armies_now(turn, "Province", "Spear", "Siege", "Status")["Imagawa Host"] == ("Mikawa", 0, 0, "Destroyed")
    assert armies_now(turn, "Siege")["Oda Host"] == (1,)  # its siege weapon passed to the winner


# Province Capture and Pillage ---------------------------------------------------------------------


def rout_imagawa(**changes: Any) -> Turn:
    """Oda's 50 Spear (moved in from Owari) rout Imagawa's 10 in Mikawa (Tax Stockpile 3): 6 lost;
    Owari, first in Mikawa's Adjacent list, now holds no hostile army: Imagawa retreats there."""
    provinces = {"Mikawa": {"Tax Stockpile": 3, **changes.pop("mikawa", {})}}
    units = changes.pop("imagawa", {"Spear": 10})
    game = war([army("Oda Host", "Mikawa", came_from="Owari", Spear=50), army("Imagawa Host", "Mikawa", **units)],
               provinces=provinces, **changes)  # fmt: skip
    return fight(game, [1, 1])


def test_capture_gives_controlled_by_to_the_winner_and_pillages_the_tax_stockpile() -> None:
    turn = rout_imagawa()
    draft = turn.draft
    assert (draft.get("Provinces", "Mikawa", "Controlled By"), draft.get("Provinces", "Mikawa", "Province Owner")) == (
        "Oda", "Imagawa",
    )  # fmt: skip
    assert (draft.get("Provinces", "Mikawa", "Tax Stockpile"), draft.get("Clans", "Oda", "Treasury")) == (0, 3)
    assert battle_rows(turn)[0]["Outcome"] == (
        "Imagawa Host retreated to Owari; Oda captured Mikawa from Imagawa and pillaged 3 Mon"
    )


def test_a_loser_with_piety_5_is_not_pillaged() -> None:
    turn = rout_imagawa(clans={"Imagawa": {"Piety": 5}})
    draft = turn.draft
    assert draft.get("Provinces", "Mikawa", "Controlled By") == "Oda"
    assert (draft.get("Provinces", "Mikawa", "Tax Stockpile"), draft.get("Clans", "Oda", "Treasury")) == (3, 0)


def test_a_clan_winning_back_its_own_province_clears_controlled_by() -> None:
    """Mino is Oda's, held by Imagawa; Oda routs Imagawa there: `Controlled By` is emptied (empty
    means the owner) and Oda pillages the 2 Mon."""
    game = war([army("Oda Host", "Mino", came_from="Owari", Spear=50), army("Imagawa Host", "Mino", Spear=10)],
               provinces={"Mino": {"Controlled By": "Imagawa", "Tax Stockpile": 2}})  # fmt: skip
    turn = fight(game, [1, 1])
    assert turn.draft.get("Provinces", "Mino", "Controlled By") == ""
    assert turn.draft.get("Clans", "Oda", "Treasury") == 2


def test_siege_weapons_of_a_routed_army_pass_to_the_winners_army_with_the_largest_cs() -> None:
    """Oda Host (50) and Oda Rearguard (5) rout Imagawa; its 2 siege weapons go to Oda Host."""
    game = war([army("Oda Rearguard", "Mikawa", came_from="Owari", Spear=5),
                army("Oda Host", "Mikawa", came_from="Owari", Spear=50),
                army("Imagawa Host", "Mikawa", Spear=10, Siege=2)])  # fmt: skip
    turn = fight(game, [1, 1])
    assert armies_now(turn, "Province", "Siege") == {
        "Oda Rearguard": ("Mikawa", 0),
        "Oda Host": ("Mikawa", 2),
        "Imagawa Host": ("Owari", 0),
    }


def test_entering_an_enemy_province_with_no_defending_army_captures_and_pillages_it() -> None:
    game = war([army("Oda Host", "Mikawa", came_from="Owari", Spear=5)], provinces={"Mikawa": {"Tax Stockpile": 2}})
    turn = fight(game, [])
    assert turn.draft.get("Provinces", "Mikawa", "Controlled By") == "Oda"
    assert turn.draft.get("Clans", "Oda", "Treasury") == 2


def test_entering_with_an_army_of_the_controller_present_captures_nothing() -> None:
    """Takeda's army stands in Imagawa's Mikawa; mutual allies of Imagawa protect it."""
    game = war([army("Takeda Host", "Mikawa", came_from="Totomi", Spear=5)], alliances=ally("Imagawa", "Takeda"))
    turn = fight(game, [])
    assert turn.draft.get("Provinces", "Mikawa", "Controlled By") == ""


def test_an_army_retreating_to_its_origin_captures_nothing() -> None:
    """Oda marched from Imagawa's Suruga into Totomi, is routed and goes back to Suruga."""
    game = war([army("Oda Host", "Totomi", came_from="Suruga", Spear=10), army("Imagawa Host", "Totomi", Spear=50)])
    turn = fight(game, [1, 1])
    assert armies_now(turn, "Province")["Oda Host"] == ("Suruga",)
    assert turn.draft.get("Provinces", "Suruga", "Controlled By") == ""


def test_an_army_with_only_siege_weapons_cannot_hold_the_field() -> None:
    """It has no units to lose: routed at once, destroyed, its siege weapons taken."""
    game = war([army("Oda Host", "Mikawa", came_from="Owari", Spear=10), army("Imagawa Train", "Mikawa", Siege=2)])
    turn = fight(game, [1, 1])
    assert armies_now(turn, "Siege", "Status") == {"Oda Host": (2, "Field"), "Imagawa Train": (0, "Destroyed")}
    assert turn.draft.get("Provinces", "Mikawa", "Controlled By") == "Oda"


def test_an_army_that_did_not_move_in_captures_nothing() -> None:
    game = war([army("Oda Host", "Mikawa", Spear=5)])
    assert fight(game, []).draft.get("Provinces", "Mikawa", "Controlled By") == ""


# Leader Death -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("casualties", "chance"),
    [(30, Fraction(10)), (50, Fraction(250, 7)), (65, Fraction(55)), (100, Fraction(100))],
)
def test_leader_death_chance_is_10_at_30_percent_rising_linearly_to_100_at_100(
    casualties: int, chance: Fraction
) -> None:
    """10 + (casualties - 30) x 90 / 70: 50% casualties give 10 + 20 x 9/7 = 250/7 (35.7%)."""
    assert leader_death_chance(make_turn(war([])).settings, Fraction(casualties)) == chance


def test_a_leader_below_30_percent_casualties_does_not_roll() -> None:
    """Imagawa loses 4 of 20 (20%), Oda 2 of 40: only the two battle d20s are rolled."""
    game = war([army("Oda Host", "Mikawa", "Shibata Katsuie", came_from="Owari", Spear=40),
                army("Imagawa Host", "Mikawa", "Okabe Motonobu", Spear=20)])  # fmt: skip
    turn = fight(game, [1, 1])
    assert [r.sides for r in turn.dice.rolls] == [20, 20]


@pytest.mark.parametrize(("roll", "dead"), [(48, True), (49, False)])
def test_a_leader_dies_on_a_roll_within_the_chance(roll: int, dead: bool) -> None:
    """Oda loses 6 of 10 (60%): chance 10 + 30 x 9/7 = 48.57%; a d100 of 48 kills, 49 does not."""
    game = shibata_attacks()
    turn = fight(game, [1, 1, roll])
    shibata = turn.draft.row("Characters", "Shibata Katsuie")
    if dead:
        assert (shibata["Status"], shibata["Title"], shibata["Clan"], shibata["Location"]) == ("Dead", "", "", "Mikawa")
        assert armies_now(turn, "Leader", "Province")["Oda Host"] == ("", "Owari")
        assert {"Turn": 1, "Audience": "public", "Channel": "graveyard",
                "Message": "Shibata Katsuie, Karo of the Oda clan, has died: fell in the battle at Mikawa."} in (
            turn.draft.logs["Notifications"]
        )  # fmt: skip
    else:
        assert (shibata["Status"], shibata["Location"]) == ("Alive", "Owari")
        assert armies_now(turn, "Leader", "Province")["Oda Host"] == ("Shibata Katsuie", "Owari")


def test_the_leader_of_a_destroyed_army_rolls_at_100_percent() -> None:
    game = war([army("Oda Host", "Mikawa", came_from="Owari", Spear=50), army("Oda Guard", "Owari", Spear=1),
                army("Oda Reserve", "Mino", Spear=1), army("Takeda Host", "Totomi", Spear=1),
                army("Imagawa Host", "Mikawa", "Okabe Motonobu", Spear=10)])  # fmt: skip
    turn = fight(game, [1, 1, 100])
    assert turn.draft.get("Characters", "Okabe Motonobu", "Status") == "Dead"
    assert str(turn.dice.rolls[-1]) == "d100=100 (leader death, Okabe Motonobu: 100% casualties, 100% chance)"


def test_leader_death_casualties_count_the_whole_army_and_sheltering_never_splits_it() -> None:
    """Issue 13: Imagawa Guard, 4 Samurai and 6 Spear led by Okabe Motonobu, in Totomi's level-1
    fortress (capacity 8): 4 Samurai and 4 Spear shelter, the 2 Spear in the open fall. The army
    lost 2 of 10 (20%): no death roll (it rolled at "100% casualties" before). It keeps its row,
    garrisoned, with everything left; no "Imagawa Guard Garrison" row is added."""
    game = war(
        [army("Oda Host", "Totomi", came_from="Mikawa", Spear=30),
         army("Imagawa Guard", "Totomi", "Okabe Motonobu", Samurai=4, Spear=6)],
        provinces={"Totomi": {"Building 1": "Fortress", "Fortress Level": 1}},
        people={"Okabe Motonobu": {"Location": "Totomi"}},
    )  # fmt: skip
    turn = fight(game, [10, 10])  # the two battle d20s and nothing more: no leader death roll
    assert [r.sides for r in turn.dice.rolls] == [20, 20]
    assert turn.draft.get("Characters", "Okabe Motonobu", "Status") == "Alive"
    assert armies_now(turn, "Province", "Spear", "Samurai", "Status", "Leader") == {
        "Oda Host": ("Totomi", 30, 0, "Besieging", ""),
        "Imagawa Guard": ("Totomi", 4, 4, "Garrisoned", "Okabe Motonobu"),
    }
