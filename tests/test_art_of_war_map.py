"""The Art of War's board picture: hexes by ground, pieces by house and kind, capitals, the last moves."""

from __future__ import annotations

import io
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner
from PIL import Image

from sheets_engine import app
from sheets_engine.art_of_war.hexmap import board_picture, board_scene
from sheets_engine.cli import cli
from sheets_engine.core.load import load_state
from sheets_engine.rulesets import get_ruleset

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_the_board_picture_is_the_same_bytes_every_run_and_shows_the_last_moves(tmp_path: Path) -> None:
    path = tmp_path / "aw.xlsx"
    app.init(str(path), ruleset="art-of-war", options={"houses": 3, "people": 0, "seed": "map"})
    for _ in range(6):
        app.resolve(str(path), now=NOW)
    out = tmp_path / "board.png"
    result = CliRunner().invoke(cli, ["map", str(path), "--out", str(out)])
    assert (result.exit_code, result.output) == (0, f"Map written to {out}\n")
    first = out.read_bytes()
    assert Image.open(io.BytesIO(first)).size == (1320, 990)
    again = tmp_path / "again.png"  # a fresh interpreter: nothing cached in this process decides the bytes
    subprocess.run([sys.executable, "-m", "sheets_engine", "map", str(path), "--out", str(again)], check=True)
    assert again.read_bytes() == first
    assert b"Software" not in first and b"matplotlib" not in first
    state, _ = load_state(app.read_tabs(app.open_store(str(path))), get_ruleset("art-of-war").tabs)
    drawn = board_scene(state)
    assert drawn.title == "The Art of War: season 7, Tiger to move"
    assert len(drawn.ground) == 61 and len(drawn.capitals) == 3
    assert len(drawn.tokens) == sum(1 for p in state.frame("Pieces")["Hex"] if p)
    marched = [o for o in state.frame("Orders").to_dict("records") if o["Marched"]]
    assert marched and len(drawn.paths) >= 1  # the steps carried out of each house's latest order
    assert board_picture(state, season=1) != first


def test_the_board_has_no_hidden_view_and_no_layout_to_save(tmp_path: Path) -> None:
    path = tmp_path / "aw.xlsx"
    app.init(str(path), ruleset="art-of-war", options={"seed": "views"})
    result = CliRunner().invoke(cli, ["map", str(path), "--out", str(tmp_path / "x.png"), "--clan", "Crane"])
    assert (result.exit_code, result.output.strip()) == (
        2,
        "Error: The Art of War hides nothing: every house sees the whole board (drop --clan)",
    )
    result = CliRunner().invoke(cli, ["map", str(path), "--save-layout"])
    assert result.output.strip() == (
        "Error: The Art of War's hexes stand where their q,r put them: --save-layout is for Sengoku maps"
    )


def test_the_last_circuit_leaves_out_the_old_marches_of_a_house_that_fell_long_ago(tmp_path: Path) -> None:
    path = tmp_path / "aw.xlsx"
    app.init(
        str(path), ruleset="art-of-war", options={"houses": 4, "people": 0, "temper": "ruthless", "seed": "stale 11"}
    )
    for _ in range(8):  # Wolf marches in season 5 and falls soon after
        app.resolve(str(path), now=NOW)
    state, _ = load_state(app.read_tabs(app.open_store(str(path))), get_ruleset("art-of-war").tabs)
    wolf = [o for o in state.frame("Orders").to_dict("records") if o["House"] == "Wolf"]
    assert (wolf[-1]["Season"], wolf[-1]["Marched"].split(";")[0]) == (5, "P15: -2,-1 x -3,-1")
    drawn = board_scene(state)
    assert drawn.title == "The Art of War: season 9, Lotus to move"
    assert {p.house for p in drawn.paths} <= {"Crane", "Tiger", "Lotus"}
    assert "Wolf" in {p.house for p in board_scene(state, season=5).paths}  # that season's picture keeps them
