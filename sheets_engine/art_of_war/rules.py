"""The rules of The Art of War as pure functions over a World: one order a turn, raise levies or march.

Each function changes the world it is given and returns the `Event`s that say what happened, in a
player's words; the sheet layer turns them into cells and History rows, the tournament ignores them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sheets_engine.art_of_war.hexes import Hex, adjacent, distance, hex_text, neighbours
from sheets_engine.art_of_war.model import Event, Kind, OrderKind, Piece, Status, World
from sheets_engine.core.names import plural

MOVEMENT_POINTS = 2  # every piece, every march
CAPITAL_DEFENCE = 2  # a piece standing on its own capital
TAKEN_CAPITAL, SETTLER_POINTS, SOLDIER_POINTS, READY_POINTS = 10, 4, 3, 2  # the mandate


@dataclass(frozen=True)
class Step:
    """One step of a piece's march: enter a hex (`>`), or attack it (`x`)."""

    to: Hex
    attack: bool = False

    def __str__(self) -> str:
        return ("x " if self.attack else "> ") + hex_text(self.to)


@dataclass(frozen=True)
class PieceMarch:
    """One piece's part of a march order: where it stands, then its steps (`error`: the entry could not be read)."""

    piece: str
    start: Hex | None
    steps: tuple[Step, ...] = ()
    error: str = ""

    def text(self) -> str:
        """The entry in the Moves column's words: `P7: 3,4 > 4,4 x 5,4`."""
        return f"{self.piece}: {hex_text(self.start)}" + "".join(f" {s}" for s in self.steps)


@dataclass(frozen=True)
class Order:
    """A house's one order of a turn."""

    kind: OrderKind
    marches: tuple[PieceMarch, ...] = ()
    capital_raises: Kind | None = None  # set the switch (for this turn and later ones)


@dataclass
class Progress:
    """Where a marching piece stands in its turn."""

    points: int = MOVEMENT_POINTS
    halted: bool = False
    done: bool = False  # it attacked (or a step was refused): its turn is over
    path: list[str] = field(default_factory=list)  # the steps carried out, in the Moves words


# -- what the board says -------------------------------------------------------------------------
def enemy_soldier_beside(world: World, where: Hex, house: str) -> bool:
    """True when a soldier of another house touches the hex."""
    for near in neighbours(where):
        other = world.at.get(near)
        if other is not None:
            piece = world.pieces[other]
            if piece.house != house and piece.kind is Kind.SOLDIER:
                return True
    return False


def open_hexes(world: World, where: Hex) -> list[Hex]:
    """The hexes beside this one that are on the board and empty, in the fixed direction order."""
    return [h for h in neighbours(where) if h in world.terrain and h not in world.at]


def raised_kind(world: World, piece: Piece) -> Kind | None:
    """What this settler's ground raises: its own capital's switch, else the terrain's (forest: nothing)."""
    assert piece.hex is not None
    if world.capital_of.get(piece.hex) == piece.house:
        return world.houses[piece.house].raises
    return world.ground(piece.hex).raises


def readiness(world: World, piece: Piece) -> tuple[Kind | None, str]:
    """What the settler would raise now, or None and why not."""
    assert piece.hex is not None
    kind = raised_kind(world, piece)
    if kind is None:
        return None, f"{piece.id} at {hex_text(piece.hex)} raises nothing: {world.terrain[piece.hex]} is not productive"
    if enemy_soldier_beside(world, piece.hex, piece.house):
        return (
            None,
            f"{piece.id} at {hex_text(piece.hex)} is blockaded by an enemy soldier beside it and raises nothing",
        )
    if not open_hexes(world, piece.hex):
        return None, f"{piece.id} at {hex_text(piece.hex)} has no open hex beside it and raises nothing"
    return kind, ""


def ready_settlers(world: World, house: str) -> list[Piece]:
    """The house's settlements ready to raise this turn."""
    return [p for p in world.pieces_of(house) if p.kind is Kind.SETTLER and readiness(world, p)[0] is not None]


def placement(world: World, piece: Piece) -> Hex | None:
    """The open hex beside the settler nearest a rival capital (ties: the first in direction order)."""
    assert piece.hex is not None
    rivals = [h for h, owner in world.capital_of.items() if owner != piece.house]
    spaces = open_hexes(world, piece.hex)
    if not spaces:
        return None
    if not rivals:
        return spaces[0]
    return min(spaces, key=lambda h: min(distance(h, c) for c in rivals))  # min keeps the first of equals


def mandate(world: World, house: str) -> int:
    """10 per rival capital taken, 4 per settler, 3 per soldier, 2 per settlement ready to raise."""
    pieces = world.pieces_of(house)
    settlers = sum(1 for p in pieces if p.kind is Kind.SETTLER)
    soldiers = len(pieces) - settlers
    ready = len(ready_settlers(world, house)) if not world.houses[house].fallen else 0
    return (
        TAKEN_CAPITAL * world.houses[house].taken
        + SETTLER_POINTS * settlers
        + SOLDIER_POINTS * soldiers
        + (READY_POINTS * ready)
    )


# -- changing the board --------------------------------------------------------------------------
def _place(world: World, piece: Piece, to: Hex | None) -> None:
    if piece.hex is not None and world.at.get(piece.hex) == piece.id:
        del world.at[piece.hex]
    piece.hex = to
    if to is not None:
        world.at[to] = piece.id


def _remove(world: World, piece: Piece, why: str) -> Event:
    at = piece.hex
    _place(world, piece, None)
    return Event(
        "broken", f"{piece.id} ({piece.house}'s {piece.kind}) at {hex_text(at)} {why}", piece.id, piece.house, at
    )


def _enter(world: World, piece: Piece, to: Hex, how: str) -> list[Event]:
    """The piece stands on `to`; a soldier on a rival capital makes that house fall at once."""
    start = piece.hex
    _place(world, piece, to)
    events = [Event("moved", f"{piece.id} {how} {hex_text(start)} > {hex_text(to)}", piece.id, piece.house, to)]
    owner = world.capital_of.get(to)
    if piece.kind is Kind.SOLDIER and owner is not None and owner != piece.house:
        events += fall(world, owner, piece.house)
    return events


def fall(world: World, house: str, taker: str) -> list[Event]:
    """A soldier of `taker` stands on `house`'s capital: its soldiers are removed, its settlers swear to the
    taker, its capital becomes ordinary ground."""
    fallen = world.houses[house]
    fallen.fallen = True
    world.houses[taker].taken += 1
    capital = next((h for h, owner in world.capital_of.items() if owner == house), None)
    if capital is not None:
        del world.capital_of[capital]
    events = [Event("fell", f"{house} falls: {taker} holds its capital {hex_text(capital)}", "", house, capital, taker)]
    for piece in world.pieces_of(house):
        if piece.kind is Kind.SOLDIER:
            events.append(_remove(world, piece, f"is removed: {house} fell"))
        else:
            piece.house = taker
            events.append(Event("sworn", f"{piece.id} at {hex_text(piece.hex)} swears to {taker}", piece.id, house,
                                piece.hex, taker))  # fmt: skip
    return events


def raise_levies(world: World, house: str) -> list[Event]:
    """Every settler of the house on productive ground, not blockaded, with an open hex beside it, puts one
    piece at once on the open hex beside it nearest a rival capital (settlers in piece order)."""
    events = []
    for settler in [p for p in world.pieces_of(house) if p.kind is Kind.SETTLER]:
        kind, why = readiness(world, settler)
        if kind is None:
            events.append(Event("refused", why, settler.id, house, settler.hex))
            continue
        to = placement(world, settler)
        assert to is not None  # readiness saw an open hex and nothing was placed since it looked
        new = Piece(world.next_id(), house, kind, None)
        world.pieces[new.id] = new
        _place(world, new, to)
        text = f"{settler.id} at {hex_text(settler.hex)} raises {kind} {new.id} at {hex_text(to)}"
        events.append(Event("raised", text, new.id, house, to, kind.value))
        owner = world.capital_of.get(to)
        if kind is Kind.SOLDIER and owner is not None and owner != house:  # a soldier put on a rival capital
            events += fall(world, owner, house)
    return events


def step_refusal(world: World, piece: Piece, progress: Progress, step: Step) -> str:
    """Why this step is not allowed now ("" when it is)."""
    at, to, name = piece.hex, step.to, piece.id
    assert at is not None
    if progress.done:
        return f"{name}'s turn is over"
    if step.attack:
        if piece.kind is Kind.SETTLER:
            return f"{name} cannot attack {hex_text(to)}: settlers never attack"
        if not adjacent(at, to):
            return f"{name} cannot attack {hex_text(to)}: it does not touch {hex_text(at)}"
        target = world.piece_at(to)
        if target is None or target.house == piece.house:
            return f"{name} cannot attack {hex_text(to)}: no enemy piece stands there"
        if progress.points < 1:
            return f"{name} cannot attack {hex_text(to)}: an attack needs a movement point left and it has 0"
        return ""
    if progress.halted:
        return f"{name} cannot enter {hex_text(to)}: it halted at {hex_text(at)} beside an enemy soldier"
    if to not in world.terrain:
        return f"{name} cannot enter {hex_text(to)}: it is not on the board"
    if not adjacent(at, to):
        return f"{name} cannot enter {hex_text(to)}: it does not touch {hex_text(at)}"
    there = world.piece_at(to)
    if there is not None and there.house == piece.house:
        return f"{name} cannot enter {hex_text(to)}: {there.id} of its own house stands there"
    if there is not None:
        held = f"{there.house}'s {there.kind} {there.id}"
        return f"{name} cannot enter {hex_text(to)}: {held} stands there (attack it with x)"
    ground = world.ground(to)
    if ground.cost > progress.points:
        return (
            f"{name} cannot enter {hex_text(to)}: {ground.name} costs {ground.cost} and it has {progress.points} left"
        )
    return ""


def take_step(world: World, piece: Piece, progress: Progress, step: Step) -> list[Event]:
    """Carry out a step `step_refusal` allowed."""
    start = piece.hex
    assert start is not None
    progress.path.append(str(step))
    if step.attack:
        progress.done = True  # an attack ends the attacking piece's turn
        return attack(world, piece, step.to)
    progress.points -= world.ground(step.to).cost
    events = _enter(world, piece, step.to, "marches")
    if piece.hex == step.to and enemy_soldier_beside(world, step.to, piece.house):
        progress.halted = True
        events.append(Event("halted", f"{piece.id} halts at {hex_text(step.to)} beside an enemy soldier", piece.id,
                            piece.house, step.to))  # fmt: skip
    return events


def strengths(world: World, piece: Piece, target: Piece) -> tuple[int, str, int, str]:
    """(attack, its sum in words, defence, its sum in words)."""
    assert target.hex is not None
    support = sum(
        1
        for near in neighbours(target.hex)
        if (other := world.piece_at(near)) is not None
        and other.id != piece.id
        and other.house == piece.house
        and other.kind is Kind.SOLDIER
    )
    ground = world.ground(target.hex)
    base = 1 if target.kind is Kind.SOLDIER else 0
    home = CAPITAL_DEFENCE if world.capital_of.get(target.hex) == target.house else 0
    defence = base + ground.cover + home
    attack_words = "1" + (f" + {plural(support, 'soldier')} touching" if support else "")
    defence_words = f"{target.kind} {base}, {ground.name} cover {ground.cover}" + (", own capital 2" if home else "")
    return 1 + support, attack_words, defence, defence_words


def attack(world: World, piece: Piece, to: Hex) -> list[Event]:
    """Combat, no dice: higher breaks the defender and advances (a settlement overrun by a lone company is
    put to the sword; with a soldier in support it swears to the attacker, who stays); equal destroys both;
    lower loses the attacker."""
    target = world.piece_at(to)
    assert target is not None and piece.hex is not None
    power, power_words, guard, guard_words = strengths(world, piece, target)
    sums = f"attack {power} ({power_words}) against defence {guard} ({guard_words})"
    head = f"{piece.id} attacks {target.house}'s {target.kind} {target.id} at {hex_text(to)}: {sums}"
    events = [Event("combat", head, piece.id, piece.house, to)]
    if power > guard and target.kind is Kind.SETTLER and power > 1:
        events.append(Event("sworn", f"{target.id} at {hex_text(to)} surrenders and swears to {piece.house}",
                            target.id, target.house, to, piece.house))  # fmt: skip
        target.house = piece.house
    elif power > guard:
        why = "is put to the sword" if target.kind is Kind.SETTLER else "breaks"
        events.append(_remove(world, target, why))
        events += _enter(world, piece, to, "advances")
    elif power == guard:
        events.append(_remove(world, target, "is destroyed (equal strength)"))
        events.append(_remove(world, piece, "is destroyed (equal strength)"))
    else:
        events.append(_remove(world, piece, "is thrown back and lost"))
    return events


def march(world: World, house: str, marches: tuple[PieceMarch, ...]) -> tuple[list[Event], list[str]]:
    """Each piece's steps in the order given; a refused step ends that piece's march and the rest of the
    order goes on. Returns the events and the steps carried out (in the Moves words)."""
    events: list[Event] = []
    carried: list[str] = []
    seen: set[str] = set()
    moved: set[str] = set()  # the pieces that took a step (a piece whose entry was refused has not marched)
    named = {p.casefold(): p for p in world.pieces}  # "p7" is P7, as a House is named in any case
    for entry in marches:
        name = named.get(entry.piece.casefold(), entry.piece)
        piece = world.pieces.get(name)
        refusal = entry.error
        if not refusal:
            if piece is None:
                refusal = f"there is no piece {name}"
            elif piece.house != house:
                refusal = f"{name} is {piece.house}'s, not {house}'s"
            elif piece.hex is None:
                refusal = f"{name} is no longer on the board"
            elif name in moved:
                refusal = f"{name} has marched already this turn"
            elif name in seen:
                refusal = f"{name} is named twice in this march: only its first entry is tried"
            elif entry.start is not None and entry.start != piece.hex:
                refusal = f"{name} stands at {hex_text(piece.hex)}, not {hex_text(entry.start)}"
        seen.add(name)
        if refusal:
            events.append(Event("refused", refusal, name, house))
            continue
        assert piece is not None and piece.hex is not None
        progress = Progress()
        start = piece.hex
        for number, step in enumerate(entry.steps):
            if piece.hex is None:  # destroyed in its own attack
                break
            refusal = step_refusal(world, piece, progress, step)
            if refusal:
                rest = len(entry.steps) - number - 1
                tail = (
                    f" (the {plural(rest, 'step')} after it {'was' if rest == 1 else 'were'} not tried)" if rest else ""
                )
                events.append(Event("refused", refusal + tail, piece.id, house, step.to))
                break
            events += take_step(world, piece, progress, step)
        if progress.path:
            moved.add(piece.id)
            carried.append(f"{piece.id}: {hex_text(start)} " + " ".join(progress.path))
    return events, carried


# -- the turn ------------------------------------------------------------------------------------
def play_turn(world: World, order: Order) -> tuple[list[Event], list[str]]:
    """The house to move carries out its one order; then houses with no pieces are out, the end is checked
    and the turn passes. Returns the events and the march steps carried out."""
    house = world.to_move
    events: list[Event] = []
    carried: list[str] = []
    if order.capital_raises is not None and order.capital_raises != world.houses[house].raises:
        world.houses[house].raises = order.capital_raises
        events.append(Event("switch", f"{house}'s capital now raises {order.capital_raises}", "", house))
    if order.kind is OrderKind.RAISE:
        events += raise_levies(world, house)
    else:
        found, carried = march(world, house, order.marches)
        events += found
    events += outs(world)
    events += conquest(world)
    if world.status is Status.PLAYING:
        events += advance(world)
    return events, carried


def outs(world: World) -> list[Event]:
    """A standing house with no pieces on the board is out (its capital becomes ordinary ground)."""
    events = []
    for house in world.houses.values():
        if not house.fallen and not world.pieces_of(house.name):
            house.fallen = True
            for h in [h for h, owner in world.capital_of.items() if owner == house.name]:
                del world.capital_of[h]
            events.append(Event("out", f"{house.name} is out: it has no pieces left on the board", "", house.name))
    return events


def conquest(world: World) -> list[Event]:
    """One house left standing holds every capital: it rules the empire and the campaign is over."""
    standing = world.standing()
    if len(standing) > 1 or world.status is Status.OVER:
        return []
    world.status = Status.OVER
    if not standing:  # the last two companies destroyed each other
        return [Event("over", "every house has fallen: the campaign ends with no winner")]
    world.winner = standing[0]
    return [Event("over", f"{world.winner} rules the empire: every other house has fallen", "", world.winner)]


def advance(world: World) -> list[Event]:
    """The turn passes to the next standing house in seat order; passing the opening seat closes the season,
    and the close of the last season ends the campaign on the mandate."""
    seats = list(world.houses)
    here, opening = seats.index(world.to_move), seats.index(world.first)
    events = []
    for k in range(1, len(seats) + 1):
        seat = (here + k) % len(seats)
        if seat == opening:
            events += close_season(world)
            if world.status is Status.OVER:
                return events
        if not world.houses[seats[seat]].fallen:
            world.to_move = seats[seat]
            return events
    return events


def next_season_of(world: World, house: str) -> int:
    """The season of the house's next turn: this one while its seat is still to come this circuit, else the next."""
    seats = list(world.houses)
    opening = seats.index(world.first)

    def place(name: str) -> int:
        return (seats.index(name) - opening) % len(seats)

    return world.season if place(house) >= place(world.to_move) else world.season + 1


def close_season(world: World) -> list[Event]:
    """A circuit is done: the season counter moves on, or after the last season the highest mandate wins."""
    if world.season < world.max_seasons:
        world.season += 1
        return [Event("season", f"season {world.season} begins")]
    scores = {house: mandate(world, house) for house in world.standing()}
    best = max(scores.values())
    world.status = Status.OVER
    world.winner = " + ".join(h for h, s in scores.items() if s == best)
    table = ", ".join(f"{h} {s}" for h, s in scores.items())
    return [Event("over", f"season {world.season} closes: the mandate goes to {world.winner} ({table})")]
