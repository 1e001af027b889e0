"""Tally, the toy ruleset: its tabs, checks, turn (with a pause point), check and reports, on core alone."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from importlib.resources import files
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sheets_engine.core.capabilities import Page, ReportPages, View
from sheets_engine.core.cells import Count, Text, enum_cell
from sheets_engine.core.dice import Dice
from sheets_engine.core.history import history_spec
from sheets_engine.core.lifecycle import Outcome, RunLedger, RunStatus
from sheets_engine.core.load import game_key_problems
from sheets_engine.core.orderbook import OrderBook, Verdict
from sheets_engine.core.problems import InvalidCampaign, Problem
from sheets_engine.core.ruleset import Ruleset, SetupError
from sheets_engine.core.settings import DeadlineKeys
from sheets_engine.core.tables import Draft, GameState, TabSpec
from sheets_engine.core.turn import Begun, Pause, Step, TurnPlan
from tests.toy import ENTRY

BIG = 10  # an order adding more than this waits for the GM's approval


class Status(StrEnum):
    PENDING = "Pending"
    RESOLVED = "Resolved"
    REJECTED = "Rejected"


class Row(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="ignore", use_enum_values=True)


class GameRow(Row):
    key: Text = Field(alias="Key")
    value: Text = Field(alias="Value")
    notes: Text = Field("", alias="Notes")


class PlayerRow(Row):
    player: Text = Field(alias="Player")
    email: Text = Field(alias="Email")
    score: Count = Field(alias="Score")


class OrderRow(Row):
    turn: Count = Field(alias="Turn")
    player: Text = Field(alias="Player")
    add: Count = Field(alias="Add")
    status: Annotated[Status, enum_cell(Status, Status.PENDING)] = Field(alias="Status")
    result: Text = Field("", alias="Result")


TABS = (
    TabSpec("Game", GameRow, key="Key", rule_columns=("Value",)),
    TabSpec("Players", PlayerRow, key="Player", rule_columns=("Score",)),
    TabSpec("Orders", OrderRow, rule_columns=("Status", "Result")),
    TabSpec(
        "Notifications",
        None,
        log=True,
        headers=("Turn", "Audience", "Channel", "Message", "Delivered"),
        optional=("Delivered",),
    ),
    history_spec(),
)


class Settings(DeadlineKeys):
    ruleset: Text = "tally"
    campaign: Text
    seed: Text
    turn: Count = Field(ge=1)
    last_resolved_turn: Count
    phase: Text = "open"
    approved: Text = ""


def settings(state: GameState) -> Settings:
    return Settings.model_validate(dict(state.frame("Game")["Value"].items()))


def check(state: GameState) -> list[Problem]:
    """The Game keys, and every order naming a player of the Players tab."""
    try:
        settings(state)
    except ValidationError as error:
        return game_key_problems(error, state, {}, "sheets-engine init --ruleset tally")
    players = set(map(str, state.frame("Players").index))
    orders = state.frame("Orders")
    return [
        Problem("Orders", state.rows["Orders"][key], "Player", orders.at[key, "Player"], "a player of the Players tab")
        for key in orders.index
        if str(orders.at[key, "Player"]) not in players
    ]


WORDS = {Verdict.RESOLVED: "Resolved", Verdict.REJECTED: "Rejected", Verdict.SUPERSEDED: "Rejected"}


@dataclass
class Turn:
    draft: Draft
    number: int
    dice: Dice
    book: OrderBook
    approved: bool
    resumed: bool
    added: dict[str, int] = field(default_factory=dict)
    big: list[Hashable] = field(default_factory=list)


def ledger(state: GameState) -> RunLedger:
    given = settings(state)
    phase = "" if given.phase == "open" else given.phase
    return RunLedger(given.turn, given.last_resolved_turn, given.schedule_of(given.turn), phase)


def begin(begun: Begun) -> Turn:
    approved = settings(begun.state).approved.casefold() == "yes"
    book = OrderBook(begun.draft, "Orders", WORDS)
    return Turn(begun.draft, begun.ledger.period, begun.dice, book, approved, begun.resumed)


def pending(turn: Turn) -> list[Hashable]:
    orders = turn.draft.frame("Orders")
    return list(orders.index[(orders["Turn"] == turn.number) & (orders["Status"] == Status.PENDING.value)])


def add(turn: Turn, key: Hashable) -> None:
    row = turn.draft.row("Orders", key)
    player, points = str(row["Player"]), int(row["Add"])
    roll = turn.dice.coin(f"{player}'s bonus")  # a die, for the skeleton's log
    total = points + (1 if roll.value == 2 else 0)
    score = int(turn.draft.get("Players", player, "Score"))
    cause = f"turn {turn.number}: {player} adds {points}"
    turn.draft.set("Players", player, "Score", score + total, cause, str(roll))
    turn.book.resolve(key, f"added {total}", cause, str(roll))
    turn.draft.notify(turn.number, "public", "tally", f"{player} adds {total}")
    turn.added[player] = turn.added.get(player, 0) + total


def small_orders(turn: Turn) -> None:
    for key in pending(turn):
        if int(turn.draft.get("Orders", key, "Add")) > BIG:
            turn.big.append(key)
        else:
            add(turn, key)


def approval(turn: Turn) -> str:
    return f"the GM's approval of {len(turn.big)} big order(s)" if turn.big and not turn.approved else ""


def big_orders(turn: Turn) -> None:
    if turn.resumed and not turn.approved:
        expected = "yes: the GM approves the big orders of the turn (the turn waits for it)"
        raise InvalidCampaign([Problem("Game", None, "approved", "", expected)])
    for key in pending(turn):
        add(turn, key)
    if turn.approved:
        turn.draft.set("Game", "approved", "Value", "", f"turn {turn.number}: the approval used")


PLAN: TurnPlan[Turn] = TurnPlan(
    ledger=ledger,
    begin=begin,
    steps=lambda: [
        Step("small orders", small_orders),
        Pause("approval", approval, "big orders", "small", "big"),
        Step("big orders", big_orders),
    ],
    summary=lambda turn, ended: {"resolved": ended.status is RunStatus.RESOLVED, "turn": turn.number, **turn.added},
    headline=lambda turn, ended: f"Tally turn {turn.number} resolved",
    phase_key="phase",
    rest="open",
)


def recalc(state: GameState) -> Outcome:
    return Outcome.unchanged(state, settings(state).turn, {}, step="recalc")


def preview(state: GameState, now: datetime) -> Outcome:
    """Check: each pending order's Result says what it will add."""
    draft = Draft(state)
    turn = settings(state).turn
    orders = state.frame("Orders")
    keys = list(orders.index[(orders["Turn"] == turn) & (orders["Status"] == Status.PENDING.value)])
    for key in keys:
        points = int(orders.at[key, "Add"])
        said = f"adds {points}" + (" once the GM approves it" if points > BIG else "")
        draft.set("Orders", key, "Result", f"Check: {said}", "check before the deadline")
    return Outcome.of(draft, turn, {"checked": True, "turn": turn, "orders checked": len(keys)}, step="check")


def content(view: View, reader: str | None, turn: int | None) -> dict[str, Any]:
    players = view.state.frame("Players")
    shown = [{"Player": str(p), "Score": int(players.at[p, "Score"])} for p in players.index if reader in (None, p)]
    number = turn if turn is not None else int(view.state.game("last_resolved_turn") or 0)
    news = [r["Message"] for r in view.rows("Notifications") if str(r.get("Turn")) == str(number)]
    return {"campaign": str(view.state.game("campaign")), "turn": number, "reader": reader or "GMs",
            "players": shown, "news": [{"Message": m} for m in news]}  # fmt: skip


def page(report: dict[str, Any]) -> Page:
    who = "the GMs" if report["reader"] == "GMs" else report["reader"]
    sections = [("Scores", report["players"]), ("News", report["news"])]
    return Page(f"{report['campaign']}: turn {report['turn']}", report["reader"], who, report["turn"], sections)


def setup(tabs: dict[str, list[list[Any]]], options: dict[str, Any], demo: bool) -> dict[str, list[list[Any]]]:
    """`init --players N`: the first N players of the template."""
    count = int(options.get("players", 4))
    if not 1 <= count <= 4:
        raise SetupError(f"--players {count}: Tally is played by 1 to 4 players")
    return {**tabs, "Players": tabs["Players"][: count + 1]}


def build() -> Ruleset:
    return Ruleset(
        name="tally",
        title="Tally",
        tabs=TABS,
        templates=files("tests.toy") / "templates",
        check=check,
        recalc=recalc,
        turn=PLAN,
        seeded_tabs=("Game", "Players"),
        init_options=tuple(option.name for option in ENTRY.init_options),
        setup=setup,
        preview=preview,
        report=ReportPages(
            readers=lambda view: list(map(str, view.state.frame("Players").index)), content=content, page=page
        ),
    )
