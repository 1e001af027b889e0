"""The Naga's duty (the document's special rules: "Naga must attack a shadowlands or corrupt player whenever
they get the opportunity"). A player's duty the engine cannot order for them: `validate` warns the GM at the
Naga unit's row, and `check` tells the Naga player and the GM (clan_war.preview), before the turn resolves.

A Naga unit has the opportunity when it can move this turn (a leader able to lead it, within its Command
Limit) and a province next to it by a road holds an army of a Shadowlands or corrupted faction, or is
controlled by one; it has been ordered to take it when a primary or cavalry Moves row of the turn sends it
into one of those provinces. A unit already facing such an army where it stands fights it anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

from sheets_engine.clan_war.game import Turn
from sheets_engine.clan_war.leadership import leader_of, over_limit
from sheets_engine.clan_war.schema import MovePhase, MoveStatus, Special


@dataclass(frozen=True)
class Duty:
    """A Naga unit that could attack the Shadowlands or the corrupt this turn, and was not ordered to."""

    faction: str
    unit: str
    province: str
    targets: tuple[str, ...]

    def sentence(self) -> str:
        """The warning, in a player's words."""
        return (
            f"the Naga must attack a Shadowlands or corrupt player whenever they can: {self.unit} at {self.province} "
            f"could attack {', '.join(self.targets)} this turn, and no primary or cavalry Moves row sends it there"
        )


def _corrupt_ground(turn: Turn, faction: str, province: str) -> bool:
    holder = turn.controller(province)
    if holder and holder != faction and turn.corrupt(holder):
        return True
    return any(other != faction and turn.corrupt(other) for other in turn.armies_at(province))


def unmet(turn: Turn) -> list[Duty]:
    """Every Naga unit that could attack the Shadowlands or the corrupt this turn and is not ordered to."""
    moves = turn.draft.frame("Moves")
    ordered = moves[
        (moves["Turn"] == turn.number)
        & moves["Phase"].isin([MovePhase.PRIMARY.value, MovePhase.CAVALRY.value])
        & (moves["Status"] != MoveStatus.REJECTED.value)
    ]
    duties = []
    for faction in [str(f) for f in turn.draft.frame("Factions").index if turn.special(str(f)) == Special.NAGA.value]:
        for unit in turn.units(faction=faction):
            where = str(turn.draft.get("Units", unit, "Province"))
            leader = leader_of(turn, unit)
            if leader is None or over_limit(turn, unit, leader) or _corrupt_ground(turn, faction, where):
                continue
            targets = tuple(p for p in turn.neighbours(where) if _corrupt_ground(turn, faction, p))
            sent = set(ordered[ordered["Mover"] == unit]["To"])
            if targets and not sent & set(targets):
                duties.append(Duty(faction, unit, where, targets))
    return duties
