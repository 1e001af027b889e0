"""The `sheets-engine` command on real .xlsx workbooks: exit codes, output, and what it writes.

Two ways in: click's CliRunner on `cli` (fast; exceptions are NOT mapped to exit codes there,
that is `main()`'s job), and the installed console script in a subprocess (the real exit codes,
stderr, no traceback). Exit codes: 0 done, 2 bad input, 1 unexpected failure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from openpyxl import load_workbook
from openpyxl.styles import PatternFill

from sheets_engine import app
from sheets_engine.cli import cli, main
from sheets_engine.sengoku.derived import province_stats
from sheets_engine.sengoku.game import read_settings
from sheets_engine.sengoku.schema import DERIVED_COLUMNS
from tests.support import run_main

WIDE = {"COLUMNS": "200"}  # rich tables are as wide as the terminal; keep cells unwrapped
ISE = 4  # Ise's sheet row in the demo Provinces tab
SCRIPT = shutil.which("sheets-engine", path=str(Path(sys.executable).parent)) or shutil.which("sheets-engine")


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), env=WIDE)


def in_process(*args: str) -> subprocess.CompletedProcess[str]:
    """The console script's main() in this process: what it says and its exit code (tests.support.run_main)."""
    return run_main(*args, env=WIDE)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """The installed console script, as a GM's shell or cron runs it (the tests named "as a real command")."""
    assert SCRIPT, "the sheets-engine console script is not installed (pip install -e .)"
    env = {**os.environ, **WIDE}
    return subprocess.run([SCRIPT, *args], capture_output=True, text=True, env=env, timeout=120, check=False)


@pytest.fixture
def workbook(tmp_path: Path) -> Path:
    """A fresh demo campaign made by `init --demo`."""
    path = tmp_path / "x.xlsx"
    result = invoke("init", str(path), "--demo")
    assert result.exit_code == 0, result.output
    return path


def set_cell(path: Path, tab: str, row: int, header: str, value: Any) -> None:
    """Edit one cell as a GM would, by its column header."""
    book = load_workbook(path)
    sheet = book[tab]
    column = next(c.column for c in sheet[1] if c.value == header)
    sheet.cell(row=row, column=column, value=value)
    book.save(path)


def derived_cells(sheet: Any, row: int) -> list[Any]:
    """A Provinces row's derived cells as the engine reads them: an empty cell is 0 or no name."""
    header = {c.value: c.column for c in sheet[1]}
    cells = [sheet.cell(row=row, column=header[c]).value for c in DERIVED_COLUMNS]
    text = ("Capital Of", "Levy Unit")
    return [("" if c in text else 0) if v is None else v for c, v in zip(DERIVED_COLUMNS, cells, strict=True)]


def history_rows(path: Path) -> int:
    book = load_workbook(path, read_only=True)
    try:
        rows = book["History"].iter_rows(min_row=2, values_only=True)
        return sum(1 for row in rows if any(v is not None for v in row))
    finally:
        book.close()


def table_row(output: str, marker: str) -> list[str]:
    """The cells of the rich table row that contains `marker`."""
    line = next(line for line in output.splitlines() if marker in line)
    return [cell.strip() for cell in re.split("[│┃]", line)[1:-1]]


# init and validate ------------------------------------------------------------------------------


def test_init_demo_then_validate_exits_0(workbook: Path) -> None:
    """The demo is valid; its two form responses meant to be rejected are warned about (issue 13)."""
    result = invoke("validate", str(workbook))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("2 problems (2 warnings)\n")
    assert result.output.count(" warning ") == 2  # the table's Severity cells


def test_init_demo_then_validate_exits_0_as_a_real_command(tmp_path: Path) -> None:
    path = tmp_path / "x.xlsx"
    created = run("init", str(path), "--demo")
    assert created.returncode == 0, created.stderr
    checked = run("validate", str(path), "--csv")
    assert checked.returncode == 0, checked.stderr
    # only warnings: the two demo responses meant to be rejected at the deadline
    rows = [[*line.split(",")[:3], line.rsplit(",", 1)[1]] for line in checked.stdout.splitlines()[1:]]
    assert rows == [
        ["Form Responses 1", "11", "Character", "warning"],
        ["Form Responses 1", "20", "Character", "warning"],
    ]


def test_init_refuses_an_unknown_ruleset_and_another_rulesets_options(tmp_path: Path) -> None:
    """A typo in --ruleset names the known ones; --houses on a Sengoku campaign is refused; nothing is created."""
    path = tmp_path / "x.xlsx"
    unknown = in_process("init", str(path), "--ruleset", "sengoku-jidai")
    assert unknown.returncode == 2
    assert "unknown ruleset 'sengoku-jidai' (known: " in unknown.stderr
    foreign = in_process("init", str(path), "--houses", "4", "--seed", "plum rain")
    assert foreign.returncode == 2
    assert "--houses, --seed: not an option of the Sengoku Jidai ruleset" in foreign.stderr
    assert not path.exists()
    named = in_process("init", str(path), "--ruleset", "Sengoku", "--demo")
    assert named.returncode == 0, named.stderr


def test_validate_names_tab_row_column_and_value_and_exits_2(workbook: Path) -> None:
    """A province `Type` of Castle (neither City nor rural, guide Section 3)."""
    set_cell(workbook, "Provinces", ISE, "Type", "Castle")
    result = invoke("validate", str(workbook))
    assert result.exit_code == 2
    assert table_row(result.output, "Castle")[:4] == ["Provinces", "4", "Type", "Castle"]


def test_validate_json_lists_the_problem(workbook: Path) -> None:
    set_cell(workbook, "Provinces", ISE, "Type", "Castle")
    result = invoke("validate", str(workbook), "--json")
    assert result.exit_code == 2
    body = json.loads(result.stdout)
    assert (body["status"], body["exit"], body["errors"]) == ("invalid", 2, 1)
    [problem] = [p for p in body["problems"] if p["tab"] != "Form Responses 1"]  # the demo's 2 warnings
    assert {k: problem[k] for k in ("tab", "row", "column", "value", "severity")} == {
        "tab": "Provinces",
        "row": 4,
        "column": "Type",
        "value": "Castle",
        "severity": "error",
    }


def test_validate_exits_2_on_a_bad_cell_as_a_real_command(workbook: Path) -> None:
    set_cell(workbook, "Provinces", ISE, "Type", "Castle")
    result = run("validate", str(workbook))
    assert result.returncode == 2
    assert table_row(result.stdout, "Castle")[:4] == ["Provinces", "4", "Type", "Castle"]
    assert "Traceback" not in result.stderr


def test_validate_exits_0_when_there_are_only_warnings(workbook: Path) -> None:
    """A fifth living Oda character (row 21) is over character_cap 4: a warning, not an error."""
    book = load_workbook(workbook)
    book["Characters"].append(["Oda Nobuhide", "old_tiger", "old.tiger@example.com", "Oda", None, 3, "Owari", "Alive"])
    book.save(workbook)
    result = invoke("validate", str(workbook))
    assert result.exit_code == 0, result.output
    assert table_row(result.output, "living characters") == [
        "Characters",
        "21",
        "Clan",
        "Oda",
        "at most 4 living characters in a clan (Oda has 5)",
        "warning",
    ]


def test_recalc_of_an_invalid_campaign_exits_2_and_writes_nothing(workbook: Path) -> None:
    set_cell(workbook, "Provinces", ISE, "Type", "Castle")
    before = workbook.read_bytes()
    result = in_process("recalc", str(workbook))
    assert result.returncode == 2
    assert result.stderr.strip().startswith("Error:")
    assert "Traceback" not in result.stderr
    assert workbook.read_bytes() == before


def test_init_refuses_to_overwrite_without_force(workbook: Path) -> None:
    set_cell(workbook, "Provinces", ISE, "Type", "Castle")
    before = workbook.read_bytes()
    assert invoke("init", str(workbook), "--demo").exit_code != 0
    assert workbook.read_bytes() == before
    result = in_process("init", str(workbook), "--demo")
    assert result.returncode == 2
    assert result.stderr.startswith("Error:") and "--force" in result.stderr
    assert workbook.read_bytes() == before
    forced = invoke("init", str(workbook), "--demo", "--force")
    assert forced.exit_code == 0, forced.output
    assert invoke("validate", str(workbook)).exit_code == 0  # the Castle is gone


# recalc -----------------------------------------------------------------------------------------


def test_a_second_recalc_writes_no_cells_and_adds_no_history_rows(workbook: Path) -> None:
    first = invoke("recalc", str(workbook))
    assert first.exit_code == 0, first.output
    rows = history_rows(workbook)
    assert rows > 0
    assert f"{rows} cells changed, {rows} History rows added." in first.output
    written = workbook.read_bytes()
    second = invoke("recalc", str(workbook))
    assert second.exit_code == 0, second.output
    assert "0 cells changed, 0 History rows added." in second.output
    assert history_rows(workbook) == rows
    assert workbook.read_bytes() == written


def test_recalc_dry_run_writes_nothing_and_prints_a_table(workbook: Path) -> None:
    before = workbook.read_bytes()
    result = invoke("recalc", str(workbook), "--dry-run")
    assert result.exit_code == 0, result.output
    assert workbook.read_bytes() == before
    assert history_rows(workbook) == 0
    assert "would change (dry run: nothing written)" in result.output
    assert table_row(result.output, "Column")[:6] == ["Tab", "Key", "Column", "Old", "New", "Cause"]
    assert table_row(result.output, "Capital Of")[:6] == ["Provinces", "Owari", "Capital Of", "", "Oda", "recalc"]


def test_after_recalc_every_derived_cell_equals_province_stats(workbook: Path) -> None:
    assert invoke("recalc", str(workbook)).exit_code == 0
    state = app.open_campaign(str(workbook)).state
    expected = province_stats(
        state.frame("Provinces"), state.frame("Clans"), state.frame("Buildings"), read_settings(state)
    )
    sheet = load_workbook(workbook, data_only=True)["Provinces"]
    found = {row[0].value: derived_cells(sheet, row[0].row) for row in sheet.iter_rows(min_row=2, max_col=1)}
    assert len(found) == 32
    for name, cells in found.items():
        assert cells == expected.loc[name, list(DERIVED_COLUMNS)].tolist(), name


@pytest.mark.parametrize(
    ("name", "cells"),
    [
        # Oda's capital, City, Development 3, Expansion 1; Court x 7 Oda provinces; Gunsmith.
        ("Owari", ["Oda", 5, 3, 3, 6, 4, 7, 0, 1, "Firearm Levies"]),
        # Imagawa's, held by Oda (Development 3, Expansion 1): Oda's tech counts; Dojo, Barracks.
        ("Mikawa", ["", 5, 1, 1, 3, 3, 0, 2, 1, "Sword Levies"]),
        # Imagawa's capital, City, Development 2: Gold Mine 2 + Court x 5 Imagawa provinces.
        ("Suruga", ["Imagawa", 4, 2, 2, 4, 4, 7, 0, 0, "Spear Levies"]),
    ],
)
def test_recalc_writes_the_guides_numbers_into_the_demo(workbook: Path, name: str, cells: list[Any]) -> None:
    """Guide Section 11 worked by hand for three demo provinces, read back from the workbook
    (a derived 0 may stay an empty cell: the contract reads an empty count as 0)."""
    assert invoke("recalc", str(workbook)).exit_code == 0
    sheet = load_workbook(workbook, data_only=True)["Provinces"]
    row = next(r[0].row for r in sheet.iter_rows(min_row=2, max_col=1) if r[0].value == name)
    assert derived_cells(sheet, row) == cells


def test_a_gms_extra_columns_and_formulas_survive_recalc(workbook: Path) -> None:
    """Extra columns a GM adds (notes, formulas, colours) are never touched (sheet-schema.md)."""
    book = load_workbook(workbook)
    sheet = book["Provinces"]
    notes, total = sheet.max_column + 1, sheet.max_column + 2
    sheet.cell(row=1, column=notes, value="GM Notes").fill = PatternFill("solid", fgColor="FFFF0000")
    sheet.cell(row=2, column=notes, value="Nobunaga's seat: watch it")
    sheet.cell(row=3, column=notes, value="=1+1")
    sheet.cell(row=1, column=total, value="GM Stockpiles")
    sheet.cell(row=2, column=total, value="=N2+O2")
    book.save(workbook)

    result = invoke("recalc", str(workbook))
    assert result.exit_code == 0, result.output

    after = load_workbook(workbook, data_only=False)["Provinces"]
    assert [after.cell(row=r, column=notes).value for r in (1, 2, 3)] == [
        "GM Notes",
        "Nobunaga's seat: watch it",
        "=1+1",
    ]
    assert after.cell(row=3, column=notes).data_type == "f"
    assert (after.cell(row=2, column=total).value, after.cell(row=2, column=total).data_type) == ("=N2+O2", "f")
    assert after.cell(row=1, column=notes).fill.fgColor.rgb == "FFFF0000"
    slots = next(c.column for c in after[1] if c.value == "Slots")
    assert after.cell(row=2, column=slots).value == 5  # the derived cells were written all the same


# history ----------------------------------------------------------------------------------------


def test_history_json_prints_rows_with_turn_tab_key_column_old_new_cause(workbook: Path) -> None:
    assert invoke("recalc", str(workbook)).exit_code == 0
    result = invoke("history", str(workbook), "--json")
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    rows = body["rows"]
    assert (body["status"], body["exit"], body["count"]) == ("ok", 0, len(rows))
    assert len(rows) == history_rows(workbook)
    assert all({"Turn", "Tab", "Key", "Column", "Old", "New", "Cause"} <= row.keys() for row in rows)
    owari = next(r for r in rows if (r["Key"], r["Column"]) == ("Owari", "Mon Bonus"))
    assert {k: owari[k] for k in ("Turn", "Tab", "Old", "New", "Cause")} == {
        "Turn": 1,
        "Tab": "Provinces",
        "Old": "",  # the demo's derived cells start empty, and History keeps the cell as it was
        "New": 7,
        "Cause": "recalc",
    }
    assert json.loads(invoke("history", str(workbook), "--json", "--turn", "2").stdout)["rows"] == []


# help and errors --------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [[], *([name] for name in sorted(cli.commands))])
def test_help_of_every_command_exits_0_and_has_an_example(command: list[str]) -> None:
    result = invoke(*command, "--help")
    assert result.exit_code == 0, result.output
    assert "Example" in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "missing.xlsx"],
        ["recalc", "missing.xlsx"],
        ["recalc", "missing.xlsx", "--dry-run"],
        ["history", "missing.xlsx"],
        ["validate", "campaign.csv"],
    ],
)
def test_a_path_that_does_not_exist_exits_2_with_one_error_line(tmp_path: Path, args: list[str]) -> None:
    command, path, *rest = args
    result = in_process(command, str(tmp_path / path), *rest)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:"), result.stderr


def test_main_maps_a_missing_workbook_to_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """In process: main() turns the store's error into exit 2 and one line."""
    monkeypatch.setattr(sys, "argv", ["sheets-engine", "validate", str(tmp_path / "missing.xlsx")])
    with pytest.raises(SystemExit) as done:
        main()
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("Error: No workbook at") and err.count("\n") == 1


def test_main_maps_an_invalid_campaign_to_exit_2(
    workbook: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    set_cell(workbook, "Provinces", ISE, "Type", "Castle")
    before = workbook.read_bytes()
    monkeypatch.setattr(sys, "argv", ["sheets-engine", "recalc", str(workbook)])
    with pytest.raises(SystemExit) as done:
        main()
    assert done.value.code == 2
    captured = capsys.readouterr()
    assert "Castle" in captured.out
    # the error line counts what the table lists, warnings too (the demo's two rejected form responses)
    assert captured.out.startswith("3 problems (1 error, 2 warnings)\n")
    assert captured.err == "Error: 3 problems (1 error, 2 warnings) in the campaign; nothing was written\n"
    assert workbook.read_bytes() == before


def test_demo_command_lays_out_and_recalculates_the_demo(tmp_path: Path) -> None:
    result = invoke("demo", str(tmp_path / "demo"))
    assert result.exit_code == 0, result.output
    path = tmp_path / "demo" / "demo.xlsx"
    assert path.is_file()
    assert history_rows(path) > 0
    assert "0 cells changed" in invoke("recalc", str(path)).output
