"""One turn of Sengoku Jidai: the phases in the rules' fixed sequence, over one Draft.

`phase_list` is the single list that says the order (docs/orders.md, "The order of a resolution";
the step numbers are stable). Each phase is a function of the `Turn` (sengoku.turn). The turn
skeleton (core.turn) runs them, then advances the turn (step 14's last part).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from sheets_engine.core import turn as skeleton
from sheets_engine.core.dice import Dice
from sheets_engine.core.lifecycle import Outcome, RunLedger
from sheets_engine.core.tables import GameState
from sheets_engine.core.turn import Begun, Ended, Step, TurnPlan, deadline_summary
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
from sheets_engine.sengoku.game import read_settings
from sheets_engine.sengoku.turn import Turn

Phase = Callable[[Turn], None]


def phase_list() -> list[tuple[int, str, Phase]]:
    """Every phase of a turn, in the rules' fixed sequence: (the guide's step, its name, the rule)."""

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
    ]  # then the turn advances (core.turn: turn, last_resolved_turn, the deadline, the cutoffs)


LEDGER_KEYS = ("turn", "last_resolved_turn")


def read_ledger(state: GameState) -> RunLedger:
    """Where the campaign stands: the turn to resolve, the last one resolved, its deadlines."""
    settings = read_settings(state)
    return RunLedger(settings.turn, settings.last_resolved_turn, settings.schedule(), keys=LEDGER_KEYS)


def idle(state: GameState, ledger: RunLedger, now: datetime) -> str:
    """Why a turn with no deadline is not due ("" when it is): `min_hours_between_turns` after the last
    resolution (so that a second cron run does nothing)."""
    settings = read_settings(state)
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


def begin(begun: Begun) -> Turn:
    """The turn every phase is given, over the skeleton's draft, dice and cutoff."""
    return Turn(begun.draft, read_settings(begun.state), begun.dice, begun.ledger.period, cutoff=begun.cutoff)


def steps() -> list[Step[Turn]]:
    """The phases as the skeleton's steps (no pause: a Sengoku Jidai turn resolves in one run)."""
    return [Step(name, phase) for _step, name, phase in phase_list()]


def summary(turn: Turn, ended: Ended) -> dict[str, Any]:
    """The run's counts: the turn, its year and season, what each phase did, the dice and the deadlines."""
    turn.summary["dice rolled"] = len(turn.dice.rolls)
    return {
        "resolved": True,
        "turn": turn.number,
        "year": turn.settings.year(turn.number),
        "winter": turn.winter,
        **dict(turn.summary),
        **deadline_summary(ended.ledger, ended.cutoff),
    }


def headline(turn: Turn, ended: Ended) -> str:
    """'Turn 3 (year 1), Winter resolved'."""
    year = turn.settings.year(turn.number)
    return f"Turn {turn.number} (year {year})" + (", Winter" if turn.winter else "") + " resolved"


PLAN: TurnPlan[Turn] = TurnPlan(
    ledger=read_ledger,
    begin=begin,
    steps=steps,
    summary=summary,
    headline=headline,
    idle=idle,
    resolved_at="last_resolved_at",  # the wait of a campaign with no deadline counts from it
    settles=lambda turn: turn.taken > 0,  # an Orders row of the turn, typed or copied from the form
)


def resolve_turn(state: GameState, now: datetime, force: bool = False, dice: Dice | None = None) -> Outcome:
    """Resolve the Game tab's turn: every phase in order, through the turn skeleton (core.turn). Pure: the
    input state is untouched. `dice` replaces the turn's seeded dice (a check before the deadline tries the
    extremes)."""
    return skeleton.resolve_turn(PLAN, state, now, force, dice)
