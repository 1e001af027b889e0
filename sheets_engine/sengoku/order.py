"""A player's order as the phases take it: typed once at intake (sengoku.orders)."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from enum import StrEnum

from sheets_engine.sengoku.schema import OrderType


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
    def given(self) -> str:
        """When it was given, in a Result's words ("submitted 2026-11-28 21:10:00")."""
        return f"submitted {self.submitted}" if self.submitted else "typed in with no Submitted time (the latest)"

    @property
    def cause(self) -> str:
        """How History names the order."""
        return f"{self.type.value} by {self.character}"


class Refusal(StrEnum):
    """Why intake refuses an order: its reason code (the Result says it in a player's words)."""

    UNKNOWN_CHARACTER = "unknown-character"
    DEAD_CHARACTER = "dead-character"
    NOT_YOUR_CHARACTER = "not-your-character"
    UNKNOWN_ORDER = "unknown-order"
    BAD_ANSWER = "bad-answer"  # an answer too long, or a Secret answer that is not one of the form's choices


@dataclass(frozen=True)
class Refused:
    """An Orders row intake could not take: the code and the words for the player."""

    code: Refusal
    reason: str
