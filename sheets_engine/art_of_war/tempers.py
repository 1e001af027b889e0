"""The planning tempers' orders (cautious, steady, ruthless) and the random baseline's; `bots.choose` picks
by a house's temper. Each planning temper plans its march as one (`plan_march`: the attacks, the
capital's guard, the rest) and then chooses between that march and raising levies by its character."""

from __future__ import annotations

from sheets_engine.art_of_war import placing
from sheets_engine.art_of_war.hexes import distance, neighbours
from sheets_engine.art_of_war.model import Kind, OrderKind, Temper, World
from sheets_engine.art_of_war.plans import Character, Plan, Planner
from sheets_engine.art_of_war.reach import paths
from sheets_engine.art_of_war.rules import Order, PieceMarch, Progress, Step, ready_settlers, step_refusal, take_step
from sheets_engine.core.dice import Dice

THREAT_RANGE = 3  # an enemy soldier this near a capital threatens it

CHARACTERS: dict[Temper, Character] = {
    Temper.CAUTIOUS: Character(goal="front", caution=1.0, zone=3, cohesion=0.5, alarm=0),
    Temper.STEADY: Character(goal="front", caution=1.0, cohesion=0.3, pull=1.0),
    Temper.RUTHLESS: Character(goal="capital", trade=True, caution=0.3, cohesion=0.4, pull=1.5),
}


def threatened(world: World, house: str) -> bool:
    """An enemy soldier within three hexes of the house's capital."""
    capital = world.houses[house].capital
    if capital is None or world.capital_of.get(capital) != house:
        return False
    return any(
        p.kind is Kind.SOLDIER and p.house != house and p.hex is not None and distance(p.hex, capital) <= THREAT_RANGE
        for p in world.pieces.values()
    )


def switch(world: World, house: str, temper: Temper) -> Kind:
    """What the capital should raise: soldiers while threatened or short of them, settlers otherwise."""
    pieces = world.pieces_of(house)
    soldiers = sum(1 for p in pieces if p.kind is Kind.SOLDIER)
    settlers = len(pieces) - soldiers
    share = {Temper.CAUTIOUS: 0.5, Temper.RUTHLESS: 1.0}.get(temper, 0.6)  # soldiers wanted per settler
    return Kind.SOLDIER if threatened(world, house) or soldiers < share * settlers else Kind.SETTLER


def plan_march(world: World, house: str, character: Character) -> Plan:
    """The house's march planned as one by its character: the attacks, then its capital's guard, then the rest."""
    planner = Planner(world, house, character)
    planner.strike()
    placing.guard_capital(planner)
    placing.place_the_rest(planner)
    return planner.plan


def march_order(plan: Plan, raises: Kind) -> Order:
    """A plan as the house's order."""
    return Order(OrderKind.MARCH, tuple(plan.entries), raises)


def temper_order(world: World, temper: Temper) -> tuple[Order, Plan]:
    """The order of the house to move by one of the planning tempers (cautious, steady, ruthless), and its plan."""
    house = world.to_move
    gain = len(ready_settlers(world, house))
    raises = switch(world, house, temper)
    plan = plan_march(world, house, CHARACTERS[temper])
    raise_order = Order(OrderKind.RAISE, (), raises)
    if not plan.entries:
        return raise_order, plan  # a march that moves nothing never beats a raise
    if plan.guarded > 0:
        return march_order(plan, raises), plan  # the capital first: close the ring the enemy would strike from
    if plan.wins or plan.captures:  # cautious's plan strikes only near its capital and its settlers
        return march_order(plan, raises), plan
    if temper is Temper.RUTHLESS:  # it presses on a rival capital while raising would add at most one piece
        presses = gain < 2 and plan.advance >= 2
        return (march_order(plan, raises) if presses else raise_order), plan
    return (raise_order if gain > 0 else march_order(plan, raises)), plan


def random_order(world: World, dice: Dice) -> Order:
    """A legal order drawn at random: raise or march alike; a march moves each piece by a path drawn from its
    legal ones (staying put and an attack from where the path ends among them)."""
    house = world.to_move
    kind = Kind.SOLDIER if dice.coin(f"{house} capital").value == 1 else Kind.SETTLER
    if dice.coin(f"{house} order").value == 1:
        return Order(OrderKind.RAISE, (), kind)
    scratch = world.copy()
    entries = []
    for piece in scratch.pieces_of(house):
        if piece.hex is None:
            continue
        options: list[tuple[Step, ...]] = []
        for steps, end, points in paths(scratch, piece):
            options.append(steps)
            if piece.kind is Kind.SOLDIER and points > 0:
                for near in neighbours(end):
                    other = scratch.piece_at(near)
                    if other is not None and other.house != house:
                        options.append((*steps, Step(near, attack=True)))
        steps = options[dice.choice_index(len(options), f"{house} {piece.id} march").value - 1]
        if not steps:
            continue
        start, progress = piece.hex, Progress()
        for step in steps:
            if piece.hex is None or step_refusal(scratch, piece, progress, step):
                break
            take_step(scratch, piece, progress, step)
        if progress.path:
            entries.append(PieceMarch(piece.id, start, steps[: len(progress.path)]))
    return Order(OrderKind.MARCH, tuple(entries), kind)
