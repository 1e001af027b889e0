"""Leadership: who leads a unit, and how many models a leader may lead (the document's "Units must have a
leader (either a personality or an LP) whose Command Limit is not exceeded in order to move", and "the
maximum size of the unit (as determined by force profile restrictions and leadership)").

A Command Limit counts models. A personality who leads units leads all their models (command groups
aside: they accompany a personality, they are not led by it); a leadership package leads the models of
its own unit. A unit's leader is the personality in its `Leader` column while that personality is Ready;
otherwise its leadership package (`Package`, or a package named in `Leader`, as older workbooks do).
The force profile's limit is the Catalogue's `Unit Size` (the most models one unit of the troop type
may have; empty: no limit).
"""

from __future__ import annotations

from dataclasses import dataclass

from sheets_engine.clan_war.game import Turn
from sheets_engine.clan_war.schema import ItemKind, PersonalityStatus
from sheets_engine.core.cells import is_blank


@dataclass(frozen=True)
class Leader:
    """A unit's leader: its name, Command Limit (models), Leadership, and whether it is a personality."""

    name: str
    limit: int
    leadership: int
    personality: bool


def package_of(turn: Turn, unit: str) -> str:
    """The leadership package a model of the unit was promoted to ("" for none)."""
    package = str(turn.draft.get("Units", unit, "Package"))
    if package:
        return package
    leader = str(turn.draft.get("Units", unit, "Leader"))
    entry = turn.catalogue(leader) if leader and not turn.draft.has("Personalities", leader) else None
    return leader if entry is not None and entry["Kind"] == ItemKind.LEADERSHIP_PACKAGE.value else ""


def leader_of(turn: Turn, unit: str) -> Leader | None:
    """The unit's leader, or None when nobody can lead it (no Ready personality and no leadership package)."""
    draft = turn.draft
    named = str(draft.get("Units", unit, "Leader"))
    if named and draft.has("Personalities", named):
        person = draft.row("Personalities", named)
        if person["Status"] == PersonalityStatus.READY.value:
            return Leader(named, int(person["Command Limit"]), int(person["Leadership"]), True)
    package = package_of(turn, unit)
    entry = turn.catalogue(package) if package else None
    if entry is None:
        return None
    return Leader(package, int(entry["Command Limit"]), int(entry["Leadership"]), False)


def command_group(turn: Turn, unit: str) -> bool:
    """Is the unit a command group (models accompanying a personality)?"""
    entry = turn.catalogue(str(turn.draft.get("Units", unit, "Item")))
    return bool(entry and entry["Kind"] == ItemKind.COMMAND_GROUP.value)


def led_by(turn: Turn, person: str) -> list[str]:
    """The units in the field a personality leads (command groups aside)."""
    frame = turn.draft.frame("Units")
    return [u for u in turn.units() if str(frame.at[u, "Leader"]) == person and not command_group(turn, u)]


def models_led(turn: Turn, leader: Leader, unit: str) -> int:
    """How many models the leader of `unit` leads: every model of a personality's units, or the package's own."""
    if leader.personality:
        return sum(int(turn.draft.get("Units", u, "Models")) for u in led_by(turn, leader.name))
    return int(turn.draft.get("Units", unit, "Models"))


def over_limit(turn: Turn, unit: str, leader: Leader) -> str:
    """Why the leader's Command Limit is exceeded ("" when it is not)."""
    led = models_led(turn, leader, unit)
    if led <= leader.limit:
        return ""
    whose = f"{leader.name} leads {led} models" + (" across its units" if leader.personality else f" in {unit}")
    return f"{whose}, more than a Command Limit of {leader.limit}"


def room(turn: Turn, unit: str) -> tuple[int, str] | None:
    """How many more models the unit may take, and what limits it (None: no limit): the troop type's Unit Size
    and its leader's Command Limit."""
    models = int(turn.draft.get("Units", unit, "Models"))
    limits: list[tuple[int, str]] = []
    entry = turn.catalogue(str(turn.draft.get("Units", unit, "Item")))
    if entry is not None and not is_blank(entry["Unit Size"]):
        limits.append(
            (int(entry["Unit Size"]) - models, f"a unit of {entry['Item']} holds at most {entry['Unit Size']} models")
        )
    leader = leader_of(turn, unit)
    if leader is not None and not command_group(turn, unit):
        led = models_led(turn, leader, unit)
        limits.append(
            (leader.limit - led, f"its leader {leader.name} has a Command Limit of {leader.limit} and leads {led}")
        )
    return min(limits) if limits else None
