"""Clan War: "Naga must attack a shadowlands or corrupt player whenever they get the opportunity": validate warns
the GM, and check tells the Naga player and the GM, of a Naga unit that could and was not ordered to."""

from __future__ import annotations

from datetime import UTC, datetime

from sheets_engine.clan_war import preview
from sheets_engine.core.problems import Severity
from tests.clan_war_support import problems, provinces, state, unit

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
# the Naga hold Kuni, next to Shiro (Shadowlands): Bowmen can attack it; Snakes, leaderless, cannot move
HELD = provinces(Kuni="Naga")


def naga_units() -> list[dict]:
    return [unit("Bowmen", "Naga", "Naga Bowmen", "Kuni", 10, "Gunso"),
            unit("Snakes", "Naga", "Naga Greensnake Warriors", "Kuni", 10)]  # fmt: skip


def move(to: str, phase: str = "primary") -> dict:
    return {"Turn": 1, "Phase": phase, "Faction": "Naga", "Mover": "Bowmen", "To": to, "Status": "Pending"}


def test_validate_warns_of_a_naga_unit_that_could_attack_the_shadowlands_and_is_not_ordered_to() -> None:
    found = problems(units=naga_units(), provinces=HELD, moves=[move("Hida")])
    assert [(str(p), p.severity) for p in found] == [
        ("Units, row 2, column Province: found 'Kuni'; a Moves row: the Naga must attack a Shadowlands or corrupt "
         "player whenever they can: Bowmen at Kuni could attack Shiro this turn, and no primary or cavalry Moves "
         "row sends it there", Severity.WARNING),
    ]  # fmt: skip
    assert problems(units=naga_units(), provinces=HELD, moves=[move("Shiro")]) == []


def test_check_tells_the_naga_player_and_the_gm_once() -> None:
    campaign = state(units=naga_units(), provinces=HELD)
    checked = preview.preview(campaign, NOW)
    told = [(n["Audience"], n["Channel"], n["Message"]) for n in checked.logs["Notifications"]]
    duty = ("the Naga must attack a Shadowlands or corrupt player whenever they can: Bowmen at Kuni could attack "
            "Shiro this turn, and no primary or cavalry Moves row sends it there")  # fmt: skip
    assert told == [
        ("Naga", "orders", f"Check before the turn resolves: {duty}."),
        ("gm", "private", f"Naga: Check before the turn resolves: {duty}."),
    ]
    assert checked.summary["naga duties"] == 1
    again = preview.preview(checked.state, NOW)  # a cron check later, nothing changed: nothing told again
    assert again.logs.get("Notifications", []) == []
    assert again.changes == []
