"""A new board from the seed: terrain, capitals placed fairly apart, starting pieces, the opening house.

Pure: the same (houses, people, temper, seed) always makes the same world. The seed's words are
hashed with SHA-256 (never Python's hash(), which changes between runs), so "plum rain" is the
same board on every machine and in every Python version.
"""

from __future__ import annotations

import hashlib
import random

from sheets_engine.art_of_war.hexes import Hex, disc, distance, neighbours, ring
from sheets_engine.art_of_war.model import Ground, House, Kind, Piece, Temper, World

HOUSE_NAMES = ("Crane", "Tiger", "Lotus", "Wolf", "Heron", "Bear")  # in seat order around the board
MIN_HOUSES, MAX_HOUSES = 2, 6
# The ground around every capital: the same six hexes for each house (their order drawn), so no
# house starts richer than another.
HOME_GROUND = ("plain", "plain", "plain", "highland", "highland", "forest")
TERRAIN_WEIGHTS: tuple[tuple[str, int], ...] = (("plain", 50), ("highland", 25), ("forest", 25))


class BadOption(ValueError):
    """An option a board cannot be made with (the ruleset turns it into the CLI's clear message)."""


def seed_words(words: str) -> str:
    """The seed as the board and the bots read it: spaces and case aside ("Plum  RAIN" is "plum rain")."""
    return " ".join(str(words).split()).casefold()


def seed_number(words: str) -> int:
    """The seed's words (or number) as a number: SHA-256 of the words, spaces and case aside."""
    return int(hashlib.sha256(seed_words(words).encode("utf-8")).hexdigest()[:16], 16)


def board_radius(houses: int) -> int:
    """How far the board reaches from its centre: 61 hexes for up to three houses, 91 for more."""
    return 4 if houses <= 3 else 5


def check_options(houses: int, people: int, temper: str) -> Temper:
    """The options as the rules need them, or BadOption saying which one is wrong."""
    if not MIN_HOUSES <= houses <= MAX_HOUSES:
        raise BadOption(f"--houses {houses}: from {MIN_HOUSES} to {MAX_HOUSES} houses contend")
    if not 0 <= people <= houses:
        raise BadOption(f"--people {people}: from 0 to {houses} of the {houses} houses may be played by people")
    words = {t.value: t for t in Temper}
    chosen = words.get(str(temper).strip().casefold())
    if chosen is None:
        raise BadOption(f"--temper {temper}: a bot's temper is cautious, steady or ruthless")
    return chosen


def new_world(grounds: dict[str, Ground], houses: int, people: int, temper: Temper, seed: str) -> World:
    """The board the seed makes: terrain, one capital per house on a ring around the centre (equally spaced,
    so every capital is as far from the centre and from its neighbours), the home ground of each capital,
    three starting pieces per house, and the house that opens the campaign, drawn last."""
    rng = random.Random(seed_number(seed))
    radius = board_radius(houses)
    names: tuple[str, ...] = tuple(name for name, _ in TERRAIN_WEIGHTS)
    weights: tuple[int, ...] = tuple(weight for _, weight in TERRAIN_WEIGHTS)
    terrain: dict[Hex, str] = {h: rng.choices(names, weights)[0] for h in disc(radius)}
    circle = ring(radius - 1)
    turn = rng.randrange(len(circle))
    capitals = [circle[(turn + round(i * len(circle) / houses)) % len(circle)] for i in range(houses)]
    for capital in capitals:
        terrain[capital] = "plain"
        home = list(HOME_GROUND)
        rng.shuffle(home)
        for near, ground in zip(neighbours(capital), home, strict=True):
            terrain[near] = ground
    seats: dict[str, House] = {}
    pieces: dict[str, Piece] = {}
    for seat, (name, capital) in enumerate(zip(HOUSE_NAMES, capitals, strict=False)):
        player = f"person {seat + 1}" if seat < people else ""
        seats[name] = House(name, player, temper, capital, Kind.SETTLER)
        guard = min(neighbours(capital), key=lambda h: distance(h, (0, 0)))
        field = next(h for h in neighbours(capital) if terrain[h] == "plain" and h != guard)
        for kind, where in ((Kind.SETTLER, capital), (Kind.SOLDIER, guard), (Kind.SETTLER, field)):
            number = f"P{len(pieces) + 1}"
            pieces[number] = Piece(number, name, kind, where)
    first = list(seats)[rng.randrange(houses)]
    capital_of = {h.capital: h.name for h in seats.values() if h.capital is not None}
    return World(grounds, terrain, capital_of, seats, pieces, first, first)
