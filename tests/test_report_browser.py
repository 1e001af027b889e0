"""The demo's reports in a real browser (tests/browser.py: Debian's Chromium at a phone's and a desktop's
width): at 390 px nothing scrolls sideways and every Result is in view, the map fits the screen and
opens full size; at 1280 px the page uses the width. Skipped, saying how to install it, without Chromium."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from sheets_engine import app
from sheets_engine.views import write_reports
from tests.browser import DESKTOP, PHONE, open_file, overflow, page

NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
# every Result cell's left and right edge and the window's width, in CSS pixels
RESULTS = """() => Array.from(document.querySelectorAll('td.result')).map(td => {
  const box = td.getBoundingClientRect(); return [box.left, box.right, box.width, window.innerWidth]; })"""


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("browser")
    path = folder / "demo.xlsx"
    app.init(str(path), demo=True)
    app.resolve(str(path), now=NOW)
    return write_reports(str(path), folder / "reports")


def test_the_oda_report_on_a_phone_scrolls_no_sideways_and_shows_every_result(
    written: dict[str, Path], tmp_path: Path
) -> None:
    with page(PHONE) as tab:
        open_file(tab, written["Oda"])
        tab.screenshot(path=str(tmp_path / "oda-390.png"), full_page=True)
        fits = overflow(tab)
        assert fits["scrollWidth"] <= PHONE and fits["overflowing"] == []
        # folded tables open: their Results must be in view too
        tab.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
        tab.screenshot(path=str(tmp_path / "oda-390-open.png"), full_page=True)
        opened = overflow(tab)
        assert opened["scrollWidth"] <= PHONE and opened["overflowing"] == []
        results = tab.evaluate(RESULTS)
        assert len(results) == 10  # Oda's five orders: in the lead, and in the Orders table
        assert all(left >= 0 and right <= width and shown > 40 for left, right, shown, width in results)
        lead = tab.locator("section").first
        assert lead.locator("h2").text_content() == "Turn 1: your orders and their Results"
        assert "Collected 13 Mon from Owari" in lead.text_content()
        box = tab.locator("svg.map").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE  # the map fits the screen
        assert box["width"] >= PHONE - 40  # at the screen's width
        link = tab.locator("a", has_text="Open the map full size")
        assert link.get_attribute("href") == "oda-map.svg"
        assert tab.locator("a:has(svg.map)").get_attribute("href") == "oda-map.svg"  # a tap on the map opens it
        assert (written["Oda"].parent / "oda-map.svg").read_text(encoding="utf-8").startswith("<svg ")


def test_the_oda_report_on_a_desktop_uses_the_width(written: dict[str, Path], tmp_path: Path) -> None:
    with page(DESKTOP) as tab:
        open_file(tab, written["Oda"])
        tab.screenshot(path=str(tmp_path / "oda-1280.png"), full_page=True)
        width = tab.evaluate("() => document.querySelector('main').getBoundingClientRect().width")
        em = tab.evaluate("() => parseFloat(getComputedStyle(document.body).fontSize)")
        assert width > 60 * em and width >= DESKTOP - 40
        assert overflow(tab)["scrollWidth"] <= DESKTOP
        headers = tab.locator("section").first.locator("th").all_text_contents()
        assert headers == ["Character", "Order", "Target", "Detail", "Status", "Result"]  # a table, not cards
        tab.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
        # every table shows all its columns without scrolling, Provinces' 20 included
        wider = tab.evaluate(
            "() => Array.from(document.querySelectorAll('.scroll')).filter(s => s.scrollWidth > s.clientWidth).length"
        )
        assert wider == 0
        provinces = tab.locator("details", has_text="Provinces (8)").locator("th")
        assert provinces.count() == 20


def test_the_gms_page_leads_with_the_turns_problems_and_refused_orders(written: dict[str, Path]) -> None:
    with page(PHONE) as tab:
        open_file(tab, written["GMs"])
        headings = tab.locator("h2").all_text_contents()
        assert headings[:4] == ["The turn's problems", "Refused orders of turn 1", "Blocked marches", "Battles fought"]
        refused = tab.locator("section").nth(1).locator("td.result").all_text_contents()
        assert refused == [
            "not your province: Mikawa is controlled by Oda, not Imagawa",
            "not your character: unscathed.baba@example.com may not give orders for Naoe Kagetsuna",
            "Gunsmith can only be built in a City; Suo is Rural",
            "Saito Dosan is dead and can give no orders",
        ]
        fits = overflow(tab)
        assert fits["scrollWidth"] <= PHONE and fits["overflowing"] == []
