"""Clan War's map picture (`map`, and the picture in each report): the provinces and their roads,
coloured by the faction controlling each, the forces standing in them, the turn's battles, as a PNG.

`scene` gathers what to draw from a validated state (a faction's own view with `faction`: only the
forces it may see, clan_war.knowledge, framed on its own part of the map); `render` draws it with
matplotlib (Agg, loaded only here). The provinces stand where sheets_engine.maplayout places them
from the Adjacent roads (no GM places: the document gives no map coordinates), the same every time;
the same sheet gives the same bytes (fixed size, dpi and font, PNG metadata pinned).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any, cast

import networkx as nx

from sheets_engine.clan_war.knowledge import own_places, visible_people, visible_units
from sheets_engine.core.capabilities import View
from sheets_engine.core.cells import split_names
from sheets_engine.core.names import match, refusal
from sheets_engine.core.picture import DPI, MAP_STYLE, PALETTE, PNG_METADATA
from sheets_engine.core.tables import GameState
from sheets_engine.maplayout import Layout
from sheets_engine.maplayout import layout as lay_out
from sheets_engine.mapview import Label, Views, place_labels

NEUTRAL_COLOUR = "#DDDDDD"
HATCHES = ("", "//", "..", "xx")  # past seven factions a colour comes back with a hatch
WIDTH, HEIGHT, LEGEND = 11.0, 8.0, 2.6  # inches at DPI: about 1500 by 900 pixels
NAME_CHAR, FORCE_CHAR, LINE = 7.0, 6.0, 13.0  # pixels: a bold 7-point character, a 6.5-point one, a boxed line


@dataclass(frozen=True)
class Place:
    """One province as drawn."""

    name: str
    x: float
    y: float
    controller: str
    library: bool
    corrupted: bool


@dataclass(frozen=True)
class Force:
    """One faction's forces standing in a province: units, their models, personalities not with a unit."""

    province: str
    faction: str
    units: int
    models: int
    people: int

    @property
    def text(self) -> str:
        """'2 units, 36 models, +1' as the marker reads."""
        parts = [f"{self.units} unit{'s' if self.units != 1 else ''}, {self.models}m"] if self.units else []
        if self.people:
            parts.append(f"+{self.people} pers.")
        return " ".join(parts)


@dataclass
class Scene:
    """Everything one picture shows, and the box of the map it frames (left, bottom, right, top)."""

    title: str
    factions: list[str]
    places: list[Place]
    links: list[tuple[str, str]]
    box: tuple[float, float, float, float]
    forces: list[Force] = field(default_factory=list)
    battles: list[str] = field(default_factory=list)


def graph(state: GameState) -> nx.Graph:
    """The provinces (in row order) and their roads."""
    provinces = state.frame("Provinces")
    roads = nx.Graph()
    roads.add_nodes_from(str(p) for p in provinces.index)
    for p in provinces.index:
        for n in split_names(str(provinces.at[p, "Adjacent"])):
            if n in provinces.index:
                roads.add_edge(str(p), n)
    return roads


def prepare(view: View) -> Layout:
    """The places every picture of a run stands on (a report draws one map per faction from one layout)."""
    return lay_out(graph(view.state), seed=str(view.state.game("seed")))


def reader_problem(view: View, faction: str) -> str:
    """Why `faction` cannot have a map of its own ("" when it is a faction of the Factions tab)."""
    return refusal(faction, view.state.frame("Factions").index, "faction", "in the Factions tab")


def reader_name(view: View, faction: str) -> str:
    """The faction as the Factions tab spells it ("crab" -> "Crab"); as typed when it names none."""
    return match(faction, view.state.frame("Factions").index) or faction


def _whole(value: Any) -> int | None:
    try:
        return int(float(value))
    except (TypeError, ValueError):
        return None


def shown_turn(state: GameState, turn: int | None) -> int:
    """The turn a picture or report shows: the one asked, else a turn paused for its battles, else the last
    resolved."""
    if turn is not None:
        return turn
    if str(state.game("phase")) == "battle":
        return int(state.game("turn") or 0)
    return int(state.game("last_resolved_turn") or 0)


def scene(
    state: GameState, faction: str | None, turn: int | None, battles: list[dict[str, Any]], placed: Layout
) -> Scene:
    """What the map shows for a reader (None: the GMs) at `turn` (see `shown_turn`)."""
    provinces = state.frame("Provinces")
    roads = graph(state)
    number = shown_turn(state, turn)
    name = str(state.game("campaign")) or "Campaign"
    title = f"{name}: turn {number}" + (f" (the {faction} faction's view)" if faction else "")
    places = [
        Place(str(p), *placed.places[str(p)], str(provinces.at[p, "Controller"]), bool(provinces.at[p, "Library"]),
              bool(provinces.at[p, "Corrupted"]))
        for p in provinces.index
    ]  # fmt: skip
    views = Views(placed.places, roads, placed.link)
    aspect = WIDTH / HEIGHT
    window = views.clan(own_places(state, faction), aspect) if faction else views.whole(aspect)
    drawn = Scene(title, [str(f) for f in state.frame("Factions").index], places, sorted(
        (min(a, b), max(a, b)) for a, b in roads.edges), window.box)  # fmt: skip
    units, people = state.frame("Units"), state.frame("Personalities")
    tally: dict[tuple[str, str], list[int]] = {}
    for u in visible_units(state, faction):
        counts = tally.setdefault((str(units.at[u, "Province"]), str(units.at[u, "Faction"])), [0, 0, 0])
        counts[0] += 1
        counts[1] += int(units.at[u, "Models"])
    for p in visible_people(state, faction):
        if not str(people.at[p, "Unit"]):
            counts = tally.setdefault((str(people.at[p, "Province"]), str(people.at[p, "Faction"])), [0, 0, 0])
            counts[2] += 1
    drawn.forces = [Force(where, who, *counts) for (where, who), counts in tally.items() if where in placed.places]
    for row in battles:
        sides = split_names(str(row.get("Factions") or ""))
        where = str(row.get("Province") or "")
        if _whole(row.get("Turn")) == number and where in placed.places and (faction is None or faction in sides):
            drawn.battles.append(where)
    return drawn


def styles(factions: list[str]) -> dict[str, tuple[str, str]]:
    """Each faction's (colour, hatch), in Factions row order."""
    return {f: (PALETTE[i % len(PALETTE)], HATCHES[(i // len(PALETTE)) % len(HATCHES)]) for i, f in enumerate(factions)}


def render(drawn: Scene) -> bytes:
    """The scene as PNG bytes (the same scene, the same bytes)."""
    from matplotlib import patheffects, rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Circle, Patch

    with rc_context(MAP_STYLE):
        figure = Figure(figsize=(WIDTH + LEGEND, HEIGHT + 0.4), dpi=DPI)
        FigureCanvasAgg(figure)
        axes = figure.add_axes((0.0, 0.0, WIDTH / (WIDTH + LEGEND), HEIGHT / (HEIGHT + 0.4)))
        axes.set_axis_off()
        axes.set_aspect("equal", adjustable="box", anchor="W")
        left, bottom, right, top = drawn.box
        axes.set_xlim(left, right)
        axes.set_ylim(bottom, top)
        places = {p.name: p for p in drawn.places}
        lengths = sorted(((places[a].x - places[b].x) ** 2 + (places[a].y - places[b].y) ** 2) ** 0.5
                         for a, b in drawn.links)  # fmt: skip
        radius = (lengths[len(lengths) // 2] * 0.18 if lengths else 0.18) or 0.18
        palette = styles(drawn.factions)
        for a, b in drawn.links:
            axes.plot([places[a].x, places[b].x], [places[a].y, places[b].y], color="#999999", lw=0.8, zorder=1)
        halo = [patheffects.withStroke(linewidth=2.5, foreground="white")]
        for place in drawn.places:
            colour, hatch = palette.get(place.controller, (NEUTRAL_COLOUR, ""))
            hatch = "xx" if place.corrupted else hatch
            axes.add_patch(Circle((place.x, place.y), radius, facecolor=colour, hatch=hatch, edgecolor="#333333",
                                  lw=0.8, zorder=3))  # fmt: skip
            if place.library:
                axes.plot(place.x, place.y, marker="s", ms=6, color="white", markeredgecolor="black", zorder=4)
        scale = WIDTH * DPI / max(right - left, 1e-9)  # pixels per unit of the places (the window has the axes' shape)
        spots = _labels(drawn, places, scale, radius)
        for place in drawn.places:
            x, y = spots.get(("name", place.name), (place.x, place.y + radius * 1.6))
            axes.text(x, y, place.name, ha="center", va="center", fontsize=7, fontweight="bold", zorder=6,
                      path_effects=halo, clip_on=True)  # fmt: skip
        below: dict[str, int] = {}
        for force in drawn.forces:
            place = places[force.province]
            fallback = (place.x, place.y - radius * (1.6 + 1.3 * below.get(force.province, 0)))
            below[force.province] = below.get(force.province, 0) + 1
            x, y = spots.get(("force", force.province, force.faction), fallback)
            axes.text(x, y, force.text, ha="center", va="center", fontsize=6.5, color="black", zorder=6, clip_on=True,
                      bbox={"boxstyle": "round,pad=0.2", "facecolor": palette.get(force.faction,
                            (NEUTRAL_COLOUR, ""))[0], "edgecolor": "black", "lw": 0.6})  # fmt: skip
        for province in drawn.battles:
            place = places[province]
            axes.plot(place.x + radius * 0.9, place.y + radius * 0.9, marker="X", ms=12, color="#D55E00",
                      markeredgecolor="black", zorder=7)  # fmt: skip
        handles: list[Any] = [
            Patch(facecolor=palette[f][0], hatch=palette[f][1], edgecolor="#333333", label=f) for f in drawn.factions
        ]
        handles += [
            Patch(facecolor=NEUTRAL_COLOUR, edgecolor="#333333", label="neutral"),
            Patch(facecolor="white", hatch="xx", edgecolor="#333333", label="corrupted"),
            Line2D([], [], marker="s", ls="", color="white", markeredgecolor="black", ms=7, label="library"),
            Patch(facecolor="white", edgecolor="black", label="forces: units, models, personalities"),
            Line2D([], [], marker="X", ls="", color="#D55E00", markeredgecolor="black", ms=10, label="battle"),
        ]
        figure.legend(handles=handles, loc="upper right", bbox_to_anchor=(0.995, 0.97), fontsize=8, frameon=True)
        figure.suptitle(drawn.title, x=0.01, y=0.995, ha="left", va="top", fontsize=11, fontweight="bold")
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=DPI, metadata=PNG_METADATA)
    return buffer.getvalue()


def _labels(
    drawn: Scene, places: dict[str, Place], scale: float, radius: float
) -> dict[tuple[str, ...], tuple[float, float]]:
    """Where each label stands clear of the others and of every province's circle (sheets_engine.mapview):
    the forces first, then the names. A label with no free spot keeps its usual place (absent here): a
    province's name is never left out."""
    labels = [
        Label(("force", f.province, f.faction), f.text, places[f.province].x, places[f.province].y, 2.0,
              len(f.text) * FORCE_CHAR + 6.0)
        for f in drawn.forces
    ]  # fmt: skip
    labels += [Label(("name", p.name), p.name, p.x, p.y, 1.0, len(p.name) * NAME_CHAR) for p in drawn.places]
    shown = place_labels(labels, scale, NAME_CHAR, LINE, radius * scale, [(p.x, p.y) for p in drawn.places],
                         drawn.box)  # fmt: skip
    return {cast(tuple[str, ...], placed.key): (placed.x, placed.y) for placed in shown}  # the keys given above


def draw_view(view: View, faction: str | None, turn: int | None, placed: Any) -> bytes:
    """The map capability's picture: the view's state and its Battles rows, for a faction (None: the GMs)."""
    placed = placed if isinstance(placed, Layout) else prepare(view)
    return render(scene(view.state, faction, turn, view.rows("Battles"), placed))
