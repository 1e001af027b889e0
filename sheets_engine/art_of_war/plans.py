"""A bot's march planned as one: the attacks first (with the pieces that must move in beside the target to
make them win), then a soldier into any rival capital left open, then every other piece to its best hex.

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
from sheets_engine.art_of_war.rules import (
    CAPITAL_DEFENCE,
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
    frontier = [((), piece.hex, 2)]
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
    def make(self) -> Plan:
        """Attacks, then open capitals, then every other piece: the plan."""
        while (package := self.best_attack()) is not None:
            self.attack(package)
        self.take_open_capitals()
        self.guard_capital()
        self.place_the_rest()
        return self.plan

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

    def capital_danger(self) -> tuple[int, list[Hex]]:
        """How many more enemy soldiers could close on our capital than it takes to break it, and the open hexes
        beside it (each filled by one of ours is one fewer place to strike from)."""
        world, home = self.world, self.home
        if home is None:
            return 0, []
        holder = world.piece_at(home)
        guard = 0 if holder is None else defence(world, holder)
        free = [h for h in neighbours(home) if h in world.terrain and h not in world.at]
        enemies = [h for h in neighbours(home) if h in world.at and world.pieces[world.at[h]].house != self.house]
        room = len(free) + len(enemies)
        strikers = self.threats.get(home, 0)
        return min(strikers, room + 1) - guard, free

    def guard_capital(self) -> None:
        """Keep the capital held, and fill the hexes beside it while the enemy could gather there to break it
        (a cautious house keeps its guard beside it whatever the danger)."""
        world, home = self.world, self.home
        if home is None:
            return
        self.threats = threat_map(world, self.house)
        if world.piece_at(home) is None:
            for piece in sorted(self.mine(), key=lambda p: (p.kind is not Kind.SOLDIER, p.id)):
                ways = [steps for steps, end, _ in paths(world, piece) if end == home]
                if ways:
                    self.carry(piece, min(ways, key=len))
                    break
        danger, free = self.capital_danger()
        if danger >= self.character.alarm and self.soldier_home():
            self.plan.guarded = 1
            danger, free = self.capital_danger()
        beside = sum(1 for h in neighbours(home) if (p := world.piece_at(h)) is not None and p.house == self.house
                     and p.kind is Kind.SOLDIER)  # fmt: skip
        wanted = max(self.character.guard - beside, 0)
        if danger >= self.character.alarm:
            self.plan.guarded = -1  # in danger, guarded by the pieces moved in below (counted as they move)
            holder = world.piece_at(home)
            guard = 0 if holder is None else defence(world, holder)
            wanted = max(wanted, len(free) - max(guard - 1, 0))
        for slot in sorted(free, key=lambda h: (-self.threats.get(h, 0), h))[:wanted]:
            movers = []
            for piece in self.mine():
                if piece.hex is None or piece.hex == home or distance(piece.hex, slot) > 2:
                    continue
                if piece.kind is Kind.SETTLER and self.settler_score(piece, piece.hex, piece.hex) >= 4:
                    continue  # a settler ready to raise is worth more where it is
                for steps, end, _ in paths(world, piece):
                    if end == slot:
                        movers.append((piece.kind is not Kind.SOLDIER, distance(piece.hex, home) <= 1, len(steps),
                                       piece.id, steps))  # fmt: skip
            if movers:
                *_, name, steps = min(movers, key=lambda m: m[:4])
                self.carry(world.pieces[name], steps)
                if danger >= self.character.alarm:
                    self.plan.guarded = max(self.plan.guarded, 0) + 1

    def soldier_home(self) -> bool:
        """In danger, a settler holding the capital steps beside it and a soldier takes its place (a soldier
        there defends with 3, a settler with 2). True when the change was made."""
        world, home = self.world, self.home
        assert home is not None
        holder = world.piece_at(home)
        if holder is None or holder.kind is not Kind.SETTLER or holder.house != self.house or holder.id in self.moved:
            return False
        spaces = [h for h in neighbours(home) if h in world.terrain and h not in world.at and world.ground(h).cost <= 2]
        if not spaces:
            return False
        trial = world.copy()
        trial.at.pop(home)
        for soldier in sorted(self.mine(Kind.SOLDIER), key=lambda s: (distance(s.hex or home, home), s.id)):
            if soldier.hex is None or distance(soldier.hex, home) > 2:
                continue
            ways = [steps for steps, end, _ in paths(trial, trial.pieces[soldier.id]) if end == home]
            for way in sorted(ways, key=len):
                needed = {s.to for s in way}
                space = next((h for h in spaces if h not in needed), None)
                if space is None:
                    continue
                self.carry(holder, (Step(space),))
                self.carry(soldier, way)
                return True
        return False

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

    # -- every other piece ------------------------------------------------------------------------
    def goal_of(self, soldier: Piece) -> Hex | None:
        """Where an idle soldier heads."""
        world = self.world
        assert soldier.hex is not None
        rivals = [h for h, owner in world.capital_of.items() if owner != self.house]
        if self.character.goal == "capital" or not rivals:
            return min(rivals, key=lambda h: (distance(h, soldier.hex or h), h)) if rivals else None
        enemies = [p.hex for p in world.pieces.values() if p.hex is not None and p.house != self.house]
        if self.character.zone < 99:
            enemies = [h for h in enemies if self.in_zone(h)] or ([self.home] if self.home else [])
        if not enemies:
            return None
        return min(enemies, key=lambda h: (distance(h, soldier.hex or h), h))

    def exposure(self, piece: Piece, where: Hex) -> float:
        """What leaving the piece on `where` risks: its worth when the enemy could break it there."""
        world = self.world
        strikers = self.threats.get(where, 0)
        if not strikers:
            return 0.0
        room = sum(
            1
            for h in neighbours(where)
            if h in world.terrain
            and (h not in world.at or world.pieces[world.at[h]].house != self.house or world.at[h] == piece.id)
        )
        power = min(strikers, room)
        home = CAPITAL_DEFENCE if world.capital_of.get(where) == self.house else 0
        guard = (1 if piece.kind is Kind.SOLDIER else 0) + world.ground(where).cover + home
        if power > guard:
            return float(value_of(piece))
        return value_of(piece) / 2 if power == guard else 0.0

    def soldier_score(self, soldier: Piece, where: Hex, goal: Hex | None) -> float:
        """How much the character likes its soldier ending its turn on `where`."""
        world, char = self.world, self.character
        score = -char.pull * distance(where, goal) if goal is not None else 0.0
        friends = 0
        blockade = 0
        for near in neighbours(where):
            other = world.at.get(near)
            if other is None or other == soldier.id:
                continue
            piece = world.pieces[other]
            if piece.house == self.house:
                friends += piece.kind is Kind.SOLDIER
            elif piece.kind is Kind.SETTLER:
                blockade += 1
        score += char.cohesion * friends + 0.5 * blockade - char.caution * self.exposure(soldier, where)
        if self.home is not None and char.guard and distance(where, self.home) == 1:
            score += 3.0
        return score

    def settler_score(self, settler: Piece, where: Hex, start: Hex) -> float:
        """How much the character likes its settler ending its turn on `where`: ready to raise, and safe."""
        world = self.world
        ground = world.ground(where)
        ready = world.capital_of.get(where) == self.house or ground.raises is not None
        open_room = any(h in world.terrain and (h not in world.at or h == start) and h != where
                        for h in neighbours(where))  # fmt: skip
        blockaded = enemy_soldier_beside(world, where, self.house)
        score = 4.0 if ready and open_room and not blockaded else 0.0
        score -= 1.5 * self.character.caution * self.exposure(settler, where)
        return score + (0.05 if where == start else 0.0)  # a settler keeps its place unless it gains

    def place_the_rest(self) -> None:
        """Every piece not yet planned to its best hex: soldiers nearest their goal first (the front opens
        room for those behind), then settlers."""
        world = self.world
        soldiers = self.mine(Kind.SOLDIER)
        goals = {s.id: self.goal_of(s) for s in soldiers}

        def gap(s: Piece) -> tuple[int, str]:
            goal = goals[s.id]
            return (distance(s.hex, goal) if goal is not None and s.hex is not None else 99, s.id)

        kept = 0
        for soldier in sorted(soldiers, key=gap):
            if soldier.hex is None:
                continue
            if self.home is not None and kept < self.character.guard and distance(soldier.hex, self.home) <= 1:
                kept += 1
                self.moved.add(soldier.id)
                continue
            goal = goals[soldier.id]
            options = paths(world, soldier)
            steps, end, _ = max(options, key=lambda o: (self.soldier_score(soldier, o[1], goal), -len(o[0]), o[1]))
            if goal is not None and steps:
                self.plan.advance += max(0, distance(soldier.hex, goal) - distance(end, goal))
            self.carry(soldier, steps)
        for settler in self.mine(Kind.SETTLER):
            if settler.hex is None or settler.hex == self.home:
                continue  # the capital is never left empty
            start = settler.hex
            options = paths(world, settler)
            steps, _end, _ = max(options, key=lambda o: (self.settler_score(settler, o[1], start), -len(o[0]), o[1]))
            self.carry(settler, steps)


def plan_march(world: World, house: str, character: Character) -> Plan:
    """The house's march, planned as one by its character."""
    return Planner(world, house, character).make()
