"""The map picture: provinces, who controls them, armies, this turn's marches, battles and sieges, as a
PNG or an SVG.

A view at the edge, in three steps:

- `scene` gathers what to draw from a validated state (a clan's own view with `clan`: only the
  armies it may see, only its own failed marches, and only the part of the map around its own
  provinces and their neighbours, so that at 10,000 provinces a clan sees its region legibly);
- `frame` lays the scene out in pixels (sheets_engine.mapview: the clan's window, labels that never
  collide, a legend that fits; one style per clan, no two bordering clans alike);
- `render` draws that with matplotlib (the Agg backend, loaded only here: other commands never pay
  for it) and `svg` writes it as SVG text (a phone zooms it; a report holds one per clan, written
  directly: no figure to build, so a report of 800 clans costs seconds).

The same sheet gives the same bytes: a fixed size, dpi and font, provinces in Provinces row order,
the PNG's metadata pinned (no Software, no date), the SVG written by this module alone.

Provinces stand where the optional Provinces columns `Map X` (east) and `Map Y` (north) put them;
the others are laid out around them (sheets_engine.maplayout: numpy and networkx, linear in the
map), which `map --save-layout` offers the GM to keep (`kept_layout`).
"""

from __future__ import annotations

import hashlib
import html
import io
import math
from collections.abc import Hashable
from dataclasses import dataclass, field, replace
from typing import Any

from sheets_engine.core.capabilities import View
from sheets_engine.core.cells import split_names
from sheets_engine.core.grid import CellEdit
from sheets_engine.core.names import match, refusal
from sheets_engine.core.picture import DPI, MAP_STYLE, PALETTE, PNG_METADATA
from sheets_engine.core.ruleset import Outcome
from sheets_engine.core.tables import Draft, GameState
from sheets_engine.sengoku.schema import MAP_COLUMNS, UNIT_COLUMNS
from sheets_engine.sengoku.visibility import Sight

HATCHES = ("", "//", "..", "xx")  # past seven clans a colour comes back with a hatch
NO_CLAN = "#DDDDDD"
MAP_WIDTH, LEGEND_WIDTH = 11.0, 2.4  # inches, at DPI: about 1500 pixels wide
CLAN_HEIGHT = 7.0  # inches: a clan's window has the picture's shape 11 by 7
TITLE = 0.5  # inches above the map for the title
FONT = 7.0  # points: province names and army numbers (bold)
LEGEND_FONT = 8.0  # points
RADIUS = 0.28  # a province's circle, in links (maplayout keeps provinces 0.6 links apart)
WHOLE_LEAST = 6.0  # links: the least window


def _px(points: float) -> float:
    return points * DPI / 72


Point = tuple[float, float]


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
    """Everything one map picture shows: `places` are the provinces inside its window (`box`, in the
    layout's units; None: the whole map), `link` a link's length in those units."""

    title: str
    clans: list[str]
    places: list[Place]
    links: list[tuple[str, str]]
    armies: list[Marker] = field(default_factory=list)
    marches: list[Marker] = field(default_factory=list)
    battles: list[Marker] = field(default_factory=list)
    sieges: list[Marker] = field(default_factory=list)
    box: tuple[float, float, float, float] | None = None
    link: float = 1.0
    viewer: str = ""
    styles: dict[str, int] = field(default_factory=dict)  # clan -> style number (see `colours`)
    counts: dict[str, int] = field(default_factory=dict)  # clan -> provinces it controls (the legend's numbers)


def _seed(state: GameState) -> int:
    """The layout's seed from the campaign's seed (text), stable across runs and machines."""
    return int(hashlib.sha256(str(state.game("seed")).encode()).hexdigest()[:8], 16)


def _graph(state: GameState) -> Any:
    from sheets_engine.sengoku.alliances import province_map

    return province_map(state.frame("Provinces"))


def arranged(state: GameState, graph: Any = None) -> Any:
    """The maplayout.Layout of the campaign: Map X/Map Y where the GM gave both, the rest laid out around them."""
    from sheets_engine.maplayout import layout as lay_out

    provinces = state.frame("Provinces")
    given: dict[Hashable, Point] = {
        str(p): (float(x), float(y))
        for p, x, y in zip(provinces.index, provinces["Map X"], provinces["Map Y"], strict=True)
        if x is not None and y is not None
    }
    return lay_out(graph if graph is not None else _graph(state), given, seed=_seed(state))


def layout(state: GameState) -> dict[str, tuple[float, float]]:
    """Every province's place: Map X/Map Y where the GM gave both, else laid out around them (maplayout)."""
    return {str(p): xy for p, xy in arranged(state).places.items()}


def unplaced(state: GameState) -> dict[str, tuple[float, float]]:
    """The computed places of provinces without Map X/Map Y (what `map --save-layout` writes)."""
    provinces = state.frame("Provinces")
    places = layout(state)
    return {
        str(p): places[str(p)]
        for p in provinces.index
        if provinces.at[p, "Map X"] is None or provinces.at[p, "Map Y"] is None
    }


@dataclass
class Board:
    """What every picture of a run stands on, computed once (a report draws a map per clan from it):
    the places, the windows, the provinces as drawn, the links, the clans' styles and what each clan sees."""

    places: dict[str, Point]
    link: float
    views: Any  # mapview.Views
    rows: dict[str, Place]  # in Provinces row order
    links: list[tuple[str, str]]
    clans: list[str]
    styles: dict[str, int]
    counts: dict[str, int]
    sight: Sight
    turn: int
    marched: list[tuple[str, Marker]]  # (army, its march) of the last resolved turn
    armies: dict[str, Marker]  # every standing army as drawn: where, its units, its clan
    failed: dict[int, list[tuple[Marker, str]]] = field(default_factory=dict)  # turn -> (march, giver's clan)
    order: dict[str, int] = field(default_factory=dict)  # province -> its row number
    linked: dict[str, list[str]] = field(default_factory=dict)  # province -> the provinces linked to it


def board(state: GameState, places: dict[str, Point] | None = None) -> Board:
    """The Board of a state (with `places`, those places instead of the layout's)."""
    from sheets_engine.mapview import Views, borders, clan_styles

    graph = _graph(state)
    if places is None:
        places = {str(p): xy for p, xy in arranged(state, graph).places.items()}
    link = _median_link(places, graph)  # from the places themselves: a kept layout draws the same picture
    sight = Sight(state)
    provinces, clans_frame = state.frame("Provinces"), state.frame("Clans")
    clans = [str(c) for c in clans_frame.index]
    capitals = {str(capital): str(c) for c, capital in zip(clans_frame.index, clans_frame["Capital"], strict=True)}
    rows = {
        str(p): Place(str(p), *places[str(p)], sight.held[str(p)], str(owner or ""), capitals.get(str(p), ""))
        for p, owner in zip(provinces.index, provinces["Province Owner"], strict=True)
    }
    links = sorted({(min(str(a), str(b)), max(str(a), str(b))) for a, b in graph.edges if a != b})
    holders: dict[Hashable, str] = {p: c for p, c in sight.held.items()}
    styles = clan_styles(clans, borders(graph, holders), len(PALETTE) * len(HATCHES))
    counts: dict[str, int] = {}
    for holder in sight.held.values():
        if holder:
            counts[holder] = counts.get(holder, 0) + 1
    turn = _last(state)
    armies = state.frame("Armies")
    destinations = _destinations(state, turn)
    marched = []
    for army, _, _ in sight.standing:
        origin = str(armies.at[army, "Origin"])
        if bool(armies.at[army, "Moved"]) and origin and origin in places:
            # an army that marched and then retreated stands at its origin again: the order says where it went
            to = destinations.get(army, str(armies.at[army, "Province"]))
            marched.append((army, Marker(origin, army, str(armies.at[army, "Clan"]), to, "marched")))
    keyed: dict[Hashable, Point] = {p: xy for p, xy in places.items()}
    views = Views(keyed, graph, link=link, margin=1.0, least=WHOLE_LEAST)
    units = armies[list(UNIT_COLUMNS)].astype(int).sum(axis=1)
    standing = {army: Marker(province, str(int(units[army])), clan) for army, clan, province in sight.standing}
    linked: dict[str, list[str]] = {}
    for a, b in links:
        linked.setdefault(a, []).append(b)
        linked.setdefault(b, []).append(a)
    order = {p: k for k, p in enumerate(rows)}
    return Board(places, link, views, rows, links, clans, styles, counts, sight, turn, marched, standing, {}, order,
                 linked)  # fmt: skip


def _median_link(places: dict[str, Point], graph: Any) -> float:
    lengths = sorted(
        math.dist(places[str(a)], places[str(b)]) for a, b in graph.edges if str(a) in places and str(b) in places
    )
    lengths = [length for length in lengths if length > 0]
    return lengths[len(lengths) // 2] if lengths else 1.0


def scene(
    state: GameState,
    clan: str | None = None,
    turn: int | None = None,
    battles: list[dict[str, Any]] | None = None,
    places: dict[str, tuple[float, float]] | Board | None = None,
) -> Scene:
    """What the map shows after `turn` (default: the last resolved turn); with `clan`, that clan's view.

    `battles` are the Battles tab's rows (a log tab, read apart from the state); `places` a layout or a
    Board already computed for this state (reports draw one map per clan from one Board).
    """
    laid = places if isinstance(places, Board) else board(state, places)
    number = turn if turn is not None else laid.turn
    name = str(state.game("campaign")) or "Campaign"
    title = f"{name}: after turn {number}" + (f" (the {clan} clan's view)" if clan else "")
    aspect = MAP_WIDTH / CLAN_HEIGHT
    if clan:
        # a clan that holds nothing is shown what it sees (where its armies and characters stand)
        focus = laid.sight.owned.get(clan) or sorted(laid.sight.seen.get(clan, ()), key=laid.order.__getitem__)
        window = laid.views.clan(focus, aspect)
    else:
        window = laid.views.whole(MAP_WIDTH / _whole_height(laid.views))
    inside = set(map(str, window.provinces))
    drawn = Scene(
        title,
        laid.clans,
        [laid.rows[p] for p in sorted(inside, key=laid.order.__getitem__)],  # in Provinces row order
        sorted((a, b) for a in inside for b in laid.linked.get(a, ()) if a < b and b in inside),
        box=window.box,
        link=laid.link,
        viewer=clan or "",
        styles=laid.styles,
        counts=laid.counts,
    )
    shown = laid.sight.armies(clan) if clan else [a for a, _, _ in laid.sight.standing]
    drawn.armies = [laid.armies[army] for army in shown]
    if number == laid.turn:
        visible = set(shown)
        drawn.marches += [march for army, march in laid.marched if army in visible]
    if number not in laid.failed:
        laid.failed[number] = _failed_marches(state, number)
    drawn.marches += [m for m, giver in laid.failed[number] if not clan or clan in (m.clan, giver)]
    held = laid.sight.held
    seen = {m.province for m in drawn.armies} | ({p for p, c in held.items() if c == clan} if clan else set(held))
    for row in battles or []:
        sides = split_names(str(row.get("Attacker") or "")) + split_names(str(row.get("Defender") or ""))
        where = str(row.get("Province") or "")
        if _whole(row.get("Turn")) == number and where in laid.places and (not clan or clan in sides or where in seen):
            drawn.battles.append(Marker(where, str(row.get("Outcome") or "")))
    sieges = state.frame("Sieges")
    for key in sieges.index:
        where = str(sieges.at[key, "Province"])
        besieger, defender = str(sieges.at[key, "Besieger"]), str(sieges.at[key, "Defender"])
        if (
            sieges.at[key, "Status"] == "Active"
            and where in laid.places
            and (not clan or clan in (besieger, defender) or where in seen)
        ):
            drawn.sieges.append(Marker(where, f"siege: {besieger} against {defender}"))
    return drawn


def _whole_height(views: Any) -> float:
    """The map's height in inches for the whole map: its own shape, within what a phone can show."""
    left, bottom, right, top = views.world
    return min(max(MAP_WIDTH * (top - bottom) / max(right - left, 1e-9), 4.0), 11.0)


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


def _failed_marches(state: GameState, number: int) -> list[tuple[Marker, str]]:
    """lead-army orders of the turn that were blocked or rejected, each with the clan of who gave it."""
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
        start = str(armies.at[army, "Province"])
        if start != destination:
            found.append((Marker(start, army, owner, destination, "blocked" if blocked else "failed"), giver))
    return found


def colours(clans: list[str], styles: dict[str, int] | None = None) -> dict[str, tuple[str, str]]:
    """Each clan's (colour, hatch): its style number (`styles`, default its Clans row number) as a colour
    of the palette, and past seven a hatch."""
    return {
        c: (PALETTE[k % len(PALETTE)], HATCHES[(k // len(PALETTE)) % len(HATCHES)])
        for i, c in enumerate(clans)
        for k in [styles.get(c, i) if styles else i]
    }


# The picture in pixels: what both renderers draw --------------------------------------------------


@dataclass(frozen=True)
class Circle:
    """A province: centre, fill, hatch, edge colour and width (pixels)."""

    name: str
    x: float
    y: float
    fill: str
    hatch: str
    edge: str
    width: float
    capital: bool


@dataclass(frozen=True)
class Text:
    """A text centred at (x, y), pixels; `box` is the army marker's fill ("": none)."""

    text: str
    x: float
    y: float
    size: float  # points
    bold: bool = True
    box: str = ""


@dataclass
class Drawing:
    """A scene laid out in pixels (y down), everything a renderer needs and nothing it must compute."""

    title: str
    width: float
    height: float
    map_width: float
    radius: float
    circles: list[Circle]
    links: list[tuple[Point, Point]]
    labels: list[Text]
    arrows: list[tuple[Point, Point, str]]  # from, to, kind
    battles: list[Point]
    sieges: list[Point]
    legend: list[tuple[str, str, str, str]]  # (kind, colour, hatch, text), top to bottom
    where: dict[str, Point]
    row: float  # a legend row's height
    leaders: list[tuple[Point, Point]] = field(default_factory=list)  # province edge -> its army number's box


KEYS: tuple[tuple[str, str, str, str], ...] = (
    ("disc", NO_CLAN, "", "no clan"),
    ("star", "white", "", "capital"),
    ("box", "white", "", "army: its units, its clan's colour"),
    ("marched", "black", "", "march"),
    ("blocked", "#D55E00", "", "march blocked"),
    ("failed", "#D55E00", "", "march refused"),
    ("battle", "#D55E00", "", "battle"),
    ("siege", "white", "", "siege"),
    ("ring", "white", "", "ring: owner, if not controller"),
)


def frame(drawn: Scene) -> Drawing:
    """The scene in pixels: its window filling the map's part of the picture, the legend to its right,
    labels placed without collisions (own provinces first, then capitals, then the rest; army numbers
    before province names), the legend's clans those that fit (the viewer's, those in view, the largest)."""
    from sheets_engine.mapview import Entry, Label, fit_legend, place_labels

    link = drawn.link or 1.0
    if drawn.box is not None:
        left, bottom, right, top = drawn.box
    else:
        xs, ys = [p.x for p in drawn.places] or [0.0], [p.y for p in drawn.places] or [0.0]
        left, bottom, right, top = min(xs) - link, min(ys) - link, max(xs) + link, max(ys) + link
    map_inches = min(max(MAP_WIDTH * (top - bottom) / max(right - left, 1e-9), 4.0), 11.0)
    map_w, map_h = MAP_WIDTH * DPI, map_inches * DPI
    title = TITLE * DPI
    scale = min(map_w / max(right - left, 1e-9), map_h / max(top - bottom, 1e-9))
    width, height = (MAP_WIDTH + LEGEND_WIDTH) * DPI, map_h + title
    off_x = (map_w - (right - left) * scale) / 2
    off_y = title + (map_h - (top - bottom) * scale) / 2

    def at(x: float, y: float) -> Point:
        return (round(off_x + (x - left) * scale, 2), round(off_y + (top - y) * scale, 2))

    radius = max(RADIUS * link * scale, 2.0)
    # Zoomed out (a whole map of thousands of provinces): a name does not fit between two neighbours,
    # so only capitals and the viewer's own provinces are named, army numbers and hatches are left
    # out (a clan's own map shows its region at a legible scale).
    dense = link * scale < 2.5 * _px(FONT) * 1.25
    palette = colours(drawn.clans, drawn.styles or None)
    where = {p.name: at(p.x, p.y) for p in drawn.places}
    circles = []
    for place in drawn.places:
        fill, hatch = palette.get(place.controller, (NO_CLAN, ""))
        occupied = place.owner != place.controller and bool(place.owner)
        edge = palette.get(place.owner, ("#555555", ""))[0] if occupied else "#333333"
        x, y = where[place.name]
        ring = (3.0 if occupied else 0.8) if not dense else (1.5 if occupied else 0.3)
        circles.append(Circle(place.name, x, y, fill, "" if dense else hatch, edge, ring, bool(place.capital_of)))
    inside = set(where)
    links = []
    for a, b in drawn.links:
        pa = where.get(a)
        pb = where.get(b)
        if pa is None or pb is None:  # a link leaving the window: its far end is not drawn
            continue
        links.append((pa, pb))
    char_w, char_h = _px(FONT) * 0.7, _px(FONT) * 1.25
    # army numbers first (they matter more than a name), each at the first free spot around its
    # province, the viewer's own first; then the names, clear of them. Labels are placed in pixels
    # with y up (mapview's boxes are bottom to top): y is negated.
    points = [(x, -y) for x, y in where.values()]
    window = (0.0, -(title + map_h), map_w, -title)
    fills: dict[Hashable, str] = {}
    army_labels = []
    for k, army in enumerate(drawn.armies):
        if army.province in inside and not dense:
            x, y = where[army.province]
            fills[k] = palette.get(army.clan, (NO_CLAN, ""))[0]
            mine = 1.0 if drawn.viewer and army.clan == drawn.viewer else 0.0
            # anchored below the circle so that the first spot tried ("above" the anchor) is just under it
            anchor = y + 2 * radius + char_h + 4
            army_labels.append(Label(k, army.text, x, -anchor, priority=mine, width=len(army.text) * char_w + 6))
    boxes = place_labels(army_labels, 1.0, char_w, char_h + 2, radius=radius, points=points, window=window)
    texts: list[Text] = [Text(b.text, round(b.x, 2), round(-b.y, 2), FONT, True, fills[b.key]) for b in boxes]
    marked = [b.box for b in boxes]
    leaders: list[tuple[Point, Point]] = []  # an army number with room only farther off: a line to its province
    for number in boxes:
        home = where[drawn.armies[int(str(number.key))].province]
        if math.hypot(number.x - home[0], -number.y - home[1]) > radius + 2 * char_h:
            rim = _toward(home, (number.x, -number.y), radius)
            box: tuple[float, float, float, float] = number.box
            end = (min(max(rim[0], box[0]), box[2]), min(max(rim[1], -box[3]), -box[1]))
            leaders.append((rim, (round(end[0], 2), round(end[1], 2))))
    own = {p.name for p in drawn.places if drawn.viewer and p.controller == drawn.viewer}
    labels = [
        Label(
            p.name,
            p.name,
            where[p.name][0],
            -where[p.name][1],
            priority=(2 if p.name in own else 0) + bool(p.capital_of),
        )
        for p in drawn.places
        if not dense or p.name in own or p.capital_of
    ]
    clear = None if dense else points  # zoomed out, a name may cover the dots of unnamed provinces
    placed = place_labels(labels, 1.0, char_w, char_h, radius=radius, points=clear, window=window, obstacles=marked)
    texts += [Text(p.text, round(p.x, 2), round(-p.y, 2), FONT) for p in placed]
    arrows = [(where[m.province], where[m.to], m.kind) for m in drawn.marches if m.province in where and m.to in where]
    battles = [where[b.province] for b in drawn.battles if b.province in where]
    sieges = [where[s.province] for s in drawn.sieges if s.province in where]
    row = _px(LEGEND_FONT) * 1.7
    room = height - title - len(KEYS) * row - 2 * row
    near = {p.controller for p in drawn.places if p.controller}
    entries = [Entry(c, c, drawn.counts.get(c, 0)) for c in drawn.clans]
    fitted = fit_legend(
        entries, room, row, width=LEGEND_WIDTH * DPI - 40, char_width=_px(LEGEND_FONT) * 0.6,
        viewer=drawn.viewer or None, near=near,
    )  # fmt: skip
    legend = [("clan", *palette[e.name], text) for e, text in zip(fitted.shown, fitted.texts, strict=True)]
    if fitted.more_text:
        legend.append(("more", "", "", fitted.more_text))
    legend += list(KEYS)
    return Drawing(drawn.title, width, height, map_w, radius, circles, links, texts, arrows, battles, sieges, legend,
                   where, row, leaders)  # fmt: skip


def _toward(centre: Point, target: Point, radius: float) -> Point:
    """The point of a circle's edge facing `target`."""
    length = math.hypot(target[0] - centre[0], target[1] - centre[1]) or 1.0
    return (
        round(centre[0] + (target[0] - centre[0]) / length * radius, 2),
        round(centre[1] + (target[1] - centre[1]) / length * radius, 2),
    )


# PNG: matplotlib --------------------------------------------------------------------------------------


def render(drawn: Scene) -> bytes:
    """The scene as PNG bytes (the same scene, the same bytes: no Software or date in the PNG)."""
    from matplotlib import rc_context

    with rc_context(MAP_STYLE):
        figure = draw(drawn)[0]
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=DPI, metadata=PNG_METADATA)
    return buffer.getvalue()


ARROWS = {"marched": ("-", "black"), "blocked": ("--", "#D55E00"), "failed": (":", "#D55E00")}


def draw(drawn: Scene | Drawing) -> tuple[Any, Any, float]:
    """The scene on a matplotlib Figure (Agg canvas; no pyplot, so no global state): (figure, axes in the
    picture's pixels, y down, the province radius in pixels). Call inside rc_context(MAP_STYLE), as
    `render` does."""
    from matplotlib import patheffects
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.collections import LineCollection, PatchCollection
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle as Disc
    from matplotlib.patches import FancyArrowPatch, Rectangle

    d = drawn if isinstance(drawn, Drawing) else frame(drawn)
    figure = Figure(figsize=(d.width / DPI, d.height / DPI), dpi=DPI)
    FigureCanvasAgg(figure)
    axes = figure.add_axes((0.0, 0.0, 1.0, 1.0))
    axes.set_axis_off()
    axes.set_xlim(0, d.width)
    axes.set_ylim(d.height, 0)
    axes.add_collection(LineCollection(d.links, colors="#999999", linewidths=0.8, zorder=1))
    if d.leaders:
        axes.add_collection(LineCollection(d.leaders, colors="black", linewidths=0.8, zorder=5))
    for hatch in dict.fromkeys(c.hatch for c in d.circles):
        group = [c for c in d.circles if c.hatch == hatch]
        axes.add_collection(
            PatchCollection([Disc((c.x, c.y), d.radius) for c in group], facecolors=[c.fill for c in group],
                            edgecolors=[c.edge for c in group], linewidths=[c.width for c in group],
                            hatch=hatch or None, zorder=3)
        )  # fmt: skip
    stars = [c for c in d.circles if c.capital]
    if stars:
        axes.plot([c.x for c in stars], [c.y for c in stars], ls="", marker="*", ms=d.radius * 1.3 * 72 / DPI,
                  color="white", markeredgecolor="black", markeredgewidth=0.8, zorder=4)  # fmt: skip
    halo = [patheffects.withStroke(linewidth=2.5, foreground="white")]
    for t in d.labels:
        box = {"boxstyle": "round,pad=0.2", "facecolor": t.box, "edgecolor": "black", "lw": 0.6} if t.box else None
        axes.text(t.x, t.y, t.text, ha="center", va="center_baseline", fontsize=t.size, fontweight="bold",
                  zorder=6, bbox=box, path_effects=None if t.box else halo)  # fmt: skip
    for start, end, kind in d.arrows:
        line, colour = ARROWS[kind]
        axes.add_patch(
            FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=14, linestyle=line, color=colour, lw=2,
                            shrinkA=9, shrinkB=9, connectionstyle="arc3,rad=-0.15", zorder=5)
        )  # fmt: skip
    r = d.radius * 0.9
    if d.battles:
        axes.plot([x + r for x, _ in d.battles], [y - r for _, y in d.battles], ls="", marker="X", ms=12,
                  color="#D55E00", markeredgecolor="black", zorder=7)  # fmt: skip
    if d.sieges:
        axes.plot([x - r for x, _ in d.sieges], [y - r for _, y in d.sieges], ls="", marker="s", ms=10,
                  color="white", markeredgecolor="black", markeredgewidth=2, zorder=7)  # fmt: skip
    axes.text(8, TITLE * DPI / 2, d.title, ha="left", va="center", fontsize=11, fontweight="bold")
    x0, y = d.map_width + 12, TITLE * DPI + d.row
    axes.add_patch(Rectangle((x0 - 6, y - d.row * 0.8), d.width - x0, len(d.legend) * d.row + d.row * 0.6,
                             facecolor="white", edgecolor="#cccccc", lw=0.8, zorder=8))  # fmt: skip
    for kind, colour, hatch, text in d.legend:
        _key(axes, kind, colour, hatch, x0, y, d.row)
        axes.text(x0 + 30, y, text, ha="left", va="center", fontsize=LEGEND_FONT, zorder=9)
        y += d.row
    return figure, axes, d.radius


def _key(axes: Any, kind: str, colour: str, hatch: str, x: float, y: float, row: float) -> None:
    """One legend row's symbol, 24 pixels wide, centred on the row."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle

    half = row * 0.35
    if kind in ("clan", "disc", "ring"):
        edge, lw = ("#555555", 3) if kind == "ring" else ("#333333", 0.8)
        axes.add_patch(Rectangle((x, y - half), 24, 2 * half, facecolor=colour, edgecolor=edge, lw=lw,
                                 hatch=hatch or None, zorder=9))  # fmt: skip
    elif kind in ARROWS:
        line, tint = ARROWS[kind]
        axes.add_line(Line2D([x, x + 24], [y, y], color=tint, lw=2, ls=line, zorder=9))
    elif kind != "more":
        marker, size = {"star": ("*", 10), "box": ("s", 8), "battle": ("X", 10), "siege": ("s", 8)}[kind]
        face = "#D55E00" if kind == "battle" else "white"
        axes.add_line(Line2D([x + 12], [y], marker=marker, ls="", color=face, markeredgecolor="black", ms=size,
                             zorder=9))  # fmt: skip


# SVG: written directly -------------------------------------------------------------------------------

_PATTERNS = {"//": "M0,8 L8,0", "..": "M2,2 h1 M6,6 h1", "xx": "M0,8 L8,0 M0,0 L8,8"}
_DASH = {"marched": "", "blocked": ' stroke-dasharray="8 5"', "failed": ' stroke-dasharray="2 4"'}


def svg(drawn: Scene | Drawing) -> str:
    """The scene as one SVG document (text, the same scene the same characters: no id, date or random
    number in it). It scales to its container's width (viewBox), so a phone shows it whole and zooms in."""
    d = drawn if isinstance(drawn, Drawing) else frame(drawn)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {d.width:.0f} {d.height:.0f}" '
        f'width="{d.width:.0f}" height="{d.height:.0f}" role="img" class="map" '
        'font-family="DejaVu Sans, Verdana, sans-serif">',
        f"<title>{html.escape(d.title)}</title>",
        "<defs>",
        '<marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5" markerHeight="5" '
        'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="context-stroke"/></marker>',
    ]
    for hatch in sorted({c.hatch for c in d.circles if c.hatch} | {h for _, _, h, _ in d.legend if h}):
        out.append(
            f'<pattern id="h{_PATTERN_IDS[hatch]}" width="8" height="8" patternUnits="userSpaceOnUse">'
            f'<path d="{_PATTERNS[hatch]}" stroke="#222" stroke-width="1"/></pattern>'
        )
    out.append("</defs>")
    out.append(f'<rect width="{d.width:.0f}" height="{d.height:.0f}" fill="white"/>')
    if d.links:
        path = "".join(f"M{a[0]:g},{a[1]:g}L{b[0]:g},{b[1]:g}" for a, b in d.links)
        out.append(f'<path d="{path}" stroke="#999" stroke-width="1" fill="none"/>')
    r = f"{d.radius:.2f}"
    leaders = "".join(f"M{a[0]:g},{a[1]:g}L{b[0]:g},{b[1]:g}" for a, b in d.leaders)
    for c in d.circles:
        out.append(
            f'<circle cx="{c.x:g}" cy="{c.y:g}" r="{r}" fill="{c.fill}" stroke="{c.edge}" '
            f'stroke-width="{c.width:g}"><title>{html.escape(c.name)}</title></circle>'
        )
        if c.hatch:
            out.append(f'<circle cx="{c.x:g}" cy="{c.y:g}" r="{r}" fill="url(#h{_PATTERN_IDS[c.hatch]})"/>')
        if c.capital:
            out.append(_star(c.x, c.y, d.radius * 0.8))
    for start, end, kind in d.arrows:
        colour = ARROWS[kind][1]
        out.append(
            f'<path d="{_arc(start, end, d.radius)}" fill="none" stroke="{colour}" stroke-width="2.5"'
            f'{_DASH[kind]} marker-end="url(#head)"/>'
        )
    for x, y in d.battles:
        out.append(_cross(x + d.radius * 0.9, y - d.radius * 0.9))
    for x, y in d.sieges:
        out.append(
            f'<rect x="{x - d.radius * 0.9 - 5:.2f}" y="{y - d.radius * 0.9 - 5:.2f}" width="10" height="10" '
            'fill="white" stroke="black" stroke-width="2"/>'
        )
    if leaders:
        out.append(f'<path d="{leaders}" stroke="black" stroke-width="0.8" fill="none"/>')
    size = f"{_px(FONT):.2f}"
    for t in d.labels:
        if t.box:
            w, h = len(t.text) * _px(FONT) * 0.7 + 6, _px(FONT) * 1.25
            out.append(
                f'<rect x="{t.x - w / 2:.2f}" y="{t.y - h / 2:.2f}" width="{w:.2f}" height="{h:.2f}" rx="3" '
                f'fill="{t.box}" stroke="black" stroke-width="0.6"/>'
            )
        halo = "" if t.box else ' stroke="white" stroke-width="2.5" paint-order="stroke"'
        out.append(
            f'<text x="{t.x:g}" y="{t.y:g}" font-size="{size}" font-weight="bold" text-anchor="middle" '
            f'dominant-baseline="central"{halo}>{html.escape(t.text)}</text>'
        )
    out.append(
        f'<text x="8" y="{TITLE * DPI / 2:.1f}" font-size="{_px(11):.1f}" font-weight="bold" '
        f'dominant-baseline="central">{html.escape(d.title)}</text>'
    )
    x0, y = d.map_width + 12, TITLE * DPI + d.row
    out.append(
        f'<rect x="{x0 - 6:.1f}" y="{y - d.row * 0.8:.1f}" width="{d.width - x0:.1f}" '
        f'height="{len(d.legend) * d.row + d.row * 0.6:.1f}" fill="white" stroke="#ccc"/>'
    )
    for kind, colour, hatch, text in d.legend:
        out.append(_svg_key(kind, colour, hatch, x0, y, d.row))
        out.append(
            f'<text x="{x0 + 30:.1f}" y="{y:.1f}" font-size="{_px(LEGEND_FONT):.1f}" '
            f'dominant-baseline="central">{html.escape(text)}</text>'
        )
        y += d.row
    out.append("</svg>")
    return "\n".join(out) + "\n"


_PATTERN_IDS = {"//": "slash", "..": "dots", "xx": "cross"}


def _star(x: float, y: float, size: float) -> str:
    points = []
    for k in range(10):
        reach = size if k % 2 == 0 else size * 0.45
        angle = math.pi / 2 + k * math.pi / 5
        points.append(f"{x + reach * math.cos(angle):.2f},{y - reach * math.sin(angle):.2f}")
    return f'<polygon points="{" ".join(points)}" fill="white" stroke="black" stroke-width="0.8"/>'


def _cross(x: float, y: float) -> str:
    return (
        f'<path d="M{x - 5:.2f},{y - 5:.2f}L{x + 5:.2f},{y + 5:.2f}M{x + 5:.2f},{y - 5:.2f}L{x - 5:.2f},{y + 5:.2f}" '
        'stroke="black" stroke-width="6" stroke-linecap="round"/>'
        f'<path d="M{x - 5:.2f},{y - 5:.2f}L{x + 5:.2f},{y + 5:.2f}M{x + 5:.2f},{y - 5:.2f}L{x - 5:.2f},{y + 5:.2f}" '
        'stroke="#D55E00" stroke-width="3.5" stroke-linecap="round"/>'
    )


def _arc(start: Point, end: Point, radius: float) -> str:
    """A slightly bent arrow from one province's edge to the other's (as matplotlib's arc3)."""
    (x1, y1), (x2, y2) = start, end
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    shrink = min(radius + 2, length / 3)
    a = (x1 + ux * shrink, y1 + uy * shrink)
    b = (x2 - ux * shrink, y2 - uy * shrink)
    bend = 0.15 * length
    control = ((a[0] + b[0]) / 2 + uy * bend, (a[1] + b[1]) / 2 - ux * bend)
    return f"M{a[0]:.2f},{a[1]:.2f}Q{control[0]:.2f},{control[1]:.2f} {b[0]:.2f},{b[1]:.2f}"


def _svg_key(kind: str, colour: str, hatch: str, x: float, y: float, row: float) -> str:
    half = row * 0.35
    if kind in ("clan", "disc", "ring"):
        edge, lw = ("#555", 3) if kind == "ring" else ("#333", 0.8)
        found = (
            f'<rect x="{x:.1f}" y="{y - half:.1f}" width="24" height="{2 * half:.1f}" fill="{colour}" '
            f'stroke="{edge}" stroke-width="{lw}"/>'
        )
        if hatch:
            found += (
                f'<rect x="{x:.1f}" y="{y - half:.1f}" width="24" height="{2 * half:.1f}" '
                f'fill="url(#h{_PATTERN_IDS[hatch]})"/>'
            )
        return found
    if kind in ARROWS:
        return f'<path d="M{x:.1f},{y:.1f}h24" stroke="{ARROWS[kind][1]}" stroke-width="2.5"{_DASH[kind]}/>'
    if kind == "star":
        return _star(x + 12, y, 7)
    if kind == "battle":
        return _cross(x + 12, y)
    if kind in ("box", "siege"):
        width = 2 if kind == "siege" else 0.8
        return (
            f'<rect x="{x + 7:.1f}" y="{y - 5:.1f}" width="10" height="10" fill="white" stroke="black" '
            f'stroke-width="{width}"/>'
        )
    return ""


def picture(
    state: GameState,
    clan: str | None = None,
    turn: int | None = None,
    battles: list[dict[str, Any]] | None = None,
    places: dict[str, tuple[float, float]] | Board | None = None,
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
    return refusal(clan, view.state.frame("Clans").index, "clan", "in the Clans tab")


def reader_name(view: View, clan: str) -> str:
    """The clan as the Clans tab spells it ("oda" -> "Oda"); as typed when it names none."""
    return match(clan, view.state.frame("Clans").index) or clan


def _board_of(view: View, prepared: Any) -> Board | dict[str, Point] | None:
    return prepared if isinstance(prepared, Board | dict) else None


def draw_view(view: View, clan: str | None, turn: int | None, prepared: Any) -> bytes:
    """The map capability's picture: `picture` of the view's state and its Battles rows (PNG)."""
    return picture(view.state, clan, turn, view.rows("Battles"), _board_of(view, prepared))


def svg_view(view: View, clan: str | None, turn: int | None, prepared: Any) -> str:
    """The map capability's SVG: the same picture as `draw_view`, as SVG text."""
    return svg(scene(view.state, clan, turn, view.rows("Battles"), _board_of(view, prepared)))


def prepare(view: View) -> Board:
    """What every picture of a run stands on (reports draw one map per clan from one Board)."""
    return board(view.state)
