"""A fourth ruleset in one package (issue 26): Tally, from tests/toy, registered with one registry line and
played through every command as a GM would (init, validate, check, resolve at its deadline and across its
pause, report, its own command, notify, rollback), with nothing of Sengoku's code and no change outside it."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from click.testing import CliRunner

from sheets_engine import app, rulesets
from sheets_engine.cli import cli, main
from tests import toy
from tests.golden import append_rows, cells
from tests.standin.discord import FakeDiscord, write_webhooks

BEFORE = "2026-12-01 19:00"
AFTER = "2026-12-01 20:30"


@pytest.fixture
def tally(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(rulesets.ENTRIES, toy.ENTRY.name, toy.ENTRY)  # the one registry line
    yield


def run(*args: str) -> Any:
    """The command as cron or a GM runs it (click's result: exit code, stdout, stderr)."""
    return CliRunner().invoke(cli, list(args))


def failing(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[Any, str]:
    """A command run through the entry point that maps failures to exit codes: (exit code, stderr)."""
    monkeypatch.setattr(sys, "argv", ["sheets-engine", *args])
    with pytest.raises(SystemExit) as done:
        main()
    return done.value.code, capsys.readouterr().err


def set_game(path: Path, **values: str) -> None:
    book = openpyxl.load_workbook(path)
    for row in book["Game"].iter_rows(min_row=2):
        if row[0].value in values:
            row[1].value = values[row[0].value]
    book.save(path)


def game(path: Path, key: str) -> Any:
    return next(row[1] if len(row) > 1 else None for row in cells(path)["Game"] if row[0] == key)


def column(path: Path, tab: str, name: str) -> list[Any]:
    rows = cells(path)[tab]
    at = rows[0].index(name)
    return [row[at] if at < len(row) else None for row in rows[1:]]


def test_a_ruleset_from_its_own_package_plays_through_every_command(
    tally: None,
    tmp_path: Path,
    discord: tuple[FakeDiscord, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "tally.xlsx"
    assert app.init(str(path), ruleset="tally", options={"players": 3}) == 5  # its own init option
    assert [row[0] for row in cells(path)["Players"][1:]] == ["Ann", "Ben", "Cai"]
    refused = run("init", str(tmp_path / "no.xlsx"), "--ruleset", "tally", "--houses", "2")
    assert refused.exit_code == 2 and "--houses: not an option of the Tally ruleset" in refused.stderr
    assert run("validate", str(path)).stdout == "No problems found.\n"

    set_game(path, deadline="2026-12-01 20:00:00")
    append_rows(path, "Orders", [{"Turn": 1, "Player": "Ann", "Add": 3}, {"Turn": 1, "Player": "Ben", "Add": 12}])
    before = {tab: rows for tab, rows in cells(path).items() if tab != "History"}

    checked = run("check", str(path), "--json")
    assert checked.exit_code == 0, checked.output
    assert column(path, "Orders", "Result") == ["Check: adds 3", "Check: adds 12 once the GM approves it"]
    assert column(path, "Orders", "Status") == [None, None]  # a check leaves them pending

    early = json.loads(run("resolve", str(path), "--json", "--now", BEFORE).stdout)
    assert early["status"] == "nothing_to_do"
    assert early["headline"] == (
        "Nothing to do: turn 1 is due at its deadline 2026-12-01 20:00:00 (UTC); use --force to resolve it now."
    )

    paused = json.loads(run("resolve", str(path), "--json", "--now", AFTER).stdout)
    assert (paused["status"], paused["headline"]) == (
        "paused",
        "Turn 1 paused: waiting for the GM's approval of 1 big order(s).",
    )
    assert game(path, "phase") == "approval" and column(path, "Orders", "Status") == ["Resolved", None]
    history = {row[10] for row in cells(path)["History"][1:]}
    assert "small" in history  # the step the run stopped after

    code, said = failing(monkeypatch, capsys, "resolve", str(path), "--now", AFTER)  # the GM has not approved yet
    assert code == 2 and "Error: 1 problem (1 error) in the campaign; nothing was written" in said

    set_game(path, approved="yes")
    done = json.loads(run("resolve", str(path), "--json", "--now", AFTER).stdout)
    assert (done["status"], done["headline"]) == ("ok", "Tally turn 1 resolved")
    assert (game(path, "turn"), game(path, "last_resolved_turn"), game(path, "phase")) == (2, 1, "open")
    assert game(path, "deadline") == "2026-12-02 20:00:00"  # one turn length on, by the skeleton
    assert game(path, "approved") is None
    assert column(path, "Orders", "Status") == ["Resolved", "Resolved"]
    dice = [m for m in column(path, "Notifications", "Message") if m.startswith("Dice ")]
    assert len(dice) == 2  # the skeleton's dice log, one row for each run's rolls

    reports = tmp_path / "reports"
    written = run("report", str(path), "--out", str(reports), "--turn", "1")
    assert written.exit_code == 0, written.output
    assert sorted(p.name for p in reports.iterdir()) == ["ann.html", "ben.html", "cai.html", "gm.html"]
    assert "<h2>Map</h2>" not in (reports / "ann.html").read_text()  # Tally draws no map
    code, said = failing(monkeypatch, capsys, "map", str(path), "--out", str(tmp_path / "map.png"))
    refused = "Error: maps know the Art of War, Clan War and Sengoku Jidai tabs only, not the Tally ruleset\n"
    assert (code, said) == (2, refused)

    own = run("tally-scores", str(path))  # its own command, from its package
    assert own.exit_code == 0 and own.stdout.startswith("Ann ")

    fake, base = discord
    hooks = write_webhooks(tmp_path / "webhooks.toml", fake, base, ("public", "gm"))
    posted = json.loads(run("notify", str(path), "--webhooks", str(hooks), "--json").stdout)
    assert posted["rows_posted"] == len(column(path, "Notifications", "Message")) == 4

    undone = run("rollback", str(path), "--turn", "1")
    assert undone.exit_code == 0, undone.output
    after = {tab: rows for tab, rows in cells(path).items() if tab != "History"}
    # every cell as before the check, the approval the engine used up given back as the GM had typed it
    assert game(path, "approved") == "yes"
    set_game(path, approved=None)  # type: ignore[arg-type]
    assert {tab: rows for tab, rows in cells(path).items() if tab != "History"} == before
    assert after["Orders"] == before["Orders"]
