"""Where each province stands on the map: the GM's saved places first, a layout for the rest.

Why this layout. A province map is a planar graph whose picture should look like a map: neighbours
close, the far side of the world far away, no two provinces on top of each other. That is what
*stress* layouts aim at (each pair of provinces as far apart as the links between them), and they
need no randomness. Stress over every pair costs n squared, so:

- the first guess is **pivot MDS** (Brandes & Pich, "Eigensolver methods for progressive
  multidimensional scaling of large data", 2006): the hop distances from a few dozen pivots chosen
  far apart, double-centred, and their two main axes. It costs one breadth-first search per pivot,
  so it grows linearly with the map, and the long side of the world lands across the picture;
- then **stress majorization** refines it (Gansner, Koren & North, "Graph drawing by stress
  majorization", 2004): over every pair in a small component (its hop distances from
  networkx's Floyd-Warshall), and in a large one over the pairs one and two links apart only (the
  pivots already fixed the big shape), a fixed number of rounds, each a handful of numpy passes over
  those pairs;
- then a **spacing pass** on a hashed grid (cells as wide as the spacing, so only nearby pairs are
  ever compared) pushes apart the few provinces still too close, and places any left over at the
  nearest free spot, so the spacing is a guarantee rather than a hope.

Saved places (`Map X`/`Map Y`) are kept exactly. A component with saved places is laid out as
above, turned and moved onto them (a Procrustes fit at the GM's own scale: the median length of the
saved links), then bent to meet them (each unsaved province moves as its nearest saved one had to,
smoothed over its neighbours), and only its unsaved provinces move in the refinement, so they settle
near their saved neighbours. Components (islands) are laid out apart and set side by side in rows, the largest
first, below what the GM placed. The same graph, saved places and seed give the same places: no
random numbers, only a tiny jitter hashed from the seed and the province's name, to part provinces a
first guess put on the same spot.

What it costs (benchmarks/maplayout.py; a generated campaign, 2 busy cores): about 0.15 s of CPU at
1,000 provinces, under a second at 10,000 and some 10 s at 100,000 (a little over linear), 17 MiB of
arrays at 10,000; networkx's spring layout, the map's layout before, needs scipy from 500 provinces
up and took 9 s at 1,000 and 406 s at 10,000. Only numpy and networkx.

Where it is weak: a large map with no cycles at all (a tree of provinces, unlike any real map) folds
onto itself in the first guess; its places still keep the spacing, but some links come out long.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np

from sheets_engine import stresslayout
from sheets_engine.stresslayout import Wanted, close_pairs, neighbours, neighbours_of, refine

Point = tuple[float, float]

SPACING = 0.6  # the least distance between two provinces, in links (the picture's circles are 0.56 links wide)
GAP = 2.0  # between islands, in links
BEND_ROUNDS = 30  # smoothing the moves from the fitted shape onto the saved places
NEAR_RINGS = 4  # the last resort's search: rings half a spacing apart, then farther each time


@dataclass(frozen=True)
class Layout:
    """Every province's place, and the scale of them: `link` is a link's length in the places' units
    (the median saved link, else the fit's, else 1); no two provinces stand closer than `spacing`
    (in those units too), but two whose places the GM saved closer."""

    places: dict[Hashable, Point]
    link: float
    spacing: float


def layout(
    graph: nx.Graph,
    saved: Mapping[Hashable, Point] | None = None,
    seed: int | str = 0,
    spacing: float = SPACING,
) -> Layout:
    """Every node's (x, y): `saved` places exactly as given, the others laid out around them.

    `graph` holds the provinces (in their row order: that order decides ties) and their links; `seed` is
    the campaign's (it only parts provinces that a first guess puts on one spot); `spacing` is in links.
    Raises ValueError for a saved place that is no finite number or is for a province the graph lacks.
    """
    nodes = list(graph.nodes)
    saved = dict(saved or {})
    unknown = sorted(str(p) for p in saved if p not in graph)
    if unknown:
        raise ValueError(f"saved places for provinces the map lacks: {', '.join(unknown[:5])}")
    for p, (x, y) in saved.items():
        if not (math.isfinite(x) and math.isfinite(y)):
            raise ValueError(f"the saved place of {p} is no finite number: ({x}, {y})")
    index = {p: i for i, p in enumerate(nodes)}
    n = len(nodes)
    edges = _edge_array(graph, index)
    fixed = np.zeros(n, dtype=bool)
    points = np.zeros((n, 2))
    for p, xy in saved.items():
        fixed[index[p]] = True
        points[index[p]] = xy
    if fixed.all():
        unit = _unit(points, fixed, edges, [], [])
        return Layout({p: (float(saved[p][0]), float(saved[p][1])) for p in nodes}, unit, spacing * unit)
    jitter = _jitter(nodes, seed)
    components = sorted((sorted(index[p] for p in c) for c in nx.connected_components(graph)), key=lambda c: c[0])
    shapes = _shapes(components, edges, fixed, jitter)
    unit = _unit(points, fixed, edges, components, [None if s is None else s[0] for s in shapes])
    placed = fixed.copy()  # what stands by the end of the loop: the components with saved places
    loose = []
    for members, shaped in zip(components, shapes, strict=True):
        rows = np.array(members)
        anchored = fixed[rows]
        if shaped is None:  # every province of it saved
            placed[rows] = True
            continue
        outline, wanted = shaped
        if anchored.any():
            start = _bend(_fit(outline * unit, points[rows], anchored), points[rows], anchored, wanted)
            points[rows] = refine(start, wanted, anchored, unit)
            placed[rows] = True
        else:
            loose.append((rows, outline * unit))
    _pack(points, placed, loose, unit)
    _spread(points, fixed, spacing * unit * (1 + 1e-3), jitter * unit)
    digits = 4 + max(0, -math.floor(math.log10(unit)))  # a ten-thousandth of a link: no pixel moves between machines
    places = {
        p: (float(saved[p][0]), float(saved[p][1]))
        if fixed[i]
        else (round(float(points[i, 0]), digits), round(float(points[i, 1]), digits))
        for i, p in enumerate(nodes)
    }
    return Layout(places, unit, spacing * unit)


def _edge_array(graph: nx.Graph, index: Mapping[Hashable, int]) -> np.ndarray:
    """The links as an (m, 2) array of row numbers, each once, smaller first, no loops."""
    pairs = {(min(index[a], index[b]), max(index[a], index[b])) for a, b in graph.edges if a != b}
    return np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)


def _jitter(nodes: Sequence[Hashable], seed: int | str) -> np.ndarray:
    """A small offset per province (a tenth of a link at most), hashed from the seed and its name: no RNG."""
    values = []
    for p in nodes:
        digest = hashlib.sha256(f"{seed}\x00{p}".encode()).digest()
        values.append((int.from_bytes(digest[:4], "big"), int.from_bytes(digest[4:8], "big")))
    return (np.array(values, dtype=float).reshape(-1, 2) / 2**32 - 0.5) * 0.2


def _shapes(
    components: list[list[int]], edges: np.ndarray, fixed: np.ndarray, jitter: np.ndarray
) -> list[tuple[np.ndarray, Wanted] | None]:
    """Each connected component laid out alone (in its `members` order), and what its refinement wants;
    None for one whose every province is saved. The links are sorted by component once, so many
    islands cost no more than one big map."""
    n = len(fixed)
    which = np.zeros(n, dtype=np.int64)
    local = np.zeros(n, dtype=np.int64)
    for k, members in enumerate(components):
        which[members] = k
        local[members] = np.arange(len(members))
    order = np.argsort(which[edges[:, 0]], kind="stable")
    grouped = local[edges[order]]
    bounds = np.searchsorted(which[edges[order, 0]], np.arange(len(components) + 1))
    return [
        None
        if fixed[members].all()
        else stresslayout.shape(grouped[bounds[k] : bounds[k + 1]], len(members), jitter[members])
        for k, members in enumerate(components)
    ]


def _unit(
    points: np.ndarray,
    fixed: np.ndarray,
    edges: np.ndarray,
    components: list[list[int]],
    outlines: list[np.ndarray | None],
) -> float:
    """A link's length in the GM's units: the median saved link; else the scale that best fits the
    most-saved component's layout to its saved places; else 1."""
    both = edges[fixed[edges[:, 0]] & fixed[edges[:, 1]]]
    if both.size:
        lengths = np.sqrt(((points[both[:, 0]] - points[both[:, 1]]) ** 2).sum(axis=1))
        lengths = lengths[lengths > 0]
        if lengths.size:
            return float(np.median(lengths))
    laid = [k for k in range(len(components)) if outlines[k] is not None]  # a wholly saved one gave its links above
    best = max(laid, key=lambda k: int(fixed[components[k]].sum()), default=None)
    outline = None if best is None else outlines[best]
    if best is not None and outline is not None and fixed[components[best]].sum() >= 2:
        members = np.array(components[best])
        anchored = fixed[members]
        source = outline[anchored]
        target = points[members][anchored]
        source, target = source - source.mean(axis=0), target - target.mean(axis=0)
        spread = float((source**2).sum())
        if spread > 1e-12:
            scale = float(np.linalg.svd(source.T @ target, compute_uv=False).sum()) / spread
            if scale > 1e-12:
                return scale
    return 1.0


def _fit(shape: np.ndarray, saved: np.ndarray, anchored: np.ndarray) -> np.ndarray:
    """The shape turned (or mirrored) and moved so that its anchored nodes best match their saved places."""
    source, target = shape[anchored], saved[anchored]
    middle, goal = source.mean(axis=0), target.mean(axis=0)
    turn = np.eye(2)
    if anchored.sum() >= 2:
        u, _, vt = np.linalg.svd((source - middle).T @ (target - goal))
        turn = u @ vt
    return (shape - middle) @ turn + goal


def _bend(fitted: np.ndarray, saved: np.ndarray, anchored: np.ndarray, wanted: Wanted) -> np.ndarray:
    """The fitted shape bent onto the saved places: each saved province moved to its place, and each
    other one by the move of its nearest saved province (in links), then smoothed over its neighbours,
    so that unsaved provinces follow the saved ones around them and keep their own shape."""
    size = len(fitted)
    shift = np.where(anchored[:, None], saved - fitted, 0.0)
    if anchored.all() or wanted.links.size == 0:
        return np.where(anchored[:, None], saved, fitted)
    indptr, indices = neighbours(wanted.links, size)
    nearest = np.where(anchored, np.arange(size), -1)
    frontier = np.flatnonzero(anchored)
    while frontier.size:  # breadth-first from every saved province at once: each node gets its nearest's
        counts = np.diff(indptr)[frontier]
        source = np.repeat(frontier, counts)
        reached = neighbours_of(indptr, indices, frontier)
        new = nearest[reached] < 0
        source, reached = source[new], reached[new]
        order = np.lexsort((nearest[source], reached))  # a tie goes to the saved province first in row order
        reached, source = reached[order], source[order]
        first = np.r_[True, reached[1:] != reached[:-1]] if reached.size else np.zeros(0, dtype=bool)
        nearest[reached[first]] = nearest[source[first]]
        frontier = reached[first]
    shift = np.where(anchored[:, None], shift, shift[np.maximum(nearest, 0)])
    degree = np.maximum(np.diff(indptr), 1)[:, None]
    middle = np.repeat(np.arange(size), np.diff(indptr))
    for _ in range(BEND_ROUNDS):  # each round, a province's move becomes the mean of its neighbours'
        mean = np.stack([np.bincount(middle, shift[indices, k], size) for k in range(2)], axis=1) / degree
        shift = np.where(anchored[:, None], shift, mean)
    return np.where(anchored[:, None], saved, fitted + shift)


def _pack(points: np.ndarray, placed: np.ndarray, loose: list[tuple[np.ndarray, np.ndarray]], unit: float) -> None:
    """Components without saved places set in rows, the largest first, below the components with
    saved places (or from the origin), each row as wide as the widest of them or that saved world."""
    if not loose:
        return
    loose = sorted(loose, key=lambda c: (-len(c[0]), int(c[0][0])))
    gap = GAP * unit
    boxes = [(outline.min(axis=0), outline.max(axis=0)) for _, outline in loose]
    widest = max(float(high[0] - low[0]) for low, high in boxes)
    if placed.any():
        world = points[placed]
        left, top = float(world[:, 0].min()), float(world[:, 1].min()) - gap
        width = max(float(world[:, 0].max()) - left, widest)
    else:
        left, top = 0.0, 0.0
        area = sum(float((high - low + gap).prod()) for low, high in boxes)
        width = max(widest, math.sqrt(area))
    x, row_height = left, 0.0
    for (members, outline), (low, high) in zip(loose, boxes, strict=True):
        size = high - low
        if x > left and x + size[0] > left + width:
            x, top, row_height = left, top - row_height - gap, 0.0
        points[members] = outline - [low[0], high[1]] + [x, top]  # its upper left corner at (x, top)
        x += float(size[0]) + gap
        row_height = max(row_height, float(size[1]))


def _spread(points: np.ndarray, fixed: np.ndarray, spacing: float, jitter: np.ndarray, rounds: int = 50) -> None:
    """No free province closer than `spacing` to another: pairs pushed apart (a saved one never moves),
    then any still too close set at the nearest free spot on rings around it."""
    for _ in range(rounds):
        i, j = close_pairs(points, spacing)
        movable = ~(fixed[i] & fixed[j])
        i, j = i[movable], j[movable]
        if i.size == 0:
            return
        gap = points[i] - points[j]
        length = np.sqrt((gap**2).sum(axis=1))
        apart = length > 1e-9 * spacing
        direction = np.where(apart[:, None], gap / np.where(apart, length, 1.0)[:, None], jitter[i] - jitter[j] + 1e-6)
        direction /= np.sqrt((direction**2).sum(axis=1))[:, None]
        share_i = np.where(fixed[i], 0.0, np.where(fixed[j], 1.0, 0.5))
        deficit = (spacing - length) * 1.05  # a little beyond, so a pushed pair does not land on the line again
        shift = direction * deficit[:, None]
        moves = np.zeros_like(points)
        np.add.at(moves, i, shift * share_i[:, None])
        np.add.at(moves, j, -shift * (1 - share_i)[:, None])
        points += moves
    _settle(points, fixed, spacing)


def _settle(points: np.ndarray, fixed: np.ndarray, spacing: float) -> None:
    """The last resort: each free province still too close goes, in row order, to the first spot on
    rings around it (the nearest first) that keeps the spacing from every other province."""
    i, j = close_pairs(points, spacing)
    crowded = sorted({int(k) for k in np.concatenate([i, j]) if not fixed[k]})
    if not crowded:
        return
    where = points.tolist()
    pending = set(crowded)
    grid: dict[tuple[int, int], list[int]] = {}
    for k, (x, y) in enumerate(where):
        if k not in pending:
            grid.setdefault((math.floor(x / spacing), math.floor(y / spacing)), []).append(k)
    least = spacing * spacing

    def clear(x: float, y: float) -> bool:
        cx, cy = math.floor(x / spacing), math.floor(y / spacing)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for other in grid.get((cx + dx, cy + dy), ()):
                    ox, oy = where[other]
                    if (ox - x) ** 2 + (oy - y) ** 2 < least:
                        return False
        return True

    for k in crowded:
        x, y = where[k]
        ring = 0
        while not clear(x, y):
            ring += 1
            # half a spacing further each ring nearby, then half as far again each ring: a province in
            # a pile (a map folded onto itself) finds room in a few dozen tries, not thousands
            radius = spacing * 0.5 * (ring if ring <= NEAR_RINGS else NEAR_RINGS * 1.5 ** (ring - NEAR_RINGS))
            steps = 6 * min(ring, NEAR_RINGS)
            for step in range(steps):
                angle = step * 2 * math.pi / steps
                x, y = where[k][0] + radius * math.cos(angle), where[k][1] + radius * math.sin(angle)
                if clear(x, y):
                    break
        where[k] = [x, y]
        grid.setdefault((math.floor(x / spacing), math.floor(y / spacing)), []).append(k)
    points[:] = where
