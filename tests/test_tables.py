"""Tables at any size: a long table is streamed as plain aligned text with the same rows as --json, --nl
prints one JSON object a line, and the progress bar stays off pipes and --json."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from sheets_engine import output
from sheets_engine.cli import cli
from sheets_engine.core.history import PRINTED
from sheets_engine.progress import progress

SCRIPT = shutil.which("sheets-engine", path=str(Path(sys.executable).parent)) or shutil.which("sheets-engine")
COLUMNS = {"COLUMNS": "200"}


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), env=COLUMNS)


@pytest.fixture(scope="module")
def resolved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo campaign with turn 1 resolved (its History holds the turn's rows)."""
    path = tmp_path_factory.mktemp("tables") / "demo.xlsx"
    assert invoke("init", str(path), "--demo").exit_code == 0
    result = invoke("resolve", str(path))
    assert result.exit_code == 0, result.output
    return path


def json_rows(*args: str) -> list[dict[str, Any]]:
    result = invoke(*args, "--json")
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.stdout)["rows"]
    return rows


def as_text(value: Any) -> str:
    """A value as the streamed table shows it (a line break as \\n)."""
    return "" if value is None else str(value).replace("\n", "\\n").replace("\t", "\\t")


def streamed(text: str) -> tuple[str, list[str], list[list[str]]]:
    """The title, the header and the rows of a streamed table, each value unpadded."""
    title, header, rule, *lines = text.splitlines()
    assert set(rule) <= {"─", "┼"}
    split = [[v.strip() for v in (line + " ").split(" │ ")] for line in lines]
    return title, [v.strip() for v in header.split(" │ ")], split


def test_a_history_longer_than_a_page_is_streamed_with_the_same_rows_as_json(
    resolved: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = json_rows("history", str(resolved), "--turn", "1")
    assert len(rows) > 50
    monkeypatch.setattr(output, "PAGE", 20)  # many pages from the demo's rows
    result = invoke("history", str(resolved), "--turn", "1")
    assert result.exit_code == 0, result.output
    title, header, lines = streamed(result.stdout)
    assert title == f"History: {len(rows)} changes"
    assert header == list(PRINTED)
    assert lines == [[as_text(row.get(c)) for c in PRINTED] for row in rows]
    assert "┏" not in result.stdout  # plain text, not rich's box


def test_a_streamed_table_is_aligned_and_keeps_every_row_on_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(output, "PAGE", 2)
    buffer = io.StringIO()
    monkeypatch.setattr(sys, "stdout", buffer)
    output.print_table(("A", "Bee"), [("x", 1), ("two\nlines", "é"), ("y", None)], "Three rows")
    assert buffer.getvalue().splitlines() == [
        "Three rows",
        "A          │ Bee",
        "───────────┼────",
        "x          │ 1",
        "two\\nlines │ é",
        "y          │",  # the first page set the widths; an empty last value leaves no trailing spaces
    ]


def test_a_short_table_is_still_drawn_by_rich(resolved: Path) -> None:
    result = invoke("history", str(resolved), "--turn", "1", "--key", "Owari")
    assert result.exit_code == 0, result.output
    assert "┏" in result.stdout and " │ " in result.stdout


def test_a_long_csv_has_the_same_rows_as_json(resolved: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = json_rows("history", str(resolved), "--turn", "1")
    monkeypatch.setattr(output, "PAGE", 20)
    result = invoke("history", str(resolved), "--turn", "1", "--csv")
    header, *lines = list(csv.reader(io.StringIO(result.stdout)))
    assert header == list(PRINTED)
    assert lines == [["" if row.get(c) is None else str(row.get(c)) for c in PRINTED] for row in rows]


def test_history_nl_prints_one_json_object_a_line_the_rows_of_json(resolved: Path) -> None:
    rows = json_rows("history", str(resolved), "--turn", "1")
    result = invoke("history", str(resolved), "--turn", "1", "--nl")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == len(rows)
    assert [json.loads(line) for line in lines] == rows


def test_explain_nl_prints_each_row_with_about(resolved: Path) -> None:
    rows = json_rows("explain", str(resolved), "Owari")
    result = invoke("explain", str(resolved), "Owari", "--nl")
    assert [json.loads(line) for line in result.stdout.splitlines()] == rows
    assert rows and all("About" in row for row in rows)


def test_explain_nl_of_a_key_never_changed_prints_nothing(resolved: Path) -> None:
    result = invoke("explain", str(resolved), "Nowhere At All", "--nl")
    assert (result.exit_code, result.stdout) == (0, "")


def test_rollback_dry_run_nl_prints_each_history_row_it_would_add(resolved: Path) -> None:
    counted = json.loads(invoke("rollback", str(resolved), "--turn", "1", "--dry-run", "--json").stdout)
    result = invoke("rollback", str(resolved), "--turn", "1", "--dry-run", "--nl")
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == counted["history_rows"] > 0
    assert {row["Cause"] for row in lines} == {"rollback to before turn 1"}


def test_resolve_dry_run_nl_prints_each_history_row_it_would_add(tmp_path: Path) -> None:
    path = tmp_path / "demo.xlsx"
    assert invoke("init", str(path), "--demo").exit_code == 0
    counted = json.loads(invoke("resolve", str(path), "--dry-run", "--json").stdout)
    result = invoke("resolve", str(path), "--dry-run", "--nl")
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == counted["history_rows"] > 0
    owari = next(r for r in lines if (r["Tab"], r["Key"], r["Column"]) == ("Provinces", "Owari", "Mon Bonus"))
    assert (owari["Turn"], owari["Old"], owari["New"]) == (1, "", 7)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["history", "{path}", "--nl", "--json"], "--nl and --json cannot be used together"),
        (["history", "{path}", "--nl", "--csv"], "--nl and --csv cannot be used together"),
        (["explain", "{path}", "Owari", "--nl", "--tsv"], "--nl and --tsv cannot be used together"),
        (["rollback", "{path}", "--turn", "1", "--dry-run", "--nl", "--json"], "--nl and --json"),
        (["rollback", "{path}", "--turn", "1", "--nl"], "--nl prints the rows of a dry run: add --dry-run"),
        (["resolve", "{path}", "--nl"], "--nl prints the rows of a dry run: add --dry-run"),
    ],
)
def test_nl_beside_another_format_or_without_a_dry_run_is_refused(
    resolved: Path, args: list[str], message: str
) -> None:
    result = invoke(*(a.replace("{path}", str(resolved)) for a in args))
    assert result.exit_code == 2
    assert message in result.output


def test_progress_draws_on_a_terminal_and_nothing_when_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for quiet, drawn in ((False, True), (True, False)):
        screen = Terminal()
        monkeypatch.setattr(sys, "stderr", screen)
        with progress("Working", 3, quiet=quiet) as advance:
            advance(3)
        assert ("Working" in screen.getvalue()) is drawn


@pytest.mark.parametrize(
    "args",
    [
        ["history", "{path}", "--turn", "1"],
        ["explain", "{path}", "Owari"],
        ["rollback", "{path}", "--turn", "1", "--dry-run"],
        ["history", "{path}", "--json"],
    ],
)
def test_long_commands_print_nothing_on_stderr_when_it_is_a_pipe(resolved: Path, args: list[str]) -> None:
    assert SCRIPT, "the sheets-engine console script is not installed (pip install -e .)"
    command = [SCRIPT, *(a.replace("{path}", str(resolved)) for a in args)]
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, **COLUMNS}, timeout=120)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout


def test_check_prints_nothing_on_stderr_when_it_is_a_pipe(tmp_path: Path) -> None:
    assert SCRIPT, "the sheets-engine console script is not installed (pip install -e .)"
    path = tmp_path / "demo.xlsx"
    assert invoke("init", str(path), "--demo").exit_code == 0
    done = subprocess.run([SCRIPT, "check", str(path)], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, "")
    assert "21 orders checked" in done.stdout
