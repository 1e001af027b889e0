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

from sheets_engine.art_of_war import lookahead, tempers
from sheets_engine.art_of_war.model import Temper, World
from sheets_engine.art_of_war.rules import Order
from sheets_engine.core.dice import Dice


def choose(world: World, dice: Dice) -> Order:
    """The order of the house to move, by its temper."""
    temper = world.houses[world.to_move].temper
    if temper is Temper.RANDOM:
        return tempers.random_order(world, dice)
    if temper is Temper.HARD:
        return lookahead.choose(world, dice)
    assert temper is not None  # a person's house is never played by a bot
    return tempers.temper_order(world, temper)[0]
