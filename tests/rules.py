"""Running phases of a turn in tests, and reading what they did."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sheets_engine.core.tables import GameState
from sheets_engine.sengoku import derived, orders
from sheets_engine.sengoku.turn import Turn
from tests.support import make_turn


def run(state: GameState, *phases: Callable[[Turn], None], rolls: list[int] | None = None) -> Turn:
    """Intake and a recalculation, then the given phases, on a fresh turn."""
    turn = make_turn(state, rolls)
    orders.intake(turn)
    derived.recalculate(turn.draft, turn.settings)
    for phase in phases:
        phase(turn)
    return turn


def order_results(turn: Turn) -> list[tuple[str, str, str]]:
    """(order, status, result) of every Orders row, in row order."""
    frame = turn.draft.frame("Orders")
    return [(r["Order"], r["Status"], r["Result"]) for r in frame.to_dict("records")]


def result_of(turn: Turn, order: str) -> tuple[str, str]:
    """(status, result) of the only order of this type."""
    found = [(s, r) for o, s, r in order_results(turn) if o == order]
    assert len(found) == 1, found
    return found[0]


def cell(turn: Turn, tab: str, key: Any, column: str) -> Any:
    """One cell as the turn left it."""
    return turn.draft.get(tab, key, column)
