"""`sheets-engine check` for Clan War: before the GM resolves, tell each player what the start phase and
the primary and cavalry movement would do with their Purchases, Bids and Moves.

The turn's first step is run on a copy of the state, never written back; each Pending row of the turn
gets a Result starting "Check: " (its Status stays Pending). Sealed bids depend on the other players'
bids, and reserve moves are judged only after the battles: their previews say so.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from sheets_engine.clan_war import alliances, battles, intake, naga, phases, results
from sheets_engine.clan_war.game import Turn
from sheets_engine.clan_war.schema import MovePhase, Phase
from sheets_engine.clan_war.settings import read_settings
from sheets_engine.core.dice import Dice
from sheets_engine.core.ruleset import Outcome
from sheets_engine.core.tables import Draft, GameState

PREFIX = "Check: "
CAUSE = "check before the GM resolves"
TABS = ("Purchases", "Bids", "Moves")


def preview(state: GameState, now: datetime) -> Outcome:
    """The previews to write, as an Outcome (only Result cells of Pending rows of the turn)."""
    settings = read_settings(state)
    if settings.last_resolved_turn >= settings.turn or settings.phase != Phase.START.value:
        reason = (
            _waiting(state, settings.turn)
            if settings.phase == Phase.BATTLE.value
            else f"turn {settings.turn} was already resolved"
        )
        return Outcome.unchanged(state, settings.turn, {"checked": False, "reason": reason})
    # the Form's answers sent by the deadline first, as the resolve copies them: they are checked with the rest
    draft = Draft(state)
    copies = intake.copy_responses(
        draft, settings.turn, settings.schedule().cutoff(now, False), settings.schedule().zone
    )
    state = draft.finish()
    # forced: `check` runs before the deadline, and must judge the orders as the resolve at the deadline will
    after = phases.resolve_turn(state, now, force=True).state
    counts: Counter[str] = Counter()
    for tab in TABS:
        frame = state.frame(tab)
        for key in frame.index[(frame["Turn"] == settings.turn) & (frame["Status"] == "Pending")]:
            status, result = str(after.frame(tab).at[key, "Status"]), str(after.frame(tab).at[key, "Result"])
            if tab == "Moves" and frame.at[key, "Phase"] == MovePhase.RESERVE.value:
                text, kind = "reserve moves are judged after the battles", "depends"
            elif status == "Rejected":
                text, kind = f"will fail: {result}", "fail"
            elif tab == "Bids":  # sealed: the preview never tells what the others bid
                text, kind = "a valid bid; whether it wins depends on the other players' sealed bids", "depends"
            else:
                text, kind = f"valid now: {result}", "valid"
            counts[kind] += 1
            draft.set(tab, key, "Result", PREFIX + text, CAUSE)
    warned = _naga(state, settings.turn, draft)
    summary = {
        "checked": True,
        "naga duties": warned,
        "turn": settings.turn,
        "form responses copied": copies["form responses copied"],
        "orders checked": sum(counts.values()),
        "valid now": counts["valid"],
        "will fail": counts["fail"],
        "will not count": 0,
        "depend on dice or other clans": counts["depends"],
    }
    return Outcome.of(draft, settings.turn, summary, step="check")


def _waiting(state: GameState, number: int) -> str:
    """What a paused turn waits for, as `resolve` says it (its orders were judged before the battles)."""
    settings = read_settings(state)
    turn = Turn(Draft(state), settings, Dice(settings.seed, number), number)
    alliances.broken_by_the_gm(turn)  # as the resolve does before it finds the battles again
    found = battles.find(turn)
    waiting = results.waiting_for(turn, found)
    if not waiting:
        return f"turn {number} has its Battle Results: resolve applies them (its orders were checked before)"
    return results.waiting_reason(number, waiting, len(found))


def _naga(state: GameState, number: int, draft: Draft) -> int:
    """Tell the Naga player and the GM of each Naga unit that could attack the Shadowlands or the corrupt and
    is not ordered to, once: the Game key `naga_warned` keeps what was last told, so a cron `check` repeats
    nothing (the warnings change when the orders do). Returns how many duties stand unmet."""
    settings = read_settings(state)
    duties = naga.unmet(Turn(Draft(state), settings, Dice(settings.seed, number), number))
    told = "; ".join(f"turn {number}: {d.unit} to {', '.join(d.targets)}" for d in duties)
    if not draft.has("Game", "naga_warned") or str(draft.get("Game", "naga_warned", "Value")) == told:
        return len(duties)
    for duty in duties:
        message = f"Check before the turn resolves: {duty.sentence()}."
        draft.notify(number, duty.faction, "orders", message)
        draft.notify(number, "gm", "private", f"{duty.faction}: {message}")
    draft.set("Game", "naga_warned", "Value", told, "check: the Naga duties told")
    return len(duties)
