"""The bots: the order a house no person plays gives, by its temper. Pure, seeded and legal by construction.

Every temper plans its march as one (`plans.Planner`: the attacks with the pieces that must move in
beside the target first, then the rest), with the rules' own step checks on a copy of the board, so
every step it orders is one the rules allow and no piece blocks another's attack. Its only chance is
the campaign's seeded stream (`Dice`); the same board and seed give the same order.

- cautious keeps its capital safe and grows: two soldiers stay beside its capital, it fights only near
  its capital and its settlers, and it raises whenever raising gains, unless a threat near home can be
  struck down; it never leaves a piece where the enemy could break it if it can help it.
- steady takes every attack that wins and grows otherwise: it marches when an attack wins, else raises
  when raising gains, else moves its soldiers up to the nearest enemy.
- ruthless presses toward the rival capitals: it attacks whenever it wins (and trades a company for a
  company when that opens a capital), marches its soldiers on the nearest rival capital whenever they
  can draw nearer and the raise would bring little, and never wastes a turn on a march that moves
  nothing when a raise would gain.
- hard looks ahead (`lookahead.choose`): it plays each temper's order on a copy, lets the next house
  answer by its own temper, and keeps the order that leaves it best placed.
- random (the tournament's baseline): a legal order drawn at random.
"""

from __future__ import annotations

from sheets_engine.art_of_war.hexes import distance, neighbours
from sheets_engine.art_of_war.model import Kind, OrderKind, Temper, World
from sheets_engine.art_of_war.plans import Character, Plan, paths, plan_march
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
    if temper is Temper.CAUTIOUS:
        if plan.wins or plan.captures:
            return march_order(plan, raises), plan
        return (raise_order if gain > 0 else march_order(plan, raises)), plan
    if temper is Temper.STEADY:
        if plan.wins or plan.captures:
            return march_order(plan, raises), plan
        return (raise_order if gain > 0 else march_order(plan, raises)), plan
    if plan.wins or plan.captures:
        return march_order(plan, raises), plan
    if gain >= 2 or plan.advance < 2:
        return raise_order, plan
    return march_order(plan, raises), plan


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


def choose(world: World, dice: Dice) -> Order:
    """The order of the house to move, by its temper."""
    temper = world.houses[world.to_move].temper
    if temper is Temper.RANDOM:
        return random_order(world, dice)
    if temper is Temper.HARD:
        from sheets_engine.art_of_war import lookahead

        return lookahead.choose(world, dice)
    return temper_order(world, temper)[0]
