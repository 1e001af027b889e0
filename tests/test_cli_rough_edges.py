"""The rough edges of issue 24 a GM meets on the command line, each with the exact words they read.

Names typed on the command line match ignoring case and spaces, with a "did you mean"; a misspelled
`history --tab` is refused; a forced turn that would settle no order is refused unless asked for by
`--empty`; tables of names and values have no empty header row; counts are said in words, the problem
count the same in the table and on the error line; a Game value is named by its key; a dry run of
`notify` counts the messages it would post; two output formats are refused; `demo` never overwrites a
folder without `--force`; nothing a user gets points into the project's own design folder.
Through main(), as a GM's shell or cron runs the command (the real exit codes and stderr).
"""

from __future__ import annotations

import json
import re
import shutil
import tokenize
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from sheets_engine import app
from sheets_engine.core.names import closest, match, plural
from sheets_engine.core.problems import Problem, Severity, tally
from sheets_engine.notify import Webhooks, notify
from sheets_engine.stores.xlsx import WorkbookStore
from tests.gsheets_support import run_cli
from tests.standin.discord import FakeDiscord, write_webhooks

ROOT = Path(__file__).resolve().parent.parent
# an f-string is one STRING token up to Python 3.11, its text FSTRING_MIDDLE tokens from 3.12
STRINGS = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
CLANS = "Oda, Imagawa, Takeda, Uesugi, Mori"
EMPTY_TURN_2 = (
    "Error: turn 2 has no order to settle (none was given for it by now), so --force would play an empty turn; "
    "nothing was written. To play it anyway, run resolve --force --empty\n"
)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo after its first turn (made once; each test works on its own copy)."""
    path = tmp_path_factory.mktemp("played") / "demo.xlsx"
    app.init(str(path), demo=True)
    app.resolve(str(path))
    return path


@pytest.fixture
def demo(played: Path, tmp_path: Path) -> Path:
    """A copy of the demo after turn 1."""
    return Path(shutil.copy(played, tmp_path / "demo.xlsx"))


@pytest.fixture
def sh(capsys: Any, monkeypatch: Any) -> Any:
    """`sheets-engine ARGS` through main(): (exit code, stdout, stderr)."""
    monkeypatch.setenv("COLUMNS", "200")
    return lambda *args: run_cli([str(a) for a in args], capsys, monkeypatch)


def set_game(path: Path, key: str, value: Any) -> int:
    """A GM types `value` as the Game key's Value; its sheet row."""
    book = openpyxl.load_workbook(path)
    sheet = book["Game"]
    row = next(r for r in range(1, sheet.max_row + 1) if sheet.cell(r, 1).value == key)
    sheet.cell(row, 2, value)
    book.save(path)
    return row


# 1. names typed on the command line ----------------------------------------------------------------


def test_names_match_ignoring_case_and_spaces_and_the_closest_is_offered() -> None:
    known = ["Oda", "Imagawa", "Oda Main Host"]
    assert match("  oda ", known) == "Oda"
    assert match("ODA  main   host", known) == "Oda Main Host"
    assert match("Hojo", known) is None
    assert closest("odda", known) == "Oda"
    assert closest("Zzz", known) is None


def test_map_clan_in_any_case_draws_the_clans_view_named_as_the_sheet_spells_it(
    demo: Path, tmp_path: Path, sh: Any
) -> None:
    out = tmp_path / "oda.png"
    code, said, err = sh("map", demo, "--clan", " oda ", "--out", out)
    assert (code, said, err) == (0, f"Map written to {out} (Oda's view)\n", "")
    code, _, _ = sh("map", demo, "--clan", "Oda", "--out", tmp_path / "Oda.png")
    assert out.read_bytes() == (tmp_path / "Oda.png").read_bytes()  # the same view as the canonical name


def test_map_clan_that_matches_nothing_is_refused_with_the_closest(demo: Path, tmp_path: Path, sh: Any) -> None:
    code, said, err = sh("map", demo, "--clan", "odda", "--out", tmp_path / "x.png")
    assert (code, said) == (2, "")
    assert err == f"Error: there is no clan 'odda' in the Clans tab (did you mean 'Oda'?; clans: {CLANS})\n"
    assert not (tmp_path / "x.png").exists()


def test_explain_prints_the_name_as_the_sheet_spells_it(demo: Path, sh: Any) -> None:
    code, said, _ = sh("explain", demo, "  mori MAIN host ", "--csv")
    assert code == 0 and said.splitlines()[0] == "Turn,Tab,Key,Column,Old,New,Cause,Roll"
    code, said, _ = sh("explain", demo, "  mori MAIN host ")
    assert code == 0 and said.startswith("Mori Main Host: 2 changes\n")


def test_explain_of_a_name_history_never_records_offers_the_closest(demo: Path, sh: Any) -> None:
    code, said, _ = sh("explain", demo, "Mori Mian Host")
    assert (code, said) == (0, "History records no change to 'Mori Mian Host' (did you mean 'Mori Main Host'?).\n")


# 2. history --tab -----------------------------------------------------------------------------------


def test_history_tab_in_any_case_lists_that_tabs_changes(demo: Path, sh: Any) -> None:
    _, exact, _ = sh("history", demo, "--tab", "Armies", "--json")
    code, loose, _ = sh("history", demo, "--tab", "  ARMIES ", "--json")
    assert code == 0 and json.loads(loose)["count"] == json.loads(exact)["count"] == 14


def test_history_tab_misspelled_is_refused_naming_the_closest_tab(demo: Path, sh: Any) -> None:
    code, said, err = sh("history", demo, "--tab", "Armys")
    assert (code, said) == (2, "")
    assert err.startswith(
        "Error: there is no tab 'Armys' in the workbook or its History (did you mean 'Armies'?; tabs: Game, Clans, "
    )


def test_history_key_that_no_history_row_has_is_refused_naming_the_closest(demo: Path, sh: Any) -> None:
    code, said, err = sh("history", demo, "--key", "mori mian host")
    assert (code, said) == (2, "")
    assert err == "Error: there is no key 'mori mian host' in History (did you mean 'Mori Main Host'?)\n"
    code, said, _ = sh("history", demo, "--key", " MORI main host", "--turn", "7", "--json")
    assert code == 0 and json.loads(said)["count"] == 0  # a key History has, in a turn without its changes


# 3. resolve --force on a turn no order is given for ---------------------------------------------------


def test_a_forced_turn_that_settles_no_order_is_refused_unless_empty_is_asked_for(demo: Path, sh: Any) -> None:
    before = demo.read_bytes()
    code, said, err = sh("resolve", demo, "--force")
    assert (code, said, err) == (2, "", EMPTY_TURN_2)
    assert demo.read_bytes() == before  # nothing written
    code, said, _ = sh("resolve", demo, "--force", "--json")
    assert code == 2 and json.loads(said)["status"] == "bad_input"
    code, said, err = sh("resolve", demo, "--force", "--empty")
    assert (code, err) == (0, "") and said.startswith("Turn 2 (year 1) resolved\n")


def test_a_forced_turn_with_an_order_is_played_without_empty(tmp_path: Path, sh: Any) -> None:
    path = tmp_path / "demo.xlsx"
    app.init(str(path), demo=True)  # turn 1: the demo's form responses are its orders
    code, said, _ = sh("resolve", path, "--force")
    assert code == 0 and said.startswith("Turn 1 (year 1) resolved\n")


def test_a_forced_empty_turn_is_refused_for_clan_war_too(tmp_path: Path, sh: Any) -> None:
    """The rule is the turn skeleton's, for every ruleset: Clan War's turn with nothing ordered."""
    path = tmp_path / "war.xlsx"
    app.init(str(path), ruleset="clan-war")
    code, _, err = sh("resolve", path, "--force")
    assert code == 2
    assert err == EMPTY_TURN_2.replace("turn 2", "turn 1")
    code, said, _ = sh("resolve", path, "--force", "--empty")
    assert code == 0 and said.startswith("Turn 1 resolved\n")


def test_the_turn_skeleton_refuses_an_empty_forced_period_only_for_a_plan_that_can_tell(demo: Path) -> None:
    """The refusal is core's, asked of the plan's `settles`; a plan without one (a ruleset that cannot tell)
    plays every forced period, as before."""
    from dataclasses import replace
    from datetime import UTC, datetime

    from sheets_engine.core.turn import EmptyTurn, resolve_turn
    from sheets_engine.sengoku.phases import PLAN

    state, now = app.open_campaign(str(demo)).state, datetime(2026, 12, 2, 12, tzinfo=UTC)
    with pytest.raises(EmptyTurn, match=r"^turn 2 has no order to settle"):
        resolve_turn(PLAN, state, now, force=True, empty=False)
    assert resolve_turn(PLAN, state, now, force=True, empty=True).summary["turn"] == 2
    assert resolve_turn(replace(PLAN, settles=None), state, now, force=True, empty=False).summary["resolved"]


# 4. tables of names and values ----------------------------------------------------------------------


def test_the_resolve_summary_table_has_no_empty_header_row(demo: Path, sh: Any) -> None:
    _, said, _ = sh("resolve", demo, "--force", "--empty")
    lines = said.splitlines()
    assert lines[0] == "Turn 2 (year 1) resolved"
    assert lines[1].startswith("┌") and re.match(r"│ form responses copied +│ 0 +│", lines[2])
    assert not [line for line in lines if re.fullmatch(r"[┃│](\s+[┃│])+", line)]  # no row of empty cells


# 5. counts in words --------------------------------------------------------------------------------


def test_counts_are_said_in_words() -> None:
    assert [plural(0, "cell"), plural(1, "cell"), plural(2, "army"), plural(3, "History row")] == [
        "0 cells",
        "1 cell",
        "2 armies",
        "3 History rows",
    ]
    warning = Problem("Orders", 5, "Turn", 2, "x", Severity.WARNING)
    error = Problem("Game", 22, "Value", "x", "y")
    assert tally([error, warning, warning]) == "3 problems (1 error, 2 warnings)"
    assert tally([error]) == "1 problem (1 error)"


def test_the_problem_count_is_the_same_in_the_table_and_on_the_error_line(demo: Path, sh: Any) -> None:
    set_game(demo, "deadline", "next tuesday")
    code, said, err = sh("resolve", demo)
    assert code == 2
    assert said.startswith("1 problem (1 error)\n")
    assert err == "Error: 1 problem (1 error) in the campaign; nothing was written\n"


def test_no_cli_message_counts_with_an_s_in_brackets() -> None:
    """Every string the package writes says "1 cell" or "2 cells", never "2 cell(s)"."""
    found = []
    for path in sorted((ROOT / "sheets_engine").rglob("*.py")):
        with path.open("rb") as source:
            for token in tokenize.tokenize(source.readline):
                if token.type in STRINGS and "(s)" in token.string:
                    found.append(f"{path.relative_to(ROOT)}:{token.start[0]}")
    assert found == []


# 6. a Game value named by its key --------------------------------------------------------------------


def test_a_bad_game_value_is_named_by_its_key_as_well_as_its_row(demo: Path, sh: Any) -> None:
    row = set_game(demo, "deadline", "next tuesday")
    [problem] = app.validate(str(demo))
    assert str(problem) == (
        f"Game, key deadline, row {row}, column Value: found 'next tuesday'; "
        "deadline: expected a date and time such as 2026-03-14 09:30"
    )
    code, said, _ = sh("validate", demo, "--csv")
    assert code == 2 and said.splitlines()[1] == (
        f"Game,{row} (key deadline),Value,next tuesday,deadline: expected a date and time such as 2026-03-14 09:30,"
        "error"
    )
    _, said, _ = sh("validate", demo, "--json")
    assert json.loads(said)["problems"][0] | {"expected": ""} == {
        "tab": "Game",
        "row": row,
        "column": "Value",
        "value": "next tuesday",
        "expected": "",
        "severity": "error",
        "key": "deadline",
    }


# 7. notify --dry-run ----------------------------------------------------------------------------------


def test_a_notify_dry_run_counts_the_messages_it_would_post(
    demo: Path, tmp_path: Path, discord: tuple[FakeDiscord, str], sh: Any
) -> None:
    fake, base = discord
    hooks = write_webhooks(tmp_path / "webhooks.toml", fake, base, ("public", "gm", "clan:Oda"))
    code, said, _ = sh("notify", demo, "--webhooks", hooks, "--dry-run")
    assert code == 0 and said.splitlines()[0] == "Would post 7 notifications in 3 Discord messages."
    assert said.splitlines()[1] == "Warning: no webhook for clan:Imagawa: 1 row left undelivered (row 10)."
    posted = notify(WorkbookStore(demo), Webhooks.load(hooks))
    assert (len(posted.posted), posted.messages) == (7, 3)  # what the dry run said: one message a webhook


# 8. one output format --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "formats"),
    [(["validate"], ["--json", "--csv"]), (["history"], ["--csv", "--tsv"]), (["explain", "Oda"], ["--json", "--tsv"])],
)
def test_two_output_formats_are_refused(demo: Path, sh: Any, command: list[str], formats: list[str]) -> None:
    code, said, err = sh(command[0], demo, *command[1:], *formats)
    assert code == 2
    assert err.endswith(f"Error: {formats[0]} and {formats[1]} together: give one output format\n")
    assert said == "" or json.loads(said)["error"] == f"{formats[0]} and {formats[1]} together: give one output format"


# 9. demo never overwrites without --force ---------------------------------------------------------------


def test_demo_into_a_folder_that_holds_files_is_refused_without_force(tmp_path: Path, sh: Any) -> None:
    folder = tmp_path / "sengoku-demo"
    code, said, _ = sh("demo", folder)
    assert code == 0 and said.startswith(f"Demo campaign written to {folder / 'demo.xlsx'}; resolving turn 1.\n")
    before = (folder / "demo.xlsx").read_bytes()
    code, said, err = sh("demo", folder)
    assert (code, said) == (2, "")
    assert err == f"Error: {folder} exists already: pass --force to overwrite it, or remove it first\n"
    assert (folder / "demo.xlsx").read_bytes() == before
    code, said, _ = sh("demo", folder, "--force")
    assert code == 0 and said.startswith("Demo campaign written to ")


# 10. nothing a user gets points into the design folder -----------------------------------------------------


def test_nothing_a_user_gets_points_into_the_projects_design_folder() -> None:
    given = [*(ROOT / "sheets_engine").rglob("*"), *(ROOT / "docs").rglob("*.md"), ROOT / "README.md"]
    given.append(ROOT / "RULES.md")
    found = [
        str(path.relative_to(ROOT))
        for path in given
        if path.is_file() and path.suffix in (".py", ".md", ".csv", ".html", ".toml", ".txt")
        and re.search(r"\.\./shared|\bshared/(spec|seeds|reference)", path.read_text(encoding="utf-8"))
    ]  # fmt: skip
    assert found == []
