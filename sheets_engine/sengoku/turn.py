"""One turn of Sengoku Jidai: the phases in the rules' fixed sequence, over one Draft.

`PHASES` is the single list that says the order (docs/orders.md, "The order of a resolution";
the step numbers are stable). Each phase is a function of the `Turn`.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sheets_engine.core.dice import Dice
from sheets_engine.core.ruleset import Outcome
from sheets_engine.core.tables import Draft, GameState
from sheets_engine.sengoku.game import GameSettings, read_settings
from sheets_engine.sengoku.schema import OrderStatus, OrderType


@dataclass(frozen=True)
class Order:
    """A player's order for this turn, as read from the Orders tab."""

    key: Hashable  # the Orders row
    character: str  # as the sheet names the character ("" if unknown)
    email: str
    type: OrderType
    target: str
    detail: str
    secret: bool
    submitted: str

    @property
    def cause(self) -> str:
        """How History names the order."""
        return f"{self.type.value} by {self.character}"


@dataclass
class Turn:
    """Everything a phase needs: the draft, the settings, the dice and this turn's orders."""

    draft: Draft
    settings: GameSettings
    dice: Dice
    number: int
    orders: list[Order] = field(default_factory=list)
    summary: Counter[str] = field(default_factory=Counter)
    refused: dict[Hashable, str] = field(default_factory=dict)  # Orders rows intake rejects, and why
    letters: dict[str, Order] = field(default_factory=dict)  # this turn's letters and the orders that wrote them

    @functools.cached_property
    def province_map(self) -> Any:
        """The provinces and their adjacency (a networkx graph); no rule changes it during a turn."""
        from sheets_engine.sengoku.alliances import province_map

        return province_map(self.draft.frame("Provinces"))

    @property
    def winter(self) -> bool:
        """Is this the Winter turn of its year?"""
        return self.settings.is_winter(self.number)

    def pending(self, *types: OrderType) -> list[Order]:
        """This turn's orders of these types still Pending, in submission order."""
        wanted = set(types)
        return [
            o
            for o in self.orders
            if o.type in wanted and self.draft.get("Orders", o.key, "Status") == OrderStatus.PENDING.value
        ]

    def notify(self, audience: str, channel: str, message: str) -> None:
        """A Notifications row (what the Discord bot posted in the guide's game)."""
        self.draft.notify(self.number, audience, channel, message)

    def resolve(self, order: Order, result: str) -> None:
        """The order succeeded: Status Resolved, its Result, and its Missions effects."""
        from sheets_engine.sengoku.missions import apply_mission

        extra = apply_mission(self, order)
        self.draft.set("Orders", order.key, "Status", OrderStatus.RESOLVED.value, order.cause)
        self.draft.set("Orders", order.key, "Result", result + extra, order.cause)
        self.summary["orders resolved"] += 1

    def reject(self, order: Order, reason: str) -> None:
        """The rules do not allow the order: Status Rejected and the reason, in a player's words."""
        self.draft.set("Orders", order.key, "Status", OrderStatus.REJECTED.value, order.cause)
        self.draft.set("Orders", order.key, "Result", reason, order.cause)
        self.summary["orders rejected"] += 1


Phase = Callable[[Turn], None]


def _phases() -> list[tuple[int, str, Phase]]:
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
    """Step 14: `turn` += 1, `last_resolved_turn` and `last_resolved_at` written."""
    cause = f"turn {turn.number} resolved"
    turn.draft.set("Game", "turn", "Value", str(turn.number + 1), cause)
    turn.draft.set("Game", "last_resolved_turn", "Value", str(turn.number), cause)


def not_due(settings: GameSettings, now: datetime) -> str:
    """Why this resolution should do nothing, or "" when the turn is due."""
    if settings.last_resolved_turn >= settings.turn:
        return f"turn {settings.turn} was already resolved (last_resolved_turn is {settings.last_resolved_turn})"
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
        return Outcome(state, [], {}, settings.turn, {"resolved": False, "reason": reason})
    draft = Draft(state)
    turn = Turn(draft, settings, dice if dice is not None else Dice(settings.seed, settings.turn), settings.turn)
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
    return Outcome(draft.finish(), draft.changes, dict(draft.logs), turn.number, summary)
