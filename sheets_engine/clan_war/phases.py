"""One strategic turn of the Clan War campaign, in the document's phase order, over one Draft.

A turn is resolved in one run when no opposing armies meet. When they do, the first run resolves the
start phase and the primary and cavalry movement, lists the battles and pauses (Game `phase` =
battle); the GM has them fought at the table and types the Battle Results; the next run applies them
and resolves reserve movement and recovery. `steps` is the single list that says the order, with its
one pause point; the turn skeleton (core.turn) runs it and advances the turn.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sheets_engine.clan_war import (
    alliances,
    battles,
    bids,
    intake,
    movement,
    new_forces,
    recovery,
    reincarnation,
    results,
)
from sheets_engine.clan_war.game import Turn
from sheets_engine.clan_war.schema import Phase
from sheets_engine.clan_war.settings import read_settings
from sheets_engine.clan_war.start import orders as start_orders
from sheets_engine.core import turn as skeleton
from sheets_engine.core.dice import Dice
from sheets_engine.core.lifecycle import Outcome, RunLedger, RunStatus
from sheets_engine.core.names import plural
from sheets_engine.core.tables import Draft, GameState
from sheets_engine.core.turn import Begun, Ended, Pause, Step, TurnPlan

Rule = Callable[[Turn], None]


def reset_flags(turn: Turn) -> None:
    """A new turn: nobody has moved, fought or entered hostile territory yet."""
    draft = turn.draft
    for tab, columns in (
        ("Units", ("Fought", "Entered Hostile")),
        ("Personalities", ("Moved", "Fought", "Entered Hostile")),
    ):
        frame = draft.frame(tab)
        for column in columns:
            for key in frame.index[frame[column]]:
                draft.set(tab, key, column, False, f"turn {turn.number} begins")


def left_pending(turn: Turn) -> None:
    """The turn's Purchases, Bids and Moves still Pending at its end were added after their phase was
    resolved: each is refused with the reason, so that nothing waits silently."""
    draft = turn.draft
    for tab, book in (("Purchases", turn.purchases), ("Bids", turn.bids), ("Moves", turn.moves)):
        frame = draft.frame(tab)
        late = frame.index[(frame["Turn"] == turn.number) & (frame["Status"] == "Pending")]
        for key in late:
            reason = f"added after its phase of turn {turn.number} was resolved: give it again for a later turn"
            book.reject(key, reason, f"turn {turn.number} resolved")


ORDER_TABS = ("Purchases", "Bids", "Moves")


def ordered(state: GameState, number: int) -> bool:
    """Is anything ordered for turn `number`: a Pending Purchases, Bids or Moves row of it, or a Pending
    alliance?"""
    for tab in ORDER_TABS:
        frame = state.frame(tab)
        if ((frame["Turn"] == number) & (frame["Status"] == "Pending")).any():
            return True
    return bool((state.frame("Alliances")["Status"] == "Pending").any())


def waiting(state: GameState, number: int) -> bool:
    """Is anything ordered for turn `number`, or a Form response waiting to be copied into it?"""
    return ordered(state, number) or any(response.values is not None for response in intake.new_responses(state))


def not_due(state: GameState, ledger: RunLedger, now: datetime) -> str:
    """Why a turn with no deadline is left alone ("" when it is due), so that a cron job never resolves an
    empty one: it is due once anything is ordered for it. (The skeleton has already let through a paused
    turn, due once results are typed, and a turn at its deadline.)"""
    if waiting(state, ledger.period):
        return ""
    return (
        f"turn {ledger.period} has no Purchases, Bids, Moves, Alliances or Form responses waiting and no deadline "
        "is set; use --force --empty to resolve it as it stands (recovery and taxes included)"
    )


def form_responses(turn: Turn) -> None:
    """The Form's responses sent by the cutoff become the turn's Purchases, Bids and Moves rows (clan_war.intake)."""
    zone = turn.settings.schedule().zone
    turn.summary.update(intake.copy_responses(turn.draft, turn.number, turn.cutoff, zone))


def copy_answers(draft: Draft, period: int, cutoff: datetime | None) -> int:
    """The intake capability: the Form's answers sent by the cutoff, copied as rows of the period."""
    zone = read_settings(draft.state).schedule().zone
    return intake.copy_responses(draft, period, cutoff, zone)["form responses copied"]


_FIRST: list[tuple[str, Rule]] = [
    ("start: form responses copied", form_responses),
    ("start: a new turn", reset_flags),
    ("start: alliances broken", alliances.broken_by_the_gm),
    ("start: alliances declared", alliances.declare),
    ("start: purchases, promotions, assignments", start_orders),
    ("start: sealed bids", bids.bids),
    ("primary movement", movement.primary),
    ("cavalry movement", movement.cavalry),
]
_SECOND: list[tuple[str, Rule]] = [
    ("reserve movement", movement.reserve),
    ("recovery: Shiba Ujimitsu reincarnates", reincarnation.in_recovery),
    ("recovery: personalities", recovery.recover_personalities),
    ("recovery: casualties", recovery.recover_casualties),
    ("recovery: new forces", new_forces.place_new_forces),
    ("recovery: taxes", recovery.taxes),
    ("rows no phase settled", left_pending),
]

LEDGER_KEYS = ("turn", "last_resolved_turn")


def read_ledger(state: GameState) -> RunLedger:
    """Where the campaign stands: the turn, the last one resolved, its deadlines, and the phase a paused
    turn waits at."""
    settings = read_settings(state)
    phase = "" if settings.phase == Phase.START.value else settings.phase
    return RunLedger(settings.turn, settings.last_resolved_turn, settings.schedule(), phase, keys=LEDGER_KEYS)


def begin(begun: Begun) -> Turn:
    """The turn every phase is given, over the skeleton's draft and dice."""
    settings = read_settings(begun.state)
    return Turn(begun.draft, settings, begun.dice, begun.ledger.period, resumed=begun.resumed, cutoff=begun.cutoff)


def battles_to_fight(turn: Turn) -> str:
    """The pause point: the battles the movement led to, listed for the GM, are what the turn waits for."""
    turn.battles = battles.find(turn)
    if not turn.battles:
        return ""
    battles.list_battles(turn, turn.battles)
    names = ", ".join(b.province for b in turn.battles)
    return f"the Battle Results of {plural(len(turn.battles), 'battle')}: {names}"


def results_missing(turn: Turn) -> dict[str, Any]:
    """On resuming a paused turn: the battles found again, and, while the GM has not typed every one's
    Battle Results yet, what the turn still waits for (nothing to do: no cron job should alert on it)."""
    alliances.broken_by_the_gm(turn)  # broken while the battles were fought: the sides are as they stood
    turn.battles = battles.find(turn)
    waiting = results.waiting_for(turn, turn.battles)
    if not waiting:
        return {}
    reason = results.waiting_reason(turn.number, waiting, len(turn.battles))
    return {"reason": reason, "waiting for": ", ".join(waiting)}


def battle_results(turn: Turn) -> None:
    """The GM's Battle Results applied (results that cannot be applied as they stand: InvalidCampaign, nothing
    written)."""
    results.refuse_unusable(turn, turn.battles)  # with no battles too: a results row of the turn would be ignored
    for battle in turn.battles:
        battles.apply(turn, battle)
    battles.occupy(turn, turn.battles)


def steps() -> list[Step[Turn] | Pause[Turn]]:
    """The turn in the document's order, with the one point where it pauses."""
    pause = Pause(
        Phase.BATTLE.value, battles_to_fight, "battles to fight", "start-cavalry", "battle-recovery", results_missing
    )
    return [
        *(Step(name, step) for name, step in _FIRST),
        pause,
        Step("battle results", battle_results),
        *(Step(name, step) for name, step in _SECOND),
    ]


def summary(turn: Turn, ended: Ended) -> dict[str, Any]:
    """The run's counts: the turn, its battles, what each phase did (and, once complete, the dice)."""
    done = ended.status is RunStatus.RESOLVED
    counts = {"resolved": done, "turn": turn.number, "battles": len(turn.battles), **dict(turn.summary)}
    return {**counts, "dice rolled": len(turn.dice.rolls)} if done else counts


def headline(turn: Turn, ended: Ended) -> str:
    """'Turn 3 resolved (2 battles applied)'."""
    found = len(turn.battles)
    return f"Turn {turn.number} resolved" + (f" ({plural(found, 'battle')} applied)" if found else "")


PLAN: TurnPlan[Turn] = TurnPlan(
    ledger=read_ledger,
    begin=begin,
    steps=steps,
    summary=summary,
    headline=headline,
    idle=not_due,
    phase_key="phase",
    rest=Phase.START.value,
    settles=lambda turn: waiting(turn.draft.state, turn.number),  # what the sheet held when the turn began
)


def resolve_turn(state: GameState, now: datetime, force: bool = False, dice: Dice | None = None) -> Outcome:
    """Resolve the next step of the Game tab's turn, through the turn skeleton (core.turn). Pure: the input
    state is untouched.

    A paused turn whose Battle Results are not all typed yet is *nothing to do* (naming the battles it waits
    for); results that cannot be applied as they stand raise InvalidCampaign (nothing written).
    """
    return skeleton.resolve_turn(PLAN, state, now, force, dice)
