"""Guide Section 6, Post-Resolution: Hostile Army Presence (step 10).

A character ending the turn where a hostile army stands and no friendly army does dies on a
d100 of 10 or less; characters roll in Characters row order. The map and helpers are the battle
tests' (tests/test_battle.py): Oda Nobunaga and Shibata Katsuie start in Owari.
"""

from __future__ import annotations

from typing import Any

import pytest

from sheets_engine.sengoku.dangers import hostile_presence
from sheets_engine.sengoku.turn import Turn
from tests.support import make_turn
from tests.test_battle import ally, army, war


def presence(armies: list[dict[str, Any]], rolls: list[int], **changes: Any) -> Turn:
    """Step 10 with these armies and exactly these dice."""
    turn = make_turn(war(armies, **changes), rolls)
    hostile_presence(turn)
    assert len(turn.dice.rolls) == len(rolls), "every given roll is used"
    return turn


def status(turn: Turn, character: str) -> str:
    return str(turn.draft.get("Characters", character, "Status"))


@pytest.mark.parametrize(("roll", "fate"), [(1, "Dead"), (10, "Dead"), (11, "Alive"), (100, "Alive")])
def test_a_character_among_a_hostile_army_with_no_friendly_army_dies_on_10_or_less(roll: int, fate: str) -> None:
    """Okabe Motonobu (Imagawa) stands in Mikawa with an Oda army."""
    turn = presence([army("Oda Host", "Mikawa", Spear=5)], [roll])
    assert status(turn, "Okabe Motonobu") == fate


def test_a_death_by_hostile_army_is_announced_in_the_graveyard() -> None:
    turn = presence([army("Oda Host", "Mikawa", Spear=5)], [10])
    assert turn.draft.logs["Notifications"][0] == {
        "Turn": 1, "Audience": "public", "Channel": "graveyard",
        "Message": "Okabe Motonobu, Taisho of the Imagawa clan, has died: killed by Oda soldiers in Mikawa.",
    }  # fmt: skip
    assert [c.roll for c in turn.draft.changes if c.column == "Status"] == [
        "d100=10 (hostile army presence, Okabe Motonobu in Mikawa (10% chance))"
    ]


def test_a_friendly_army_in_the_province_protects_the_character() -> None:
    presence([army("Oda Host", "Mikawa", Spear=5), army("Imagawa Guard", "Mikawa", Spear=1)], [])


def test_a_mutual_allys_army_protects_but_a_one_sided_allys_does_not() -> None:
    armies = [army("Oda Host", "Mikawa", Spear=5), army("Takeda Host", "Mikawa", Spear=1)]
    presence(armies, [], alliances=ally("Imagawa", "Takeda"))
    presence(armies, [50], alliances=[{"Clan": "Takeda", "Ally": "Imagawa"}])


def test_no_roll_without_a_hostile_army() -> None:
    presence([army("Imagawa Guard", "Mikawa", Spear=1), army("Takeda Host", "Kai", Spear=1)], [])


def test_a_destroyed_army_is_no_danger() -> None:
    presence([{**army("Oda Host", "Mikawa"), "Status": "Destroyed"}], [])


def test_characters_roll_in_characters_row_order() -> None:
    """Nobunaga (row 2) and Shibata (row 3) in Owari with an Imagawa army: 11 spares Nobunaga, 10 kills Shibata."""
    turn = presence([army("Imagawa Host", "Owari", Spear=5)], [11, 10])
    assert (status(turn, "Oda Nobunaga"), status(turn, "Shibata Katsuie")) == ("Alive", "Dead")


def test_the_dead_do_not_roll() -> None:
    presence([army("Oda Host", "Mikawa", Spear=5)], [], people={"Okabe Motonobu": {"Status": "Dead", "Clan": ""}})
