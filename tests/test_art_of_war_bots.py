"""The Art of War's bots: their tempers, never an illegal step, the same game from the same seed, the tournament."""

from __future__ import annotations

import json

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sheets_engine.art_of_war import bots, lookahead, tempers
from sheets_engine.art_of_war.model import Kind, OrderKind, Status, Temper, World
from sheets_engine.art_of_war.phases import bot_dice
from sheets_engine.art_of_war.rules import play_turn
from sheets_engine.art_of_war.setup import new_world
from sheets_engine.art_of_war.tournament import (
    board_of,
    default_grounds,
    lineup,
    play_game,
    rate_text,
    tournament,
    wilson,
)
from sheets_engine.cli import cli
from sheets_engine.core.dice import Dice
from tests.aow import texts, world
from tests.support import examples

GROUNDS = default_grounds()


def _sound(w: World) -> None:
    """The board's invariants: one piece a hex, on the board, none of a fallen house."""
    standing = [p for p in w.pieces.values() if p.hex is not None]
    assert len({p.hex for p in standing}) == len(standing)
    assert all(p.hex in w.terrain and not w.houses[p.house].fallen for p in standing)
    assert w.at == {p.hex: p.id for p in standing}


@settings(max_examples=examples(12), deadline=None)
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
    while w.status is Status.PLAYING and turns < 150:  # a hard bot looks ahead: a shorter game keeps the test quick
        order = bots.choose(w, bot_dice(seed, w.season, w.to_move))
        events, _ = play_turn(w, order)
        if order.kind is OrderKind.MARCH:
            assert [e.text for e in events if e.kind == "refused"] == []
        _sound(w)
        turns += 1
    assert w.winner or w.status is Status.PLAYING


def test_a_bot_only_game_ends_the_same_way_twice_from_the_same_seed() -> None:
    endings = []
    for _ in range(2):
        w = new_world(GROUNDS, 4, 0, Temper.RUTHLESS, "same way")
        for house, temper in zip(w.houses.values(), (Temper.HARD, Temper.RANDOM, Temper.CAUTIOUS, Temper.STEADY),
                                 strict=True):  # fmt: skip
            house.temper = temper
        w = play_game(w, "same way")
        endings.append((w.winner, w.season, {p.id: (p.house, p.hex) for p in w.pieces.values()}))
    assert endings[0] == endings[1]
    assert endings[0][:2] == ("Crane", 25)  # hard (Crane) takes every other capital in season 25


def test_the_blocked_attack_position_plays_the_winning_attack() -> None:
    # Planned piece by piece in number order, P2 stepped onto 0,-1, the one hex P3 could strike Tiger's P4
    # from, and P3 walked away: the attack that wins (P3 with P2 touching, 2 against 1) was lost.
    pieces = [
        ("P1", "Crane", "soldier", (-2, 1)),
        ("P2", "Crane", "soldier", (1, -2)),
        ("P3", "Crane", "soldier", (-1, -1)),
        ("P4", "Tiger", "soldier", (1, -1)),
        ("P8", "Crane", "settler", (3, -4)),
        ("P9", "Tiger", "settler", (-4, 3)),
    ]
    w = world(pieces)
    order = bots.choose(w, Dice("s", 1))
    assert "P3: -1,-1 > 0,-1 x 1,-1" in [m.text() for m in order.marches]
    assert all(m.start == (1, -2) and not m.steps for m in order.marches if m.piece == "P2") or not any(
        m.piece == "P2" for m in order.marches
    )  # P2 holds where it touches P4
    events, _ = play_turn(w, order)
    assert "P4 (Tiger's soldier) at 1,-1 breaks" in texts(events)
    assert w.pieces["P3"].hex == (1, -1)


def test_ruthless_raises_instead_of_an_empty_march() -> None:
    # P1 stands beside Tiger's capital (in reach) but can neither strike nor draw nearer; the settler on
    # Crane's capital can raise: ruthless raises (it used to march, moving nothing).
    pieces = [
        ("P1", "Crane", "soldier", (-3, 4)),
        ("P4", "Crane", "settler", (4, -4)),
        ("P9", "Tiger", "settler", (-4, 4)),
        ("P5", "Tiger", "soldier", (-2, 3)),
        ("P6", "Tiger", "soldier", (-2, 4)),
    ]
    w = world(pieces)
    w.houses["Crane"].temper = Temper.RUTHLESS
    order = bots.choose(w, Dice("s", 1))
    assert order.kind is OrderKind.RAISE
    events, _ = play_turn(w, order)
    assert [e.kind for e in events if e.kind == "raised"] == ["raised"]


def test_random_picks_a_legal_order_at_random_from_its_seeded_stream() -> None:
    w = new_world(GROUNDS, 2, 0, Temper.RANDOM, "coin")
    orders = [bots.choose(w, bot_dice("coin", season, w.to_move)) for season in range(1, 9)]
    assert orders == [bots.choose(w, bot_dice("coin", season, w.to_move)) for season in range(1, 9)]
    assert {o.kind for o in orders} == {OrderKind.RAISE, OrderKind.MARCH}  # both drawn


def test_hard_looks_ahead_and_declines_an_attack_the_reply_makes_cost_more_than_it_wins() -> None:
    # Steady breaks Tiger's P5 (P1 moving in beside it first) and loses both soldiers to Tiger's answer; hard
    # plays each order on a copy, lets Tiger answer as its steady temper would, and raises instead.
    pieces = [
        ("P1", "Crane", "soldier", (0, 2)),
        ("P2", "Crane", "soldier", (1, 1)),
        ("P3", "Crane", "settler", (2, -3)),
        ("P4", "Tiger", "soldier", (-1, -2)),
        ("P5", "Tiger", "soldier", (2, 0)),
        ("P6", "Tiger", "soldier", (3, 0)),
        ("P7", "Tiger", "settler", (-3, 1)),
        ("P8", "Crane", "settler", (4, -4)),
        ("P9", "Tiger", "settler", (-4, 4)),
    ]
    after = {}
    for temper in (Temper.STEADY, Temper.HARD):
        w = world(pieces)
        w.houses["Crane"].temper = temper
        order = bots.choose(w, Dice("s", 1))
        play_turn(w, order)
        answer, _ = tempers.temper_order(w, Temper.STEADY)
        play_turn(w, answer)
        after[temper] = (order.kind, [m.text() for m in order.marches], lookahead.evaluate(w, "Crane"))
    assert after[Temper.STEADY] == (OrderKind.MARCH, ["P1: 0,2 > 0,1 > 1,0", "P2: 1,1 x 2,0", "P3: 2,-3 > 3,-3"], -12)
    assert after[Temper.HARD] == (OrderKind.RAISE, [], -2)


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
    assert "3 games of 4 houses, seed 1: wins/games by temper and seat" in result.output
    assert "┃ temper   ┃ seat 1 ┃ seat 2 ┃ seat 3 ┃ seat 4 ┃ all seats ┃ win rate [95%]     ┃ s/move ┃" in result.output
    wins = {t: standings.total(t) for t in ("cautious", "steady", "ruthless")}
    for temper, (won, games) in wins.items():
        assert f"│ {temper:8} │" in result.output and f"│ {won}/{games}       │ {rate_text(won, games):18} │" in (
            result.output
        )


def test_tournament_tempers_choose_the_seats_and_json_gives_wins_by_seat_games_and_seconds_a_move() -> None:
    runner = CliRunner()
    args = ["tournament", "--games", "4", "--seed", "1", "--houses", "2", "--tempers", "Steady, random"]
    first = json.loads(runner.invoke(cli, [*args, "--json"]).output)
    again = json.loads(runner.invoke(cli, [*args, "--json"]).output)
    shape = (first["status"], first["games"], first["houses"], list(first["tempers"]))
    assert shape == ("ok", 4, 2, ["steady", "random"])
    steady = first["tempers"]["steady"]
    assert set(steady) == {"wins_by_seat", "games_by_seat", "wins", "games", "win_rate", "interval_95",
                           "seconds_per_move", "against"}  # fmt: skip
    assert steady["games_by_seat"] == {"1": 2, "2": 2}  # the seats rotate: each temper sits in each seat
    assert first["wins"] == {t: found["wins_by_seat"] for t, found in first["tempers"].items()}  # as it was
    assert steady["games"] == 4 and steady["wins"] == sum(steady["wins_by_seat"].values())
    assert steady["against"] == {"random": {"wins": steady["wins"], "games": 4}}
    assert 0 < steady["seconds_per_move"] < 1 and first["tempers"]["random"]["seconds_per_move"] > 0
    low, high = steady["interval_95"]
    assert low <= steady["win_rate"] <= high
    strip = {"seconds", "tempers"}
    assert {k: v for k, v in first.items() if k not in strip} == {k: v for k, v in again.items() if k not in strip}
    assert [t["wins_by_seat"] for t in first["tempers"].values()] == [
        t["wins_by_seat"] for t in again["tempers"].values()
    ]  # the same seed, the same games
    text = runner.invoke(cli, args).output
    assert "two houses: each temper's wins against each other temper" in text
    bad = runner.invoke(cli, ["tournament", "--tempers", "steady,bold"])
    assert (bad.exit_code, bad.output.strip()) == (
        2,
        "Error: --tempers 'steady,bold': a comma-separated list of cautious, steady, ruthless, hard, random ('bold' "
        "is not one)",
    )


def test_lineups_rotate_every_temper_through_every_seat_and_wilson_intervals_hold_the_rate() -> None:
    tempers = (Temper.CAUTIOUS, Temper.STEADY, Temper.RUTHLESS)
    pairs = [tuple(lineup(tempers, 2, n)) for n in range(1, 7)]
    assert len(set(pairs)) == 6  # with two houses, each temper meets each other from both seats
    pair = (Temper.STEADY, Temper.HARD)
    assert [(board_of(pair, n), tuple(lineup(pair, 2, n))) for n in range(1, 5)] == [
        (1, pair),
        (1, pair[::-1]),
        (2, pair),
        (2, pair[::-1]),
    ]  # each board played from both sides
    assert wilson(0, 10) == (0.0, wilson(0, 10)[1]) and round(wilson(0, 10)[1], 1) == 27.8
    assert [round(x, 1) for x in wilson(137, 300)] == [40.1, 51.3]
    assert rate_text(1, 2) == "50.0% [9.5, 90.5]"


def test_a_seed_typed_in_another_case_or_spacing_replays_the_same_bots_as_it_makes_the_same_board() -> None:
    endings = []
    for seed in ("Same  WAY", "same way"):
        w = play_game(new_world(GROUNDS, 4, 0, Temper.RUTHLESS, seed), seed)
        endings.append((w.winner, w.season, {p.id: (p.house, p.hex) for p in w.pieces.values()}))
    assert endings[0] == endings[1]
    assert endings[0][:2] == ("Crane", 28)
