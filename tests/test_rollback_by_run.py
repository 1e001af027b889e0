"""Rollback by run (issue 14): roll back to turn 1 and resolve again, and the turns are the same.

The demo with a deadline every day at 20:00 Tokyo time. Three turns resolve at their deadlines with
new form responses arriving between them, some a few minutes after each deadline (so they belong to
the next turn). Then more responses arrive, for turn 4; the campaign is rolled back to before turn 1
and turns 1 to 3 are resolved again at once, late. Every cell is as it was after the first three
turns (History and the runs' own times apart), and every cell blank before turn 1 is blank after
the rollback.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from openpyxl import load_workbook

from sheets_engine import app
from sheets_engine.core.history import history_spec
from sheets_engine.core.tables import TabSpec
from sheets_engine.rollback import RollbackError, plan_rollback
from sheets_engine.sengoku.schema import GameRow
from sheets_engine.stores.memory import MemoryStore
from sheets_engine.stores.xlsx import WorkbookStore

TOKYO = ZoneInfo("Asia/Tokyo")
FIRST = datetime(2026, 11, 28, 20, 0, tzinfo=TOKYO)
RUN_TIMES = {("Game", "last_resolved_at")}  # the runs' own timestamps
# (sent, email, character, order, target, detail): what arrives after each first-pass run
ARRIVING = [
    [
        ("2026-11-29 09:00:00", "kiyosu.fox@example.com", "Oda Nobunaga", "tax-province", "Owari", ""),
        ("2026-11-29 10:30:00", "sunpu.poet@example.com", "Imagawa Yoshimoto", "write-letter", "Oda", "Yield."),
        ("2026-11-29 12:00:00", "patient.hostage@example.com", "Matsudaira Motoyasu", "recruit-levies", "Totomi", ""),
        ("2026-11-29 19:59:00", "narumi.holdout@example.com", "Okabe Motonobu", "lead-army", "Imagawa Main Host",
         "Mikawa"),
        ("2026-11-29 20:01:00", "kiyosu.fox@example.com", "Oda Nobunaga", "lead-army", "Oda Main Host", "Mikawa"),
        ("2026-11-29 20:03:00", "tiger.of.kai@example.com", "Takeda Shingen", "tax-province", "Kai", ""),
    ],
    [
        ("2026-11-30 08:00:00", "sandal.bearer@example.com", "Kinoshita Tokichiro", "build", "Owari", "Storehouse"),
        ("2026-11-30 11:00:00", "sunpu.poet@example.com", "Imagawa Yoshimoto", "tax-province", "Suruga", ""),
        ("2026-11-30 20:00:00", "rice.steward@example.com", "Niwa Nagahide", "tax-province", "Mino", ""),
        ("2026-11-30 20:04:00", "kiyosu.fox@example.com", "Oda Nobunaga", "tax-province", "Owari", ""),
    ],
    [  # after the third turn: for turn 4, before and after its deadline
        ("2026-12-01 09:00:00", "sunpu.poet@example.com", "Imagawa Yoshimoto", "write-letter", "Oda", "Again."),
        ("2026-12-01 20:02:00", "tiger.of.kai@example.com", "Takeda Shingen", "tax-province", "Kai", ""),
    ],
]  # fmt: skip

Cells = dict[tuple[str, int, int], Any]


def cells(path: Path) -> Cells:
    """Every non-blank cell of every tab but History, by (tab, row, column)."""
    found: Cells = {}
    for title, tab in WorkbookStore(path).read().items():
        if title == "History":
            continue
        for number, values in tab.rows:
            for column, value in enumerate(values, start=1):
                if value is not None and value != "":
                    found[(title, number, column)] = value
    return found


def without_run_times(found: Cells, path: Path) -> Cells:
    """The cells, the rows recording the runs' own times left out."""
    game = WorkbookStore(path).read()["Game"]
    skip = {n for n, values in game.rows if ("Game", values[0]) in RUN_TIMES}
    return {k: v for k, v in found.items() if not (k[0] == "Game" and k[1] in skip)}


def set_game(path: Path, values: dict[str, Any]) -> None:
    book = load_workbook(path)
    for row in book["Game"].iter_rows(min_row=2):
        if row[0].value in values:
            row[1].value = values[row[0].value]
    book.save(path)


def respond(path: Path, batch: list[tuple[str, ...]]) -> None:
    """Google appends each response to the form's tab when it is sent."""
    book = load_workbook(path)
    sheet = book["Form Responses 1"]
    for sent, email, character, order, target, detail in batch:
        sheet.append([sent, email, character, order, target or None, detail or None])
    book.save(path)


def resolve(path: Path, now: datetime, turn: int, force: bool = False) -> app.Report:
    report = app.resolve(str(path), now=now, force=force)
    assert report.summary["resolved"] is True and report.summary["turn"] == turn, report.summary
    return report


@pytest.mark.parametrize("forced", [False, True], ids=["at the deadlines", "turn 2 forced early"])
def test_rollback_to_turn_1_then_resolving_gives_the_same_turns(tmp_path: Path, forced: bool) -> None:
    path = tmp_path / "campaign.xlsx"
    app.init(str(path), demo=True)
    set_game(path, {"deadline": "2026-11-28 20:00:00", "time_zone": "Asia/Tokyo", "turn_hours": 24})
    before = cells(path)
    first = resolve(path, FIRST + timedelta(minutes=5), 1)
    assert first.summary["form responses waiting for a later turn"] == 1  # the demo's 20:02 response
    respond(path, ARRIVING[0])
    # turn 2 at its deadline, or by a GM at 18:00 (then the 19:59 march waits for turn 3)
    second = FIRST + timedelta(days=1, hours=-2) if forced else FIRST + timedelta(days=1, minutes=5)
    resolve(path, second, 2, force=forced)
    respond(path, ARRIVING[1])
    resolve(path, FIRST + timedelta(days=2, minutes=5), 3)
    after = cells(path)
    turns = {r[1]: r[0] for _, r in WorkbookStore(path).read()["Orders"].rows}
    assert (turns["2026-11-28 20:02:00"], turns["2026-11-29 20:01:00"], turns["2026-11-30 20:00:00"]) == (2, 3, 3)
    assert turns["2026-11-29 19:59:00"] == (3 if forced else 2)
    assert "2026-11-30 20:04:00" not in turns  # turn 4 has not been resolved: it waits in the form
    respond(path, ARRIVING[2])

    rolled = app.rollback(str(path), 1, now=FIRST + timedelta(days=3, hours=-5))
    assert rolled.summary["runs undone"] == 3
    now = cells(path)
    kept = {k for k in now if k not in before}
    # every cell blank before turn 1 is blank again; only the new form responses and, when a turn was
    # forced, the cutoff it took (the run ledger a rollback keeps) are there
    assert {k[0] for k in kept} <= {"Form Responses 1", "Game"}
    game_kept = {now[("Game", k[1], 1)] for k in kept if k[0] == "Game"}
    assert game_kept == ({"cutoffs"} if forced else set())
    assert {k: v for k, v in now.items() if k in before} == before

    late = FIRST + timedelta(days=3, hours=1)  # every deadline long past, turn 4's too
    for turn in (1, 2, 3):
        resolve(path, late, turn)
    assert without_run_times(cells(path), path) == without_run_times({**after, **_responses(path)}, path)


def _responses(path: Path) -> Cells:
    """The form's cells now (the responses that arrived since the first pass)."""
    return {k: v for k, v in cells(path).items() if k[0] == "Form Responses 1"}


def test_every_history_row_names_its_run_its_turn_and_its_step(tmp_path: Path) -> None:
    path = tmp_path / "steps.xlsx"
    app.init(str(path), demo=True)
    app.recalc(str(path), now=FIRST)
    resolve(path, FIRST, 1, force=True)
    app.rollback(str(path), 1, now=FIRST + timedelta(hours=1))
    tab = WorkbookStore(path).read()["History"]
    rows = [dict(zip(tab.header, values, strict=False)) for _, values in tab.rows]
    runs = {}
    for row in rows:
        runs.setdefault(row["Resolution"], set()).add((row["Turn"], row["Step"]))
    assert sorted(steps.pop() for steps in runs.values() if len(steps) == 1) == [
        (1, "recalc"),
        (1, "rollback"),
        (1, "turn"),
    ]
    assert len(runs) == 3 and all(row["Resolution"] for row in rows)


def test_a_history_tab_without_a_step_column_still_resolves_and_rolls_back(tmp_path: Path) -> None:
    """A campaign laid out before runs had steps: History's header ends at Roll."""
    path = tmp_path / "older.xlsx"
    app.init(str(path), demo=True)
    book = load_workbook(path)
    book["History"].delete_cols(11)
    book.save(path)
    before = cells(path)
    resolve(path, FIRST, 1, force=True)
    assert app.rollback(str(path), 1, now=FIRST).summary["runs undone"] == 1
    tab = WorkbookStore(path).read()["History"]
    assert tab.header == ["Turn", "Resolution", "At", "Tab", "Key", "Column", "Old", "New", "Cause", "Roll"]
    assert all(len(values) <= 10 or values[10] in (None, "") for _, values in tab.rows)
    assert cells(path) == before


def test_a_ruleset_counting_seasons_rolls_back_by_its_own_ledger_keys() -> None:
    """The Art of War counts seasons: its rollback reads `season`, not `turn`."""
    specs = [
        TabSpec("Game", GameRow, key="Key", rule_columns=("Value",)),
        history_spec(),
    ]
    header = ["Turn", "Resolution", "At", "Tab", "Key", "Column", "Old", "New", "Cause", "Roll", "Step"]
    store = MemoryStore({
        "Game": [["Key", "Value", "Notes"], ["season", "3", ""], ["last_resolved_season", "2", ""],
                 ["to_move", "Crane", ""]],
        "History": [header,
                    [1, "a1", "t", "Game", "to_move", "Value", "Lion", "Crane", "season 1", "", "Lion"],
                    [1, "a1", "t", "Game", "season", "Value", "1", "2", "season 1", "", "Lion"],
                    [1, "a1", "t", "Game", "last_resolved_season", "Value", "0", "1", "season 1", "", "Lion"],
                    [2, "b2", "t", "Game", "season", "Value", "2", "3", "season 2", "", "Crane"],
                    [2, "b2", "t", "Game", "last_resolved_season", "Value", "1", "2", "season 2", "", "Crane"]],
    })  # fmt: skip
    plan = plan_rollback(store.read(), specs, 1, ("season", "last_resolved_season"))
    assert plan.runs == ["b2", "a1"]
    assert {(r.key, r.new) for r in plan.edits} == {
        ("season", "1"),
        ("last_resolved_season", "0"),
        ("to_move", "Lion"),
    }
    with pytest.raises(
        RollbackError, match=r"season 3 has not been resolved \(last_resolved_season is 2, season is 3\)"
    ):
        plan_rollback(store.read(), specs, 3, ("season", "last_resolved_season"))
