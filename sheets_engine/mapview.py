"""What one map picture shows, legibly at any size: a clan's window, labels that never collide, a
legend that fits, and clan styles that differ across every border.

Pure geometry over places (sheets_engine/maplayout.py gives them), no drawing: the picture's code
gives its scale (pixels per unit of the places) and its font's size in pixels, and gets back where
to put each label and which legend rows to write.

- `Views.clan` (`clan_window` for one): the box around a clan's provinces and their neighbours (a
  margin, a least size, the picture's shape), and the provinces inside it. At 10,000 provinces a
  clan's picture shows its own region at a legible scale instead of the whole world.
- `place_labels`: each label at the first of eight spots around its point (above, below, right,
  left, then the corners) that overlaps no label already placed, covers no point and stays inside
  the picture; labels are taken by priority (the caller's: own provinces, capitals, armies), so a
  label is dropped only for one that matters as much. A hashed grid keeps it linear in the labels.
- `fit_legend`: the rows that fit the legend's height, the viewer's clan first, then the clans in
  view, then the largest others, and "and N more clans" when they do not all fit; names cut to the width.
- `clan_styles`: a style (colour and hatch) number per clan, so that no two bordering clans share
  one while the styles last (greedy, in the Clans' row order: the first clans keep their own numbers).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np

Point = tuple[float, float]
Box = tuple[float, float, float, float]  # left, bottom, right, top


@dataclass(frozen=True)
class Window:
    """A part of the map: its box in the places' units and the provinces standing inside it."""

    left: float
    bottom: float
    right: float
    top: float
    provinces: tuple[Hashable, ...]

    @property
    def width(self) -> float:
        return self.right - self.left

    @property
    def height(self) -> float:
        return self.top - self.bottom

    @property
    def box(self) -> Box:
        return (self.left, self.bottom, self.right, self.top)


class Views:
    """The windows on one map, built once (a report's every clan then costs only its own provinces).

    `places` from the layout, `graph` the links, `link` a link's length in the places' units; every
    window is `margin` links wider than what it centres on, and a clan's at least `least` links wide
    and high."""

    def __init__(
        self,
        places: Mapping[Hashable, Point],
        graph: nx.Graph,
        link: float = 1.0,
        margin: float = 1.0,
        least: float = 6.0,
    ) -> None:
        self.places, self.graph = places, graph
        self.link, self.margin, self.least = link, margin, least
        self.names = list(places)
        self.xy = np.array([places[p] for p in self.names], dtype=float).reshape(-1, 2)
        pad = margin * link
        if len(self.xy):
            self.world = (*(self.xy.min(axis=0) - pad), *(self.xy.max(axis=0) + pad))
        else:
            self.world = (-pad, -pad, pad, pad)

    def clan(self, own: Iterable[Hashable], aspect: float | None = None) -> Window:
        """The window on a clan's provinces (`own`) and their neighbours: their bounding box with the
        margin, at least the least size, widened to the picture's `aspect` (width over height) if given,
        and moved inward where it would show only what lies beyond the map's edge (never leaving out a
        province it centres on). A clan with no province gets the whole map."""
        own = [p for p in own if p in self.places]
        focus = set(own)
        for p in own:
            focus.update(q for q in self.graph.neighbors(p) if q in self.places)
        if not focus:
            return self.whole(aspect)
        xs, ys = [self.places[p][0] for p in focus], [self.places[p][1] for p in focus]
        return self._window((min(xs), min(ys), max(xs), max(ys)), self.least, aspect)

    def whole(self, aspect: float | None = None) -> Window:
        """The window on the whole map (the GMs' picture), widened to `aspect` if given."""
        if not len(self.xy):
            left, bottom, right, top = self.world
            return Window(left, bottom, right, top, ())
        low, high = self.xy.min(axis=0), self.xy.max(axis=0)
        return self._window((low[0], low[1], high[0], high[1]), 0.0, aspect)

    def _window(self, around: Box, least: float, aspect: float | None) -> Window:
        pad = self.margin * self.link
        width = max(around[2] - around[0] + 2 * pad, least * self.link)
        height = max(around[3] - around[1] + 2 * pad, least * self.link)
        if aspect:
            width, height = max(width, height * aspect), max(height, width / aspect)
        centre_x = _inward((around[0] + around[2]) / 2, width, self.world[0], self.world[2])
        centre_y = _inward((around[1] + around[3]) / 2, height, self.world[1], self.world[3])
        box = (centre_x - width / 2, centre_y - height / 2, centre_x + width / 2, centre_y + height / 2)
        x, y = self.xy[:, 0], self.xy[:, 1]
        inside = np.flatnonzero((x >= box[0]) & (x <= box[2]) & (y >= box[1]) & (y <= box[3]))
        shown = tuple(self.names[k] for k in inside)
        return Window(float(box[0]), float(box[1]), float(box[2]), float(box[3]), shown)


def clan_window(
    places: Mapping[Hashable, Point],
    own: Iterable[Hashable],
    graph: nx.Graph,
    link: float = 1.0,
    aspect: float | None = None,
) -> Window:
    """One clan's window (see `Views.clan`; for many clans, build `Views` once)."""
    return Views(places, graph, link).clan(own, aspect)


def _inward(centre: float, size: float, low: float, high: float) -> float:
    """A window's centre moved so that it shows as little beyond [low, high] as it can; a window
    wider than the map is centred on it (it holds the whole map then, focus included)."""
    if size >= high - low:
        return (low + high) / 2
    return min(max(centre, low + size / 2), high - size / 2)


@dataclass(frozen=True)
class Label:
    """A text to write beside a point; a higher `priority` is placed first. `width`, in pixels, if the
    caller measured it (else the text's length in characters times the character width)."""

    key: Hashable
    text: str
    x: float
    y: float
    priority: float = 0.0
    width: float | None = None


@dataclass(frozen=True)
class Placed:
    """A label placed: the centre of its text (`x`, `y`, to draw centred there) and its box, in the
    places' units."""

    key: Hashable
    text: str
    x: float
    y: float
    box: Box


def candidates(label: Label, scale: float, char_width: float, char_height: float, radius: float) -> list[Box]:
    """The eight boxes a label may take around its point, in order of preference (above, below, right,
    left, then upper right, upper left, lower right, lower left), in the places' units; each clear of
    a point drawn `radius` pixels wide by a pixel. `scale` is pixels per unit."""
    width = (label.width if label.width is not None else len(label.text) * char_width) + 2.0  # a pixel of air each side
    height = char_height
    gap = radius + 1.0
    corner = gap / math.sqrt(2)
    x, y = label.x * scale, label.y * scale
    centres = [
        (x, y + gap + height / 2),
        (x, y - gap - height / 2),
        (x + gap + width / 2, y),
        (x - gap - width / 2, y),
        (x + corner + width / 2, y + corner + height / 2),
        (x - corner - width / 2, y + corner + height / 2),
        (x + corner + width / 2, y - corner - height / 2),
        (x - corner - width / 2, y - corner - height / 2),
    ]
    return [
        ((cx - width / 2) / scale, (cy - height / 2) / scale, (cx + width / 2) / scale, (cy + height / 2) / scale)
        for cx, cy in centres
    ]


def overlaps(a: Box, b: Box) -> bool:
    """Whether two boxes share more than an edge."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def covers(box: Box, point: Point, radius: float) -> bool:
    """Whether a box reaches into the disc of `radius` around a point (all in one unit)."""
    dx = max(box[0] - point[0], 0.0, point[0] - box[2])
    dy = max(box[1] - point[1], 0.0, point[1] - box[3])
    return dx * dx + dy * dy < radius * radius


def place_labels(
    labels: Sequence[Label],
    scale: float,
    char_width: float,
    char_height: float,
    radius: float = 0.0,
    points: Iterable[Point] | None = None,
    window: Box | None = None,
    obstacles: Iterable[Box] = (),
) -> list[Placed]:
    """The labels that can be shown without a collision, each at its first free spot (see
    `candidates`), in the order given; the others are dropped. Labels go by priority, then in the
    order given. A shown label overlaps no other, reaches into no point's disc (`points`, default the
    labels' own, drawn `radius` pixels wide) and no obstacle (boxes, in the places' units, such as army
    markers), and lies inside `window` (a box in the places' units) if given.

    `scale` is the picture's pixels per unit of the places; `char_width` and `char_height` the font's
    in pixels (an average character's width: about 0.6 of the font size for DejaVu Sans, bold 0.7)."""
    disc = radius / scale
    cell = max(char_height * 4, radius * 4, 1.0) / scale
    taken: dict[tuple[int, int], list[Box]] = {}
    dots: dict[tuple[int, int], list[Point]] = {}
    for point in points if points is not None else ((label.x, label.y) for label in labels):
        for key in _cells((point[0] - disc, point[1] - disc, point[0] + disc, point[1] + disc), cell):
            dots.setdefault(key, []).append(point)
    for box in obstacles:
        for key in _cells(box, cell):
            taken.setdefault(key, []).append(box)
    order = sorted(range(len(labels)), key=lambda k: (-labels[k].priority, k))
    shown: dict[int, Placed] = {}
    for k in order:
        label = labels[k]
        if window is not None and not (window[0] <= label.x <= window[2] and window[1] <= label.y <= window[3]):
            continue
        for box in candidates(label, scale, char_width, char_height, radius):
            if window is not None and not (
                window[0] <= box[0] and box[2] <= window[2] and window[1] <= box[1] and box[3] <= window[3]
            ):
                continue
            near = _cells(box, cell)
            if any(overlaps(box, other) for key in near for other in taken.get(key, ())):
                continue
            if any(covers(box, dot, disc) for key in near for dot in dots.get(key, ())):
                continue
            for key in near:
                taken.setdefault(key, []).append(box)
            shown[k] = Placed(label.key, label.text, (box[0] + box[2]) / 2, (box[1] + box[3]) / 2, box)
            break
    return [shown[k] for k in sorted(shown)]


def _cells(box: Box, cell: float) -> list[tuple[int, int]]:
    """The grid cells a box touches."""
    return [
        (cx, cy)
        for cx in range(math.floor(box[0] / cell), math.floor(box[2] / cell) + 1)
        for cy in range(math.floor(box[1] / cell), math.floor(box[3] / cell) + 1)
    ]


@dataclass(frozen=True)
class Entry:
    """A clan in the legend: its name, its style (whatever the picture draws: a colour, a hatch) and
    how many provinces it holds."""

    name: str
    style: object
    count: int


@dataclass(frozen=True)
class Legend:
    """The legend's rows: the clans shown (in order) with their texts, and how many are left out
    (`more_text` is its last row then, e.g. "and 12 more clans"; else empty)."""

    shown: tuple[Entry, ...]
    texts: tuple[str, ...]
    more: int
    more_text: str


def fit_legend(
    entries: Sequence[Entry],
    height: float,
    row_height: float,
    width: float | None = None,
    char_width: float = 1.0,
    viewer: str | None = None,
    near: Iterable[str] = (),
) -> Legend:
    """The clans that fit a legend `height` pixels high, a row `row_height` each, "and N more clans" in
    the last row when they do not all fit: the `viewer`'s clan first, then the clans `near` it (in view,
    or its neighbours) by size, then the others by size (ties in the order given). Each text, "Name
    (provinces)", is cut with an ellipsis to `width` pixels of `char_width` characters, if given."""
    rows = max(int(height // row_height), 0) if row_height > 0 else 0
    close = set(near)
    position = {entry.name: k for k, entry in enumerate(entries)}

    def rank(entry: Entry) -> tuple[int, int, int]:
        group = 0 if entry.name == viewer else 1 if entry.name in close else 2
        return (group, -entry.count, position[entry.name])

    ordered = sorted(entries, key=rank)
    room = rows if len(ordered) <= rows else max(rows - 1, 0)
    shown = tuple(ordered[:room])
    more = len(ordered) - len(shown)
    more_text = "" if more == 0 or rows == 0 else f"and {more} more clans"  # it takes a clan's row: 2 or more
    limit = None if width is None else max(int(width // char_width), 1)
    texts = tuple(_cut(entry.name, f" ({entry.count})", limit) for entry in shown)
    if limit is not None and more_text:
        more_text = _cut(more_text, "", limit)
    return Legend(shown, texts, more, more_text)


def _cut(name: str, tail: str, limit: int | None) -> str:
    """`name` + `tail` within `limit` characters: the name shortened with an ellipsis, then the tail too."""
    text = name + tail
    if limit is None or len(text) <= limit:
        return text
    room = limit - len(tail) - 1
    if room >= 1:
        return name[:room] + "…" + tail
    return text[: limit - 1] + "…" if limit > 1 else "…"


def borders(graph: nx.Graph, holder: Mapping[Hashable, str]) -> set[tuple[str, str]]:
    """The pairs of clans (alphabetical within a pair) holding two linked provinces; `holder` names each
    province's clan ("" or missing: nobody's)."""
    found = set()
    for a, b in graph.edges:
        one, other = holder.get(a, ""), holder.get(b, "")
        if one and other and one != other:
            found.add((min(one, other), max(one, other)))
    return found


def clan_styles(clans: Sequence[str], borders: Iterable[tuple[str, str]], count: int) -> dict[str, int]:
    """A style number (0 .. count - 1) per clan, in `clans` order, no two bordering clans alike while
    the styles last: a clan keeps its own row number if no bordering clan styled before it has it,
    else takes the first style free around it (the least used around it when none is)."""
    around: dict[str, set[str]] = {clan: set() for clan in clans}
    for a, b in borders:
        if a != b and a in around and b in around:
            around[a].add(b)
            around[b].add(a)
    styles: dict[str, int] = {}
    for k, clan in enumerate(clans):
        used = [styles[other] for other in around[clan] if other in styles]
        own = k % count
        if own not in used:
            styles[clan] = own
            continue
        free = [s for s in range(count) if s not in used]
        styles[clan] = free[0] if free else min(range(count), key=lambda s: (used.count(s), s))
    return styles
