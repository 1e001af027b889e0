"""Cell text and player text are text (issue 13): never terminal markup, never a control sequence,
never longer than a cell can hold.

The workbooks are the demo's, with a GM's or a player's text put where the engine prints it:
validate's problems, resolve's dry run, history and explain.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from openpyxl import load_workbook

from sheets_engine import app
from sheets_engine.cli import main, visible
from sheets_engine.core.writeset import fit, fit_cells
from sheets_engine.sengoku.orders import MAX_TEXT
from sheets_engine.stores.base import CellWrite
from sheets_engine.stores.memory import MemoryStore
from sheets_engine.stores.xlsx import WorkbookStore
from tests.support import store as memory_campaign

NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
MINO = 3  # Mino's sheet row in the demo Provinces tab
LONG_TARGET = "Owari" * 9_997 + "O"  # 49,986 characters


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COLUMNS", "300")  # rich tables as wide as the terminal: keep cells unwrapped
    path = tmp_path / "campaign.xlsx"
    app.init(str(path), demo=True)
    return path


def set_cell(path: Path, tab: str, row: int, header: str, value: Any) -> None:
    book = load_workbook(path)
    sheet = book[tab]
    column = next(c.column for c in sheet[1] if c.value == header)
    sheet.cell(row=row, column=column, value=value)
    book.save(path)


def add_response(path: Path, target: str, detail: str = "", order: str = "tax-province", secret: str = "") -> None:
    """A form response from Kinoshita Tokichiro, after every response of the demo."""
    book = load_workbook(path)
    book["Form Responses 1"].append(
        ["2026-11-28 21:00:00", "sandal.bearer@example.com", "Kinoshita Tokichiro", order, target, detail, secret]
    )
    book.save(path)


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`sheets-engine ARGS` in this process, as main() maps its exit codes."""
    sys.argv = ["sheets-engine", *args]
    code = 0
    try:
        main()
    except SystemExit as done:
        code = int(done.code or 0)
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    return code, out.out, out.err


# Markup ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["[/bold]", "[/]", "[link=https://example.com]3[/link]", "[red]Hojo[/red]"])
def test_a_cell_value_is_printed_as_text_not_as_markup(
    demo: Path, text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Province Owner that names no clan is a problem; validate and resolve print it as it is."""
    set_cell(demo, "Provinces", MINO, "Province Owner", text)
    code, out, _ = cli(capsys, "validate", str(demo))
    assert code == 2
    assert text in out
    code, out, err = cli(capsys, "resolve", str(demo))
    assert code == 2
    assert text in out
    assert err == "Error: 3 problems (1 error, 2 warnings) in the campaign; nothing was written\n"


def test_a_players_target_in_markup_is_printed_as_text_by_history_and_explain(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    add_response(demo, "[/]")
    app.resolve(str(demo), now=NOW)
    code, out, _ = cli(capsys, "history", str(demo), "--tab", "Orders")
    assert code == 0
    assert 'there is no province "[/]"' in out
    code, out, _ = cli(capsys, "explain", str(demo), "Kinoshita Tokichiro")
    assert code == 0
    assert 'there is no province "[/]"' in out
    code, out, _ = cli(capsys, "explain", str(demo), "[bold]")  # a key nobody has, with markup in it
    assert (code, out) == (0, "History records no change to '[bold]'.\n")


# Control characters ----------------------------------------------------------------------------------


def test_control_characters_are_made_visible(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ESC in a cell (a Google Sheet holds one as it was typed) never reaches the GM's terminal:
    it shows as \\x1b."""
    campaign = memory_campaign(demo=True)
    campaign.tabs["Provinces"][MINO - 1][campaign.tabs["Provinces"][0].index("Province Owner")] = "Hojo\x1b[2J\x07"
    monkeypatch.setattr("sheets_engine.cli.common.store_for", lambda source: campaign)
    monkeypatch.setenv("COLUMNS", "300")
    code, out, _ = cli(capsys, "validate", "campaign")
    assert code == 2
    assert "\x1b" not in out and "\x07" not in out
    assert "Hojo\\x1b[2J\\x07" in out


def test_visible_shows_control_characters_and_keeps_the_rest() -> None:
    assert visible("a\x1bb\x00c\x9bd\tе\n") == "a\\x1bb\\x00c\\x9bd\tе\n"


# Length ------------------------------------------------------------------------------------------------


def _longest_cell(path: Path) -> int:
    tabs = WorkbookStore(path).read()
    return max(len(str(v)) for tab in tabs.values() for _, cells in tab.rows for v in cells if v is not None)


def test_an_answer_too_long_for_a_cell_is_rejected_and_no_cell_is_over_the_workbooks_limit(demo: Path) -> None:
    """A 32,767-character Target (the most an Excel cell holds): the order is rejected with a reason,
    the turn resolves, and no cell of the workbook is over Excel's limit, the Result and History
    quoting the Target included (the Orders row keeps the Target cut, saying so)."""
    add_response(demo, ("Owari" * 6_554)[:32_767])
    report = app.resolve(str(demo), now=NOW)
    assert report.summary["resolved"] is True
    orders = WorkbookStore(demo).read()["Orders"]
    last = orders.rows[-1][1]
    header = orders.header
    assert last[header.index("Status")] == "Rejected"
    assert (
        last[header.index("Result")] == "the Target answer is 32,767 characters long; an answer may hold at most 30,000"
    )
    assert len(last[header.index("Target")]) == MAX_TEXT
    assert last[header.index("Target")].endswith(" [... cut: 32,767 characters]")
    assert _longest_cell(demo) <= 32_767
    again = app.resolve(str(demo), now=NOW, force=True, empty=True)  # the cut copy is known: not copied again
    assert again.summary["form responses copied"] == 0


class GoogleLike(MemoryStore):
    """A memory store with Google's cell limit."""

    cell_limit = 50_000


def test_no_cell_over_googles_limit_is_written() -> None:
    campaign = memory_campaign(demo=True)
    store = GoogleLike(campaign.tabs)
    header = store.tabs["Form Responses 1"][0]
    response = {"Timestamp": "2026-11-28 21:00:00", "Email Address": "sandal.bearer@example.com",
                "Character": "Kinoshita Tokichiro", "Order": "tax-province", "Target": LONG_TARGET}  # fmt: skip
    store.tabs["Form Responses 1"].append([response.get(c) for c in header])
    app.resolve(store, now=NOW)
    [order] = [o for o in store.records("Orders") if o["Character"] == "Kinoshita Tokichiro" and o["Turn"] == 1][-1:]
    assert (order["Status"], order["Result"]) == (
        "Rejected",
        "the Target answer is 49,986 characters long; an answer may hold at most 30,000",
    )
    written = [v for rows in store.tabs.values() for row in rows[1:] for v in row if isinstance(v, str)]
    assert max(len(v) for v in written if v != LONG_TARGET) <= MAX_TEXT + 100
    assert all(len(v) <= 50_000 for v in written)


def test_a_letter_at_the_limit_is_delivered_whole() -> None:
    """30,000 characters (MAX_TEXT) is the longest answer, and goes through."""
    campaign = memory_campaign(demo=True)
    header = campaign.tabs["Form Responses 1"][0]
    text = "a" * MAX_TEXT
    response = {"Timestamp": "2026-11-28 21:00:00", "Email Address": "sandal.bearer@example.com",
                "Character": "Kinoshita Tokichiro", "Order": "write-letter", "Target": "Takeda",
                "Detail": text}  # fmt: skip
    campaign.tabs["Form Responses 1"].append([response.get(c) for c in header])
    app.resolve(campaign, now=NOW)
    letters = campaign.records("Letters")
    assert letters[-1]["Text"] == text


def test_history_copies_over_the_limit_are_cut_with_a_marker() -> None:
    cause = "x" * 40_000
    [cut] = fit_cells([CellWrite("History", 9, 9, cause)], 32_767)
    assert len(cut.value) == 32_767
    assert cut.value.endswith("x [... cut: 40,000 characters in all]")
    assert fit(12, 5) == 12 and fit("short", 5) == "short"
