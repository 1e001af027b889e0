"""What every phase of a Sengoku Jidai turn is given: the `Turn` (draft, settings, dice, orders) and its
`Order`s. The phases themselves, in the rules' fixed sequence, are in sheets_engine.sengoku.phases.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass, field
from datetime import datetime

from sheets_engine.core.dice import Dice
from sheets_engine.core.orderbook import OrderBook, Verdict
from sheets_engine.core.tables import Draft
from sheets_engine.sengoku.alliances import adjacency
from sheets_engine.sengoku.game import GameSettings
from sheets_engine.sengoku.missions import apply_mission
from sheets_engine.sengoku.order import Order
from sheets_engine.sengoku.schema import OrderStatus, OrderType

__all__ = ["Order", "Turn"]  # Order lives in sengoku.order; the phases take both from here


@dataclass
class Turn:
    """Everything a phase needs: the draft, the settings, the dice and this turn's orders."""

    draft: Draft
    settings: GameSettings
    dice: Dice
    number: int
    orders: list[Order] = field(default_factory=list)
    cutoff: datetime | None = None  # responses sent after it wait for a later turn (None: all join)
    summary: Counter[str] = field(default_factory=Counter)
    refused: dict[Hashable, str] = field(default_factory=dict)  # Orders rows intake rejects, and why
    letters: dict[str, Order] = field(default_factory=dict)  # this turn's letters and the orders that wrote them
    taken: int = 0  # the Orders rows of this turn intake took (each ends Resolved, Rejected or Superseded)

    @functools.cached_property
    def neighbours(self) -> dict[str, set[str]]:
        """Each province's adjacent provinces (links both ways); no rule changes them during a turn."""
        return adjacency(self.draft.frame("Provinces"))

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

    @functools.cached_property
    def book(self) -> OrderBook:
        """The Orders tab's order book: every Status and Result of the turn is written through it."""
        return OrderBook(self.draft, "Orders", {verdict: OrderStatus(verdict.value).value for verdict in Verdict})

    def resolve(self, order: Order, result: str, roll: str = "") -> None:
        """The order succeeded: Status Resolved, its Result, and its Missions effects."""
        extra = apply_mission(self.draft, order)
        self.book.resolve(order.key, result + extra, order.cause, roll)
        self.summary["orders resolved"] += 1

    def reject(self, order: Order, reason: str, roll: str = "") -> None:
        """The rules do not allow the order: Status Rejected and the reason, in a player's words."""
        self.book.reject(order.key, reason, order.cause, roll)
        self.summary["orders rejected"] += 1
