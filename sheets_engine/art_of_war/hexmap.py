"""The Art of War's board picture: the hexes with their ground, the pieces in their house's colour, the
capitals, and the last moves and attacks, as a PNG.

A view at the edge, like the Sengoku map (sheets_engine.sengoku.mapping; both take their palette, style
and pinned PNG metadata from core.picture): `board_scene` gathers what to draw from a validated state,
`render_board` draws it with matplotlib's Agg canvas. The same sheet gives the same bytes. It is the
ruleset's map capability (`draw_view`): every house sees the whole board.

The moves drawn are the steps carried out (the Orders column `Marched`) of each house's latest
resolved order: the last circuit of the houses. With `season`, those of that season's orders.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field
from typing import Any

from sheets_engine.art_of_war.hexes import Hex, parse_hex
from sheets_engine.art_of_war.orders import parse_moves
from sheets_engine.art_of_war.schema import OrderStatus
from sheets_engine.core.capabilities import View
from sheets_engine.core.picture import DPI, MAP_STYLE, PALETTE, PNG_METADATA
from sheets_engine.core.tables import GameState

GROUND_COLOURS = {"plain": "#EEF2D0", "highland": "#C9A66B", "forest": "#6E9B5A"}
GROUND_HATCHES = {"plain": "", "highland": "//", "forest": ".."}  # the ground reads without colour too
OTHER_GROUND = "#DDDDDD"
SQRT3 = math.sqrt(3)


@dataclass(frozen=True)
class Token:
    """A piece as drawn."""

    id: str
    house: str
    kind: str
    hex: Hex


@dataclass(frozen=True)
class Path:
    """One piece's steps carried out: the hexes it passed, and the hex it attacked (if it did)."""

    house: str
    hexes: tuple[Hex, ...]
    attacked: Hex | None


@dataclass
class BoardScene:
    """Everything one board picture shows."""

    title: str
    houses: list[tuple[str, int, bool]]  # (house, mandate, fallen), in seat order
    ground: dict[Hex, str]
    capitals: dict[Hex, str]
    tokens: list[Token] = field(default_factory=list)
    paths: list[Path] = field(default_factory=list)


def centre(where: Hex) -> tuple[float, float]:
    """A hex's centre on the page (pointy-topped hexes of radius 1; north up)."""
    q, r = where
    return SQRT3 * (q + r / 2), -1.5 * r


def board_scene(state: GameState, season: int | None = None) -> BoardScene:
    """What the picture of an Art of War campaign shows."""
    ground = {
        h: str(row["Terrain"]).casefold() for key, row in state.frame("Board").iterrows() if (h := parse_hex(key))
    }
    capitals = {
        h: str(row["Capital Of"])
        for key, row in state.frame("Board").iterrows()
        if (h := parse_hex(key)) and row["Capital Of"]
    }
    houses = [(str(h), int(row["Mandate"]), bool(row["Fallen"])) for h, row in state.frame("Houses").iterrows()]
    tokens = [
        Token(str(p), str(row["House"]), str(row["Kind"]), h)
        for p, row in state.frame("Pieces").iterrows()
        if (h := parse_hex(row["Hex"])) is not None
    ]
    status = str(state.game("status")).strip().casefold()
    now = f"season {state.game('season')}, {state.game('to_move')} to move"
    over = f"over after season {state.game('season')}: " + (
        f"{state.game('winner')} wins" if state.game("winner") else "no winner"
    )
    title = "The Art of War: " + (over if status == "over" else now)
    if season is not None:
        title += f" (moves of season {season})"
    return BoardScene(title, houses, ground, capitals, tokens, _paths(state, season))


def _paths(state: GameState, season: int | None) -> list[Path]:
    rows = [
        row
        for _, row in state.frame("Orders").iterrows()
        if row["Status"] == OrderStatus.RESOLVED and (season is None or int(row["Season"]) == season)
    ]
    if season is None:  # each house's latest resolved order: the last circuit
        rows = list({str(row["House"]): row for row in rows}.values())
        now = int(str(state.game("season")).strip() or 1)  # validated
        rows = [row for row in rows if int(row["Season"]) >= now - 1]  # not a fallen house's marches of long ago
    paths = []
    for row in rows:
        for entry in parse_moves(str(row["Marched"])):
            if entry.error or entry.start is None:
                continue
            hexes = [entry.start] + [s.to for s in entry.steps if not s.attack]
            attacked = next((s.to for s in entry.steps if s.attack), None)
            paths.append(Path(str(row["House"]), tuple(hexes), attacked))
    return paths


def house_colours(houses: list[str]) -> dict[str, str]:
    """Each house's colour, in seat order (the Sengoku map's colour-blind-safe palette)."""
    return {h: PALETTE[i % len(PALETTE)] for i, h in enumerate(houses)}


def render_board(drawn: BoardScene) -> bytes:
    """The scene as PNG bytes (no Software or date in the PNG: the same scene, the same bytes)."""
    from matplotlib import rc_context

    with rc_context(MAP_STYLE):
        figure = draw_board(drawn)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=DPI, metadata=PNG_METADATA)
    return buffer.getvalue()


def draw_board(drawn: BoardScene) -> Any:
    """The scene on a matplotlib Figure (Agg canvas, no pyplot)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import FancyArrowPatch, Patch, RegularPolygon

    palette = house_colours([h for h, _, _ in drawn.houses])
    points = [centre(h) for h in drawn.ground] or [(0.0, 0.0)]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    figure = Figure(figsize=(12.0, 9.0), dpi=DPI)
    FigureCanvasAgg(figure)
    axes = figure.add_axes((0.0, 0.0, 0.76, 0.95))
    axes.set_axis_off()
    axes.set_aspect("equal")
    axes.set_xlim(min(xs) - 1.5, max(xs) + 1.5)
    axes.set_ylim(min(ys) - 1.5, max(ys) + 1.5)
    for where, name in drawn.ground.items():
        owner = drawn.capitals.get(where)
        axes.add_patch(
            RegularPolygon(centre(where), 6, radius=0.98, facecolor=GROUND_COLOURS.get(name, OTHER_GROUND),
                           hatch=GROUND_HATCHES.get(name, ""), edgecolor=palette.get(owner, "#888888") if owner else
                           "#888888", lw=3.5 if owner else 0.6, zorder=1)
        )  # fmt: skip
        x, y = centre(where)
        axes.text(x, y - 0.62, f"{where[0]},{where[1]}", ha="center", va="center", fontsize=5, color="#555555",
                  zorder=2)  # fmt: skip
        if owner:
            axes.plot(x, y + 0.52, marker="*", ms=11, color=palette.get(owner, "white"), markeredgecolor="black",
                      markeredgewidth=0.8, zorder=5)  # fmt: skip
    for token in drawn.tokens:
        x, y = centre(token.hex)
        marker, size = ("^", 17) if token.kind == "soldier" else ("o", 15)
        axes.plot(x, y, marker=marker, ms=size, color=palette.get(token.house, "white"), markeredgecolor="black",
                  markeredgewidth=1.0, zorder=4)  # fmt: skip
        axes.text(x, y - 0.05, token.id, ha="center", va="center", fontsize=5.5, fontweight="bold", zorder=6)
    for path in drawn.paths:
        colour = palette.get(path.house, "black")
        for a, b in zip(path.hexes, path.hexes[1:], strict=False):
            axes.add_patch(
                FancyArrowPatch(centre(a), centre(b), arrowstyle="-|>", mutation_scale=12, color="black", lw=2.4,
                                shrinkA=6, shrinkB=6, zorder=7)
            )  # fmt: skip
            axes.add_patch(
                FancyArrowPatch(centre(a), centre(b), arrowstyle="-|>", mutation_scale=10, color=colour, lw=1.4,
                                shrinkA=6, shrinkB=7, zorder=8)
            )  # fmt: skip
        if path.attacked is not None:
            start, target = centre(path.hexes[-1]), centre(path.attacked)
            axes.add_patch(
                FancyArrowPatch(start, target, arrowstyle="-|>", mutation_scale=12, color="#D55E00", lw=2,
                                linestyle="--", shrinkA=6, shrinkB=4, zorder=8)
            )  # fmt: skip
            axes.plot(*target, marker="X", ms=12, color="#D55E00", markeredgecolor="black", zorder=9)
    handles: list[Any] = [
        Patch(facecolor=palette[h], edgecolor="#333333", label=f"{h}: mandate {m}" + (" (fallen)" if fallen else ""))
        for h, m, fallen in drawn.houses
    ]
    handles += [
        Patch(facecolor=GROUND_COLOURS[g], hatch=GROUND_HATCHES[g], edgecolor="#888888", label=g)
        for g in ("plain", "highland", "forest")
    ]
    handles += [
        Line2D([], [], marker="o", ls="", color="white", markeredgecolor="black", ms=9, label="settler"),
        Line2D([], [], marker="^", ls="", color="white", markeredgecolor="black", ms=10, label="soldier"),
        Line2D([], [], marker="*", ls="", color="white", markeredgecolor="black", ms=10, label="capital"),
        Line2D([], [], color="black", lw=2, label="march (the last circuit)"),
        Line2D([], [], color="#D55E00", lw=2, ls="--", marker="X", label="attack"),
    ]
    figure.legend(handles=handles, loc="upper right", bbox_to_anchor=(0.995, 0.95), fontsize=8, frameon=True)
    figure.suptitle(drawn.title, x=0.01, y=0.995, ha="left", va="top", fontsize=11, fontweight="bold")
    return figure


def board_picture(state: GameState, season: int | None = None) -> bytes:
    """The board of an Art of War campaign as PNG bytes."""
    return render_board(board_scene(state, season))


NO_READER = "The Art of War hides nothing: every house sees the whole board (drop --clan)"


def draw_view(view: View, reader: str | None, season: int | None, prepared: Any) -> bytes:
    """The map capability's picture: the whole board (every house sees it all)."""
    return board_picture(view.state, season)


def reader_problem(view: View, reader: str) -> str:
    """No house has a view of its own."""
    return NO_READER
