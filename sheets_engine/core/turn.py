"""The turn skeleton: one run of any ruleset's turn, the same for every ruleset.

A ruleset supplies a `TurnPlan`: how to read its ledger (where the campaign stands), when a turn with
no deadline is due, how to begin its turn from what core prepared, its steps in the rules' fixed
order with the points where the turn may pause for the GM (`Pause`), and how its run reads
(summary, headline). Core does the rest, for every ruleset alike:

1. the ledger: a period already resolved (or a campaign ended) is nothing to do; a turn is due at
   its deadline, or as the ruleset says when there is none; `resolve --force` skips the wait, but a
   forced period that would settle no order at all is refused (EmptyTurn) unless asked for (`empty`:
   `resolve --force --empty`), so that a second forced run never plays an empty turn unseen;
2. the Draft, the dice (the period's main stream, seeded on (seed, period); named streams under it)
   and the cutoff (the deadline, or the moment of a forced run, or the one a rollback kept);
3. the steps, from the start or, for a turn paused at a pause point, from the step after it (unless
   the GM has not given all it waits for yet: nothing to do); a pause point that finds something to
   wait for stops the run there (the Game `phase` remembers it);
4. the ledger advance through the ruleset's ledger keys (the next period, the last resolved one), the
   next deadline one turn length on, the forced cutoff kept in `cutoffs`, the time of the run;
5. the dice log (every roll, in the order drawn, for the GM) and the `Outcome` with its headline;
6. for a ruleset that plays on (`play_on`: The Art of War, to the next person's house that has not
   ordered), the next period when the ruleset asks for it and it is due by itself, from 2. on the state
   the period left; the Outcome joins the periods, and History stamps each with a run id of its own
   (`abc123-4`), so that the period stays the unit of rollback.

No rule reads the clock: `now` is an argument.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

from sheets_engine.core.deadlines import local_text, write_ledger
from sheets_engine.core.dice import Dice
from sheets_engine.core.history import as_written
from sheets_engine.core.lifecycle import Outcome, RunLedger, RunStatus, nothing_to_do, paused
from sheets_engine.core.tables import Draft, GameState

T = TypeVar("T")
DICE_PER_ROW = 100  # a Google Sheets cell holds at most 50,000 characters
CUTOFFS_NOTE = "Written by the engine: when each turn resolved early (--force) took its orders up to; kept by rollback"


@dataclass(frozen=True)
class Step(Generic[T]):
    """One step of a turn: a rule applied to the ruleset's turn, in the rules' fixed order."""

    name: str
    run: Callable[[T], None]


@dataclass(frozen=True)
class Pause(Generic[T]):
    """A point where a turn may stop for the GM: `waiting` says for what ("" to go on; it may write what the
    GM needs, such as the battles to fight). The Game phase key keeps `phase` while the turn waits there, and
    the next run resumes at the step after it."""

    phase: str  # the phase word while the turn waits here ("battle"; "" for a ruleset with no phase key)
    waiting: Callable[[T], str]
    why: str = ""  # the cause of the phase written ("battles to fight")
    before: str = "turn"  # History's Step of a run that stops here ("start-cavalry")
    after: str = "turn"  # History's Step of the run that resumes here and completes the turn ("battle-recovery")
    # On resuming here: what the turn still waits for, as the run's summary with its "reason" (the GM has not
    # given it all yet: the run is nothing to do, and writes nothing); {} to go on. None: it never waits again.
    held: Callable[[T], dict[str, Any]] | None = None


@dataclass(frozen=True)
class Begun:
    """What core hands a ruleset to begin its turn with."""

    state: GameState
    draft: Draft
    ledger: RunLedger
    dice: Dice
    cutoff: datetime | None  # form responses sent after it wait for a later turn (None: every one joins)
    now: datetime
    resumed: bool  # the run resumes a turn paused at a pause point


@dataclass(frozen=True)
class Ended:
    """How the steps of a run ended, for the ruleset's summary and headline."""

    status: RunStatus  # resolved or paused
    ledger: RunLedger  # where the campaign stood when the run began
    resumed: bool  # the run resumed a turn paused at a pause point
    cutoff: datetime | None  # the moment the run took form responses up to (None: every one)
    waiting: str = ""  # what a paused turn waits for


class EmptyTurn(ValueError):
    """A forced period that would settle no order, not asked for as an empty one: nothing is written."""


def always_due(state: GameState, ledger: RunLedger, now: datetime) -> str:
    """A turn with no deadline is due at once (the ruleset has no wait of its own)."""
    return ""


@dataclass(frozen=True)
class TurnPlan(Generic[T]):
    """A ruleset's parts of the turn skeleton."""

    ledger: Callable[[GameState], RunLedger]  # where the campaign stands (its keys are the ruleset's ledger keys)
    begin: Callable[[Begun], T]  # the ruleset's own turn, over core's draft, dice and cutoff
    steps: Callable[[], Sequence[Step[T] | Pause[T]]]  # in the rules' fixed order (asked for at each run)
    summary: Callable[[T, Ended], dict[str, Any]]  # the run's counts and notes
    headline: Callable[[T, Ended], str]  # how a resolved run reads (a paused one: core's "... paused: waiting for")
    idle: Callable[[GameState, RunLedger, datetime], str] = always_due  # why a turn with no deadline is not due
    seed: Callable[[GameState], str] = lambda state: str(state.game("seed"))  # what the dice are seeded on
    log_dice: bool = True  # every roll logged for the GM (a Notifications row per hundred)
    phase_key: str = ""  # the Game key keeping the pause point a turn waits at (Clan War's `phase`)
    rest: str = ""  # that key's word when the turn waits nowhere ("start")
    resolved_at: str = ""  # a Game key taking the UTC time of each resolution (Sengoku Jidai's last_resolved_at)
    # The rules close the period themselves, through the ledger (The Art of War: a season ends when the
    # houses have all moved); else each run that completes the turn advances it by one.
    rules_close_period: bool = False
    # After a period closed: whether the run plays on into the next one (due by itself at the same moment), as
    # the line the run's summary keeps for the period it played through ("" stops: every run is one period).
    play_on: Callable[[T], str] | None = None
    # Does the period settle any order (an order given for it, read from the sheet or the form)? A forced
    # period that settles none is refused unless asked for; None: the ruleset cannot tell (never refused).
    settles: Callable[[T], bool] | None = None


def not_due(plan: TurnPlan[Any], state: GameState, ledger: RunLedger, now: datetime, force: bool) -> str:
    """Why a run at `now` leaves the turn alone ("" when it is due): a period already resolved (even with
    `force`); else, unless forced or the turn is paused, its deadline, or the ruleset's wait without one."""
    done = ledger.already_resolved()
    if done or force or ledger.phase:
        return done
    if ledger.schedule.deadline is not None:
        return ledger.waiting(now)
    return plan.idle(state, ledger, now)


MAX_PERIODS = 100  # the periods one run may play on through (a person's orders sent far ahead)


def resolve_turn(
    plan: TurnPlan[T],
    state: GameState,
    now: datetime,
    force: bool = False,
    dice: Dice | None = None,
    empty: bool = True,
) -> Outcome:
    """Resolve the next part of the campaign's turn: the whole turn, or up to a pause point, or from one.
    Pure: the input state is untouched. `dice` replaces the turn's seeded dice (a check tries the extremes).
    With `force` and not `empty`, a period that resolves without settling any order raises EmptyTurn.

    With the plan's `play_on`, a run that closed a period plays on into the next while the ruleset says so
    and that period is due by itself at `now` (a deadline still to come stops it; `force` was for the first),
    each period on its own Draft and dice: the Outcome joins them, each period's History its own."""
    outcome, turn = _period(plan, state, now, force, dice, empty)
    periods, lines = [outcome], []
    while plan.play_on is not None and dice is None and turn and len(periods) < MAX_PERIODS:
        if outcome.status is not RunStatus.RESOLVED:
            break
        line = plan.play_on(turn[0])
        if not line:
            break
        following = as_written(outcome.state, outcome.changes)
        if not_due(plan, following, plan.ledger(following), now, False):
            break
        outcome, turn = _period(plan, following, now, False, None, True)
        if outcome.status is RunStatus.NOTHING:
            break
        periods.append(outcome)
        lines.append(line)
    return periods[0] if len(periods) == 1 else Outcome.joined(periods, lines)


def _period(
    plan: TurnPlan[T], state: GameState, now: datetime, force: bool, dice: Dice | None, empty: bool
) -> tuple[Outcome, tuple[T, ...]]:
    """One period's run (the whole turn, or up to a pause point, or from one), and the ruleset's turn object
    of it (none when there was nothing to do)."""
    ledger = plan.ledger(state)
    reason = not_due(plan, state, ledger, now, force)
    if reason:
        summary = {"resolved": False, "reason": reason}
        return Outcome.unchanged(state, ledger.period, summary, RunStatus.NOTHING, nothing_to_do(reason)), ()
    draft = Draft(state)
    cutoff = ledger.schedule.cutoff(now, force)
    rolls = dice if dice is not None else Dice(plan.seed(state), ledger.period)
    resumed = bool(ledger.phase)
    turn = plan.begin(Begun(state, draft, ledger, rolls, cutoff, now, resumed))
    steps = list(plan.steps())
    start = 0
    if resumed:
        start = next(i + 1 for i, s in enumerate(steps) if isinstance(s, Pause) and s.phase == ledger.phase)
    resumed_at = steps[start - 1] if resumed else None
    if isinstance(resumed_at, Pause) and resumed_at.held is not None:
        held = resumed_at.held(turn)
        if held:
            summary = {"resolved": False, **held}
            reason = nothing_to_do(held["reason"])
            return Outcome.unchanged(state, ledger.period, summary, RunStatus.NOTHING, reason), ()
    for step in steps[start:]:
        if isinstance(step, Step):
            step.run(turn)
            continue
        waiting = step.waiting(turn)
        if waiting:
            why = f"{ledger.unit} {ledger.period}: {step.why}"
            if plan.phase_key and step.phase:
                draft.set("Game", plan.phase_key, "Value", step.phase, why)
            keep_cutoff(draft, ledger, cutoff, why)
            ended = Ended(RunStatus.PAUSED, ledger, resumed, cutoff, waiting)
            headline = paused(ledger.unit, ledger.period, waiting)
            return _end(plan, draft, turn, rolls, ended, headline, step.before), (turn,)
    if force and not empty and not resumed and plan.settles is not None and not plan.settles(turn):
        raise EmptyTurn(
            f"{ledger.unit} {ledger.period} has no order to settle (none was given for it by now), so --force "
            f"would play an empty {ledger.unit}; nothing was written. To play it anyway, run resolve --force --empty"
        )
    ended = Ended(RunStatus.RESOLVED, ledger, resumed, cutoff)
    cause = f"{ledger.unit} {ledger.period} resolved"
    if plan.phase_key:
        draft.set("Game", plan.phase_key, "Value", plan.rest, cause)
    if not plan.rules_close_period:
        ledger.set_period(draft, ledger.period + 1, cause)
        ledger.set_last(draft, ledger.period, cause)
    if not plan.rules_close_period or _moved(draft, ledger):
        move_deadline(draft, ledger, cutoff, cause)
    if plan.resolved_at:
        draft.set("Game", plan.resolved_at, "Value", now.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S"), cause)
    step_name = resumed_at.after if isinstance(resumed_at, Pause) else "turn"
    return _end(plan, draft, turn, rolls, ended, plan.headline(turn, ended), step_name), (turn,)


def _moved(draft: Draft, ledger: RunLedger) -> bool:
    """Did the rules close the period (its key moved on)?"""
    return str(draft.game(ledger.keys[0], "")).strip() != str(ledger.period)


def move_deadline(draft: Draft, ledger: RunLedger, cutoff: datetime | None, cause: str) -> None:
    """The next period's deadline, one turn length on (on the wall clock of the time zone), and a forced
    cutoff kept in `cutoffs` (so that the period resolved again after a rollback takes the same orders)."""
    plan = ledger.schedule
    following = plan.next_deadline()
    if following is None:
        return
    draft.set("Game", "deadline", "Value", local_text(following, plan.zone), cause)
    keep_cutoff(draft, ledger, cutoff, cause)


def keep_cutoff(draft: Draft, ledger: RunLedger, cutoff: datetime | None, cause: str) -> None:
    """A cutoff that is not the deadline (a forced run's) kept in the Game key `cutoffs` (added when the
    campaign has none), once per period: a turn that pauses keeps it at its first run, which took the orders."""
    plan = ledger.schedule
    if cutoff is None or plan.deadline is None or cutoff == plan.deadline or plan.recorded() is not None:
        return
    text = write_ledger({**plan.cutoffs, ledger.period: cutoff}, plan.zone)
    if draft.has("Game", "cutoffs"):
        draft.set("Game", "cutoffs", "Value", text, cause)
    else:  # a campaign laid out before every ruleset kept them
        draft.add_row("Game", {"Key": "cutoffs", "Value": text, "Notes": CUTOFFS_NOTE}, cause)


def deadline_summary(ledger: RunLedger, cutoff: datetime | None) -> dict[str, str]:
    """The summary lines of a run with a deadline: the moment orders were taken up to, and the next deadline."""
    plan = ledger.schedule
    if cutoff is None or plan.deadline is None:
        return {}
    return {
        "orders sent by": local_text(cutoff, plan.zone),
        "next deadline": local_text(plan.next_deadline() or plan.deadline, plan.zone),
    }


def log_dice(draft: Draft, period: int, dice: Dice) -> None:
    """Every roll of the run, in the order drawn, for the GM: a roll that changed nothing (a leader who
    survived his death roll) is in no History row, and an auditor replays the turn from these."""
    rolls = [str(roll) for roll in dice.rolls]
    for start in range(0, len(rolls), DICE_PER_ROW):
        chunk = rolls[start : start + DICE_PER_ROW]
        said = f"Dice {start + 1}-{start + len(chunk)} of {len(rolls)}: " + "; ".join(chunk)
        draft.notify(period, "gm", "private", said)


def _end(plan: TurnPlan[T], draft: Draft, turn: T, dice: Dice, ended: Ended, headline: str, step: str) -> Outcome:
    summary = plan.summary(turn, ended)
    if plan.log_dice:
        log_dice(draft, ended.ledger.period, dice)
    return Outcome.of(draft, ended.ledger.period, summary, ended.status, headline, step)
