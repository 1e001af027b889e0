"""Small Art of War worlds for the rule tests: a plain board with the ground and pieces a test gives."""

from __future__ import annotations

from sheets_engine.art_of_war.hexes import Hex, disc
from sheets_engine.art_of_war.model import House, Kind, Piece, Temper, World
from sheets_engine.art_of_war.tournament import default_grounds

GROUNDS = default_grounds()


def world(
    pieces: list[tuple[str, str, str, Hex]],
    ground: dict[Hex, str] | None = None,
    capitals: dict[str, Hex] | None = None,
    houses: tuple[str, ...] = ("Crane", "Tiger"),
    radius: int = 4,
    to_move: str = "Crane",
) -> World:
    """A board of `radius` all plain but for `ground`; pieces as (id, house, kind, hex); capitals by house
    (default: far corners, out of the way)."""
    terrain = {h: "plain" for h in disc(radius)}
    terrain.update(ground or {})
    corners = [(radius, -radius), (-radius, radius), (0, -radius), (0, radius)]
    capitals = capitals if capitals is not None else dict(zip(houses, corners, strict=False))
    seats = {h: House(h, "", Temper.STEADY, capitals.get(h), Kind.SETTLER) for h in houses}
    placed = {p: Piece(p, h, Kind(k), at) for p, h, k, at in pieces}
    return World(GROUNDS, terrain, {c: h for h, c in capitals.items()}, seats, placed, houses[0], to_move)


def texts(events: list) -> list[str]:
    """The events' words, in order."""
    return [e.text for e in events]


def board(w: World) -> dict[str, str]:
    """Every piece on the board: id -> "house kind q,r"."""
    return {p.id: f"{p.house} {p.kind} {p.hex[0]},{p.hex[1]}" for p in w.pieces.values() if p.hex is not None}
