"""The stress layout of one connected graph, in numpy: pivot MDS for the big shape, then stress
majorization for the detail (see sheets_engine/maplayout.py for why, and what it costs).

A link comes out about 1 long. Nothing here is random: the same links and the same jitter give the
same points. Only numpy and networkx.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import networkx as nx
import numpy as np

FULL = 300  # graphs up to this size are refined over every pair (about 0.2 s of CPU at 300)
PIVOTS = 40  # pivot MDS: breadth-first searches in a larger graph
ROUNDS = 60  # stress rounds (a fixed count, not a time: the same work, the same points, on every machine)
# Two links on a map seldom run straight: between a square's diagonal (1.41) and a line (2). Wanting 2,
# as hop distance says, folds a large mesh refined over near pairs only; 1.5 keeps it flat (measured).
TWO_LINKS = 1.5
REPULSION_PASSES, REPULSION_ROUNDS = 4, 15  # large graphs: pairs closer than a link found again, refined
# A graph whose first search runs deeper than this many times the square root of its size is long and
# thin (a chain, a ring): its searches run node by node in Python, with no cost per level.
LONG = 3.0
STILL = 1e-6  # in links: a small graph whose nodes all move less than this in a round is done
NOTHING = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class Wanted:
    """How far apart the refinement wants a graph's nodes, in links: every pair's hop distance
    (`hops`, a small graph), or else the pairs `i`, `j` near each other and their `target` distances."""

    hops: np.ndarray | None
    i: np.ndarray
    j: np.ndarray
    target: np.ndarray
    links: np.ndarray  # the graph's links, (m, 2) node numbers


def shape(links: np.ndarray, size: int, jitter: np.ndarray) -> tuple[np.ndarray, Wanted]:
    """The layout of a connected graph of `size` nodes numbered 0.., a link about 1 long, its long side
    across and node 0 to the upper left; and what its refinement wanted (to refine it again later).

    `jitter` (size, 2), a tenth of a link at most, parts nodes the first guess puts on one spot."""
    if size <= 2:  # a lone node, or two a link apart across
        hops = np.array([[0.0, 1.0], [1.0, 0.0]])[:size, :size]
        return np.array([[0.0, 0.0], [1.0, 0.0]])[:size], Wanted(hops, NOTHING, NOTHING, np.zeros(0), links)
    if size <= FULL:
        graph = nx.Graph()
        graph.add_nodes_from(range(size))
        graph.add_edges_from(map(tuple, links.tolist()))
        hops = np.asarray(nx.floyd_warshall_numpy(graph, nodelist=range(size)))
        wanted = Wanted(hops, NOTHING, NOTHING, np.zeros(0), links)
        columns = hops[:, _pivots_from(hops, min(size, PIVOTS))]
    else:
        indptr, indices = neighbours(links, size)
        columns = _pivot_distances(indptr, indices, size, PIVOTS)
        wanted = Wanted(None, *_near_pairs(indptr, indices, links, size), links)
    points = _unit_links(_pivot_mds(columns), links) + jitter * 0.1
    points = refine(points, wanted, np.zeros(size, dtype=bool), 1.0)
    return _upright(points, links), wanted


def refine(points: np.ndarray, wanted: Wanted, fixed: np.ndarray, link: float) -> np.ndarray:
    """Stress majorization towards what is `wanted`, a link `link` long; `fixed` nodes stay. Over near
    pairs, a few more passes also keep apart the nodes found within a link of each other that the pairs
    do not cover (branches laid on top of each other bend apart rather than being moved at the end)."""
    if wanted.hops is not None:
        return _stress_dense(points, wanted.hops * link, fixed, ROUNDS)
    i, j, target = wanted.i, wanted.j, wanted.target * link
    points = _stress(points, i, j, target, fixed, ROUNDS)
    size = len(points)
    known = np.sort(i * size + j)
    for _ in range(REPULSION_PASSES):
        near_i, near_j = close_pairs(points, link)
        new = ~_among(known, near_i * size + near_j)
        if not new.any():
            break
        extra_i, extra_j = near_i[new], near_j[new]
        points = _stress(
            points,
            np.concatenate([i, extra_i]),
            np.concatenate([j, extra_j]),
            np.concatenate([target, np.full(extra_i.size, link)]),
            fixed,
            REPULSION_ROUNDS,
        )
    return points


def neighbours(links: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Each node's neighbours, compressed: node v's are indices[indptr[v]:indptr[v + 1]]."""
    source = np.concatenate([links[:, 0], links[:, 1]])
    target = np.concatenate([links[:, 1], links[:, 0]])
    order = np.argsort(source, kind="stable")
    indptr = np.searchsorted(source[order], np.arange(size + 1))
    return indptr, target[order]


def neighbours_of(indptr: np.ndarray, indices: np.ndarray, frontier: np.ndarray) -> np.ndarray:
    """Every neighbour of every node in `frontier` (with repeats, node after node), in one pass."""
    starts = indptr[frontier]
    counts = indptr[frontier + 1] - starts
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(total)
    return indices[offsets]


def close_pairs(points: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (i < j) of points closer than `radius`, found on a grid of cells `radius` wide: only
    points in the same or a touching cell are compared, so the work grows with the points, not their square."""
    if len(points) < 2:
        return NOTHING, NOTHING
    cells = np.floor(points / radius).astype(np.int64)
    cells -= cells.min(axis=0)
    span = int(cells[:, 1].max()) + 3
    keys = (cells[:, 0] + 1) * span + cells[:, 1] + 1
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    found_i, found_j = [], []
    for dx, dy in ((0, 0), (1, -1), (1, 0), (1, 1), (0, 1)):  # half the neighbourhood: each pair once
        wanted = ordered + dx * span + dy  # asked in sorted order: the searches stay in cache
        start = np.searchsorted(ordered, wanted, "left")
        counts = np.searchsorted(ordered, wanted, "right") - start
        total = int(counts.sum())
        if total == 0:
            continue
        first = np.repeat(order, counts)
        second = order[np.repeat(start - np.cumsum(counts) + counts, counts) + np.arange(total)]
        keep = first < second if (dx, dy) == (0, 0) else np.ones(total, dtype=bool)
        found_i.append(first[keep])
        found_j.append(second[keep])
    if not found_i:
        return NOTHING, NOTHING
    i, j = np.concatenate(found_i), np.concatenate(found_j)
    x, y = points[:, 0], points[:, 1]
    close = (x[i] - x[j]) ** 2 + (y[i] - y[j]) ** 2 < radius**2
    i, j = i[close], j[close]
    return np.minimum(i, j), np.maximum(i, j)


def _bfs(indptr: np.ndarray, indices: np.ndarray, size: int, source: int) -> np.ndarray:
    """Hop distances from `source`, a level at a time (each level a few numpy passes)."""
    distance = np.full(size, -1, dtype=np.int64)
    distance[source] = 0
    frontier = np.array([source])
    level = 0
    seen = np.zeros(size, dtype=np.int64)  # who reached a node last: its one copy in the next frontier
    while frontier.size:
        level += 1
        reached = neighbours_of(indptr, indices, frontier)
        reached = reached[distance[reached] < 0]
        seen[reached] = np.arange(reached.size)
        frontier = reached[seen[reached] == np.arange(reached.size)]  # each node once, no sort
        distance[frontier] = level
    return distance


def _bfs_lists(adjacent: list[list[int]], source: int) -> np.ndarray:
    """Hop distances from `source`, node by node (for deep searches, whose levels are many and small)."""
    distance = [-1] * len(adjacent)
    distance[source] = 0
    frontier = [source]
    level = 0
    while frontier:
        level += 1
        reached = []
        for node in frontier:
            for other in adjacent[node]:
                if distance[other] < 0:
                    distance[other] = level
                    reached.append(other)
        frontier = reached
    return np.array(distance, dtype=np.int64)


def _pivots_from(hops: np.ndarray, count: int) -> list[int]:
    """Pivots far apart (max-min): node 0, then each time the node farthest from those chosen."""
    chosen = [0]
    nearest = hops[:, 0].copy()
    while len(chosen) < count:
        chosen.append(int(np.argmax(nearest)))
        nearest = np.minimum(nearest, hops[:, chosen[-1]])
    return chosen


def _pivot_distances(indptr: np.ndarray, indices: np.ndarray, size: int, count: int) -> np.ndarray:
    """The hop distances from `count` pivots chosen far apart (max-min), as a (size, count) array."""
    columns = [_bfs(indptr, indices, size, 0)]
    if columns[0].max() > LONG * math.sqrt(size):
        adjacent = [indices[indptr[v] : indptr[v + 1]].tolist() for v in range(size)]

        def search(source: int) -> np.ndarray:
            return _bfs_lists(adjacent, source)
    else:

        def search(source: int) -> np.ndarray:
            return _bfs(indptr, indices, size, source)

    nearest = columns[0].copy()
    while len(columns) < min(count, size):
        columns.append(search(int(np.argmax(nearest))))
        nearest = np.minimum(nearest, columns[-1])
    return np.stack(columns, axis=1).astype(float)


def _near_pairs(
    indptr: np.ndarray, indices: np.ndarray, links: np.ndarray, size: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs one link apart (wanted 1 apart) and two links apart (wanted `TWO_LINKS`), each once."""
    middle = np.repeat(np.arange(size), np.diff(indptr))  # the near end of each directed link
    first = np.repeat(middle, np.diff(indptr)[indices])
    second = neighbours_of(indptr, indices, indices)  # the neighbours of each directed link's far end
    keep = first < second
    two = _distinct(first[keep] * size + second[keep])
    one = _distinct(links.min(axis=1) * size + links.max(axis=1))
    two = two[~_among(one, two)]
    keys = np.concatenate([one, two])
    target = np.concatenate([np.ones(one.size), np.full(two.size, TWO_LINKS)])
    return keys // size, keys % size, target


def _distinct(keys: np.ndarray) -> np.ndarray:
    """The keys sorted, each once (a sort and a comparison: faster than np.unique's hash on millions)."""
    keys = np.sort(keys)
    return keys[np.r_[True, keys[1:] != keys[:-1]]] if keys.size else keys


def _among(ordered: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Whether each key is in `ordered` (sorted): a binary search each (np.isin hashes, slower here)."""
    if ordered.size == 0:
        return np.zeros(keys.size, dtype=bool)
    place = np.minimum(np.searchsorted(ordered, keys), ordered.size - 1)
    return ordered[place] == keys


def _pivot_mds(columns: np.ndarray) -> np.ndarray:
    """Two coordinates from the hop distances to pivots (double-centred, their two main axes)."""
    squared = columns**2
    centred = -0.5 * (squared - squared.mean(axis=0) - squared.mean(axis=1, keepdims=True) + squared.mean())
    values, vectors = np.linalg.eigh(centred.T @ centred)
    axes = vectors[:, ::-1][:, :2]
    strength = np.clip(values[::-1][:2], 1e-12, None) ** 0.25  # singular values' square roots: MDS's scale
    return centred @ axes / strength


def _stress_dense(points: np.ndarray, wanted: np.ndarray, fixed: np.ndarray, rounds: int) -> np.ndarray:
    """Stress majorization over every pair (`wanted`: the distances, a square matrix), as matrices."""
    size = len(points)
    if size < 2:
        return points
    points = points.copy()
    off = ~np.eye(size, dtype=bool)
    weight = np.zeros_like(wanted)
    weight[off] = 1.0 / wanted[off] ** 2
    total = weight.sum(axis=1)[:, None]
    pull = weight * wanted
    free = ~fixed
    still = STILL * float(wanted[off].min())  # a link's length: the smallest distance wanted
    for _ in range(rounds):
        length = np.hypot(points[:, None, 0] - points[None, :, 0], points[:, None, 1] - points[None, :, 1])
        np.maximum(length, 1e-9, out=length)
        push = pull / length
        moved = (weight @ points + push.sum(axis=1)[:, None] * points - push @ points) / total
        settled = np.abs(moved[free] - points[free]).max(initial=0.0) < still
        points[free] = moved[free]
        if settled:  # a small island is done in a few rounds
            break
    return points


def _stress(
    points: np.ndarray, i: np.ndarray, j: np.ndarray, target: np.ndarray, fixed: np.ndarray, rounds: int
) -> np.ndarray:
    """Stress majorization over the pairs (i, j) wanted `target` apart, weights 1 / target squared;
    `fixed` nodes stay. Each round moves every free node to its weighted ideal place at once. (The
    coordinates apart: gathering from an (n, 2) array by row costs ten times more.)"""
    if i.size == 0:
        return points
    size = len(points)
    weight = 1.0 / target**2
    pull = weight * target
    total = np.bincount(i, weight, size) + np.bincount(j, weight, size)
    free = ~fixed & (total > 0)  # a node in no pair has nowhere it is wanted: it stays
    total[total == 0] = 1.0
    x, y = points[:, 0].copy(), points[:, 1].copy()
    for _ in range(rounds):
        xi, xj, yi, yj = x[i], x[j], y[i], y[j]
        dx, dy = xi - xj, yi - yj
        length = np.hypot(dx, dy)
        np.maximum(length, 1e-9, out=length)
        factor = pull / length
        dx *= factor
        dy *= factor
        # i is wanted where j sees it (x_j + push), j where i sees it (x_i - push), weighted
        new_x = np.bincount(i, weight * xj + dx, size) + np.bincount(j, weight * xi - dx, size)
        new_y = np.bincount(i, weight * yj + dy, size) + np.bincount(j, weight * yi - dy, size)
        x = np.where(free, new_x / total, x)
        y = np.where(free, new_y / total, y)
    return np.stack([x, y], axis=1)


def _unit_links(points: np.ndarray, links: np.ndarray) -> np.ndarray:
    """The points scaled so that the median link is 1 long."""
    if links.size:
        typical = float(np.median(np.sqrt(((points[links[:, 0]] - points[links[:, 1]]) ** 2).sum(axis=1))))
        if typical > 1e-9:
            return points / typical
    return points


def _upright(points: np.ndarray, links: np.ndarray) -> np.ndarray:
    """The points centred, their long side across (principal axes), node 0 to the upper left."""
    centred = points - points.mean(axis=0)
    if len(points) >= 3:
        _, vectors = np.linalg.eigh(np.cov(centred.T))
        centred = centred @ vectors[:, ::-1]
    centred = _unit_links(centred, links)
    if centred[0, 0] > 0:
        centred[:, 0] *= -1
    if centred[0, 1] < 0:
        centred[:, 1] *= -1
    return centred
