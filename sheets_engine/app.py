"""The service layer: read once, check, run a ruleset's pure function, write once.

The CLI calls these; they never print. Errors come back as exceptions the CLI turns into one
clear line and an exit code.
"""

from __future__ import annotations

import inspect
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, tzinfo
from typing import Any

from sheets_engine.core.deadlines import time_zone
from sheets_engine.core.lifecycle import RunStatus
from sheets_engine.core.load import load_state
from sheets_engine.core.problems import InvalidCampaign, Problem, Severity
from sheets_engine.core.ruleset import Outcome, Ruleset, SetupError, detect_ruleset
from sheets_engine.core.store import cells_written
from sheets_engine.core.tables import Change, GameState
from sheets_engine.core.writeset import Stamp, cell_writes, final_changes, fit_cells, history_rows
from sheets_engine.rulesets import every_tab_name, get_ruleset
from sheets_engine.stores import open_store
from sheets_engine.stores.base import Choice, Formula, RawTab, RowsAppended, Store, StoreError, as_cells
from sheets_engine.templates import template_tabs


@dataclass(frozen=True)
class Campaign:
    """A campaign as read from its store, typed, with every problem found."""

    store: Store
    ruleset: Ruleset
    state: GameState
    problems: list[Problem]
    formulas: dict[tuple[str, int, int], Formula] = field(default_factory=dict)  # (tab title, row, column)

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
    status: RunStatus = RunStatus.RESOLVED
    headline: str = ""  # how the run ended, for the CLI to print as given
    form: dict[str, Any] = field(default_factory=dict)  # the Form closed/reopened around the run, and errors


# A resolution appends to History and never reads it back; History grows every turn. Notifications and
# Battles are read whole: a GM adds rows there (a notice with no Turn, a formula filled down a column of
# their own), and the light read's length (column A on Google, any formula in a workbook) is not the
# full read's; the turn's rows would be refused as a conflict or land far below the last one.
APPEND_ONLY = ("History",)


def campaign_tabs() -> list[str]:
    """Every tab some ruleset reads: a workbook's other tabs (a GM's own) are never read."""
    return every_tab_name()


def read_tabs(store: Store, headers_only: tuple[str, ...] = ()) -> dict[str, RawTab]:
    """The campaign's tabs, leaving a GM's own tabs unread when the store can (`only`).

    A store whose read() predates `only` (a wrapper in a test, a store of one's own) reads every tab.
    """
    try:
        takes_only = "only" in inspect.signature(store.read).parameters
    except (TypeError, ValueError):
        takes_only = False
    if takes_only:
        return store.read(headers_only=headers_only, only=campaign_tabs())
    return store.read(headers_only=headers_only) if headers_only else store.read()


def open_campaign(source: str | Store) -> Campaign:
    """Read every tab once and check it all."""
    store = open_store(source) if isinstance(source, str) else source
    raw = read_tabs(store, headers_only=APPEND_ONLY)
    try:
        ruleset = get_ruleset(detect_ruleset(raw))
    except KeyError as error:
        raise StoreError(str(error.args[0])) from error
    state, problems = load_state(raw, ruleset.tabs)
    # Cross-references need every tab and column; bad cells alone do not stop them, so one run
    # lists every problem. (Rows with a bad cell are left out of the checks, their names kept.)
    if not any(p.severity is Severity.ERROR and p.row in (None, 1) for p in problems):
        problems += ruleset.check(state)
    formulas = {(tab.title, row, column): f for tab in raw.values() for (row, column), f in tab.formulas.items()}
    return Campaign(store, ruleset, state, problems, formulas)


def validate(source: str | Store) -> list[Problem]:
    """Every problem in the campaign (errors and warnings)."""
    return open_campaign(source).problems


def recalc(
    source: str | Store, dry_run: bool = False, now: datetime | None = None, overwrite_formulas: bool = False
) -> Report:
    """Recompute the derived columns; write the changed cells and their History rows."""
    store = _store(source)
    with exclusive(store, "recalc", dry_run):
        campaign = _checked(store)
        return _commit(campaign, campaign.ruleset.recalc(campaign.state), dry_run, now, overwrite_formulas)


def resolve(
    source: str | Store,
    dry_run: bool = False,
    now: datetime | None = None,
    force: bool = False,
    overwrite_formulas: bool = False,
    forms: Callable[[], Any] | None = None,
) -> Report:
    """Resolve the Game tab's turn; write everything it changed in one write.

    A turn already resolved, or one not yet due (its deadline, or min_hours_between_turns when the
    campaign has none), is left alone: the report's summary says why, and nothing is written. `force`
    skips only the wait, and takes this moment as the cutoff for form responses. `now` is the clock
    (default: the system's); a time without a zone is in the campaign's `time_zone`. A cell about
    to be written that holds a GM's formula stops the run (InvalidCampaign naming each cell, nothing
    written) unless `overwrite_formulas`.

    With a Game key `form_id`, a due turn closes that Google Form to responses first (`forms` makes
    the Forms client), reads the sheet again (answers sent until the close are in), resolves, writes,
    and opens the Form again; the report's `form` says what happened. A campaign without one, a dry
    run, or a turn not due makes no Forms request.
    """
    store = _store(source)
    with exclusive(store, "resolve", dry_run):
        campaign = _checked(store)
        moment = now or datetime.now(UTC)
        if moment.tzinfo is None:  # a time given without a zone is the campaign's (where its deadline is)
            moment = moment.replace(tzinfo=_campaign_zone(campaign.state))
        outcome = campaign.ruleset.resolve(campaign.state, moment, force)
        form_id = str(campaign.state.game("form_id", "") or "").strip()
        if not form_id or dry_run or outcome.status is RunStatus.NOTHING:
            return _commit(campaign, outcome, dry_run, moment, overwrite_formulas)
        from sheets_engine.stores.gforms import FormGate

        gate = FormGate(form_id, forms)
        gate.close()
        try:
            campaign = _checked(store)  # the second read: what the Form wrote until it closed
            outcome = campaign.ruleset.resolve(campaign.state, moment, force)
            report = _commit(campaign, outcome, dry_run, moment, overwrite_formulas)
        finally:
            gate.reopen()  # also when the write failed: the turn is not resolved, players may still send
        return replace(report, form={"form_id": form_id, **gate.events})


def rollback(source: str | Store, turn: int, dry_run: bool = False, now: datetime | None = None) -> Report:
    """Put the campaign back as it was before `turn` resolved, from History (see sheets_engine.rollback).

    Needs no valid campaign (it is how a GM undoes a bad turn), only History and the tabs it names.
    Raises RollbackError when the campaign cannot be rolled back as asked; nothing is written then.
    """
    from sheets_engine.rollback import plan_rollback

    store = _store(source)
    with exclusive(store, "rollback", dry_run):
        raw = read_tabs(store)
        try:
            ruleset = get_ruleset(detect_ruleset(raw))
        except KeyError as error:
            raise StoreError(str(error.args[0])) from error
        moment = (now or datetime.now(UTC)).astimezone(UTC)
        stamp = Stamp(turn, uuid.uuid4().hex[:12], moment.strftime("%Y-%m-%d %H:%M:%S"), "rollback")
        plan = plan_rollback(raw, ruleset.tabs, turn, stamp, ruleset.ledger_keys)
        if plan.writes and not dry_run:
            store.write(plan.writes)
        logs = {"History": plan.history} if plan.history else {}
        summary = {**plan.summary, "edited": plan.edited}
        return Report(plan.changes, plan.history, logs, len(plan.writes), dry_run, summary, stamp.resolution)


def init(
    target: str | Store,
    demo: bool = False,
    force: bool = False,
    ruleset: str = "sengoku",
    options: dict[str, Any] | None = None,
) -> int:
    """Lay out a new campaign from the templates (the demo campaign with `demo`); the tab count.

    `options` are the ruleset's own `init` options (The Art of War's houses, seed...); one the
    ruleset does not take raises SetupError, as does a value it cannot use.
    """
    chosen = get_ruleset(ruleset)
    given = {k: v for k, v in (options or {}).items() if v is not None}
    foreign = sorted(set(given) - set(chosen.init_options))
    if foreign:
        flags = ", ".join("--" + name.replace("_", "-") for name in foreign)
        raise SetupError(f"{flags}: not an option of the {chosen.title} ruleset")
    store = open_store(target) if isinstance(target, str) else target
    tabs = template_tabs(chosen, demo=demo)
    if chosen.setup is not None:
        tabs = chosen.setup(tabs, given, demo)
    store.create(tabs, overwrite=force, choices=chosen.choices)
    return len(tabs)


def ruleset_choices(raw: dict[str, RawTab]) -> tuple[Choice, ...]:
    """The dropdown choices of the ruleset these tabs are played under (none for an unknown ruleset)."""
    try:
        return get_ruleset(detect_ruleset(raw)).choices
    except KeyError:
        return ()


@contextmanager
def exclusive(store: Store, command: str, dry_run: bool = False) -> Iterator[None]:
    """Hold the store's lock (if it has one) for a whole read-change-write, so that two runs never
    both write: the second one raises CampaignBusy. A dry run writes nothing and takes no lock."""
    lock = getattr(store, "lock", None)
    if lock is None or dry_run:
        yield
        return
    with lock(f"sheets-engine {command}"):
        yield


def _campaign_zone(state: GameState) -> tzinfo:
    try:
        return time_zone(str(state.game("time_zone", "") or ""))
    except ValueError:  # the checks have reported it already
        return UTC


def _store(source: str | Store) -> Store:
    return open_store(source) if isinstance(source, str) else source


def _checked(source: str | Store) -> Campaign:
    campaign = open_campaign(source)
    if campaign.errors:
        raise InvalidCampaign(campaign.problems)
    return campaign


def _commit(
    campaign: Campaign, outcome: Outcome, dry_run: bool, now: datetime | None, overwrite_formulas: bool = False
) -> Report:
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    resolution = uuid.uuid4().hex[:12]
    stamp = Stamp(outcome.turn, resolution, moment.strftime("%Y-%m-%d %H:%M:%S"), outcome.step)
    changes = final_changes(outcome.changes)
    history = history_rows(outcome.state, changes, stamp)
    logs = {tab: rows for tab, rows in outcome.logs.items() if rows}
    if history:
        logs["History"] = history
    writes = fit_cells(cell_writes(outcome.state, changes, logs), getattr(campaign.store, "cell_limit", None))
    if not overwrite_formulas:
        replaced = _formulas_replaced(campaign, writes)
        if replaced:
            raise InvalidCampaign(replaced)
    if writes and not dry_run:
        campaign.store.write(writes)
    n = cells_written(writes)
    return Report(changes, history, logs, n, dry_run, outcome.summary, resolution, outcome.status, outcome.headline)


def _formulas_replaced(campaign: Campaign, writes: list[Any]) -> list[Problem]:
    """A problem for every GM formula the writes would replace with a value."""
    if not campaign.formulas:
        return []
    names = {
        layout.title: (tab, {index: column for column, index in layout.columns.items()})
        for tab, layout in campaign.state.layouts.items()
    }
    found = []
    tabs = {tab for tab, _, _ in campaign.formulas}
    # appended rows land below a tab's last row, where a formula is rare: expanded only where there are some
    near = [w for w in writes if not isinstance(w, RowsAppended) or w.tab in tabs]
    for write in as_cells(near):
        formula = campaign.formulas.get((write.tab, write.row, write.column))
        if formula is None:
            continue
        tab, columns = names.get(write.tab, (write.tab, {}))
        found.append(
            Problem(
                tab,
                write.row,
                columns.get(write.column, str(write.column)),
                formula.text,
                f"a value the engine may change: this run would replace the formula with {write.value!r}; "
                "move the formula to a column of your own, or run again with --overwrite-formulas",
            )
        )
    return found
