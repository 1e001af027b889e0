"""The turn skeleton (core.turn) gives every ruleset the same deadlines, cutoffs and `resolve --now` (issue 26):
a turn (or season) is due at its deadline, `--force` takes the moment as its cutoff and keeps it in the
Game key `cutoffs` (added if the campaign has none), the deadline moves on by `turn_hours` once the period
is resolved, and a time given without a zone is the campaign's."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import openpyxl

from sheets_engine import app
from tests.golden import CLAN_WAR_RESULTS, cells


def game(path: Path) -> dict[str, Any]:
    return {row[0]: row[1] if len(row) > 1 else None for row in cells(path)["Game"][1:]}


def set_game(path: Path, **values: str) -> None:
    """Game keys set (added below the tab when the campaign has none of that name)."""
    book = openpyxl.load_workbook(path)
    sheet = book["Game"]
    given = dict(values)
    for row in sheet.iter_rows(min_row=2):
        if row[0].value in given:
            row[1].value = given.pop(row[0].value)
    for key, value in given.items():
        sheet.append([key, value, None])
    book.save(path)


def test_an_art_of_war_season_waits_for_its_deadline_and_a_forced_one_keeps_its_cutoff(tmp_path: Path) -> None:
    path = tmp_path / "aw.xlsx"
    app.init(str(path), ruleset="art-of-war", options={"houses": 2, "people": 0, "seed": "7"})
    set_game(path, deadline="2026-12-01 20:00:00", time_zone="Asia/Tokyo", turn_hours="24")
    early = app.resolve(str(path), now=datetime(2026, 12, 1, 19, 0))  # Tokyo time: the campaign's zone
    assert early.headline == (
        "Nothing to do: season 1 is due at its deadline 2026-12-01 20:00:00 (Asia/Tokyo); "
        "use --force to resolve it now."
    )
    book = openpyxl.load_workbook(path)  # a response sent after the forced run's moment waits for a later run
    book["Form Responses 1"].append(["2026-12-01 19:10:00", "late@example.com", game(path)["to_move"], "raise"])
    book.save(path)
    forced = app.resolve(str(path), now=datetime(2026, 12, 1, 19, 0), force=True)
    assert forced.headline.startswith("Season 1 resolved")
    assert "late@example.com" not in str(cells(path)["Orders"])
    kept = game(path)
    assert (kept["season"], kept["last_resolved_season"]) == (2, 1)
    assert kept["deadline"] == "2026-12-02 20:00:00"  # one season length on
    assert kept["cutoffs"] == "1: 2026-12-01 19:00:00"  # the forced moment, for a replay after a rollback
    assert forced.summary["orders sent by"] == "2026-12-01 19:00:00"
    app.rollback(str(path), 1)
    assert game(path)["cutoffs"] == "1: 2026-12-01 19:00:00" and game(path)["deadline"] == "2026-12-01 20:00:00"
    again = app.resolve(str(path), now=datetime(2026, 12, 1, 19, 30))  # due from the kept cutoff
    assert again.headline.startswith("Season 1 resolved")


def test_a_clan_war_turn_forced_before_its_deadline_keeps_its_cutoff_in_a_key_of_its_own(tmp_path: Path) -> None:
    path = tmp_path / "cw.xlsx"
    app.init(str(path), ruleset="clan-war", demo=True)
    set_game(path, deadline="2026-12-01 20:00:00")
    assert "cutoffs" not in game(path)
    waiting = app.resolve(str(path), now=datetime(2026, 12, 1, 19, 0, tzinfo=UTC))
    assert waiting.headline.startswith("Nothing to do: turn 1 is due at its deadline 2026-12-01 20:00:00 (UTC)")
    paused = app.resolve(str(path), now=datetime(2026, 12, 1, 19, 0, tzinfo=UTC), force=True)
    assert paused.status.value == "paused"
    assert game(path)["cutoffs"] == "1: 2026-12-01 19:00:00"  # kept by the run that took the turn's orders
    book = openpyxl.load_workbook(path)
    results = book["Battle Results"]
    header = [c.value for c in results[1]]
    for row in CLAN_WAR_RESULTS:
        results.append([{"Turn": 1, **row}.get(h) for h in header])
    book.save(path)
    done = app.resolve(str(path), now=datetime(2026, 12, 1, 19, 30, tzinfo=UTC))
    assert done.status.value == "resolved"
    kept = game(path)
    assert kept["deadline"] == "2026-12-08 20:00:00"  # turn_hours 168, once the turn is complete
    assert kept["cutoffs"] == "1: 2026-12-01 19:00:00"
    rows = cells(path)["Game"]
    assert rows[-1][2].startswith("Written by the engine")  # its Notes say who keeps it
    assert not [p for p in app.validate(str(path)) if p.severity.value == "error"]  # the key reads as a ledger
