"""Guide Section 6, Army Movement (/army lead-army), crossing-path conflicts, and Winter's
Movement Blocked. The map and helpers are the battle tests' (see tests/test_battle.py).
"""

from __future__ import annotations

from typing import Any

from sheets_engine.core.tables import GameState
from sheets_engine.sengoku import orders
from sheets_engine.sengoku.movement import lead_army
from sheets_engine.sengoku.turn import Turn
from tests.support import make_turn
from tests.test_battle import ally, armies_now, army, order, war


def march(game: GameState, rolls: list[int] | None = None) -> Turn:
    """Intake, then step 8, with these dice (none unless given)."""
    turn = make_turn(game, rolls if rolls is not None else [])
    orders.intake(turn)
    lead_army(turn)
    return turn


def results(turn: Turn) -> list[tuple[str, str, str]]:
    """(character, status, result) of every Orders row."""
    frame = turn.draft.frame("Orders")
    return [(r["Character"], r["Status"], r["Result"]) for r in frame.to_dict("records")]


def lead(who: str, target: str, detail: str, minute: int = 0, turn: int = 1) -> dict[str, Any]:
    """A lead-army order."""
    return order(who, "lead-army", target, detail, minute, turn)


def test_lead_army_moves_the_army_one_province_along_an_adjacency_link() -> None:
    game = war([army("Oda Host", "Owari", "Shibata Katsuie", Spear=5)],
               orders=[lead("Shibata Katsuie", "Oda Host", "Mikawa")])  # fmt: skip
    turn = march(game)
    assert armies_now(turn, "Province", "Origin", "Moved")["Oda Host"] == ("Mikawa", "Owari", True)
    assert results(turn) == [("Shibata Katsuie", "Resolved", "Oda Host marched from Owari to Mikawa")]


def test_the_leading_character_moves_with_the_army() -> None:
    """Oda Nobunaga, in Owari, takes the leaderless Oda Host from Mino to Mikawa and leads it there."""
    game = war([army("Oda Host", "Mino", Spear=5)], orders=[lead("Oda Nobunaga", "Oda Host", "Mikawa")])
    turn = march(game)
    assert turn.draft.get("Characters", "Oda Nobunaga", "Location") == "Mikawa"
    assert armies_now(turn, "Leader")["Oda Host"] == ("Oda Nobunaga",)


def test_a_character_who_takes_another_army_leaves_the_one_it_led() -> None:
    game = war([army("Oda Host", "Owari", "Oda Nobunaga", Spear=5), army("Oda Guard", "Mino", Spear=2)],
               orders=[lead("Oda Nobunaga", "Oda Guard", "Mikawa")])  # fmt: skip
    turn = march(game)
    assert armies_now(turn, "Leader") == {"Oda Host": ("",), "Oda Guard": ("Oda Nobunaga",)}


def test_armies_that_do_not_march_have_moved_false_and_no_origin() -> None:
    """Last turn's march (Origin Owari, Moved TRUE) is cleared when the army stays."""
    game = war([army("Oda Host", "Mikawa", came_from="Owari", Spear=5)])
    turn = march(game)
    assert armies_now(turn, "Province", "Origin", "Moved")["Oda Host"] == ("Mikawa", "", False)


def test_lead_army_to_a_province_that_is_not_adjacent_is_rejected() -> None:
    game = war([army("Oda Host", "Owari", "Oda Nobunaga", Spear=5)],
               orders=[lead("Oda Nobunaga", "Oda Host", "Totomi")])  # fmt: skip
    turn = march(game)
    assert results(turn) == [
        ("Oda Nobunaga", "Rejected",
         "Totomi is not adjacent to Owari; an army moves one province along an adjacency link (Mino, Mikawa)"),
    ]  # fmt: skip
    assert armies_now(turn, "Province")["Oda Host"] == ("Owari",)


def test_lead_army_of_another_clans_army_is_rejected() -> None:
    game = war([army("Imagawa Host", "Mikawa", Spear=5)], orders=[lead("Oda Nobunaga", "Imagawa Host", "Owari")])
    assert results(march(game)) == [("Oda Nobunaga", "Rejected", "not your army: Imagawa Host belongs to Imagawa")]


def test_lead_army_of_an_army_led_by_another_character_is_rejected() -> None:
    game = war([army("Oda Host", "Owari", "Shibata Katsuie", Spear=5)],
               orders=[lead("Oda Nobunaga", "Oda Host", "Mino")])  # fmt: skip
    assert results(march(game)) == [
        ("Oda Nobunaga", "Rejected", "Oda Host is led by Shibata Katsuie; only its leader may lead it"),
    ]


def test_a_leaderless_army_ordered_twice_marches_for_the_first_order_only() -> None:
    twice = [lead("Oda Nobunaga", "Oda Host", "Mino", 1), lead("Shibata Katsuie", "Oda Host", "Mikawa", 2)]
    game = war([army("Oda Host", "Owari", Spear=5)], orders=twice)
    turn = march(game)
    assert results(turn)[1] == (
        "Shibata Katsuie", "Rejected", "Oda Host was already ordered to march this turn by Oda Nobunaga",
    )  # fmt: skip
    assert armies_now(turn, "Province")["Oda Host"] == ("Mino",)


def test_a_besieged_garrison_cannot_march() -> None:
    game = war([{**army("Imagawa Host", "Totomi", "Okabe Motonobu", Spear=5), "Status": "Garrisoned"}],
               orders=[lead("Okabe Motonobu", "Imagawa Host", "Suruga")])  # fmt: skip
    assert results(march(game)) == [
        ("Okabe Motonobu", "Rejected", "Imagawa Host is besieged in the fortress of Totomi and cannot march out"),
    ]


# Crossing-path conflict ---------------------------------------------------------------------------


def crossing(oda: dict[str, int], imagawa: dict[str, int], **tabs: Any) -> GameState:
    """Oda Host (Owari -> Mikawa) and Imagawa Host (Mikawa -> Owari) cross each other's path."""
    return war(
        [
            army("Oda Host", "Owari", "Shibata Katsuie", **oda),
            army("Imagawa Host", "Mikawa", "Okabe Motonobu", **imagawa),
        ],
        orders=[lead("Shibata Katsuie", "Oda Host", "Mikawa", 1), lead("Okabe Motonobu", "Imagawa Host", "Owari", 2)],
        **tabs,
    )


def test_crossing_path_conflict_the_larger_army_moves_the_smaller_stays_at_its_origin() -> None:
    """Oda 12 units against Imagawa's 10 (its 5 siege weapons do not count)."""
    turn = march(crossing({"Spear": 12}, {"Spear": 10, "Siege": 5}))
    assert armies_now(turn, "Province", "Moved") == {"Oda Host": ("Mikawa", True), "Imagawa Host": ("Mikawa", False)}
    assert results(turn)[1] == (
        "Okabe Motonobu", "Resolved",
        "Blocked: Imagawa Host met Oda Host (Oda) marching the other way between Mikawa and Owari; Oda Host went "
        "through as the larger army (12 units against 10), and Imagawa Host stayed in Mikawa",
    )  # fmt: skip


def test_crossing_path_conflict_tie_goes_to_the_army_with_more_cavalry() -> None:
    turn = march(crossing({"Spear": 10}, {"Spear": 8, "Cavalry": 2}))
    assert armies_now(turn, "Province") == {"Oda Host": ("Owari",), "Imagawa Host": ("Owari",)}


def test_crossing_path_conflict_tie_in_size_and_cavalry_is_a_logged_coin_flip() -> None:
    """A coin of 2 lets the army later in the Armies tab (Imagawa Host) through."""
    turn = march(crossing({"Spear": 8, "Cavalry": 2}, {"Spear": 8, "Cavalry": 2}), rolls=[2])
    assert armies_now(turn, "Province") == {"Oda Host": ("Owari",), "Imagawa Host": ("Owari",)}
    coin = "d2=2 (crossing-path conflict, Oda Host or Imagawa Host)"
    assert results(turn)[0][2].endswith(f"by a coin flip ({coin}), and Oda Host stayed in Owari")
    rolls = {(c.tab, c.key, c.column): c.roll for c in turn.draft.changes if c.roll}
    assert rolls == {("Orders", 2, "Status"): coin, ("Armies", "Imagawa Host", "Province"): coin,
                     ("Armies", "Imagawa Host", "Origin"): coin, ("Armies", "Imagawa Host", "Moved"): coin}  # fmt: skip


def test_mutually_allied_armies_cross_without_conflict() -> None:
    game = war([army("Takeda Host", "Suruga", "Takeda Shingen", Spear=5),
                army("Imagawa Host", "Kai", "Imagawa Yoshimoto", Spear=9)],
               alliances=ally("Takeda", "Imagawa"),
               orders=[lead("Takeda Shingen", "Takeda Host", "Kai"),
                       lead("Imagawa Yoshimoto", "Imagawa Host", "Suruga")])  # fmt: skip
    assert armies_now(march(game), "Province") == {"Takeda Host": ("Kai",), "Imagawa Host": ("Suruga",)}


def test_a_one_sided_alliance_does_not_prevent_a_crossing_path_conflict() -> None:
    turn = march(crossing({"Spear": 12}, {"Spear": 10}, alliances=[{"Clan": "Imagawa", "Ally": "Oda"}]))
    assert armies_now(turn, "Province") == {"Oda Host": ("Mikawa",), "Imagawa Host": ("Mikawa",)}


def test_armies_of_one_clan_swap_places_without_conflict() -> None:
    swap = [lead("Oda Nobunaga", "Oda Host", "Mino"), lead("Shibata Katsuie", "Oda Guard", "Owari")]
    game = war([army("Oda Host", "Owari", "Oda Nobunaga", Spear=5),
                army("Oda Guard", "Mino", "Shibata Katsuie", Spear=9)], orders=swap)  # fmt: skip
    assert armies_now(march(game), "Province") == {"Oda Host": ("Mino",), "Oda Guard": ("Owari",)}


# Winter: Movement Blocked -------------------------------------------------------------------------


def test_winter_cancels_every_lead_army_order_and_moves_the_character_to_the_army() -> None:
    """Turn 9 is Winter. Oda Nobunaga (in Owari) orders the leaderless Oda Host in Mino: cancelled;
    he joins it in Mino, and is told."""
    game = war([army("Oda Host", "Mino", came_from="Owari", Spear=5)], game={"turn": 9},
               orders=[lead("Oda Nobunaga", "Oda Host", "Mikawa", turn=9)])  # fmt: skip
    turn = march(game)
    assert results(turn) == [
        ("Oda Nobunaga", "Rejected",
         "cancelled by Winter: no army marches in Winter; Oda Nobunaga joined Oda Host in Mino"),
    ]  # fmt: skip
    assert armies_now(turn, "Province", "Leader", "Moved")["Oda Host"] == ("Mino", "Oda Nobunaga", False)
    assert turn.draft.get("Characters", "Oda Nobunaga", "Location") == "Mino"
    assert turn.draft.logs["Notifications"] == [
        {"Turn": 9, "Audience": "character:Oda Nobunaga", "Channel": "orders",
         "Message": "Winter: your lead-army order for Oda Host was cancelled; you are with Oda Host in Mino."},
    ]  # fmt: skip
