"""Guide Section 1 (turn structure) and Section 3 (recalculation at the start and end of a turn)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sheets_engine.core.dice import Dice
from sheets_engine.sengoku.game import read_settings
from sheets_engine.sengoku.phases import phase_list, resolve_turn
from tests.campaigns import KATSUIE, provinces, small

NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)


def test_phases_follow_the_resolution_sequence() -> None:
    """rules-defaults.md: steps 1 to 14 in order; economy before knowledge before social missions."""
    phases = phase_list()
    steps = [step for step, _, _ in phases]
    assert steps == sorted(steps)
    assert set(steps) == set(range(1, 15)) - {15}
    names = [name for _, name, _ in phases]
    assert names.index("economy missions") < names.index("knowledge missions") < names.index("claims to be Daimyo")
    assert names.index("executions") < names.index("declarations") < names.index("economy missions")
    assert names.index("armies march") < names.index("battles") < names.index("sieges")


@pytest.mark.parametrize(
    ("turn", "year", "of_year", "winter"),
    [(1, 1, 1, False), (8, 1, 8, False), (9, 1, 9, True), (10, 2, 1, False), (18, 2, 9, True)],
)
def test_winter_is_the_winter_turn_of_each_year(turn: int, year: int, of_year: int, winter: bool) -> None:
    """Turns are grouped into years of turns_per_year (9); Winter is turn 9 of each year."""
    settings = read_settings(small())
    assert (settings.year(turn), settings.turn_of_year(turn), settings.is_winter(turn)) == (year, of_year, winter)


def test_derived_stats_are_recalculated_at_the_start_and_end_of_a_resolution() -> None:
    """A building built this turn counts in the tracker at the end, and in regeneration next turn."""
    state = small(
        (KATSUIE, "Shibata Katsuie", "build", "Mino", "Large Fields"),
        provinces=provinces(Mino={"Resource": "Rice", "Tax Stockpile": 0}),
    )
    outcome = resolve_turn(state, NOW)
    mino = outcome.state.frame("Provinces").loc["Mino"]
    assert mino["Tax Regen"] == 2  # Rural 1 + Large Fields 1, recalculated at the end
    assert mino["Tax Stockpile"] == 1  # regenerated at the start, before the building stood


def test_dice_from_the_same_seed_and_turn_roll_the_same() -> None:
    first, second, other = Dice("1560", 3), Dice("1560", 3), Dice("1560", 4)
    rolls = [first.d20("x").value for _ in range(20)]
    assert rolls == [second.d20("x").value for _ in range(20)]
    assert rolls != [other.d20("x").value for _ in range(20)]
    assert len(first.rolls) == 20 and str(first.rolls[0]).startswith("d20=")


def test_every_order_ends_resolved_rejected_or_superseded() -> None:
    state = small(
        (KATSUIE, "Shibata Katsuie", "meditate", "", ""),
        (KATSUIE, "Shibata Katsuie", "tax-province", "Mino", ""),
        ("oda.nobunaga@example.com", "Oda Nobunaga", "lead-army", "Oda Main Host", "Mino"),
    )
    outcome = resolve_turn(state, NOW)
    assert list(outcome.state.frame("Orders")["Status"]) == ["Superseded", "Resolved", "Resolved"]


def test_every_roll_of_the_turn_is_logged_for_the_gm_in_the_order_drawn() -> None:
    """A roll that changes nothing (a death roll survived) appears in no History row: the GM's dice
    log has every roll."""
    state = small(
        (KATSUIE, "Shibata Katsuie", "meditate", "", ""),
        armies=[
            {"Army": "Oda Main Host", "Clan": "Oda", "Province": "Mino", "Spear": 4, "Status": "Field"},
            {"Army": "Takeda Raiders", "Clan": "Takeda", "Province": "Mino", "Spear": 1, "Status": "Field"},
        ],
    )
    outcome = resolve_turn(state, NOW)
    logs = [n["Message"] for n in outcome.logs["Notifications"] if n["Message"].startswith("Dice ")]
    rolled = outcome.summary["dice rolled"]
    assert rolled > 0
    assert len(logs) == 1 and logs[0].startswith(f"Dice 1-{rolled} of {rolled}: d")
