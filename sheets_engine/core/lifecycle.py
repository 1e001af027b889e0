"""The life of a run, the same for every ruleset: the run ledger it starts from, and what it reports.

A run reads the ledger (which turn or season is next, the last one resolved, the deadline, and the
phase within the turn for a ruleset whose turn pauses), decides whether there is anything to do,
and ends in one of three ways: the turn (or a step of it) was resolved, the run paused waiting for
the GM (saying for what), or there was nothing to do. The headline says which, in the words the
CLI prints as given.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sheets_engine.core.deadlines import Schedule


class RunStatus(StrEnum):
    """How a run ended."""

    RESOLVED = "resolved"
    PAUSED = "paused"  # a step was resolved and the turn waits for the GM (e.g. battle results)
    NOTHING = "nothing to do"


@dataclass(frozen=True)
class RunLedger:
    """Where the campaign stands, as its Game tab says."""

    period: int  # the turn (or season) the next run resolves
    last_resolved: int
    schedule: Schedule
    phase: str = ""  # the step a paused turn stands at ("" for a turn that resolves in one run)
    unit: str = "turn"  # what the ruleset counts: turn, season

    def already_resolved(self) -> str:
        """Why nothing is to be done because this period is resolved ("" if it is not)."""
        if self.last_resolved >= self.period:
            return f"{self.unit} {self.period} was already resolved (last_resolved_{self.unit} is {self.last_resolved})"
        return ""

    def waiting(self, now: datetime) -> str:
        """Why the period is not due at `now` ("" when it is); a paused turn never waits for its deadline."""
        return "" if self.phase else self.schedule.waiting(now)


def nothing_to_do(reason: str) -> str:
    """The headline of a run that did nothing."""
    return f"Nothing to do: {reason}."


def paused(unit: str, period: int, waiting_for: str) -> str:
    """The headline of a run that stopped for the GM."""
    return f"{unit.capitalize()} {period} paused: waiting for {waiting_for}."
