"""The map picture: a valid PNG, the same bytes every run, every province in its controller's colour."""

from __future__ import annotations

import io
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

from sheets_engine import app
from sheets_engine.cli import cli
from sheets_engine.sengoku.mapping import MAP_STYLE, PALETTE, colours, draw, frame, layout, picture, scene
from sheets_engine.stores.memory import MemoryStore
from sheets_engine.views import open_view
from tests.support import RULESET, tabs

NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo campaign with turn 1 resolved."""
    path = tmp_path_factory.mktemp("map") / "demo.xlsx"
    app.init(str(path), demo=True)
    app.resolve(str(path), now=NOW)
    return path


def test_the_map_is_a_png_with_the_same_bytes_every_run_and_no_software_or_date(demo: Path, tmp_path: Path) -> None:
    out = tmp_path / "map.png"
    result = CliRunner().invoke(cli, ["map", str(demo), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output == f"Map written to {out}\n"
    first = out.read_bytes()
    assert first.startswith(PNG)
    assert Image.open(io.BytesIO(first)).size == (1474, 504)
    again = tmp_path / "again.png"  # a fresh interpreter: nothing cached in this process decides the bytes
    subprocess.run([sys.executable, "-m", "sheets_engine", "map", str(demo), "--out", str(again)], check=True)
    assert again.read_bytes() == first
    assert b"Software" not in first and b"matplotlib" not in first and b"Creation" not in first


def test_every_demo_province_shows_its_controllers_colour(demo: Path) -> None:
    from matplotlib import rc_context

    campaign = open_view(str(demo))
    drawn = scene(campaign.state, battles=campaign.logs["Battles"])
    palette = colours(drawn.clans, drawn.styles)
    laid = frame(drawn)
    with rc_context(MAP_STYLE):
        figure, _, radius = draw(laid)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=figure.dpi, metadata={"Software": None})
        image = Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")
        wrong = []
        for place in drawn.places:
            # left and right of the centre: inside the circle, clear of the capital's star (pixels, y down);
            # a march's arrow leaves on one side, so one of the two is enough
            x, y = laid.where[place.name]
            hexa = palette.get(place.controller, ("#DDDDDD", ""))[0]
            wanted = tuple(int(hexa[i : i + 2], 16) for i in (1, 3, 5))
            found = [image.getpixel((round(x + side * radius * 0.75), round(y))) for side in (-1, 1)]
            if all(max(abs(a - b) for a, b in zip(seen, wanted, strict=True)) > 8 for seen in found):
                wrong.append((place.name, place.controller, found, wanted))
    assert wrong == []
    assert len(drawn.places) == 32
    held = {p.name: p.controller for p in drawn.places}
    assert held["Mikawa"] == "Oda" and held["Tamba"] == "" and held["Aki"] == "Mori"
    assert [palette[c][0] for c in drawn.clans] == list(PALETTE[:5])


def test_the_demo_map_shows_armies_marches_and_the_battle(demo: Path) -> None:
    campaign = open_view(str(demo))
    everything = scene(campaign.state, battles=campaign.logs["Battles"])
    assert [(m.province, m.to, m.kind) for m in everything.marches] == [
        ("Mikawa", "Totomi", "marched"),
        ("Iwami", "Izumo", "marched"),
    ]
    assert [b.province for b in everything.battles] == ["Totomi"]
    assert len(everything.armies) == 12
    oda = scene(campaign.state, "Oda", battles=campaign.logs["Battles"])
    assert [(a.province, a.text, a.clan) for a in oda.armies] == [
        ("Owari", "23", "Oda"),
        ("Mikawa", "1", "Oda"),
        ("Yamashiro", "8", "Oda"),
        ("Totomi", "32", "Imagawa"),
        ("Shinano", "23", "Takeda"),
    ]
    assert oda.title == "Sengoku Demo: The Year of Fire: after turn 1 (the Oda clan's view)"
    assert picture(campaign.state, "Oda") != picture(campaign.state)


def _with_places(places: dict[str, tuple[object, object]]) -> dict[str, list[list[object]]]:
    """The demo's tabs with Map X/Map Y filled in for some Provinces (a GM's placements)."""
    laid = tabs(demo=True)
    rows = laid["Provinces"]
    x, y = rows[0].index("Map X"), rows[0].index("Map Y")
    for row in rows[1:]:
        row[x], row[y] = places.get(str(row[0]), (None, None))
    return laid


def test_map_x_and_map_y_place_provinces_and_the_rest_are_laid_out_around_them() -> None:
    from sheets_engine.core.load import load_state

    state, problems = load_state(
        MemoryStore(_with_places({"Owari": (10, 20), "Aki": ("-3.5", "4")})).read(), RULESET.tabs
    )
    assert [p for p in problems if p.severity.value == "error"] == []
    places = layout(state)
    assert places["Owari"] == (10.0, 20.0) and places["Aki"] == (-3.5, 4.0)
    assert len(places) == 32 and layout(state) == places  # the same every time


def test_a_map_x_that_is_no_number_is_reported_with_tab_row_and_column() -> None:
    problems = app.validate(MemoryStore(_with_places({"Mino": ("east", 1)})))
    assert [(p.tab, p.row, p.column, p.value, p.expected) for p in problems if p.column == "Map X"] == [
        ("Provinces", 3, "Map X", "east", "expected a number (where the map draws the province) or an empty cell")
    ]


def test_save_layout_writes_the_places_with_history_and_the_picture_stays_the_same(demo: Path, tmp_path: Path) -> None:
    copy = tmp_path / "kept.xlsx"
    copy.write_bytes(demo.read_bytes())
    before = picture(open_view(str(copy)).state)
    result = CliRunner().invoke(cli, ["map", str(copy), "--save-layout"])
    assert result.exit_code == 0, result.output
    assert result.output == "Saved the places of 32 provinces in the Provinces columns Map X and Map Y.\n"
    assert app.validate(str(copy)) == []
    campaign = open_view(str(copy))
    frame = campaign.state.frame("Provinces")
    assert frame["Map X"].notna().all() and frame["Map Y"].notna().all()
    kept = [r for r in campaign.logs["History"] if r["Cause"] == "map layout kept"]
    assert len(kept) == 64 and {r["Column"] for r in kept} == {"Map X", "Map Y"}
    assert picture(campaign.state) == before  # the kept layout draws the very same picture
    again = CliRunner().invoke(cli, ["map", str(copy), "--save-layout"])
    assert again.output == "Saved the places of 0 provinces in the Provinces columns Map X and Map Y.\n"


def test_map_refuses_an_unknown_clan_and_a_call_without_out(demo: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["map", str(demo), "--out", str(tmp_path / "x.png"), "--clan", "Hojo"])
    assert result.exit_code == 2
    assert "there is no clan 'Hojo' in the Clans tab (clans: Oda, Imagawa, Takeda, Uesugi, Mori)" in result.output
    bare = CliRunner().invoke(cli, ["map", str(demo)])
    assert bare.exit_code == 2 and "give --out FILE.png, --save-layout, or both" in bare.output


@pytest.mark.parametrize(
    ("cell", "read"),
    [(None, None), ("  ", None), (3, 3.0), (-2.5, -2.5), (" 12.5 ", 12.5), ("1e3", 1000.0), ("-.5", -0.5)],
)
def test_a_map_coordinate_is_any_number_or_empty(cell: object, read: float | None) -> None:
    from pydantic import TypeAdapter

    from sheets_engine.sengoku.schema import MapCoordinate

    assert TypeAdapter(MapCoordinate).validate_python(cell) == read


@pytest.mark.parametrize("cell", ["east", "1e400", "nan", "inf", True, datetime(2026, 1, 1), "1_000", "#REF!", 10**12])
def test_a_map_coordinate_that_is_no_number_is_refused(cell: object) -> None:
    from pydantic import TypeAdapter, ValidationError

    from sheets_engine.sengoku.schema import MapCoordinate

    with pytest.raises(ValidationError, match="expected a number \\(where the map draws the province\\) or an empty"):
        TypeAdapter(MapCoordinate).validate_python(cell)
