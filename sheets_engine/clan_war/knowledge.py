"""What a faction may know of the others (no sentence of the rules document says: the GM told the
players at the table). The engine's decision: a faction sees the provinces it controls and those where
its own units or personalities stand, and every province next to one of them; in those it sees the
other factions' units and personalities. Who controls each province is public (the map shows it)."""

from __future__ import annotations

from sheets_engine.clan_war.schema import PersonalityStatus, UnitStatus
from sheets_engine.core.cells import split_names
from sheets_engine.core.tables import GameState

GONE = {PersonalityStatus.DEAD.value, PersonalityStatus.RELEASED.value}


def standing_units(state: GameState) -> list[str]:
    """The units not Destroyed, in Units row order."""
    units = state.frame("Units")
    return [str(u) for u in units.index if str(units.at[u, "Status"]) != UnitStatus.DESTROYED.value]


def standing_people(state: GameState) -> list[str]:
    """The personalities not Dead or Released, in Personalities row order."""
    people = state.frame("Personalities")
    return [str(p) for p in people.index if str(people.at[p, "Status"]) not in GONE]


def own_places(state: GameState, faction: str) -> set[str]:
    """The provinces the faction controls, and those where its units or personalities stand."""
    provinces, units, people = state.frame("Provinces"), state.frame("Units"), state.frame("Personalities")
    places = {str(p) for p in provinces.index if str(provinces.at[p, "Controller"]) == faction}
    places |= {str(units.at[u, "Province"]) for u in standing_units(state) if units.at[u, "Faction"] == faction}
    places |= {str(people.at[p, "Province"]) for p in standing_people(state) if people.at[p, "Faction"] == faction}
    return places


def seen_places(state: GameState, faction: str) -> set[str]:
    """The provinces the faction sees into: its own places and their neighbours."""
    provinces = state.frame("Provinces")
    seen = own_places(state, faction)
    for place in list(seen):
        if place in provinces.index:
            seen.update(n for n in split_names(str(provinces.at[place, "Adjacent"])) if n in provinces.index)
    return seen


def visible_units(state: GameState, faction: str | None) -> list[str]:
    """The standing units a faction knows of (its own, and the others' in the provinces it sees); None: all."""
    units = state.frame("Units")
    if faction is None:
        return standing_units(state)
    seen = seen_places(state, faction)
    return [u for u in standing_units(state) if units.at[u, "Faction"] == faction or units.at[u, "Province"] in seen]


def visible_people(state: GameState, faction: str | None) -> list[str]:
    """The personalities in play a faction knows of (as `visible_units`); None: all."""
    people = state.frame("Personalities")
    if faction is None:
        return standing_people(state)
    seen = seen_places(state, faction)
    return [p for p in standing_people(state) if people.at[p, "Faction"] == faction or people.at[p, "Province"] in seen]
