"""What a bot reads off the board: a piece's worth and defence, where it can move this turn, and where the
enemy's soldiers could strike next turn. Pure functions over a World, used by the planner and the bots."""

from __future__ import annotations

from sheets_engine.art_of_war.hexes import Hex, neighbours
from sheets_engine.art_of_war.model import Kind, Piece, World
from sheets_engine.art_of_war.rules import CAPITAL_DEFENCE, SETTLER_POINTS, SOLDIER_POINTS, Step, enemy_soldier_beside


def value_of(piece: Piece) -> int:
    """A piece's worth on the mandate."""
    return SETTLER_POINTS if piece.kind is Kind.SETTLER else SOLDIER_POINTS


def defence(world: World, piece: Piece) -> int:
    """The piece's defence where it stands: 1 for a soldier, its ground's cover, 2 on its own capital."""
    assert piece.hex is not None
    home = CAPITAL_DEFENCE if world.capital_of.get(piece.hex) == piece.house else 0
    return (1 if piece.kind is Kind.SOLDIER else 0) + world.ground(piece.hex).cover + home


def paths(world: World, piece: Piece) -> list[tuple[tuple[Step, ...], Hex, int]]:
    """Every way to move the piece this turn without attacking: (steps, where it ends, points left)."""
    assert piece.hex is not None
    found: list[tuple[tuple[Step, ...], Hex, int]] = [((), piece.hex, 2)]
    frontier: list[tuple[tuple[Step, ...], Hex, int]] = [((), piece.hex, 2)]
    while frontier:
        steps, at, points = frontier.pop()
        for near in neighbours(at):
            if near not in world.terrain or near in world.at or near == piece.hex or any(s.to == near for s in steps):
                continue
            cost = world.ground(near).cost
            if cost > points:
                continue
            path = (*steps, Step(near))
            found.append((path, near, points - cost))
            if points - cost > 0 and not enemy_soldier_beside(world, near, piece.house):
                frontier.append((path, near, points - cost))
    return found


def threat_map(world: World, house: str) -> dict[Hex, int]:
    """For each hex, how many enemy soldiers could stand beside it (or strike it) on their next turn."""
    counts: dict[Hex, int] = {}
    for piece in world.pieces.values():
        if piece.hex is None or piece.house == house or piece.kind is not Kind.SOLDIER:
            continue
        touched: set[Hex] = set()
        for _steps, end, _points in paths(world, piece):
            touched.update(neighbours(end))
        for hex_ in touched:
            counts[hex_] = counts.get(hex_, 0) + 1
    return counts
