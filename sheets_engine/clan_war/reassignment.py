"""Reassignment (the start phase's "Reassignment"): "Personalities and troop models may be shifted between
units at the same province, or in the case of personalities, may be shifted into or out of units (as
commanders or associated personalities)."

Start-phase orders (Purchases rows with no Item, settled at once, in row order):

- `lead`: the personality (From) takes command of the unit (Target) at its province and is attached to it
  (it moves with it); the unit's former commander stays with it as an associated personality, and a
  leadership package stays with the unit whoever commands it.
- `join`: the personality (From) is attached to the unit (Target) as an associated personality (if it
  commanded that unit, it no longer does).
- `leave`: the personality (From) leaves the unit it is attached to and gives up every command.
- `transfer`: Count models from one unit (From) to another of the same troop type (Target) at the same
  province, or to a new unit of that name (a new unit has the troop type's ML and TL and no leader). The
  inexperienced models are shifted first; experienced ones count as experienced in an Experienced unit
  (whose 75% rule then applies); tattooed models go only to a unit with the same tattoos. A unit whose
  every model is shifted is merged away (Destroyed, its personalities detached).

A unit's limits hold: the receiving unit's Unit Size and its leader's Command Limit, and a new unit counts
against the troop type's Max Units.
"""

from __future__ import annotations

from typing import Any

from sheets_engine.clan_war.experience import join_models, lose_models
from sheets_engine.clan_war.game import Turn
from sheets_engine.clan_war.koku import Refused, count_of
from sheets_engine.clan_war.leadership import command_group, package_of, room
from sheets_engine.clan_war.new_forces import new_unit
from sheets_engine.clan_war.purchases import check_size, check_units, free_name
from sheets_engine.clan_war.schema import PersonalityStatus, UnitStatus


def _person(turn: Turn, faction: str, person: str) -> dict[str, Any]:
    draft = turn.draft
    if not person or not draft.has("Personalities", person) or draft.get("Personalities", person, "Faction") != faction:
        raise Refused(f"name a personality of {faction} as From")
    row = draft.row("Personalities", person)
    if row["Status"] != PersonalityStatus.READY.value:
        raise Refused(f"{person} is {row['Status']}")
    return row


def _unit(turn: Turn, faction: str, unit: str, column: str) -> dict[str, Any]:
    draft = turn.draft
    if not unit or not draft.has("Units", unit) or draft.get("Units", unit, "Faction") != faction:
        raise Refused(f"name a unit of {faction} as {column}")
    row = draft.row("Units", unit)
    if row["Status"] == UnitStatus.DESTROYED.value or row["Models"] <= 0:
        raise Refused(f"{unit} has been destroyed")
    return row


def _together(person: str, where: str, unit: str, there: str) -> None:
    if where != there:
        raise Refused(f"{person} is at {where} and {unit} at {there}: reassignment happens at one province")


def lead(turn: Turn, row: dict[str, Any], _entry: Any = None) -> str:
    """The personality (From) takes command of the unit (Target) at its province."""
    faction, person, unit = str(row["Faction"]), str(row["From"]), str(row["Target"])
    who, troops = _person(turn, faction, person), _unit(turn, faction, unit, "Target")
    _together(person, str(who["Province"]), unit, str(troops["Province"]))
    if command_group(turn, unit):
        raise Refused(f"{unit} is a command group: it accompanies its personality and is not commanded")
    if troops["Leader"] == person:
        raise Refused(f"{person} commands {unit} already")
    draft = turn.draft
    cause = f"lead: {person} takes command of {unit}"
    former = str(troops["Leader"])
    package = package_of(turn, unit)
    if package and former == package:  # an older workbook's package in Leader: it stays, as the unit's Package
        draft.set("Units", unit, "Package", package, cause)
        former = ""
    draft.set("Units", unit, "Leader", person, cause)
    draft.set("Personalities", person, "Unit", unit, cause)
    stays = f"; {former} stays with it" if former and draft.has("Personalities", former) else ""
    return f"{person} commands {unit}{stays}"


def join(turn: Turn, row: dict[str, Any], _entry: Any = None) -> str:
    """The personality (From) is attached to the unit (Target) as an associated personality."""
    faction, person, unit = str(row["Faction"]), str(row["From"]), str(row["Target"])
    who, troops = _person(turn, faction, person), _unit(turn, faction, unit, "Target")
    _together(person, str(who["Province"]), unit, str(troops["Province"]))
    if who["Unit"] == unit and troops["Leader"] != person:
        raise Refused(f"{person} is with {unit} already")
    cause = f"join: {person} joins {unit}"
    if troops["Leader"] == person:
        turn.draft.set("Units", unit, "Leader", "", f"{cause}, no longer its commander")
    turn.draft.set("Personalities", person, "Unit", unit, cause)
    return f"{person} joins {unit} as an associated personality"


def leave(turn: Turn, row: dict[str, Any], _entry: Any = None) -> str:
    """The personality (From) leaves its unit and gives up every command."""
    faction, person = str(row["Faction"]), str(row["From"])
    who = _person(turn, faction, person)
    draft = turn.draft
    frame = draft.frame("Units")
    commands = [str(u) for u in frame.index[frame["Leader"] == person]]
    if not who["Unit"] and not commands:
        raise Refused(f"{person} is in no unit and commands none")
    cause = f"leave: {person} leaves its unit"
    for unit in commands:
        draft.set("Units", unit, "Leader", "", cause)
    if who["Unit"]:
        draft.set("Personalities", person, "Unit", "", cause)
    parts = [f"leaves {who['Unit']}"] if who["Unit"] else []
    parts += [f"no longer commands {', '.join(commands)}"] if commands else []
    return f"{person} " + " and ".join(parts)


def transfer(turn: Turn, row: dict[str, Any], _entry: Any = None) -> str:
    """Count models from one unit (From) to another of the same troop type (Target), or to a new unit."""
    faction, source, target, count = str(row["Faction"]), str(row["From"]), str(row["Target"]), count_of(row)
    draft = turn.draft
    giver = _unit(turn, faction, source, "From")
    if count < 1:
        raise Refused("Count is 0: name the number of models to shift")
    if count > giver["Models"]:
        raise Refused(f"{source} has {giver['Models']} models, not {count}")
    if not target or target == source:
        raise Refused("name the unit the models join as Target (another unit, or a new unit's name)")
    cause = f"transfer: {count} models from {source} to {target}"
    entry = turn.catalogue(str(giver["Item"]))
    assert entry is not None
    if draft.has("Units", target) or draft.has("Personalities", target):
        taker = _unit(turn, faction, target, "Target")
        if taker["Item"] != giver["Item"]:
            raise Refused(f"{target} is a unit of {taker['Item']}: models shift only between units of one troop type")
        _together(source, str(giver["Province"]), target, str(taker["Province"]))
        if set(carried_tattoos(giver)) != set(carried_tattoos(taker)):
            raise Refused(f"{source} and {target} bear different tattoos: tattooed models join only their like")
        if taker["From Ally"] != giver["From Ally"]:
            raise Refused(f"{source} and {target} were not bought alike (from an ally's clan or not)")
        limit = room(turn, target)
        if limit is not None and count > limit[0]:
            raise Refused(f"{target} may take {max(limit[0], 0)} more models: {limit[1]}")
        veterans = _shift_out(turn, source, count, cause)
        lost_trait = join_models(turn, target, count, veterans, cause)
        done = f"{count} models of {source} join {target}" + (f"; {lost_trait}" if lost_trait else "")
    else:
        free_name(turn, target)
        check_size(entry, count)
        check_units(turn, faction, entry)
        values = {"Tattooed": giver["Tattooed"], "Tattoos": giver["Tattoos"], "From Ally": giver["From Ally"]}
        _shift_out(turn, source, count, cause)
        new_unit(turn, target, faction, entry, str(giver["Province"]), count, cause, **values)
        done = f"{count} models of {source} form the new unit {target}, with no leader yet"
    if int(draft.get("Units", source, "Models")) == 0:
        _merged(turn, source, target, cause)
        done += f"; {source} is merged away"
    return done


def carried_tattoos(unit_row: dict[str, Any]) -> list[str]:
    """The tattoos a unit's models bear (Units `Tattoos`)."""
    return [t.strip() for t in str(unit_row["Tattoos"]).split(",") if t.strip()]


def _shift_out(turn: Turn, source: str, count: int, cause: str) -> int:
    """Take `count` models out of the unit, the inexperienced first: how many experienced ones went."""
    return lose_models(turn, source, int(turn.draft.get("Units", source, "Models")) - count, cause)


def _merged(turn: Turn, source: str, target: str, cause: str) -> None:
    draft = turn.draft
    draft.set("Units", source, "Status", UnitStatus.DESTROYED.value, f"{cause}: every model shifted")
    for person in turn.personalities():
        if draft.get("Personalities", person, "Unit") == source:
            draft.set("Personalities", person, "Unit", "", f"{cause}: {source} merged away")
