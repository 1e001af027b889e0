"""Tattoos (the document's "If a unit is Tattooed, the player must pay for tattoos for the new models as
well", "Tattoos may not be traded", and the special rules for Togashi Yokuni).

- A unit's tattoos are Units `Tattoos` (Catalogue items of kind Tattoo; a Tattoo's Cost is per model) and
  its `Tattooed` trait. The starting forces' tattoos (Yokuni's unit may be given two at the start of the
  campaign, at normal cost) are typed by the GM with the rest of the starting forces.
- `tattoo` (a start-phase order: Item the Tattoo, Target the unit): Togashi Yokuni (the Game key
  `tattoo_master`, or a personality with his profile) must command the unit, which stands in the Togashi
  province (`togashi_province`) and bears fewer than `tattoos_per_unit` (2) tattoos; it pays the tattoo's
  cost for every model. "The unit must spend the entire turn in the Togashi province": in the recovery
  phase, if it is still there and no move took it away this turn, it gains the Tattooed trait and the
  tattoo for good; otherwise the paid tattoo waits for the first turn it spends wholly there.
- Replacement models for a Tattooed unit pay for its tattoos too. A unit whose troop type is not tattooed
  by nature (the Catalogue's `Tattooable`) was tattooed by Yokuni: new troops join it only in a turn the
  whole unit spends in the Togashi province (they wait, paid, until then); it need only pay the tattoos of
  the new troops. If Yokuni later stops commanding it, the unit keeps its tattoos.
"""

from __future__ import annotations

from typing import Any

from sheets_engine.clan_war.game import Turn
from sheets_engine.clan_war.koku import Price, Refused, own_unit, pay
from sheets_engine.clan_war.leadership import leader_of
from sheets_engine.clan_war.schema import Action, ItemKind, MoveStatus, PurchaseStatus, UnitStatus
from sheets_engine.core.cells import split_names


def tattoos_of(turn: Turn, unit: str) -> list[str]:
    """The tattoos the unit's models bear."""
    return split_names(str(turn.draft.get("Units", unit, "Tattoos")))


def tattoo_cost(turn: Turn, unit: str) -> int:
    """What the unit's tattoos cost for one model."""
    total = 0
    for tattoo in tattoos_of(turn, unit):
        entry = turn.catalogue(tattoo)
        total += int(entry["Cost"]) if entry else 0
    return total


def by_yokuni(turn: Turn, unit: str) -> bool:
    """Is the unit tattooed though its troop type is not tattooed by nature (Yokuni's work)?"""
    entry = turn.catalogue(str(turn.draft.get("Units", unit, "Item")))
    return bool(turn.draft.get("Units", unit, "Tattooed")) and not (entry and entry["Tattooable"])


def whole_turn_at_togashi(turn: Turn, unit: str) -> bool:
    """Has the unit spent the whole turn so far in the Togashi province (no move took it away)?"""
    if str(turn.draft.get("Units", unit, "Province")) != turn.settings.togashi_province:
        return False
    moves = turn.draft.frame("Moves")
    moved = (moves["Turn"] == turn.number) & (moves["Mover"] == unit) & (moves["Status"] == MoveStatus.RESOLVED.value)
    return not bool(moved.any())


def is_yokuni(turn: Turn, person: str) -> bool:
    """Is the personality Togashi Yokuni (his Catalogue item, its experienced version, or his profile)?"""
    master = turn.settings.tattoo_master
    row = turn.draft.row("Personalities", person)
    entry = turn.catalogue(str(row["Item"]))
    return master in (row["Item"], row["Profile"]) or bool(entry and entry["Experienced Of"] == master)


def _waiting_tattoos(turn: Turn, unit: str) -> list[str]:
    frame = turn.draft.frame("Purchases")
    rows = frame[
        (frame["Status"] == PurchaseStatus.ACCEPTED.value)
        & (frame["Action"] == Action.TATTOO.value)
        & (frame["Target"] == unit)
    ]
    return [str(i) for i in rows["Item"]]


def tattoo(turn: Turn, row: dict[str, Any], entry: dict[str, Any]) -> str:
    """Yokuni tattoos the unit he commands (paid now, gained in the recovery phase): Accepted, or Refused."""
    faction, unit, item = str(row["Faction"]), str(row["Target"]), str(entry["Item"])
    draft = turn.draft
    if entry["Kind"] != ItemKind.TATTOO.value:
        raise Refused(f"{item} is not a tattoo")
    own_unit(turn, faction, unit, "has been destroyed")
    leader = leader_of(turn, unit)
    master = turn.settings.tattoo_master
    if leader is None or not leader.personality or not is_yokuni(turn, leader.name):
        raise Refused(f"only a unit {master} commands may be tattooed by him")
    home = turn.settings.togashi_province
    if str(draft.get("Units", unit, "Province")) != home:
        raise Refused(f"{unit} must spend the entire turn in the Togashi province ({home}) to be tattooed")
    have = tattoos_of(turn, unit) + _waiting_tattoos(turn, unit)
    if item in have:
        raise Refused(f"{unit} bears {item} already (or has it paid for)")
    if len(have) >= turn.settings.tattoos_per_unit:
        raise Refused(f"a unit may be given {turn.settings.tattoos_per_unit} tattoos, and {unit} has {', '.join(have)}")
    models = int(draft.get("Units", unit, "Models"))
    cost = int(entry["Cost"]) * models
    pay(turn, faction, Price(cost), f"tattoo {item} on {unit} by {faction}")
    when = f"tattooed in the recovery phase if it stays at {home}"
    return f"{item} for the {models} models of {unit} for {cost} koku; {when}"


def place_tattoo(turn: Turn, row: dict[str, Any], cause: str) -> tuple[str, bool]:
    """The recovery phase: the unit gains the tattoo if it spent the whole turn at the Togashi province."""
    unit, item = str(row["Target"]), str(row["Item"])
    draft = turn.draft
    if draft.get("Units", unit, "Status") == UnitStatus.DESTROYED.value:
        return f"{unit} was destroyed: the tattoo is lost", True
    if not whole_turn_at_togashi(turn, unit):
        home = turn.settings.togashi_province
        return f"{unit} did not spend the whole turn at {home}: tattooed at the end of a turn it does", False
    draft.set("Units", unit, "Tattoos", ", ".join([*tattoos_of(turn, unit), item]), cause)
    draft.set("Units", unit, "Tattooed", True, cause)
    return f"{unit} is Tattooed with {item}", True


def replacement_surcharge(turn: Turn, unit: str, count: int) -> int:
    """What replacement models pay for the unit's tattoos (Refused if Yokuni's unit is not at Togashi)."""
    if not turn.draft.get("Units", unit, "Tattooed"):
        return 0
    if by_yokuni(turn, unit) and str(turn.draft.get("Units", unit, "Province")) != turn.settings.togashi_province:
        raise Refused(
            f"{unit} was tattooed by {turn.settings.tattoo_master}: new troops join it only when the whole unit "
            f"spends the entire turn in the Togashi province ({turn.settings.togashi_province})"
        )
    return tattoo_cost(turn, unit) * count


def replacements_wait(turn: Turn, unit: str) -> str:
    """Why replacements for the unit cannot join this recovery phase ("" when they can)."""
    if by_yokuni(turn, unit) and not whole_turn_at_togashi(turn, unit):
        home = turn.settings.togashi_province
        return f"{unit} did not spend the whole turn at {home}: the new troops join at the end of a turn it does"
    return ""
