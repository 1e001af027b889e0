"""A new board from the seed: terrain, capitals placed fairly apart, starting pieces, the opening house.

Pure: the same (houses, people, temper, seed) always makes the same world. The seed's words are
hashed with SHA-256 (never Python's hash(), which changes between runs), so "plum rain" is the
same board on every machine and in every Python version.
"""

from __future__ import annotations

import hashlib
import random

from sheets_engine.art_of_war.hexes import Hex, disc, distance, neighbours, ring
from sheets_engine.art_of_war.model import PLAYED_TEMPERS, Ground, House, Kind, Piece, Temper, World

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


def people_of(people: object) -> tuple[int, list[str]]:
    """`--people`: a count ("2") or the people themselves, their emails or names comma-separated
    ("ana@example.com, Ben"), in seat order. Returns (how many, their names as typed; [] for a count)."""
    text = str(people if people is not None else 0).strip()
    if text.isdigit():
        return int(text), []
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise BadOption(f"--people {text!r}: each person's email or name, separated by commas (one is empty)")
    return len(names), names


def check_options(houses: int, people: object, temper: str) -> tuple[Temper, list[str] | int]:
    """The options as the rules need them, or BadOption saying which one is wrong: the bots' temper, and the
    people (their names, or how many when only a count is given)."""
    if not MIN_HOUSES <= houses <= MAX_HOUSES:
        raise BadOption(f"--houses {houses}: from {MIN_HOUSES} to {MAX_HOUSES} houses contend")
    count, names = people_of(people)
    if not 0 <= count <= houses:
        raise BadOption(f"--people {people}: from 0 to {houses} of the {houses} houses may be played by people")
    words = {t.value: t for t in PLAYED_TEMPERS}
    chosen = words.get(str(temper).strip().casefold())
    if chosen is None:
        raise BadOption(f"--temper {temper}: a bot's temper is {', '.join(words)}")
    return chosen, names or count


def new_world(grounds: dict[str, Ground], houses: int, people: int | list[str], temper: Temper, seed: str) -> World:
    """The board the seed makes: terrain, one capital per house on a ring around the centre (equally spaced,
    so every capital is as far from the centre and from its neighbours), the home ground of each capital,
    three starting pieces per house, and the house that opens the campaign, drawn last.

    `people`: the people playing the first seats (their emails or names), or how many they are: their
    houses have no Temper, and a Player only when named (the GM types it in the Houses tab otherwise)."""
    players = people if isinstance(people, list) else [""] * people
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
        person = seat < len(players)
        seats[name] = House(name, players[seat] if person else "", None if person else temper, capital, Kind.SETTLER)
        guard = min(neighbours(capital), key=lambda h: distance(h, (0, 0)))
        field = next(h for h in neighbours(capital) if terrain[h] == "plain" and h != guard)
        for kind, where in ((Kind.SETTLER, capital), (Kind.SOLDIER, guard), (Kind.SETTLER, field)):
            number = f"P{len(pieces) + 1}"
            pieces[number] = Piece(number, name, kind, where)
    first = list(seats)[rng.randrange(houses)]
    capital_of = {h.capital: h.name for h in seats.values() if h.capital is not None}
    return World(grounds, terrain, capital_of, seats, pieces, first, first)
