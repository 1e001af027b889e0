"""The order book: every order a run settles gets its Status, its Result and the roll behind it here.

A ruleset's orders live in one tab with engine-owned Status and Result columns (Sengoku's Orders,
Clan War's Purchases and Moves, The Art of War's Orders). A phase says what became of an order;
the book writes both cells through the Draft, so each becomes one History row with its cause and
roll, and counts what it settled for the run report.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass, field
from enum import StrEnum

from sheets_engine.core.tables import Draft


class Verdict(StrEnum):
    """What became of an order (the words a ruleset's Status column uses may differ: see `words`)."""

    RESOLVED = "Resolved"
    REJECTED = "Rejected"
    SUPERSEDED = "Superseded"


@dataclass
class OrderBook:
    """Settles the orders of one tab on a Draft."""

    draft: Draft
    tab: str = "Orders"
    words: dict[Verdict, str] = field(default_factory=lambda: {v: v.value for v in Verdict})
    settled: Counter[Verdict] = field(default_factory=Counter)
    refusals: Counter[str] = field(default_factory=Counter)  # rejections by reason code

    def settle(self, key: Hashable, verdict: Verdict, result: str, cause: str, roll: str = "") -> None:
        """Status and Result of the order in row `key`, with the cause and roll History records."""
        self.draft.set(self.tab, key, "Status", self.words[verdict], cause, roll)
        self.draft.set(self.tab, key, "Result", result, cause, roll)
        self.settled[verdict] += 1

    def resolve(self, key: Hashable, result: str, cause: str, roll: str = "") -> None:
        """The order was carried out."""
        self.settle(key, Verdict.RESOLVED, result, cause, roll)

    def reject(self, key: Hashable, reason: str, cause: str, roll: str = "", code: str = "") -> None:
        """The rules do not allow the order; `reason` is in a player's words, `code` the ruleset's reason code."""
        self.settle(key, Verdict.REJECTED, reason, cause, roll)
        if code:
            self.refusals[code] += 1

    def supersede(self, key: Hashable, result: str, cause: str) -> None:
        """A later (or stronger) order replaced this one."""
        self.settle(key, Verdict.SUPERSEDED, result, cause)
