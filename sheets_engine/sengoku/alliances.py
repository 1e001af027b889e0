"""Guide Section 8, Alliance: who is friendly with whom.

A declaration is one-sided; only a mutual alliance (both clans declared each other) stops a
battle or a crossing-path conflict. "Friendly" everywhere means the same clan or a mutual ally.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import pandas as pd

from sheets_engine.core.tables import Draft, GameState

if TYPE_CHECKING:
    import networkx as nx  # imported where a graph is built: 0.1 s of start-up a run without battles spares


def declarations(tables: Draft | GameState) -> set[tuple[str, str]]:
    """Every one-sided declaration (clan, ally) of the Alliances tab."""
    frame = tables.frame("Alliances")
    return set(zip(frame["Clan"], frame["Ally"], strict=True))


def mutual(declared: set[tuple[str, str]], a: str, b: str) -> bool:
    """True when both clans have declared each other allies."""
    return (a, b) in declared and (b, a) in declared


def friendly(declared: set[tuple[str, str]], a: str, b: str) -> bool:
    """The same clan, or mutual allies."""
    return bool(a) and (a == b or mutual(declared, a, b))


def sides(declared: set[tuple[str, str]], clans: Iterable[str]) -> list[list[str]]:
    """The clans present grouped into sides: connected groups of mutual alliances.

    Each side lists its clans in the order given; sides come in the order of their first clan.
    """
    import networkx as nx

    order = list(dict.fromkeys(clans))
    graph = nx.Graph()
    graph.add_nodes_from(order)
    graph.add_edges_from((a, b) for a in order for b in order if a < b and mutual(declared, a, b))
    groups = [sorted(c, key=order.index) for c in nx.connected_components(graph)]
    return sorted(groups, key=lambda g: order.index(g[0]))


def province_map(provinces: pd.DataFrame) -> nx.Graph:
    """The provinces and their adjacency links (validated as two-way)."""
    import networkx as nx

    from sheets_engine.core.cells import split_names

    graph = nx.Graph()
    graph.add_nodes_from(provinces.index)
    for province, adjacent in provinces["Adjacent"].items():
        graph.add_edges_from((province, other) for other in split_names(adjacent) if other in provinces.index)
    return graph
