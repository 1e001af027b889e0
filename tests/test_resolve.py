"""A whole turn through the workbook store: the demo campaign, idempotence and determinism."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from sheets_engine import app

NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)


def rows(path: Path, tab: str) -> list[dict[str, Any]]:
    """A tab's data rows by header, as the workbook holds them."""
    book = openpyxl.load_workbook(path)
    sheet = book[tab]
    values = list(sheet.iter_rows(values_only=True))
    header = values[0]
    return [dict(zip(header, r, strict=False)) for r in values[1:] if any(v not in (None, "") for v in r)]


def game(path: Path) -> dict[str, Any]:
    return {r["Key"]: r["Value"] for r in rows(path, "Game")}


@pytest.fixture(scope="module")
def resolved(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, app.Report]:
    """The demo campaign with turn 1 resolved."""
    path = tmp_path_factory.mktemp("demo") / "demo.xlsx"
    app.init(str(path), demo=True)
    report = app.resolve(str(path), now=NOW)
    return path, report


def test_resolve_gives_every_order_a_status_and_a_result(resolved: tuple[Path, app.Report]) -> None:
    path, _ = resolved
    orders = rows(path, "Orders")
    responses = rows(path, "Form Responses 1")
    assert len(orders) == len(responses) == 21
    assert {o["Status"] for o in orders} <= {"Resolved", "Rejected", "Superseded"}
    assert all(o["Result"] for o in orders)


def test_resolve_advances_the_turn(resolved: tuple[Path, app.Report]) -> None:
    path, _ = resolved
    values = game(path)
    assert (str(values["turn"]), str(values["last_resolved_turn"])) == ("2", "1")
    assert values["last_resolved_at"] == "2026-11-30 20:00:00"


def test_history_has_one_row_per_changed_cell(resolved: tuple[Path, app.Report]) -> None:
    path, report = resolved
    history = rows(path, "History")
    cells = [(h["Tab"], h["Key"], h["Column"]) for h in history]
    assert len(cells) == len(set(cells)) == len(report.changes)
    assert {h["Resolution"] for h in history} == {report.resolution}
    assert {h["Turn"] for h in history} == {1}
    owari = next(h for h in history if (h["Tab"], h["Key"], h["Column"]) == ("Provinces", "Owari", "Tax Stockpile"))
    # regenerated, then taxed by Kinoshita Tokichiro: both steps in one row
    assert owari["New"] == 0
    assert "stockpiles regenerate" in owari["Cause"] and "tax-province by Kinoshita Tokichiro" in owari["Cause"]


def test_history_old_and_new_match_the_sheet(resolved: tuple[Path, app.Report]) -> None:
    path, _ = resolved
    clans = {r["Clan"]: r for r in rows(path, "Clans")}
    for h in rows(path, "History"):
        if h["Tab"] == "Clans":
            assert clans[h["Key"]][h["Column"]] == h["New"]


def test_a_formula_looking_letter_is_written_as_text(resolved: tuple[Path, app.Report]) -> None:
    path, _ = resolved
    book = openpyxl.load_workbook(path)
    notes = [c for c in book["Notifications"]["D"] if c.value and "Surrender" in str(c.value)]
    assert notes and all(c.data_type == "s" for c in notes)
    letter = next(c for c in book["Letters"]["E"] if c.value == "=Surrender or perish")
    assert letter.data_type == "s"


def test_a_second_resolve_of_the_same_turn_changes_nothing(resolved: tuple[Path, app.Report]) -> None:
    path, _ = resolved
    before = path.read_bytes()
    report = app.resolve(str(path), now=NOW + timedelta(hours=1))
    assert report.summary["resolved"] is False
    assert "turn 2 is due from 2026-12-01 16:00 UTC" in report.summary["reason"]
    assert report.cells_written == 0
    assert path.read_bytes() == before


def test_resolve_of_an_already_resolved_turn_is_a_no_op_even_with_force(tmp_path: Path) -> None:
    path = tmp_path / "c.xlsx"
    app.init(str(path), demo=True)
    book = openpyxl.load_workbook(path)
    for row in book["Game"].iter_rows(min_row=2):
        if row[0].value == "last_resolved_turn":
            row[1].value = 1
    book.save(path)
    report = app.resolve(str(path), now=NOW, force=True)
    assert report.summary == {
        "resolved": False,
        "reason": "turn 1 was already resolved (last_resolved_turn is 1)",
    }


def test_the_next_turn_resolves_once_due(resolved: tuple[Path, app.Report], tmp_path: Path) -> None:
    path = tmp_path / "next.xlsx"
    shutil.copy(resolved[0], path)
    report = app.resolve(str(path), now=NOW + timedelta(hours=20))
    assert report.summary["resolved"] is True
    assert report.summary["turn"] == 2
    assert str(game(path)["turn"]) == "3"


def test_dry_run_writes_nothing_and_reports_the_changes(tmp_path: Path) -> None:
    path = tmp_path / "dry.xlsx"
    app.init(str(path), demo=True)
    before = path.read_bytes()
    report = app.resolve(str(path), now=NOW, dry_run=True)
    assert report.summary["resolved"] is True
    assert len(report.history) == len(report.changes) > 100
    assert path.read_bytes() == before


def test_two_copies_resolve_to_identical_sheets(tmp_path: Path) -> None:
    """Determinism: the same spreadsheet resolves to the same result (timestamps and ids apart)."""
    first, second = tmp_path / "a.xlsx", tmp_path / "b.xlsx"
    app.init(str(first), demo=True)
    shutil.copy(first, second)
    app.resolve(str(first), now=NOW)
    app.resolve(str(second), now=NOW + timedelta(minutes=7))

    def content(path: Path) -> dict[str, list[tuple[Any, ...]]]:
        book = openpyxl.load_workbook(path)
        tabs = {}
        for sheet in book.worksheets:
            values = [list(r) for r in sheet.iter_rows(values_only=True)]
            if sheet.title == "History":
                # drop Resolution and At, and the row recording the resolution's own timestamp
                values = [r[:1] + r[3:] for r in values if r[4] != "last_resolved_at"]
            if sheet.title == "Game":
                values = [r for r in values if r[0] != "last_resolved_at"]
            tabs[sheet.title] = [tuple(r) for r in values]
        return tabs

    assert content(first) == content(second)
