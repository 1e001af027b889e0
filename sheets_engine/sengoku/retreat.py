"""Guide Section 6, Retreat and Destruction: where a beaten army goes, or that it is destroyed.

An army that loses more than 50% of its units in a battle retreats: to its origin if it moved in
this turn (even if that province is hostile now); otherwise to the first province of the
battle province's `Adjacent` list with no hostile army (positions after movement and any earlier
retreat this turn); with none, it is destroyed (all units zeroed out, Status Destroyed, no leader).
Its leader goes with it. An army part of which sheltered in a fortress never retreats: it stays,
whole, in the fortress (battle._rout).
"""

from __future__ import annotations

from sheets_engine.core.cells import split_names
from sheets_engine.sengoku.alliances import friendly
from sheets_engine.sengoku.armies import set_units, standing
from sheets_engine.sengoku.schema import ArmyStatus
from sheets_engine.sengoku.turn import Turn


def retreat_to(turn: Turn, army: str, province: str, declared: set[tuple[str, str]]) -> str:
    """Its origin if it moved in; else the first Adjacent province with no hostile army; "" if none."""
    draft = turn.draft
    origin = str(draft.get("Armies", army, "Origin"))
    if draft.get("Armies", army, "Moved") and origin:
        return origin
    clan = str(draft.get("Armies", army, "Clan"))
    for neighbour in split_names(str(draft.get("Provinces", province, "Adjacent"))):
        clans = {str(draft.get("Armies", a, "Clan")) for a in standing(draft, neighbour)}
        if all(friendly(declared, clan, other) for other in clans):
            return neighbour
    return ""


def retreat(turn: Turn, army: str, province: str, destination: str, columns: tuple[str, ...]) -> str:
    """The army goes to `destination` with its leader, or, with none, is destroyed; in words."""
    draft = turn.draft
    if not destination:
        cause = f"battle at {province}: destroyed"
        set_units(draft, army, dict.fromkeys(columns, 0), cause)
        draft.set("Armies", army, "Status", ArmyStatus.DESTROYED.value, cause)
        draft.set("Armies", army, "Leader", "", cause)
        turn.summary["armies destroyed"] += 1
        return f"{army} was destroyed"
    cause = f"battle at {province}: retreat"
    draft.set("Armies", army, "Province", destination, cause)
    draft.set("Armies", army, "Status", ArmyStatus.FIELD.value, cause)
    leader = str(draft.get("Armies", army, "Leader"))
    if leader:
        draft.set("Characters", leader, "Location", destination, cause)
    turn.summary["armies retreated"] += 1
    return f"{army} retreated to {destination}"
