"""The audit trail (issue 8): `history` filters and `explain`, the answer to "why did I lose 7 spearmen?".

The demo's turn 1 has a battle at Totomi: the Oda Vanguard marches in, loses every unit and
retreats, and its leader Shibata Katsuie dies. History holds each change with its cause and dice.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from sheets_engine import app
from sheets_engine.audit import explain, mentions, suggest
from sheets_engine.cli import cli
from sheets_engine.history import read_history

NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo workbook with turn 1 resolved."""
    path = tmp_path_factory.mktemp("audit") / "campaign.xlsx"
    app.init(str(path), demo=True)
    app.resolve(str(path), now=NOW)
    return path


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), env={"COLUMNS": "250"})


def row(**values: Any) -> dict[str, Any]:
    base = {"Turn": 1, "Tab": "Armies", "Key": "", "Column": "", "Old": "", "New": "", "Cause": "", "Roll": ""}
    return base | values


# explain, the pure function ----------------------------------------------------------------------

ROWS = [
    row(
        Key="Oda Vanguard", Column="Spear", Old=6, New=0, Cause="battle at Totomi", Roll="d20=1 (battle at Totomi: Oda)"
    ),
    row(
        Tab="Orders", Key="row 4", Column="Status", Old="Pending", New="Resolved", Cause="lead-army by Shibata Katsuie"
    ),
    row(Key="Oda Main Host", Column="Leader", Old="Shibata Katsuie", New="", Cause="battle at Totomi"),
    row(Tab="Provinces", Key="Odawara", Column="Tax Stockpile", Old=1, New=2, Cause="stockpiles regenerate"),
    row(Turn=2, Key="Oda Vanguard", Column="Sword", Old=5, New=0, Cause="winter attrition"),
]


def test_explain_finds_the_rows_own_changes_with_their_cause_and_dice() -> None:
    found = explain(ROWS, "oda vanguard")  # any case
    assert [(e.row["Column"], e.about) for e in found] == [("Spear", "own row"), ("Sword", "own row")]
    assert found[0].row["Roll"] == "d20=1 (battle at Totomi: Oda)"


def test_explain_finds_the_orders_a_character_gave_and_the_cells_it_left() -> None:
    found = explain(ROWS, "Shibata Katsuie")
    assert [(e.row["Key"], e.about) for e in found] == [("row 4", "cause"), ("Oda Main Host", "value")]


def test_explain_finds_what_happened_at_a_province() -> None:
    assert [e.row["Key"] for e in explain(ROWS, "Totomi")] == ["Oda Vanguard", "Oda Main Host"]


def test_explain_of_one_turn() -> None:
    assert [e.turn for e in explain(ROWS, "Oda Vanguard", turn=2)] == [2]


def test_a_name_is_found_as_a_whole_word_only() -> None:
    assert mentions("tax-province by Oda Nobunaga", "Oda")
    assert mentions("battle at  Totomi: Oda", "battle at totomi")
    assert not mentions("regenerate Odawara", "Oda")
    assert [e.row["Key"] for e in explain(ROWS, "Oda")] == []


def test_a_typo_gets_a_suggestion() -> None:
    assert suggest(ROWS, "Oda Vangard") == "Oda Vanguard"
    assert suggest(ROWS, "oda main HOST") == "Oda Main Host"
    assert suggest(ROWS, "Xyzzy") is None


# On a resolved campaign -----------------------------------------------------------------------------


def test_why_did_the_vanguard_lose_its_spearmen(campaign: Path) -> None:
    """The player's question, answered from History: the battle, with both sides' dice."""
    spear = next(e.row for e in explain(read_history(str(campaign)), "Oda Vanguard") if e.row["Column"] == "Spear")
    assert (spear["Old"], spear["New"], spear["Cause"]) == (6, 0, "battle at Totomi")
    assert spear["Roll"] == "d20=1 (battle at Totomi: Oda); d20=11 (battle at Totomi: Imagawa)"


def test_explain_command_prints_every_change_to_an_army(campaign: Path) -> None:
    result = invoke("explain", str(campaign), "Oda Vanguard")
    assert result.exit_code == 0, result.output
    assert "Oda Vanguard: " in result.stdout and "changes" in result.stdout
    spear = next(line for line in result.stdout.splitlines() if "│ Spear" in line)
    assert "battle at Totomi" in spear and "d20=1 (battle at Totomi: Oda)" in spear
    assert "lead-army by Shibata Katsuie" in result.stdout  # the march that led there


def test_explain_command_as_json(campaign: Path) -> None:
    result = invoke("explain", str(campaign), "Shibata Katsuie", "--json", "--turn", "1")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    own = {(r["Column"], r["Old"], r["New"]) for r in rows if r["About"] == "own row"}
    assert ("Status", "Alive", "Dead") in own
    assert any(r["About"] == "value" and r["Column"] == "Leader" for r in rows)
    assert any(r["About"] == "cause" and r["Cause"].startswith("lead-army by Shibata Katsuie") for r in rows)
    assert all(r["Turn"] == 1 for r in rows)


def test_explain_of_a_name_with_no_change_says_so_and_suggests(campaign: Path) -> None:
    result = invoke("explain", str(campaign), "Oda Vangard")
    assert result.exit_code == 0
    assert result.stdout.strip() == "History records no change to 'Oda Vangard' (did you mean 'Oda Vanguard'?)."
    later = invoke("explain", str(campaign), "Oda Vanguard", "--turn", "2")
    assert later.stdout.strip() == "History records no change to 'Oda Vanguard' in turn 2."


@pytest.mark.parametrize(
    ("options", "check"),
    [
        (["--tab", "armies"], lambda r: r["Tab"] == "Armies"),
        (["--key", "oda vanguard"], lambda r: r["Key"] == "Oda Vanguard"),
        (["--cause", "Battle at"], lambda r: "battle at" in r["Cause"]),
        (
            ["--turn", "1", "--tab", "Characters", "--cause", "battle"],
            lambda r: r["Turn"] == 1 and r["Tab"] == "Characters" and "battle" in r["Cause"],
        ),
    ],
)
def test_history_filters_by_turn_tab_key_and_cause(campaign: Path, options: list[str], check: Any) -> None:
    result = invoke("history", str(campaign), "--json", *options)
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    assert rows and all(check(r) for r in rows)
    everything = json.loads(invoke("history", str(campaign), "--json").stdout)["rows"]
    assert len(rows) == sum(1 for r in everything if check(r))


def test_history_table_with_a_filter(campaign: Path) -> None:
    result = invoke("history", str(campaign), "--key", "Shibata Katsuie")
    assert result.exit_code == 0, result.output
    assert "History: 4 changes" in result.stdout
