"""The hard bot: it looks one reply ahead.

It plays each candidate order on a copy of the board (raise levies, and the march each planning temper
would make), lets the next house answer as its own temper would (a person's or another hard house's
answer is modelled as steady's), and keeps the order whose board it likes best after that answer.
"""

from __future__ import annotations

from sheets_engine.art_of_war import tempers
from sheets_engine.art_of_war.model import Kind, OrderKind, Status, Temper, World
from sheets_engine.art_of_war.rules import Order, mandate, play_turn
from sheets_engine.core.dice import Dice

CANDIDATES = (Temper.STEADY, Temper.RUTHLESS, Temper.CAUTIOUS)
WON = 10_000.0


def evaluate(world: World, house: str) -> float:
    """How good the board is for the house: its mandate against its rivals', the end of the game above all."""
    if world.status is Status.OVER:
        return WON if house in world.winner.split(" + ") else -WON
    if world.houses[house].fallen:
        return -WON
    rivals = [h for h in world.standing() if h != house]
    mine = mandate(world, house)
    theirs = max((mandate(world, h) for h in rivals), default=0)
    fallen = sum(1 for h in world.houses.values() if h.fallen)
    return mine - theirs + 50.0 * fallen


def reply_temper(world: World) -> Temper:
    """How the next house is expected to answer: by its own temper (steady's for a person or a hard house)."""
    house = world.houses[world.to_move]
    if house.person or house.temper is None or house.temper in (Temper.HARD, Temper.RANDOM):
        return Temper.STEADY
    return house.temper


def choose(world: World, dice: Dice) -> Order:
    """The order whose board, after the next house's answer, is best for the house to move."""
    house = world.to_move
    orders: list[Order] = []
    for temper in CANDIDATES:
        order, plan = tempers.temper_order(world, temper)
        orders.append(order)
        if plan.entries:
            orders.append(tempers.march_order(plan, order.capital_raises or Kind.SETTLER))
    orders.append(Order(OrderKind.RAISE, (), tempers.switch(world, house, Temper.STEADY)))
    seen: set[tuple] = set()
    best: tuple[float, int] | None = None
    chosen = orders[0]
    for number, order in enumerate(orders):
        key = (order.kind, order.marches, order.capital_raises)
        if key in seen:
            continue
        seen.add(key)
        trial = world.copy()
        play_turn(trial, order)
        if trial.status is Status.PLAYING and trial.to_move != house:
            answer, _ = tempers.temper_order(trial, reply_temper(trial))
            play_turn(trial, answer)
        score = (evaluate(trial, house), -number)
        if best is None or score > best:
            best, chosen = score, order
    return chosen
