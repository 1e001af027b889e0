"""Between the sheet and the World: read a validated state into one, and write what a turn changed.

Every cell a turn changes goes through the Draft with the event that changed it as its cause, so
History records every piece moved, raised, broken or sworn, and why.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from sheets_engine.art_of_war.hexes import Hex, hex_text, parse_hex
from sheets_engine.art_of_war.model import (
    PLAYED_TEMPERS,
    Event,
    Ground,
    House,
    Kind,
    Piece,
    Status,
    Temper,
    World,
    ground_row,
)
from sheets_engine.art_of_war.rules import mandate
from sheets_engine.core.lifecycle import RunLedger
from sheets_engine.core.tables import Draft, GameState


@dataclass(frozen=True)
class Keys:
    """The sheet's own spelling of each hex's Board key (a GM may have typed "3, 4")."""

    board: dict[Hex, Hashable]


def grounds_of(state: GameState) -> dict[str, Ground]:
    """The Terrain tab as the rules read it, by terrain name (any case)."""
    return {
        str(name).casefold(): ground_row(name, row["Cost"], row["Cover"], row["Raises"])
        for name, row in state.frame("Terrain").iterrows()
    }


def whole(value: Any, default: int) -> int:
    """A Game value as a whole number (validation has reported one that is not)."""
    try:
        return int(str(value).strip())
    except ValueError:
        return default


def temper_of(cell: Any) -> Temper | None:
    """A Houses Temper cell: a bot's temper, or None (empty: a person plays the house)."""
    word = str(cell).strip().casefold()
    return Temper(word) if word in {t.value for t in PLAYED_TEMPERS} else None


def read_world(state: GameState) -> tuple[World, Keys]:
    """The world of a validated campaign."""
    grounds = grounds_of(state)
    terrain: dict[Hex, str] = {}
    capital_of: dict[Hex, str] = {}
    board_keys: dict[Hex, Hashable] = {}
    for key, row in state.frame("Board").iterrows():
        where = parse_hex(key)
        if where is None:
            continue
        board_keys[where] = key
        terrain[where] = grounds[str(row["Terrain"]).casefold()].name.casefold()
        if row["Capital Of"]:
            capital_of[where] = str(row["Capital Of"])
    grounds = {g.name.casefold(): g for g in grounds.values()}
    houses: dict[str, House] = {}
    for name, row in state.frame("Houses").iterrows():
        houses[str(name)] = House(
            str(name), str(row["Player"]), temper_of(row["Temper"]), parse_hex(row["Capital"]),
            Kind(row["Capital Raises"]), bool(row["Fallen"]), int(row["Capitals Taken"]),
        )  # fmt: skip
    pieces: dict[str, Piece] = {}
    for name, row in state.frame("Pieces").iterrows():
        pieces[str(name)] = Piece(str(name), str(row["House"]), Kind(row["Kind"]), parse_hex(row["Hex"]))
    first = str(state.game("first_house"))
    world = World(
        grounds, terrain, capital_of, houses, pieces, first, str(state.game("to_move")) or first,
        whole(state.game("season"), 1), whole(state.game("max_seasons"), 60),
        Status(str(state.game("status") or "playing").strip().casefold()), str(state.game("winner")),
    )  # fmt: skip
    return world, Keys(board_keys)


def world_tabs(world: World, tabs: dict[str, list[list[Any]]], seed: str) -> dict[str, list[list[Any]]]:
    """A new campaign's tabs: the templates with the world's Game values, Houses, Board and Pieces."""
    laid = {name: [list(row) for row in rows] for name, rows in tabs.items()}
    values = {
        "seed": seed, "season": world.season, "last_resolved_season": 0, "to_move": world.to_move,
        "first_house": world.first, "max_seasons": world.max_seasons, "status": world.status.value, "winner": "",
    }  # fmt: skip
    for row in laid["Game"][1:]:
        if row[0] in values:  # numbers stay numbers: the season is a number in the sheet, not text
            row[1] = values[row[0]] if values[row[0]] != "" else None
    houses = []
    for h in world.houses.values():
        score = mandate(world, h.name)  # shown from the first season
        temper = h.temper.value if h.temper is not None and not h.person else None
        houses.append([h.name, h.player or None, temper, hex_text(h.capital), h.raises.value, False, score, 0])
    laid["Houses"][1:] = houses
    laid["Board"][1:] = [[hex_text(h), t, world.capital_of.get(h)] for h, t in world.terrain.items()]
    laid["Pieces"][1:] = [[p.id, p.house, p.kind.value, hex_text(p.hex)] for p in world.pieces.values()]
    return laid


def record(draft: Draft, keys: Keys, before: World, after: World, events: list[Event], cause: str) -> None:
    """Write what one house's turn changed, each cell with the events behind it as its cause."""
    said: dict[str, list[str]] = {}
    for event in events:
        for name in {event.piece, event.house, event.other} - {""}:
            said.setdefault(name, []).append(event.text)

    def why(name: str) -> str:
        return f"{cause}: " + "; ".join(said[name]) if name in said else cause

    for piece in after.pieces.values():
        old = before.pieces.get(piece.id)
        if old is None:
            row = {"Piece": piece.id, "House": piece.house, "Kind": piece.kind.value, "Hex": hex_text(piece.hex)}
            draft.add_row("Pieces", row, why(piece.id))
            continue
        if old.hex != piece.hex:
            draft.set("Pieces", piece.id, "Hex", hex_text(piece.hex), why(piece.id))
        if old.house != piece.house:
            draft.set("Pieces", piece.id, "House", piece.house, why(piece.id))
    for house in after.houses.values():
        old_house = before.houses[house.name]
        if old_house.raises != house.raises:
            draft.set("Houses", house.name, "Capital Raises", house.raises.value, why(house.name))
        if old_house.fallen != house.fallen:
            draft.set("Houses", house.name, "Fallen", house.fallen, why(house.name))
        if old_house.taken != house.taken:
            draft.set("Houses", house.name, "Capitals Taken", house.taken, why(house.name))
    for where, owner in before.capital_of.items():
        if where not in after.capital_of and where in keys.board:
            draft.set("Board", keys.board[where], "Capital Of", "", why(owner))


def record_ledger(draft: Draft, world: World, cause: str, ledger: RunLedger) -> None:
    """The Game keys of where the campaign stands (the season and the last one resolved through the run
    ledger's keys), and every house's mandate."""
    ledger.set_period(draft, world.season, cause)
    draft.set("Game", "to_move", "Value", world.to_move, cause)
    draft.set("Game", "status", "Value", world.status.value, cause)
    draft.set("Game", "winner", "Value", world.winner, cause)
    last = world.season if world.status is Status.OVER else world.season - 1
    ledger.set_last(draft, last, cause)
    for house in world.houses:
        draft.set("Houses", house, "Mandate", mandate(world, house), "mandate")
