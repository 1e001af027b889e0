"""The life of a run, the same for every ruleset: the run ledger it starts from, what it hands back (the
`Outcome`), and what it reports.

A run reads the ledger (which turn or season is next, the last one resolved, the deadline, and the
phase within the turn for a ruleset whose turn pauses), decides whether there is anything to do,
and ends in one of three ways: the turn (or a step of it) was resolved, the run paused waiting for
the GM (saying for what), or there was nothing to do. The headline says which, in the words the
CLI prints as given.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from sheets_engine.core.deadlines import Schedule

if TYPE_CHECKING:  # the CLI reads RunStatus at start-up: no pandas for it
    from sheets_engine.core.grid import CellEdit
    from sheets_engine.core.tables import Change, Draft, GameState


class RunStatus(StrEnum):
    """How a run ended."""

    RESOLVED = "resolved"
    PAUSED = "paused"  # a step was resolved and the turn waits for the GM (e.g. battle results)
    NOTHING = "nothing to do"


@dataclass(frozen=True)
class Outcome:
    """What a pure rules function hands back: the new state, its changes and its log rows.

    Built by `of` (from the Draft a run worked on), `unchanged` (a run that changed nothing) or
    `of_cells` (cells put back as the sheet held them, core.grid), never field by field."""

    state: GameState
    changes: list[Change]
    logs: dict[str, list[dict[str, Any]]]
    turn: int  # the turn the History rows belong to
    summary: dict[str, Any]  # counts and notes for the CLI and cron logs
    status: RunStatus = RunStatus.RESOLVED  # resolved, paused (waiting for the GM) or nothing to do
    headline: str = ""  # one line saying how the run ended, printed as given
    step: str = "turn"  # the step of the turn the run resolved (History's Step): turn, a phase, recalc
    cells: tuple[CellEdit, ...] = ()  # cells set as the sheet holds them (a header, a rollback), written too
    # a run that played on through a period's close: each period's own outcome, in order (History stamps
    # each period's rows with a run id of its own, so that a rollback undoes one period at a time)
    periods: tuple[Outcome, ...] = ()

    @classmethod
    def of(
        cls,
        draft: Draft,
        turn: int,
        summary: dict[str, Any],
        status: RunStatus = RunStatus.RESOLVED,
        headline: str = "",
        step: str = "turn",
        cells: Iterable[CellEdit] = (),
    ) -> Outcome:
        """What a run did on its Draft: the new state, every change and every log row."""
        return cls(draft.finish(), draft.changes, dict(draft.logs), turn, summary, status, headline, step, tuple(cells))

    @classmethod
    def unchanged(
        cls,
        state: GameState,
        turn: int,
        summary: dict[str, Any],
        status: RunStatus = RunStatus.RESOLVED,
        headline: str = "",
        step: str = "turn",
    ) -> Outcome:
        """A run that changed nothing (a turn not due, a check with nothing to check)."""
        return cls(state, [], {}, turn, summary, status, headline, step)

    @classmethod
    def joined(cls, periods: Sequence[Outcome], played_on: Sequence[str]) -> Outcome:
        """One run's outcome over several periods played in turn, each on the state the one before it left:
        the last state, every change and log row in order, the last period's status and summary (with the
        ruleset's line for each period it played on through, under "played on"), and the headlines joined."""
        last = periods[-1]
        changes = [change for period in periods for change in period.changes]
        logs: dict[str, list[dict[str, Any]]] = {}
        for period in periods:
            for tab, rows in period.logs.items():
                logs.setdefault(tab, []).extend(rows)
        summary = {**last.summary, "played on": "; ".join(played_on)}
        headline = " ".join(h if h.endswith(".") else h + "." for h in (p.headline for p in periods) if h)
        return cls(last.state, changes, logs, last.turn, summary, last.status, headline, last.step, (), tuple(periods))

    @classmethod
    def of_cells(cls, cells: Iterable[CellEdit], turn: int, summary: dict[str, Any], step: str) -> Outcome:
        """Cells set as the sheet holds them, with no typed state (a rollback, a delivery mark)."""
        from sheets_engine.core.tables import GameState

        return cls(GameState({}, {}, {}), [], {}, turn, summary, step=step, cells=tuple(cells))


@dataclass(frozen=True)
class RunLedger:
    """Where the campaign stands, as its Game tab says, and the Game keys it is written to."""

    period: int  # the turn (or season) the next run resolves
    last_resolved: int
    schedule: Schedule
    phase: str = ""  # the pause point a paused turn stands at ("" when it waits nowhere)
    unit: str = "turn"  # what the ruleset counts: turn, season
    keys: tuple[str, str] = ("turn", "last_resolved_turn")  # the ruleset's ledger keys: next period, last resolved
    finished: str = ""  # why no period is left to resolve (a campaign that has ended); "" while it goes on

    def already_resolved(self) -> str:
        """Why nothing is to be done because this period is resolved, or the campaign over ("" if neither)."""
        if self.finished:
            return self.finished
        if self.last_resolved >= self.period:
            return f"{self.unit} {self.period} was already resolved (last_resolved_{self.unit} is {self.last_resolved})"
        return ""

    def waiting(self, now: datetime) -> str:
        """Why the period is not due at `now` ("" when it is); a paused turn never waits for its deadline."""
        return "" if self.phase else self.schedule.waiting(now, self.unit)

    def set_period(self, draft: Draft, period: int, cause: str) -> None:
        """Write the period the next run resolves (the first ledger key)."""
        _set_period(draft, self.keys[0], period, cause)

    def set_last(self, draft: Draft, period: int, cause: str) -> None:
        """Write the last period resolved (the second ledger key)."""
        _set_period(draft, self.keys[1], period, cause)


def _set_period(draft: Draft, key: str, number: int, cause: str) -> None:
    """A ledger key of the Game tab set to a period, as a number; one that already reads as it (a GM's "3"
    typed as text) is left alone, so that a run writes no History row that changes nothing a reader sees."""
    if str(draft.get("Game", key, "Value")).strip() != str(number):
        draft.set("Game", key, "Value", number, cause)


def nothing_to_do(reason: str) -> str:
    """The headline of a run that did nothing."""
    return f"Nothing to do: {reason}."


def paused(unit: str, period: int, waiting_for: str) -> str:
    """The headline of a run that stopped for the GM."""
    return f"{unit.capitalize()} {period} paused: waiting for {waiting_for}."
