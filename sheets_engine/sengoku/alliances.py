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
    order = list(dict.fromkeys(clans))
    index = {clan: i for i, clan in enumerate(order)}
    # connected groups of a handful of clans, merged as each clan comes: not worth networkx's 0.1 s import a turn
    groups: list[set[str]] = []
    for clan in order:
        touching = [g for g in groups if any(mutual(declared, clan, other) for other in g)]
        groups = [g for g in groups if all(g is not t for t in touching)] + [{clan}.union(*touching)]
    return sorted((sorted(g, key=index.__getitem__) for g in groups), key=lambda g: index[g[0]])


def adjacency(provinces: pd.DataFrame) -> dict[str, set[str]]:
    """Each province's adjacent provinces, every link kept both ways (as in `province_map`'s graph).

    A turn only walks a few hops from a capital: a dict of sets, not networkx's graph (its import and
    build were 0.3 s of a 10,000-province turn)."""
    from sheets_engine.core.cells import split_names

    names = provinces.index.tolist()  # lists: iterating pandas objects boxes each value (10,000 provinces)
    links: dict[str, set[str]] = {str(p): set() for p in names}
    for province, adjacent in zip(names, provinces["Adjacent"].tolist(), strict=True):
        for other in split_names(adjacent):
            if other in links:
                links[str(province)].add(other)
                links[other].add(str(province))
    return links


def province_map(provinces: pd.DataFrame) -> nx.Graph:
    """The provinces and their adjacency links (validated as two-way)."""
    import networkx as nx

    from sheets_engine.core.cells import split_names

    graph = nx.Graph()
    graph.add_nodes_from(provinces.index)
    for province, adjacent in provinces["Adjacent"].items():
        graph.add_edges_from((province, other) for other in split_names(adjacent) if other in provinces.index)
    return graph
