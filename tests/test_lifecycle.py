"""The run lifecycle in core (issue 14): dice streams, the order book, the run report and ledger."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from importlib.resources import files

import pytest
from click.testing import CliRunner

from sheets_engine import app, cli, rulesets
from sheets_engine.core.deadlines import schedule
from sheets_engine.core.dice import Dice
from sheets_engine.core.history import HISTORY_COLUMNS, history_spec
from sheets_engine.core.lifecycle import RunLedger, RunStatus, paused
from sheets_engine.core.orderbook import OrderBook, Verdict
from sheets_engine.core.registry import Entry
from sheets_engine.core.ruleset import Outcome, Ruleset
from sheets_engine.core.tables import Draft, GameState, TabSpec
from sheets_engine.core.turn import Begun, Pause, TurnPlan
from sheets_engine.sengoku.game import read_settings
from sheets_engine.sengoku.orders import intake
from sheets_engine.sengoku.schema import GameRow
from sheets_engine.sengoku.turn import Turn
from sheets_engine.stores.memory import MemoryStore
from tests.support import state, store

NOW = datetime(2026, 11, 30, 20, 0, tzinfo=UTC)


def test_the_main_stream_rolls_as_before_and_named_streams_never_replay_it() -> None:
    main = Dice("1560", 1)
    assert [main.d20("x").value for _ in range(3)] == [1, 11, 19]  # the demo's turn 1 battle dice
    again = Dice("1560", 1)
    again.d20("drawn first")  # what the main stream drew before does not move a named stream
    assert again.stream("step", "2").d20("y").value == 13
    assert Dice("1560", 1).stream("step", "2").d20("y").value == 13
    assert Dice("1560", 1).stream("step", "3").d20("y").value == 18  # a second step draws its own dice


def test_a_streams_rolls_are_logged_with_the_turns() -> None:
    dice = Dice("1560", 1)
    dice.d20("main")
    dice.stream("house", "Oda").coin("bot")
    assert [r.purpose for r in dice.rolls] == ["main", "bot"]


def test_the_order_book_writes_status_and_result_with_the_roll() -> None:
    draft = Draft(state(demo=True, orders=[
        {"Turn": 1, "Submitted": "2026-11-28 10:00:00", "Email": "a@b", "Character": "Oda Nobunaga",
         "Order": "tax-province", "Target": "Owari", "Status": "Pending"},
    ]))  # fmt: skip
    book = OrderBook(draft)
    book.reject(2, "not today", "tax-province by Oda Nobunaga", "d20=3 (x)")
    assert [(c.column, c.new, c.roll) for c in draft.changes] == [
        ("Status", "Rejected", "d20=3 (x)"),
        ("Result", "not today", "d20=3 (x)"),
    ]
    assert book.settled == {Verdict.REJECTED: 1}


def test_a_run_reports_how_it_ended_with_its_headline() -> None:
    campaign = store(demo=True)
    done = app.resolve(campaign, now=NOW, force=True)
    assert (done.status, done.headline) == (RunStatus.RESOLVED, "Turn 1 (year 1) resolved")
    again = app.resolve(campaign, now=NOW)
    assert again.status is RunStatus.NOTHING
    assert again.headline == (
        "Nothing to do: turn 1 was resolved at 2026-11-30 20:00:00 UTC; turn 2 is due from 2026-12-01 16:00 UTC "
        "(min_hours_between_turns); use --force to resolve it now."
    )
    assert paused("turn", 3, "the battle results of Owari and Mino") == (
        "Turn 3 paused: waiting for the battle results of Owari and Mino."
    )


def test_the_ledger_counts_turns_or_seasons_and_a_paused_turn_does_not_wait_for_its_deadline() -> None:
    plan = schedule(4, "2026-12-01 20:00:00", 24, "", "")
    season = RunLedger(4, 4, plan, unit="season")
    assert season.already_resolved() == "season 4 was already resolved (last_resolved_season is 4)"
    assert RunLedger(4, 3, plan).waiting(NOW).startswith("turn 4 is due at its deadline 2026-12-01 20:00:00")
    assert RunLedger(4, 3, plan, phase="battle").waiting(NOW) == ""


def test_intake_refuses_orders_with_a_reason_code_and_a_players_words() -> None:
    order = {"Turn": 1, "Submitted": "2026-11-28 10:00:00", "Target": "Owari", "Status": "Pending"}
    loaded = state(demo=True, form_responses_1=[], orders=[
        {**order, "Email": "kiyosu.fox@example.com", "Character": "Oda Nobunagaa", "Order": "tax-province"},
        {**order, "Email": "nobody@example.com", "Character": "Oda Nobunaga", "Order": "tax-province"},
        {**order, "Email": "kiyosu.fox@example.com", "Character": "Oda Nobunaga", "Order": "dance"},
    ])  # fmt: skip
    settings = read_settings(loaded)
    turn = Turn(Draft(loaded), settings, Dice(settings.seed, 1), 1)
    intake(turn)
    assert dict(turn.book.refusals) == {"unknown-character": 1, "not-your-character": 1, "unknown-order": 1}
    results = [turn.draft.get("Orders", row, "Result") for row in (2, 3, 4)]
    assert results[0] == 'there is no character "Oda Nobunagaa" (did you mean Oda Nobunaga?)'
    assert results[1] == "not your character: nobody@example.com may not give orders for Oda Nobunaga"
    assert results[2].startswith('unknown order "dance" (orders: tax-province, ')


# A ruleset whose turn pauses for the GM, as Clan War's does: its own package would hold this; the
# registry gets one entry. Here the entry is patched in, to show that nothing else changes.
def _ledger(state: GameState) -> RunLedger:
    phase = str(state.game("phase"))
    return RunLedger(1, 0, schedule(1, "", 0, "", ""), "" if phase == "start" else phase)


def _pausing() -> Ruleset:
    tabs = (TabSpec("Game", GameRow, key="Key", rule_columns=("Value",)), history_spec())
    battles = Pause("battle", lambda turn: "the battle results of Owari", "battles found at Owari", "start-cavalry")
    plan: TurnPlan[Begun] = TurnPlan(
        ledger=_ledger,
        begin=lambda begun: begun,
        steps=lambda: [battles],
        summary=lambda turn, ended: {"battles": 1},
        headline=lambda turn, ended: "Turn 1 resolved",
        phase_key="phase",
        rest="start",
    )
    return Ruleset("clan-war-sketch", "A sketch", tabs, files("sheets_engine"), lambda s: [],
                   lambda s: Outcome.unchanged(s, 1, {}), plan)  # fmt: skip


def test_a_run_that_pauses_for_the_gm_says_what_it_waits_for(monkeypatch: pytest.MonkeyPatch) -> None:
    def campaign() -> MemoryStore:
        return MemoryStore({
            "Game": [["Key", "Value", "Notes"], ["ruleset", "clan-war-sketch", ""], ["phase", "start", ""]],
            "History": [list(HISTORY_COLUMNS)],
        })  # fmt: skip

    monkeypatch.setitem(rulesets.ENTRIES, "clan-war-sketch", Entry("clan-war-sketch", ("Game", "History"), "",
                                                                   builder=_pausing))  # fmt: skip
    first, second = campaign(), campaign()
    monkeypatch.setattr(cli.common, "store_for", lambda source: first)
    result = CliRunner().invoke(cli.cli, ["resolve", "memory", "--json", "--now", "2026-12-01 20:00"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert (summary["status"], summary["headline"]) == (
        "paused",
        "Turn 1 paused: waiting for the battle results of Owari.",
    )
    (row,) = first.records("History")
    assert (row["Turn"], row["Key"], row["Old"], row["New"], row["Step"], row["Cause"]) == (
        1,
        "phase",
        "start",
        "battle",
        "start-cavalry",
        "turn 1: battles found at Owari",
    )
    monkeypatch.setattr(cli.common, "store_for", lambda source: second)
    shown = CliRunner().invoke(cli.cli, ["resolve", "memory", "--now", "2026-12-01 20:10"])
    assert "Turn 1 paused: waiting for the battle results of Owari." in shown.output
