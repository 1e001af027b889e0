"""The Google Sheets scenarios behind the cassettes: recorded once, replayed by the tests.

Each scenario lays a campaign out (unrecorded), then runs one action through the store (recorded).
The recorder runs them against the stand-in or a real spreadsheet (`Env`); the tests run the same
action, or the CLI command that makes the same requests, against the cassette.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from sheets_engine import app
from sheets_engine.stores.base import CellWrite, RawTab, Store, StoreError
from sheets_engine.stores.guard import ConflictError, column_letter
from sheets_engine.stores.memory import MemoryStore
from sheets_engine.stores.transfer import copy_campaign
from sheets_engine.stores.xlsx import WorkbookStore
from tests.standin.campaigns import demo_tabs, scaled_demo
from tests.standin.keys import TEST_ACCOUNT

# The spreadsheets of the cassettes (a real recording maps its own keys onto these).
KEY = "1SengokuDemoCampaignStandInKey000000000000"
PRIVATE_KEY = "1NotSharedWithTheServiceAccount00000000000"
MISSING_KEY = "1NoSuchSpreadsheetAnywhere0000000000000000"
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
FORMULA_LETTER = '=IMPORTRANGE("1AbCdEf","Clans!A1:C9") and the fleet sails at dawn'


class Env(Protocol):
    """Where a scenario runs: the stand-in or Google while recording, a cassette while replaying."""

    tmp: Path

    def store(self, key: str = KEY) -> Any:
        """A fresh GoogleSheetsStore (its own token request) for a spreadsheet."""
        ...

    def gm_edit(self, key: str, a1: str, value: Any) -> None:
        """A GM's edit behind the engine's back (not recorded; nothing to do on replay)."""
        ...

    def fail(self, status: int, endpoint: str, times: int = 1) -> None:
        """Make the next request to `endpoint` fail (the stand-in only; nothing to do on replay)."""
        ...


@dataclass(frozen=True)
class Scenario:
    """A cassette: the campaign laid out before recording, and the recorded action."""

    name: str
    summary: str
    run: Callable[[Env], Any]
    tabs: Callable[[], dict[str, list[list[Any]]]] | None = demo_tabs  # None: a blank new spreadsheet
    key: str = KEY
    stand_in_only: bool = False  # needs a failure Google cannot be asked for
    gzipped: bool = False
    prepare: Callable[[Any], None] | None = None  # sets the stand-in up (FakeSheets) before recording


class EditAfterRead:
    """A store whose first read is followed by a GM's edit: the race the guard exists for."""

    def __init__(self, store: Any, edit: Callable[[], None]) -> None:
        self.store, self.edit, self.name = store, edit, store.name

    def exists(self) -> bool:
        """As the wrapped store."""
        return bool(self.store.exists())

    def read(self, headers_only: Any = (), only: Any = None) -> dict[str, RawTab]:
        """Read, then let the GM type."""
        raw = self.store.read(headers_only=headers_only, only=only)
        self.edit()
        return raw  # type: ignore[no-any-return]

    def write(self, cells: list[CellWrite]) -> None:
        """As the wrapped store (whose guard sees the edit)."""
        self.store.write(cells)

    def create(self, tabs: dict[str, list[list[Any]]], overwrite: bool = False, choices: Any = ()) -> None:
        """As the wrapped store."""
        self.store.create(tabs, overwrite, choices)


def first_change(tabs: dict[str, list[list[Any]]]) -> tuple[str, int, int, Any]:
    """The first existing cell a resolve of these tabs overwrites: (tab, row, column, value read)."""
    campaign = app.open_campaign(MemoryStore(tabs))
    report = app.resolve(MemoryStore(tabs), dry_run=True, now=NOW)
    for change in report.changes:
        row = campaign.state.rows[change.tab].get(change.key)
        if row is not None:
            layout = campaign.state.layouts[change.tab]
            return layout.title, row, layout.columns[change.column], change.old
    raise AssertionError("the resolve changes no existing cell")


def _resolve(env: Env) -> Any:
    return app.resolve(env.store(), now=NOW)


def _conflict(env: Env) -> Any:
    tab, row, column, old = first_change(demo_tabs())
    edited = f"{old} (edited by a GM)" if isinstance(old, str) else (old or 0) + 1000
    a1 = f"'{tab}'!{column_letter(column)}{row}"
    store = env.store()
    try:
        app.resolve(EditAfterRead(store, lambda: env.gm_edit(KEY, a1, edited)), now=NOW)
    except ConflictError as error:
        return error, store
    raise AssertionError("the GM's edit went unnoticed")


def _retry(env: Env) -> Any:
    env.fail(429, ":getByDataFilter")  # the read: sent again after a wait
    env.fail(503, ":batchUpdate")  # the write: read back (not applied), then sent again
    store = env.store()
    return app.resolve(store, now=NOW), store


def _formula_tabs() -> dict[str, list[list[Any]]]:
    tabs = demo_tabs()
    header = tabs["Form Responses 1"][0]
    letter = next(r for r in tabs["Form Responses 1"][1:] if r[header.index("Order")] == "write-letter")
    letter[header.index("Detail")] = FORMULA_LETTER
    return tabs


def _formula(env: Env) -> Any:
    store = env.store()
    report = app.resolve(store, now=NOW)
    return report, store, store.read()  # read it back: the letter must come back as the same text


def _expect_store_error(key: str) -> Callable[[Env], Any]:
    def run(env: Env) -> Any:
        try:
            app.validate(env.store(key))
        except StoreError as error:
            return error
        raise AssertionError("expected a StoreError")

    return run


def _missing_tab() -> dict[str, list[list[Any]]]:
    tabs = demo_tabs()
    del tabs["Armies"]
    return tabs


def _pull(env: Env) -> Any:
    target = env.tmp / "pulled.xlsx"
    copy_campaign(env.store(), WorkbookStore(target))
    return target


def _push(env: Env) -> Any:
    source: Store = WorkbookStore(env.tmp / "campaign.xlsx")
    source.create(demo_tabs(), overwrite=True)
    store = env.store()
    copy_campaign(source, store, choices=app.ruleset_choices)  # as `sheets-engine push` does
    return store


def _init(env: Env) -> Any:
    store = env.store()
    app.init(store, demo=True)
    return store


FORM_HEADER = ["Timestamp", "Email Address", "Character", "Order", "Target", "Detail", "Secret"]


def _init_empty(env: Env) -> Any:
    store = env.store()
    app.init(store)
    return store


SCENARIOS = {
    s.name: s
    for s in (
        Scenario("init_demo", "init --demo lays the demo out in a new spreadsheet", _init, tabs=None),
        Scenario("init_after_form", "init keeps the tab a linked Google Form made", _init_empty,
                 tabs=lambda: {"Sheet1": [], "Form Responses 1": [FORM_HEADER]}),
        Scenario("resolve_demo", "a full resolve of the demo campaign", _resolve),
        Scenario("resolve_demo_x10", "a resolve of the demo with 10x its provinces", _resolve, lambda: scaled_demo(10)),
        Scenario(
            "resolve_demo_x100",
            "a resolve of the demo with 100x its provinces",
            _resolve,
            lambda: scaled_demo(100),
            gzipped=True,
        ),
        Scenario("conflict", "a GM edits a cell the resolve is about to overwrite", _conflict),
        Scenario("retry", "a 429 on the read, and a 503 on the write read back and sent again", _retry,
                 stand_in_only=True),
        Scenario("formula_letter", "a letter that starts with = is written and read back", _formula, _formula_tabs),
        Scenario("forbidden", "a spreadsheet not shared with the account", _expect_store_error(PRIVATE_KEY),
                 tabs=None, key=PRIVATE_KEY),
        Scenario("not_found", "a key no spreadsheet has", _expect_store_error(MISSING_KEY), tabs=None,
                 key=MISSING_KEY),
        Scenario("revoked_key", "Google refuses the service account's key", _expect_store_error(KEY),
                 stand_in_only=True, prepare=lambda fake: fake.revoked.add(TEST_ACCOUNT)),
        Scenario("missing_tab", "a campaign without its Armies tab", lambda env: app.validate(env.store()),
                 _missing_tab),
        Scenario("pull_demo", "pull: the spreadsheet copied into a workbook", _pull),
        Scenario("push_demo", "push: a workbook copied into a new spreadsheet", _push, tabs=None),
    )
}  # fmt: skip
