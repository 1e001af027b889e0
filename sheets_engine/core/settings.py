"""The Game keys every ruleset's turn may have, read and checked the same way for each: the deadline.

A ruleset's settings model (its whole Game tab) extends `DeadlineKeys`; one without a settings model
of its own checks these keys with `deadline_problems`. All optional: a campaign with no deadline
resolves as its ruleset says (core.turn).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError, ValidationInfo, field_validator

from sheets_engine.core.cells import Count, Deadline, Text, ZoneName
from sheets_engine.core.deadlines import Schedule, read_ledger, schedule, time_zone
from sheets_engine.core.load import game_key_problems
from sheets_engine.core.problems import Problem
from sheets_engine.core.tables import GameState

DEADLINE_KEYS = ("deadline", "time_zone", "turn_hours", "cutoffs")


class DeadlineKeys(BaseModel):
    """The deadline of the period the next run resolves, in `time_zone` (an IANA name; empty: UTC), the
    turn length in hours, and the cutoffs forced resolutions took (written by the engine)."""

    deadline: Deadline = ""
    time_zone: ZoneName = ""
    turn_hours: Count = 0
    cutoffs: Text = ""

    @field_validator("turn_hours")
    @classmethod
    def _turn_length(cls, value: int, info: ValidationInfo) -> int:
        if str(info.data.get("deadline") or "").strip() and value < 1:
            raise ValueError("at least 1 (hours) when a deadline is set")
        return value

    @field_validator("cutoffs")
    @classmethod
    def _ledger(cls, value: str) -> str:
        read_ledger(value, time_zone(""))  # ValueError naming the entry it cannot read
        return value

    def schedule_of(self, period: int) -> Schedule:
        """The deadlines of the campaign as they stand for `period`."""
        return schedule(period, self.deadline, self.turn_hours, self.time_zone, self.cutoffs)


def deadline_keys(state: GameState) -> DeadlineKeys:
    """The deadline keys of a validated campaign's Game tab (a key it lacks is its default)."""
    return DeadlineKeys.model_validate(_values(state))


def deadline_problems(state: GameState, defaults: Mapping[str, str], init_command: str) -> list[Problem]:
    """A problem at its Game row for each deadline key that cannot be read."""
    try:
        DeadlineKeys.model_validate(_values(state))
    except ValidationError as error:
        return game_key_problems(error, state, defaults, init_command)
    return []


def _values(state: GameState) -> dict[str, Any]:
    game = state.frame("Game")
    return {key: game.at[key, "Value"] for key in DEADLINE_KEYS if key in game.index}
