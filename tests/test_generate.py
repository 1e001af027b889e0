"""`sheets-engine generate`: valid synthetic campaigns of any size, the same for the same seed."""

from __future__ import annotations

from datetime import UTC, datetime

import networkx as nx
import pytest

from sheets_engine import app
from sheets_engine.core.cells import split_names
from sheets_engine.sengoku.generate import generate
from sheets_engine.sengoku.schema import OrderType
from sheets_engine.stores.memory import MemoryStore


@pytest.mark.parametrize("provinces", [2, 68, 500])
def test_a_generated_campaign_is_valid(provinces: int) -> None:
    store = MemoryStore(generate(provinces, seed=7))
    campaign = app.open_campaign(store)
    assert campaign.errors == []
    assert len(campaign.state.frame("Provinces")) == provinces


def test_the_same_seed_gives_the_same_campaign_and_another_seed_another() -> None:
    assert generate(300, seed=3) == generate(300, seed=3)
    assert generate(300, seed=3)["Provinces"] != generate(300, seed=4)["Provinces"]


def test_the_generated_map_is_planar_connected_and_two_way() -> None:
    tabs = generate(400, seed=11)
    header, *rows = tabs["Provinces"]
    name, adjacent = header.index("Province"), header.index("Adjacent")
    links = {r[name]: set(split_names(r[adjacent] or "")) for r in rows}
    graph = nx.Graph((a, b) for a, others in links.items() for b in others)
    assert all(a in links[b] for a, others in links.items() for b in others)
    assert nx.is_connected(graph) and nx.check_planarity(graph)[0]


def test_the_form_responses_hold_every_order_type() -> None:
    tabs = generate(400, seed=5)
    header, *rows = tabs["Form Responses 1"]
    orders = {r[header.index("Order")] for r in rows}
    assert orders == {o.value for o in OrderType}


def test_a_generated_campaign_resolves_a_turn() -> None:
    store = MemoryStore(generate(200, seed=9))
    report = app.resolve(store, now=datetime(2026, 11, 30, 20, 0, tzinfo=UTC))
    assert report.summary["resolved"] is True
    assert report.summary["orders resolved"] > 0
    assert {r["Status"] for r in store.records("Orders")} <= {"Resolved", "Rejected", "Superseded"}
