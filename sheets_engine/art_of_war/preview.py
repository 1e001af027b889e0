"""`sheets-engine check` for The Art of War: before a person's house moves, tell its player what the
order waiting in Orders would do.

Each person's house's latest Pending order for the season of its next turn gets a Result starting
"Check: " (its Status stays Pending, the board does not change). The house to move is previewed on
the board as it stands, which is the board it will move on; a house whose turn comes later is
previewed on today's board too, and the Result says that the houses before it move first.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from sheets_engine.art_of_war import orders
from sheets_engine.art_of_war.model import Status
from sheets_engine.art_of_war.phases import result_text
from sheets_engine.art_of_war.rules import next_season_of, play_turn
from sheets_engine.art_of_war.sheet import read_world
from sheets_engine.core.ruleset import Outcome
from sheets_engine.core.tables import Draft, GameState

PREFIX = "Check: "
CAUSE = "check before the house moves"
MAX_RESULT = 30_000  # a Result stays well inside a cell


def preview(state: GameState, now: datetime) -> Outcome:
    """The previews to write, as an Outcome (Form responses copied into Orders, and Result cells of
    Pending orders). `now` changes nothing: the game has no deadlines."""
    world, _ = read_world(state)
    if world.status is Status.OVER:
        reason = f"the campaign is over ({world.winner or 'nobody'} won)"
        return Outcome.unchanged(state, world.season, {"checked": False, "reason": reason})
    draft = Draft(state)
    players = {h.name: h.player for h in world.houses.values()}
    copied = orders.intake(draft, {h: next_season_of(world, h) for h in players}, players, world.season)
    counts: Counter[str] = Counter()
    for house in world.houses.values():
        if not house.person or house.fallen:
            continue
        rows = orders.pending_rows(draft, next_season_of(world, house.name), house.name)
        if not rows:
            continue
        row = draft.row("Orders", rows[-1])
        parsed = orders.parse_order(str(row["Order"]), str(row["Moves"]), str(row["Capital Raises"]))
        if isinstance(parsed, str):
            text, kind = f"will fail: {parsed}", "fail"
        else:
            trial = world.copy()
            trial.to_move = house.name  # its own turn, on the board as it stands now
            events, _ = play_turn(trial, parsed)
            refused = [e for e in events if e.kind == "refused"]
            said = result_text(events)
            if house.name != world.to_move:
                text, kind = f"the houses before {house.name} move first; on today's board: {said}", "depends"
            elif refused:
                text, kind = f"part of it will be refused: {said}", "fail"
            else:
                text, kind = f"valid now: {said}", "valid"
        counts[kind] += 1
        full = PREFIX + text
        draft.set("Orders", rows[-1], "Result", full if len(full) <= MAX_RESULT else full[: MAX_RESULT - 3] + "...",
                  CAUSE)  # fmt: skip
    summary = {
        "checked": True,
        "turn": world.season,
        "form responses copied": copied,
        "orders checked": sum(counts.values()),
        "valid now": counts["valid"],
        "will fail": counts["fail"],
        "will not count": 0,
        "depend on dice or other clans": counts["depends"],
    }
    return Outcome.of(draft, world.season, summary, step="check")
