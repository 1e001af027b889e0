"""Promotion (the start phase's "Promotion"): "For the listed koku cost, you may promote a model in a unit
to Nikutai, or a Nikutai to Gunso, or a Gunso to Chui. As long as the unit is in existence, these LP's
remain attached to them. Clan specific LP's must remain 'in-family' ... Generic LP's, however, may be
promoted to a Family profile ... Elemental Guardians may not be promoted, and other LPs may not be promoted
to Guardian status. Also, non-experienced personalities may be promoted to their Experienced version (if
they have one) by paying the difference in Koku cost."

The Catalogue says what a leadership package is: its `Family` (empty: generic; `Elemental Guardian`), its
`Rank` (1 Nikutai, 2 Gunso, 3 Chui: a promotion goes one step up; a package with no Rank is not checked),
its `Clan` (clan packages stay in the clan). The package a unit has is its `Package` (clan_war.leadership),
which stays with the unit whoever commands it.
"""

from __future__ import annotations

from typing import Any

from sheets_engine.clan_war.game import Turn, is_unaligned
from sheets_engine.clan_war.koku import Price, Refused, own_unit, pay
from sheets_engine.clan_war.leadership import package_of
from sheets_engine.clan_war.purchases import GONE, check_three, in_play
from sheets_engine.clan_war.schema import ItemKind
from sheets_engine.core.cells import is_blank

GUARDIAN = "Elemental Guardian"  # the Family of the Elemental Guardians


def _guardian(entry: dict[str, Any] | None) -> bool:
    return entry is not None and str(entry["Family"]).casefold() == GUARDIAN.casefold()


def promote(turn: Turn, row: dict[str, Any], entry: dict[str, Any]) -> str:
    """A model of the unit (Target) promoted to the leadership package (Item), or its package one step up."""
    faction, unit, new = str(row["Faction"]), str(row["Target"]), str(entry["Item"])
    draft = turn.draft
    if entry["Kind"] != ItemKind.LEADERSHIP_PACKAGE.value:
        raise Refused(f"{new} is not a leadership package: only models are promoted")
    own_unit(turn, faction, unit, "was destroyed: there is no model to promote")
    clan = str(entry["Clan"])
    if clan != faction and not is_unaligned(clan):
        raise Refused(f"{new} is the {clan}'s leadership package: clan packages stay in the clan")
    current = package_of(turn, unit)
    _check_step(turn, unit, current, entry)
    check_three(turn, faction, entry, 1)
    cause = f"promote {new} by {faction}"
    pay(turn, faction, Price(int(entry["Cost"])), cause)
    # the package goes where the unit's is written (older workbooks name it as the unit's Leader)
    column = "Leader" if current and draft.get("Units", unit, "Leader") == current else "Package"
    draft.set("Units", unit, column, new, cause)
    what = f"{current} of {unit}" if current else f"a model of {unit}"
    return f"{what} promoted to {new} for {entry['Cost']} koku"


def _check_step(turn: Turn, unit: str, current: str, entry: dict[str, Any]) -> None:
    """Guardians, families and ranks: the promotion must be one the document allows."""
    new = str(entry["Item"])
    have = turn.catalogue(current) if current else None
    if _guardian(have):
        raise Refused(f"{unit}'s {current} is an Elemental Guardian: Elemental Guardians may not be promoted")
    if _guardian(entry):
        if current:
            raise Refused(f"{unit} has {current}: other leadership packages may not be promoted to Guardian status")
        return
    family, wanted = (str(have["Family"]) if have else ""), str(entry["Family"])
    if family and family.casefold() != wanted.casefold():
        raise Refused(
            f"{unit}'s {current} is of the {family} family: clan packages stay in their family "
            f"({new} is {'generic' if not wanted else 'of the ' + wanted + ' family'})"
        )
    if is_blank(entry["Rank"]) or (have is not None and is_blank(have["Rank"])):
        return
    step = (int(have["Rank"]) if have else 0) + 1
    if int(entry["Rank"]) != step:
        whom = f"its {current} (rank {int(have['Rank'])})" if have else "a model"
        raise Refused(f"{whom} is promoted one step, to a rank {step} package: {new} is rank {int(entry['Rank'])}")


def upgrade(turn: Turn, row: dict[str, Any], entry: dict[str, Any]) -> str:
    """A non-experienced personality promoted to its Experienced version, for the difference in cost."""
    faction, person = str(row["Faction"]), str(row["Target"])
    draft = turn.draft
    if not draft.has("Personalities", person) or draft.get("Personalities", person, "Faction") != faction:
        raise Refused(f"name a personality of {faction} as Target")
    current = str(draft.get("Personalities", person, "Item"))
    if entry["Experienced Of"] != current:
        raise Refused(f"{entry['Item']} is not the experienced version of {current}")
    if draft.get("Personalities", person, "Status") in GONE:
        raise Refused(f"{person} is out of play")
    if entry["Unique"]:
        holder, dead = in_play(turn, str(entry["Item"]))
        if dead or (holder and holder != faction):
            raise Refused(f"{entry['Item']} is unique and is in play already or has died")
    old = turn.catalogue(current)
    cost = max(0, int(entry["Cost"]) - (int(old["Cost"]) if old else 0))
    cause = f"upgrade {person} to {entry['Item']} by {faction}"
    pay(turn, faction, Price(cost), cause)
    draft.set("Personalities", person, "Item", str(entry["Item"]), cause)
    draft.set("Personalities", person, "Experienced", True, cause)
    for ring in ("Air", "Earth", "Fire", "Water", "Void"):
        draft.set("Personalities", person, ring, int(entry[ring]), cause)
    draft.set("Personalities", person, "Max Wounds", int(entry["Wounds"]), cause)
    draft.set("Personalities", person, "Max Void", int(entry["Void"]), cause)
    draft.set("Personalities", person, "Command Limit", int(entry["Command Limit"]), cause)
    draft.set("Personalities", person, "Leadership", int(entry["Leadership"]), cause)
    return f"{person} is now {entry['Item']}, for the difference of {cost} koku"
