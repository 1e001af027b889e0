"""The Clan War demo campaign end to end, through the CLI: init, validate, a turn that pauses for its
battles, nothing to do while results are missing, completed once the GM has typed them, and rolled back."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import openpyxl
from click.testing import CliRunner

from sheets_engine.cli import cli as main
from tests.support import run_main


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The worktree's own CLI (not the `sheets-engine` script on PATH), in this process (tests.support.run_main)."""
    return run_main(*args)


def cells(path: Path, skip: tuple[str, ...] = ()) -> dict[str, list[list[Any]]]:
    """Every tab's values, empty cells as None and trailing empty cells and rows dropped."""
    book = openpyxl.load_workbook(path)
    found = {}
    for sheet in book.worksheets:
        if sheet.title in skip:
            continue
        rows = []
        for row in sheet.iter_rows(values_only=True):
            values = [None if v == "" else v for v in row]
            while values and values[-1] is None:
                values.pop()
            rows.append(values)
        while rows and not rows[-1]:
            rows.pop()
        found[sheet.title] = rows
    return found


def column(rows: list[list[Any]], *names: str) -> dict[Any, Any]:
    """A tab's rows as {first cell: the named columns' values} (one value for one name)."""
    header = rows[0]
    at = [header.index(name) for name in names]

    def pick(row: list[Any]) -> Any:
        values = tuple(row[i] if i < len(row) else None for i in at)
        return values[0] if len(values) == 1 else values

    return {row[0]: pick(row) for row in rows[1:]}


RESULTS = [
    {"Province": "Kakita", "Winner": "Lion"},
    {"Province": "Kakita", "Unit": "Crane Iron Warriors", "Models Lost": 6, "Final Status": "Broken",
     "Left Table": True, "Withdraw To": "Doji"},
    {"Province": "Kakita", "Unit": "Crane Duelists", "Models Lost": 12, "Final Status": "Destroyed"},
    {"Province": "Kakita", "Personality": "Doji Hoturi", "Wounds Over Max": 1},
    {"Province": "Kakita", "Unit": "Lion Cavalry", "Models Lost": 3, "Final Status": "Ready"},
    {"Province": "Shiro Hiruma", "Winner": "Crab"},
    {"Province": "Shiro Hiruma", "Unit": "Goblin Horde", "Models Lost": 30, "Final Status": "Routed",
     "Left Table": True, "Withdraw To": "Festering Pit"},
    {"Province": "Shiro Hiruma", "Unit": "Crab Wall Guard", "Models Lost": 4, "Final Status": "Ready"},
]  # fmt: skip


def fill_results(path: Path) -> None:
    """What the GM types after the battles were fought at the table."""
    book = openpyxl.load_workbook(path)
    sheet = book["Battle Results"]
    header = [c.value for c in sheet[1]]
    for row in RESULTS:
        sheet.append([{"Turn": 1, **row}.get(h) for h in header])
    book.save(path)


def validated(path: Path) -> list[str]:
    """`validate` after a step (in this process: the CLI's own command, without a new interpreter's start): it
    must pass (exit 0); the warnings it gives, as text."""
    said = CliRunner().invoke(main, ["validate", str(path), "--json"])
    assert said.exit_code == 0, said.output
    return [f"{p['tab']}, {p['column']}: {p['expected']}" for p in json.loads(said.output)["problems"]]


def test_the_demo_turn_pauses_for_its_battles_then_completes_and_rolls_back(tmp_path: Path) -> None:
    """The issue's end to end: purchases, bids, moves, two battles, the GM's results, a special item bought for a
    personality who battled; it resolves and validates after every step, and rolls back."""
    path = tmp_path / "cw.xlsx"
    assert cli("init", str(path), "--ruleset", "clan-war", "--demo").returncode == 0
    assert cli("validate", str(path)).stdout == "No problems found.\n"
    before = cells(path)
    held = [row[1] for row in before["Provinces"][1:]]
    # each faction starts with starting_koku_per_province (2000) for each of its four provinces
    assert {row[0]: (row[3], held.count(row[0])) for row in before["Factions"][1:]} == {
        "Crab": (8000, 4), "Crane": (8000, 4), "Lion": (8000, 4), "Shadowlands": (8000, 4),
    }  # fmt: skip

    paused = cli("resolve", str(path), "--json")
    assert paused.returncode == 0, paused.stderr
    report = json.loads(paused.stdout)
    assert (report["status"], report["headline"]) == (
        "paused", "Turn 1 paused: waiting for the Battle Results of 2 battles: Kakita, Shiro Hiruma.",
    )  # fmt: skip
    listed = cells(path)["Battles"]
    assert listed == [
        ["Turn", "Province", "Factions", "Defender", "Terrain Chosen By"],
        [1, "Kakita", "Crane, Lion", "Crane", "Crane"],
        [1, "Shiro Hiruma", "Crab, Shadowlands", "Shadowlands", "Shadowlands"],
    ]
    at_pause = cells(path)
    assert validated(path) == [
        "Battle Results, Winner: a row with Turn 1, Province Kakita and the Winner of the battle there (Crane, "
        "Lion): the turn waits for it",
        "Battle Results, Winner: a row with Turn 1, Province Shiro Hiruma and the Winner of the battle there (Crab, "
        "Shadowlands): the turn waits for it",
    ]

    waiting = cli("resolve", str(path), "--json")  # a cron run while the GM has not typed the results
    assert waiting.returncode == 0, waiting.stderr
    assert (json.loads(waiting.stdout)["status"], json.loads(waiting.stdout)["headline"]) == (
        "nothing_to_do",
        "Nothing to do: turn 1 waits for the Battle Results of 2 battles: Kakita and Shiro Hiruma "
        "(no row with Turn, Province and Winner yet).",
    )
    assert cells(path) == at_pause

    fill_results(path)
    assert validated(path) == []
    done = cli("resolve", str(path), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["headline"] == "Turn 1 resolved (2 battles applied)"
    assert validated(path) == [
        "Factions, Daimyo: a living personality of Crane: Doji Hoturi is Dead, so the faction names a new Daimyo"
    ]
    after = cells(path)
    game = {row[0]: row[1] for row in after["Game"][1:]}
    assert (game["turn"], game["last_resolved_turn"], game["phase"]) == (2, 1, "start")
    # Crab: 8000 - 80 - 70 - 25 - 40 - 32 (purchases) - 60 (Toku) + 32 (the ally's share) + 500 (taxes: 5)
    assert column(after["Factions"], "Koku") == {"Crab": 8225, "Crane": 8104, "Lion": 8297, "Shadowlands": 8300}
    units = column(after["Units"], "Province", "Models", "Status", "Package")
    assert units["Goblin Horde"] == ("Festering Pit", 13, "Ready", None)  # 10 left, routed: 6, then 7 of 30 back
    assert units["Crane Duelists"] == ("Kakita", 0, "Destroyed", None)
    assert units["Crab Spears"] == ("Hida", 20, "Ready", "Hida Chui")  # its Hida Gunso promoted, in family
    assert units["Unicorn Riders"] == ("Ikoma", 12, "Ready", None)  # Lion's bid for a clan no player plays
    people = column(after["Personalities"], "Status", "Items")
    assert (people["Doji Hoturi"], people["Kuni Tansen"], people["Toku"]) == (
        ("Dead", None), ("Ready", None), ("Ready", None),
    )  # fmt: skip
    # the Hammer was bought for Hida Kisada, who battled at Shiro Hiruma: it goes to Kuni Yori, who did not
    assert (people["Hida Kisada"], people["Kuni Yori"]) == (
        ("Ready", None), ("Ready", "Yari, Ancestral Hammer of the Crab"),
    )  # fmt: skip
    assert all(row[1] != "Ancestral Hammer of the Crab" for row in after["Stockpile"][1:])
    rolls = [row[9] for row in after["History"][1:] if row[3] == "Personalities" and row[4] == "Doji Hoturi"
             and row[5] == "Status"]  # fmt: skip
    assert rolls == ["d10=10 (wound roll of Doji Hoturi); d10=8 (maim roll of Doji Hoturi)"]  # 10 + 1, 8 + 1: Dead
    assert cells(path, skip=("History",))["Provinces"] != before["Provinces"]

    assert cli("rollback", str(path), "--turn", "1").returncode == 0
    assert cells(path, skip=("History", "Battle Results")) == {
        tab: rows for tab, rows in before.items() if tab not in ("History", "Battle Results")
    }
    assert validated(path) == []


def test_a_rolled_back_turn_restores_the_blank_status_of_hand_typed_moves(tmp_path: Path) -> None:
    """A GM types Moves rows and leaves Status blank (read as Pending); rollback must leave it blank again."""
    path = tmp_path / "cw.xlsx"
    cli("init", str(path), "--ruleset", "clan-war", "--demo")
    book = openpyxl.load_workbook(path)
    sheet = book["Moves"]
    status = [c.value for c in sheet[1]].index("Status") + 1
    for row in range(2, sheet.max_row + 1):
        sheet.cell(row, status).value = None
    book.save(path)
    before = cells(path, skip=("History",))
    assert cli("resolve", str(path)).returncode == 0
    assert cli("rollback", str(path), "--turn", "1").returncode == 0
    assert cells(path, skip=("History",))["Moves"] == before["Moves"]


def test_a_paused_turn_rolls_back_to_every_cell_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "cw.xlsx"
    cli("init", str(path), "--ruleset", "clan-war", "--demo")
    before = cells(path, skip=("History",))
    assert cli("resolve", str(path)).returncode == 0
    back = cli("rollback", str(path), "--turn", "1")
    assert back.returncode == 0, back.stderr
    assert cells(path, skip=("History",)) == before
    explained = cli("explain", str(path), "Crab Wall Guard", "--json")
    assert explained.returncode == 0, explained.stderr


def test_check_previews_each_pending_purchase_bid_and_move_without_revealing_sealed_bids(tmp_path: Path) -> None:
    path = tmp_path / "cw.xlsx"
    cli("init", str(path), "--ruleset", "clan-war", "--demo")
    checked = cli("check", str(path))
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.startswith(
        "Turn 1: 0 form responses copied, 25 orders checked (15 valid now, 4 will fail, 6 depend on dice or "
        "other clans);"
    )
    tabs = cells(path)
    assert tabs["Purchases"][4][9:] == [
        "Pending",
        "Check: will fail: Daikyu is a ranged weapon: ranged weapons may not be stockpiled",
    ]
    assert tabs["Bids"][2][7:] == [
        "Pending",
        "Check: a valid bid; whether it wins depends on the other players' sealed bids",
    ]
    assert tabs["Moves"][9][5:] == ["Pending", "Check: reserve moves are judged after the battles"]
    assert {row[0]: row[1] for row in tabs["Game"][1:]}["phase"] == "start"
