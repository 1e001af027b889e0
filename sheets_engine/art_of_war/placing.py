"""Where a bot's pieces go once its attacks are planned: its capital's guard, then every other piece to the
hex its character likes best. Functions of the `plans.Planner` that is planning the march.

The capital is in danger when more enemy soldiers could stand beside it next turn than it takes to break
it (`capital_danger`): a soldier then takes the settler's place on it (a soldier there defends with 3, a
settler with 2) and pieces move into the open hexes around it, each one fewer place to strike from.
Every other soldier goes, nearest its goal first (the front opens room for those behind), to the hex it
likes best: nearer its goal, beside its own soldiers and the enemy's settlers, not where the enemy could
break it. A settler not ready to raise goes where it would be; the settler on the capital stays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sheets_engine.art_of_war.hexes import Hex, distance, neighbours
from sheets_engine.art_of_war.model import Kind, Piece
from sheets_engine.art_of_war.reach import defence, paths, threat_map, value_of
from sheets_engine.art_of_war.rules import CAPITAL_DEFENCE, Step, enemy_soldier_beside

if TYPE_CHECKING:
    from sheets_engine.art_of_war.plans import Planner


def capital_danger(planner: Planner) -> tuple[int, list[Hex]]:
    """How many more enemy soldiers could close on our capital than it takes to break it, and the open hexes
    beside it (each filled by one of ours is one fewer place to strike from)."""
    world, home = planner.world, planner.home
    if home is None:
        return 0, []
    holder = world.piece_at(home)
    guard = 0 if holder is None else defence(world, holder)
    free = [h for h in neighbours(home) if h in world.terrain and h not in world.at]
    enemies = [h for h in neighbours(home) if h in world.at and world.pieces[world.at[h]].house != planner.house]
    room = len(free) + len(enemies)
    strikers = planner.threats.get(home, 0)
    return min(strikers, room + 1) - guard, free


def guard_capital(planner: Planner) -> None:
    """Keep the capital held, and fill the hexes beside it while the enemy could gather there to break it
    (a cautious house keeps its guard beside it whatever the danger)."""
    world, home = planner.world, planner.home
    if home is None:
        return
    planner.threats = threat_map(world, planner.house)
    if world.piece_at(home) is None:
        for piece in sorted(planner.mine(), key=lambda p: (p.kind is not Kind.SOLDIER, p.id)):
            ways = [steps for steps, end, _ in paths(world, piece) if end == home]
            if ways:
                planner.carry(piece, min(ways, key=len))
                break
    danger, free = capital_danger(planner)
    if danger >= planner.character.alarm and soldier_home(planner):
        planner.plan.guarded = 1
        danger, free = capital_danger(planner)
    beside = sum(1 for h in neighbours(home) if (p := world.piece_at(h)) is not None and p.house == planner.house
                 and p.kind is Kind.SOLDIER)  # fmt: skip
    wanted = max(planner.character.guard - beside, 0)
    if danger >= planner.character.alarm:
        planner.plan.guarded = -1  # in danger, guarded by the pieces moved in below (counted as they move)
        holder = world.piece_at(home)
        guard = 0 if holder is None else defence(world, holder)
        wanted = max(wanted, len(free) - max(guard - 1, 0))
    for slot in sorted(free, key=lambda h: (-planner.threats.get(h, 0), h))[:wanted]:
        movers = []
        for piece in planner.mine():
            if piece.hex is None or piece.hex == home or distance(piece.hex, slot) > 2:
                continue
            if piece.kind is Kind.SETTLER and settler_score(planner, piece, piece.hex, piece.hex) >= 4:
                continue  # a settler ready to raise is worth more where it is
            for steps, end, _ in paths(world, piece):
                if end == slot:
                    movers.append((piece.kind is not Kind.SOLDIER, distance(piece.hex, home) <= 1, len(steps),
                                   piece.id, steps))  # fmt: skip
        if movers:
            *_, name, steps = min(movers, key=lambda m: m[:4])
            planner.carry(world.pieces[name], steps)
            if danger >= planner.character.alarm:
                planner.plan.guarded = max(planner.plan.guarded, 0) + 1


def soldier_home(planner: Planner) -> bool:
    """In danger, a settler holding the capital steps beside it and a soldier takes its place (a soldier
    there defends with 3, a settler with 2). True when the change was made."""
    world, home = planner.world, planner.home
    assert home is not None
    holder = world.piece_at(home)
    if holder is None or holder.kind is not Kind.SETTLER or holder.house != planner.house or holder.id in planner.moved:
        return False
    spaces = [h for h in neighbours(home) if h in world.terrain and h not in world.at and world.ground(h).cost <= 2]
    if not spaces:
        return False
    trial = world.copy()
    trial.at.pop(home)
    for soldier in sorted(planner.mine(Kind.SOLDIER), key=lambda s: (distance(s.hex or home, home), s.id)):
        if soldier.hex is None or distance(soldier.hex, home) > 2:
            continue
        ways = [steps for steps, end, _ in paths(trial, trial.pieces[soldier.id]) if end == home]
        for way in sorted(ways, key=len):
            needed = {s.to for s in way}
            space = next((h for h in spaces if h not in needed), None)
            if space is None:
                continue
            planner.carry(holder, (Step(space),))
            planner.carry(soldier, way)
            return True
    return False


# -- every other piece ------------------------------------------------------------------------
def goal_of(planner: Planner, soldier: Piece) -> Hex | None:
    """Where an idle soldier heads."""
    world = planner.world
    assert soldier.hex is not None
    rivals = [h for h, owner in world.capital_of.items() if owner != planner.house]
    if planner.character.goal == "capital" or not rivals:
        return min(rivals, key=lambda h: (distance(h, soldier.hex or h), h)) if rivals else None
    enemies = [p.hex for p in world.pieces.values() if p.hex is not None and p.house != planner.house]
    if planner.character.zone < 99:
        enemies = [h for h in enemies if planner.in_zone(h)] or ([planner.home] if planner.home else [])
    if not enemies:
        return None
    return min(enemies, key=lambda h: (distance(h, soldier.hex or h), h))


def exposure(planner: Planner, piece: Piece, where: Hex) -> float:
    """What leaving the piece on `where` risks: its worth when the enemy could break it there."""
    world = planner.world
    strikers = planner.threats.get(where, 0)
    if not strikers:
        return 0.0
    room = sum(
        1
        for h in neighbours(where)
        if h in world.terrain
        and (h not in world.at or world.pieces[world.at[h]].house != planner.house or world.at[h] == piece.id)
    )
    power = min(strikers, room)
    home = CAPITAL_DEFENCE if world.capital_of.get(where) == planner.house else 0
    guard = (1 if piece.kind is Kind.SOLDIER else 0) + world.ground(where).cover + home
    if power > guard:
        return float(value_of(piece))
    return value_of(piece) / 2 if power == guard else 0.0


def soldier_score(planner: Planner, soldier: Piece, where: Hex, goal: Hex | None) -> float:
    """How much the character likes its soldier ending its turn on `where`."""
    world, char = planner.world, planner.character
    score = -char.pull * distance(where, goal) if goal is not None else 0.0
    friends = 0
    blockade = 0
    for near in neighbours(where):
        other = world.at.get(near)
        if other is None or other == soldier.id:
            continue
        piece = world.pieces[other]
        if piece.house == planner.house:
            friends += piece.kind is Kind.SOLDIER
        elif piece.kind is Kind.SETTLER:
            blockade += 1
    score += char.cohesion * friends + 0.5 * blockade - char.caution * exposure(planner, soldier, where)
    if planner.home is not None and char.guard and distance(where, planner.home) == 1:
        score += 3.0
    return score


def settler_score(planner: Planner, settler: Piece, where: Hex, start: Hex) -> float:
    """How much the character likes its settler ending its turn on `where`: ready to raise, and safe."""
    world = planner.world
    ground = world.ground(where)
    ready = world.capital_of.get(where) == planner.house or ground.raises is not None
    open_room = any(h in world.terrain and (h not in world.at or h == start) and h != where
                    for h in neighbours(where))  # fmt: skip
    blockaded = enemy_soldier_beside(world, where, planner.house)
    score = 4.0 if ready and open_room and not blockaded else 0.0
    score -= 1.5 * planner.character.caution * exposure(planner, settler, where)
    return score + (0.05 if where == start else 0.0)  # a settler keeps its place unless it gains


def place_the_rest(planner: Planner) -> None:
    """Every piece not yet planned to its best hex: soldiers nearest their goal first (the front opens
    room for those behind), then settlers."""
    world = planner.world
    soldiers = planner.mine(Kind.SOLDIER)
    goals = {s.id: goal_of(planner, s) for s in soldiers}

    def gap(s: Piece) -> tuple[int, str]:
        goal = goals[s.id]
        return (distance(s.hex, goal) if goal is not None and s.hex is not None else 99, s.id)

    kept = 0
    for soldier in sorted(soldiers, key=gap):
        if soldier.hex is None:
            continue
        if planner.home is not None and kept < planner.character.guard and distance(soldier.hex, planner.home) <= 1:
            kept += 1
            planner.moved.add(soldier.id)
            continue
        goal = goals[soldier.id]
        options = paths(world, soldier)
        steps, end, _ = max(options, key=lambda o: (soldier_score(planner, soldier, o[1], goal), -len(o[0]), o[1]))
        if goal is not None and steps:
            planner.plan.advance += max(0, distance(soldier.hex, goal) - distance(end, goal))
        planner.carry(soldier, steps)
    for settler in planner.mine(Kind.SETTLER):
        if settler.hex is None or settler.hex == planner.home:
            continue  # the capital is never left empty
        start = settler.hex
        options = paths(world, settler)
        steps, _end, _ = max(options, key=lambda o: (settler_score(planner, settler, o[1], start), -len(o[0]), o[1]))
        planner.carry(settler, steps)
