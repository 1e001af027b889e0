"""Where provinces stand on the map (issue 27): saved places kept, the rest laid out fast with declared
packages only, the same every run, islands apart, never two provinces on one spot."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections.abc import Hashable
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from sheets_engine.core.cells import split_names
from sheets_engine.maplayout import SPACING, Layout, layout
from sheets_engine.sengoku.generate import generate


def campaign_map(provinces: int, seed: int = 1560) -> nx.Graph:
    """The Provinces and their links of a generated campaign, in row order."""
    header, *rows = generate(provinces, seed=seed)["Provinces"]
    name, adjacent = header.index("Province"), header.index("Adjacent")
    graph = nx.Graph()
    graph.add_nodes_from(row[name] for row in rows)
    for row in rows:
        graph.add_edges_from((row[name], other) for other in split_names(row[adjacent] or ""))
    return graph


def grid_places(graph: nx.Graph, link: float = 30.0) -> dict[Hashable, tuple[float, float]]:
    """Where the generator's grid puts each province (its row and column), `link` units apart."""
    width = math.isqrt(len(graph))
    return {p: ((k % width) * link, -(k // width) * link) for k, p in enumerate(graph)}


def closest(done: Layout, free: set[Hashable]) -> float:
    """The least distance between two provinces of which one at least was laid out (every pair checked)."""
    names = list(done.places)
    points = np.array([done.places[p] for p in names])
    gaps = np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(axis=2))
    counted = np.array([p in free for p in names])
    mask = (counted[:, None] | counted[None, :]) & ~np.eye(len(names), dtype=bool)
    return float(gaps[mask].min())


def test_saved_places_are_kept_exactly_and_the_others_laid_out_around_them() -> None:
    graph = campaign_map(100)
    truth = grid_places(graph)
    saved = {p: (truth[p][0] + 0.123456789, truth[p][1]) for k, p in enumerate(graph) if k % 2 == 0}
    done = layout(graph, saved, seed=1560)
    assert {p: done.places[p] for p in saved} == saved  # the very floats the GM typed
    assert set(done.places) == set(graph)
    assert done.link == pytest.approx(30.0, abs=0.01)  # the median saved link: the GM's own scale


def test_every_province_saved_gives_the_saved_places_and_the_median_saved_link() -> None:
    graph = nx.Graph([("A", "B"), ("B", "C")])
    saved = {"A": (0.0, 0.0), "B": (3.0, 4.0), "C": (3.0, 14.0)}
    assert layout(graph, saved) == Layout(saved, 7.5, 7.5 * SPACING)


def test_the_same_campaign_gets_the_same_places_in_a_fresh_interpreter() -> None:
    graph = campaign_map(400)
    first = layout(graph, seed=1560)
    assert layout(graph, seed=1560) == first
    script = (
        "import json; from tests.test_map_layout import campaign_map; from sheets_engine.maplayout import layout; "
        "print(json.dumps(layout(campaign_map(400), seed=1560).places))"
    )
    other = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=Path(__file__).parents[1],
        env={**os.environ, "PYTHONHASHSEED": "12345"},  # another string hashing: sets iterate otherwise
    )  # fmt: skip
    assert other.returncode == 0, other.stderr
    assert {p: tuple(xy) for p, xy in json.loads(other.stdout).items()} == first.places


def test_a_layout_of_1000_provinces_needs_no_scipy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "scipy", None)  # any import of scipy fails, as on a clean install
    done = layout(campaign_map(1000), seed=1560)
    assert len(done.places) == 1000


@pytest.mark.parametrize("provinces", [32, 300, 1000])
def test_no_two_provinces_stand_closer_than_the_spacing(provinces: int) -> None:
    graph = campaign_map(provinces)
    done = layout(graph, seed=1560)
    assert done.link == 1.0 and done.spacing == SPACING
    assert closest(done, set(graph)) >= SPACING


def test_no_laid_out_province_stands_closer_than_the_spacing_to_a_saved_one() -> None:
    graph = campaign_map(1000)
    truth = grid_places(graph)
    saved = {p: truth[p] for k, p in enumerate(graph) if k % 10 == 0}
    done = layout(graph, saved, seed=1560)
    assert closest(done, set(graph) - set(saved)) >= done.spacing


def test_neighbours_stand_closer_than_other_provinces_on_average() -> None:
    graph = campaign_map(100)
    done = layout(graph, seed=1560)
    distance = {(a, b): math.dist(done.places[a], done.places[b]) for a in graph for b in graph if a < b}
    near = [d for (a, b), d in distance.items() if graph.has_edge(a, b)]
    far = [d for (a, b), d in distance.items() if not graph.has_edge(a, b)]
    assert sum(near) / len(near) * 4 < sum(far) / len(far)  # measured: 1.0 against 5.9
    assert max(near) < 1.5  # and no link is stretched across the map


def test_the_links_of_a_generated_campaign_stay_short() -> None:
    graph = campaign_map(1000)
    done = layout(graph, seed=1560)
    lengths = [math.dist(done.places[a], done.places[b]) for a, b in graph.edges]
    assert max(lengths) < 1.5 and sorted(lengths)[len(lengths) // 2] == pytest.approx(1.0, abs=0.05)


def test_an_unsaved_province_stands_between_its_saved_neighbours() -> None:
    graph = nx.path_graph(["Owari", "Mino", "Omi"])
    done = layout(graph, {"Owari": (0.0, 0.0), "Omi": (10.0, 0.0)})
    x, y = done.places["Mino"]
    assert abs(x - 5.0) < 0.5 and abs(y) < 0.5
    assert done.link == pytest.approx(5.0, abs=0.01)  # the fit's scale: two links over 10 units


def test_unsaved_provinces_stand_near_where_their_saved_neighbours_say() -> None:
    graph = campaign_map(400)
    truth = grid_places(graph)
    saved = {p: truth[p] for k, p in enumerate(graph) if k % 2 == 0}
    done = layout(graph, saved, seed=1560)
    off = sorted(math.dist(done.places[p], truth[p]) / 30 for p in graph if p not in saved)
    assert off[len(off) // 2] < 0.5 and off[-1] < 1.5  # in links; measured 0.2 and 0.8


def test_islands_stand_side_by_side_not_on_top_of_each_other() -> None:
    graph = nx.union_all(
        [nx.cycle_graph([f"a{k}" for k in range(6)]), nx.path_graph(["b0", "b1", "b2"]), nx.Graph([("c0", "c1")])]
    )
    graph.add_node("d0")
    done = layout(graph)
    boxes = []
    for island in ("a", "b", "c", "d"):
        points = [xy for p, xy in done.places.items() if p.startswith(island)]
        xs, ys = [x for x, _ in points], [y for _, y in points]
        boxes.append((min(xs), min(ys), max(xs), max(ys)))
    for k, one in enumerate(boxes):
        for other in boxes[k + 1 :]:
            apart = max(other[0] - one[2], one[0] - other[2], other[1] - one[3], one[1] - other[3])
            assert apart >= 1.0, (one, other)


def test_islands_without_saved_places_stand_below_the_saved_world() -> None:
    graph = nx.union(nx.path_graph(["Owari", "Mino", "Omi"]), nx.path_graph(["Sado", "Oki"]))
    done = layout(graph, {"Owari": (0.0, 0.0), "Mino": (10.0, 0.0)})
    assert max(done.places["Sado"][1], done.places["Oki"][1]) < min(y for _, y in list(done.places.values())[:3])


def test_an_island_saved_whole_stays_as_saved_and_the_unsaved_one_stands_below_it() -> None:
    graph = nx.union(nx.path_graph(["Owari", "Mino", "Omi"]), nx.cycle_graph(["Sado", "Oki", "Iki"]))
    saved = {"Owari": (0.0, 0.0), "Mino": (4.0, 0.0), "Omi": (8.0, 1.0)}
    done = layout(graph, saved)
    assert {p: done.places[p] for p in saved} == saved and done.link == pytest.approx(4.06, abs=0.01)
    top = max(done.places[p][1] for p in ("Sado", "Oki", "Iki"))
    assert top == pytest.approx(-2 * done.link, abs=1e-3)  # two links below the saved world's lowest, Owari


@pytest.mark.parametrize(
    ("graph", "across"), [(nx.path_graph(400), 399), (nx.cycle_graph(600), 600 / math.pi)], ids=["chain", "ring"]
)
def test_a_long_chain_and_a_ring_are_laid_out_open_without_a_fold(graph: nx.Graph, across: float) -> None:
    done = layout(graph)
    lengths = [math.dist(done.places[a], done.places[b]) for a, b in graph.edges]
    assert min(lengths) > 0.8 and max(lengths) < 1.2
    xs = [x for x, _ in done.places.values()]
    assert max(xs) - min(xs) > 0.9 * across  # drawn out to its length, not crumpled
    assert closest(done, set(graph)) >= SPACING


def test_an_empty_map_and_a_lone_province_have_places() -> None:
    assert layout(nx.Graph()).places == {}
    assert layout(nx.empty_graph(["Sado"])).places == {"Sado": (0.0, 0.0)}


def test_a_saved_place_that_is_no_number_or_of_no_province_is_refused() -> None:
    graph = nx.path_graph(["Owari", "Mino"])
    with pytest.raises(ValueError, match=r"the saved place of Owari is no finite number: \(nan, 0.0\)"):
        layout(graph, {"Owari": (math.nan, 0.0)})
    with pytest.raises(ValueError, match="saved places for provinces the map lacks: Ezo"):
        layout(graph, {"Ezo": (0.0, 0.0)})
