"""Output a script can read: `--json` is one JSON object at every exit code, tables are never cut."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sheets_engine import app
from sheets_engine.stores.xlsx import WorkbookStore
from tests.gsheets_support import ReplayEnv, run_cli
from tests.standin.cassettes import replay
from tests.standin.scenarios import KEY


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo with turn 1 resolved (read-only for the tests that use it)."""
    path = tmp_path_factory.mktemp("json") / "demo.xlsx"
    app.init(str(path), demo=True)
    app.resolve(str(path))
    return path


def one_object(out: str) -> dict[str, Any]:
    """stdout parsed as exactly one JSON object (json.loads refuses trailing text)."""
    body = json.loads(out)
    assert isinstance(body, dict)
    assert list(body)[:2] == ["status", "exit"]
    assert all(key == key.lower() and " " not in key for key in body), body.keys()
    return body


@pytest.mark.parametrize(
    ("args", "status", "counts"),
    [
        (["validate", "{demo}"], "ok", {"errors": 0}),
        (["history", "{demo}", "--turn", "1"], "ok", {}),
        (["explain", "{demo}", "Owari"], "ok", {}),
        (["recalc", "{demo}", "--dry-run"], "ok", {"dry_run": True, "cells_written": 0}),
        (["resolve", "{demo}", "--dry-run"], "nothing_to_do", {"resolved": False}),
        (["rollback", "{demo}", "--turn", "1", "--dry-run"], "ok", {"runs_undone": 1}),
        (["init", "{tmp}/new.xlsx"], "ok", {"tabs": 20, "demo": False}),
        (["generate", "{tmp}/g.xlsx", "--provinces", "20", "--clans", "2"], "ok", {"provinces": 20, "clans": 2}),
    ],
)
def test_every_command_prints_one_json_object_on_success(
    demo: Path, tmp_path: Path, capsys: Any, monkeypatch: Any, args: list[str], status: str, counts: dict[str, Any]
) -> None:
    argv = [a.format(demo=demo, tmp=tmp_path) for a in args]
    code, out, _ = run_cli([*argv, "--json"], capsys, monkeypatch)
    body = one_object(out)
    assert code == 0 and (body["status"], body["exit"]) == (status, 0)
    assert {k: body[k] for k in counts} == counts


def test_history_json_counts_its_rows(demo: Path, capsys: Any, monkeypatch: Any) -> None:
    code, out, _ = run_cli(["history", str(demo), "--json"], capsys, monkeypatch)
    body = one_object(out)
    assert code == 0 and body["count"] == len(body["rows"]) > 100


def test_a_missing_workbook_is_one_json_object_with_exit_2(tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    code, out, err = run_cli(["resolve", str(tmp_path / "nope.xlsx"), "--json"], capsys, monkeypatch)
    body = one_object(out)
    assert code == 2 and (body["status"], body["exit"]) == ("bad_input", 2)
    missing = tmp_path / "nope.xlsx"
    assert body["error"] == f"No workbook at {missing}. Create one with: sheets-engine init {missing}"
    assert err.startswith("Error: No workbook at")


def test_a_campaign_with_errors_lists_its_problems_in_the_one_object(
    tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    from openpyxl import load_workbook

    path = tmp_path / "bad.xlsx"
    app.init(str(path), demo=True)
    book = load_workbook(path)
    book["Provinces"]["B2"] = "Castle"  # Type must be City, Castle Town, ... : an error
    book.save(path)
    for command in ("validate", "resolve"):
        code, out, _ = run_cli([command, str(path), "--json"], capsys, monkeypatch)
        body = one_object(out)
        assert code == 2 and (body["status"], body["exit"]) == ("invalid", 2)
        assert any((p["tab"], p["row"], p["value"]) == ("Provinces", 2, "Castle") for p in body["problems"])


def test_a_usage_error_keeps_exit_2_and_still_answers_in_json(demo: Path, capsys: Any, monkeypatch: Any) -> None:
    code, out, err = run_cli(["resolve", str(demo), "--json", "--no-such-option"], capsys, monkeypatch)
    body = one_object(out)
    assert code == 2 and (body["status"], body["error"]) == ("usage", "No such option '--no-such-option'.")
    assert "Usage:" in err


def test_a_gm_edit_during_the_run_is_one_json_object_with_exit_3(tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    env = ReplayEnv(tmp_path)
    with replay("conflict"):
        code, out, _ = run_cli(
            ["--credentials", str(env.key_file), "resolve", f"gsheet:{KEY}", "--force", "--json"], capsys, monkeypatch
        )
    body = one_object(out)
    assert code == 3 and (body["status"], body["exit"]) == ("conflict", 3)
    assert "changed while the engine was working" in body["error"]


def test_a_busy_campaign_is_one_json_object_with_exit_4(demo: Path, capsys: Any, monkeypatch: Any) -> None:
    with WorkbookStore(demo).lock("a GM's resolve"):
        code, out, _ = run_cli(["resolve", str(demo), "--json"], capsys, monkeypatch)
    body = one_object(out)
    assert code == 4 and (body["status"], body["exit"]) == ("busy", 4)


def test_an_unexpected_failure_is_one_json_object_with_exit_1(demo: Path, capsys: Any, monkeypatch: Any) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(app, "resolve", broken)
    code, out, _ = run_cli(["resolve", str(demo), "--json"], capsys, monkeypatch)
    body = one_object(out)
    assert code == 1 and (body["status"], body["exit"]) == ("failed", 1)
    assert body["error"] == "unexpected failure: RuntimeError: disk on fire (run with --debug for details)"


# Tables on a pipe or in a file --------------------------------------------------------------------


def test_history_into_a_file_holds_every_value_whole(demo: Path, capsys: Any, monkeypatch: Any) -> None:
    code, out, _ = run_cli(["history", str(demo)], capsys, monkeypatch)
    assert code == 0 and "…" not in out
    _, as_json, _ = run_cli(["history", str(demo), "--json"], capsys, monkeypatch)
    longest = max((str(r["Cause"]) for r in json.loads(as_json)["rows"]), key=len)
    assert len(longest) > 60 and longest in out


@pytest.mark.parametrize(("flag", "delimiter"), [("--csv", ","), ("--tsv", "\t")])
def test_history_as_delimited_text(demo: Path, capsys: Any, monkeypatch: Any, flag: str, delimiter: str) -> None:
    import csv
    import io

    code, out, _ = run_cli(["history", str(demo), "--turn", "1", flag], capsys, monkeypatch)
    rows = list(csv.reader(io.StringIO(out), delimiter=delimiter))
    assert code == 0 and rows[0] == ["Turn", "Tab", "Key", "Column", "Old", "New", "Cause", "Roll"]
    _, as_json, _ = run_cli(["history", str(demo), "--turn", "1", "--json"], capsys, monkeypatch)
    assert len(rows) - 1 == json.loads(as_json)["count"]


def test_validate_and_explain_take_csv_too(demo: Path, capsys: Any, monkeypatch: Any) -> None:
    code, out, _ = run_cli(["validate", str(demo), "--csv"], capsys, monkeypatch)
    assert code == 0 and out.splitlines() == ["Tab,Row,Column,Value,Expected,Severity"]
    code, out, _ = run_cli(["explain", str(demo), "Owari", "--tsv"], capsys, monkeypatch)
    lines = out.splitlines()
    assert code == 0 and lines[0].split("\t")[:3] == ["Turn", "Tab", "Key"] and len(lines) > 1


def test_a_resolution_in_json_has_the_turn_and_the_counts(tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    path = tmp_path / "demo.xlsx"
    app.init(str(path), demo=True)
    code, out, _ = run_cli(["resolve", str(path), "--json"], capsys, monkeypatch)
    body = one_object(out)
    assert code == 0 and (body["status"], body["resolved"], body["turn"]) == ("ok", True, 1)
    assert body["cells_written"] > body["cells_changed"] > 0 and body["orders_resolved"] > 0
