"""What a house's board page shows (the `report` capability's content): the board, the pieces, where each
of the house's pieces can march and strike this turn with the arithmetic of each attack, the mandate
table, the last circuit's moves, and the order the house gives next.

Pure, over a validated campaign (a `View`); the reach comes from the bots' own reading of the board
(`reach.paths`) and the attack from the rules (`rules.strengths`), so the page says what the rules
would do on the board as it stands. The content is plain JSON (`report --json` writes it beside each
page); `boardpage.py` lays it out. Nothing is hidden in The Art of War: every house sees the whole
board, but a house's page marks only its own pieces' reach, and the GMs' page every standing house's.
"""

from __future__ import annotations

from typing import Any

from sheets_engine.art_of_war.hexes import Hex, hex_text, neighbours
from sheets_engine.art_of_war.hexmap import board_scene, house_colours
from sheets_engine.art_of_war.model import Kind, Piece, Status, World
from sheets_engine.art_of_war.reach import paths
from sheets_engine.art_of_war.rules import MOVEMENT_POINTS, mandate, next_season_of, strengths
from sheets_engine.art_of_war.sheet import read_world
from sheets_engine.core.capabilities import View

GMS = "GMs"


def readers(view: View) -> list[str]:
    """Every house, in seat order (the GMs' page is the service's own)."""
    world, _ = read_world(view.state)
    return list(world.houses)


def outcome_words(world: World, piece: Piece, target: Piece, power: int, guard: int) -> str:
    """What the attack would do, in the rules' words (rules.attack decides it the same way)."""
    assert target.hex is not None
    at = hex_text(target.hex)
    if power > guard and target.kind is Kind.SETTLER and power > 1:
        return f"{target.id} surrenders and swears to {piece.house}; {piece.id} stays where it stands"
    if power > guard:
        broken = "is put to the sword" if target.kind is Kind.SETTLER else "breaks"
        capital = world.capital_of.get(target.hex)
        falls = f", and {capital} falls" if capital and capital != piece.house and piece.kind is Kind.SOLDIER else ""
        return f"{target.id} {broken} and {piece.id} advances into {at}{falls}"
    if power == guard:
        return f"both {piece.id} and {target.id} are destroyed (equal strength)"
    return f"{piece.id} is thrown back and lost"


def reach_of(world: World, piece: Piece) -> dict[str, Any]:
    """Where the piece can march this turn (each end with the fewest steps to it) and what it can strike
    (each enemy piece touching a hex it can stand on with a movement point left), with the Moves entry of
    each and, for a strike, the attack's arithmetic."""
    assert piece.hex is not None
    start = hex_text(piece.hex)
    marches: dict[Hex, tuple[int, int, str]] = {}  # end -> (steps, -points left, moves)
    strikes: dict[Hex, tuple[int, int, str]] = {}
    for steps, end, left in paths(world, piece):
        walked = f"{piece.id}: {start}" + "".join(f" {step}" for step in steps)
        rank = (len(steps), -left, walked)
        if end != piece.hex and (end not in marches or rank < marches[end]):
            marches[end] = rank
        if piece.kind is not Kind.SOLDIER or left < 1:
            continue  # settlers never attack; an attack needs a movement point left
        for near in neighbours(end):
            target = world.piece_at(near)
            if target is None or target.house == piece.house:
                continue
            struck = (len(steps), -left, f"{walked} x {hex_text(near)}")
            if near not in strikes or struck < strikes[near]:
                strikes[near] = struck
    strike_rows = []
    for where, (_, _, moves) in sorted(strikes.items()):
        target = world.piece_at(where)
        assert target is not None
        power, power_words, guard, guard_words = strengths(world, piece, target)
        strike_rows.append({
            "hex": hex_text(where), "moves": moves, "target": f"{target.house}'s {target.kind} {target.id}",
            "attack": power, "attack sum": power_words, "defence": guard, "defence sum": guard_words,
            "outcome": outcome_words(world, piece, target, power, guard),
        })  # fmt: skip
    return {
        "piece": piece.id,
        "house": piece.house,
        "kind": piece.kind.value,
        "hex": start,
        "march": [{"hex": hex_text(h), "moves": m, "points left": -p} for h, (_, p, m) in sorted(marches.items())],
        "strike": strike_rows,
    }


def arithmetic(strike: dict[str, Any], piece: str) -> str:
    """An attack's sums as a player reads them on the board."""
    return (
        f"{piece} attacks {strike['target']} at {strike['hex']}: attack {strike['attack']} ({strike['attack sum']}) "
        f"against defence {strike['defence']} ({strike['defence sum']}): {strike['outcome']}"
    )


def last_circuit(view: View, world: World) -> list[dict[str, Any]]:
    """The last circuit's orders as the Notifications told them (one a standing house, the latest last)."""
    told = [r for r in view.rows("Notifications") if str(r.get("Channel") or "").strip() == "orders"]
    circuit = told[-len(world.standing()) :] if world.standing() else []
    return [{"Season": r.get("Turn"), "What happened": str(r.get("Message") or "")} for r in circuit]


def content(view: View, reader: str | None, turn: int | None = None) -> dict[str, Any]:
    """What a house's page (None: the GMs') shows, as plain JSON: the board as it stands (`turn` is not
    used: the board page is always the board of now)."""
    state = view.state
    world, _ = read_world(state)
    over = world.status is Status.OVER
    grounds = world.grounds
    board = []
    for h, g in world.terrain.items():
        ground = grounds[g]
        raises = ground.raises.value if ground.raises is not None else "nothing"
        board.append({"hex": hex_text(h), "q": h[0], "r": h[1], "ground": g, "cost": ground.cost,
                      "cover": ground.cover, "raises": raises, "capital": world.capital_of.get(h, "")})  # fmt: skip
    pieces = [
        {"piece": p.id, "house": p.house, "kind": p.kind.value, "hex": hex_text(p.hex)}
        for p in world.pieces.values()
        if p.hex is not None
    ]
    marked = [
        p
        for p in world.pieces.values()
        if p.hex is not None and not world.houses[p.house].fallen and (reader is None or p.house == reader)
    ]
    houses = []
    for house in world.houses.values():
        own = world.pieces_of(house.name)
        plays = "a person" if house.person else f"bot ({house.temper.value if house.temper else ''})"
        if reader is None and house.person:
            plays = house.player or "a person (no Player yet)"
        houses.append({
            "House": house.name, "Played by": plays, "Mandate": mandate(world, house.name) if not house.fallen else 0,
            "Capitals Taken": house.taken, "Settlers": sum(1 for p in own if p.kind is Kind.SETTLER),
            "Soldiers": sum(1 for p in own if p.kind is Kind.SOLDIER), "Fallen": "fallen" if house.fallen else "",
        })  # fmt: skip
    scene = board_scene(state)
    moved = [
        {"house": p.house, "hexes": [hex_text(h) for h in p.hexes], "attacked": hex_text(p.attacked)}
        for p in scene.paths
    ]
    # the order builder: the house's own next order; on the GMs' page, the house to move's (selecting another
    # house's piece switches the builder to that house), for a GM who types a person's order in
    orderer = reader if reader is not None else world.to_move
    order: dict[str, Any] | None = None
    if not over and orderer in world.houses and not world.houses[orderer].fallen:
        order = {"season": next_season_of(world, orderer), "house": orderer,
                 "capital raises": world.houses[orderer].raises.value}  # fmt: skip
    seasons = {name: next_season_of(world, name) for name in world.standing()} if not over else {}
    return {
        "title": str(state.game("campaign") or "The Art of War"),
        "reader": reader or GMS,
        "who": f"the house of {reader}" if reader else "the GMs (every house's reach)",
        "season": world.season,
        "to move": "" if over else world.to_move,
        "status": world.status.value,
        "winner": world.winner,
        "movement points": MOVEMENT_POINTS,
        "colours": house_colours(list(world.houses)),
        "board": board,
        "pieces": pieces,
        "reach": {p.id: reach_of(world, p) for p in marked},
        "houses": houses,
        "moved": moved,
        "last circuit": last_circuit(view, world),
        "order": order,
        "next seasons": seasons,  # each standing house's next order is for this season
    }
