"""The Art of War's board page (issue 29): `report --out DIR` writes one page per house and gm.html, the
board as inline SVG with each hex's ground on hover, the marked reach of a selected piece, the arithmetic
of an attack, the mandate table, the last circuit and the order builder; opened in headless Chromium at a
desktop's and a phone's width."""

from __future__ import annotations

import copy
import functools
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sheets_engine import app
from sheets_engine.art_of_war import board
from sheets_engine.cli import cli
from sheets_engine.stores.memory import MemoryStore
from sheets_engine.views import open_view, write_reports
from tests.browser import DESKTOP, PHONE, open_file, overflow, page

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
PLUM = {"houses": 4, "people": "ana@kai.jp", "temper": "steady", "seed": "plum rain"}
STRIKE = (
    "P2 attacks Tiger's soldier P5 at 1,1: attack 2 (1 + 1 soldier touching) against defence 1 (soldier 1, plain "
    "cover 0): P5 breaks and P2 advances into 1,1"
)


def edit(store: MemoryStore, tab: str, key: str, column: str, value: Any) -> None:
    header = store.tabs[tab][0]
    row = next(r for r in store.tabs[tab][1:] if r[0] == key)
    row[header.index(column)] = value


def seeded() -> MemoryStore:
    """The "plum rain" board after the bots' first moves, with Crane's soldier P2 at 1,0 beside Tiger's soldier
    P5 at 1,1 on the plain, and Crane's P3 (a soldier here) touching P5 from 0,1: an attack that wins."""
    return copy.deepcopy(_seeded())


@functools.cache
def _seeded() -> MemoryStore:
    store = MemoryStore()
    app.init(store, ruleset="art-of-war", options=PLUM)
    app.resolve(store, now=NOW)  # Lotus and Wolf raise; Crane (ana's) to move
    edit(store, "Pieces", "P2", "Hex", "1,0")
    edit(store, "Pieces", "P3", "Kind", "soldier")
    edit(store, "Pieces", "P3", "Hex", "0,1")
    edit(store, "Pieces", "P5", "Hex", "1,1")
    assert app.validate(store) == []
    return store


def test_a_pieces_reach_is_where_the_rules_let_it_march_and_strike_with_the_attacks_arithmetic() -> None:
    found = board.content(open_view(seeded()), "Crane")
    reach = found["reach"]["P2"]
    assert [(m["hex"], m["moves"], m["points left"]) for m in reach["march"]] == [
        ("0,-1", "P2: 1,0 > 1,-1 > 0,-1", 0),  # 1,-1 is plain and touches no enemy soldier: it goes on
        ("0,0", "P2: 1,0 > 0,0", 0),
        ("1,-1", "P2: 1,0 > 1,-1", 1),
        ("2,-1", "P2: 1,0 > 2,-1", 0),
        ("2,0", "P2: 1,0 > 2,0", 0),
    ]
    assert [board.arithmetic(s, "P2") for s in reach["strike"]] == [STRIKE]
    assert reach["strike"][0]["moves"] == "P2: 1,0 x 1,1"
    assert set(found["reach"]) == {"P1", "P2", "P3"}  # Crane's page marks Crane's pieces only
    assert found["order"] == {"season": 1, "house": "Crane", "capital raises": "settler"}
    assert [h["Played by"] for h in found["houses"]] == ["a person", "bot (steady)", "bot (steady)", "bot (steady)"]
    gm = board.content(open_view(seeded()), None)
    assert gm["houses"][0]["Played by"] == "ana@kai.jp"  # the GMs see who plays
    assert gm["order"] == {"season": 1, "house": "Crane", "capital raises": "settler"}  # the house to move's
    assert gm["next seasons"] == {"Crane": 1, "Tiger": 1, "Lotus": 2, "Wolf": 2}
    assert len(gm["reach"]) == len(gm["pieces"]) == 16


def test_report_writes_a_page_per_house_and_the_gms_with_every_sheet_text_escaped(tmp_path: Path) -> None:
    store = seeded()
    edit(store, "Game", "campaign", "Value", "<script>alert(1)</script> & co")
    store.tabs["Notifications"].append([1, "public", "orders", 'Season 1, Crane: <img src=x onerror="alert(2)">'])
    written = write_reports(store, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["crane.html", "gm.html", "lotus.html", "tiger.html",
                                                         "wolf.html"]  # fmt: skip
    text = written["Crane"].read_text()
    assert "<script>alert(1)" not in text and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in text
    assert "<img" not in text and "&lt;img src=x onerror=&quot;alert(2)&quot;&gt;" in text
    assert "http" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")  # nothing fetched from elsewhere
    assert text.count('class="piece mine"') == 3 and text.count('class="piece"') == 13


def test_report_json_beside_each_board_page(tmp_path: Path) -> None:
    path = tmp_path / "aw.xlsx"
    runner = CliRunner()
    init = ["init", str(path), "--ruleset", "art-of-war", "--houses", "2", "--people", "1", "--seed", "plum rain"]
    assert runner.invoke(cli, init).exit_code == 0
    done = runner.invoke(cli, ["report", str(path), "--out", str(tmp_path / "out"), "--json"])
    assert done.exit_code == 0, done.output
    kept = json.loads((tmp_path / "out" / "gm.json").read_text())
    assert (kept["season"], kept["reader"], len(kept["board"])) == (1, "GMs", 61)


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_the_board_page_in_chromium_selects_a_piece_marks_its_reach_and_builds_the_order(
    tmp_path: Path, width: int
) -> None:
    written = write_reports(seeded(), tmp_path)
    with page(width) as tab:
        open_file(tab, written["Crane"])
        assert tab.locator("svg#board g.piece").count() == 16
        assert tab.locator("svg#board polygon.hex").count() == 91
        assert tab.locator('polygon.hex[data-hex="1,1"] title').text_content() == (
            "1,1: plain (costs 1 to enter, cover 0, a settler here raises settler)"
        )
        assert tab.locator('g.reach[data-for="P2"]').is_hidden()
        tab.locator('g.piece[data-piece="P2"]').click()
        shown = tab.locator('g.reach[data-for="P2"]')
        assert shown.is_visible()
        marched = shown.locator("polygon.march")
        assert sorted(marched.evaluate_all("els => els.map(e => e.dataset.hex)")) == [
            "0,-1", "0,0", "1,-1", "2,-1", "2,0"
        ]  # fmt: skip
        assert marched.first.evaluate("e => getComputedStyle(e).strokeDasharray") not in ("", "none")
        struck = shown.locator("polygon.strike")
        assert struck.count() == 1 and struck.locator("title").text_content() == STRIKE
        assert struck.evaluate("e => e.getAttribute('fill') || getComputedStyle(e).fill").startswith("url(")
        struck.hover()
        assert tab.locator("#panel").text_content() == STRIKE
        struck.click()
        assert tab.locator("#order-moves").text_content() == "P2: 1,0 x 1,1"
        assert tab.locator('g.reach[data-for="P2"]').is_hidden()
        tab.locator('g.piece[data-piece="P1"]').click()
        tab.locator('g.reach[data-for="P1"] polygon.march').first.click()
        moves = tab.locator("#order-moves").text_content() or ""
        assert moves.startswith("P2: 1,0 x 1,1; P1: 0,-4 > ")
        assert tab.locator("#order-line").text_content() == f"Season 1 | Crane | march | {moves} | settler"
        tab.screenshot(path=str(tmp_path / f"crane-{width}.png"), full_page=True)
        fits = overflow(tab)
        mandate = tab.locator("#mandate").evaluate("t => [t.scrollWidth, t.parentElement.clientWidth]")
        assert mandate[0] <= mandate[1]  # the mandate table fits: reflowed into cards on a phone, not scrolled
        board_box = tab.locator("svg#board").bounding_box()
        open_file(tab, written["GMs"])  # the GMs' builder follows the house of the piece selected
        tab.locator('g.piece[data-piece="P8"]').click()
        tab.locator('g.reach[data-for="P8"] polygon.march').first.click()
        gm_order = [tab.locator(f"#order-{part}").text_content() for part in ("season", "house", "moves")]
    assert (fits["scrollWidth"], fits["overflowing"]) == (width, [])
    assert board_box is not None and board_box["width"] <= width
    assert gm_order[:2] == ["2", "Lotus"] and (gm_order[2] or "").startswith("P8: 0,3 > ")
