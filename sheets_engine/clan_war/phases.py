"""One strategic turn of the Clan War campaign, in the document's phase order, over one Draft.

A turn is resolved in one run when no opposing armies meet. When they do, the first run resolves the
start phase and the primary and cavalry movement, lists the battles and pauses (Game `phase` =
battle); the GM has them fought at the table and types the Battle Results; the next run applies them
and resolves reserve movement and recovery. `_FIRST` and `_SECOND` are the single lists that say the
order.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sheets_engine.clan_war import alliances, battles, bids, movement, new_forces, recovery, reincarnation, results
from sheets_engine.clan_war.game import Turn
from sheets_engine.clan_war.schema import Phase
from sheets_engine.clan_war.settings import read_settings
from sheets_engine.clan_war.start import orders as start_orders
from sheets_engine.core.deadlines import local_text
from sheets_engine.core.dice import Dice
from sheets_engine.core.lifecycle import RunLedger, RunStatus, nothing_to_do, paused
from sheets_engine.core.ruleset import Outcome
from sheets_engine.core.tables import Draft, GameState

Step = Callable[[Turn], None]


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


def not_due(state: GameState, number: int, ledger: RunLedger, now: datetime) -> str:
    """Why a run at `now` should leave the turn alone ("" when it is due), so that a cron job never
    resolves a turn early or an empty one: the battle step is due once results are typed (checked
    later); the start of a turn at its deadline, or, with no deadline, once anything is ordered for it."""
    if ledger.phase:
        return ""
    if ledger.schedule.deadline is not None:
        return ledger.waiting(now)
    for tab in ORDER_TABS:
        frame = state.frame(tab)
        if ((frame["Turn"] == number) & (frame["Status"] == "Pending")).any():
            return ""
    alliances_frame = state.frame("Alliances")
    if (alliances_frame["Status"] == "Pending").any():
        return ""
    return (
        f"turn {number} has no Purchases, Bids, Moves or Alliances waiting and no deadline is set; "
        "use --force to resolve it as it stands (recovery and taxes included)"
    )


_FIRST: list[tuple[str, Step]] = [
    ("start: a new turn", reset_flags),
    ("start: alliances broken", alliances.broken_by_the_gm),
    ("start: alliances declared", alliances.declare),
    ("start: purchases, promotions, assignments", start_orders),
    ("start: sealed bids", bids.bids),
    ("primary movement", movement.primary),
    ("cavalry movement", movement.cavalry),
]
_SECOND: list[tuple[str, Step]] = [
    ("reserve movement", movement.reserve),
    ("recovery: Shiba Ujimitsu reincarnates", reincarnation.in_recovery),
    ("recovery: personalities", recovery.recover_personalities),
    ("recovery: casualties", recovery.recover_casualties),
    ("recovery: new forces", new_forces.place_new_forces),
    ("recovery: taxes", recovery.taxes),
    ("rows no phase settled", left_pending),
]

DICE_PER_ROW = 100


def resolve_turn(state: GameState, now: datetime, force: bool = False, dice: Dice | None = None) -> Outcome:
    """Resolve the next step of the Game tab's turn. Pure: the input state is untouched.

    A paused turn whose Battle Results are not all typed yet is *nothing to do* (naming the battles it waits
    for); results that cannot be applied as they stand raise InvalidCampaign (nothing written).
    """
    settings = read_settings(state)
    plan = settings.schedule()
    ledger = RunLedger(
        settings.turn,
        settings.last_resolved_turn,
        plan,
        phase="" if settings.phase == Phase.START.value else settings.phase,
    )
    reason = ledger.already_resolved() or (not_due(state, settings.turn, ledger, now) if not force else "")
    if reason:
        return Outcome(
            state,
            [],
            {},
            settings.turn,
            {"resolved": False, "reason": reason},
            RunStatus.NOTHING,
            nothing_to_do(reason),
        )
    draft = Draft(state)
    turn = Turn(draft, settings, dice if dice is not None else Dice(settings.seed, settings.turn), settings.turn)
    resuming = settings.phase == Phase.BATTLE.value
    if not resuming:
        for _name, step in _FIRST:
            step(turn)
    found = battles.find(turn)
    if found and not resuming:
        battles.list_battles(turn, found)
        draft.set("Game", "phase", "Value", Phase.BATTLE.value, f"turn {turn.number}: battles to fight")
        names = ", ".join(b.province for b in found)
        _log_dice(turn)
        summary = {"resolved": False, "turn": turn.number, "battles": len(found), **dict(turn.summary)}
        headline = paused("turn", turn.number, f"the Battle Results of {len(found)} battle(s): {names}")
        return Outcome(
            draft.finish(),
            draft.changes,
            dict(draft.logs),
            turn.number,
            summary,
            RunStatus.PAUSED,
            headline,
            "start-cavalry",
        )
    if resuming:
        alliances.broken_by_the_gm(turn)  # broken while the battles were fought: the sides are as they stood
        found = battles.find(turn)
        waiting = results.waiting_for(turn, found)
        if waiting:  # the GM has not typed them yet: nothing to do, and nothing a cron job should alert on
            reason = results.waiting_reason(turn.number, waiting, len(found))
            summary = {"resolved": False, "reason": reason, "waiting for": ", ".join(waiting)}
            return Outcome(state, [], {}, settings.turn, summary, RunStatus.NOTHING, nothing_to_do(reason))
    results.refuse_unusable(turn, found)  # with no battles too: a results row of the turn would be ignored
    for battle in found:
        battles.apply(turn, battle)
    battles.occupy(turn, found)
    for _name, step in _SECOND:
        step(turn)
    cause = f"turn {turn.number} resolved"
    following = plan.next_deadline()
    if following is not None:  # the next turn's deadline, one turn length on (on the wall clock)
        draft.set("Game", "deadline", "Value", local_text(following, plan.zone), cause)
    draft.set("Game", "phase", "Value", Phase.START.value, cause)
    draft.set("Game", "turn", "Value", str(turn.number + 1), cause)
    draft.set("Game", "last_resolved_turn", "Value", str(turn.number), cause)
    _log_dice(turn)
    summary = {
        "resolved": True,
        "turn": turn.number,
        "battles": len(found),
        **dict(turn.summary),
        "dice rolled": len(turn.dice.rolls),
    }
    headline = f"Turn {turn.number} resolved" + (f" ({len(found)} battle(s) applied)" if found else "")
    return Outcome(
        draft.finish(),
        draft.changes,
        dict(draft.logs),
        turn.number,
        summary,
        RunStatus.RESOLVED,
        headline,
        "battle-recovery" if resuming else "turn",
    )


def _log_dice(turn: Turn) -> None:
    """Every roll of the run, in the order drawn, for the GM (a roll that changed nothing makes no History)."""
    rolls = [str(roll) for roll in turn.dice.rolls]
    for start in range(0, len(rolls), DICE_PER_ROW):
        chunk = rolls[start : start + DICE_PER_ROW]
        turn.notify("gm", "private", f"Dice {start + 1}-{start + len(chunk)} of {len(rolls)}: " + "; ".join(chunk))
