"""The Art of War's world as plain values: the board, the houses, the pieces, whose turn it is.

The rules (sheets_engine.art_of_war.rules) and the bots work on a `World`, never on the sheet: the
sheet is read into one (`sheet.read_world`) and the events the rules report are written back as
cells. A tournament plays on worlds alone, with no workbook.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from enum import StrEnum

from sheets_engine.art_of_war.hexes import Hex, hex_text


class Kind(StrEnum):
    """The two kinds of piece (the sheet's words)."""

    SETTLER = "settler"
    SOLDIER = "soldier"


class Temper(StrEnum):
    """A bot's temper (the sheet's words); `random` is the tournament's baseline, not a temper a house is given."""

    CAUTIOUS = "cautious"
    STEADY = "steady"
    RUTHLESS = "ruthless"
    HARD = "hard"
    RANDOM = "random"


PLAYED_TEMPERS = (Temper.CAUTIOUS, Temper.STEADY, Temper.RUTHLESS, Temper.HARD)  # what init and the Houses tab take


class OrderKind(StrEnum):
    """The one order of a turn: raise levies, or march. Never both."""

    RAISE = "raise"
    MARCH = "march"


class Status(StrEnum):
    """The Game tab's `status`."""

    PLAYING = "playing"
    OVER = "over"


@dataclass(frozen=True)
class Ground:
    """One terrain, as the Terrain tab gives it: what entering costs, the cover, what a settler raises."""

    name: str
    cost: int
    cover: int
    raises: Kind | None  # None: nothing at all


def ground_row(name: object, cost: object, cover: object, raises: object) -> Ground:
    """A Terrain row (its cells as read) as the rules use it; `raises` is settler, soldier or nothing."""
    word = str(raises).strip().casefold()
    return Ground(str(name), int(str(cost)), int(str(cover)), None if word == "nothing" else Kind(word))


@dataclass
class Piece:
    """A settler or a soldier; `hex` None once it has left the board (broken, destroyed, removed)."""

    id: str
    house: str
    kind: Kind
    hex: Hex | None


@dataclass
class House:
    """A house in its seat: a person's (a Player, or no Temper) or a bot's (a Temper and no Player)."""

    name: str
    player: str  # the person's email or name, as the GM typed it
    temper: Temper | None  # the bot's temper; None: a person plays the house
    capital: Hex | None
    raises: Kind  # the Capital raises switch
    fallen: bool = False
    taken: int = 0  # rival capitals taken

    @property
    def person(self) -> bool:
        """True when a person plays this house: it has a Player, or no Temper (the bot plays it otherwise)."""
        return bool(self.player) or self.temper is None


@dataclass
class World:
    """Everything the rules look at. Mutable: a turn changes it in place (copy it first to keep the old one)."""

    grounds: dict[str, Ground]
    terrain: dict[Hex, str]  # every hex of the board and its terrain's name
    capital_of: dict[Hex, str]  # the standing capitals: hex -> house
    houses: dict[str, House]  # in seat order (the fixed order of turns)
    pieces: dict[str, Piece]  # every piece ever on the board, in number order
    first: str  # the house that opens every season
    to_move: str
    season: int = 1
    max_seasons: int = 60
    status: Status = Status.PLAYING
    winner: str = ""
    at: dict[Hex, str] = field(default_factory=dict)  # hex -> the piece standing there (kept by the rules)

    def __post_init__(self) -> None:
        if not self.at:
            self.at = {p.hex: p.id for p in self.pieces.values() if p.hex is not None}

    def copy(self) -> World:
        """An independent copy (grounds and terrain are shared: no rule changes them)."""
        pieces = {k: Piece(p.id, p.house, p.kind, p.hex) for k, p in self.pieces.items()}
        houses = {k: copy.copy(h) for k, h in self.houses.items()}
        return World(self.grounds, self.terrain, dict(self.capital_of), houses, pieces, self.first, self.to_move,
                     self.season, self.max_seasons, self.status, self.winner, dict(self.at))  # fmt: skip

    def ground(self, where: Hex) -> Ground:
        """The terrain rules of a hex."""
        return self.grounds[self.terrain[where]]

    def piece_at(self, where: Hex) -> Piece | None:
        """The piece on a hex, if any."""
        found = self.at.get(where)
        return None if found is None else self.pieces[found]

    def standing(self) -> list[str]:
        """The houses not fallen, in seat order."""
        return [h.name for h in self.houses.values() if not h.fallen]

    def pieces_of(self, house: str) -> list[Piece]:
        """A house's pieces on the board, in number order."""
        return [p for p in self.pieces.values() if p.house == house and p.hex is not None]

    def next_id(self) -> str:
        """The name of the next piece raised: P and one more than the highest number yet."""
        numbers = [int(p[1:]) for p in self.pieces if p[1:].isdigit()]
        return f"P{max(numbers, default=0) + 1}"


@dataclass(frozen=True)
class Event:
    """One thing that happened, in words, with what the sheet needs to record it.

    kind: moved, raised, broken (left the board), sworn (changed house), fell (a house), out (a house),
    switch (a capital's switch), refused (a step not allowed), combat (the arithmetic of an attack).
    """

    kind: str
    text: str
    piece: str = ""
    house: str = ""
    hex: Hex | None = None
    other: str = ""  # sworn: the new house; fell: the taker; raised: the kind

    def __str__(self) -> str:
        return self.text


def where(piece: Piece) -> str:
    """A piece's hex as text."""
    return hex_text(piece.hex)
