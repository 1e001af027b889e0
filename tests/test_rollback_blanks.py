"""Rollback puts back every cell the engine wrote exactly as it was, an empty one empty (issue 28's report,
fixed with the History model of issue 26): History records the cell as the sheet held it, not the value the
rules read from it. A Status left empty reads as Pending, and comes back empty."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openpyxl

from sheets_engine import app
from tests.golden import CLAN_WAR_RESULTS, T1, T2, append_rows, cells


def tabs_but_history(path: Path) -> dict[str, list[list[Any]]]:
    """Every tab's values but History's (which records the runs and the rollback)."""
    return {tab: rows for tab, rows in cells(path).items() if tab != "History"}


def blank_status(path: Path, tab: str, row: int) -> None:
    """The Status of one row left empty, as a player or GM typing a row leaves it."""
    book = openpyxl.load_workbook(path)
    sheet = book[tab]
    header = [c.value for c in sheet[1]]
    sheet.cell(row, header.index("Status") + 1).value = None
    book.save(path)


def status(path: Path, tab: str, row: int) -> Any:
    """One row's Status (None: empty)."""
    rows = cells(path)[tab]
    at = rows[0].index("Status")
    return rows[row - 1][at] if at < len(rows[row - 1]) else None


def test_a_clan_war_status_left_empty_comes_back_empty_from_a_paused_turn(tmp_path: Path) -> None:
    path = tmp_path / "cw.xlsx"
    app.init(str(path), ruleset="clan-war", demo=True)
    blank_status(path, "Moves", 2)  # the Crab Wall Guard's primary move, its Status empty: Pending
    before = tabs_but_history(path)
    paused = app.resolve(str(path), now=T1)
    assert paused.status.value == "paused" and status(path, "Moves", 2) == "Resolved"
    app.rollback(str(path), 1, now=T1)
    assert status(path, "Moves", 2) is None
    assert tabs_but_history(path) == before


def test_a_clan_war_status_left_empty_comes_back_empty_from_a_completed_turn(tmp_path: Path) -> None:
    path = tmp_path / "cw.xlsx"
    app.init(str(path), ruleset="clan-war", demo=True)
    blank_status(path, "Moves", 2)
    append_rows(path, "Battle Results", [{"Turn": 1, **row} for row in CLAN_WAR_RESULTS])  # typed ahead
    before = tabs_but_history(path)
    assert app.resolve(str(path), now=T1).status.value == "paused"
    assert app.resolve(str(path), now=T2).status.value == "resolved"
    app.rollback(str(path), 1, now=T2)  # both runs of the turn undone, newest first
    assert status(path, "Moves", 2) is None
    assert tabs_but_history(path) == before


def test_a_sengoku_order_typed_without_a_status_comes_back_without_one(tmp_path: Path) -> None:
    path = tmp_path / "demo.xlsx"
    app.init(str(path), demo=True)
    order = {"Turn": 1, "Submitted": "2026-11-28 15:00:00", "Email": "rice.steward@example.com",
             "Character": "Niwa Nagahide", "Order": "tax-province", "Target": "Mino"}  # fmt: skip
    append_rows(path, "Orders", [order])  # typed by a GM, its Status left empty: Pending
    before = tabs_but_history(path)
    app.resolve(str(path), now=T1)
    assert status(path, "Orders", 2) in ("Resolved", "Rejected", "Superseded")
    app.rollback(str(path), 1, now=T1)
    assert status(path, "Orders", 2) is None
    assert tabs_but_history(path) == before


def test_an_art_of_war_order_typed_without_a_status_comes_back_without_one(tmp_path: Path) -> None:
    path = tmp_path / "aw.xlsx"
    app.init(str(path), ruleset="art-of-war", options={"houses": 2, "people": 0, "seed": "7"})
    first = cells(path)["Game"]
    house = next(row[1] for row in first if row[0] == "to_move")
    # the house to move ordered by hand, its Status left empty (Pending); the other house's bot closes the season
    append_rows(path, "Orders", [{"Season": 1, "House": house, "Order": "raise"}])
    row = len(cells(path)["Orders"])
    before = tabs_but_history(path)
    app.resolve(str(path), now=T1)
    assert status(path, "Orders", row) == "Resolved"
    app.rollback(str(path), 1, now=T1)
    assert status(path, "Orders", row) is None
    assert tabs_but_history(path) == before
