"""One turn of Sengoku Jidai: the phases in the rules' fixed sequence, over one Draft.

`_phases` is the single list that says the order (docs/orders.md, "The order of a resolution";
the step numbers are stable). Each phase is a function of the `Turn` (sengoku.turn).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from sheets_engine.core.deadlines import local_text, write_ledger
from sheets_engine.core.dice import Dice
from sheets_engine.core.lifecycle import RunLedger, RunStatus, nothing_to_do
from sheets_engine.core.ruleset import Outcome
from sheets_engine.core.tables import Draft, GameState
from sheets_engine.sengoku import (
    battle,
    claim_daimyo,
    dangers,
    derived,
    diplomacy,
    economy,
    execution,
    knowledge,
    letters,
    movement,
    orders,
    shogunate,
    siege,
    succession,
    winter,
)
from sheets_engine.sengoku.game import GameSettings, read_settings
from sheets_engine.sengoku.turn import Turn

Phase = Callable[[Turn], None]


def _phases() -> list[tuple[int, str, Phase]]:
    def recalculate(turn: Turn) -> None:
        derived.recalculate(turn.draft, turn.settings, cause="recalc")

    return [
        (1, "intake of form responses", orders.intake),
        (1, "tech choices", knowledge.spend_tech_points),
        (2, "recalculate derived stats", recalculate),
        (2, "stockpiles regenerate", economy.regenerate),
        (2, "knowledge from buildings", knowledge.building_knowledge),
        (3, "winter attrition", winter.attrition),
        (4, "executions", execution.executions),
        (5, "declarations", diplomacy.designate_allies),
        (6, "economy missions", economy.economy_missions),
        (6, "knowledge missions", knowledge.knowledge_missions),
        (6, "letters written", letters.write_letters),
        (6, "claims to be Daimyo", claim_daimyo.claim_daimyo),
        (6, "claims to the Shogunate", shogunate.claim_shogunate),
        (6, "relations established", diplomacy.establish_relations),
        (7, "letters dispatched", letters.dispatch),
        (8, "armies march", movement.lead_army),
        (9, "battles", battle.battles),
        (9, "sieges", siege.sieges),
        (10, "hostile army presence", dangers.hostile_presence),
        (11, "knowledge becomes tech points", knowledge.convert_knowledge),
        (12, "succession", succession.succession),
        (13, "winter ownership consolidation", winter.consolidation),
        (14, "recalculate derived stats", recalculate),
        (14, "orders no rule settled", orders.left_pending),
        (14, "the turn advances", advance),
    ]


def advance(turn: Turn) -> None:
    """Step 14: `turn` += 1, `last_resolved_turn` written, the deadline moved on by the turn length, and a
    forced cutoff kept in `cutoffs` (so that the turn resolved again after a rollback takes the same orders)."""
    cause = f"turn {turn.number} resolved"
    turn.draft.set("Game", "turn", "Value", str(turn.number + 1), cause)
    turn.draft.set("Game", "last_resolved_turn", "Value", str(turn.number), cause)
    plan = turn.settings.schedule()
    following = plan.next_deadline()
    if following is None:
        return
    turn.draft.set("Game", "deadline", "Value", local_text(following, plan.zone), cause)
    if turn.cutoff is not None and turn.cutoff != plan.deadline and plan.recorded() is None:
        ledger = {**plan.cutoffs, turn.number: turn.cutoff}
        turn.draft.set("Game", "cutoffs", "Value", write_ledger(ledger, plan.zone), cause)


def not_due(settings: GameSettings, now: datetime) -> str:
    """Why this resolution should do nothing, or "" when the turn is due.

    With a deadline the turn is due once it has passed; without one, `min_hours_between_turns` after the
    last resolution (so that a second cron run does nothing)."""
    ledger = RunLedger(settings.turn, settings.last_resolved_turn, settings.schedule())
    if ledger.already_resolved():
        return ledger.already_resolved()
    if ledger.schedule.deadline is not None:
        return ledger.waiting(now)
    if settings.last_resolved_at and settings.min_hours_between_turns:
        try:
            last = datetime.strptime(settings.last_resolved_at, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
        except ValueError:  # a wait that cannot be read must not let a second cron run through
            return (
                f"last_resolved_at '{settings.last_resolved_at}' is not a time (YYYY-MM-DD HH:MM:SS, UTC); "
                "correct or clear it, or use --force to resolve now"
            )
        due = last + timedelta(hours=settings.min_hours_between_turns)
        if now.astimezone(UTC) < due:
            return (
                f"turn {settings.turn - 1} was resolved at {settings.last_resolved_at} UTC; turn {settings.turn} "
                f"is due from {due:%Y-%m-%d %H:%M} UTC (min_hours_between_turns); use --force to resolve it now"
            )
    return ""


DICE_PER_ROW = 100  # a Google Sheets cell holds at most 50,000 characters


def _log_dice(turn: Turn) -> None:
    """Every roll of the turn, in the order drawn, for the GM: a roll that changed nothing (a leader
    who survived his death roll) is in no History row, and an auditor replays the turn from these."""
    rolls = [str(roll) for roll in turn.dice.rolls]
    for start in range(0, len(rolls), DICE_PER_ROW):
        chunk = rolls[start : start + DICE_PER_ROW]
        turn.notify("gm", "private", f"Dice {start + 1}-{start + len(chunk)} of {len(rolls)}: " + "; ".join(chunk))


def resolve_turn(state: GameState, now: datetime, force: bool = False, dice: Dice | None = None) -> Outcome:
    """Resolve the Game tab's turn: every phase in order. Pure: the input state is untouched.

    `dice` replaces the turn's seeded dice (a check before the deadline tries the extremes).
    """
    settings = read_settings(state)
    reason = not_due(settings, now)
    if reason and not (force and settings.last_resolved_turn < settings.turn):
        summary = {"resolved": False, "reason": reason}
        return Outcome(state, [], {}, settings.turn, summary, RunStatus.NOTHING, nothing_to_do(reason))
    draft = Draft(state)
    cutoff = settings.schedule().cutoff(now, force)
    rolls = dice if dice is not None else Dice(settings.seed, settings.turn)
    turn = Turn(draft, settings, rolls, settings.turn, cutoff=cutoff)
    for _step, _name, phase in _phases():
        phase(turn)
    stamp = now.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
    draft.set("Game", "last_resolved_at", "Value", stamp, f"turn {turn.number} resolved")
    turn.summary["dice rolled"] = len(turn.dice.rolls)
    _log_dice(turn)
    summary = {
        "resolved": True,
        "turn": turn.number,
        "year": settings.year(turn.number),
        "winter": turn.winter,
        **dict(turn.summary),
    }
    plan = settings.schedule()
    if turn.cutoff is not None and plan.deadline is not None:
        summary["orders sent by"] = local_text(turn.cutoff, plan.zone)
        summary["next deadline"] = local_text(plan.next_deadline() or plan.deadline, plan.zone)
    headline = (
        f"Turn {turn.number} (year {settings.year(turn.number)})" + (", Winter" if turn.winter else "") + " resolved"
    )
    return Outcome(draft.finish(), draft.changes, dict(draft.logs), turn.number, summary, RunStatus.RESOLVED, headline)
