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
    app.init(
        store,
        ruleset="art-of-war",
        options={"houses": 4, "people": "ana@kai.jp, ben@kai.jp", "temper": "steady", "seed": "plum rain"},
    )
    paused = app.resolve(store, now=NOW)  # Lotus and Wolf (bots) move; Crane, a person, is to move
    assert paused.headline == "Season 1 paused: waiting for Crane's order (played by ana@kai.jp): it is Crane's turn."
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


def test_check_names_every_row_it_cannot_read_and_why_in_seasons() -> None:
    store = MemoryStore()
    app.init(store, ruleset="art-of-war", options={"houses": 4, "people": "ana@kai.jp, ben@kai.jp",
                                                   "temper": "steady", "seed": "plum rain"})  # fmt: skip
    app.resolve(store, now=NOW)  # Lotus and Wolf move; Crane is to move in season 1, Tiger after it
    header = store.tabs["Orders"][0]
    for row in (
        {"House": "Crane", "Order": "raise"},  # no Season
        {"Season": 1, "House": "Dragon", "Order": "raise"},
        {"Season": 1, "House": "Crane", "Order": "raise"},  # replaced by the next one
        {"Season": 1, "House": "Crane", "Order": "charge"},
        {"Season": 3, "House": "Tiger", "Order": "raise"},
    ):
        store.tabs["Orders"].append([{**row, "Status": "Pending"}.get(c) for c in header])
    report = check(store, now=NOW)
    first = len(store.tabs["Orders"]) - 4  # the sheet's row number of the first of them
    no_season = "no season given: write the season of the order (1) in its Season column"
    dragon = 'there is no house "Dragon" (the houses: Crane, Tiger, Lotus, Wolf): it is never played'
    charge = 'unknown order "charge": the order is raise or march'
    assert report.headline == (
        f"Season 1: 0 form responses copied, 0 orders checked (1 will not count, 1 wait for a later season); "
        f"3 rows cannot be read: Orders row {first}: {no_season}; Orders row {first + 1}: {dragon}; "
        f"Orders row {first + 3}: {charge}"
    )
    assert [(r["Status"], r["Result"]) for r in store.records("Orders")[-5:]] == [
        ("Pending", f"Check: cannot be read: {no_season}"),
        ("Pending", f"Check: cannot be read: {dragon}"),
        ("Pending", f"Check: will not count: a later order for season 1 (row {first + 3}) replaces it"),
        ("Pending", f"Check: cannot be read: {charge}"),
        ("Pending", "Check: waits: it is for season 3, and Tiger's next turn is in season 1"),
    ]
    assert report.summary["not read"] == [
        f"Orders row {first}: {no_season}",
        f"Orders row {first + 1}: {dragon}",
        f"Orders row {first + 3}: {charge}",
    ]
