"""`check` on an Art of War campaign: a person's house learns what its waiting order would do before it
moves, and nothing on the board changes."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sheets_engine import app
from sheets_engine.app import check
from sheets_engine.stores.memory import MemoryStore

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _order(store: MemoryStore, season: int, house: str, order: str, moves: str) -> None:
    header = store.tabs["Orders"][0]
    row: dict[str, Any] = {"Season": season, "House": house, "Order": order, "Moves": moves, "Status": "Pending"}
    store.tabs["Orders"].append([row.get(c) for c in header])


def _results(store: MemoryStore) -> dict[str, tuple[str, str]]:
    return {r["House"]: (r["Status"], r["Result"]) for r in store.records("Orders") if r["House"] in ("Crane", "Tiger")}


def test_check_previews_a_persons_waiting_order_without_moving_a_piece() -> None:
    store = MemoryStore()
    app.init(store, ruleset="art-of-war", options={"houses": 4, "people": 2, "temper": "steady", "seed": "plum rain"})
    paused = app.resolve(store, now=NOW)  # Lotus and Wolf (bots) move; Crane, a person, is to move
    assert paused.headline == "Season 1 paused: waiting for Crane's order (played by person 1): it is Crane's turn."
    _order(store, 1, "Crane", "march", "P2: 0,-3 > 0,-2 > 0,-1; P3: 0,-5 x 0,-4")
    _order(store, 1, "Tiger", "raise", "")
    pieces = store.records("Pieces")
    report = check(store, now=NOW)
    assert report.summary["orders checked"] == 2 and report.summary["will fail"] == 1
    assert _results(store) == {
        "Crane": (
            "Pending",
            "Check: part of it will be refused: P2 marches 0,-3 > 0,-2; P2 cannot enter 0,-1: plain costs 1 and it "
            "has 0 left; P3 cannot attack 0,-4: settlers never attack",
        ),
        "Tiger": (
            "Pending",
            "Check: the houses before Tiger move first; on today's board: P4 at -4,2 raises settler P17 at -4,1; "
            "P6 at -3,1 raises settler P18 at -2,0",
        ),
    }
    assert store.records("Pieces") == pieces  # a preview moves nothing
    app.resolve(store, now=NOW)  # Crane's order is carried out; the real Result replaces the preview
    assert _results(store)["Crane"] == (
        "Resolved",
        "P2 marches 0,-3 > 0,-2; P2 cannot enter 0,-1: plain costs 1 and it has 0 left; P3 cannot attack 0,-4: "
        "settlers never attack",
    )
