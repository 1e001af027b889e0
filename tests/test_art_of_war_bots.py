"""The Art of War's bots: their tempers, never an illegal step, the same game from the same seed, the tournament."""

from __future__ import annotations

import json

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sheets_engine.art_of_war import bots
from sheets_engine.art_of_war.model import Kind, OrderKind, Status, Temper, World
from sheets_engine.art_of_war.phases import bot_dice
from sheets_engine.art_of_war.rules import play_turn
from sheets_engine.art_of_war.setup import new_world
from sheets_engine.art_of_war.tournament import default_grounds, play_game, tournament
from sheets_engine.cli import cli
from sheets_engine.core.dice import Dice
from tests.aow import world

GROUNDS = default_grounds()


def _sound(w: World) -> None:
    """The board's invariants: one piece a hex, on the board, none of a fallen house."""
    standing = [p for p in w.pieces.values() if p.hex is not None]
    assert len({p.hex for p in standing}) == len(standing)
    assert all(p.hex in w.terrain and not w.houses[p.house].fallen for p in standing)
    assert w.at == {p.hex: p.id for p in standing}


@settings(max_examples=12, deadline=None)
@given(
    seed=st.text(min_size=1, max_size=10),
    houses=st.integers(2, 6),
    tempers=st.lists(st.sampled_from(list(Temper)), min_size=6, max_size=6),
)
def test_a_bot_never_orders_a_step_the_rules_refuse(seed: str, houses: int, tempers: list[Temper]) -> None:
    w = new_world(GROUNDS, houses, 0, Temper.STEADY, seed)
    for house, temper in zip(w.houses.values(), tempers, strict=False):
        house.temper = temper
    turns = 0
    while w.status is Status.PLAYING:
        order = bots.choose(w, bot_dice(seed, w.season, w.to_move))
        events, _ = play_turn(w, order)
        if order.kind is OrderKind.MARCH:
            assert [e.text for e in events if e.kind == "refused"] == []
        _sound(w)
        turns += 1
    assert w.winner and turns <= 60 * houses


def test_a_bot_only_game_ends_the_same_way_twice_from_the_same_seed() -> None:
    endings = []
    for _ in range(2):
        w = play_game(new_world(GROUNDS, 4, 0, Temper.RUTHLESS, "same way"), "same way")
        endings.append((w.winner, w.season, {p.id: (p.house, p.hex) for p in w.pieces.values()}))
    assert endings[0] == endings[1]
    assert endings[0][:2] == ("Lotus", 12)  # every other capital taken in season 12


def test_steady_marches_when_an_attack_wins_else_raises_when_it_gains() -> None:
    pieces = [
        ("P1", "Crane", "soldier", (0, 0)),
        ("P2", "Crane", "soldier", (1, -1)),
        ("P3", "Tiger", "soldier", (1, 0)),
        ("P4", "Crane", "settler", (-2, 0)),
        ("P9", "Tiger", "settler", (-4, 4)),
    ]
    order = bots.choose(world(pieces), Dice("s", 1))
    assert order.kind is OrderKind.MARCH
    assert any(s.attack and s.to == (1, 0) for m in order.marches for s in m.steps)
    calm = world(
        [("P1", "Crane", "soldier", (3, -3)), ("P4", "Crane", "settler", (-2, 0)), ("P9", "Tiger", "settler", (-4, 4))]
    )
    assert bots.choose(calm, Dice("s", 1)).kind is OrderKind.RAISE


def test_ruthless_marches_when_a_capital_is_in_reach_cautious_raises_while_threatened() -> None:
    pieces = [
        ("P1", "Crane", "soldier", (-1, 1)),
        ("P4", "Crane", "settler", (2, -2)),
        ("P9", "Tiger", "settler", (-4, 3)),
    ]
    ruthless = world(pieces)
    ruthless.houses["Crane"].temper = Temper.RUTHLESS
    assert bots.choose(ruthless, Dice("s", 1)).kind is OrderKind.MARCH  # Tiger's capital -4,4 is 3 away
    steady = world(pieces)
    assert bots.choose(steady, Dice("s", 1)).kind is OrderKind.RAISE
    threat = [
        ("P1", "Crane", "settler", (3, -3)),
        ("P2", "Crane", "soldier", (4, -3)),
        ("P3", "Tiger", "soldier", (1, -2)),
        ("P9", "Tiger", "settler", (-4, 4)),
    ]
    cautious = world(threat)
    cautious.houses["Crane"].temper = Temper.CAUTIOUS
    order = bots.choose(cautious, Dice("s", 1))
    assert (order.kind, order.capital_raises) == (OrderKind.RAISE, Kind.SOLDIER)  # no attack wins: it raises


def test_the_tournament_prints_wins_by_temper_and_seat_and_plays_the_same_games_again() -> None:
    standings = tournament(3, "1")
    assert standings.endings == tournament(3, "1").endings
    assert sum(standings.played.values()) == 12
    runner = CliRunner()
    result = runner.invoke(cli, ["tournament", "--games", "3", "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert "3 game(s) of 4 houses, seed 1: wins/games by temper and seat" in result.output
    assert "┃ temper   ┃ seat 1 ┃ seat 2 ┃ seat 3 ┃ seat 4 ┃ all seats ┃" in result.output
    assert "│ cautious │ 1/1    │ 1/1    │ 1/1    │ 0/1    │ 3/4       │" in result.output
    first = json.loads(runner.invoke(cli, ["tournament", "--games", "3", "--seed", "1", "--json"]).output)
    again = json.loads(runner.invoke(cli, ["tournament", "--games", "3", "--seed", "1", "--json"]).output)
    assert first["wins"] == again["wins"]
    assert sum(sum(seats.values()) for seats in first["wins"].values()) >= 3


def test_a_seed_typed_in_another_case_or_spacing_replays_the_same_bots_as_it_makes_the_same_board() -> None:
    endings = []
    for seed in ("Same  WAY", "same way"):
        w = play_game(new_world(GROUNDS, 4, 0, Temper.RUTHLESS, seed), seed)
        endings.append((w.winner, w.season, {p.id: (p.house, p.hex) for p in w.pieces.values()}))
    assert endings[0] == endings[1]
    assert endings[0][:2] == ("Lotus", 12)
