"""The service layer: read once, check, run a ruleset's pure function, write once.

The CLI calls these; they never print. Errors come back as exceptions the CLI turns into one
clear line and an exit code.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sheets_engine.core.load import load_state
from sheets_engine.core.problems import InvalidCampaign, Problem, Severity
from sheets_engine.core.ruleset import Outcome, Ruleset, detect_ruleset, get_ruleset
from sheets_engine.core.tables import Change, GameState
from sheets_engine.core.writeset import Stamp, cell_writes, final_changes, history_rows
from sheets_engine.stores import open_store
from sheets_engine.stores.base import Store, StoreError
from sheets_engine.templates import template_tabs


@dataclass(frozen=True)
class Campaign:
    """A campaign as read from its store, typed, with every problem found."""

    store: Store
    ruleset: Ruleset
    state: GameState
    problems: list[Problem]

    @property
    def errors(self) -> list[Problem]:
        """The problems that stop a run (warnings do not)."""
        return [p for p in self.problems if p.severity is Severity.ERROR]


@dataclass(frozen=True)
class Report:
    """What a run changed (or would change, on a dry run)."""

    changes: list[Change]
    history: list[dict[str, Any]]
    logs: dict[str, list[dict[str, Any]]]
    cells_written: int
    dry_run: bool
    summary: dict[str, Any] = field(default_factory=dict)
    resolution: str = ""


def open_campaign(source: str | Store) -> Campaign:
    """Read every tab once and check it all."""
    store = open_store(source) if isinstance(source, str) else source
    raw = store.read()
    try:
        ruleset = get_ruleset(detect_ruleset(raw))
    except KeyError as error:
        raise StoreError(str(error.args[0])) from error
    state, problems = load_state(raw, ruleset.tabs)
    # Cross-references need every tab and column; bad cells alone do not stop them, so one run
    # lists every problem. (Rows with a bad cell are left out of the checks, their names kept.)
    if not any(p.severity is Severity.ERROR and p.row in (None, 1) for p in problems):
        problems += ruleset.check(state)
    return Campaign(store, ruleset, state, problems)


def validate(source: str | Store) -> list[Problem]:
    """Every problem in the campaign (errors and warnings)."""
    return open_campaign(source).problems


def recalc(source: str | Store, dry_run: bool = False, now: datetime | None = None) -> Report:
    """Recompute the derived columns; write the changed cells and their History rows."""
    campaign = _checked(source)
    return _commit(campaign, campaign.ruleset.recalc(campaign.state), dry_run, now)


def resolve(source: str | Store, dry_run: bool = False, now: datetime | None = None, force: bool = False) -> Report:
    """Resolve the Game tab's turn; write everything it changed in one write.

    A turn already resolved, or one not yet due (min_hours_between_turns), is left alone: the
    report's summary says why, and nothing is written. `force` skips only the wait.
    """
    campaign = _checked(source)
    moment = now or datetime.now(UTC)
    return _commit(campaign, campaign.ruleset.resolve(campaign.state, moment, force), dry_run, moment)


def init(target: str | Store, demo: bool = False, force: bool = False, ruleset: str = "sengoku") -> None:
    """Lay out a new campaign from the templates (the demo campaign with `demo`)."""
    store = open_store(target) if isinstance(target, str) else target
    store.create(template_tabs(get_ruleset(ruleset), demo=demo), overwrite=force)


def _checked(source: str | Store) -> Campaign:
    campaign = open_campaign(source)
    if campaign.errors:
        raise InvalidCampaign(campaign.problems)
    return campaign


def _commit(campaign: Campaign, outcome: Outcome, dry_run: bool, now: datetime | None) -> Report:
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    resolution = uuid.uuid4().hex[:12]
    stamp = Stamp(outcome.turn, resolution, moment.strftime("%Y-%m-%d %H:%M:%S"))
    changes = final_changes(outcome.changes)
    history = history_rows(outcome.state, changes, stamp)
    logs = {tab: rows for tab, rows in outcome.logs.items() if rows}
    if history:
        logs["History"] = history
    writes = cell_writes(outcome.state, changes, logs)
    if writes and not dry_run:
        campaign.store.write(writes)
    return Report(changes, history, logs, len(writes), dry_run, outcome.summary, resolution)
