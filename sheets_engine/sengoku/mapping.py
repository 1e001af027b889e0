"""The map picture: provinces, who controls them, armies, this turn's marches, battles and sieges, as a PNG.

A view at the edge: `scene` gathers what to draw from a validated state (a clan's own view with
`clan`: only the armies it may see, only its own failed marches), `render` draws it with matplotlib
(the Agg backend, loaded only here: other commands never pay for it). The same sheet gives the
same bytes: a fixed size, dpi and font, provinces placed in Provinces row order, PNG metadata
pinned (no Software, no date).

Provinces stand where the optional Provinces columns `Map X` (east) and `Map Y` (north) put them;
the others are placed by a seeded networkx spring layout around them (`layout`), which
`map --save-layout` offers the GM to keep (`kept_layout`).
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass, field, replace
from typing import Any

from sheets_engine.core.capabilities import View
from sheets_engine.core.cells import split_names
from sheets_engine.core.grid import CellEdit
from sheets_engine.core.names import UnknownName, match, require
from sheets_engine.core.picture import DPI, MAP_STYLE, PALETTE, PNG_METADATA
from sheets_engine.core.ruleset import Outcome
from sheets_engine.core.tables import Draft, GameState
from sheets_engine.sengoku.alliances import province_map
from sheets_engine.sengoku.schema import MAP_COLUMNS, UNIT_COLUMNS
from sheets_engine.sengoku.visibility import controller, visible_armies

HATCHES = ("", "//", "..", "xx")  # past seven clans a colour comes back with a hatch
NO_CLAN = "#DDDDDD"
MAP_WIDTH, LEGEND_WIDTH = 11.0, 2.4  # inches, at DPI: about 1500 pixels wide


@dataclass(frozen=True)
class Place:
    """One province as drawn."""

    name: str
    x: float
    y: float
    controller: str
    owner: str
    capital_of: str


@dataclass(frozen=True)
class Marker:
    """An army (its label), a march (from, to, how it went), a battle or a siege."""

    province: str
    text: str = ""
    clan: str = ""
    to: str = ""
    kind: str = ""  # marches: "marched", "blocked", "failed"


@dataclass
class Scene:
    """Everything one map picture shows."""

    title: str
    clans: list[str]
    places: list[Place]
    links: list[tuple[str, str]]
    armies: list[Marker] = field(default_factory=list)
    marches: list[Marker] = field(default_factory=list)
    battles: list[Marker] = field(default_factory=list)
    sieges: list[Marker] = field(default_factory=list)


def _seed(state: GameState) -> int:
    """The layout's seed from the campaign's seed (text), stable across runs and machines."""
    return int(hashlib.sha256(str(state.game("seed")).encode()).hexdigest()[:8], 16)


def layout(state: GameState) -> dict[str, tuple[float, float]]:
    """Every province's place: Map X/Map Y where the GM gave both, else a seeded spring layout around them."""
    import networkx as nx

    provinces = state.frame("Provinces")
    given = {
        str(p): (float(provinces.at[p, "Map X"]), float(provinces.at[p, "Map Y"]))
        for p in provinces.index
        if provinces.at[p, "Map X"] is not None and provinces.at[p, "Map Y"] is not None
    }
    if len(given) == len(provinces):
        return given
    graph = province_map(provinces)
    n = max(len(graph), 1)
    placed = nx.spring_layout(
        graph,
        pos=given or None,
        fixed=list(given) or None,
        seed=_seed(state),
        iterations=500 if n <= 300 else 100,  # a big map is a texture: fewer rounds keep it to seconds
        k=3 / n**0.5,
    )
    if not given:
        placed = _spread(_level(placed), graph)
    # Rounded so that the last bits of floating point never move a pixel between machines.
    return {str(p): given.get(str(p), (round(float(placed[p][0]), 4), round(float(placed[p][1]), 4))) for p in graph}


def _spread(placed: dict[Any, tuple[float, float]], graph: Any, rounds: int = 300) -> dict[Any, tuple[float, float]]:
    """Provinces pushed apart until none stands closer than 1.25 typical links (a spring layout
    packs tight clusters at the ends of long chains). Deterministic: fixed rounds, fixed order."""
    import numpy as np

    names = list(placed)
    if len(names) < 2 or len(names) > 400:  # pairwise pushes cost n squared; a bigger map is a texture anyway
        return placed
    points = np.array([placed[p] for p in names], dtype=float)
    index = {p: i for i, p in enumerate(names)}
    links = [(index[a], index[b]) for a, b in graph.edges if a in index and b in index]
    typical = float(np.median([np.linalg.norm(points[a] - points[b]) for a, b in links])) if links else 0.1
    least = 1.25 * typical
    for _ in range(rounds):
        gaps = points[:, None, :] - points[None, :, :]
        distance = np.sqrt((gaps**2).sum(axis=2)) + np.eye(len(names))
        deficit = np.clip(least - distance, 0, None)
        np.fill_diagonal(deficit, 0)
        if not deficit.any():
            break
        push = (gaps / distance[:, :, None] * deficit[:, :, None] / 2).sum(axis=1)
        points += push
    return {p: (float(x), float(y)) for p, (x, y) in zip(names, points, strict=True)}


def _level(placed: dict[Any, Any]) -> dict[Any, tuple[float, float]]:
    """A computed layout turned so that its long side lies across the picture (principal axes)."""
    import numpy as np

    names = list(placed)
    points = np.array([placed[p] for p in names], dtype=float)
    if len(points) < 3:
        return {p: (float(x), float(y)) for p, (x, y) in zip(names, points, strict=True)}
    centred = points - points.mean(axis=0)
    _, vectors = np.linalg.eigh(np.cov(centred.T))
    turned = centred @ vectors[:, ::-1]  # the widest axis first
    turned *= np.where(turned[0] < 0, -1.0, 1.0)  # the first province to the upper right: a fixed handedness
    return {p: (float(x), float(y)) for p, (x, y) in zip(names, turned, strict=True)}


def unplaced(state: GameState) -> dict[str, tuple[float, float]]:
    """The computed places of provinces without Map X/Map Y (what `map --save-layout` writes)."""
    provinces = state.frame("Provinces")
    places = layout(state)
    return {
        str(p): places[str(p)]
        for p in provinces.index
        if provinces.at[p, "Map X"] is None or provinces.at[p, "Map Y"] is None
    }


def scene(
    state: GameState,
    clan: str | None = None,
    turn: int | None = None,
    battles: list[dict[str, Any]] | None = None,
    places: dict[str, tuple[float, float]] | None = None,
) -> Scene:
    """What the map shows after `turn` (default: the last resolved turn); with `clan`, that clan's view.

    `battles` are the Battles tab's rows (a log tab, read apart from the state); `places` a layout
    already computed for this state (reports draw one map per clan from one layout).
    """
    provinces = state.frame("Provinces")
    clans = [str(c) for c in state.frame("Clans").index]
    places = places if places is not None else layout(state)
    held = controller(state)
    capitals = {str(state.frame("Clans").at[c, "Capital"]): str(c) for c in state.frame("Clans").index}
    number = turn if turn is not None else int(state.game("last_resolved_turn") or 0)
    name = str(state.game("campaign")) or "Campaign"
    title = f"{name}: after turn {number}" + (f" (the {clan} clan's view)" if clan else "")
    owners = provinces["Province Owner"]
    links = {
        (min(str(p), n), max(str(p), n))
        for p in provinces.index
        for n in split_names(str(provinces.at[p, "Adjacent"]))
        if n in provinces.index
    }
    drawn = Scene(
        title,
        clans,
        [
            Place(str(p), *places[str(p)], held[str(p)], str(owners[p]), capitals.get(str(p), ""))
            for p in provinces.index
        ],
        sorted(links),
    )
    armies = state.frame("Armies")
    shown = visible_armies(state, clan) if clan else _all_standing(state)
    marched_to = _destinations(state, number)
    for army in shown:
        units = sum(int(armies.at[army, c]) for c in UNIT_COLUMNS)
        drawn.armies.append(Marker(str(armies.at[army, "Province"]), str(units), str(armies.at[army, "Clan"])))
        origin = str(armies.at[army, "Origin"])
        if bool(armies.at[army, "Moved"]) and origin and origin in places and number == _last(state):
            # an army that marched and then retreated stands at its origin again: the order says where it went
            to = marched_to.get(army, str(armies.at[army, "Province"]))
            drawn.marches.append(Marker(origin, army, str(armies.at[army, "Clan"]), to, "marched"))
    drawn.marches += _failed_marches(state, clan, number)
    seen = {m.province for m in drawn.armies} | ({p for p, c in held.items() if c == clan} if clan else set(places))
    for row in battles or []:
        sides = split_names(str(row.get("Attacker") or "")) + split_names(str(row.get("Defender") or ""))
        where = str(row.get("Province") or "")
        if _whole(row.get("Turn")) == number and where in places and (not clan or clan in sides or where in seen):
            drawn.battles.append(Marker(where, str(row.get("Outcome") or "")))
    sieges = state.frame("Sieges")
    for key in sieges.index:
        where = str(sieges.at[key, "Province"])
        besieger, defender = str(sieges.at[key, "Besieger"]), str(sieges.at[key, "Defender"])
        if (
            sieges.at[key, "Status"] == "Active"
            and where in places
            and (not clan or clan in (besieger, defender) or where in seen)
        ):
            drawn.sieges.append(Marker(where, f"siege: {besieger} against {defender}"))
    return drawn


def _all_standing(state: GameState) -> list[str]:
    armies = state.frame("Armies")
    return [str(a) for a in armies.index[armies["Status"] != "Destroyed"]]


def _last(state: GameState) -> int:
    return int(state.game("last_resolved_turn") or 0)


def _whole(value: Any) -> int | None:
    try:
        return int(float(value))
    except (TypeError, ValueError):
        return None


def _destinations(state: GameState, number: int) -> dict[str, str]:
    """Where each army was led this turn by a lead-army order that went through (army -> province)."""
    from sheets_engine.sengoku.orders import find

    orders, armies, provinces = state.frame("Orders"), state.frame("Armies"), state.frame("Provinces")
    done = orders[(orders["Turn"] == number) & (orders["Status"] == "Resolved")]
    found = {}
    for key in done.index:
        if "lead" not in str(done.at[key, "Order"]).casefold() or str(done.at[key, "Result"]).startswith("Blocked"):
            continue
        army = find(armies.index, str(done.at[key, "Target"]))
        destination = find(provinces.index, str(done.at[key, "Detail"]))
        if army and destination:
            found[army] = destination
    return found


def _failed_marches(state: GameState, clan: str | None, number: int) -> list[Marker]:
    """lead-army orders of the turn that were blocked or rejected (the clan's own only, in its view)."""
    from sheets_engine.sengoku.orders import find

    orders, armies, characters = state.frame("Orders"), state.frame("Armies"), state.frame("Characters")
    provinces = state.frame("Provinces")
    found = []
    rows = orders[(orders["Turn"] == number) & (orders["Order"].str.casefold().str.contains("lead", regex=False))]
    for key in rows.index:
        status, result = str(rows.at[key, "Status"]), str(rows.at[key, "Result"])
        blocked = status == "Resolved" and result.startswith("Blocked")
        if not blocked and status != "Rejected":
            continue
        army = find(armies.index, str(rows.at[key, "Target"]))
        destination = find(provinces.index, str(rows.at[key, "Detail"]))
        if army is None or destination is None:
            continue
        owner = str(armies.at[army, "Clan"])
        who = find(characters.index, str(rows.at[key, "Character"]))
        giver = str(characters.at[who, "Clan"]) if who else ""
        if clan and clan not in (owner, giver):
            continue
        start = str(armies.at[army, "Province"])
        if start != destination:
            found.append(Marker(start, army, owner, destination, "blocked" if blocked else "failed"))
    return found


def colours(clans: list[str]) -> dict[str, tuple[str, str]]:
    """Each clan's (colour, hatch), in Clans row order."""
    return {c: (PALETTE[i % len(PALETTE)], HATCHES[(i // len(PALETTE)) % len(HATCHES)]) for i, c in enumerate(clans)}


def render(drawn: Scene) -> bytes:
    """The scene as PNG bytes (the same scene, the same bytes: no Software or date in the PNG)."""
    from matplotlib import rc_context

    with rc_context(MAP_STYLE):
        figure = draw(drawn)[0]
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=DPI, metadata=PNG_METADATA)
    return buffer.getvalue()


def draw(drawn: Scene) -> tuple[Any, Any, float]:
    """The scene on a matplotlib Figure (Agg canvas; no pyplot, so no global state): (figure, map axes,
    province radius in data units). Call inside rc_context(MAP_STYLE), as `render` does."""
    from matplotlib import patheffects
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Circle, FancyArrowPatch, Patch

    places = {p.name: p for p in drawn.places}
    xs = [p.x for p in drawn.places] or [0.0]
    ys = [p.y for p in drawn.places] or [0.0]
    lengths = sorted(
        ((places[a].x - places[b].x) ** 2 + (places[a].y - places[b].y) ** 2) ** 0.5 for a, b in drawn.links
    )
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    radius = (lengths[len(lengths) // 2] * 0.28 if lengths else span * 0.03) or span * 0.03
    pad = radius * 3
    left, right, bottom, top = min(xs) - pad, max(xs) + pad, min(ys) - pad * 1.6, max(ys) + pad
    # The picture takes the map's own shape (wide maps wide), within bounds a phone can show.
    width = MAP_WIDTH
    height = min(max(width * (top - bottom) / max(right - left, 1e-9), 4.0), 11.0)
    figure = Figure(figsize=(width + LEGEND_WIDTH, height + 0.5), dpi=DPI)
    FigureCanvasAgg(figure)
    total = width + LEGEND_WIDTH
    axes = figure.add_axes((0.0, 0.0, width / total, height / (height + 0.5)))
    axes.set_axis_off()
    axes.set_aspect("equal", adjustable="box", anchor="W")
    axes.set_xlim(left, right)
    axes.set_ylim(bottom, top)
    radius_points = radius / (right - left) * width * 72  # the circle's radius in points (marker sizes)
    palette = colours(drawn.clans)
    for a, b in drawn.links:
        axes.plot([places[a].x, places[b].x], [places[a].y, places[b].y], color="#999999", lw=0.8, zorder=1)
    halo = [patheffects.withStroke(linewidth=2.5, foreground="white")]
    for place in drawn.places:
        colour, hatch = palette.get(place.controller, (NO_CLAN, ""))
        edge = palette.get(place.owner, ("#555555", ""))[0] if place.owner != place.controller else "#333333"
        axes.add_patch(
            Circle((place.x, place.y), radius, facecolor=colour, edgecolor=edge, hatch=hatch,
                   lw=3 if place.owner != place.controller else 0.8, zorder=3)
        )  # fmt: skip
        if place.capital_of:
            axes.plot(place.x, place.y, marker="*", ms=radius_points * 1.1, color="white",
                      markeredgecolor="black", markeredgewidth=0.8, zorder=4)  # fmt: skip
        axes.text(place.x, place.y + radius * 1.15, place.name, ha="center", va="bottom", fontsize=7,
                  fontweight="bold", zorder=6, path_effects=halo)  # fmt: skip
    here: dict[str, list[Marker]] = {}
    for army in drawn.armies:
        if army.province in places:
            here.setdefault(army.province, []).append(army)
    for province, standing in here.items():
        place = places[province]
        for i, army in enumerate(standing):  # side by side under the province, in Armies row order
            axes.text(place.x + (i - (len(standing) - 1) / 2) * radius * 1.3, place.y - radius * 1.15, army.text,
                      ha="center", va="top", fontsize=7, fontweight="bold", color="black", zorder=6,
                      bbox={"boxstyle": "round,pad=0.2", "facecolor": palette.get(army.clan, (NO_CLAN, ""))[0],
                            "edgecolor": "black", "lw": 0.6})  # fmt: skip
    styles = {"marched": ("-", "black"), "blocked": ("--", "#D55E00"), "failed": (":", "#D55E00")}
    for march in drawn.marches:
        if march.province not in places or march.to not in places:
            continue
        line, colour = styles[march.kind]
        start, end = places[march.province], places[march.to]
        axes.add_patch(
            FancyArrowPatch((start.x, start.y), (end.x, end.y), arrowstyle="-|>", mutation_scale=14,
                            linestyle=line, color=colour, lw=2, shrinkA=9, shrinkB=9,
                            connectionstyle="arc3,rad=0.15", zorder=5)
        )  # fmt: skip
    for battle in drawn.battles:
        place = places[battle.province]
        axes.plot(place.x + radius * 0.9, place.y + radius * 0.9, marker="X", ms=12, color="#D55E00",
                  markeredgecolor="black", zorder=7)  # fmt: skip
    for siege in drawn.sieges:
        place = places[siege.province]
        axes.plot(place.x - radius * 0.9, place.y + radius * 0.9, marker="s", ms=10, color="white",
                  markeredgecolor="black", markeredgewidth=2, zorder=7)  # fmt: skip
    handles: list[Any] = [
        Patch(facecolor=palette[c][0], hatch=palette[c][1], edgecolor="#333333", label=c) for c in drawn.clans
    ]
    handles += [
        Patch(facecolor=NO_CLAN, edgecolor="#333333", label="no clan"),
        Line2D([], [], marker="*", ls="", color="white", markeredgecolor="black", ms=10, label="capital"),
        Patch(facecolor="white", edgecolor="black", label="army: its units, its clan's colour"),
        Line2D([], [], color="black", lw=2, label="march"),
        Line2D([], [], color="#D55E00", lw=2, ls="--", label="march blocked"),
        Line2D([], [], color="#D55E00", lw=2, ls=":", label="march refused"),
        Line2D([], [], marker="X", ls="", color="#D55E00", markeredgecolor="black", ms=10, label="battle"),
        Line2D([], [], marker="s", ls="", color="white", markeredgecolor="black", ms=8, label="siege"),
        Patch(facecolor="white", edgecolor="#555555", lw=3, label="ring: owner, if not controller"),
    ]
    figure.legend(handles=handles, loc="upper right", bbox_to_anchor=(0.995, 0.97), fontsize=8, frameon=True)
    figure.suptitle(drawn.title, x=0.01, y=0.995, ha="left", va="top", fontsize=11, fontweight="bold")
    return figure, axes, radius


def picture(
    state: GameState,
    clan: str | None = None,
    turn: int | None = None,
    battles: list[dict[str, Any]] | None = None,
    places: dict[str, tuple[float, float]] | None = None,
) -> bytes:
    """The map of the state as PNG bytes (see `scene` and `render`)."""
    return render(scene(state, clan, turn, battles, places))


def kept_layout(state: GameState) -> Outcome:
    """`map --save-layout`: the computed places of the provinces that have none written into Map X/Map Y
    (the columns added after the last header if the tab lacks them), each cell with its History row; a
    GM's own places are never touched. The summary counts the provinces placed."""
    places = unplaced(state)
    turn = int(state.game("turn") or 0)
    if not places:
        return Outcome.unchanged(state, turn, {"provinces placed": 0})
    where = state.layouts["Provinces"]
    columns: dict[str, int] = dict(where.columns)
    headers: list[CellEdit] = []
    for column in MAP_COLUMNS:  # an older workbook has no such columns: they go after its last header
        if column not in columns:
            columns[column] = where.width + 1 + len(headers)
            headers.append(CellEdit("Provinces", where.title, 1, columns[column], column, None, column))
    state = replace(
        state, layouts={**state.layouts, "Provinces": replace(where, columns=columns, width=max(columns.values()))}
    )
    draft = Draft(state)
    for province, (x, y) in places.items():
        draft.set("Provinces", province, "Map X", x, "map layout kept")
        draft.set("Provinces", province, "Map Y", y, "map layout kept")
    return Outcome.of(draft, turn, {"provinces placed": len(places)}, cells=headers)


def reader_problem(view: View, clan: str) -> str:
    """Why `clan` cannot have a map of its own ("" when it is a clan of the Clans tab, in any case)."""
    try:
        require(clan, view.state.frame("Clans").index, "clan", "in the Clans tab")
    except UnknownName as error:
        return str(error)
    return ""


def reader_name(view: View, clan: str) -> str:
    """The clan as the Clans tab spells it ("oda" -> "Oda"); as typed when it names none."""
    return match(clan, view.state.frame("Clans").index) or clan


def draw_view(view: View, clan: str | None, turn: int | None, places: Any) -> bytes:
    """The map capability's picture: `picture` of the view's state and its Battles rows."""
    return picture(view.state, clan, turn, view.rows("Battles"), places)


def prepare(view: View) -> dict[str, tuple[float, float]]:
    """The places every picture of a run stands on (reports draw one map per clan from one layout)."""
    return layout(view.state)
