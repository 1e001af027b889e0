"""The bots: the order a house no person plays gives, by its temper. Pure and quick.

A bot plans its march on a copy of the world with the rules' own step checks (`rules.step_refusal`,
`rules.take_step`), so every step it orders is one the rules allow; the order is then carried out
on the real world like a person's. Its only chance is the campaign's seeded stream (`Dice`), used to
break ties between equally good steps, so a replay gives the same orders.

- cautious: guards its capital. While an enemy soldier is within three hexes of it, it strikes the
  threat when an attack wins, else raises levies (or, with nothing to raise, draws its soldiers
  back around the capital). Untroubled, it raises when it gains and strikes only sure wins.
- steady: marches when an attack wins; else raises when it gains; else marches toward the nearest
  rival capital.
- ruthless: marches whenever an attack wins or a rival capital is in reach (a soldier within four
  hexes of one); else raises when it gains; else marches toward the nearest rival capital.
"""

from __future__ import annotations

from dataclasses import dataclass

from sheets_engine.art_of_war.hexes import Hex, distance, neighbours
from sheets_engine.art_of_war.model import Kind, OrderKind, Piece, Temper, World
from sheets_engine.art_of_war.rules import (
    Order,
    PieceMarch,
    Progress,
    Step,
    enemy_soldier_beside,
    readiness,
    ready_settlers,
    step_refusal,
    strengths,
    take_step,
)
from sheets_engine.core.dice import Dice

THREAT_RANGE = 3  # an enemy soldier this near a capital threatens it
REACH = 4  # a rival capital this near a soldier is in reach (two marches)


@dataclass(frozen=True)
class Option:
    """A way one piece may spend its turn: a path of steps and how much the bot likes it."""

    steps: tuple[Step, ...]
    score: float
    wins: bool = False  # it ends with an attack that wins
    takes_capital: bool = False


def _paths(world: World, piece: Piece) -> list[tuple[tuple[Step, ...], Hex, int, bool]]:
    """Every way to move the piece this turn without attacking: (steps, end, points left, halted)."""
    assert piece.hex is not None
    found: list[tuple[tuple[Step, ...], Hex, int, bool]] = [((), piece.hex, 2, False)]
    frontier: list[tuple[tuple[Step, ...], Hex, int]] = [((), piece.hex, 2)]
    while frontier:
        steps, at, points = frontier.pop(0)
        for near in neighbours(at):
            if near not in world.terrain or near in world.at or any(s.to == near for s in steps) or near == piece.hex:
                continue
            cost = world.ground(near).cost
            if cost > points:
                continue
            halted = enemy_soldier_beside(world, near, piece.house)
            path = (*steps, Step(near))
            found.append((path, near, points - cost, halted))
            if not halted and points - cost > 0:
                frontier.append((path, near, points - cost))
    return found


def _options(world: World, piece: Piece, goal: Hex | None, only_guard: Hex | None = None) -> list[Option]:
    """The piece's options, scored: taking a capital, a winning attack, else drawing nearer the goal."""
    options = []
    rivals = {h: owner for h, owner in world.capital_of.items() if owner != piece.house}
    for steps, end, points, _halted in _paths(world, piece):
        closer = -distance(end, goal) if goal is not None else 0.0
        if piece.kind is Kind.SOLDIER and end in rivals:
            options.append(Option(steps, 1000.0, takes_capital=True))
            continue
        if piece.kind is Kind.SETTLER:
            score = closer * 0.1 + (0.0 if steps else 0.05)  # a settler keeps its place unless it gains
            moved = Piece(piece.id, piece.house, piece.kind, end)
            if _ready_at(world, moved, piece.hex):
                score += 5.0
            options.append(Option(steps, score))
            continue
        options.append(Option(steps, closer))
        if points < 1:
            continue
        for near in neighbours(end):
            target = world.piece_at(near)
            if target is None or target.house == piece.house or target.id == piece.id:
                continue
            if only_guard is not None and distance(near, only_guard) > THREAT_RANGE:
                continue
            power, _, guard, _ = strengths(world, piece, target)
            if power <= guard:
                continue
            value = 100.0 + (20.0 if target.kind is Kind.SOLDIER else 10.0)
            if rivals.get(near) == target.house:
                value += 500.0  # breaking a capital's guard takes the capital
            options.append(Option((*steps, Step(near, attack=True)), value, wins=True, takes_capital=value > 500))
    return options


def _ready_at(world: World, moved: Piece, start: Hex | None) -> bool:
    """Would the settler raise from `moved.hex` (its old hex left empty)?"""
    assert moved.hex is not None
    if world.capital_of.get(moved.hex) == moved.house:
        return True
    ground = world.ground(moved.hex)
    if ground.raises is None or enemy_soldier_beside(world, moved.hex, moved.house):
        return False
    return any(
        h in world.terrain and (h not in world.at or h == start) and h != moved.hex for h in neighbours(moved.hex)
    )


def _pick(options: list[Option], dice: Dice, purpose: str) -> Option:
    """The best-scored option; equals are drawn from the seeded stream."""
    best = max(o.score for o in options)
    top = [o for o in options if o.score == best]
    if len(top) == 1:
        return top[0]
    return top[dice.choice_index(len(top), purpose).value - 1]


def _nearest(hexes: list[Hex], start: Hex) -> Hex | None:
    return min(hexes, key=lambda h: (distance(h, start), h)) if hexes else None


def plan_march(world: World, house: str, dice: Dice, guard: bool = False) -> tuple[list[PieceMarch], bool, bool]:
    """A march for the house planned on a copy of the world: (entries, any attack wins, a capital taken).

    guard: the cautious bot's march: soldiers strike threats to its capital and draw back around it.
    """
    scratch = world.copy()
    own = world.houses[house].capital
    rivals = [h for h, owner in world.capital_of.items() if owner != house]
    entries, wins, takes = [], False, False
    for piece in [p for p in scratch.pieces_of(house)]:
        if piece.hex is None:
            continue
        if piece.kind is Kind.SETTLER and readiness(scratch, piece)[0] is not None:
            continue  # a settlement ready to raise stays where it is
        goal = own if guard and own is not None else _nearest(rivals, piece.hex)
        options = _options(scratch, piece, goal, own if guard else None)
        if guard and own is not None:
            options = [o for o in options if o.wins or o.takes_capital or not o.steps or o.score >= -1]
        if not options:
            continue
        chosen = _pick(options, dice, f"{house} {piece.id} march")
        if not chosen.steps:
            continue
        start, progress = piece.hex, Progress()
        for step in chosen.steps:
            if piece.hex is None or step_refusal(scratch, piece, progress, step):
                break  # never happens (the paths follow the rules); kept so an order is always legal
            take_step(scratch, piece, progress, step)
        done = chosen.steps[: len(progress.path)]
        if done:
            entries.append(PieceMarch(piece.id, start, tuple(done)))
        wins = wins or chosen.wins
        takes = takes or chosen.takes_capital
    return entries, wins, takes


def threatened(world: World, house: str) -> bool:
    """An enemy soldier within three hexes of the house's capital."""
    capital = world.houses[house].capital
    if capital is None or world.capital_of.get(capital) != house:
        return False
    return any(
        p.kind is Kind.SOLDIER and p.house != house and p.hex is not None and distance(p.hex, capital) <= THREAT_RANGE
        for p in world.pieces.values()
    )


def in_reach(world: World, house: str) -> bool:
    """A soldier of the house within four hexes of a rival capital."""
    rivals = [h for h, owner in world.capital_of.items() if owner != house]
    return any(
        p.kind is Kind.SOLDIER and p.hex is not None and distance(p.hex, c) <= REACH
        for p in world.pieces_of(house)
        for c in rivals
    )


def choose(world: World, dice: Dice) -> Order:
    """The order of the house to move, by its temper (the capital's switch: soldiers while threatened or
    short of soldiers, settlers otherwise)."""
    house = world.to_move
    temper = world.houses[house].temper
    gain = len(ready_settlers(world, house))
    danger = threatened(world, house)
    soldiers = sum(1 for p in world.pieces_of(house) if p.kind is Kind.SOLDIER)
    settlers = len(world.pieces_of(house)) - soldiers
    switch = Kind.SOLDIER if danger or soldiers * 2 < settlers else Kind.SETTLER
    if temper is Temper.CAUTIOUS:
        if danger:
            entries, wins, takes = plan_march(world, house, dice, guard=True)
            if wins or takes or gain == 0:
                return Order(OrderKind.MARCH, tuple(entries), switch)
            return Order(OrderKind.RAISE, (), switch)
        if gain > 0:
            return Order(OrderKind.RAISE, (), switch)
        entries, _, _ = plan_march(world, house, dice)
        return Order(OrderKind.MARCH, tuple(entries), switch)
    entries, wins, takes = plan_march(world, house, dice)
    if wins or takes or (temper is Temper.RUTHLESS and in_reach(world, house)):
        return Order(OrderKind.MARCH, tuple(entries), switch)
    if gain > 0:
        return Order(OrderKind.RAISE, (), switch)
    return Order(OrderKind.MARCH, tuple(entries), switch)
