"""The page any ruleset's report is laid out on (views.html_page): its parts in order, tables that
become cards on a phone, long tables folded, every sheet text escaped, the map as SVG or PNG."""

from __future__ import annotations

from typing import Any

from sheets_engine.core.capabilities import Page, Part
from sheets_engine.views import OPEN_ROWS, html_page

ROWS = [{"Order": "tax <Owari>", "Result": 'Collected 13 Mon & "more"'}]


def _page(**more: Any) -> Page:
    return Page("Camp: after turn 3", "Oda", "the Oda clan (private)", 3, [("Orders", ROWS)], **more)


def test_the_lead_comes_first_then_the_map_then_what_follows_then_the_tables() -> None:
    page = _page(
        lead=(Part("This turn", ("Won at <Totomi>",), tuple(ROWS)),),
        follow=(Part("Next turn", ("Due by 20:00",)),),
    )
    text = html_page(page, svg='<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"></svg>', full="oda-map.svg")
    places = [
        text.index(s) for s in ("<h2>This turn</h2>", "<h2>Map</h2>", "<h2>Next turn</h2>", "<summary>Orders (1)")
    ]
    assert places == sorted(places)
    assert "<li>Won at &lt;Totomi&gt;</li>" in text
    assert '<td data-label="Result" class=result>Collected 13 Mon &amp; &quot;more&quot;</td>' in text
    assert '<svg viewBox="0 0 10 10"></svg>' in text  # inline, the namespace left out
    assert '<a href="oda-map.svg">Open the map full size</a>' in text
    assert "http://" not in text and "<script" not in text


def test_a_table_of_more_than_fifteen_rows_starts_folded_and_a_short_one_open() -> None:
    many = [{"Province": f"P{k}"} for k in range(OPEN_ROWS + 1)]
    text = html_page(Page("T", "GMs", "the GMs", 1, [("Provinces", many), ("Clans", many[:OPEN_ROWS])]))
    assert f"<details><summary>Provinces ({OPEN_ROWS + 1})</summary>" in text
    assert f"<details open><summary>Clans ({OPEN_ROWS})</summary>" in text
    assert "table.cards thead{display:none}" in text  # on a phone a row is a card, each cell named
    assert "max-width:60em" not in text


def test_a_ruleset_that_draws_png_only_gets_its_picture_inline() -> None:
    text = html_page(_page(), png=b"\x89PNG")
    assert 'src="data:image/png;base64,iVBORw==">' in text and "<svg" not in text
