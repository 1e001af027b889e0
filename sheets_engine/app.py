"""The service layer: the unit of work (`Run`) and the commands that need nothing more than it.

A `Run` is one command's work on a campaign: it takes the store's lock once, reads once (keeping the
raw tabs, the log tabs whole when asked, and the formulas), types and checks the campaign when
asked, and writes once through `commit(outcome)`, which fits every cell to the store's limit,
refuses to replace a GM's formula, and writes the History rows. Every command that writes goes
through one (resolve, recalc, rollback, check, archive, notify, remind, form sync, map
--save-layout). The CLI calls these; they never print. Errors come back as exceptions the CLI turns
into one clear line and an exit code.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, tzinfo
from types import TracebackType
from typing import Any

from sheets_engine.core.deadlines import time_zone
from sheets_engine.core.grid import CellEdit, Grid
from sheets_engine.core.history import Stamp, history_record, history_rows, period_rows
from sheets_engine.core.lifecycle import RunStatus
from sheets_engine.core.load import layouts, load_state, named_by_key, norm
from sheets_engine.core.problems import InvalidCampaign, Problem, Severity
from sheets_engine.core.ruleset import Outcome, Ruleset, SetupError, detect_ruleset
from sheets_engine.core.store import cells_written
from sheets_engine.core.tables import Change, GameState, Layout
from sheets_engine.core.writeset import cell_writes, final_changes, fit_cells
from sheets_engine.rulesets import every_tab_name, get_ruleset
from sheets_engine.stores import open_store
from sheets_engine.stores.base import (
    CellWrite,
    Choice,
    Formula,
    RawTab,
    RowsAppended,
    Store,
    StoreError,
    Write,
    as_cells,
)
from sheets_engine.templates import template_tabs

# A resolution appends to History and never reads it back; History grows every turn. Notifications and
# Battles are read whole: a GM adds rows there (a notice with no Turn, a formula filled down a column of
# their own), and the light read's length (column A on Google, any formula in a workbook) is not the
# full read's; the turn's rows would be refused as a conflict or land far below the last one.
APPEND_ONLY = ("History",)


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


def campaign_tabs() -> list[str]:
    """Every tab some ruleset reads: a workbook's other tabs (a GM's own) are never read."""
    return every_tab_name()


def read_tabs(store: Store, headers_only: Collection[str] = ()) -> dict[str, RawTab]:
    """The campaign's tabs in one read, a GM's own tabs left unread (the tabs named in `headers_only`
    with their header and length only)."""
    return store.read(headers_only=headers_only, only=campaign_tabs())


class Run:
    """One unit of work on a campaign: the lock taken once, one read, and the writes through `commit`.

    Use as a context manager: `with Run(source, "resolve") as run: run.commit(rules(run.campaign().state))`.

    - `dry_run`: nothing is written (a commit reports what it would write) and no lock is taken;
      `read_only`: a command that never writes (report, map), no lock either.
    - `whole`: log tabs read whole besides the ones always read whole (History is read as its header
      and length unless named here: a resolution only appends to it).
    - `tabs`: the tabs to read (default every tab some ruleset reads; a GM's own tabs never).
    - `now`: the clock of the run (default the system's); a time without a zone is the campaign's.
    - `overwrite_formulas`: a commit may replace a GM's formula with a value (else it refuses, naming them).
    """

    def __init__(
        self,
        source: str | Store,
        command: str,
        *,
        dry_run: bool = False,
        read_only: bool = False,
        whole: Collection[str] = (),
        tabs: Collection[str] | None = None,
        now: datetime | None = None,
        overwrite_formulas: bool = False,
    ) -> None:
        self.store: Store = open_store(source) if isinstance(source, str) else source
        self.command = command
        self.dry_run, self.read_only = dry_run, read_only
        self.whole = {norm(name) for name in whole}
        self.tabs = tabs
        self.now = now
        self.overwrite_formulas = overwrite_formulas
        self._stack = ExitStack()
        self._raw: dict[str, RawTab] | None = None
        self._ruleset: Ruleset | None = None
        self._typed: Campaign | None = None
        self._rows_dropped = False  # the typed tabs' raw rows released once the campaign is typed

    # the lock and the read ---------------------------------------------------------------------
    def __enter__(self) -> Run:
        lock = getattr(self.store, "lock", None)
        if lock is not None and not (self.dry_run or self.read_only):
            # two runs never both write: the second raises CampaignBusy here, before reading
            self._stack.enter_context(lock(f"sheets-engine {self.command}"))
        try:
            self.read()
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._stack.close()

    def read(self) -> dict[str, RawTab]:
        """Read the campaign (again, under the same lock: what a Form wrote until it closed)."""
        headers_only = tuple(tab for tab in APPEND_ONLY if norm(tab) not in self.whole)
        only = list(self.tabs) if self.tabs is not None else campaign_tabs()
        self._raw = self.store.read(headers_only=headers_only, only=only)
        self._typed = None
        self._ruleset = None
        self._rows_dropped = False
        return self._raw

    @property
    def raw(self) -> dict[str, RawTab]:
        """The tabs as read."""
        if self._raw is None:
            raise RuntimeError("a Run reads when entered: use it as `with Run(...) as run`")
        return self._raw

    def tab(self, name: str) -> RawTab | None:
        """One tab as read (its title in any case), if the campaign has it."""
        return next((tab for title, tab in self.raw.items() if norm(title) == norm(name)), None)

    @property
    def ruleset(self) -> Ruleset:
        """The ruleset the campaign names (its Game key `ruleset`); StoreError for one the engine does not know."""
        if self._ruleset is None:
            try:
                self._ruleset = get_ruleset(detect_ruleset(self.raw))
            except KeyError as error:
                raise StoreError(str(error.args[0])) from error
        return self._ruleset

    def campaign(self, checked: bool = True) -> Campaign:
        """The campaign typed by its ruleset's tabs, with every problem; InvalidCampaign on an error when `checked`."""
        if self._typed is None:
            raw, ruleset = self.raw, self.ruleset
            state, problems = load_state(raw, ruleset.tabs)
            # Cross-references need every tab and column; bad cells alone do not stop them, so one run
            # lists every problem. (Rows with a bad cell are left out of the checks, their names kept.)
            if not any(p.severity is Severity.ERROR and p.row in (None, 1) for p in problems):
                problems += ruleset.check(state)
            problems = named_by_key(problems, state)
            formulas = {(tab.title, r, c): f for tab in raw.values() for (r, c), f in tab.formulas.items()}
            self._typed = Campaign(self.store, ruleset, state, problems, formulas)
            # the typed tabs' rows are the state's now: their raw cells go (7 MB at 10,000 provinces);
            # the log tabs' stay (log_rows), Game's (the run's time zone), and every tab's header, length and
            # formulas (what the commit needs)
            typed = {norm(spec.name) for spec in ruleset.tabs if not spec.log and norm(spec.name) != "game"}
            self._raw = {t: replace(tab, rows=[]) if norm(t) in typed else tab for t, tab in raw.items()}
            self._rows_dropped = True
        if checked and self._typed.errors:
            raise InvalidCampaign(self._typed.problems)
        return self._typed

    def log_rows(self, tab: str) -> list[dict[str, Any]]:
        """A log tab's rows as read (name it in `whole` for History), by the contract's headers."""
        found = self.tab(tab)
        if found is None:
            return []
        spec = next((s for s in self.ruleset.tabs if norm(s.name) == norm(tab)), None)
        headers = spec.columns if spec is not None else tuple(str(h) for h in found.header if norm(h))
        where = {norm(h): i for i, h in enumerate(found.header)}
        at = [(h, where.get(norm(h))) for h in headers]
        return [{h: cells[i] if i is not None and i < len(cells) else None for h, i in at} for _, cells in found.rows]

    def grid(self) -> Grid:
        """The tabs as read, to edit cells as the sheet holds them (core.grid): before the campaign is typed,
        which releases the typed tabs' raw rows."""
        if self._rows_dropped:
            raise RuntimeError("a grid edits the cells as read: take it before typing the campaign")
        return Grid(self.raw, self.ruleset.tabs)

    @property
    def moment(self) -> datetime:
        """The run's clock, with a zone: a time given without one is in the campaign's `time_zone`."""
        moment = self.now or datetime.now(UTC)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=_campaign_zone(self.raw))
        return moment

    # the one write ------------------------------------------------------------------------------
    def commit(self, outcome: Outcome) -> Report:
        """Write what a run did, in one write: its changed cells, its cell edits, its log rows and a History
        row for each changed cell (the Resolution a new run id). Every text within the store's cell limit;
        a cell holding a GM's formula refuses the whole write (InvalidCampaign naming each one) unless the
        run may overwrite formulas. A dry run writes nothing and reports the same."""
        if self.read_only:
            raise RuntimeError(f"{self.command} reads only: it commits nothing")
        moment = self.moment.astimezone(UTC)
        resolution = uuid.uuid4().hex[:12]
        stamp = Stamp(outcome.turn, resolution, moment.strftime("%Y-%m-%d %H:%M:%S"), outcome.step)
        changes = final_changes(outcome.changes)
        # a run that played on through a period's close: each period's rows under a run id of its own
        history = period_rows(outcome, stamp) if outcome.periods else history_rows(outcome.state, changes, stamp)
        edited = [e for e in outcome.cells if e.cause]
        history += [history_record(stamp, e.tab, e.key, e.column, e.old, e.new, e.cause) for e in edited]
        logs = {tab: rows for tab, rows in outcome.logs.items() if rows}
        if history:
            logs["History"] = history
        state = outcome.state
        if any(tab not in state.layouts for tab in logs):  # cells alone (a rollback): History's place from the read
            state = replace(state, layouts={**self._layouts(), **state.layouts})
        writes: list[Write] = [_cell_write(e) for e in outcome.cells]
        writes += cell_writes(state, changes, logs)
        writes = fit_cells(writes, getattr(self.store, "cell_limit", None))
        if not self.overwrite_formulas:
            replaced = self._formulas_replaced(writes, state.layouts)
            if replaced:
                raise InvalidCampaign(replaced)
        if writes and not self.dry_run:
            self.store.write(writes)
        done = changes + [Change(e.tab, e.key, e.column, e.old, e.new, e.cause) for e in edited]
        return Report(done, history, logs, cells_written(writes), self.dry_run, outcome.summary, resolution,
                      outcome.status, outcome.headline)  # fmt: skip

    def delete_rows(self, title: str, first: int, last: int) -> None:
        """Delete rows first..last of a log tab (`archive`): on Google a guarded row deletion that frees
        their cells; elsewhere the rows below are moved up, in one write."""
        tab = self.tab(title)
        if tab is None:
            raise StoreError(f"{self.store.name} has no {title} tab")
        width = len([h for h in tab.header if norm(h)])
        remove = getattr(self.store, "remove_rows", None)
        if remove is not None:
            remove(tab.title, first, last, width)
            return
        grid = Grid(self.raw)
        shift = last - first + 1
        now = {(r, c): v for r, cells in tab.rows for c, v in enumerate(cells, start=1) if v not in (None, "")}
        after = {(r - shift, c): v for (r, c), v in now.items() if r > last}
        for row, column in sorted(now.keys() | after.keys()):
            if row >= first:
                grid.set(tab.title, row, column, after.get((row, column), ""))
        self.commit(Outcome.of_cells(grid.edits(), 0, {}, step=self.command))

    def _layouts(self) -> dict[str, Layout]:
        return layouts(self.raw, self.ruleset.tabs)

    def _formulas_replaced(self, writes: list[Write], where: Mapping[str, Layout]) -> list[Problem]:
        """A problem for every GM formula the writes would replace with a value."""
        formulas = {(tab.title, r, c): f for tab in self.raw.values() for (r, c), f in tab.formulas.items()}
        if not formulas:
            return []
        names = {
            layout.title: (tab, {i: column for column, i in layout.columns.items()}) for tab, layout in where.items()
        }
        tabs = {tab for tab, _, _ in formulas}
        # appended rows land below a tab's last row, where a formula is rare: expanded only where there are some
        near = [w for w in writes if not isinstance(w, RowsAppended) or w.tab in tabs]
        found = []
        for write in as_cells(near):
            formula = formulas.get((write.tab, write.row, write.column))
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


def _cell_write(edit: CellEdit) -> CellWrite:
    return CellWrite(edit.title, edit.row, edit.index, "" if edit.new is None else edit.new)


def _campaign_zone(raw: Mapping[str, RawTab]) -> tzinfo:
    """The Game key time_zone as read (UTC when the campaign has none or one no zone has: the checks say so)."""
    game = next((tab for title, tab in raw.items() if norm(title) == "game"), None)
    rows = game.rows if game is not None else []
    named = next((cells[1] for _, cells in rows if len(cells) > 1 and norm(cells[0]) == "time_zone"), None)
    try:
        return time_zone(str(named or "").strip())
    except ValueError:
        return UTC


@contextmanager
def reading(source: str | Store, command: str, **options: Any) -> Iterator[Run]:
    """A Run that only reads (report, map, history): no lock, no write."""
    with Run(source, command, read_only=True, **options) as run:
        yield run


# the commands ------------------------------------------------------------------------------------
def open_campaign(source: str | Store) -> Campaign:
    """Read every tab once and check it all (a campaign with errors is returned with them)."""
    with reading(source, "validate") as run:
        return run.campaign(checked=False)


def validate(source: str | Store) -> list[Problem]:
    """Every problem in the campaign (errors and warnings)."""
    return open_campaign(source).problems


def recalc(
    source: str | Store, dry_run: bool = False, now: datetime | None = None, overwrite_formulas: bool = False
) -> Report:
    """Recompute the derived columns; write the changed cells and their History rows."""
    with Run(source, "recalc", dry_run=dry_run, now=now, overwrite_formulas=overwrite_formulas) as run:
        campaign = run.campaign()
        return run.commit(campaign.ruleset.recalc(campaign.state))


def resolve(
    source: str | Store,
    dry_run: bool = False,
    now: datetime | None = None,
    force: bool = False,
    overwrite_formulas: bool = False,
    forms: Callable[[], Any] | None = None,
    empty: bool = False,
) -> Report:
    """Resolve the Game tab's turn; write everything it changed in one write.

    A turn already resolved, or one not yet due (its deadline, or the ruleset's own wait when the
    campaign has none), is left alone: the report's summary says why, and nothing is written. `force`
    skips only the wait, and takes this moment as the cutoff for form responses; a forced turn that would
    settle no order at all raises core.turn.EmptyTurn (nothing written) unless `empty`. `now` is the clock
    (default: the system's); a time without a zone is in the campaign's `time_zone`. A cell about
    to be written that holds a GM's formula stops the run (InvalidCampaign naming each cell, nothing
    written) unless `overwrite_formulas`.

    With a Game key `form_id`, a due turn closes that Google Form to responses first (`forms` makes
    the Forms client), reads the sheet again (answers sent until the close are in), resolves, writes,
    and opens the Form again; the report's `form` says what happened. A campaign without one, a dry
    run, or a turn not due makes no Forms request.
    """
    with Run(source, "resolve", dry_run=dry_run, now=now, overwrite_formulas=overwrite_formulas) as run:
        campaign = run.campaign()
        moment = run.moment
        outcome = campaign.ruleset.resolve(campaign.state, moment, force, empty)
        form_id = str(campaign.state.game("form_id", "") or "").strip()
        if not form_id or dry_run or outcome.status is RunStatus.NOTHING:
            return run.commit(outcome)
        from sheets_engine.stores.gforms import FormGate

        gate = FormGate(form_id, forms)
        gate.close()
        try:
            run.read()  # the second read: what the Form wrote until it closed
            campaign = run.campaign()
            report = run.commit(campaign.ruleset.resolve(campaign.state, moment, force, empty))
        finally:
            gate.reopen()  # also when the write failed: the turn is not resolved, players may still send
        return replace(report, form={"form_id": form_id, **gate.events})


def check(source: str | Store, now: datetime | None = None) -> Report:
    """Before the deadline: the ruleset's preview of every pending order (its Result "Check: ..."), written in
    one write with the form responses it copied. Holds the campaign's lock like a resolution; writes nothing
    when nothing changed (safe from cron). StoreError for a ruleset that has no check."""
    with Run(source, "check", now=now) as run:
        campaign = run.campaign()
        preview = campaign.ruleset.preview
        if preview is None:
            raise StoreError(f"check is not supported for the {campaign.ruleset.title} ruleset")
        return run.commit(preview(campaign.state, run.moment))


def rollback(source: str | Store, turn: int, dry_run: bool = False, now: datetime | None = None) -> Report:
    """Put the campaign back as it was before `turn` resolved, from History (see sheets_engine.rollback).

    Needs no valid campaign (it is how a GM undoes a bad turn), only History and the tabs it names.
    A cell restored is restored whatever it holds now, a formula typed since included (the cells edited
    since are listed in the summary's `edited`). Raises RollbackError when the campaign cannot be
    rolled back as asked; nothing is written then.
    """
    from sheets_engine.rollback import plan_rollback

    with Run(source, "rollback", dry_run=dry_run, now=now, whole=APPEND_ONLY, overwrite_formulas=True) as run:
        ruleset = run.ruleset
        return run.commit(plan_rollback(run.raw, ruleset.tabs, turn, ruleset.ledger_keys).outcome())


def init(
    target: str | Store,
    demo: bool = False,
    force: bool = False,
    ruleset: str | None = None,
    options: dict[str, Any] | None = None,
) -> int:
    """Lay out a new campaign from the templates (the demo campaign with `demo`); the tab count.

    `ruleset` is a registered ruleset's name (default: the registry's). `options` are the ruleset's own
    `init` options (The Art of War's houses, seed...); one the ruleset does not take raises SetupError,
    as does a value it cannot use.
    """
    chosen = get_ruleset(ruleset or "")
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
