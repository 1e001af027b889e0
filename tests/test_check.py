"""`check` before the deadline: previews of every Pending order, no game state changed, resolve agrees."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from sheets_engine import app
from sheets_engine.app import check
from sheets_engine.cli import cli
from sheets_engine.sengoku.check import check_turn
from tests.campaigns import KATSUIE, ODA_DAIMYO, SHINGEN, characters, small

NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
GAME_TABS = ("Game", "Clans", "Alliances", "Provinces", "Armies", "Characters", "Letters", "Relations", "Sieges")


def orders(path: Path) -> list[dict[str, object]]:
    return app.open_campaign(str(path)).state.frame("Orders").to_dict("records")


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, app.Report, dict[str, list[list[object]]]]:
    """The demo campaign, checked once (its game tabs as read before the check kept)."""
    path = tmp_path_factory.mktemp("check") / "demo.xlsx"
    app.init(str(path), demo=True)
    before = {title: tab.rows for title, tab in app.open_store(str(path)).read().items()}
    return path, check(str(path), now=NOW), before


def test_check_previews_every_pending_order_of_the_demo(checked: tuple[Path, app.Report, dict]) -> None:
    path, report, _ = checked
    rows = orders(path)
    assert len(rows) == 21 and report.summary["form responses copied"] == 21
    assert {r["Status"] for r in rows} == {"Pending"}
    assert all(str(r["Result"]).startswith("Check: ") for r in rows)
    by_character = {(r["Character"], r["Order"]): r["Result"] for r in rows}
    assert by_character[("Matsudaira Motoyasu", "tax-province")] == (
        "Check: will fail: not your province: Mikawa is controlled by Oda, not Imagawa"
    )
    assert by_character[("Naoe Kagetsuna", "trade-mission")] == (
        "Check: will fail: not your character: unscathed.baba@example.com may not give orders for Naoe Kagetsuna"
    )
    assert by_character[("Niwa Nagahide", "tax-province")] == (
        "Check: will not count: replaced by the later order build submitted 2026-11-28 19:40:00"
    )
    assert by_character[("Shibata Katsuie", "lead-army")] == (
        "Check: valid now; the outcome depends on other clans' orders "
        "(Imagawa Main Host (Imagawa) in Totomi may march the other way)"
    )
    assert by_character[("Kinoshita Tokichiro", "tax-province")] == (
        "Check: valid now: Collected 13 Mon from Owari (Tax Stockpile 6 + Mon Bonus 7); Oda treasury now 45"
    )
    summary = report.summary
    assert (summary["valid now"], summary["will fail"], summary["will not count"]) == (13, 4, 1)
    assert summary["depend on dice or other clans"] == 3


def test_check_changes_no_game_state_and_history_records_the_orders_cells(
    checked: tuple[Path, app.Report, dict],
) -> None:
    path, report, before = checked
    after = {title: tab.rows for title, tab in app.open_store(str(path)).read().items()}
    for tab in GAME_TABS:
        assert after[tab] == before[tab], tab
    assert {row["Tab"] for row in report.history} == {"Orders"}
    results = [row for row in report.history if row["Column"] == "Result"]
    assert len(results) == 21 and all(row["Cause"] == "check before the deadline" for row in results)
    assert all(row["Column"] != "Status" or row["New"] == "Pending" for row in report.history)


def test_a_second_check_with_nothing_new_writes_nothing(checked: tuple[Path, app.Report, dict]) -> None:
    path, _, _ = checked
    again = check(str(path), now=NOW)
    assert again.cells_written == 0 and again.history == []
    assert again.summary["orders checked"] == 21


def test_resolve_writes_the_result_each_certain_preview_announced(
    checked: tuple[Path, app.Report, dict], tmp_path: Path
) -> None:
    path, _, _ = checked
    copy = tmp_path / "resolved.xlsx"
    copy.write_bytes(path.read_bytes())
    previews = {r["Submitted"] + r["Character"]: r["Result"] for r in orders(copy)}
    app.resolve(str(copy), now=NOW)
    certain = 0
    for row in orders(copy):
        preview = str(previews[row["Submitted"] + row["Character"]])
        assert not str(row["Result"]).startswith("Check: ")  # every preview was replaced
        for lead, status in (
            ("valid now: ", "Resolved"),
            ("will fail: ", "Rejected"),
            ("will not count: ", "Superseded"),
        ):
            if preview.startswith("Check: " + lead):
                assert (row["Status"], row["Result"]) == (status, preview.removeprefix("Check: " + lead))
                certain += 1
    assert certain == 18


def test_a_tax_before_a_build_of_the_same_clan_counts() -> None:
    tax = (KATSUIE, "Shibata Katsuie", "tax-province", "Mino", "")
    build = (ODA_DAIMYO, "Oda Nobunaga", "build", "Owari", "Dojo")
    with_tax = check_turn(small(tax, build, oda={"Treasury": 1}), NOW).state.frame("Orders")
    assert list(with_tax["Result"]) == [
        "Check: valid now: Collected 2 Mon from Mino (Tax Stockpile 2 + Mon Bonus 0); Oda treasury now 3",
        "Check: valid now: Built Dojo in Owari (Building 1) for 3 Mon; Oda treasury now 0 (Authority +1)",
    ]
    alone = check_turn(small(build, oda={"Treasury": 1}), NOW).state.frame("Orders")
    assert list(alone["Result"]) == ["Check: will fail: not enough Mon: Dojo costs 3 and the Oda treasury holds 1"]


def test_another_clans_orders_are_not_counted_for_a_clan() -> None:
    # Takeda's spending does not decide Oda's build, and Oda's preview does not show Takeda's treasury.
    state = small(
        (ODA_DAIMYO, "Oda Nobunaga", "build", "Owari", "Dojo"),
        (SHINGEN, "Takeda Shingen", "hire-samurai", "Takeda Host", "1"),
        oda={"Treasury": 3},
        armies=[{"Army": "Takeda Host", "Clan": "Takeda", "Province": "Kai", "Spear": 4, "Status": "Field"}],
    )
    results = list(check_turn(state, NOW).state.frame("Orders")["Result"])
    assert results == [
        "Check: valid now: Built Dojo in Owari (Building 1) for 3 Mon; Oda treasury now 0 (Authority +1)",
        "Check: valid now: Hired 1 Samurai into Takeda Host for 7 Mon; Takeda treasury now 3",
    ]


def test_an_order_the_dice_decide_is_said_to_depend_on_them() -> None:
    people = characters()
    people[1]["Authority"] = 9  # threshold 18 - 2 = 16: a d20 decides
    state = small((ODA_DAIMYO, "Oda Nobunaga", "execute", "Shibata Katsuie", ""), characters=people)
    assert list(check_turn(state, NOW).state.frame("Orders")["Result"]) == [
        "Check: valid now; the outcome depends on the dice (execution of Shibata Katsuie by Oda Nobunaga)"
    ]


def test_a_march_another_clan_can_block_is_said_to_depend_on_other_clans() -> None:
    armies = [
        {"Army": "Oda Main Host", "Clan": "Oda", "Province": "Owari", "Spear": 4, "Status": "Field"},
        {"Army": "Takeda Host", "Clan": "Takeda", "Province": "Mino", "Spear": 4, "Status": "Field"},
    ]
    state = small((KATSUIE, "Shibata Katsuie", "lead-army", "Oda Main Host", "Mino"), armies=armies)
    assert list(check_turn(state, NOW).state.frame("Orders")["Result"]) == [
        "Check: valid now; the outcome depends on other clans' orders (Takeda Host (Takeda) in Mino may march "
        "the other way)"
    ]
    clear = small((KATSUIE, "Shibata Katsuie", "lead-army", "Oda Main Host", "Mino"))
    assert list(check_turn(clear, NOW).state.frame("Orders")["Result"]) == [
        "Check: valid now: Oda Main Host marched from Owari to Mino"
    ]


def test_the_cli_checks_and_a_resolved_turn_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "demo.xlsx"
    app.init(str(path), demo=True)
    result = CliRunner().invoke(cli, ["check", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(
        "Turn 1: 21 form responses copied, 21 orders checked (13 valid now, 4 will fail, 1 will not count, "
        "3 depend on dice or other clans); "
    )
    app.resolve(str(path), now=NOW)
    again = CliRunner().invoke(cli, ["check", str(path)])
    assert again.output == "Turn 2: 0 form responses copied, 0 orders checked; 0 cells written.\n"
    done = check_turn(small(game={"turn": 3, "last_resolved_turn": 3}), NOW)
    assert done.changes == [] and done.summary == {
        "checked": False,
        "reason": "turn 3 was already resolved (last_resolved_turn is 3)",
    }
