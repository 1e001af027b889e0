"""The Art of War, a person's turn in one run (issue 29): after a person's order, one `resolve` plays on
through the season's close to the next person's house that has not ordered, while the season stays the
unit of rollback (each season's History rows carry a run id of their own)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sheets_engine import app
from sheets_engine.core.lifecycle import RunStatus
from sheets_engine.stores.memory import MemoryStore

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
PLUM = {"houses": 4, "people": "ana@kai.jp", "temper": "steady", "seed": "plum rain"}  # Crane is ana's; Lotus opens
CRANE_MARCH = {"Season": 1, "House": "Crane", "Order": "march", "Moves": "P2: 0,-3 > 0,-2"}
WAITING = "Season 2 paused: waiting for Crane's order (played by ana@kai.jp): it is Crane's turn."


def campaign(**options: Any) -> MemoryStore:
    store = MemoryStore()
    app.init(store, ruleset="art-of-war", options={**PLUM, **options})
    return store


def game(store: MemoryStore) -> dict[str, Any]:
    return {r["Key"]: r["Value"] for r in store.records("Game")}


def order(store: MemoryStore, values: dict[str, Any]) -> None:
    header = store.tabs["Orders"][0]
    store.tabs["Orders"].append([values.get(c) for c in header])


def pieces(store: MemoryStore) -> dict[str, str]:
    """Every piece on the board: id -> "house kind hex"."""
    return {p["Piece"]: f"{p['House']} {p['Kind']} {p['Hex']}" for p in store.records("Pieces") if p["Hex"]}


def played(store: MemoryStore) -> list[tuple[Any, ...]]:
    return [(o["Season"], o["House"], o["Order"], o["Status"]) for o in store.records("Orders") if o["House"]]


def ordered_and_waiting() -> tuple[MemoryStore, dict[str, str]]:
    """The bots played up to Crane (ana's) in season 1, and Crane's march is in the sheet."""
    store = campaign()
    assert app.resolve(store, now=NOW).headline.startswith("Season 1 paused: waiting for Crane's order")
    order(store, CRANE_MARCH)
    return store, pieces(store)


def test_a_persons_order_and_one_resolve_reach_the_persons_next_turn_across_the_seasons_close() -> None:
    store, before = ordered_and_waiting()
    report = app.resolve(store, now=NOW)
    assert (report.status, report.headline) == (
        RunStatus.PAUSED,
        "Season 1 resolved: season 2 opens with Lotus. " + WAITING,
    )
    assert report.summary["played on"] == "season 1: Crane, Tiger played"
    ledger = game(store)
    assert (ledger["season"], ledger["last_resolved_season"], ledger["to_move"]) == (2, 1, "Crane")
    assert played(store) == [
        (1, "Lotus", "raise", "Resolved"),
        (1, "Wolf", "raise", "Resolved"),
        (1, "Crane", "march", "Resolved"),
        (1, "Tiger", "raise", "Resolved"),
        (2, "Lotus", "raise", "Resolved"),
        (2, "Wolf", "raise", "Resolved"),
    ]
    now = pieces(store)
    moved = {p: (before.get(p), at) for p, at in now.items() if before.get(p) != at}
    assert moved == {
        "P2": ("Crane soldier 0,-3", "Crane soldier 0,-2"),  # the person's march, season 1
        "P17": (None, "Tiger soldier -4,1"),  # Tiger's raise closing season 1
        "P18": (None, "Tiger settler -2,0"),
        "P19": (None, "Lotus settler -1,4"),  # season 2: Lotus and Wolf, the seats before Crane's
        "P20": (None, "Lotus settler 0,5"),
        "P21": (None, "Lotus settler 3,2"),
        "P22": (None, "Wolf settler 3,-1"),
        "P23": (None, "Wolf settler 5,-1"),
        "P24": (None, "Wolf soldier 3,0"),
    }
    # each season's History rows under a run id of its own: the run's id and the season
    ids = {(r["Turn"], r["Resolution"], r["Step"]) for r in store.records("History")}
    run = report.resolution
    assert {(turn, step) for turn, rid, step in ids if rid.startswith(run)} == {(1, "turn"), (2, "to-person")}
    assert {rid for turn, rid, _ in ids if rid.startswith(run)} == {f"{run}-1", f"{run}-2"}
    again = app.resolve(store, now=NOW)  # no order from Crane yet: nothing moves
    assert (again.status, again.headline, again.changes) == (RunStatus.PAUSED, WAITING, [])


def test_rollback_undoes_one_season_at_a_time_and_the_replay_is_identical() -> None:
    store, _ = ordered_and_waiting()
    app.resolve(store, now=NOW)
    after = {t: [list(r) for r in store.tabs[t]] for t in ("Houses", "Pieces")}
    orders = sorted(map(str, played(store)))
    summary = app.rollback(store, 2, now=NOW).summary
    assert (summary["runs undone"], summary["Notifications rows cleared"]) == (1, 2)
    ledger = game(store)
    assert (str(ledger["season"]), str(ledger["last_resolved_season"]), ledger["to_move"]) == ("2", "1", "Lotus")
    assert played(store) == [
        (1, "Lotus", "raise", "Resolved"),
        (1, "Wolf", "raise", "Resolved"),
        (1, "Crane", "march", "Resolved"),
        (1, "Tiger", "raise", "Resolved"),
    ]
    board = pieces(store)  # season 1 stands: Crane's march and Tiger's raise, nothing of season 2
    assert (board["P2"], board["P18"], "P19" in board) == ("Crane soldier 0,-2", "Tiger settler -2,0", False)
    summary = app.rollback(store, 1, now=NOW).summary
    assert summary["runs undone"] == 2  # season 1's part of the joined run and the run before Crane
    ledger = game(store)
    assert (str(ledger["season"]), str(ledger["last_resolved_season"]), ledger["to_move"]) == ("1", "0", "Lotus")
    assert pieces(store) == pieces(campaign())  # the board as season 1 began
    assert [o["Status"] for o in store.records("Orders") if o["House"]] == [""]  # Crane's order, unplayed again
    app.resolve(store, now=NOW)  # the bots up to Crane, then Crane's order: the same two seasons again
    app.resolve(store, now=NOW)
    assert {t: [list(r) for r in store.tabs[t]] for t in after} == after
    assert sorted(map(str, played(store))) == orders  # (the rows a rollback cleared stay blank above them)


def test_a_deadline_still_to_come_stops_the_run_at_the_seasons_close() -> None:
    store, _ = ordered_and_waiting()
    rows = store.tabs["Game"]
    rows.append(["deadline", "2026-12-01 10:00", ""])  # season 1's, passed
    rows.append(["turn_hours", 24, ""])
    report = app.resolve(store, now=NOW)
    assert (report.status, report.headline) == (RunStatus.RESOLVED, "Season 1 resolved: season 2 opens with Lotus")
    ledger = game(store)
    assert (ledger["season"], ledger["to_move"], ledger["deadline"]) == (2, "Lotus", "2026-12-02 10:00:00")


def test_a_campaign_of_bots_alone_still_resolves_one_season_a_run() -> None:
    store = campaign(people=0, seed="plum rain")
    report = app.resolve(store, now=NOW)
    assert (report.status, report.headline) == (RunStatus.RESOLVED, "Season 1 resolved: season 2 opens with Lotus")
    assert "played on" not in report.summary
    assert {r["Turn"] for r in store.records("History")} == {1}


def test_a_cell_empty_when_read_and_written_in_both_seasons_is_put_back_as_the_first_season_left_it() -> None:
    store, _ = ordered_and_waiting()
    header = store.tabs["Houses"][0]
    for row in store.tabs["Houses"][1:]:
        row[header.index("Mandate")] = None  # a GM cleared the column: read as 0, recorded empty
    report = app.resolve(store, now=NOW)
    rows = [r for r in store.records("History") if r["Resolution"].startswith(report.resolution)]
    wrote = {(r["Turn"], r["Key"]): (r["Old"], r["New"]) for r in rows if r["Column"] == "Mandate"}
    assert wrote[(1, "Lotus")] == (None, 24)  # the cell as read: empty
    assert wrote[(2, "Lotus")] == (24, 38)  # season 2's Old is what season 1 wrote, not the empty cell
    app.rollback(store, 2, now=NOW)
    assert {r["House"]: r["Mandate"] for r in store.records("Houses")}["Lotus"] == 24
