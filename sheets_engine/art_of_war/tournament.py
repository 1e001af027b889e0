"""Bot-only games on fresh boards, played on the pure core (no workbook), to judge a change to a bot by numbers.

Game g of a tournament with seed S is made from the seed "S game g"; its seats get the tempers in
turn (cautious, steady, ruthless, ...) shifted by one each game, so every temper sits in every seat.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from importlib.resources import files

from sheets_engine.art_of_war import bots
from sheets_engine.art_of_war.model import Ground, Status, Temper, World, ground_row
from sheets_engine.art_of_war.phases import bot_dice
from sheets_engine.art_of_war.rules import play_turn
from sheets_engine.art_of_war.setup import new_world

TEMPERS = (Temper.CAUTIOUS, Temper.STEADY, Temper.RUTHLESS)


def default_grounds() -> dict[str, Ground]:
    """The Terrain template's rows (what a new campaign's Terrain tab holds)."""
    text = (files("sheets_engine.art_of_war") / "templates" / "Terrain.csv").read_text(encoding="utf-8")
    rows = csv.DictReader(io.StringIO(text))
    return {r["Terrain"].casefold(): ground_row(r["Terrain"], r["Cost"], r["Cover"], r["Raises"]) for r in rows}


def play_game(world: World, seed: str) -> World:
    """Play the world to its end with every house played by its bot (in place); returns it."""
    while world.status is Status.PLAYING:
        order = bots.choose(world, bot_dice(seed, world.season, world.to_move))
        play_turn(world, order)
    return world


@dataclass
class Standings:
    """Wins by temper and seat (a shared win counts for each house sharing it)."""

    houses: int
    games: int = 0
    wins: dict[tuple[str, int], int] = field(default_factory=dict)  # (temper, seat) -> wins
    played: dict[tuple[str, int], int] = field(default_factory=dict)  # (temper, seat) -> games in that seat
    seasons: int = 0  # seasons played, all games together
    conquests: int = 0  # games won outright (every capital held)
    endings: list[str] = field(default_factory=list)  # each game's winner and season, in order


def tournament(games: int, seed: str, houses: int = 4, grounds: dict[str, Ground] | None = None) -> Standings:
    """Play `games` bot-only games of `houses` houses; the standings."""
    grounds = grounds or default_grounds()
    standings = Standings(houses)
    for number in range(1, games + 1):
        game_seed = f"{seed} game {number}"
        world = new_world(grounds, houses, 0, Temper.STEADY, game_seed)
        for seat, house in enumerate(world.houses.values()):
            house.temper = TEMPERS[(seat + number - 1) % len(TEMPERS)]
            key = (house.temper.value, seat + 1)
            standings.played[key] = standings.played.get(key, 0) + 1
        play_game(world, game_seed)
        winners = world.winner.split(" + ")
        seats = list(world.houses)
        for name in winners:
            key = (world.houses[name].temper.value, seats.index(name) + 1)
            standings.wins[key] = standings.wins.get(key, 0) + 1
        standings.games += 1
        standings.seasons += world.season
        standings.conquests += len(world.standing()) == 1
        standings.endings.append(f"{world.winner} ({world.season})")
    return standings
