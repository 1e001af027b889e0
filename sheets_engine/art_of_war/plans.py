"""A bot's march planned as one: the attacks first (with the pieces that must move in beside the target to
make them win), then a soldier into any rival capital left open; `placing` then guards the capital and
moves every other piece to its best hex (`bots.plan_march` runs the three).

The pieces are planned together on a copy of the board, so no piece steps onto the hex another needs to
attack from: an attack is found with the pieces still where they stand, and carried out (supports first,
then the attacker) before any other piece moves. Every step is checked and carried out with the rules'
own functions (`rules.step_refusal`, `rules.take_step`), so a planned march is legal by construction.

A temper's `Character` says how it weighs things: where its soldiers head, whether it trades a company for
a company, how much it fears leaving a piece where the enemy can break it, how many soldiers it keeps
beside its capital, and how far from home it looks for a fight.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sheets_engine.art_of_war.hexes import Hex, distance, neighbours
from sheets_engine.art_of_war.model import Kind, Piece, World
from sheets_engine.art_of_war.reach import defence, paths, threat_map, value_of
from sheets_engine.art_of_war.rules import (
    SETTLER_POINTS,
    SOLDIER_POINTS,
    PieceMarch,
    Progress,
    Step,
    enemy_soldier_beside,
    step_refusal,
    strengths,
    take_step,
)

CAPITAL_VALUE = 200.0  # what taking a rival capital is worth to a plan (more than any number of pieces)


@dataclass(frozen=True)
class Character:
    """How a temper weighs a march."""

    goal: str  # where idle soldiers head: "capital" (the nearest rival capital), "front" (the nearest enemy piece)
    trade: bool = False  # strike a capital's guard at equal strength (both destroyed) when a soldier can walk in
    caution: float = 1.0  # how much a piece left where the enemy can break it costs
    guard: int = 0  # soldiers kept beside its own capital
    alarm: int = 1  # how near the enemy must be to breaking the capital before it is guarded (0: one soldier short)
    zone: int = 99  # fights only this near its capital or its settlers
    cohesion: float = 0.3  # how much a soldier likes standing beside its own soldiers
    pull: float = 1.0  # how strongly idle soldiers head for their goal


@dataclass
class Plan:
    """A march planned on a copy of the board: its entries, and what its attacks win."""

    entries: list[PieceMarch] = field(default_factory=list)
    gain: float = 0.0  # pieces won less pieces lost (mandate points), capitals at CAPITAL_VALUE
    wins: int = 0  # attacks that win
    captures: int = 0  # rival capitals taken
    advance: int = 0  # hexes its soldiers drew nearer their goal
    # pieces it moves in beside its capital while the enemy could gather there to break it (-1: in danger, and
    # nothing can move in)
    guarded: int = 0
    world: World | None = None  # the board after the march (the planner's copy)


@dataclass(frozen=True)
class _Package:
    """One attack as planned: the supports that move in first, then the attacker's steps."""

    value: float
    target: str
    attacker: str
    approach: tuple[Step, ...]
    supports: tuple[tuple[str, tuple[Step, ...]], ...]
    wins: bool
    capital: bool


class Planner:
    """Plans one house's march on its own copy of the board."""

    def __init__(self, world: World, house: str, character: Character) -> None:
        self.world = world.copy()
        self.house = house
        self.character = character
        self.moved: set[str] = set()
        self.plan = Plan(world=self.world)
        capital = world.houses[house].capital
        self.home = capital if capital is not None and world.capital_of.get(capital) == house else None
        self.threats = threat_map(self.world, house)

    # -- carrying out ------------------------------------------------------------------------------
    def carry(self, piece: Piece, steps: tuple[Step, ...]) -> bool:
        """Carry out the piece's steps on the copy with the rules' checks; True when every step was taken."""
        assert piece.hex is not None
        self.moved.add(piece.id)
        if not steps:
            return True
        start, progress = piece.hex, Progress()
        for step in steps:
            if piece.hex is None or step_refusal(self.world, piece, progress, step):
                break  # not expected (the planner follows the rules); what is carried out stays legal
            take_step(self.world, piece, progress, step)
        done = steps[: len(progress.path)]
        if done:
            self.plan.entries.append(PieceMarch(piece.id, start, tuple(done)))
        return len(done) == len(steps)

    def carry_more(self, piece: Piece, done: tuple[Step, ...], step: Step) -> None:
        """One more step for a piece whose first steps were carried out already (its entry grows by it)."""
        entry = next((e for e in self.plan.entries if e.piece == piece.id), None)
        progress = Progress(points=2 - sum(self.world.ground(s.to).cost for s in done))
        progress.halted = bool(done) and enemy_soldier_beside(self.world, done[-1].to, piece.house)
        if step_refusal(self.world, piece, progress, step):
            return
        start = piece.hex if entry is None else entry.start
        take_step(self.world, piece, progress, step)
        if entry is not None:
            self.plan.entries.remove(entry)
        self.plan.entries.append(PieceMarch(piece.id, start, (*done, step)))

    # -- the plan ----------------------------------------------------------------------------------
    def strike(self) -> None:
        """The attacks that are worth it, best first, then a soldier into any rival capital left open."""
        while (package := self.best_attack()) is not None:
            self.attack(package)
        self.take_open_capitals()

    def mine(self, kind: Kind | None = None) -> list[Piece]:
        """The house's pieces not yet planned (of a kind)."""
        return [
            p for p in self.world.pieces_of(self.house)
            if p.id not in self.moved and (kind is None or p.kind is kind)
        ]  # fmt: skip

    def in_zone(self, where: Hex) -> bool:
        """Near enough home for the character to fight there."""
        if self.character.zone >= 99:
            return True
        anchors = [p.hex for p in self.world.pieces_of(self.house) if p.kind is Kind.SETTLER and p.hex is not None]
        if self.home is not None:
            anchors.append(self.home)
        return any(distance(where, a) <= self.character.zone for a in anchors)

    def best_attack(self) -> _Package | None:
        """The attack worth most now, with the supports it needs, or None."""
        world, soldiers = self.world, self.mine(Kind.SOLDIER)
        if not soldiers:
            return None
        best: _Package | None = None
        for target in world.pieces.values():
            if target.hex is None or target.house == self.house:
                continue
            if not any(distance(s.hex, target.hex) <= 3 for s in soldiers if s.hex is not None):
                continue
            if not self.in_zone(target.hex):
                continue
            found = self.package(target, soldiers)
            if found is not None and (best is None or (found.value, found.target) > (best.value, best.target)):
                best = found
        return best

    def package(self, target: Piece, soldiers: list[Piece]) -> _Package | None:
        """The best way to attack one enemy piece: an attacker beside it (or one plain step from it) and,
        if needed, supports that move in beside it first."""
        world = self.world
        assert target.hex is not None
        guard = defence(world, target)
        around = [h for h in neighbours(target.hex) if h in world.terrain]
        beside = {world.at[h] for h in around if h in world.at}
        support_now = {
            p for p in beside if world.pieces[p].house == self.house and world.pieces[p].kind is Kind.SOLDIER
        }
        on_capital = world.capital_of.get(target.hex) == target.house
        best: _Package | None = None
        for attacker in soldiers:
            assert attacker.hex is not None
            if distance(attacker.hex, target.hex) > 2:
                continue
            approaches: list[tuple[tuple[Step, ...], Hex]] = []
            if attacker.hex in around:
                approaches.append(((), attacker.hex))
            else:
                for near in neighbours(attacker.hex):
                    if near in around and near not in world.at and world.ground(near).cost < 2:
                        approaches.append(((Step(near),), near))
            for approach, post in approaches:
                power = 1 + len(support_now - {attacker.id})
                supports: list[tuple[str, tuple[Step, ...]]] = []
                if power <= guard:
                    supports = self.recruit(target, around, post, attacker, guard + 1 - power)
                    if len(supports) < guard + 1 - power and self.character.trade:
                        supports = self.recruit(target, around, post, attacker, guard - power)
                    power += len(supports)
                value, wins, capital = self.worth(target, power, guard, on_capital, attacker, supports)
                if value <= 0:
                    continue
                value -= 0.1 * (len(supports) + len(approach))  # fewer pieces moved, all else equal
                found = _Package(value, target.id, attacker.id, approach, tuple(supports), wins, capital)
                if best is None or (found.value, found.attacker) > (best.value, best.attacker):
                    best = found
        return best

    def recruit(
        self, target: Piece, around: list[Hex], post: Hex, attacker: Piece, needed: int
    ) -> list[tuple[str, tuple[Step, ...]]]:
        """Up to `needed` soldiers not yet planned that can move in beside the target (each its own hex)."""
        if needed <= 0:
            return []
        world = self.world
        free = {h for h in around if h not in world.at and h != post}
        offers: list[tuple[int, str, list[tuple[Hex, tuple[Step, ...]]]]] = []
        for soldier in self.mine(Kind.SOLDIER):
            if soldier.id == attacker.id or soldier.hex is None or soldier.hex in around:
                continue
            if distance(soldier.hex, target.hex or soldier.hex) > 3:
                continue
            ways = [(end, steps) for steps, end, _ in paths(world, soldier) if end in free and post not in
                    [s.to for s in steps[:-1]]]  # fmt: skip
            if ways:
                offers.append((len(ways), soldier.id, ways))
        chosen: list[tuple[str, tuple[Step, ...]]] = []
        taken: set[Hex] = set()
        for _count, name, ways in sorted(offers):
            for end, steps in sorted(ways, key=lambda w: (len(w[1]), w[0])):
                if end not in taken and not any(s.to in taken for s in steps):
                    chosen.append((name, steps))
                    taken.add(end)
                    break
            if len(chosen) == needed:
                break
        return chosen if len(chosen) == needed else []

    def worth(
        self,
        target: Piece,
        power: int,
        guard: int,
        on_capital: bool,
        attacker: Piece,
        supports: list[tuple[str, tuple[Step, ...]]],
    ) -> tuple[float, bool, bool]:
        """(what the attack gains, it wins, it takes a capital) by the rules' arithmetic, without playing it."""
        if power > guard:
            if target.kind is Kind.SETTLER and power > 1:
                return 2.0 * SETTLER_POINTS, True, False  # it swears: one more for us, one fewer for them
            near_home = self.home is not None and target.kind is Kind.SOLDIER and distance(target.hex or self.home,
                                                                                           self.home) <= 2  # fmt: skip
            value = float(value_of(target)) + (CAPITAL_VALUE if on_capital else 0.0) + (5.0 if near_home else 0.0)
            return value, True, on_capital
        if power == guard and self.character.trade and on_capital and self.follower(target, attacker, supports):
            return value_of(target) - SOLDIER_POINTS + CAPITAL_VALUE, False, True  # both fall; a soldier walks in
        return 0.0, False, False

    def follower(self, target: Piece, attacker: Piece, supports: list[tuple[str, tuple[Step, ...]]]) -> bool:
        """A soldier not in the attack that could step onto the target's hex once it is empty."""
        busy = {attacker.id} | {name for name, _ in supports}
        assert target.hex is not None
        cost = self.world.ground(target.hex).cost
        for soldier in self.mine(Kind.SOLDIER):
            if soldier.id in busy or soldier.hex is None:
                continue
            gap = distance(soldier.hex, target.hex)
            if gap == 1 and cost <= 2:
                return True
            if gap == 2 and cost <= 1:
                for near in neighbours(soldier.hex):
                    if (
                        distance(near, target.hex) == 1
                        and self.world.ground(near).cost == 1
                        and (near not in self.world.at or near == attacker.hex)
                    ):
                        return True
        return False

    def attack(self, package: _Package) -> None:
        """Carry out an attack: supports first, then the attacker's approach and strike."""
        world = self.world
        for name, steps in package.supports:
            self.carry(world.pieces[name], steps)
        target = world.pieces[package.target]
        attacker = world.pieces[package.attacker]
        if not self.carry(attacker, package.approach) or attacker.hex is None:
            return
        if target.hex is None or target.house == self.house:
            return  # a support's step already settled it (a capital taken on the way)
        power, _, guard, _ = strengths(world, attacker, target)
        on_capital = world.capital_of.get(target.hex) == target.house
        if self.worth(target, power, guard, on_capital, attacker, [])[0] <= 0:
            return  # a support could not get in after all: the attacker holds where it is
        before = sum(1 for h in world.houses.values() if h.fallen)
        self.carry_more(attacker, package.approach, Step(target.hex, attack=True))
        self.plan.gain += package.value
        self.plan.wins += package.wins
        self.plan.captures += sum(1 for h in world.houses.values() if h.fallen) - before

    def take_open_capitals(self) -> None:
        """A soldier onto any rival capital it can reach (one of its own settlers stepping off first)."""
        world = self.world
        for capital, owner in sorted(world.capital_of.items()):
            if owner == self.house or capital not in world.capital_of:
                continue
            holder = world.piece_at(capital)
            if holder is not None and (holder.house != self.house or holder.kind is Kind.SOLDIER):
                continue
            if holder is not None and holder.id in self.moved:
                continue
            for soldier in self.mine(Kind.SOLDIER):
                if soldier.hex is None or distance(soldier.hex, capital) > 2:
                    continue
                trial = world.copy()
                if holder is not None:
                    away = [h for h in neighbours(capital) if h in trial.terrain and h not in trial.at]
                    if not away:
                        break
                    trial.at.pop(capital)
                ways = [steps for steps, end, _ in paths(trial, trial.pieces[soldier.id]) if end == capital]
                if not ways:
                    continue
                if holder is not None:
                    step_off = self.step_off(holder, capital, ways[0])
                    if step_off is None:
                        continue
                    self.carry(holder, step_off)
                before = world.houses[owner].fallen
                self.carry(soldier, min(ways, key=len))
                if world.houses[owner].fallen and not before:
                    self.plan.captures += 1
                    self.plan.gain += CAPITAL_VALUE
                break

    def step_off(self, settler: Piece, capital: Hex, way: tuple[Step, ...]) -> tuple[Step, ...] | None:
        """A step that takes our settler off a rival capital without standing in the soldier's way."""
        needed = {s.to for s in way}
        for steps, end, _ in paths(self.world, settler):
            if steps and end not in needed and not any(s.to in needed for s in steps):
                return steps
        return None
