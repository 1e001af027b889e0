"""The map at every size: a clan's window on its own region, labels that never collide, a legend that
fits 400 clans, and the picture as SVG as well as PNG, both byte-stable."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from sheets_engine import app
from sheets_engine.cli import cli
from sheets_engine.core.capabilities import View
from sheets_engine.core.load import load_state
from sheets_engine.core.picture import DPI
from sheets_engine.sengoku.generate import generate
from sheets_engine.sengoku.mapping import FONT, board, frame, scene, svg
from sheets_engine.sengoku.visibility import Sight
from sheets_engine.stores.memory import MemoryStore
from tests.support import RULESET

NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("svg") / "demo.xlsx"
    app.init(str(path), demo=True)
    app.resolve(str(path), now=NOW)
    return path


@pytest.fixture(scope="module")
def crowded() -> View:
    """A generated campaign of 1,000 provinces and 400 clans (two or three provinces a clan)."""
    state, problems = load_state(MemoryStore(generate(1000, clans=400, seed=3)).read(), RULESET.tabs)
    assert [p for p in problems if p.severity.value == "error"] == []
    return View(state)


def test_map_writes_png_and_svg_at_once_and_the_svg_is_the_same_bytes_every_run(demo: Path, tmp_path: Path) -> None:
    png, picture = tmp_path / "map.png", tmp_path / "map.svg"
    result = CliRunner().invoke(cli, ["map", str(demo), "--out", str(png), "--out", str(picture), "--clan", "Oda"])
    assert result.exit_code == 0, result.output
    assert result.output == (f"Map written to {png} (Oda's view)\nMap written to {picture} (Oda's view)\n")
    text = picture.read_text(encoding="utf-8")
    assert text.startswith('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1474 ')
    assert "<title>Sengoku Demo: The Year of Fire: after turn 1 (the Oda clan&#x27;s view)</title>" in text
    assert png.read_bytes().startswith(b"\x89PNG")
    again = tmp_path / "again.svg"  # a fresh interpreter: nothing cached in this process decides the text
    subprocess.run(
        [sys.executable, "-m", "sheets_engine", "map", str(demo), "--out", str(again), "--clan", "Oda"], check=True
    )
    assert again.read_bytes() == picture.read_bytes()


def test_a_clans_map_is_its_own_region_with_its_provinces_and_neighbours(crowded: View) -> None:
    laid = board(crowded.state)
    clan = laid.clans[0]
    own = laid.sight.owned[clan]
    drawn = scene(crowded.state, clan, places=laid)
    shown = {p.name for p in drawn.places}
    assert set(own) <= shown
    neighbours = {n for p in own for n in laid.views.graph.neighbors(p)}
    assert neighbours <= shown
    assert 10 <= len(shown) <= 150  # its region, not the world's 1,000 provinces
    assert drawn.title.endswith(f"(the {clan} clan's view)")


def test_labels_never_collide_and_the_legend_of_400_clans_fits(crowded: View) -> None:
    laid = board(crowded.state)
    for clan in (laid.clans[0], None):
        drawing = frame(scene(crowded.state, clan, places=laid))
        size = FONT * DPI / 72
        boxes = []
        for label in drawing.labels:
            width, height = len(label.text) * size * 0.7 + (6 if label.box else 0), size * 1.25
            boxes.append((label.x - width / 2, label.y - height / 2, label.x + width / 2, label.y + height / 2))
        crossing = [
            (a, b)
            for i, a in enumerate(boxes)
            for b in boxes[i + 1 :]
            if a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5
        ]
        assert crossing == []
        assert all(b[0] >= 0 and b[2] <= drawing.map_width and b[3] <= drawing.height for b in boxes)
        clans = [row for row in drawing.legend if row[0] == "clan"]
        more = [row[3] for row in drawing.legend if row[0] == "more"]
        assert 10 <= len(clans) < 400 and more == [f"and {400 - len(clans)} more clans"]
        assert (len(drawing.legend) + 1) * drawing.row + 0.5 * DPI <= drawing.height  # it fits the picture
        if clan:
            assert clans[0][3].startswith(f"{clan} (")  # the viewer's clan heads the legend


def test_a_whole_map_of_a_thousand_provinces_names_only_the_capitals(crowded: View) -> None:
    laid = board(crowded.state)
    drawing = frame(scene(crowded.state, places=laid))
    capitals = {p.name for p in laid.rows.values() if p.capital_of}
    named = {label.text for label in drawing.labels if not label.box}
    assert named and named <= capitals
    assert len(drawing.circles) == 1000
    assert 'viewBox="0 0 1474 ' in svg(drawing)


def test_an_svg_from_a_ruleset_that_draws_png_only_is_refused_plainly(tmp_path: Path) -> None:
    path = tmp_path / "aow.xlsx"
    app.init(str(path), ruleset="art-of-war", options={"houses": 3, "people": 0, "seed": "map"})
    result = CliRunner().invoke(cli, ["map", str(path), "--out", str(tmp_path / "board.svg")])
    assert result.exit_code == 2
    assert "the Art of War map is drawn as PNG only, not SVG" in result.output
    assert not (tmp_path / "board.svg").exists()


def test_a_clan_that_holds_no_province_is_shown_where_its_people_stand(crowded: View) -> None:
    laid = board(crowded.state)
    clan = laid.clans[1]
    held = set(laid.sight.owned[clan])
    state = crowded.state
    provinces = state.frame("Provinces").copy()
    for column in ("Controlled By", "Province Owner"):
        provinces[column] = provinces[column].where(~provinces.index.isin(held), "")
    homeless = replace(state, tables={**state.tables, "Provinces": provinces})
    seen = Sight(homeless).seen.get(clan, set())
    assert seen and not set(board(homeless).sight.owned.get(clan, []))
    drawn = scene(homeless, clan)
    assert seen <= {p.name for p in drawn.places} and len(drawn.places) < 200  # not the whole world


def test_sheet_text_in_the_svg_is_text_never_markup() -> None:
    from sheets_engine.sengoku.mapping import Marker, Place, Scene

    evil = '<script>alert("x")</script> & co'
    drawn = Scene(
        f"{evil}: after turn 1",
        [evil],
        [Place(evil, 0.0, 0.0, evil, evil, evil), Place("Mino", 1.0, 0.0, "", "", "")],
        [(evil, "Mino")],
        armies=[Marker(evil, "12", evil)],
        counts={evil: 1},
    )
    text = svg(drawn)
    assert "<script" not in text and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co" in text
    assert text.count("&lt;script&gt;") >= 3  # the title, the province's name and its tooltip, the legend
