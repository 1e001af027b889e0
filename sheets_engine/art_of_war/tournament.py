"""Bot-only games on fresh boards, played on the pure core (no workbook), to judge a change to a bot by numbers.

The seats rotate over the tempers chosen (`--tempers`, by default cautious, steady and ruthless) in
rounds of len(tempers) games played on the same board: round r of a tournament with seed S is made
from the seed "S game r", and its games start the list at each temper in turn, every other round
walking it backwards. So every temper sits in every seat of the same board (a strong seat or a good
start counts for each temper alike), and with two tempers each board is played from both sides.

A win is counted for each house that wins (a shared win on the mandate counts for each); a game whose
last two companies destroy each other has no winner. Each rate is printed with its 95% Wilson interval.
"""

from __future__ import annotations

import csv
import io
import math
import time
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any

from sheets_engine.art_of_war import bots
from sheets_engine.art_of_war.model import Ground, House, Status, Temper, World, ground_row
from sheets_engine.art_of_war.phases import bot_dice
from sheets_engine.art_of_war.rules import play_turn
from sheets_engine.art_of_war.setup import new_world
from sheets_engine.core.names import plural

TEMPERS = (Temper.CAUTIOUS, Temper.STEADY, Temper.RUTHLESS)
Z95 = 1.959964  # the normal quantile of a two-sided 95% interval


class BadTempers(ValueError):
    """A --tempers list the tournament cannot play (the CLI's clear message)."""


def default_grounds() -> dict[str, Ground]:
    """The Terrain template's rows (what a new campaign's Terrain tab holds)."""
    text = (files("sheets_engine.art_of_war") / "templates" / "Terrain.csv").read_text(encoding="utf-8")
    rows = csv.DictReader(io.StringIO(text))
    return {r["Terrain"].casefold(): ground_row(r["Terrain"], r["Cost"], r["Cover"], r["Raises"]) for r in rows}


def parse_tempers(text: str) -> tuple[Temper, ...]:
    """`cautious,steady,random` as tempers (any case, spaces aside), or BadTempers saying which word is wrong."""
    words = [w.strip().casefold() for w in text.split(",") if w.strip()]
    known = {t.value: t for t in Temper}
    wrong = [w for w in words if w not in known]
    if wrong or not words:
        raise BadTempers(
            f"--tempers {text!r}: a comma-separated list of {', '.join(known)}"
            + (f" ({', '.join(repr(w) for w in wrong)} is not one)" if wrong else "")
        )
    return tuple(known[w] for w in words)


def lineup(tempers: tuple[Temper, ...], houses: int, number: int) -> list[Temper]:
    """The tempers of game `number`'s seats: the list from its (number-1)th temper, backwards every other round."""
    count = len(tempers)
    start, backwards = (number - 1) % count, ((number - 1) // count) % 2 == 1
    step = -1 if backwards else 1
    return [tempers[(start + step * seat) % count] for seat in range(houses)]


def board_of(tempers: tuple[Temper, ...], number: int) -> int:
    """The round (and so the board) game `number` is played in: len(tempers) games a board."""
    return (number - 1) // len(tempers) + 1


def wilson(wins: int, games: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a rate of wins over games, as percentages."""
    if games == 0:
        return 0.0, 100.0
    rate = wins / games
    spread = Z95 * math.sqrt(rate * (1 - rate) / games + Z95**2 / (4 * games**2))
    centre = rate + Z95**2 / (2 * games)
    scale = 1 + Z95**2 / games
    return 100 * max(0.0, (centre - spread) / scale), 100 * min(1.0, (centre + spread) / scale)


def rate_text(wins: int, games: int) -> str:
    """`45.5% [38.7, 52.4]`: the rate and its 95% Wilson interval."""
    low, high = wilson(wins, games)
    return f"{100 * wins / games if games else 0:.1f}% [{low:.1f}, {high:.1f}]"


@dataclass
class Standings:
    """Wins by temper and seat (a shared win counts for each house sharing it), and each temper's time."""

    houses: int
    tempers: tuple[Temper, ...] = TEMPERS
    games: int = 0
    wins: dict[tuple[str, int], int] = field(default_factory=dict)  # (temper, seat) -> wins
    played: dict[tuple[str, int], int] = field(default_factory=dict)  # (temper, seat) -> games in that seat
    # two houses: (temper, the other's temper) -> wins and games of the first against the second
    against: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)  # temper -> seconds spent choosing orders
    moves: dict[str, int] = field(default_factory=dict)  # temper -> orders chosen
    elapsed: float = 0.0  # wall seconds of the whole tournament
    seasons: int = 0  # seasons played, all games together
    conquests: int = 0  # games won outright (every capital held)
    endings: list[str] = field(default_factory=list)  # each game's winner and season, in order

    def total(self, temper: str) -> tuple[int, int]:
        """(wins, games) of a temper over every seat."""
        seats = range(1, self.houses + 1)
        return sum(self.wins.get((temper, s), 0) for s in seats), sum(self.played.get((temper, s), 0) for s in seats)

    def seconds_per_move(self, temper: str) -> float:
        """The temper's average seconds to choose an order."""
        return self.seconds.get(temper, 0.0) / self.moves[temper] if self.moves.get(temper) else 0.0

    def as_json(self) -> dict[str, Any]:
        """Each temper's wins by seat and in all, its games, its rate with the interval, and its seconds a move."""
        found: dict[str, Any] = {}
        for temper in dict.fromkeys(t.value for t in self.tempers):
            wins, games = self.total(temper)
            low, high = wilson(wins, games)
            seats = range(1, self.houses + 1)
            found[temper] = {
                "wins_by_seat": {str(s): self.wins.get((temper, s), 0) for s in seats},
                "games_by_seat": {str(s): self.played.get((temper, s), 0) for s in seats},
                "wins": wins,
                "games": games,
                "win_rate": round(wins / games, 4) if games else 0.0,
                "interval_95": [round(low / 100, 4), round(high / 100, 4)],
                "seconds_per_move": round(self.seconds_per_move(temper), 5),
                "against": {
                    other: {"wins": tally[0], "games": tally[1]}
                    for (mine, other), tally in sorted(self.against.items())
                    if mine == temper
                },
            }
        return found


def _temper(house: House) -> str:
    """The temper of a tournament's house (every house of a tournament is a bot's)."""
    if house.temper is None:
        raise ValueError(f"{house.name} has no temper: a tournament seats bots only")
    return house.temper.value


def play_game(world: World, seed: str, standings: Standings | None = None) -> World:
    """Play the world to its end with every house played by its bot (in place); returns it. With `standings`,
    each order's time is added to its temper's."""
    while world.status is Status.PLAYING:
        temper = _temper(world.houses[world.to_move])
        started = time.perf_counter()
        order = bots.choose(world, bot_dice(seed, world.season, world.to_move))
        if standings is not None:
            standings.seconds[temper] = standings.seconds.get(temper, 0.0) + time.perf_counter() - started
            standings.moves[temper] = standings.moves.get(temper, 0) + 1
        play_turn(world, order)
    return world


def tournament(
    games: int,
    seed: str,
    houses: int = 4,
    grounds: dict[str, Ground] | None = None,
    tempers: tuple[Temper, ...] = TEMPERS,
) -> Standings:
    """Play `games` bot-only games of `houses` houses, the seats rotating over `tempers`; the standings."""
    grounds = grounds or default_grounds()
    standings = Standings(houses, tempers)
    started = time.perf_counter()
    for number in range(1, games + 1):
        game_seed = f"{seed} game {board_of(tempers, number)}"
        world = new_world(grounds, houses, 0, Temper.STEADY, game_seed)
        for seat, (house, temper) in enumerate(zip(world.houses.values(), lineup(tempers, houses, number),
                                                   strict=True)):  # fmt: skip
            house.temper = temper
            key = (temper.value, seat + 1)
            standings.played[key] = standings.played.get(key, 0) + 1
        play_game(world, game_seed, standings)
        winners = set(world.winner.split(" + ")) - {""}
        seats = list(world.houses)
        for name in winners:
            key = (_temper(world.houses[name]), seats.index(name) + 1)
            standings.wins[key] = standings.wins.get(key, 0) + 1
        if houses == 2:
            first, second = world.houses.values()
            for mine, other in ((first, second), (second, first)):
                if mine.temper != other.temper:
                    tally = standings.against.setdefault((_temper(mine), _temper(other)), [0, 0])
                    tally[0] += mine.name in winners
                    tally[1] += 1
        standings.games += 1
        standings.seasons += world.season
        standings.conquests += len(world.standing()) == 1
        standings.endings.append(f"{world.winner or 'nobody'} ({world.season})")
    standings.elapsed = time.perf_counter() - started
    return standings


def summary(standings: Standings, seed: str) -> dict[str, Any]:
    """The tournament as `--json` gives it: the settings, each temper's numbers, conquests, seasons, seconds."""
    tempers = standings.as_json()
    return {
        "games": standings.games, "seed": seed, "houses": standings.houses, "tempers": tempers,
        "wins": {t: found["wins_by_seat"] for t, found in tempers.items()},  # as before `tempers`: by seat
        "conquests": standings.conquests, "seasons": standings.seasons, "seconds": round(standings.elapsed, 2),
    }  # fmt: skip


def tables(standings: Standings, seed: str) -> list[tuple[str, list[str], list[list[str]]]]:
    """The printed tables (title, header, rows): wins by temper and seat, and with two houses each pairing."""
    header, rows = table_rows(standings)
    title = (
        f"{plural(standings.games, 'game')} of {standings.houses} houses, seed {seed}: wins/games by temper and seat "
        f"({standings.conquests} won by conquest, the rest on the mandate after season 60; "
        f"{standings.elapsed:.2f} s)"
    )
    found = [(title, header, rows)]
    if standings.against:
        pairs = "two houses: each temper's wins against each other temper"
        found.append((pairs, ["temper", "against", "wins/games", "win rate [95%]"], against_rows(standings)))
    return found


def table_rows(standings: Standings) -> tuple[list[str], list[list[str]]]:
    """The printed table: a row per temper, wins/games by seat, in all with the 95% interval, seconds a move."""
    seats = range(1, standings.houses + 1)
    rows = []
    for temper in dict.fromkeys(t.value for t in standings.tempers):
        cells = [f"{standings.wins.get((temper, s), 0)}/{standings.played.get((temper, s), 0)}" for s in seats]
        wins, played = standings.total(temper)
        rows.append([temper, *cells, f"{wins}/{played}", rate_text(wins, played),
                     f"{standings.seconds_per_move(temper):.4f}"])  # fmt: skip
    header = ["temper", *[f"seat {s}" for s in seats], "all seats", "win rate [95%]", "s/move"]
    return header, rows


def against_rows(standings: Standings) -> list[list[str]]:
    """Two houses: each temper's wins against each other temper, with the 95% interval."""
    return [
        [mine, other, f"{tally[0]}/{tally[1]}", rate_text(tally[0], tally[1])]
        for (mine, other), tally in sorted(standings.against.items())
    ]
