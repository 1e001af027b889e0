"""When a Clan War turn is due: a cron job that runs `resolve` every few minutes never resolves a turn
before its deadline, nor an empty turn (recovery and taxes) that nobody ordered."""

from __future__ import annotations

from datetime import UTC, datetime

from sheets_engine.core.lifecycle import RunStatus
from tests.clan_war_support import RULESET, state

NOON = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
MOVE = {"Turn": 1, "Phase": "primary", "Faction": "Crab", "Mover": "Hida Kisada", "To": "Kuni", "Status": "Pending"}


def _game(outcome) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {str(k): str(v) for k, v in outcome.state.frame("Game")["Value"].items()}


def test_a_turn_with_no_deadline_and_nothing_ordered_waits_for_force() -> None:
    waiting = RULESET.resolve(state(), NOON, False)
    assert waiting.status is RunStatus.NOTHING
    assert waiting.changes == []
    said = "turn 1 has no Purchases, Bids, Moves, Alliances or Form responses waiting and no deadline is set"
    assert said in waiting.headline
    forced = RULESET.resolve(state(), NOON, True)
    assert forced.status is RunStatus.RESOLVED
    assert _game(forced)["turn"] == "2"
    assert forced.state.frame("Factions").loc["Crab", "Koku"] == 1000 + 2 * 100  # taxes: two provinces


def test_a_turn_with_an_order_and_no_deadline_resolves() -> None:
    outcome = RULESET.resolve(state(moves=[MOVE]), NOON, False)
    assert outcome.status is RunStatus.RESOLVED
    assert outcome.state.frame("Personalities").loc["Hida Kisada", "Province"] == "Kuni"


def test_the_start_of_a_turn_waits_for_its_deadline_which_then_moves_on_by_turn_hours() -> None:
    game = {"deadline": "2026-12-01 20:00:00", "time_zone": "Asia/Tokyo", "turn_hours": 48}
    early = RULESET.resolve(state(game, moves=[MOVE]), datetime(2026, 12, 1, 10, 59, tzinfo=UTC), False)
    assert early.status is RunStatus.NOTHING
    assert "turn 1 is due at its deadline 2026-12-01 20:00:00 (Asia/Tokyo)" in early.headline
    due = RULESET.resolve(state(game), datetime(2026, 12, 1, 11, 0, tzinfo=UTC), False)  # 20:00 in Tokyo
    assert due.status is RunStatus.RESOLVED  # at the deadline an empty turn resolves too
    assert _game(due)["deadline"] == "2026-12-03 20:00:00"
    assert _game(due)["last_resolved_turn"] == "1"


def test_check_before_the_deadline_previews_each_order_as_the_resolve_at_the_deadline_will() -> None:
    """`check` is run before the deadline: it must judge the orders, not see the turn as not yet due."""
    game = {"deadline": "2026-12-01 20:00:00", "time_zone": "UTC", "turn_hours": 48}
    far = {**MOVE, "To": "Pit"}  # then from Kuni to the Pit: no road
    checked = RULESET.preview(state(game, moves=[MOVE, far]), NOON)
    assert list(checked.state.frame("Moves")["Result"]) == [
        "Check: valid now: moved from Hida to Kuni",
        "Check: will fail: Pit is not adjacent to Kuni or to friendly territory it can reach",
    ]
    assert list(checked.state.frame("Moves")["Status"]) == ["Pending", "Pending"]
