"""`rollback --turn N`: the campaign as it was before turn N resolved, from History (issue 8).

The round trip is the contract: resolve turns 1, 2 and 3 of the demo (with `now` injected), roll
back to before turn 2, resolve 2 and 3 again, and every tab is as it was after the first run
(History apart, which keeps both runs and the rollback; ids and times apart).
"""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from openpyxl import load_workbook

from sheets_engine import app
from sheets_engine.cli import cli
from sheets_engine.rollback import RollbackError
from sheets_engine.stores.base import RawTab
from sheets_engine.stores.memory import MemoryStore
from sheets_engine.stores.xlsx import WorkbookStore
from tests.support import store as memory_campaign

NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
# Orders a GM typed for turns 2 and 3: a march into a battle, a letter (a row added to Letters),
# recruiting where no army stands (a row added to Armies), taxes and a building.
LATER_ORDERS = [
    (2, "narumi.holdout@example.com", "Okabe Motonobu", "lead-army", "Imagawa Main Host", "Mikawa"),
    (2, "kiyosu.fox@example.com", "Oda Nobunaga", "tax-province", "Owari", ""),
    (2, "sunpu.poet@example.com", "Imagawa Yoshimoto", "write-letter", "Oda", "Yield Mikawa."),
    (2, "patient.hostage@example.com", "Matsudaira Motoyasu", "recruit-levies", "Totomi", ""),
    (3, "kiyosu.fox@example.com", "Oda Nobunaga", "lead-army", "Oda Main Host", "Mikawa"),
    (3, "sandal.bearer@example.com", "Kinoshita Tokichiro", "build", "Owari", "Storehouse"),
    (3, "tiger.of.kai@example.com", "Takeda Shingen", "tax-province", "Kai", ""),
]

Tabs = dict[str, list[tuple[int, list[Any]]]]


def content(path: Path, skip: tuple[str, ...] = ("History",)) -> Tabs:
    """Every tab's rows that hold anything (blank rows are no rows), History left out."""
    return {t: _rows(tab) for t, tab in WorkbookStore(path).read().items() if t not in skip}


def meaning(path: Path) -> dict[str, Any]:
    """Every tab as the engine reads it (History left out).

    Before a turn, an engine-owned Status a GM left empty reads as Pending; History records the
    Pending it read, so a rollback writes the word back: the same meaning, not the same cell.
    """
    campaign = app.open_campaign(str(path))
    tabs: dict[str, Any] = {
        name: (frame.to_dict("records"), dict(campaign.state.rows[name]))
        for name, frame in campaign.state.tables.items()
        if not campaign.state.specs[name].log
    }
    raw = content(path)
    tabs.update({name: raw[name] for name in ("Battles", "Notifications")})
    return tabs


def _rows(tab: RawTab) -> list[tuple[int, list[Any]]]:
    return [(n, _trim(cells)) for n, cells in tab.rows if any(v not in (None, "") for v in cells)]


def _trim(cells: list[Any]) -> list[Any]:
    cells = ["" if v is None else v for v in cells]
    while cells and cells[-1] == "":
        cells.pop()
    return cells


def history(path: Path) -> list[dict[str, Any]]:
    tab = WorkbookStore(path).read()["History"]
    return [dict(zip(tab.header, cells, strict=False)) for _, cells in tab.rows]


def without_ids(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """History rows without the run's id and time (and the row recording the time itself)."""
    keep = ("Turn", "Tab", "Key", "Column", "Old", "New", "Cause", "Roll")
    return [tuple(r.get(c) for c in keep) for r in rows if r.get("Key") != "last_resolved_at"]


def game(path: Path) -> dict[str, Any]:
    tab = WorkbookStore(path).read()["Game"]
    return {cells[0]: cells[1] for _, cells in tab.rows}


def add_orders(path: Path) -> None:
    book = load_workbook(path)
    sheet = book["Orders"]
    for turn, email, character, order, target, detail in LATER_ORDERS:
        sheet.append([turn, f"2026-12-0{turn} 09:00:00", email, character, order, target or None, detail or None])
    book.save(path)


def resolve(path: Path, turn: int) -> app.Report:
    report = app.resolve(str(path), now=NOW + timedelta(days=turn), force=True, empty=True)
    assert report.summary["resolved"] is True and report.summary["turn"] == turn, report.summary
    return report


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The demo with orders for three turns: its content before turn 1, before 2 and after 3."""
    folder = tmp_path_factory.mktemp("rollback")
    path = folder / "first.xlsx"
    app.init(str(path), demo=True)
    add_orders(path)
    snapshots = {"before 1": meaning(path)}
    resolve(path, 1)
    snapshots["before 2"] = meaning(path)
    shutil.copy(path, folder / "before-2.xlsx")
    resolve(path, 2)
    resolve(path, 3)
    snapshots["after 3"] = content(path)
    snapshots["history"] = history(path)
    snapshots["path"] = path
    return snapshots


@pytest.fixture
def resolved(first_run: dict[str, Any], tmp_path: Path) -> Path:
    """A copy of the demo with turns 1 to 3 resolved."""
    path = tmp_path / "campaign.xlsx"
    shutil.copy(first_run["path"], path)
    return path


def test_the_turns_do_something_worth_rolling_back(first_run: dict[str, Any]) -> None:
    turns = {r["Turn"] for r in first_run["history"]}
    assert turns == {1, 2, 3}
    tabs = {r["Tab"] for r in first_run["history"] if r["Turn"] in (2, 3)}
    assert {"Armies", "Orders", "Letters", "Clans", "Provinces", "Game"} <= tabs
    assert first_run["after 3"]["Notifications"] != first_run["before 2"]["Notifications"]


def test_rollback_restores_the_sheets_as_they_were_before_the_turn(first_run: dict[str, Any], resolved: Path) -> None:
    report = app.rollback(str(resolved), 2, now=NOW + timedelta(days=9))
    assert meaning(resolved) == first_run["before 2"]
    assert (str(game(resolved)["turn"]), str(game(resolved)["last_resolved_turn"])) == ("2", "1")
    assert report.summary["runs undone"] == 2
    assert report.summary["Notifications rows cleared"] > 0


def test_resolving_again_after_a_rollback_gives_the_same_result(first_run: dict[str, Any], resolved: Path) -> None:
    """The issue's round trip: 1, 2, 3; back to before 2; 2 and 3 again: the same sheets."""
    app.rollback(str(resolved), 2, now=NOW + timedelta(days=9))
    resolve(resolved, 2)
    resolve(resolved, 3)
    assert content(resolved) == first_run["after 3"]
    # and History holds the same changes for turns 2 and 3 as the first time, after the rollback's
    again = history(resolved)[len(first_run["history"]) :]
    rollback_rows = [r for r in again if r["Cause"] == "rollback to before turn 2"]
    first = [r for r in first_run["history"] if r["Turn"] in (2, 3)]
    assert without_ids(again[len(rollback_rows) :]) == without_ids(first)


def test_the_rollback_is_recorded_in_history(resolved: Path) -> None:
    before = len(history(resolved))
    report = app.rollback(str(resolved), 2, now=NOW + timedelta(days=9))
    added = history(resolved)[before:]
    assert len(added) == len(report.history) == len(report.changes) > 0
    assert {(r["Turn"], r["Cause"], r["Resolution"]) for r in added} == {
        (2, "rollback to before turn 2", report.resolution)
    }
    assert {r["At"] for r in added} == {"2026-12-09 20:00:00"}
    turn = next(r for r in added if (r["Tab"], r["Key"]) == ("Game", "turn"))
    assert (str(turn["Old"]), str(turn["New"])) == ("4", "2")
    letter = [r for r in added if r["Tab"] == "Letters"]
    assert letter and all(r["New"] in (None, "") for r in letter)  # the letter turn 2 wrote is gone


def test_rolling_back_across_an_earlier_rollback_reaches_the_first_state(
    first_run: dict[str, Any], resolved: Path
) -> None:
    """1, 2, 3; back to 2; 2, 3 again; back to 2 again; then back to 1: before turn 1, exactly."""
    app.rollback(str(resolved), 2)
    resolve(resolved, 2)
    resolve(resolved, 3)
    report = app.rollback(str(resolved), 2)
    assert report.summary["runs undone"] == 2  # only the second run's: the first was undone already
    assert meaning(resolved) == first_run["before 2"]
    app.rollback(str(resolved), 1)
    assert meaning(resolved) == first_run["before 1"]
    resolve(resolved, 1)
    assert meaning(resolved) == first_run["before 2"]


def test_rolling_back_the_last_turn_only(first_run: dict[str, Any], resolved: Path, tmp_path: Path) -> None:
    expected = tmp_path / "two.xlsx"
    shutil.copy(first_run["path"].parent / "before-2.xlsx", expected)
    resolve(expected, 2)
    app.rollback(str(resolved), 3)
    assert meaning(resolved) == meaning(expected)
    assert str(game(resolved)["turn"]) == "3"


def test_a_dry_run_writes_nothing(resolved: Path) -> None:
    before = resolved.read_bytes()
    report = app.rollback(str(resolved), 2, dry_run=True)
    assert report.dry_run and report.changes
    assert resolved.read_bytes() == before


def test_a_cell_edited_since_is_restored_and_listed(first_run: dict[str, Any], resolved: Path) -> None:
    book = load_workbook(resolved)
    clans = book["Clans"]
    treasury = next(c.column for c in clans[1] if c.value == "Treasury")
    clans.cell(row=2, column=treasury, value=999)  # the GM hands Oda a fortune after turn 3
    book.save(resolved)
    report = app.rollback(str(resolved), 2)
    assert report.summary["edited"] == ["Clans Oda Treasury"]
    assert meaning(resolved) == first_run["before 2"]


@pytest.mark.parametrize(
    ("turn", "message"),
    [
        (4, r"turn 4 has not been resolved \(last_resolved_turn is 3, turn is 4\)"),
        (0, "turns count from 1"),
    ],
)
def test_a_turn_that_cannot_be_rolled_back_is_refused(resolved: Path, turn: int, message: str) -> None:
    before = resolved.read_bytes()
    with pytest.raises(RollbackError, match=message):
        app.rollback(str(resolved), turn)
    assert resolved.read_bytes() == before


def _spoil(store: MemoryStore, tab: str, change: Callable[[list[list[Any]]], None]) -> MemoryStore:
    change(store.tabs[tab])
    return store


@pytest.fixture(scope="module")
def played_in_memory() -> MemoryStore:
    """The demo in memory with turns 1 and 2 resolved, once for the module (tests take a copy)."""
    store = memory_campaign(demo=True)
    for turn in (1, 2):
        app.resolve(store, now=NOW + timedelta(days=turn), force=True, empty=True)  # turn 2 has no orders
    return store


@pytest.fixture
def memory(played_in_memory: MemoryStore) -> MemoryStore:
    """The demo in memory with turns 1 and 2 resolved: each test its own copy (its reads and writes counted
    on from the two resolutions')."""
    return copy.deepcopy(played_in_memory)


def test_history_without_the_turn_is_refused(memory: MemoryStore) -> None:
    header = memory.tabs["History"][0]
    memory.tabs["History"] = [header]  # a GM emptied History
    with pytest.raises(RollbackError, match="History holds no resolution of turn 2"):
        app.rollback(memory, 2)
    assert memory.writes == 2


def test_a_row_history_names_that_is_gone_is_refused(memory: MemoryStore) -> None:
    history_rows = memory.records("History")
    army = next(r["Key"] for r in history_rows if r["Tab"] == "Armies" and r["Turn"] == 2)
    rows = memory.tabs["Armies"]
    rows[:] = [r for r in rows if r[0] != army]  # a GM deleted the army's row
    with pytest.raises(RollbackError, match=f"changed Armies '{army}', which is no longer in the sheet"):
        app.rollback(memory, 2)
    assert memory.writes == 2


def test_rollback_works_on_a_campaign_with_errors(memory: MemoryStore) -> None:
    """A rollback is how a GM undoes a bad turn: it does not need a valid campaign."""
    memory.tabs["Clans"][2][1] = "lots"  # Treasury of the second clan
    assert any(p.severity.value == "error" for p in app.validate(memory))
    report = app.rollback(memory, 2)
    assert report.changes and memory.writes == 3


# The command ----------------------------------------------------------------------------------------


def test_the_rollback_command(resolved: Path) -> None:
    result = CliRunner().invoke(cli, ["rollback", str(resolved), "--turn", "2"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Rolled back to before turn 2: 2 runs undone, ")
    assert "Game turn is 2." in result.stdout
    again = CliRunner().invoke(cli, ["rollback", str(resolved), "--turn", "2"])
    assert again.exit_code == 2
    assert again.stderr.strip() == (
        "Error: cannot roll back to before turn 2: turn 2 has not been resolved "
        "(last_resolved_turn is 1, turn is 2): nothing to roll back"
    )


def test_the_rollback_command_as_json_and_dry_run(resolved: Path) -> None:
    before = resolved.read_bytes()
    result = CliRunner().invoke(cli, ["rollback", str(resolved), "--turn", "3", "--dry-run", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert (summary["status"], summary["exit"]) == ("ok", 0)
    assert summary["rolled_back_to_before_turn"] == 3 and summary["dry_run"] is True
    assert summary["runs_undone"] == 1 and summary["cells_restored"] > 0
    assert resolved.read_bytes() == before


def test_rollback_restores_exactly_what_was_there_blank_cells_stay_blank(tmp_path: Path) -> None:
    """Issue 13: the demo's derived cells start empty; turn 1 fills them (190 of them went back as 0).
    History keeps the cell as the sheet held it, so after `rollback --turn 1` every tab holds
    exactly what it held before the turn: the same cells, empty ones empty."""
    path = tmp_path / "demo.xlsx"
    app.init(str(path), demo=True)
    before = content(path)
    app.resolve(str(path), now=NOW)
    blank_before = [r for r in history(path) if r.get("Old") in (None, "") and r["Tab"] == "Provinces"]
    assert len(blank_before) >= 190
    app.rollback(str(path), 1, now=NOW)
    assert content(path) == before
